// Generated from the catalog KERNEL_SETS of npu_emu/kernels/reduce.py by
// `python -m npu_emu.kernels.reduce`; do not edit (tests/test_reduce.py checks it is fresh).
// Build unit stats_complex (reduce.cuh): mean, var, std and the sum of squares, from DT_COMPLEX64, DT_COMPLEX128.
#include "reduce.cuh"
NPU_EMU_REDUCE(mean, Mean, npu_emu::c64, c64, npu_emu::c64, c64)
NPU_EMU_REDUCE(mean, Mean, npu_emu::c128, c128, npu_emu::c128, c128)
