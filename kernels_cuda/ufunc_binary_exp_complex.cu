// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_exp_complex: pow.
#include "ufunc.cuh"
#include "npu_emu_math_complex.cuh"
NPU_EMU_UFUNC_MATH2(op_pow, pow)
NPU_EMU_UFUNC2_KERNEL(ufunc_pow_c64, op_pow, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC2_KERNEL(ufunc_pow_c128, op_pow, npu_emu::c128, npu_emu::c128)
