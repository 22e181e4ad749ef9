// The arithmetic kernels (elementwise.cuh) for bf16, i64 indexing; the list
// of kernels is generated from the catalog in npu_emu/kernels/elementwise.py.
#include "elementwise.cuh"
#include "elementwise_bf16_i64.inc"
