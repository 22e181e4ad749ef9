// Generated from UNITS in npu_emu/kernels/cast.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// The cast kernels (cast.cuh) from s64, u32, u64.
#include "cast.cuh"
NPU_EMU_CAST_KERNEL(int64_t, s64)
NPU_EMU_CAST_KERNEL(uint32_t, u32)
NPU_EMU_CAST_KERNEL(uint64_t, u64)
