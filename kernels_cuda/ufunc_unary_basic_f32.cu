// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_basic_f32: abs, negative, sign, square, sqrt, floor, ceil, trunc, round, reciprocal, pows_sqrt, pows_rsqrt, pows_cube, pows_inv_square, signbit, isnan, isinf, isfinite.
#include "ufunc.cuh"
NPU_EMU_UFUNC1_KERNEL(ufunc_abs_f32, op_abs, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_negative_f32, op_negative, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_f32, op_sign, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_square_f32, op_square, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_sqrt_f32, op_sqrt, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_floor_f32, op_floor, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_ceil_f32, op_ceil, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_trunc_f32, op_trunc, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_round_f32, op_round, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_reciprocal_f32, op_reciprocal, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_sqrt_f32, op_pows_sqrt, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_rsqrt_f32, op_pows_rsqrt, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_cube_f32, op_pows_cube, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_inv_square_f32, op_pows_inv_square, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_signbit_f32, op_signbit, float, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isnan_f32, op_isnan, float, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isinf_f32, op_isinf, float, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isfinite_f32, op_isfinite, float, npu_emu::boolean)
