// where(condition, x1, x2): out = condition ? x1 : x2, elementwise over four operands of one
// iteration space (npu_emu/kernels/select.py plans it): 0 the output, 1 the condition (bool,
// one byte: 0 or 1), 2 and 3 the branches, each broadcast (stride 0) as the host decided.
// The branches are moved as bits of their width (1, 2, 4, 8 or 16 bytes), so the result is
// the chosen branch's element, NaN payloads and signed zeros included: the same bits on both
// targets by construction.
//
// The CPU's contiguous rows are one loop the compiler vectorizes (a blend per vector); other
// rows walk their strides; the GPU's threads take `run` elements each. Correct for any block
// size, including the CPU's 1.
#pragma once
#include "npu_emu_common.cuh"
#include "npu_emu_index.cuh"

namespace npu_emu {
namespace select_kernels {

// k ? a : b by masks, not a jump: a random condition mispredicts half of its jumps (3 ns an
// element on strided rows, measured on x86).
template <typename T>
__device__ __forceinline__ T blend(bool k, T a, T b) {
    const T m = static_cast<T>(0) - static_cast<T>(k);
    return static_cast<T>((a & m) | (b & static_cast<T>(~m)));
}
__device__ __forceinline__ bits16 blend(bool k, bits16 a, bits16 b) {
    return {blend<uint64_t>(k, a.lo, b.lo), blend<uint64_t>(k, a.hi, b.hi)};
}

template <typename T, typename I>
__device__ __forceinline__ void select_row(T* __restrict__ o, const uint8_t* __restrict__ c,
                                           const T* __restrict__ a, const T* __restrict__ b,
                                           I n, I so, I sc, I sa, I sb) {
#if defined(NPU_EMU_CPU)
    if (so == 1 && sc == 1 && sa == 1 && sb == 1) {
        for (I j = 0; j < n; ++j) o[j] = c[j] != 0 ? a[j] : b[j];
        return;
    }
    if (so == 1 && sc == 1 && sa == 1 && sb == 0) {   // where(c, x, scalar)
        const T bs = *b;
        for (I j = 0; j < n; ++j) o[j] = c[j] != 0 ? a[j] : bs;
        return;
    }
    if (so == 1 && sc == 1 && sa == 0 && sb == 1) {   // where(c, scalar, x)
        const T as = *a;
        for (I j = 0; j < n; ++j) o[j] = c[j] != 0 ? as : b[j];
        return;
    }
#endif
    for (I j = 0; j < n; ++j) o[j * so] = blend(c[j * sc] != 0, a[j * sa], b[j * sb]);
}

template <typename T, typename I>
__device__ __forceinline__ void select_body(const IterParams<4>& p, const uint8_t* c, const T* a,
                                            const T* b, T* out) {
    const I so = static_cast<I>(p.stride[0][0]), sc = static_cast<I>(p.stride[1][0]),
            sa = static_cast<I>(p.stride[2][0]), sb = static_cast<I>(p.stride[3][0]);
    for_each_segment<I, 4>(p, [&](const I* off, I n) {
        select_row<T, I>(out + off[0], c + off[1], a + off[2], b + off[3], n, so, sc, sa, sb);
    });
}

}  // namespace select_kernels
}  // namespace npu_emu

// One kernel per element width (the catalog in npu_emu/kernels/select.py), at its launch's
// index width (npu_emu_index.cuh's with_index_width).
#define NPU_EMU_SELECT_KERNEL(NAME, T)                                                          \
    extern "C" __global__ void NAME(const npu_emu::IterParams<4> p, const uint8_t* c,          \
                                    const T* a, const T* b, T* out) {                          \
        npu_emu::with_index_width(p.flags, [&](auto i) {                                       \
            npu_emu::select_kernels::select_body<T, decltype(i)>(p, c, a, b, out);             \
        });                                                                                    \
    }                                                                                          \
    NPU_EMU_EXPORT(NAME)
