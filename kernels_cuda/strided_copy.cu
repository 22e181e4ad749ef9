// Strided gather/scatter: dst[dst_view] = src[src_view] for any rank (after coalescing, at
// most 8 dims), elements of 1, 2, 4 or 8 bytes (wider elements are split by the host), zero
// source strides for broadcasting. Operand 0 of the parameters is dst, operand 1 is src.
//
// strided_copy_*: each thread copies `run` consecutive elements of the iteration space,
//   dividing once to find its start, then walking rows with an odometer; the innermost
//   contiguous and broadcast cases are plain loops the compiler vectorizes (the CPU's long
//   runs). On the GPU a run is one aligned 16-byte vector (one load, one store) or a single
//   element, so consecutive threads touch consecutive addresses (npu_emu_index.cuh).
// tiled_copy_*: when the source's fastest axis is not the destination's (a transpose), a
//   32x33 tile is read along the source's fast axis and written along the destination's. On
//   the CPU, 4- and 2-byte elements with both fast axes unit-strided skip the tile buffer: 8x8
//   blocks are transposed in AVX registers (npu_emu_cpu.h transpose8x8).
// On the CPU, an output of 16 MiB or more is written with non-temporal stores (stream_row).
#include "npu_emu_common.cuh"
#include "npu_emu_index.cuh"

namespace {

using npu_emu::IterParams;

template <typename T, typename I>
__device__ __forceinline__ void copy_row(T* __restrict__ d, const T* __restrict__ s, I n, I ds, I ss,
                                         bool stream = false) {
#if defined(NPU_EMU_CPU)
    if (stream && ds == 1 && ss == 1) {   // a large contiguous run: non-temporal stores
        npu_emu_cpu::stream_copy(d, s, static_cast<long long>(n) * static_cast<long long>(sizeof(T)));
        return;
    }
    if (stream && ds == 1) {   // a large output: non-temporal stores (npu_emu_cpu.h)
        npu_emu_cpu::stream_row(d, static_cast<long long>(n), [&](T* out, long long j, long long k) {
            copy_row<T, I>(out, s + static_cast<I>(j) * ss, static_cast<I>(k), static_cast<I>(1), ss);
        });
        return;
    }
#endif
    constexpr int V = npu_emu::vec_elems(sizeof(T));
    if (npu_emu::vec_dest<V>(d, n, ds) && npu_emu::vec_source<V>(s, n, ss)) {   // the GPU's runs
        T v[V];
        if (ss == 1) {
            npu_emu::load_vec<V>(v, s);
        } else {
            for (int j = 0; j < V; ++j) v[j] = *s;
        }
        npu_emu::store_vec<V>(d, v);
    } else if (ds == 1 && ss == 1) {
        for (I j = 0; j < n; ++j) d[j] = s[j];
    } else if (ds == 1 && ss == 0) {
        const T v = *s;
        for (I j = 0; j < n; ++j) d[j] = v;
    } else if (ds == 1) {
        for (I j = 0; j < n; ++j) d[j] = s[j * ss];
    } else {
        for (I j = 0; j < n; ++j) d[j * ds] = s[j * ss];
    }
}

template <typename T, typename I>
__device__ __forceinline__ void strided_copy_body(const IterParams<2>& p, const T* __restrict__ src,
                                                  T* __restrict__ dst) {
    const I ds = static_cast<I>(p.stride[0][0]);
    const I ss = static_cast<I>(p.stride[1][0]);
#if defined(NPU_EMU_CPU)
    const bool stream = npu_emu_cpu::streaming(p.numel * static_cast<long long>(sizeof(T)));
#else
    constexpr bool stream = false;
#endif
    npu_emu::for_each_segment<I, 2>(p, [&](const I* off, I n) {
        copy_row<T, I>(dst + off[0], src + off[1], n, ds, ss, stream);
    });
}

constexpr int TILE = 32;
// A block's extent along the destination's fast axis: one tile on the GPU; on the CPU four
// for the register-transposed 2- and 4-byte elements, so that a thread finishes the
// destination's cache lines it starts (a 32-element segment of a row need not start on a
// line) and touches 4x fewer pages per element it writes. kernels/copy.py sizes the grid
// with the backend's tile_span(unit), which must agree (tests/test_strided_copy.py's
// transposes end in partial blocks of every unit).
template <typename T>
#if defined(NPU_EMU_CPU)
constexpr int TILE_SPAN0 = sizeof(T) == 4 || sizeof(T) == 2 ? 4 * TILE : TILE;
#else
constexpr int TILE_SPAN0 = TILE;
#endif

#if defined(NPU_EMU_CPU)
// The part of a tile outside its full 8x8 blocks ([full0, m0) x [0, m1) and
// [0, full0) x [full1, m1)), element by element.
template <typename T, typename I>
inline void tile_edges(const IterParams<2>& p, const T* __restrict__ src, T* __restrict__ dst,
                       I soff, I doff, I base0, I base1, I m0, I m1, I full0, I full1) {
    const I ds0 = static_cast<I>(p.stride[0][0]), ds1 = static_cast<I>(p.stride[0][1]);
    const I ss0 = static_cast<I>(p.stride[1][0]), ss1 = static_cast<I>(p.stride[1][1]);
    for (I j = 0; j < m1; ++j) {
        T* d = dst + doff + base0 * ds0 + (base1 + j) * ds1;
        const T* s = src + soff + base0 * ss0 + (base1 + j) * ss1;
        for (I i = j < full1 ? full0 : 0; i < m0; ++i) d[i * ds0] = s[i * ss0];
    }
}
#endif

// Dims: 0 = the destination's fast axis, 1 = the source's fast axis, 2.. = batch.
template <typename T, typename I>
__device__ __forceinline__ void tiled_copy_body(const IterParams<2>& p, const T* __restrict__ src,
                                                T* __restrict__ dst) {
    __shared__ T tile[TILE][TILE + 1];
    const I n0 = static_cast<I>(p.size[0]), n1 = static_cast<I>(p.size[1]);
    constexpr int TILE0 = TILE_SPAN0<T>;
    const I tiles0 = (n0 + TILE0 - 1) / TILE0, tiles1 = (n1 + TILE - 1) / TILE;
    // Consecutive blocks step along dim 1: they write different destination rows. Stepping
    // along dim 0 put neighbouring tiles of one row on different CPU threads (blocks are
    // handed out one at a time), and where a row's 128-byte tile segments are not aligned
    // to cache lines (a 4000 x 4100 transpose) the two threads wrote the same lines at every
    // tile edge: 1.1-1.45x from 1 to 2 threads instead of 2x.
    I b = static_cast<I>(blockIdx.x);
    const I t1 = b % tiles1;
    b /= tiles1;
    const I t0 = b % tiles0;
    b /= tiles0;
    I doff = 0, soff = 0;
    for (int d = 2; d < p.ndim; ++d) {   // batch position: a few divisions per 1024 elements
        const I size = static_cast<I>(p.size[d]);
        const I i = b % size;
        b /= size;
        doff += i * static_cast<I>(p.stride[0][d]);
        soff += i * static_cast<I>(p.stride[1][d]);
    }
    const I ds0 = static_cast<I>(p.stride[0][0]), ds1 = static_cast<I>(p.stride[0][1]);
    const I ss0 = static_cast<I>(p.stride[1][0]), ss1 = static_cast<I>(p.stride[1][1]);
    const I base0 = t0 * TILE0, base1 = t1 * TILE;
    const I m0 = min(static_cast<I>(TILE0), n0 - base0), m1 = min(static_cast<I>(TILE), n1 - base1);

#if defined(NPU_EMU_CPU) && defined(__AVX__)
    // CPU, 4- or 2-byte elements, both fast axes unit-strided: 8x8 blocks transposed in
    // registers (the shuffles move bits, never values), the tile's edges element by element.
    if constexpr (sizeof(T) == 4 || sizeof(T) == 2) {
        if (ds0 == 1 && ss1 == 1) {
            using U = std::conditional_t<sizeof(T) == 4, float, uint16_t>;
            const I full0 = m0 & ~static_cast<I>(7), full1 = m1 & ~static_cast<I>(7);
            const U* sb = reinterpret_cast<const U*>(src + soff + base0 * ss0 + base1);
            U* db = reinterpret_cast<U*>(dst + doff + base0 + base1 * ds1);
            for (I i = 0; i < full0; i += 8)
                for (I j = 0; j < full1; j += 8)
                    npu_emu_cpu::transpose8x8(db + i + j * ds1, static_cast<int64_t>(ds1),
                                              sb + i * ss0 + j, static_cast<int64_t>(ss0));
            tile_edges<T, I>(p, src, dst, soff, doff, base0, base1, m0, m1, full0, full1);
            return;
        }
    }
#endif
    for (I sub = 0; sub < m0; sub += TILE) {   // once on the GPU (TILE0 == TILE)
        const I at0 = base0 + sub, k0 = min(static_cast<I>(TILE), m0 - sub);
        // Read along the source's fast axis (dim 1).
        for (I j = threadIdx.y; j < k0; j += blockDim.y) {
            const T* s = src + soff + (at0 + j) * ss0 + base1 * ss1;
            for (I i = threadIdx.x; i < m1; i += blockDim.x) tile[j][i] = s[i * ss1];
        }
        __syncthreads();
        // Write along the destination's fast axis (dim 0).
        for (I j = threadIdx.y; j < m1; j += blockDim.y) {
            T* d = dst + doff + at0 * ds0 + (base1 + j) * ds1;
            for (I i = threadIdx.x; i < k0; i += blockDim.x) d[i * ds0] = tile[i][j];
        }
        __syncthreads();   // the tile is read again by the next sub-tile
    }
}

}  // namespace

#define NPU_EMU_COPY_KERNELS(T, TN, I, IN)                                                     \
    extern "C" __global__ void strided_copy_##TN##_##IN(const IterParams<2> p, const T* src,   \
                                                        T* dst) {                              \
        strided_copy_body<T, I>(p, src, dst);                                                  \
    }                                                                                          \
    NPU_EMU_EXPORT(strided_copy_##TN##_##IN)                                                   \
    extern "C" __global__ void tiled_copy_##TN##_##IN(const IterParams<2> p, const T* src,     \
                                                      T* dst) {                                \
        tiled_copy_body<T, I>(p, src, dst);                                                    \
    }                                                                                          \
    NPU_EMU_EXPORT(tiled_copy_##TN##_##IN)

NPU_EMU_COPY_KERNELS(uint8_t, b1, uint32_t, i32)
NPU_EMU_COPY_KERNELS(uint16_t, b2, uint32_t, i32)
NPU_EMU_COPY_KERNELS(uint32_t, b4, uint32_t, i32)
NPU_EMU_COPY_KERNELS(uint64_t, b8, uint32_t, i32)
NPU_EMU_COPY_KERNELS(uint8_t, b1, uint64_t, i64)
NPU_EMU_COPY_KERNELS(uint16_t, b2, uint64_t, i64)
NPU_EMU_COPY_KERNELS(uint32_t, b4, uint64_t, i64)
NPU_EMU_COPY_KERNELS(uint64_t, b8, uint64_t, i64)

#if defined(NPU_EMU_CPU)
// The host's own thread scaling, for `npu-emu bench --threads`: `rounds` of eight
// independent 8-lane multiply chains on each of `threads` OpenMP threads, in registers (no
// memory traffic). Returns the seconds it took. Two threads that are one core's SMT
// siblings, or a CPU quota, give far less than 2x here, and no kernel can scale past it.
extern "C" double npu_emu_core_probe(int threads, long long rounds) {
    volatile float sink = 0.0f;
    const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads)
    {
        float acc[8][8];
        for (int c = 0; c < 8; ++c)
            for (int l = 0; l < 8; ++l) acc[c][l] = 1.0f + 0.001f * static_cast<float>(l);
        const float m = 1.0000001f;
        for (long long r = 0; r < rounds; ++r)
            for (int c = 0; c < 8; ++c)
                for (int l = 0; l < 8; ++l) acc[c][l] *= m;   // vectorized: 8 chains of 8 lanes
        float s = 0.0f;
        for (int c = 0; c < 8; ++c)
            for (int l = 0; l < 8; ++l) s += acc[c][l];
#pragma omp critical
        sink = sink + s;
    }
    (void)sink;
    return omp_get_wtime() - t0;
}
#endif
