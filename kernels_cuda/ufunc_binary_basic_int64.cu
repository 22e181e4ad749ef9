// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_basic_int64: add, multiply, subtract, true_divide, floor_divide, remainder, maximum, minimum.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_add_u64, op_add, uint64_t, uint64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_multiply_u64, op_multiply, uint64_t, uint64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_subtract_u64, op_subtract, uint64_t, uint64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_true_divide_s64, op_true_divide, int64_t, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_true_divide_u64, op_true_divide, uint64_t, double)
NPU_EMU_UFUNC2_KERNEL(ufunc_floor_divide_s64, op_floor_divide, int64_t, int64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_floor_divide_u64, op_floor_divide, uint64_t, uint64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_remainder_s64, op_remainder, int64_t, int64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_remainder_u64, op_remainder, uint64_t, uint64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_maximum_s64, op_maximum, int64_t, int64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_maximum_u64, op_maximum, uint64_t, uint64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_minimum_s64, op_minimum, int64_t, int64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_minimum_u64, op_minimum, uint64_t, uint64_t)
