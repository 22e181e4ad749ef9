// The layout kernels (layout.cuh) with 64-bit indexing: spaces of 2^31 elements or more.
#include "layout.cuh"

NPU_EMU_LAYOUT_KERNELS(uint8_t, b1, uint64_t, i64)
NPU_EMU_LAYOUT_KERNELS(uint16_t, b2, uint64_t, i64)
NPU_EMU_LAYOUT_KERNELS(uint32_t, b4, uint64_t, i64)
NPU_EMU_LAYOUT_KERNELS(uint64_t, b8, uint64_t, i64)
