// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_basic_bf16: add, multiply, subtract, divide, floor_divide, remainder, maximum, minimum, copysign, nextafter.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_add_bf16, op_add, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC2_KERNEL(ufunc_multiply_bf16, op_multiply, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC2_KERNEL(ufunc_subtract_bf16, op_subtract, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC2_KERNEL(ufunc_divide_bf16, op_divide, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC2_KERNEL(ufunc_floor_divide_bf16, op_floor_divide, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC2_KERNEL(ufunc_remainder_bf16, op_remainder, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC2_KERNEL(ufunc_maximum_bf16, op_maximum, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC2_KERNEL(ufunc_minimum_bf16, op_minimum, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC2_KERNEL(ufunc_copysign_bf16, op_copysign, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC2_KERNEL(ufunc_nextafter_bf16, op_nextafter, npu_emu::bf16, npu_emu::bf16)
