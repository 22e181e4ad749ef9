// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_basic_f32: add, multiply, subtract, divide, floor_divide, remainder, maximum, minimum, copysign, nextafter.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_add_f32, op_add, float, float)
NPU_EMU_UFUNC2_KERNEL(ufunc_multiply_f32, op_multiply, float, float)
NPU_EMU_UFUNC2_KERNEL(ufunc_subtract_f32, op_subtract, float, float)
NPU_EMU_UFUNC2_KERNEL(ufunc_divide_f32, op_divide, float, float)
NPU_EMU_UFUNC2_KERNEL(ufunc_floor_divide_f32, op_floor_divide, float, float)
NPU_EMU_UFUNC2_KERNEL(ufunc_remainder_f32, op_remainder, float, float)
NPU_EMU_UFUNC2_KERNEL(ufunc_maximum_f32, op_maximum, float, float)
NPU_EMU_UFUNC2_KERNEL(ufunc_minimum_f32, op_minimum, float, float)
NPU_EMU_UFUNC2_KERNEL(ufunc_copysign_f32, op_copysign, float, float)
NPU_EMU_UFUNC2_KERNEL(ufunc_nextafter_f32, op_nextafter, float, float)
