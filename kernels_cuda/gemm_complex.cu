// Generated from UNITS in npu_emu/kernels/gemm.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
#include "gemm.cuh"
NPU_EMU_GEMM_KERNEL(gemm_c64, npu_emu::c64)
NPU_EMU_GEMM_KERNEL(gemm_c128, npu_emu::c128)
