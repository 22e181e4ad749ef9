// The arithmetic kernels (elementwise.cuh) for f16, i64 indexing; the list
// of kernels is generated from the catalog in npu_emu/kernels/elementwise.py.
#include "elementwise.cuh"
#include "elementwise_f16_i64.inc"
