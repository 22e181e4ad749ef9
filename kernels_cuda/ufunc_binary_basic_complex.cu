// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_basic_complex: add, multiply, subtract, divide.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_add_c64, op_add, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC2_KERNEL(ufunc_add_c128, op_add, npu_emu::c128, npu_emu::c128)
NPU_EMU_UFUNC2_KERNEL(ufunc_multiply_c64, op_multiply, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC2_KERNEL(ufunc_multiply_c128, op_multiply, npu_emu::c128, npu_emu::c128)
NPU_EMU_UFUNC2_KERNEL(ufunc_subtract_c64, op_subtract, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC2_KERNEL(ufunc_subtract_c128, op_subtract, npu_emu::c128, npu_emu::c128)
NPU_EMU_UFUNC2_KERNEL(ufunc_divide_c64, op_divide, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC2_KERNEL(ufunc_divide_c128, op_divide, npu_emu::c128, npu_emu::c128)
