// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit compare_complex: equal, not_equal.
#include "ufunc.cuh"
NPU_EMU_UFUNC2_KERNEL(ufunc_equal_c64, op_equal, npu_emu::c64, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_equal_c128, op_equal, npu_emu::c128, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_not_equal_c64, op_not_equal, npu_emu::c64, npu_emu::boolean)
NPU_EMU_UFUNC2_KERNEL(ufunc_not_equal_c128, op_not_equal, npu_emu::c128, npu_emu::boolean)
