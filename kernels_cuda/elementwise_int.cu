// The int storage types of the arithmetic kernels (elementwise.cuh); the list of kernels is
// generated from the catalog in npu_emu/kernels/elementwise.py.
#include "elementwise.cuh"
#include "elementwise_int.inc"
