// The arithmetic kernels (elementwise.cuh) for f32, i64 indexing; the list
// of kernels is generated from the catalog in npu_emu/kernels/elementwise.py.
#include "elementwise.cuh"
#include "elementwise_f32_i64.inc"
