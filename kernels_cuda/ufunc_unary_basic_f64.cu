// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_basic_f64: abs, negative, sign, square, sqrt, floor, ceil, trunc, round, reciprocal, signbit, isnan, isinf, isfinite.
#include "ufunc.cuh"
NPU_EMU_UFUNC1_KERNEL(ufunc_abs_f64, op_abs, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_negative_f64, op_negative, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_sign_f64, op_sign, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_square_f64, op_square, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_sqrt_f64, op_sqrt, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_floor_f64, op_floor, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_ceil_f64, op_ceil, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_trunc_f64, op_trunc, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_round_f64, op_round, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_reciprocal_f64, op_reciprocal, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_signbit_f64, op_signbit, double, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isnan_f64, op_isnan, double, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isinf_f64, op_isinf, double, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isfinite_f64, op_isfinite, double, npu_emu::boolean)
