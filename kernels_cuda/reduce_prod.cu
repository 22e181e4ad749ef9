// The products (reduce.cuh).
#include "reduce.cuh"

// The instantiation list: generated from the catalog (python -m npu_emu.kernels.reduce);
// tests/test_reduce.py fails when it is stale.
// BEGIN GENERATED
NPU_EMU_REDUCE(prod, Prod, int8_t, s8, int8_t, s8)
NPU_EMU_REDUCE(prod, Prod, int16_t, s16, int16_t, s16)
NPU_EMU_REDUCE(prod, Prod, int32_t, s32, int32_t, s32)
NPU_EMU_REDUCE(prod, Prod, int64_t, s64, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, uint8_t, u8, uint8_t, u8)
NPU_EMU_REDUCE(prod, Prod, uint16_t, u16, uint16_t, u16)
NPU_EMU_REDUCE(prod, Prod, uint32_t, u32, uint32_t, u32)
NPU_EMU_REDUCE(prod, Prod, uint64_t, u64, uint64_t, u64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(prod, Prod, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(prod, Prod, float, f32, float, f32)
NPU_EMU_REDUCE(prod, Prod, double, f64, double, f64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::c64, c64, npu_emu::c64, c64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::c128, c128, npu_emu::c128, c128)
NPU_EMU_REDUCE(prod, Prod, npu_emu::boolean, bool, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, int8_t, s8, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, int16_t, s16, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, int32_t, s32, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, uint8_t, u8, uint64_t, u64)
NPU_EMU_REDUCE(prod, Prod, uint16_t, u16, uint64_t, u64)
NPU_EMU_REDUCE(prod, Prod, uint32_t, u32, uint64_t, u64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::f16, f16, float, f32)
NPU_EMU_REDUCE(prod, Prod, npu_emu::bf16, bf16, float, f32)
NPU_EMU_REDUCE(prod, Prod, float, f32, double, f64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::c64, c64, npu_emu::c128, c128)
// END GENERATED
