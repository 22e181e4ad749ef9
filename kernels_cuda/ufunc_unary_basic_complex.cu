// Generated from the catalog UFUNCS of npu_emu/kernels/ufunc.py by
// `python -m npu_emu.kernels.ufunc`; do not edit (tests/test_ufunc.py checks it is fresh).
// Build unit unary_basic_complex: negative, square, isnan, isinf, isfinite, conj, real, imag.
#include "ufunc.cuh"
NPU_EMU_UFUNC1_KERNEL(ufunc_negative_c64, op_negative, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC1_KERNEL(ufunc_negative_c128, op_negative, npu_emu::c128, npu_emu::c128)
NPU_EMU_UFUNC1_KERNEL(ufunc_square_c64, op_square, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC1_KERNEL(ufunc_square_c128, op_square, npu_emu::c128, npu_emu::c128)
NPU_EMU_UFUNC1_KERNEL(ufunc_isnan_c64, op_isnan, npu_emu::c64, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isnan_c128, op_isnan, npu_emu::c128, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isinf_c64, op_isinf, npu_emu::c64, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isinf_c128, op_isinf, npu_emu::c128, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isfinite_c64, op_isfinite, npu_emu::c64, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_isfinite_c128, op_isfinite, npu_emu::c128, npu_emu::boolean)
NPU_EMU_UFUNC1_KERNEL(ufunc_conj_c64, op_conj, npu_emu::c64, npu_emu::c64)
NPU_EMU_UFUNC1_KERNEL(ufunc_conj_c128, op_conj, npu_emu::c128, npu_emu::c128)
NPU_EMU_UFUNC1_KERNEL(ufunc_real_c64, op_real, npu_emu::c64, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_real_c128, op_real, npu_emu::c128, double)
NPU_EMU_UFUNC1_KERNEL(ufunc_imag_c64, op_imag, npu_emu::c64, float)
NPU_EMU_UFUNC1_KERNEL(ufunc_imag_c128, op_imag, npu_emu::c128, double)
