// Generated from DTYPES in npu_emu/kernels/clip.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
#include "clip.cuh"
NPU_EMU_CLIP_KERNEL(clip_f32, float)
NPU_EMU_CLIP_KERNEL(clip_f16, npu_emu::f16)
NPU_EMU_CLIP_KERNEL(clip_s8, int8_t)
NPU_EMU_CLIP_KERNEL(clip_s32, int32_t)
NPU_EMU_CLIP_KERNEL(clip_u8, uint8_t)
NPU_EMU_CLIP_KERNEL(clip_s16, int16_t)
NPU_EMU_CLIP_KERNEL(clip_u16, uint16_t)
NPU_EMU_CLIP_KERNEL(clip_u32, uint32_t)
NPU_EMU_CLIP_KERNEL(clip_s64, int64_t)
NPU_EMU_CLIP_KERNEL(clip_u64, uint64_t)
NPU_EMU_CLIP_KERNEL(clip_f64, double)
NPU_EMU_CLIP_KERNEL(clip_bf16, npu_emu::bf16)
