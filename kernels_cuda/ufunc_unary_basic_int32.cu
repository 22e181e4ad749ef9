// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_basic_int32: abs, negative, sign, square, isnan, isinf, isfinite, bitwise_invert.
#include "ufunc.cuh"
NPU_EMU_UFUNC1_KERNEL(ufunc_abs_s32, op_abs, int32_t, int32_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_negative_u32, op_negative, uint32_t, uint32_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_s32, op_sign, int32_t, int32_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_u32, op_sign, uint32_t, uint32_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_square_u32, op_square, uint32_t, uint32_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_isnan_u32, op_isnan, uint32_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isinf_u32, op_isinf, uint32_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isfinite_u32, op_isfinite, uint32_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_bitwise_invert_u32, op_bitwise_invert, uint32_t, uint32_t)
