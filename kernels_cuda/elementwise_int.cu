// The arithmetic kernels (elementwise.cuh) for s8, u8, s16, s32, bool; the list of kernels is
// generated from the catalog in npu_emu/kernels/elementwise.py.
#include "elementwise.cuh"
#include "elementwise_int.inc"
