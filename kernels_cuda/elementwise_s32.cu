// The arithmetic kernels (elementwise.cuh) for s32, i32 indexing; the list
// of kernels is generated from the catalog in npu_emu/kernels/elementwise.py.
#include "elementwise.cuh"
#include "elementwise_s32.inc"
