// Generated from the catalog KERNEL_SETS in npu_emu/kernels/reduce.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit extreme_float (reduce.cuh): max, min, argmax, argmin, from DT_FLOAT16, DT_BF16, DT_FLOAT, DT_DOUBLE.
#include "reduce.cuh"
NPU_EMU_REDUCE(max, Max, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(max, Max, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(max, Max, float, f32, float, f32)
NPU_EMU_REDUCE(max, Max, double, f64, double, f64)
NPU_EMU_REDUCE(min, Min, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(min, Min, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(min, Min, float, f32, float, f32)
NPU_EMU_REDUCE(min, Min, double, f64, double, f64)
NPU_EMU_REDUCE(argmax, ArgMax, npu_emu::f16, f16, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, npu_emu::bf16, bf16, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, float, f32, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, double, f64, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, npu_emu::f16, f16, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, npu_emu::bf16, bf16, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, float, f32, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, double, f64, int64_t, s64)
