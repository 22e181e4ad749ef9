// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_basic_f16: abs, negative, sign, square, sqrt, floor, ceil, trunc, round, reciprocal, pows_sqrt, pows_rsqrt, pows_cube, pows_inv_square, signbit, isnan, isinf, isfinite.
#include "ufunc.cuh"
NPU_EMU_UFUNC1_KERNEL(ufunc_abs_f16, op_abs, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_negative_f16, op_negative, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_f16, op_sign, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_square_f16, op_square, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_sqrt_f16, op_sqrt, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_floor_f16, op_floor, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_ceil_f16, op_ceil, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_trunc_f16, op_trunc, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_round_f16, op_round, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_reciprocal_f16, op_reciprocal, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_sqrt_f16, op_pows_sqrt, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_rsqrt_f16, op_pows_rsqrt, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_cube_f16, op_pows_cube, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_inv_square_f16, op_pows_inv_square, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_signbit_f16, op_signbit, npu_emu::f16, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isnan_f16, op_isnan, npu_emu::f16, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isinf_f16, op_isinf, npu_emu::f16, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isfinite_f16, op_isfinite, npu_emu::f16, npu_emu::boolean)
