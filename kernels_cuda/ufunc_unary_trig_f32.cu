// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_trig_f32: sin, cos, tan, asin, acos, atan.
#include "ufunc.cuh"
#include "npu_emu_math_trig.cuh"
NPU_EMU_UFUNC_MATH1(op_sin, sin)
NPU_EMU_UFUNC_MATH1(op_cos, cos)
NPU_EMU_UFUNC_MATH1(op_tan, tan)
NPU_EMU_UFUNC_MATH1(op_asin, asin)
NPU_EMU_UFUNC_MATH1(op_acos, acos)
NPU_EMU_UFUNC_MATH1(op_atan, atan)
NPU_EMU_UFUNC1_KERNEL(ufunc_sin_f32, op_sin, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_cos_f32, op_cos, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_tan_f32, op_tan, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_asin_f32, op_asin, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_acos_f32, op_acos, float, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_atan_f32, op_atan, float, float)
