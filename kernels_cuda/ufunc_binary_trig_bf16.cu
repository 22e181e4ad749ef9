// Generated from the catalog UFUNCS in npu_emu/kernels/ufunc.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
// Build unit binary_trig_bf16: atan2, hypot.
#include "ufunc.cuh"
#include "npu_emu_math_trig.cuh"
NPU_EMU_UFUNC_MATH2(op_atan2, atan2)
NPU_EMU_UFUNC_MATH2(op_hypot, hypot)
NPU_EMU_UFUNC2_KERNEL(ufunc_atan2_bf16, op_atan2, npu_emu::bf16, npu_emu::bf16)
NPU_EMU_UFUNC2_KERNEL(ufunc_hypot_bf16, op_hypot, npu_emu::bf16, npu_emu::bf16)
