// Generated from WIDTHS in npu_emu/kernels/triangle.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
#include "triangle.cuh"
NPU_EMU_TRIANGLE_KERNEL(triangle_b1, uint8_t)
NPU_EMU_TRIANGLE_KERNEL(triangle_b2, uint16_t)
NPU_EMU_TRIANGLE_KERNEL(triangle_b4, uint32_t)
NPU_EMU_TRIANGLE_KERNEL(triangle_b8, uint64_t)
NPU_EMU_TRIANGLE_KERNEL(triangle_b16, npu_emu::bits16)
