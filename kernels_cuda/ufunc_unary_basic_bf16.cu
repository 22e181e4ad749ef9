// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_basic_bf16: abs, negative, sign, square, sqrt, floor, ceil, trunc, round, reciprocal, pows_sqrt, pows_rsqrt, pows_cube, pows_inv_square, signbit, isnan, isinf, isfinite.
#include "ufunc.cuh"
NPU_EMU_UFUNC1_KERNEL(ufunc_abs_bf16, op_abs, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_negative_bf16, op_negative, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_bf16, op_sign, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_square_bf16, op_square, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_sqrt_bf16, op_sqrt, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_floor_bf16, op_floor, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_ceil_bf16, op_ceil, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_trunc_bf16, op_trunc, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_round_bf16, op_round, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_reciprocal_bf16, op_reciprocal, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_sqrt_bf16, op_pows_sqrt, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_rsqrt_bf16, op_pows_rsqrt, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_cube_bf16, op_pows_cube, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_pows_inv_square_bf16, op_pows_inv_square, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC1_KERNEL(ufunc_signbit_bf16, op_signbit, npu_emu::bf16, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isnan_bf16, op_isnan, npu_emu::bf16, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isinf_bf16, op_isinf, npu_emu::bf16, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isfinite_bf16, op_isfinite, npu_emu::bf16, npu_emu::boolean)
