// Generated from UNITS in npu_emu/kernels/gemm.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
#include "gemm.cuh"
NPU_EMU_GEMM_KERNEL(gemm_f32, float)
NPU_EMU_GEMM_KERNEL(gemm_f64, double)
