// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_trig_complex: sin, cos, tan, asin, acos, atan.
#include "ufunc.cuh"
#include "npu_emu_math_complex.cuh"
NPU_EMU_UFUNC_MATH1(op_sin, sin)
NPU_EMU_UFUNC_MATH1(op_cos, cos)
NPU_EMU_UFUNC_MATH1(op_tan, tan)
NPU_EMU_UFUNC_MATH1(op_asin, asin)
NPU_EMU_UFUNC_MATH1(op_acos, acos)
NPU_EMU_UFUNC_MATH1(op_atan, atan)
NPU_EMU_UFUNC1_KERNEL(ufunc_sin_c64, op_sin, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC1_KERNEL(ufunc_sin_c128, op_sin, npu_emu::c128, npu_emu::c128)
NPU_EMU_UFUNC1_KERNEL(ufunc_cos_c64, op_cos, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC1_KERNEL(ufunc_cos_c128, op_cos, npu_emu::c128, npu_emu::c128)
NPU_EMU_UFUNC1_KERNEL(ufunc_tan_c64, op_tan, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC1_KERNEL(ufunc_tan_c128, op_tan, npu_emu::c128, npu_emu::c128)
NPU_EMU_UFUNC1_KERNEL(ufunc_asin_c64, op_asin, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC1_KERNEL(ufunc_asin_c128, op_asin, npu_emu::c128, npu_emu::c128)
NPU_EMU_UFUNC1_KERNEL(ufunc_acos_c64, op_acos, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC1_KERNEL(ufunc_acos_c128, op_acos, npu_emu::c128, npu_emu::c128)
NPU_EMU_UFUNC1_KERNEL(ufunc_atan_c64, op_atan, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC1_KERNEL(ufunc_atan_c128, op_atan, npu_emu::c128, npu_emu::c128)
