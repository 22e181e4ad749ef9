// Generated from the catalog KERNEL_SETS in npu_emu/kernels/reduce.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit prod_int (reduce.cuh): prod, from DT_BOOL, DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64.
#include "reduce.cuh"
NPU_EMU_REDUCE(prod, Prod, int8_t, s8, int8_t, s8)
NPU_EMU_REDUCE(prod, Prod, int16_t, s16, int16_t, s16)
NPU_EMU_REDUCE(prod, Prod, int32_t, s32, int32_t, s32)
NPU_EMU_REDUCE(prod, Prod, int64_t, s64, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, uint8_t, u8, uint8_t, u8)
NPU_EMU_REDUCE(prod, Prod, uint16_t, u16, uint16_t, u16)
NPU_EMU_REDUCE(prod, Prod, uint32_t, u32, uint32_t, u32)
NPU_EMU_REDUCE(prod, Prod, uint64_t, u64, uint64_t, u64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::boolean, bool, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, int8_t, s8, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, int16_t, s16, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, int32_t, s32, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, uint8_t, u8, uint64_t, u64)
NPU_EMU_REDUCE(prod, Prod, uint16_t, u16, uint64_t, u64)
NPU_EMU_REDUCE(prod, Prod, uint32_t, u32, uint64_t, u64)
