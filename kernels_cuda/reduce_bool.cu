// The truth reductions (reduce.cuh): all, any.
#include "reduce.cuh"

// The instantiation list: generated from the catalog (python -m npu_emu.kernels.reduce);
// tests/test_reduce.py fails when it is stale.
// BEGIN GENERATED
NPU_EMU_REDUCE(all, All, npu_emu::boolean, bool, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int8_t, s8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int16_t, s16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int32_t, s32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int64_t, s64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint8_t, u8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint16_t, u16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint32_t, u32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint64_t, u64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, npu_emu::f16, f16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, npu_emu::bf16, bf16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, float, f32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, double, f64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, npu_emu::c64, c64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, npu_emu::c128, c128, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::boolean, bool, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int8_t, s8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int16_t, s16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int32_t, s32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int64_t, s64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint8_t, u8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint16_t, u16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint32_t, u32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint64_t, u64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::f16, f16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::bf16, bf16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, float, f32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, double, f64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::c64, c64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::c128, c128, npu_emu::boolean, bool)
// END GENERATED
