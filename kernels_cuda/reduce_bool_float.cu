// Generated from the catalog KERNEL_SETS in npu_emu/kernels/reduce.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit bool_float (reduce.cuh): all, any, from DT_FLOAT16, DT_BF16, DT_FLOAT, DT_DOUBLE.
#include "reduce.cuh"
NPU_EMU_REDUCE(all, All, npu_emu::f16, f16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, npu_emu::bf16, bf16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, float, f32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, double, f64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::f16, f16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::bf16, bf16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, float, f32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, double, f64, npu_emu::boolean, bool)
