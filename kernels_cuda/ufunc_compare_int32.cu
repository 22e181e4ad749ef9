// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit compare_int32: equal, not_equal, less, less_equal, greater, greater_equal, bitwise_and, bitwise_or, bitwise_xor, bitwise_left_shift, bitwise_right_shift.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_equal_u32, op_equal, uint32_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_not_equal_u32, op_not_equal, uint32_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_s32, op_less, int32_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_u32, op_less, uint32_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_equal_s32, op_less_equal, int32_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_equal_u32, op_less_equal, uint32_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_s32, op_greater, int32_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_u32, op_greater, uint32_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_equal_s32, op_greater_equal, int32_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_equal_u32, op_greater_equal, uint32_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_and_u32, op_bitwise_and, uint32_t, uint32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_or_u32, op_bitwise_or, uint32_t, uint32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_xor_u32, op_bitwise_xor, uint32_t, uint32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_left_shift_u32, op_bitwise_left_shift, uint32_t, uint32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_right_shift_s32, op_bitwise_right_shift, int32_t, int32_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_right_shift_u32, op_bitwise_right_shift, uint32_t, uint32_t)
