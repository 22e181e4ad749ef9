// Layout transforms between a strided view (ND, NCHW, ...) and a private layout's storage
// (FRACTAL_NZ, Zz, Zn, DN, NC1HWC0, FRACTAL_Z, ...) as one-pass padded gathers, elements of
// 1, 2, 4 or 8 bytes. The host (npu_emu/kernels/layout.py) describes the iteration space as
// the layout's storage axes, coalesced, in the order it chose; operands:
//   0 destination, 1 source (element strides),
//   2, 3 the logical index of the (at most two) padded view dims along each axis.
// An element whose logical index reaches its dim's bound is padding: with FILL_PADDING
// (view -> layout) it is written as zero and nothing is read; without (layout -> view) it is
// skipped (it has no place in the view).
//
// layout_planes_*: axes 0 x 1 form a plane (a fractal, a W x C0 block) with axis 0 the fast
//   axis of both operands; each block owns `run` planes, threads split rows and elements,
//   32-byte fractal rows are fixed-size copies (FRACTAL_NZ, Zz, NHWC <-> NC1HWC0, ...). The
//   CPU's form of the non-transposing case (a GPU takes layout_gather_*, whose consecutive
//   threads move consecutive 16-byte runs).
// layout_tiled_*: when the source's fastest axis is not the destination's (Zn, DN, NCHW <->
//   NC1HWC0, FRACTAL_Z, ...), a 32x33 shared tile is filled along the source's fast axis
//   (dim 1) and emptied along the destination's (dim 0); `run` tiles per block.
// layout_gather_*: the general case: each thread owns `run` consecutive elements of the
//   iteration space, walked row by row (axis 0) with an odometer (on a GPU: one aligned
//   16-byte vector, or one element, per thread; npu_emu_index.cuh).
// All are correct for any block shape, including the CPU's 1x1.
//
// Two build units instantiate them: layout.cu with 32-bit indexing (every space under 2^31
// elements: what a call almost always needs) and layout_i64.cu with 64-bit indexing, so a
// first format cast builds half the kernels (cold start).
#pragma once
#include "npu_emu_common.cuh"
#include "npu_emu_index.cuh"

namespace npu_emu {

struct LayoutParams {
    IterParams<4> it;
    int64_t bound[2];   // logical sizes of the padded dims (a large value when unused)
};

}  // namespace npu_emu

namespace {

using npu_emu::IterParams;
using npu_emu::LayoutParams;
using npu_emu::Odometer;

constexpr int FILL_PADDING = 1;
constexpr int TILE = 32;

// How many leading elements of a run of `n` are data, for a padded dim whose logical index
// starts at `off` and moves by `step` per element.
template <typename I>
__device__ __forceinline__ I data_prefix(I off, int64_t step, int64_t bound, I n) {
    const int64_t left = bound - static_cast<int64_t>(off);
    if (left <= 0) return 0;
    if (step == 0) return n;
    const int64_t k = step == 1 ? left : (left + step - 1) / step;
    return k < static_cast<int64_t>(n) ? static_cast<I>(k) : n;
}

template <typename T, typename I>
__device__ __forceinline__ void move_run(T* __restrict__ d, const T* __restrict__ s, I n, I ds, I ss) {
    if (ds == 1 && ss == 1) {
        for (I j = 0; j < n; ++j) d[j] = s[j];
    } else if (ds == 1) {
        for (I j = 0; j < n; ++j) d[j] = s[j * ss];
    } else {
        for (I j = 0; j < n; ++j) d[j * ds] = s[j * ss];
    }
}

template <typename T, typename I>
__device__ __forceinline__ void layout_gather_body(const LayoutParams& lp, const T* __restrict__ src,
                                                   T* __restrict__ dst) {
    const IterParams<4>& p = lp.it;
    const bool fill = (p.flags & FILL_PADDING) != 0;
    const I ds = static_cast<I>(p.stride[0][0]);
    const I ss = static_cast<I>(p.stride[1][0]);
    const int64_t step_a = p.stride[2][0], step_b = p.stride[3][0];
    npu_emu::for_each_segment<I, 4>(p, [&](const I* off, I n) {
        // Data is the prefix [0, lim) of the segment: the tighter of the two padded dims.
        const I lim = min(data_prefix<I>(off[2], step_a, lp.bound[0], n),
                          data_prefix<I>(off[3], step_b, lp.bound[1], n));
        T* d = dst + off[0];
        const T* s = src + off[1];
        constexpr int V = npu_emu::vec_elems(sizeof(T));
        if (lim == n && npu_emu::vec_dest<V>(d, n, ds) && npu_emu::vec_source<V>(s, n, ss)) {
            T v[V];   // the GPU's runs: all data, one vector
            if (ss == 1) {
                npu_emu::load_vec<V>(v, s);
            } else {
                for (int j = 0; j < V; ++j) v[j] = *s;
            }
            npu_emu::store_vec<V>(d, v);
            return;
        }
        if (fill && lim == 0 && npu_emu::vec_dest<V>(d, n, ds)) {
            T z[V];   // all padding, one vector of zeros
            for (int j = 0; j < V; ++j) z[j] = T(0);
            npu_emu::store_vec<V>(d, z);
            return;
        }
        if (lim > 0) move_run<T, I>(d, s, lim, ds, ss);
        if (fill)
            for (I j = lim; j < n; ++j) d[j * ds] = T(0);
    });
}

// Dims 0 and 1 form a plane (a fractal, a W x C0 block) in which axis 0 is the fast axis of
// both operands (unit strides); each block owns `run` consecutive planes, walked with an
// odometer over dims 2.. (one division per block), and its threads split a plane's rows (y)
// and elements (x). The host guarantees that no padded dim moves along both axes, so the
// data of a plane is a rectangle [0, v0) x [0, v1), computed once per plane.
template <typename T, typename I>
__device__ __forceinline__ void plane_rows(T* __restrict__ d, const T* __restrict__ s, I n0, I n1,
                                           I v0, I v1, I ds1, I ss1, bool fill) {
    constexpr I ROW = 32 / sizeof(T);   // a fractal row: 32 bytes (C0 elements)
    if (n0 == ROW && v0 == ROW) {       // fixed trip count: one 32-byte move on the CPU
        for (I r = threadIdx.y; r < v1; r += blockDim.y) {
            T* dr = d + r * ds1;
            const T* sr = s + r * ss1;
            for (I i = threadIdx.x; i < ROW; i += blockDim.x) dr[i] = sr[i];
        }
    } else {
        for (I r = threadIdx.y; r < v1; r += blockDim.y) {
            T* dr = d + r * ds1;
            const T* sr = s + r * ss1;
            for (I i = threadIdx.x; i < v0; i += blockDim.x) dr[i] = sr[i];
            if (fill)
                for (I i = v0 + threadIdx.x; i < n0; i += blockDim.x) dr[i] = T(0);
        }
    }
    if (fill)
        for (I r = v1 + threadIdx.y; r < n1; r += blockDim.y)
            for (I i = threadIdx.x; i < n0; i += blockDim.x) d[r * ds1 + i] = T(0);
}

template <typename T, typename I>
__device__ __forceinline__ void layout_planes_body(const LayoutParams& lp, const T* __restrict__ src,
                                                   T* __restrict__ dst) {
    const IterParams<4>& p = lp.it;
    const I n0 = static_cast<I>(p.size[0]);
    const I n1 = static_cast<I>(p.size[1]);
    const I planes = static_cast<I>(p.numel) / (n0 * n1);
    const I run = static_cast<I>(p.run);
    const I first = static_cast<I>(blockIdx.x) * run;
    if (first >= planes) return;
    const I last = min(static_cast<I>(first + run), planes);

    I idx[npu_emu::MAX_DIMS];
    I off[4] = {0, 0, 0, 0};
    I rem = first;
    for (int d = 2; d < p.ndim; ++d) {
        const I size = static_cast<I>(p.size[d]);
        const I q = rem / size;
        idx[d] = rem - q * size;
        rem = q;
        for (int k = 0; k < 4; ++k) off[k] += idx[d] * static_cast<I>(p.stride[k][d]);
    }
    const bool fill = (p.flags & FILL_PADDING) != 0;
    const I ds1 = static_cast<I>(p.stride[0][1]), ss1 = static_cast<I>(p.stride[1][1]);
    const int64_t a0 = p.stride[2][0], a1 = p.stride[2][1], b0 = p.stride[3][0], b1 = p.stride[3][1];
    for (I plane = first; plane < last; ++plane) {
        I v0 = n0, v1 = n1;
        if (a1 == 0) v0 = min(v0, data_prefix<I>(off[2], a0, lp.bound[0], n0));
        else v1 = min(v1, data_prefix<I>(off[2], a1, lp.bound[0], n1));
        if (b1 == 0) v0 = min(v0, data_prefix<I>(off[3], b0, lp.bound[1], n0));
        else v1 = min(v1, data_prefix<I>(off[3], b1, lp.bound[1], n1));
        if (v0 == 0) v1 = 0;
        plane_rows<T, I>(dst + off[0], src + off[1], n0, n1, v0, v1, ds1, ss1, fill);
        for (int dd = 2; dd < p.ndim; ++dd) {   // next plane: carry increments
            for (int k = 0; k < 4; ++k) off[k] += static_cast<I>(p.stride[k][dd]);
            if (++idx[dd] < static_cast<I>(p.size[dd])) break;
            for (int k = 0; k < 4; ++k) off[k] -= static_cast<I>(p.size[dd]) * static_cast<I>(p.stride[k][dd]);
            idx[dd] = 0;
        }
    }
}

// The data rectangle [0, v0) x [0, v1) of an m0 x m1 block at (base0, base1); the host
// guarantees that no padded dim moves along both dim 0 and dim 1.
template <typename I>
__device__ __forceinline__ void block_data(const LayoutParams& lp, const I* off, I base0, I base1,
                                           I m0, I m1, I& v0, I& v1) {
    const IterParams<4>& p = lp.it;
    v0 = m0;
    v1 = m1;
    for (int j = 0; j < 2; ++j) {
        const int64_t s0 = p.stride[2 + j][0], s1 = p.stride[2 + j][1];
        const I o = off[2 + j] + base0 * static_cast<I>(s0) + base1 * static_cast<I>(s1);
        if (s1 == 0) {
            v0 = min(v0, data_prefix<I>(o, s0, lp.bound[j], m0));
        } else {
            v1 = min(v1, data_prefix<I>(o, s1, lp.bound[j], m1));
        }
    }
    if (v0 == 0 || v1 == 0) v0 = v1 = 0;
}

#if defined(NPU_EMU_CPU)
// CPU fast paths of a tile that holds only data, when one side is a run of C (8, 16, 32)
// contiguous elements per position (C0 of NC1HWC0, a fractal row): the constant C turns the
// inner loop into an interleaved load or store group the compiler vectorizes with permutes
// (measured 31 GB/s against 21 for the tile for NCHW -> NC1HWC0 f16 on 2 cores).
// interleave:   d[j * C + c] = s[c * s_stride + j]
// deinterleave: d[c * d_stride + i] = s[i * C + c]
// Signed 64-bit indices: with unsigned 32-bit ones the compiler must allow for wrap-around
// and gives up vectorizing.
template <typename T, int C>
inline void interleave(T* __restrict__ d, const T* __restrict__ s, int64_t n, int64_t s_stride) {
    for (int64_t j = 0; j < n; ++j) {
#pragma GCC unroll 32
        for (int c = 0; c < C; ++c) d[j * C + c] = s[c * s_stride + j];
    }
}

template <typename T, int C, typename N>
inline void deinterleave_block(T* __restrict__ d, const T* __restrict__ s, N n, int64_t d_stride) {
    // Through a local block: the C output rows may not be proven disjoint in d, in tmp they
    // are, so the interleaved loads vectorize; then each row is one contiguous copy.
    T tmp[C][TILE];
    for (N i = 0; i < n; ++i) {
#pragma GCC unroll 32
        for (int c = 0; c < C; ++c) tmp[c][i] = s[i * C + c];
    }
    for (int c = 0; c < C; ++c) {
        for (N i = 0; i < n; ++i) d[c * d_stride + i] = tmp[c][i];
    }
}

template <typename T, int C>
inline void deinterleave(T* __restrict__ d, const T* __restrict__ s, int64_t n, int64_t d_stride) {
    if (n == TILE) {  // full tiles: a copy of the loops compiled for a constant bound
        deinterleave_block<T, C, int64_t>(d, s, TILE, d_stride);
    } else {
        deinterleave_block<T, C, int64_t>(d, s, n, d_stride);
    }
}

// Returns true when the tile was moved by a fast path.
template <typename T, typename I>
inline bool cpu_tile_fast_path(T* d, const T* s, I m0, I m1, I ds0, I ds1, I ss0, I ss1) {
    if (ds0 != 1 || ss1 != 1) return false;
    if (ds1 == m0) {  // dim 0 is a contiguous run of m0 in dst: interleave along dim 1
        switch (m0) {
            case 8: interleave<T, 8>(d, s, m1, ss0); return true;
            case 16: interleave<T, 16>(d, s, m1, ss0); return true;
            case 32: interleave<T, 32>(d, s, m1, ss0); return true;
            default: return false;
        }
    }
    if (ss0 == m1) {  // dim 1 is a contiguous run of m1 in src: deinterleave along dim 0
        switch (m1) {
            case 8: deinterleave<T, 8>(d, s, m0, ds1); return true;
            case 16: deinterleave<T, 16>(d, s, m0, ds1); return true;
            case 32: deinterleave<T, 32>(d, s, m0, ds1); return true;
            default: return false;
        }
    }
    return false;
}
#endif

// One tile through a 32x33 shared tile: filled along the source's fast axis (dim 1,
// coalesced reads), emptied along the destination's (dim 0, coalesced writes). On the CPU
// (one thread) the unit-stride cases below are the loops the compiler vectorizes; a direct
// strided gather without the tile measured 35% slower for NCHW -> NC1HWC0 there.
template <typename T, typename I>
__device__ __forceinline__ void transpose_tile(const LayoutParams& lp, const T* __restrict__ src,
                                               T* __restrict__ dst, T (*tile)[TILE + 1],
                                               const I* off, I base0, I base1) {
    const IterParams<4>& p = lp.it;
    const I n0 = static_cast<I>(p.size[0]), n1 = static_cast<I>(p.size[1]);
    const I m0 = min(static_cast<I>(TILE), n0 - base0), m1 = min(static_cast<I>(TILE), n1 - base1);
    I v0, v1;
    block_data<I>(lp, off, base0, base1, m0, m1, v0, v1);
    const bool fill = (p.flags & FILL_PADDING) != 0;
    const I ds0 = static_cast<I>(p.stride[0][0]), ds1 = static_cast<I>(p.stride[0][1]);
    const I ss0 = static_cast<I>(p.stride[1][0]), ss1 = static_cast<I>(p.stride[1][1]);
#if defined(NPU_EMU_CPU)
    if (v0 == m0 && v1 == m1 &&
        cpu_tile_fast_path<T, I>(dst + off[0] + base0 * ds0 + base1 * ds1,
                                 src + off[1] + base0 * ss0 + base1 * ss1, m0, m1, ds0, ds1, ss0, ss1)) {
        return;
    }
#endif
    for (I j = threadIdx.y; j < m0; j += blockDim.y) {
        if (j < v0) {
            const T* s = src + off[1] + (base0 + j) * ss0 + base1 * ss1;
            if (ss1 == 1) {
                for (I i = threadIdx.x; i < v1; i += blockDim.x) tile[j][i] = s[i];
            } else {
                for (I i = threadIdx.x; i < v1; i += blockDim.x) tile[j][i] = s[i * ss1];
            }
            for (I i = v1 + threadIdx.x; i < m1; i += blockDim.x) tile[j][i] = T(0);
        } else {
            for (I i = threadIdx.x; i < m1; i += blockDim.x) tile[j][i] = T(0);
        }
    }
    __syncthreads();
    const I rows = fill ? m1 : v1;
    const I cols = fill ? m0 : v0;
    for (I j = threadIdx.y; j < rows; j += blockDim.y) {
        T* d = dst + off[0] + base0 * ds0 + (base1 + j) * ds1;
        if (ds0 == 1) {
            for (I i = threadIdx.x; i < cols; i += blockDim.x) d[i] = tile[i][j];
        } else {
            for (I i = threadIdx.x; i < cols; i += blockDim.x) d[i * ds0] = tile[i][j];
        }
    }
    __syncthreads();   // the tile is reused by the block's next tile
}

// Dims: 0 = the destination's fast axis, 1 = the source's fast axis, 2.. = the rest. Tiles
// are numbered dim 1 first (consecutive tiles continue the source's rows); each block owns
// `run` consecutive tiles (1 on a GPU, a strip on the CPU), decoded once, advanced by carries.
template <typename T, typename I>
__device__ __forceinline__ void layout_tiled_body(const LayoutParams& lp, const T* __restrict__ src,
                                                  T* __restrict__ dst) {
    __shared__ T tile[TILE][TILE + 1];
    const IterParams<4>& p = lp.it;
    const I n0 = static_cast<I>(p.size[0]), n1 = static_cast<I>(p.size[1]);
    const I tiles0 = (n0 + TILE - 1) / TILE, tiles1 = (n1 + TILE - 1) / TILE;
    const I total = tiles0 * tiles1 * (static_cast<I>(p.numel) / (n0 * n1));
    const I run = static_cast<I>(p.run);
    const I first = static_cast<I>(blockIdx.x) * run;
    if (first >= total) return;
    const I last = min(static_cast<I>(first + run), total);
    I b = first;
    I t1 = b % tiles1;
    b /= tiles1;
    I t0 = b % tiles0;
    b /= tiles0;
    I idx[npu_emu::MAX_DIMS];
    I off[4] = {0, 0, 0, 0};
    for (int d = 2; d < p.ndim; ++d) {
        const I size = static_cast<I>(p.size[d]);
        idx[d] = b % size;
        b /= size;
        for (int k = 0; k < 4; ++k) off[k] += idx[d] * static_cast<I>(p.stride[k][d]);
    }
    for (I t = first; t < last; ++t) {
        transpose_tile<T, I>(lp, src, dst, tile, off, t0 * TILE, t1 * TILE);
        if (++t1 < tiles1) continue;
        t1 = 0;
        if (++t0 < tiles0) continue;
        t0 = 0;
        for (int d = 2; d < p.ndim; ++d) {   // next batch position: carry increments
            for (int k = 0; k < 4; ++k) off[k] += static_cast<I>(p.stride[k][d]);
            if (++idx[d] < static_cast<I>(p.size[d])) break;
            for (int k = 0; k < 4; ++k) off[k] -= static_cast<I>(p.size[d]) * static_cast<I>(p.stride[k][d]);
            idx[d] = 0;
        }
    }
}

}  // namespace

#define NPU_EMU_LAYOUT_KERNELS(T, TN, I, IN)                                                   \
    extern "C" __global__ void layout_gather_##TN##_##IN(const LayoutParams p, const T* src,  \
                                                         T* dst) {                             \
        layout_gather_body<T, I>(p, src, dst);                                                 \
    }                                                                                          \
    NPU_EMU_EXPORT(layout_gather_##TN##_##IN)                                                  \
    extern "C" __global__ void layout_planes_##TN##_##IN(const LayoutParams p, const T* src,  \
                                                         T* dst) {                             \
        layout_planes_body<T, I>(p, src, dst);                                                 \
    }                                                                                          \
    NPU_EMU_EXPORT(layout_planes_##TN##_##IN)                                                  \
    extern "C" __global__ void layout_tiled_##TN##_##IN(const LayoutParams p, const T* src,   \
                                                        T* dst) {                              \
        layout_tiled_body<T, I>(p, src, dst);                                                  \
    }                                                                                          \
    NPU_EMU_EXPORT(layout_tiled_##TN##_##IN)
