// clip(x, lo, hi): out = minimum(maximum(x, lo), hi) elementwise over four operands of one
// iteration space (npu_emu/kernels/clip.py plans it): 0 the output, 1 x, 2 and 3 the bounds,
// each broadcast (stride 0) as the host decided, all of one dtype. One pass where the array
// API's clip made two (maximum into a temporary, then minimum): the same functors and the
// same store of the intermediate in x's dtype as the ufunc family's maximum and minimum
// (ufunc.cuh apply2), so the same bits, NaN and signed zeros included.
#pragma once
#include "ufunc.cuh"

namespace npu_emu {
namespace clip_kernels {

template <typename T>
__device__ __forceinline__ T clip_one(T x, T lo, T hi) {
    using namespace npu_emu::ufunc;
    return apply2<op_minimum, T>(apply2<op_maximum, T>(x, lo), hi);
}

#if defined(NPU_EMU_CPU)
// clip_one for float or double bounds that are neither NaN nor zero, in selects: with such a
// bound, max_min's two other cases change nothing. Its tie (x == l: the bits and-ed) differs
// from either operand's bits only for -0 against +0, and its NaN case (the bits of x + l, made
// canonical) gives the canonical NaN, which the selects' NaN (x itself: no comparison moves
// it) becomes in Store. So clip_one's bits, in a loop that vectorizes to a compare and a
// blend a step (the GPU's lanes keep clip_one).
template <typename T> __device__ __forceinline__ bool plain_bounds(T, T) { return false; }
__device__ __forceinline__ bool plain_bounds(float lo, float hi) {
    return lo == lo && hi == hi && lo != 0.0f && hi != 0.0f;
}
__device__ __forceinline__ bool plain_bounds(double lo, double hi) {
    return lo == lo && hi == hi && lo != 0.0 && hi != 0.0;
}
template <typename T>
__device__ __forceinline__ T clip_plain_of(T x, T lo, T hi) {
    const T t = x < lo ? lo : x;
    return npu_emu::ufunc::Store<T>::run(t > hi ? hi : t);
}
template <typename T> __device__ __forceinline__ T clip_plain(T x, T lo, T hi) { return clip_one(x, lo, hi); }
__device__ __forceinline__ float clip_plain(float x, float lo, float hi) { return clip_plain_of(x, lo, hi); }
__device__ __forceinline__ double clip_plain(double x, double lo, double hi) { return clip_plain_of(x, lo, hi); }
#endif

template <typename T, typename I>
__device__ __forceinline__ void clip_row(T* __restrict__ o, const T* __restrict__ x,
                                         const T* __restrict__ lo, const T* __restrict__ hi,
                                         I n, I so, I sx, I sl, I sh) {
#if defined(NPU_EMU_CPU)
    if (so == 1 && sx == 1 && sl == 0 && sh == 0) {   // clip(x, scalar, scalar): one loop
        const T l = *lo, h = *hi;
        if (plain_bounds(l, h)) {
            for (I j = 0; j < n; ++j) o[j] = clip_plain(x[j], l, h);
            return;
        }
        for (I j = 0; j < n; ++j) o[j] = clip_one(x[j], l, h);
        return;
    }
    if (so == 1 && sx == 1 && sl == 1 && sh == 1) {
        for (I j = 0; j < n; ++j) o[j] = clip_one(x[j], lo[j], hi[j]);
        return;
    }
#endif
    for (I j = 0; j < n; ++j) o[j * so] = clip_one(x[j * sx], lo[j * sl], hi[j * sh]);
}

template <typename T, typename I>
__device__ __forceinline__ void clip_body(const IterParams<4>& p, const T* x, const T* lo,
                                          const T* hi, T* out) {
    const I so = static_cast<I>(p.stride[0][0]), sx = static_cast<I>(p.stride[1][0]),
            sl = static_cast<I>(p.stride[2][0]), sh = static_cast<I>(p.stride[3][0]);
    for_each_segment<I, 4>(p, [&](const I* off, I n) {
        clip_row<T, I>(out + off[0], x + off[1], lo + off[2], hi + off[3], n, so, sx, sl, sh);
    });
}

}  // namespace clip_kernels
}  // namespace npu_emu

// One kernel per dtype (the catalog in npu_emu/kernels/clip.py), at its launch's index width
// (npu_emu_index.cuh's with_index_width).
#define NPU_EMU_CLIP_KERNEL(NAME, T)                                                            \
    extern "C" __global__ void NAME(const npu_emu::IterParams<4> p, const T* x, const T* lo,   \
                                    const T* hi, T* out) {                                     \
        npu_emu::with_index_width(p.flags, [&](auto i) {                                       \
            npu_emu::clip_kernels::clip_body<T, decltype(i)>(p, x, lo, hi, out);               \
        });                                                                                    \
    }                                                                                          \
    NPU_EMU_EXPORT(NAME)
