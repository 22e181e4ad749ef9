// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_exp_int16: pow.
#include "ufunc.cuh"
#include "npu_emu_math_complex.cuh"
NPU_EMU_UFUNC_MATH2(op_pow, pow)
NPU_EMU_UFUNC2_KERNEL(ufunc_pow_s16, op_pow, int16_t, int16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_pow_u16, op_pow, uint16_t, uint16_t)
