// Generated from the catalog KERNEL_SETS of npu_emu/kernels/reduce.py by
// `python -m npu_emu.kernels.reduce`; do not edit (tests/test_reduce.py checks it is fresh).
// Build unit prod_complex (reduce.cuh): prod, from DT_COMPLEX64, DT_COMPLEX128.
#include "reduce.cuh"
NPU_EMU_REDUCE(prod, Prod, npu_emu::c64, c64, npu_emu::c64, c64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::c128, c128, npu_emu::c128, c128)
NPU_EMU_REDUCE(prod, Prod, npu_emu::c64, c64, npu_emu::c128, c128)
