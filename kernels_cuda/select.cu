// Generated from WIDTHS in npu_emu/kernels/select.py by `python -m npu_emu.kernels`;
// do not edit (tests/test_kernel_catalog.py checks that it is fresh).
#include "select.cuh"
NPU_EMU_SELECT_KERNEL(select_b1, uint8_t)
NPU_EMU_SELECT_KERNEL(select_b2, uint16_t)
NPU_EMU_SELECT_KERNEL(select_b4, uint32_t)
NPU_EMU_SELECT_KERNEL(select_b8, uint64_t)
NPU_EMU_SELECT_KERNEL(select_b16, npu_emu::bits16)
