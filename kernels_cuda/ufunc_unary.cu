// The unary half of the elementwise functions of the catalog (ufunc.cuh, ufunc_catalog.inc).
#include "ufunc.cuh"

#define NPU_EMU_UFUNC1(NAME, OP, TI, TO) NPU_EMU_UFUNC1_KERNEL(NAME, OP, TI, TO)
#define NPU_EMU_UFUNC2(NAME, OP, TI, TO)
#include "ufunc_catalog.inc"
