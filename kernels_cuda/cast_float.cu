// Generated from UNITS in npu_emu/kernels/cast.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// The cast kernels (cast.cuh) from f32, f16, bf16.
#include "cast.cuh"
NPU_EMU_CAST_KERNEL(float, f32)
NPU_EMU_CAST_KERNEL(npu_emu::f16, f16)
NPU_EMU_CAST_KERNEL(npu_emu::bf16, bf16)
