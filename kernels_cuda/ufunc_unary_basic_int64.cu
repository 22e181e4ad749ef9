// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_basic_int64: abs, negative, sign, square, isnan, isinf, isfinite, bitwise_invert.
#include "ufunc.cuh"
NPU_EMU_UFUNC1_KERNEL(ufunc_abs_s64, op_abs, int64_t, int64_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_negative_u64, op_negative, uint64_t, uint64_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_s64, op_sign, int64_t, int64_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_u64, op_sign, uint64_t, uint64_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_square_u64, op_square, uint64_t, uint64_t)
NPU_EMU_UFUNC1_KERNEL(ufunc_isnan_u64, op_isnan, uint64_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isinf_u64, op_isinf, uint64_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isfinite_u64, op_isfinite, uint64_t, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_bitwise_invert_u64, op_bitwise_invert, uint64_t, uint64_t)
