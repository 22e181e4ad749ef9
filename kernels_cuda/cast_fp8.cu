// Generated from UNITS in npu_emu/kernels/cast.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// The cast kernels (cast.cuh) from hif8, fp8e5m2, fp8e4m3fn, fp8e8m0.
#include "cast.cuh"
NPU_EMU_CAST_KERNEL(npu_emu::hif8, hif8)
NPU_EMU_CAST_KERNEL(npu_emu::fp8_e5m2, fp8e5m2)
NPU_EMU_CAST_KERNEL(npu_emu::fp8_e4m3fn, fp8e4m3fn)
NPU_EMU_CAST_KERNEL(npu_emu::fp8_e8m0, fp8e8m0)
