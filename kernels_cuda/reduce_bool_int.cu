// Generated from the catalog KERNEL_SETS in npu_emu/kernels/reduce.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit bool_int (reduce.cuh): all, any, from DT_BOOL, DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64.
#include "reduce.cuh"
NPU_EMU_REDUCE(all, All, npu_emu::boolean, bool, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int8_t, s8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int16_t, s16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int32_t, s32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int64_t, s64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint8_t, u8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint16_t, u16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint32_t, u32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint64_t, u64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::boolean, bool, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int8_t, s8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int16_t, s16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int32_t, s32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int64_t, s64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint8_t, u8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint16_t, u16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint32_t, u32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint64_t, u64, npu_emu::boolean, bool)
