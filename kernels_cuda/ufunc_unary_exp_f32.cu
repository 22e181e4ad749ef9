// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_exp_f32: exp, expm1, log, log1p, log2, log10, sinh, cosh, tanh, asinh, acosh, atanh.
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
NPU_EMU_UFUNC1_KERNEL(ufunc_exp_f32, op_exp, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_expm1_f32, op_expm1, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_log_f32, op_log, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_log1p_f32, op_log1p, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_log2_f32, op_log2, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_log10_f32, op_log10, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_sinh_f32, op_sinh, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_cosh_f32, op_cosh, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_tanh_f32, op_tanh, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_asinh_f32, op_asinh, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_acosh_f32, op_acosh, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_atanh_f32, op_atanh, float, float)
