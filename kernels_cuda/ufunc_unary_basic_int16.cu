// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_basic_int16: abs, negative, sign, square, isnan, isinf, isfinite, bitwise_invert.
#include "ufunc.cuh"
NPU_EMU_UFUNC1_KERNEL(ufunc_abs_s16, op_abs, int16_t, int16_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_negative_u16, op_negative, uint16_t, uint16_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_s16, op_sign, int16_t, int16_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_u16, op_sign, uint16_t, uint16_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_square_u16, op_square, uint16_t, uint16_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_isnan_u16, op_isnan, uint16_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isinf_u16, op_isinf, uint16_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isfinite_u16, op_isfinite, uint16_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_bitwise_invert_u16, op_bitwise_invert, uint16_t, uint16_t)
