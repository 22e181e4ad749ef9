// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_trig_f64: sin, cos, tan, asin, acos, atan.
#include "ufunc.cuh"
#include "npu_emu_math_trig.cuh"
NPU_EMU_UFUNC_MATH1(op_sin, sin)
NPU_EMU_UFUNC_MATH1(op_cos, cos)
NPU_EMU_UFUNC_MATH1(op_tan, tan)
NPU_EMU_UFUNC_MATH1(op_asin, asin)
NPU_EMU_UFUNC_MATH1(op_acos, acos)
NPU_EMU_UFUNC_MATH1(op_atan, atan)
NPU_EMU_UFUNC1_KERNEL(ufunc_sin_f64, op_sin, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_cos_f64, op_cos, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_tan_f64, op_tan, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_asin_f64, op_asin, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_acos_f64, op_acos, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_atan_f64, op_atan, double, double)
