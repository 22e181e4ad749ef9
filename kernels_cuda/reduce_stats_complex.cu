// Generated from the catalog KERNEL_SETS in npu_emu/kernels/reduce.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit stats_complex (reduce.cuh): mean, var, std and the sum of squares, from DT_COMPLEX64, DT_COMPLEX128.
#include "reduce.cuh"
NPU_EMU_REDUCE(mean, Mean, npu_emu::c64, c64, npu_emu::c64, c64)
NPU_EMU_REDUCE(mean, Mean, npu_emu::c128, c128, npu_emu::c128, c128)
