// Generated from the catalog KERNEL_SETS in npu_emu/kernels/reduce.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit stats_float (reduce.cuh): mean, var, std and the sum of squares, from DT_FLOAT16, DT_BF16, DT_FLOAT, DT_DOUBLE.
#include "reduce.cuh"
NPU_EMU_REDUCE(mean, Mean, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(mean, Mean, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(mean, Mean, float, f32, float, f32)
NPU_EMU_REDUCE(mean, Mean, double, f64, double, f64)
NPU_EMU_REDUCE(mean, Mean, npu_emu::f16, f16, float, f32)
NPU_EMU_REDUCE(mean, Mean, npu_emu::bf16, bf16, float, f32)
NPU_EMU_REDUCE(sqdev, SqDev, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(sqdev, SqDev, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(sqdev, SqDev, float, f32, float, f32)
NPU_EMU_REDUCE(sqdev, SqDev, double, f64, double, f64)
NPU_EMU_REDUCE(sumsq, SumSq, float, f32, float, f32)
NPU_EMU_REDUCE(sumsq, SumSq, double, f64, double, f64)
NPU_EMU_REDUCE(sumsq, SumSq, npu_emu::f16, f16, float, f32)
NPU_EMU_REDUCE(sumsq, SumSq, npu_emu::bf16, bf16, float, f32)
