// The layout kernels (layout.cuh) with 32-bit indexing: spaces under 2^31 elements.
#include "layout.cuh"

NPU_EMU_LAYOUT_KERNELS(uint8_t, b1, uint32_t, i32)
NPU_EMU_LAYOUT_KERNELS(uint16_t, b2, uint32_t, i32)
NPU_EMU_LAYOUT_KERNELS(uint32_t, b4, uint32_t, i32)
NPU_EMU_LAYOUT_KERNELS(uint64_t, b8, uint32_t, i32)
