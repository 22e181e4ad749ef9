// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit compare_int16: equal, not_equal, less, less_equal, greater, greater_equal, bitwise_and, bitwise_or, bitwise_xor, bitwise_left_shift, bitwise_right_shift.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_equal_u16, op_equal, uint16_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_not_equal_u16, op_not_equal, uint16_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_s16, op_less, int16_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_u16, op_less, uint16_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_equal_s16, op_less_equal, int16_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_equal_u16, op_less_equal, uint16_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_s16, op_greater, int16_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_u16, op_greater, uint16_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_equal_s16, op_greater_equal, int16_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_equal_u16, op_greater_equal, uint16_t, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_and_u16, op_bitwise_and, uint16_t, uint16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_or_u16, op_bitwise_or, uint16_t, uint16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_xor_u16, op_bitwise_xor, uint16_t, uint16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_left_shift_u16, op_bitwise_left_shift, uint16_t, uint16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_right_shift_s16, op_bitwise_right_shift, int16_t, int16_t)
NPU_EMU_UFUNC2_KERNEL(ufunc_bitwise_right_shift_u16, op_bitwise_right_shift, uint16_t, uint16_t)
