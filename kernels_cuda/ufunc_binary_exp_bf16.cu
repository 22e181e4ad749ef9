// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_exp_bf16: pow, logaddexp.
#include "ufunc.cuh"
#include "npu_emu_math_exp.cuh"
NPU_EMU_UFUNC_MATH2(op_pow, pow)
NPU_EMU_UFUNC_MATH2(op_logaddexp, logaddexp)
NPU_EMU_UFUNC2_KERNEL(ufunc_pow_bf16, op_pow, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC2_KERNEL(ufunc_logaddexp_bf16, op_logaddexp, npu_emu::bf16, npu_emu::bf16)
