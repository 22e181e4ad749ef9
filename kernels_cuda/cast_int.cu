// Generated from UNITS in npu_emu/kernels/cast.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// The cast kernels (cast.cuh) from s8, s16, s32, u8, u16, bool.
#include "cast.cuh"
NPU_EMU_CAST_KERNEL(int8_t, s8)
NPU_EMU_CAST_KERNEL(int16_t, s16)
NPU_EMU_CAST_KERNEL(int32_t, s32)
NPU_EMU_CAST_KERNEL(uint8_t, u8)
NPU_EMU_CAST_KERNEL(uint16_t, u16)
NPU_EMU_CAST_KERNEL(npu_emu::boolean, bool)
