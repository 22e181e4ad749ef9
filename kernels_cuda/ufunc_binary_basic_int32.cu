// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_basic_int32: add, multiply, subtract, true_divide, floor_divide, remainder, maximum, minimum.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_add_u32, op_add, uint32_t, uint32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_multiply_u32, op_multiply, uint32_t, uint32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_subtract_u32, op_subtract, uint32_t, uint32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_true_divide_s32, op_true_divide, int32_t, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_true_divide_u32, op_true_divide, uint32_t, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_floor_divide_s32, op_floor_divide, int32_t, int32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_floor_divide_u32, op_floor_divide, uint32_t, uint32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_remainder_s32, op_remainder, int32_t, int32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_remainder_u32, op_remainder, uint32_t, uint32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_maximum_s32, op_maximum, int32_t, int32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_maximum_u32, op_maximum, uint32_t, uint32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_minimum_s32, op_minimum, int32_t, int32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_minimum_u32, op_minimum, uint32_t, uint32_t)
