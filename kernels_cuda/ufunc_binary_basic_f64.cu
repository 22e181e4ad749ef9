// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_basic_f64: add, multiply, subtract, divide, floor_divide, remainder, maximum, minimum, copysign, nextafter.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_add_f64, op_add, double, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_multiply_f64, op_multiply, double, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_subtract_f64, op_subtract, double, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_divide_f64, op_divide, double, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_floor_divide_f64, op_floor_divide, double, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_remainder_f64, op_remainder, double, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_maximum_f64, op_maximum, double, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_minimum_f64, op_minimum, double, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_copysign_f64, op_copysign, double, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_nextafter_f64, op_nextafter, double, double)
