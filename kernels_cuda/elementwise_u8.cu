// The arithmetic kernels (elementwise.cuh) for u8, i32 indexing; the list
// of kernels is generated from the catalog in npu_emu/kernels/elementwise.py.
#include "elementwise.cuh"
#include "elementwise_u8.inc"
