// Generated from the catalog KERNEL_SETS in npu_emu/kernels/reduce.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit bool_complex (reduce.cuh): all, any, from DT_COMPLEX64, DT_COMPLEX128.
#include "reduce.cuh"
NPU_EMU_REDUCE(all, All, npu_emu::c64, c64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, npu_emu::c128, c128, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::c64, c64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::c128, c128, npu_emu::boolean, bool)
