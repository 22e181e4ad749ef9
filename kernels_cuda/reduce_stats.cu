// mean, and var / std's squared deviations (reduce.cuh).
#include "reduce.cuh"

// The instantiation list: generated from the catalog (python -m npu_emu.kernels.reduce);
// tests/test_reduce.py fails when it is stale.
// BEGIN GENERATED
NPU_EMU_REDUCE(mean, Mean, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(mean, Mean, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(mean, Mean, float, f32, float, f32)
NPU_EMU_REDUCE(mean, Mean, double, f64, double, f64)
NPU_EMU_REDUCE(mean, Mean, npu_emu::c64, c64, npu_emu::c64, c64)
NPU_EMU_REDUCE(mean, Mean, npu_emu::c128, c128, npu_emu::c128, c128)
NPU_EMU_REDUCE(mean, Mean, npu_emu::f16, f16, float, f32)
NPU_EMU_REDUCE(mean, Mean, npu_emu::bf16, bf16, float, f32)
NPU_EMU_REDUCE(sqdev, SqDev, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(sqdev, SqDev, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(sqdev, SqDev, float, f32, float, f32)
NPU_EMU_REDUCE(sqdev, SqDev, double, f64, double, f64)
// END GENERATED
