// The binary elementwise functions with a bool or bitwise result: comparisons, logical and
// bitwise operations, shifts (ufunc.cuh, generated ufunc_catalog.inc).
#include "ufunc.cuh"

#define NPU_EMU_UFUNC_UNARY(NAME, OP, TI, TO)
#define NPU_EMU_UFUNC_BINARY(NAME, OP, TI, TO)
#define NPU_EMU_UFUNC_COMPARE(NAME, OP, TI, TO) NPU_EMU_UFUNC2_KERNEL(NAME, OP, TI, TO)
#include "ufunc_catalog.inc"
