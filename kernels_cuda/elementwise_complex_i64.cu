// The arithmetic kernels (elementwise.cuh) for c64, c128, i64 indexing; the list
// of kernels is generated from the catalog in npu_emu/kernels/elementwise.py.
#include "elementwise.cuh"
#include "elementwise_complex_i64.inc"
