// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_basic_int8: abs, negative, sign, square, isnan, isinf, isfinite, logical_not, bitwise_invert.
#include "ufunc.cuh"
NPU_EMU_UFUNC1_KERNEL(ufunc_abs_s8, op_abs, int8_t, int8_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_negative_u8, op_negative, uint8_t, uint8_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_s8, op_sign, int8_t, int8_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_u8, op_sign, uint8_t, uint8_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_square_u8, op_square, uint8_t, uint8_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_isnan_u8, op_isnan, uint8_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isinf_u8, op_isinf, uint8_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isfinite_u8, op_isfinite, uint8_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_logical_not_bool, op_logical_not, npu_emu::boolean, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_bitwise_invert_u8, op_bitwise_invert, uint8_t, uint8_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_bitwise_invert_bool, op_bitwise_invert, npu_emu::boolean, npu_emu::boolean)
