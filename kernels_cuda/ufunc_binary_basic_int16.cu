// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_basic_int16: add, multiply, subtract, true_divide, floor_divide, remainder, maximum, minimum.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_add_u16, op_add, uint16_t, uint16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_multiply_u16, op_multiply, uint16_t, uint16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_subtract_u16, op_subtract, uint16_t, uint16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_true_divide_s16, op_true_divide, int16_t, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_true_divide_u16, op_true_divide, uint16_t, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_floor_divide_s16, op_floor_divide, int16_t, int16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_floor_divide_u16, op_floor_divide, uint16_t, uint16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_remainder_s16, op_remainder, int16_t, int16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_remainder_u16, op_remainder, uint16_t, uint16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_maximum_s16, op_maximum, int16_t, int16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_maximum_u16, op_maximum, uint16_t, uint16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_minimum_s16, op_minimum, int16_t, int16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_minimum_u16, op_minimum, uint16_t, uint16_t)
