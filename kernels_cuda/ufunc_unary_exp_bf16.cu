// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_exp_bf16: exp, expm1, log, log1p, log2, log10, sinh, cosh, tanh, asinh, acosh, atanh.
#include "ufunc.cuh"
#include "npu_emu_math_exp.cuh"
NPU_EMU_UFUNC_MATH1(op_exp, exp)
NPU_EMU_UFUNC_MATH1(op_expm1, expm1)
NPU_EMU_UFUNC_MATH1(op_log, log)
NPU_EMU_UFUNC_MATH1(op_log1p, log1p)
NPU_EMU_UFUNC_MATH1(op_log2, log2)
NPU_EMU_UFUNC_MATH1(op_log10, log10)
NPU_EMU_UFUNC_MATH1(op_sinh, sinh)
NPU_EMU_UFUNC_MATH1(op_cosh, cosh)
NPU_EMU_UFUNC_MATH1(op_tanh, tanh)
NPU_EMU_UFUNC_MATH1(op_asinh, asinh)
NPU_EMU_UFUNC_MATH1(op_acosh, acosh)
NPU_EMU_UFUNC_MATH1(op_atanh, atanh)
NPU_EMU_UFUNC1_KERNEL(ufunc_exp_bf16, op_exp, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_expm1_bf16, op_expm1, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_log_bf16, op_log, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_log1p_bf16, op_log1p, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_log2_bf16, op_log2, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_log10_bf16, op_log10, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_sinh_bf16, op_sinh, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_cosh_bf16, op_cosh, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_tanh_bf16, op_tanh, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_asinh_bf16, op_asinh, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_acosh_bf16, op_acosh, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_atanh_bf16, op_atanh, npu_emu::bf16, npu_emu::bf16)
