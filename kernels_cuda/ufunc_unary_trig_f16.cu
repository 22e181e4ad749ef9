// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_trig_f16: sin, cos, tan, asin, acos, atan.
#include "ufunc.cuh"
#include "npu_emu_math_trig.cuh"
NPU_EMU_UFUNC_MATH1(op_sin, sin)
NPU_EMU_UFUNC_MATH1(op_cos, cos)
NPU_EMU_UFUNC_MATH1(op_tan, tan)
NPU_EMU_UFUNC_MATH1(op_asin, asin)
NPU_EMU_UFUNC_MATH1(op_acos, acos)
NPU_EMU_UFUNC_MATH1(op_atan, atan)
NPU_EMU_UFUNC1_KERNEL(ufunc_sin_f16, op_sin, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_cos_f16, op_cos, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_tan_f16, op_tan, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_asin_f16, op_asin, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_acos_f16, op_acos, npu_emu::f16, npu_emu::f16)
NPU_EMU_UFUNC1_KERNEL(ufunc_atan_f16, op_atan, npu_emu::f16, npu_emu::f16)
