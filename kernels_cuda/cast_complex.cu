// Generated from UNITS in npu_emu/kernels/cast.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// The cast kernels (cast.cuh) from c32, c64.
#include "cast.cuh"
NPU_EMU_CAST_KERNEL(npu_emu::c32, c32)
NPU_EMU_CAST_KERNEL(npu_emu::c64, c64)
