// Generated from CATALOG in npu_emu/kernels/elementwise.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// The arithmetic kernels (elementwise.cuh) for s16, i32 indexing.
#include "elementwise.cuh"
#include "elementwise_s16.inc"
