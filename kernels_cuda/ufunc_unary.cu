// The unary elementwise functions of the catalog (ufunc.cuh, generated ufunc_catalog.inc).
#include "ufunc.cuh"

#define NPU_EMU_UFUNC_UNARY(NAME, OP, TI, TO) NPU_EMU_UFUNC1_KERNEL(NAME, OP, TI, TO)
#define NPU_EMU_UFUNC_BINARY(NAME, OP, TI, TO)
#define NPU_EMU_UFUNC_COMPARE(NAME, OP, TI, TO)
#include "ufunc_catalog.inc"
