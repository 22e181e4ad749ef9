// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_basic_int8: add, multiply, subtract, true_divide, floor_divide, remainder, maximum, minimum.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_add_u8, op_add, uint8_t, uint8_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_multiply_u8, op_multiply, uint8_t, uint8_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_subtract_u8, op_subtract, uint8_t, uint8_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_true_divide_s8, op_true_divide, int8_t, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_true_divide_u8, op_true_divide, uint8_t, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_floor_divide_s8, op_floor_divide, int8_t, int8_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_floor_divide_u8, op_floor_divide, uint8_t, uint8_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_remainder_s8, op_remainder, int8_t, int8_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_remainder_u8, op_remainder, uint8_t, uint8_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_maximum_s8, op_maximum, int8_t, int8_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_maximum_u8, op_maximum, uint8_t, uint8_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_minimum_s8, op_minimum, int8_t, int8_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_minimum_u8, op_minimum, uint8_t, uint8_t)
