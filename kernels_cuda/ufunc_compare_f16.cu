// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit compare_f16: equal, not_equal, less, less_equal, greater, greater_equal.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_equal_f16, op_equal, npu_emu::f16, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_not_equal_f16, op_not_equal, npu_emu::f16, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_f16, op_less, npu_emu::f16, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_less_equal_f16, op_less_equal, npu_emu::f16, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_f16, op_greater, npu_emu::f16, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_greater_equal_f16, op_greater_equal, npu_emu::f16, npu_emu::boolean)
