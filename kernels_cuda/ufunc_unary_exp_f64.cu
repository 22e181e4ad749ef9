// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit unary_exp_f64: exp, expm1, log, log1p, log2, log10, sinh, cosh, tanh, asinh, acosh, atanh.
#include "ufunc.cuh"
#include "npu_emu_math_exp.cuh"
NPU_EMU_UFUNC_MATH1(op_exp, exp)
NPU_EMU_UFUNC_MATH1(op_expm1, expm1)
NPU_EMU_UFUNC_MATH1(op_log, log)
NPU_EMU_UFUNC_MATH1(op_log1p, log1p)
NPU_EMU_UFUNC_MATH1(op_log2, log2)
NPU_EMU_UFUNC_MATH1(op_log10, log10)
NPU_EMU_UFUNC_MATH1(op_sinh, sinh)
NPU_EMU_UFUNC_MATH1(op_cosh, cosh)
NPU_EMU_UFUNC_MATH1(op_tanh, tanh)
NPU_EMU_UFUNC_MATH1(op_asinh, asinh)
NPU_EMU_UFUNC_MATH1(op_acosh, acosh)
NPU_EMU_UFUNC_MATH1(op_atanh, atanh)
NPU_EMU_UFUNC1_KERNEL(ufunc_exp_f64, op_exp, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_expm1_f64, op_expm1, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_log_f64, op_log, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_log1p_f64, op_log1p, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_log2_f64, op_log2, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_log10_f64, op_log10, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_sinh_f64, op_sinh, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_cosh_f64, op_cosh, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_tanh_f64, op_tanh, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_asinh_f64, op_asinh, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_acosh_f64, op_acosh, double, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_atanh_f64, op_atanh, double, double)
