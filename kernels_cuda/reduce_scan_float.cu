// Generated from the catalog KERNEL_SETS in npu_emu/kernels/reduce.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit scan_float (reduce.cuh): cumulative_sum, cumulative_prod, from DT_FLOAT16, DT_BF16, DT_FLOAT, DT_DOUBLE.
#include "reduce.cuh"
NPU_EMU_SCAN(sum, Sum, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_SCAN(sum, Sum, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_SCAN(sum, Sum, float, f32, float, f32)
NPU_EMU_SCAN(sum, Sum, double, f64, double, f64)
NPU_EMU_SCAN(sum, Sum, npu_emu::f16, f16, float, f32)
NPU_EMU_SCAN(sum, Sum, npu_emu::bf16, bf16, float, f32)
NPU_EMU_SCAN(sum, Sum, float, f32, double, f64)
NPU_EMU_SCAN(prod, Prod, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_SCAN(prod, Prod, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_SCAN(prod, Prod, float, f32, float, f32)
NPU_EMU_SCAN(prod, Prod, double, f64, double, f64)
NPU_EMU_SCAN(prod, Prod, npu_emu::f16, f16, float, f32)
NPU_EMU_SCAN(prod, Prod, npu_emu::bf16, bf16, float, f32)
NPU_EMU_SCAN(prod, Prod, float, f32, double, f64)
