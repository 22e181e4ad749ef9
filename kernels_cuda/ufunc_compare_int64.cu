// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit compare_int64: equal, not_equal, less, less_equal, greater, greater_equal, bitwise_and, bitwise_or, bitwise_xor, bitwise_left_shift, bitwise_right_shift.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_equal_u64, op_equal, uint64_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_not_equal_u64, op_not_equal, uint64_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_s64, op_less, int64_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_u64, op_less, uint64_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_equal_s64, op_less_equal, int64_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_equal_u64, op_less_equal, uint64_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_s64, op_greater, int64_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_u64, op_greater, uint64_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_equal_s64, op_greater_equal, int64_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_equal_u64, op_greater_equal, uint64_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_and_u64, op_bitwise_and, uint64_t, uint64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_or_u64, op_bitwise_or, uint64_t, uint64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_xor_u64, op_bitwise_xor, uint64_t, uint64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_left_shift_u64, op_bitwise_left_shift, uint64_t, uint64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_right_shift_s64, op_bitwise_right_shift, int64_t, int64_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_right_shift_u64, op_bitwise_right_shift, uint64_t, uint64_t)
