// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_exp_int32: pow.
#include "ufunc.cuh"
#include "npu_emu_math_complex.cuh"
NPU_EMU_UFUNC_MATH2(op_pow, pow)
NPU_EMU_UFUNC2_KERNEL(ufunc_pow_s32, op_pow, int32_t, int32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_pow_u32, op_pow, uint32_t, uint32_t)
