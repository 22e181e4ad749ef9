// The matmul of the array API's float32, float64, complex64 and complex128 (the dtypes the cube
// emulation of matmul.cu does not take there; npu_emu/kernels/gemm.py plans it): C = A x B,
// batched with broadcasting (stride 0), any element strides (a transposed view is read as it
// lies).
//
// The order of the sums, which fixes every bit of the result (docs/array-api.md, "The matmul
// of float64 and complex"):
// each output is its own accumulator of the output dtype, starting from +0, to which the K
// products are added one at a time in ascending k: acc = acc + a[i,k] * b[k,j], the product
// rounded, then the sum rounded (no fused multiply-add: the build's flags). Complex products
// are the textbook formula, (ar br - ai bi) + i (ar bi + ai br), each product, the difference
// and the sum rounded, then added to the real and imaginary accumulators; conj_a / conj_b
// negate the imaginary part of A / B as it is read (vecdot conjugates its first operand).
// A NaN result is stored as the canonical quiet NaN (0x7FC00000, 0x7FF8000000000000).
//
// Nothing else depends on the order: a block may take its K in chunks (the accumulators
// carried between them are the same values), its outputs in vector lanes or threads in any
// grouping, and A x B may be computed as (B^T A^T)^T (a product's two factors commute, and
// so do the two terms of a complex product's imaginary part: x + y is y + x): the same bits
// on every host, vector width, thread count and backend. The host swaps the operands where C
// has fewer columns than rows, so that the longer side runs in the lanes.
//
// A block computes one tile of GEMM_TILE x GEMM_TILE outputs of one batch entry. On a GPU its
// 256 threads stage K chunks of the operands in shared memory and sum 4 x 4 outputs each
// (tile_shared); a thin tile (a matrix times a vector) takes its outputs a thread each,
// straight from the operands (tile_threads). On the CPU, where a block is one thread, it packs
// K chunks of A's rows and B's columns into contiguous panels (zeros past the matrices'
// edges; the outputs computed from them are not stored) and sums into a local tile, a few
// rows at a time in vector lanes (GCC's generic vectors: AVX-512, AVX2, NEON alike); a tile
// of one row (a matrix times a vector) sums a vector's lanes of columns at a time straight
// from the operands (row_tile), and a batch of single outputs (vecdot) a vector's lanes of
// them at a time (dot_lanes).
#pragma once
#include "npu_emu_common.cuh"
#include "npu_emu_convert.cuh"

namespace npu_emu {

constexpr int GEMM_MAX_BATCH = 6;
constexpr int GEMM_TILE = 64;

struct GemmParams {
    int64_t batch_size[GEMM_MAX_BATCH];   // output batch dims, innermost first
    int64_t a_batch[GEMM_MAX_BATCH];      // element strides per batch dim (0: broadcast)
    int64_t b_batch[GEMM_MAX_BATCH];
    int64_t c_batch[GEMM_MAX_BATCH];
    int64_t m, n, k;                      // C is m x n, the sums k long
    int64_t a_m, a_k, b_k, b_n, c_m, c_n; // element strides (any sign)
    int64_t tiles_m, tiles_n, tiles;      // tiles of C per batch entry (down, across); in all
    int64_t per_block;                    // tiles a block computes in turn
    int32_t batch_ndim;
    int32_t conj_a, conj_b;               // complex: read A (B) conjugated
};

namespace gemm {

// The element types: a real one is its own accumulator; a complex one (c64, c128) sums its
// parts in its real type.
template <typename S> struct Parts { using R = S; static constexpr bool complex = false; };
template <> struct Parts<c64> { using R = float; static constexpr bool complex = true; };
template <> struct Parts<c128> { using R = double; static constexpr bool complex = true; };

// A NaN result leaves as the canonical quiet NaN: which operand's NaN an operation passes on
// (and with what sign) differs between targets and between a loop's scalar and vector forms.
__device__ __forceinline__ float canonical(float x) { return canonical_nan(x); }
__device__ __forceinline__ double canonical(double x) { return canonical_nan(x); }
template <typename S>
__device__ __forceinline__ S canonical_of(S v) {
    if constexpr (Parts<S>::complex) return S{canonical(v.re), canonical(v.im)};
    else return canonical(v);
}

struct Tile {
    int64_t a, b, c;      // element offsets of the tile's first row of A, column of B, output
    int64_t mt, nt;       // its rows and columns (GEMM_TILE or fewer at the edges)
};

__device__ __forceinline__ Tile tile_at(const GemmParams& p, int64_t t) {
    const int64_t tn = t % p.tiles_n, tm = (t / p.tiles_n) % p.tiles_m;
    int64_t bi = t / (p.tiles_n * p.tiles_m);
    Tile at{0, 0, 0, 0, 0};
    for (int d = 0; d < p.batch_ndim; ++d) {
        const int64_t n = p.batch_size[d], i = bi % n;
        bi /= n;
        at.a += i * p.a_batch[d];
        at.b += i * p.b_batch[d];
        at.c += i * p.c_batch[d];
    }
    const int64_t i0 = tm * GEMM_TILE, j0 = tn * GEMM_TILE;
    at.a += i0 * p.a_m;
    at.b += j0 * p.b_n;
    at.c += i0 * p.c_m + j0 * p.c_n;
    at.mt = p.m - i0 < GEMM_TILE ? p.m - i0 : GEMM_TILE;
    at.nt = p.n - j0 < GEMM_TILE ? p.n - j0 : GEMM_TILE;
    return at;
}

// One output, straight from the operands (the GPU's way; the order above).
template <typename T>
__device__ __forceinline__ T dot(const GemmParams& p, const T* a, const T* b) {
    T acc = T(0);
    for (int64_t k = 0; k < p.k; ++k) acc = acc + a[k * p.a_k] * b[k * p.b_k];
    return acc;
}
template <typename C>
__device__ __forceinline__ C dot_complex(const GemmParams& p, const C* a, const C* b) {
    using R = typename Parts<C>::R;
    const R sa = p.conj_a ? R(-1) : R(1), sb = p.conj_b ? R(-1) : R(1);
    R re = R(0), im = R(0);
    for (int64_t k = 0; k < p.k; ++k) {
        const C x = a[k * p.a_k], y = b[k * p.b_k];
        const R ar = x.re, ai = sa * x.im, br = y.re, bi = sb * y.im;
        re = re + (ar * br - ai * bi);
        im = im + (ar * bi + ai * br);
    }
    return C{re, im};
}

template <typename S>
__device__ __forceinline__ void tile_threads(const GemmParams& p, const S* A, const S* B, S* C,
                                             const Tile& at) {
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, nth = blockDim.x * blockDim.y;
    for (int64_t e = tid; e < at.mt * at.nt; e += nth) {
        const int64_t i = e / at.nt, j = e % at.nt;
        const S* a = A + at.a + i * p.a_m;
        const S* b = B + at.b + j * p.b_n;
        S* c = C + at.c + i * p.c_m + j * p.c_n;
        if constexpr (Parts<S>::complex) *c = canonical_of(dot_complex(p, a, b));
        else *c = canonical(dot(p, a, b));
    }
}

// ---------------------------------------------------------------- the GPU's shared tiles
// The GPU's way for a tile of at least SHARED_MIN_ROWS rows: 256 threads (the host's block),
// each with 4 x 4 outputs in registers, rows ry + 16 r and columns cx + 16 c of the tile
// (ry, cx: the thread's place in a 16 x 16 grid); K in chunks of GPU_KC, A's and B's chunks
// staged in shared memory by all threads, then each thread adds the chunk's products to its
// outputs in ascending k. Written over 256 "virtual" threads, VIRTUAL per real one, so that
// the CPU runs it too with a block of one thread (NPU_EMU_GEMM_THREADS: the test that compares
// it with the CPU's packed tiles; the phases between __syncthreads run for every virtual
// thread in turn). A block of another size takes tile_threads.
constexpr int GPU_THREADS = 256, GPU_KC = 16, SHARED_MIN_ROWS = 16;
#if defined(NPU_EMU_CPU)
constexpr int VIRTUAL = GPU_THREADS;   // one real thread a block
#else
constexpr int VIRTUAL = 1;
#endif

template <typename S>
__device__ __forceinline__ S conj_if(S v, bool conj) {
    if constexpr (Parts<S>::complex) return conj ? S{v.re, -v.im} : v;
    else return v;
}
template <typename S>
__device__ __forceinline__ S mac(S acc, S x, S y) {   // acc + x y in the order of the file's head
    if constexpr (Parts<S>::complex) return S{acc.re + (x.re * y.re - x.im * y.im), acc.im + (x.re * y.im + x.im * y.re)};
    else return acc + x * y;
}

template <typename S>
__device__ __forceinline__ void tile_shared(const GemmParams& p, const S* A, const S* B, S* C,
                                            const Tile& at) {
    __shared__ S As[GPU_KC][GEMM_TILE + 1];   // A's chunk, As[kk][row] (a column of padding:
    __shared__ S Bs[GPU_KC][GEMM_TILE + 1];   // B's chunk, Bs[kk][col]   a k-first fill meets no conflict)
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    S acc[VIRTUAL][4][4];
    for (int v = 0; v < VIRTUAL; ++v)
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) acc[v][r][c] = S{};
    const int mt = static_cast<int>(at.mt), nt = static_cast<int>(at.nt);
    for (int64_t k0 = 0; k0 < p.k; k0 += GPU_KC) {
        const int kc = static_cast<int>(p.k - k0 < GPU_KC ? p.k - k0 : GPU_KC);
        for (int v = 0; v < VIRTUAL; ++v) {            // stage: 4 elements of each a thread
            const int t = tid * VIRTUAL + v;
            for (int q = 0; q < GPU_KC * GEMM_TILE / GPU_THREADS; ++q) {
                // Neighbouring threads take neighbouring elements along an operand's unit
                // stride (coalesced reads): k first where it has one, else rows (columns).
                const int e = t + GPU_THREADS * q;
                int kk = e / GEMM_TILE, x = e % GEMM_TILE;
                if (p.a_k == 1) kk = e % GPU_KC, x = e / GPU_KC;
                As[kk][x] = kk < kc && x < mt ? conj_if(A[at.a + x * p.a_m + (k0 + kk) * p.a_k], p.conj_a) : S{};
                kk = e / GEMM_TILE, x = e % GEMM_TILE;
                if (p.b_k == 1 && p.b_n != 1) kk = e % GPU_KC, x = e / GPU_KC;
                Bs[kk][x] = kk < kc && x < nt ? conj_if(B[at.b + (k0 + kk) * p.b_k + x * p.b_n], p.conj_b) : S{};
            }
        }
        __syncthreads();
        for (int v = 0; v < VIRTUAL; ++v) {
            const int t = tid * VIRTUAL + v, ry = t / 16, cx = t % 16;
            for (int kk = 0; kk < kc; ++kk)
                for (int r = 0; r < 4; ++r) {
                    const S a = As[kk][ry + 16 * r];
                    for (int c = 0; c < 4; ++c) acc[v][r][c] = mac(acc[v][r][c], a, Bs[kk][cx + 16 * c]);
                }
        }
        __syncthreads();
    }
    for (int v = 0; v < VIRTUAL; ++v) {
        const int t = tid * VIRTUAL + v, ry = t / 16, cx = t % 16;
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) {
                const int i = ry + 16 * r, j = cx + 16 * c;
                if (i < mt && j < nt) C[at.c + i * p.c_m + j * p.c_n] = canonical_of(acc[v][r][c]);
            }
    }
}

#if defined(NPU_EMU_CPU)
// ---------------------------------------------------------------- the CPU's packed tiles
// A vector of VEC_BYTES (GCC lowers it to the target's registers: a zmm on AVX-512, else a
// ymm, two NEON q); mul and add on it are the lane-wise IEEE operations. Rows of a
// micro-tile, and its vectors across: what fits the target's registers (AVX-512's 32, else
// 16) with room for B's row and the broadcasts. Speed only: any sizes give the same bits.
#if defined(__AVX512F__)
constexpr int VEC_BYTES = 64, REAL_ROWS = 4, REAL_VECS = 4, COMPLEX_ROWS = 2, COMPLEX_VECS = 2;
#else
constexpr int VEC_BYTES = 32, REAL_ROWS = 4, REAL_VECS = 2, COMPLEX_ROWS = 2, COMPLEX_VECS = 2;
#endif
template <typename R> struct Vec;
template <> struct Vec<double> { typedef double type __attribute__((vector_size(VEC_BYTES))); };
template <> struct Vec<float> { typedef float type __attribute__((vector_size(VEC_BYTES))); };
// The K chunk packed at a time: a micro-tile's share of B's panel stays in L1 as it sweeps
// the chunk (against 256, two threads of an AVX-512 Xeon: float64 1000^3 55 -> 80 GFLOP/s,
// float32 78 -> 144; complex128 at 32, with 2 x 2 micro-tiles, 42 -> 66).
constexpr int KC_REAL = 64, KC_COMPLEX = 32;

// The micro-tiles of a tile's mt rows and `vecs` vectors across: micro(rows, vectors, r0, v0)
// with its sizes as compile-time constants, ROWS x VECS, then the edges a vector or a row at
// a time.
template <int ROWS, int VECS, typename Micro>
__device__ __forceinline__ void sweep(int mt, int vecs, Micro&& micro) {
    using Rows = std::integral_constant<int, ROWS>;
    using Vecs = std::integral_constant<int, VECS>;
    using One = std::integral_constant<int, 1>;
    int r0 = 0;
    for (; r0 + ROWS <= mt; r0 += ROWS) {
        int v0 = 0;
        for (; v0 + VECS <= vecs; v0 += VECS) micro(Rows{}, Vecs{}, r0, v0);
        for (; v0 < vecs; ++v0) micro(Rows{}, One{}, r0, v0);
    }
    for (; r0 < mt; ++r0) {
        int v0 = 0;
        for (; v0 + VECS <= vecs; v0 += VECS) micro(One{}, Vecs{}, r0, v0);
        for (; v0 < vecs; ++v0) micro(One{}, One{}, r0, v0);
    }
}

template <typename R>
struct RealTile {
    static constexpr int L = VEC_BYTES / sizeof(R);              // lanes of a vector
    static constexpr int W = GEMM_TILE;                          // the panel's width
    alignas(64) R a[KC_REAL][GEMM_TILE];                         // A^T's chunk: a[kk][row]
    alignas(64) R b[KC_REAL][W];                                      // B's chunk: b[kk][col]
    alignas(64) R c[GEMM_TILE][W];                               // the accumulators
};

// acc rows r0..r0+ROWS, vectors v0..v0+VECS of the tile, over the packed chunk of kc. The
// loops over rows and vectors unroll completely, so the accumulators live in registers; a
// scalar times a vector is the lane-wise product with the scalar broadcast.
#define NPU_EMU_GEMM_UNROLL _Pragma("GCC unroll 16")
template <typename R, int ROWS, int VECS>
__device__ __forceinline__ void micro_real(RealTile<R>& t, int r0, int v0, int kc) {
    using V = typename Vec<R>::type;
    constexpr int L = RealTile<R>::L;
    V acc[ROWS][VECS];
    NPU_EMU_GEMM_UNROLL for (int r = 0; r < ROWS; ++r)
        NPU_EMU_GEMM_UNROLL for (int v = 0; v < VECS; ++v)
            acc[r][v] = *reinterpret_cast<const V*>(&t.c[r0 + r][(v0 + v) * L]);
    for (int kk = 0; kk < kc; ++kk) {
        V bv[VECS];
        NPU_EMU_GEMM_UNROLL for (int v = 0; v < VECS; ++v)
            bv[v] = *reinterpret_cast<const V*>(&t.b[kk][(v0 + v) * L]);
        NPU_EMU_GEMM_UNROLL for (int r = 0; r < ROWS; ++r) {
            const R s = t.a[kk][r0 + r];
            NPU_EMU_GEMM_UNROLL for (int v = 0; v < VECS; ++v) acc[r][v] = acc[r][v] + s * bv[v];
        }
    }
    NPU_EMU_GEMM_UNROLL for (int r = 0; r < ROWS; ++r)
        NPU_EMU_GEMM_UNROLL for (int v = 0; v < VECS; ++v)
            *reinterpret_cast<V*>(&t.c[r0 + r][(v0 + v) * L]) = acc[r][v];
}

// One row of outputs (a matrix times a vector: C^T = x^T A^T after the host's swap): its
// columns a vector's lanes at a time, each group summed over the whole of K straight from
// the operands (a gather of the group's B elements a step), so that only that many of B's
// columns (A's rows) are read at once: few enough streams for the prefetchers, where the
// packed panels read 64 of them.
template <typename S>
__device__ __attribute__((noinline)) void row_tile(const GemmParams& p, const S* A, const S* B,
                                                   S* C, const Tile& at) {
    using R = typename Parts<S>::R;
    using V = typename Vec<R>::type;
    constexpr int L = VEC_BYTES / sizeof(R);
    const R sa = p.conj_a ? R(-1) : R(1), sb = p.conj_b ? R(-1) : R(1);
    const int nt = static_cast<int>(at.nt);
    const S* a = A + at.a;
    for (int j0 = 0; j0 < nt; j0 += L) {
        const int w = nt - j0 < L ? nt - j0 : L;
        const S* b = B + at.b + j0 * p.b_n;
        int64_t off[L];
        for (int l = 0; l < L; ++l) off[l] = (l < w ? l : 0) * p.b_n;   // (past w: column 0 again)
        V re = {}, im = {};                  // (a real row sums in re alone)
        for (int64_t k = 0; k < p.k; ++k) {
            const S* bk = b + k * p.b_k;
            if constexpr (Parts<S>::complex) {
                V yr, yi;
                for (int l = 0; l < L; ++l) {
                    yr[l] = bk[off[l]].re;
                    yi[l] = sb * bk[off[l]].im;
                }
                const R xr = a[k * p.a_k].re, xi = sa * a[k * p.a_k].im;
                re = re + (xr * yr - xi * yi);
                im = im + (xr * yi + xi * yr);
            } else {
                V bv;
                for (int l = 0; l < L; ++l) bv[l] = bk[off[l]];
                re = re + a[k * p.a_k] * bv;
            }
        }
        S* c = C + at.c + j0 * p.c_n;
        for (int l = 0; l < w; ++l) {
            if constexpr (Parts<S>::complex) c[l * p.c_n] = S{canonical(re[l]), canonical(im[l])};
            else c[l * p.c_n] = canonical(re[l]);
        }
    }
}

// v[i][j] -> v[j][i] for a square block of L vectors of L lanes, in registers: log2(L) stages
// of two-vector shuffles; stage H swaps the H x H blocks off the diagonal of every 2H x 2H
// block (lanes with H set in row i and lanes with H clear in row i + H).
template <typename V, typename M, int L, int H>
__device__ __forceinline__ void transpose_stages(V (&v)[L]) {
    M lo, hi;
    for (int j = 0; j < L; ++j) {
        lo[j] = (j & H) ? L + j - H : j;
        hi[j] = (j & H) ? L + j : j + H;
    }
    NPU_EMU_GEMM_UNROLL for (int i = 0; i < L; ++i)
        if (!(i & H)) {
            const V a = v[i], b = v[i + H];
            v[i] = __builtin_shuffle(a, b, lo);
            v[i + H] = __builtin_shuffle(a, b, hi);
        }
    if constexpr (H > 1) transpose_stages<V, M, L, H / 2>(v);
}

// A block's tiles first .. end - 1 where every tile is one output (m = n = 1: a batch of dot
// products, vecdot's rows), a vector's lanes of them at a time: lane l sums tile t0 + l over
// the whole of K in ascending k, the order of dot() in each lane (one dot product's sum is a
// chain of dependent additions; the lanes run L of them side by side). Where every operand
// row is contiguous (a_k = b_k = 1), L steps of k at a time: each row's L products from two
// vector loads (a complex row's from four, its parts taken apart by two shuffles each), the
// block of products (a complex one's real and imaginary blocks) transposed in registers so
// that vector j holds every lane's product at k0 + j, then added in j's order; the rest of K
// (and every other layout) a gather of the group's A and B elements a step. A group of one
// (a single dot product) takes dot()'s plain loop.
template <typename S>
__device__ __attribute__((noinline)) void dot_lanes(const GemmParams& p, const S* A, const S* B,
                                                    S* C, int64_t first, int64_t end) {
    using R = typename Parts<S>::R;
    using V = typename Vec<R>::type;
    constexpr int L = VEC_BYTES / sizeof(R);
    const R sa = p.conj_a ? R(-1) : R(1), sb = p.conj_b ? R(-1) : R(1);
    const bool rows = p.a_k == 1 && p.b_k == 1;
    const int64_t k_rows = rows ? p.k / L * L : 0;   // K's part taken L steps at a time
    using M = typename std::conditional<sizeof(R) == 4, int32_t, int64_t>::type;
    typedef M Mask __attribute__((vector_size(VEC_BYTES)));
    for (int64_t t0 = first; t0 < end; t0 += L) {
        const int w = end - t0 < L ? static_cast<int>(end - t0) : L;
        if (w == 1) {                   // one dot product alone: its plain loop
            tile_threads<S>(p, A, B, C, tile_at(p, t0));
            continue;
        }
        int64_t oa[L], ob[L], oc[L];
        for (int l = 0; l < L; ++l) {   // (past w: the group's first tile again, not stored)
            const Tile at = tile_at(p, t0 + (l < w ? l : 0));
            oa[l] = at.a;
            ob[l] = at.b;
            oc[l] = at.c;
        }
        V re = {}, im = {};             // (a real dot product sums in re alone)
        if constexpr (Parts<S>::complex) {
            // A complex row's L elements are two vectors of parts, (re, im) interleaved: the
            // even lanes of the pair its real parts, the odd ones its imaginary parts. Each
            // row's real and imaginary products as the gather below forms them, each block
            // transposed, then added in k's order.
            Mask even, odd;
            for (int j = 0; j < L; ++j) even[j] = 2 * j, odd[j] = 2 * j + 1;
            for (int64_t k0 = 0; k0 < k_rows; k0 += L) {
                V pr[L], pi[L];
                NPU_EMU_GEMM_UNROLL for (int l = 0; l < L; ++l) {
                    V a0, a1, b0, b1;
                    const R* ar = reinterpret_cast<const R*>(A + oa[l] + k0);
                    const R* br = reinterpret_cast<const R*>(B + ob[l] + k0);
                    __builtin_memcpy(&a0, ar, sizeof(V));
                    __builtin_memcpy(&a1, ar + L, sizeof(V));
                    __builtin_memcpy(&b0, br, sizeof(V));
                    __builtin_memcpy(&b1, br + L, sizeof(V));
                    const V xr = __builtin_shuffle(a0, a1, even), xi = sa * __builtin_shuffle(a0, a1, odd);
                    const V yr = __builtin_shuffle(b0, b1, even), yi = sb * __builtin_shuffle(b0, b1, odd);
                    pr[l] = xr * yr - xi * yi;
                    pi[l] = xr * yi + xi * yr;
                }
                transpose_stages<V, Mask, L, L / 2>(pr);
                transpose_stages<V, Mask, L, L / 2>(pi);
                NPU_EMU_GEMM_UNROLL for (int j = 0; j < L; ++j) {
                    re = re + pr[j];
                    im = im + pi[j];
                }
            }
        } else {
            for (int64_t k0 = 0; k0 < k_rows; k0 += L) {
                V prod[L];
                NPU_EMU_GEMM_UNROLL for (int l = 0; l < L; ++l) {
                    V av, bv;
                    __builtin_memcpy(&av, A + oa[l] + k0, sizeof(V));
                    __builtin_memcpy(&bv, B + ob[l] + k0, sizeof(V));
                    prod[l] = av * bv;               // row l's products at k0 .. k0 + L - 1
                }
                transpose_stages<V, Mask, L, L / 2>(prod);
                NPU_EMU_GEMM_UNROLL for (int j = 0; j < L; ++j) re = re + prod[j];
            }
        }
        for (int64_t k = k_rows; k < p.k; ++k) {
            const S* ak = A + k * p.a_k;
            const S* bk = B + k * p.b_k;
            if constexpr (Parts<S>::complex) {
                V xr, xi, yr, yi;
                for (int l = 0; l < L; ++l) {
                    xr[l] = ak[oa[l]].re;
                    xi[l] = sa * ak[oa[l]].im;
                    yr[l] = bk[ob[l]].re;
                    yi[l] = sb * bk[ob[l]].im;
                }
                re = re + (xr * yr - xi * yi);
                im = im + (xr * yi + xi * yr);
            } else {
                V av, bv;
                for (int l = 0; l < L; ++l) {
                    av[l] = ak[oa[l]];
                    bv[l] = bk[ob[l]];
                }
                re = re + av * bv;
            }
        }
        for (int l = 0; l < w; ++l) {
            if constexpr (Parts<S>::complex) C[oc[l]] = S{canonical(re[l]), canonical(im[l])};
            else C[oc[l]] = canonical(re[l]);
        }
    }
}

template <typename R>
__device__ __attribute__((noinline)) void tile_real(const GemmParams& p, const R* A, const R* B,
                                                    R* C, const Tile& at) {
    static thread_local RealTile<R> t;   // (a block is one thread: its panels, reused)
    constexpr int L = RealTile<R>::L;
    const int mt = static_cast<int>(at.mt), nt = static_cast<int>(at.nt);
    const int vecs = (nt + L - 1) / L;                 // 64-byte vectors the columns span
    for (int r = 0; r < mt; ++r)
        for (int j = 0; j < vecs * L; ++j) t.c[r][j] = R(0);
    for (int64_t k0 = 0; k0 < p.k; k0 += KC_REAL) {
        const int kc = static_cast<int>(p.k - k0 < KC_REAL ? p.k - k0 : KC_REAL);
        for (int kk = 0; kk < kc; ++kk) {
            const R* b = B + at.b + (k0 + kk) * p.b_k;
            R* row = t.b[kk];
            if (p.b_n == 1) {
                for (int j = 0; j < nt; ++j) row[j] = b[j];
            } else {
                for (int j = 0; j < nt; ++j) row[j] = b[j * p.b_n];
            }
            for (int j = nt; j < vecs * L; ++j) row[j] = R(0);
        }
        for (int r = 0; r < mt; ++r) {
            const R* a = A + at.a + r * p.a_m + k0 * p.a_k;
            if (p.a_k == 1) {
                for (int kk = 0; kk < kc; ++kk) t.a[kk][r] = a[kk];
            } else {
                for (int kk = 0; kk < kc; ++kk) t.a[kk][r] = a[kk * p.a_k];
            }
        }
        sweep<REAL_ROWS, REAL_VECS>(mt, vecs, [&](auto rows, auto vs, int r0, int v0) {
            micro_real<R, decltype(rows)::value, decltype(vs)::value>(t, r0, v0, kc);
        });
    }
    for (int r = 0; r < mt; ++r) {
        R* c = C + at.c + r * p.c_m;
        if (p.c_n == 1) {
            for (int j = 0; j < nt; ++j) c[j] = canonical(t.c[r][j]);
        } else {
            for (int j = 0; j < nt; ++j) c[j * p.c_n] = canonical(t.c[r][j]);
        }
    }
}

template <typename R>
struct ComplexTile {
    static constexpr int L = VEC_BYTES / sizeof(R);
    alignas(64) R ar[KC_COMPLEX][GEMM_TILE], ai[KC_COMPLEX][GEMM_TILE];   // A^T's chunk, parts apart
    alignas(64) R br[KC_COMPLEX][GEMM_TILE], bi[KC_COMPLEX][GEMM_TILE];
    alignas(64) R cr[GEMM_TILE][GEMM_TILE], ci[GEMM_TILE][GEMM_TILE];
};

template <typename R, int ROWS, int VECS>
__device__ __forceinline__ void micro_complex(ComplexTile<R>& t, int r0, int v0, int kc) {
    using V = typename Vec<R>::type;
    constexpr int L = ComplexTile<R>::L;
    V re[ROWS][VECS], im[ROWS][VECS];
    NPU_EMU_GEMM_UNROLL for (int r = 0; r < ROWS; ++r)
        NPU_EMU_GEMM_UNROLL for (int v = 0; v < VECS; ++v) {
            re[r][v] = *reinterpret_cast<const V*>(&t.cr[r0 + r][(v0 + v) * L]);
            im[r][v] = *reinterpret_cast<const V*>(&t.ci[r0 + r][(v0 + v) * L]);
        }
    for (int kk = 0; kk < kc; ++kk) {
        V yr[VECS], yi[VECS];
        NPU_EMU_GEMM_UNROLL for (int v = 0; v < VECS; ++v) {
            yr[v] = *reinterpret_cast<const V*>(&t.br[kk][(v0 + v) * L]);
            yi[v] = *reinterpret_cast<const V*>(&t.bi[kk][(v0 + v) * L]);
        }
        NPU_EMU_GEMM_UNROLL for (int r = 0; r < ROWS; ++r) {
            const R xr = t.ar[kk][r0 + r], xi = t.ai[kk][r0 + r];
            NPU_EMU_GEMM_UNROLL for (int v = 0; v < VECS; ++v) {
                re[r][v] = re[r][v] + (xr * yr[v] - xi * yi[v]);
                im[r][v] = im[r][v] + (xr * yi[v] + xi * yr[v]);
            }
        }
    }
    NPU_EMU_GEMM_UNROLL for (int r = 0; r < ROWS; ++r)
        NPU_EMU_GEMM_UNROLL for (int v = 0; v < VECS; ++v) {
            *reinterpret_cast<V*>(&t.cr[r0 + r][(v0 + v) * L]) = re[r][v];
            *reinterpret_cast<V*>(&t.ci[r0 + r][(v0 + v) * L]) = im[r][v];
        }
}

template <typename S>
__device__ __attribute__((noinline)) void tile_complex(const GemmParams& p, const S* A,
                                                       const S* B, S* C, const Tile& at) {
    using R = typename Parts<S>::R;
    static thread_local ComplexTile<R> t;
    constexpr int L = ComplexTile<R>::L;
    const R sa = p.conj_a ? R(-1) : R(1), sb = p.conj_b ? R(-1) : R(1);
    const int mt = static_cast<int>(at.mt), nt = static_cast<int>(at.nt);
    const int vecs = (nt + L - 1) / L;
    for (int r = 0; r < mt; ++r)
        for (int j = 0; j < vecs * L; ++j) t.cr[r][j] = t.ci[r][j] = R(0);
    for (int64_t k0 = 0; k0 < p.k; k0 += KC_COMPLEX) {
        const int kc = static_cast<int>(p.k - k0 < KC_COMPLEX ? p.k - k0 : KC_COMPLEX);
        for (int kk = 0; kk < kc; ++kk) {
            const S* b = B + at.b + (k0 + kk) * p.b_k;
            for (int j = 0; j < nt; ++j) {
                t.br[kk][j] = b[j * p.b_n].re;
                t.bi[kk][j] = sb * b[j * p.b_n].im;
            }
            for (int j = nt; j < vecs * L; ++j) t.br[kk][j] = t.bi[kk][j] = R(0);
        }
        for (int r = 0; r < mt; ++r) {
            const S* a = A + at.a + r * p.a_m + k0 * p.a_k;
            for (int kk = 0; kk < kc; ++kk) {
                t.ar[kk][r] = a[kk * p.a_k].re;
                t.ai[kk][r] = sa * a[kk * p.a_k].im;
            }
        }
        sweep<COMPLEX_ROWS, COMPLEX_VECS>(mt, vecs, [&](auto rows, auto vs, int r0, int v0) {
            micro_complex<R, decltype(rows)::value, decltype(vs)::value>(t, r0, v0, kc);
        });
    }
    for (int r = 0; r < mt; ++r) {
        S* c = C + at.c + r * p.c_m;
        for (int j = 0; j < nt; ++j) c[j * p.c_n] = S{canonical(t.cr[r][j]), canonical(t.ci[r][j])};
    }
}
#endif  // NPU_EMU_CPU

template <typename S>
__device__ __forceinline__ void gemm_tile(const GemmParams& p, const S* A, const S* B, S* C,
                                          const Tile& at) {
#if defined(NPU_EMU_CPU) && !defined(NPU_EMU_GEMM_THREADS)
    // (NPU_EMU_GEMM_THREADS: a test builds the CPU module with the GPU's way and compares.)
    if (at.mt == 1 && at.nt == 1) tile_threads<S>(p, A, B, C, at);   // a dot product: no panels
    else if (at.mt == 1) row_tile<S>(p, A, B, C, at);                 // a matrix times a vector
    else if constexpr (Parts<S>::complex) tile_complex<S>(p, A, B, C, at);
    else tile_real<S>(p, A, B, C, at);
#else
    const bool shared = blockDim.x * blockDim.y * blockDim.z * VIRTUAL == GPU_THREADS &&
                        at.mt >= SHARED_MIN_ROWS;
    if (shared) tile_shared<S>(p, A, B, C, at);
    else tile_threads<S>(p, A, B, C, at);      // a thin tile (a matrix times a vector)
#endif
}

// A block's tiles, p.per_block of them in turn (the host gives a CPU block about 16K
// products' worth: a batch of small products, vecdot's rows, would otherwise pay the hand-out
// of a block for each; a GPU block takes one).
template <typename S>
__device__ __forceinline__ void gemm_block(const GemmParams& p, const S* A, const S* B, S* C) {
    const int64_t first = static_cast<int64_t>(blockIdx.x) * p.per_block;
    const int64_t end = first + p.per_block < p.tiles ? first + p.per_block : p.tiles;
#if defined(NPU_EMU_CPU) && !defined(NPU_EMU_GEMM_THREADS)
    if (p.m == 1 && p.n == 1) {   // every tile one output: dot products side by side
        dot_lanes<S>(p, A, B, C, first, end);
        return;
    }
#endif
    for (int64_t t = first; t < end; ++t) gemm_tile<S>(p, A, B, C, tile_at(p, t));
}

}  // namespace gemm
}  // namespace npu_emu

// One kernel per dtype (the catalog in npu_emu/kernels/gemm.py).
#define NPU_EMU_GEMM_KERNEL(NAME, T)                                                              \
    extern "C" __global__ void NAME(const npu_emu::GemmParams p, const T* a, const T* b, T* c) { \
        npu_emu::gemm::gemm_block<T>(p, a, b, c);                                                \
    }                                                                                             \
    NPU_EMU_EXPORT(NAME)
