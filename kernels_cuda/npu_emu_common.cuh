// Included first by every kernel source: fixed-width integer types, NPU_EMU_HD and
// NPU_EMU_EXPORT on both targets (GPU: NVRTC/nvcc; CPU: g++ with npu_emu_cpu.h).
#pragma once

#if defined(NPU_EMU_CPU)
#include "npu_emu_cpu.h"
#define NPU_EMU_HD inline __attribute__((always_inline))
#else
#if defined(__CUDACC_RTC__)
// NVRTC has no C library headers.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <cstdint>
#endif
#define NPU_EMU_EXPORT(name)
#define NPU_EMU_HD __host__ __device__ __forceinline__
#endif

namespace npu_emu {
// A 16-byte element (complex128) moved whole as bits, by the families that move elements of
// any dtype by width (select, triangle: npu_emu/kernels/copy.py BIT_TYPES).
struct bits16 {
    uint64_t lo, hi;
};
}  // namespace npu_emu
