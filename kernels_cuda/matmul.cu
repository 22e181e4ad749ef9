// The cube unit (docs/operators.md#aclnnmatmul), fractal by fractal: C (16x16 fractals, as in L0C) = A x B,
// A in 16 x K0 fractals, B in K0 x 16, batched with broadcasting. The host passes the strides
// between fractals and inside one: the fractal layouts' (A in Zz, or Nz on Ascend950; B in Zn,
// holding B transposed; C in Nz), whose padding holds zeros, or an ND view's own, whose
// elements past the matrices' sizes (CubeParams m, n, k) read as those zeros (C's are not
// written).
//
// One block computes one 16x16 output fractal (or CubeParams per_block of them in turn): for
// each K fractal k1 (ascending), it loads A's fractal (m1, k1) and B's fractal (k1, n1) into
// shared memory (L0A, L0B) and adds their product to the fractal accumulator in shared
// memory (L0C; on the CPU, where a block is one thread, the block's own locals). Threads
// split the fractal's outputs in strips (CUBE_STRIP: one output on a GPU, a row of 16 in
// vector lanes on the CPU), so any block size is correct, including 1 on the CPU.
//
// Accumulation model (npu_emu's; Huawei does not document the cube's adder tree), which fixes
// every bit of the result:
//   - operands are exact in float (fp16, bf16, HF32 and fp16-rounded fp32 have <= 24-bit
//     significands; fp32 is itself), so each product is exact in double;
//   - one fractal step's K0 products are summed in double in ascending k0 (the cube's wide
//     adder tree), and that partial sum is rounded once to fp32 (round to nearest even);
//   - the fp32 partial is added to the fp32 accumulator of L0C (round to nearest even), over
//     k1 ascending, starting from +0;
//   - the accumulator leaves L0C through the fixpipe: NaN is made canonical (0x7FC00000),
//     then rounded to the output dtype (fp16/bf16: round to nearest even).
//   int8 x int8 accumulates in int32 (two's-complement wrap), exactly.
//
// Kernels: cube_matmul_float_{f32,f16,bf16} (operands fp16/bf16/fp32 by CubeParams' kinds, the
// output dtype in the name), cube_matmul_s8_s32.
#include "npu_emu_common.cuh"
#include "npu_emu_convert.cuh"
#if defined(NPU_EMU_CPU)
#include <memory>
#include "npu_emu_lanes.cuh"   // wide8::widen
#endif

namespace npu_emu {

constexpr int CUBE_MAX_BATCH = 4;

struct CubeParams {
    int64_t batch_size[CUBE_MAX_BATCH];   // output batch dims, innermost first
    int64_t a_batch[CUBE_MAX_BATCH];      // element strides per batch dim (0: broadcast)
    int64_t b_batch[CUBE_MAX_BATCH];
    int64_t c_batch[CUBE_MAX_BATCH];
    int64_t a_m1, a_k1;                   // element strides between fractals
    int64_t b_k1, b_n1;
    int64_t c_m1, c_n1;
    int64_t a_m, a_k;                     // element strides inside a fractal: A (m0, k),
    int64_t b_n, b_k;                     // B (n0, k), C (m0, n0); the fractal layouts'
    int64_t c_m, c_n;                     // (K0, 1), (K0, 1), (16, 1), an ND view's own
    int64_t m, n, k;                      // the matrices' sizes: elements past them read as 0
    int64_t m1, n1, k1;                   // fractal counts                 (and C's unwritten)
    int64_t fractals;                     // output fractals in all (batch x n1 x m1)
    int32_t batch_ndim;
    int32_t k0;                           // elements per fractal row of A and B (<= 32)
    int32_t a_kind, b_kind;               // operand kinds (matmul.cu's Kind)
    int32_t per_block;                    // output fractals (outputs, per_output) a block computes
    int32_t per_output;                   // 1: N = 1, a thread per output (cube_body)
};

}  // namespace npu_emu

namespace {

using npu_emu::CubeParams;

constexpr int FRACTAL = 16;
constexpr int MAX_K0 = 32;

// Operand kinds (CubeParams::a_kind, b_kind): what the cube multiplies for each storage.
// Promotion and cube_math_type come down to a kind per operand (an fp16 operand under an
// fp32 mode is exact in fp32, HF32 and fp16 alike).
enum Kind : int32_t {
    KIND_F16 = 0,          // fp16 storage
    KIND_BF16 = 1,         // bf16 storage
    KIND_F32 = 2,          // fp32, kept (KEEP_DTYPE)
    KIND_F32_AS_F16 = 3,   // fp32 rounded to fp16 (Ascend910/310P down precision, USE_FP16)
    KIND_F32_AS_HF32 = 4,  // fp32 rounded to HF32 (ALLOW_FP32_DOWN_PRECISION, USE_HF32)
};

// HF32 (Huawei's "HFLOAT32": fp32's sign and exponent, 11 mantissa bits): the mantissa
// rounded to nearest even at bit 12; a carry may raise the exponent (to inf at the top).
__device__ __forceinline__ float to_hf32(float x) {
    const uint32_t b = npu_emu::float_as_bits(x);
    if ((b & 0x7FFFFFFFu) >= 0x7F800000u) return x;       // inf, NaN
    return npu_emu::bits_as_float((b + 0x7FFu + ((b >> 12) & 1u)) & ~0xFFFu);
}

__device__ __forceinline__ float load_operand(const void* base, int64_t i, int32_t kind) {
    switch (kind) {
        case KIND_F16: return npu_emu::to_float(npu_emu::f16{static_cast<const uint16_t*>(base)[i]});
        case KIND_BF16: return npu_emu::to_float(npu_emu::bf16{static_cast<const uint16_t*>(base)[i]});
        case KIND_F32_AS_F16:
            return npu_emu::to_float(npu_emu::from_float<npu_emu::f16>(static_cast<const float*>(base)[i]));
        case KIND_F32_AS_HF32: return to_hf32(static_cast<const float*>(base)[i]);
        default: return static_cast<const float*>(base)[i];
    }
}
__device__ __forceinline__ int32_t load_operand_s8(const void* base, int64_t i) {
    return static_cast<const int8_t*>(base)[i];
}

// What a fractal step needs of an operand kind: the element as the cube multiplies it (`load`),
// widened to the type its products are exact in (`Wide`), and one output's K0 products
// summed into its partial and added to its accumulator (`mac`, `finish`).
struct LoadFloat {
    static constexpr bool kinds = true;   // the operand kinds apply
    static constexpr int k0_narrow = 8, k0_wide = 16;   // K0 of fp32 and HF32; of fp16 and bf16
    using Value = float;       // the L0C accumulator
    using Wide = double;       // an operand element: the product of two is exact in double
    static __device__ __forceinline__ double load(const void* base, int64_t i, int32_t kind) {
        return static_cast<double>(load_operand(base, i, kind));
    }
    static __device__ __forceinline__ double mac(double part, double a, double b) { return part + a * b; }
    // The partial rounded to fp32 by the conversion itself: a NaN's payload, which
    // double_to_float keeps, cannot reach the output (the fixpipe makes every NaN canonical),
    // and the rule's NaN handling cost a third as much as the step's products (K0 8).
    static __device__ __forceinline__ float finish(float acc, double part) {
        return acc + static_cast<float>(part);
    }
};
struct LoadS8 {
    static constexpr bool kinds = false;
    static constexpr int k0_narrow = 32, k0_wide = 32;
    using Value = int32_t;
    using Wide = int32_t;
    static __device__ __forceinline__ int32_t load(const void* base, int64_t i, int32_t) {
        return load_operand_s8(base, i);
    }
    static __device__ __forceinline__ int32_t mac(int32_t part, int32_t a, int32_t b) {  // wraps
        return static_cast<int32_t>(static_cast<uint32_t>(part) + static_cast<uint32_t>(a * b));
    }
    static __device__ __forceinline__ int32_t finish(int32_t acc, int32_t part) {
        return static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(part));
    }
};

// Fixpipe: L0C accumulator -> output element i of C, of the kernel's output dtype (`out`: a
// constant of each kernel, passed down as a value so that one body serves every output dtype;
// see cube_body). store_as: for one output dtype; store_out: for `out`.
enum Out : int32_t { OUT_F32, OUT_F16, OUT_BF16, OUT_S32 };
__device__ __forceinline__ float canonical(float x) { return npu_emu::canonical_nan(x); }
template <int OUT>
__device__ __forceinline__ void store_as(void* C, int64_t i, float x) {
    if (OUT == OUT_F16) static_cast<uint16_t*>(C)[i] = npu_emu::from_float<npu_emu::f16>(canonical(x)).bits;
    else if (OUT == OUT_BF16) static_cast<uint16_t*>(C)[i] = npu_emu::from_float<npu_emu::bf16>(canonical(x)).bits;
    else static_cast<float*>(C)[i] = canonical(x);
}
template <int OUT>
__device__ __forceinline__ void store_as(void* C, int64_t i, int32_t x) {   // OUT_S32
    static_cast<int32_t*>(C)[i] = x;
}
template <typename V>
__device__ __forceinline__ void store_out(void* C, int64_t i, V x, int32_t out) {
    switch (out) {
        case OUT_F16: store_as<OUT_F16>(C, i, x); break;
        case OUT_BF16: store_as<OUT_BF16>(C, i, x); break;
        default: store_as<OUT_F32>(C, i, x); break;   // and OUT_S32 (an int32_t x)
    }
}

// The outputs one thread computes at a time: a strip of CUBE_STRIP consecutive elements of a
// fractal row. On a GPU one (a thread per output); on the CPU, where one thread runs the
// block, a whole row: its K0 products then go 16 outputs at a time in vector lanes (each
// output's partial sum in the same ascending order: the same bits). A test builds the CPU
// module with -DNPU_EMU_CUBE_STRIP=1, the GPU's shape, and compares.
#if !defined(NPU_EMU_CUBE_STRIP)
#if defined(NPU_EMU_CPU)
#define NPU_EMU_CUBE_STRIP 16
#else
#define NPU_EMU_CUBE_STRIP 1
#endif
#endif
constexpr int CUBE_STRIP = NPU_EMU_CUBE_STRIP;
// The CPU's whole-row strips go in groups of this many rows (cube_fractal).
constexpr int CUBE_ROWS = 4;
// The most a CPU block's packed panel of B tiles takes (cube_block): 128 KiB for K 1024.
constexpr int64_t CUBE_PANEL_BYTES = int64_t(4) << 20;
static_assert(FRACTAL % CUBE_STRIP == 0, "a strip lies in one fractal row");

// On the CPU a block is one thread: its tiles are its own locals (a __shared__ array there is
// thread_local, each access a TLS lookup), and a strip's outputs go in vector lanes.
#if defined(NPU_EMU_CPU)
#define NPU_EMU_CUBE_TILE
#define NPU_EMU_CUBE_LANES _Pragma("omp simd")
#else
#define NPU_EMU_CUBE_TILE __shared__
#define NPU_EMU_CUBE_LANES
#endif

#if defined(NPU_EMU_CPU)
// Eight floats as doubles (exact), in vector lanes: the fills' float32 fractal rows of K0 and
// dots8's products. By vcvtps2pd where AVX-512F has it (lanes::to_double): GCC 12 splits
// __builtin_convertvector's eight lanes into two halves and an insert, three more shuffles on
// the port the transposes need (float32 vecdot of 256 x 4096, one thread, 436 -> 312 us with
// dots8's whole steps loaded directly; a 512 x 512 float32 matmul 10.8-11.3 -> 9.7-10.4 ms).
namespace wide8 {
typedef double D8 __attribute__((vector_size(64)));
typedef float F8 __attribute__((vector_size(32)));
inline D8 widen(F8 f) {
#if defined(NPU_EMU_LANES8)
    return npu_emu::lanes::to_double(f);
#else
    return __builtin_convertvector(f, D8);
#endif
}
inline D8 load(const float* s) {   // s[0, 8)
    F8 f;
    std::memcpy(&f, s, sizeof f);
    return widen(f);
}
}  // namespace wide8
#endif

// t[j * step] = element at + j of a contiguous run of n (<= MAX_K0 and <= FRACTAL) as the
// cube multiplies it. fp16 on a CPU with F16C: converted by the instruction (exact on every
// number; a NaN stays a NaN, and the payload that to_float keeps never reaches the output:
// the fixpipe makes every NaN canonical), sixteen at a time where the generic conversion
// was a third of a float16 product's time.
template <typename Load, int Kind>
__device__ __forceinline__ void load_run(typename Load::Wide* t, int step, const void* base,
                                         int64_t at, int n) {
#if defined(NPU_EMU_F16C)
    if constexpr (Load::kinds && Kind == KIND_F16) {
        float f[MAX_K0];
        npu_emu::f16c_to_floats(f, static_cast<const npu_emu::f16*>(base) + at, n);
        for (int j = 0; j < n; ++j) t[j * step] = static_cast<typename Load::Wide>(f[j]);
        return;
    }
#endif
#if defined(NPU_EMU_CPU)
    if constexpr (Load::kinds && Kind == KIND_F32) {
        if (n == 8 && step == 1) {      // a float32 fractal row of K0: eight widened at once
            const wide8::D8 d = wide8::load(static_cast<const float*>(base) + at);
            std::memcpy(t, &d, sizeof d);
            return;
        }
    }
#endif
    for (int j = 0; j < n; ++j) t[j * step] = Load::load(base, at + j, Kind);
}

// One operand's fractal into its tile, as the cube multiplies its elements (Kind: the
// operand's, a constant here, so the conversion is chosen once per fractal, not per element):
// element (r, c) (A: m0, k; B: n0, k) at off + r rs + c cs; columns past `cols` read as +0
// (the padding of a fractal layout holds zeros; an ND view has none) and rows past `rows` are
// left as they are (cube_fractal clears the tiles first). Transposed: B's, stored as (k, n0).
// The loop runs along the operand's unit stride (an ND B's n0, a fractal's k).
template <typename Load, int Kind, bool Transposed>
__device__ __forceinline__ void fill_kind(typename Load::Wide* tile, const void* base, int64_t off,
                                          int64_t rs, int64_t cs, int64_t rows, int64_t cols,
                                          int k0, int tid, int nthreads) {
    using W = typename Load::Wide;
    const int nr = rows < FRACTAL ? static_cast<int>(rows) : FRACTAL;
    const int nc = cols < k0 ? static_cast<int>(cols) : k0;
    // (Each loop below is a plain one, its bounds hoisted, so that the CPU's vectorizes.)
    if (rs == 1 && cs != 1) {                  // down the rows first (threads split columns)
        for (int c = tid; c < k0; c += nthreads) {
            W* t = Transposed ? tile + c * FRACTAL : tile + c;
            const int step = Transposed ? 1 : k0;
            if (c < nc) {
                load_run<Load, Kind>(t, step, base, off + c * cs, nr);
            } else {
                for (int r = 0; r < nr; ++r) t[r * step] = W(0);
            }
        }
    } else {                                   // along a row first (threads split rows)
        for (int r = tid; r < nr; r += nthreads) {
            const int64_t at = off + r * rs;
            W* t = Transposed ? tile + r : tile + r * k0;
            const int step = Transposed ? FRACTAL : 1;
            if (cs == 1) {
                load_run<Load, Kind>(t, step, base, at, nc);
            } else {
                for (int c = 0; c < nc; ++c) t[c * step] = Load::load(base, at + c * cs, Kind);
            }
            for (int c = nc; c < k0; ++c) t[c * step] = W(0);
        }
    }
}

template <typename Load, bool Transposed>
__device__ __forceinline__ void fill(typename Load::Wide* tile, const void* base, int64_t off,
                                     int64_t rs, int64_t cs, int64_t rows, int64_t cols,
                                     int32_t kind, int k0, int tid, int nthreads) {
#define NPU_EMU_CUBE_FILL(KIND) \
    fill_kind<Load, KIND, Transposed>(tile, base, off, rs, cs, rows, cols, k0, tid, nthreads)
    switch (Load::kinds ? kind : KIND_F32) {
        case KIND_F16: NPU_EMU_CUBE_FILL(KIND_F16); break;
        case KIND_BF16: NPU_EMU_CUBE_FILL(KIND_BF16); break;
        case KIND_F32_AS_F16: NPU_EMU_CUBE_FILL(KIND_F32_AS_F16); break;
        case KIND_F32_AS_HF32: NPU_EMU_CUBE_FILL(KIND_F32_AS_HF32); break;
        default: NPU_EMU_CUBE_FILL(KIND_F32); break;
    }
#undef NPU_EMU_CUBE_FILL
}

// Output fractal -> (batch, n1, m1), m1 fastest (consecutive ones are consecutive Nz
// fractals): the element offsets of its A, B and C fractals, and its m1 and n1.
struct FractalAt {
    int64_t a_off, b_off, c_off, m1, n1;
};
__device__ __forceinline__ FractalAt fractal_at(const CubeParams& p, int64_t id) {
    const int64_t m1 = id % p.m1;
    id /= p.m1;
    const int64_t n1 = id % p.n1;
    id /= p.n1;
    FractalAt f{m1 * p.a_m1, n1 * p.b_n1, m1 * p.c_m1 + n1 * p.c_n1, m1, n1};
    for (int d = 0; d < p.batch_ndim; ++d) {
        const int64_t i = id % p.batch_size[d];
        id /= p.batch_size[d];
        f.a_off += i * p.a_batch[d];
        f.b_off += i * p.b_batch[d];
        f.c_off += i * p.c_batch[d];
    }
    return f;
}

// One output alone (N = 1: an output column), from A's row at a_off and B's column at b_off:
// its K0 products per step straight from the operands, no tiles. Elements past K are left
// out where the tiles add 0 x 0 products: a partial sum that starts from +0 is never -0, so
// adding +0 leaves it as it is (the bits of the tile path). KA, KB: the operands' kinds, -1
// when read from p (mixed kinds).
template <typename Load, int KA, int KB, int K0_>
__device__ __forceinline__ typename Load::Value cube_dot(const CubeParams& p, const void* __restrict__ A,
                                                         const void* __restrict__ B,
                                                         int64_t a_off, int64_t b_off, int k0) {
    using V = typename Load::Value;
    using W = typename Load::Wide;
    const int32_t ka = KA < 0 ? p.a_kind : KA, kb = KB < 0 ? p.b_kind : KB;
    V acc = V(0);
    for (int64_t k1 = 0; k1 < p.k1; ++k1) {
        const int64_t af = a_off + k1 * p.a_k1, bf = b_off + k1 * p.b_k1;
        const int64_t k_left = p.k - k1 * k0;
        W part = W(0);
        if (k_left >= k0) {              // a whole step (K0_ known: unrolled)
            for (int k = 0; k < (K0_ ? K0_ : k0); ++k)
                part = Load::mac(part, Load::load(A, af + k * p.a_k, ka), Load::load(B, bf + k * p.b_k, kb));
        } else {
            for (int k = 0; k < k_left; ++k)
                part = Load::mac(part, Load::load(A, af + k * p.a_k, ka), Load::load(B, bf + k * p.b_k, kb));
        }
        acc = Load::finish(acc, part);
    }
    return acc;
}

template <typename Load, int K0_>
__device__ __forceinline__ typename Load::Value cube_dot_kinds(const CubeParams& p, const void* A,
                                                               const void* B, int64_t a_off,
                                                               int64_t b_off, int k0) {
#define NPU_EMU_CUBE_DOT(KIND) return cube_dot<Load, KIND, KIND, K0_>(p, A, B, a_off, b_off, k0)
    if (!Load::kinds || p.a_kind == p.b_kind) {
        switch (Load::kinds ? p.a_kind : KIND_F32) {
            case KIND_F16: NPU_EMU_CUBE_DOT(KIND_F16);
            case KIND_BF16: NPU_EMU_CUBE_DOT(KIND_BF16);
            case KIND_F32_AS_F16: NPU_EMU_CUBE_DOT(KIND_F32_AS_F16);
            case KIND_F32_AS_HF32: NPU_EMU_CUBE_DOT(KIND_F32_AS_HF32);
            default: NPU_EMU_CUBE_DOT(KIND_F32);
        }
    }
#undef NPU_EMU_CUBE_DOT
    return cube_dot<Load, -1, -1, K0_>(p, A, B, a_off, b_off, k0);
}

// The block's fractal; K0_ is the operands' K0 where the kernel knows it (8, 16 or 32: the
// divisions and the loops over k then unroll), 0 for any other p.k0.
template <typename Load, int K0_>
__device__ __forceinline__ void cube_fractal(const CubeParams& p, const void* __restrict__ A,
                                             const void* __restrict__ B, void* __restrict__ C,
                                             int32_t out, int64_t fractal,
                                             const typename Load::Wide* b_panel = nullptr) {
    using V = typename Load::Value;
    using W = typename Load::Wide;
    NPU_EMU_CUBE_TILE W l0a[FRACTAL * MAX_K0];   // A's fractal: 16 rows (m0) of K0
    NPU_EMU_CUBE_TILE W l0b[MAX_K0 * FRACTAL];   // B's fractal transposed: K0 rows of 16 (n0)
    NPU_EMU_CUBE_TILE V l0c[FRACTAL * FRACTAL];
    __syncthreads();     // the block's previous fractal is stored

    const FractalAt at = fractal_at(p, fractal);
    const int64_t m1 = at.m1, n1 = at.n1, a_off = at.a_off, b_off = at.b_off, c_off = at.c_off;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int nthreads = blockDim.x * blockDim.y;
    const int k0 = K0_ ? K0_ : p.k0;
    const int64_t m_left = p.m - m1 * FRACTAL, n_left = p.n - n1 * FRACTAL;   // rows, columns
    const int rows = m_left < FRACTAL ? static_cast<int>(m_left) : FRACTAL;   // those written
    const int cols = n_left < FRACTAL ? static_cast<int>(n_left) : FRACTAL;
    // One output column (a matrix times a vector) on the CPU: each row's output alone, the
    // rows in vector lanes, not a strip of 16 lanes of which one is kept (the same sums).
    const bool one_column = CUBE_STRIP > 1 && cols == 1;

    // The fills write every row of the fractal that is read, and every column; B's rows past
    // N (lanes of a strip, computed and not stored) read as zeros.
    for (int e = tid; e < rows * FRACTAL; e += nthreads) l0c[e] = V(0);
    if (cols < FRACTAL && !one_column)
        for (int e = tid; e < k0 * FRACTAL; e += nthreads) l0b[e] = W(0);
    for (int64_t k1 = 0; k1 < p.k1; ++k1) {
        __syncthreads();
        const int64_t af = a_off + k1 * p.a_k1, bf = b_off + k1 * p.b_k1;
        const int64_t k_left = p.k - k1 * k0;
        fill<Load, false>(l0a, A, af, p.a_m, p.a_k, m_left, k_left, p.a_kind, k0, tid, nthreads);
#if defined(NPU_EMU_CPU)
        // B's fractal as the block packed it (cube_block): the same tile, filled once.
        const W* const l0b_step = b_panel ? b_panel + k1 * k0 * FRACTAL : l0b;
        if (!b_panel)
#else
        const W* const l0b_step = l0b;
#endif
        fill<Load, true>(l0b, B, bf, p.b_n, p.b_k, n_left, k_left, p.b_kind, k0, tid, nthreads);
        __syncthreads();
        // One step: each output's K0 products summed in ascending k into its partial, which
        // joins the output's accumulator.
        if (one_column) {
            for (int m0 = tid; m0 < rows; m0 += nthreads) {
                W part = W(0);
                for (int k = 0; k < k0; ++k) part = Load::mac(part, l0a[m0 * k0 + k], l0b_step[k * FRACTAL]);
                l0c[m0 * FRACTAL] = Load::finish(l0c[m0 * FRACTAL], part);
            }
            continue;
        }
        int s0 = tid;
#if defined(NPU_EMU_CPU)
        if constexpr (CUBE_STRIP == FRACTAL) {
            // Rows in groups of CUBE_ROWS: their partial sums are independent chains of
            // additions, interleaved (one row's chain waits on each addition's latency:
            // float32 512^2 36 -> 40 GFLOP/s). Each output's sum is the same.
            for (; s0 + CUBE_ROWS <= rows; s0 += CUBE_ROWS) {
                W part[CUBE_ROWS][FRACTAL];
                for (int r = 0; r < CUBE_ROWS; ++r) {
                    NPU_EMU_CUBE_LANES
                    for (int j = 0; j < FRACTAL; ++j) part[r][j] = W(0);
                }
                for (int k = 0; k < k0; ++k) {
                    const W* b = l0b_step + k * FRACTAL;
                    for (int r = 0; r < CUBE_ROWS; ++r) {
                        const W a = l0a[(s0 + r) * k0 + k];
                        NPU_EMU_CUBE_LANES
                        for (int j = 0; j < FRACTAL; ++j) part[r][j] = Load::mac(part[r][j], a, b[j]);
                    }
                }
                for (int r = 0; r < CUBE_ROWS; ++r) {
                    V* c = l0c + (s0 + r) * FRACTAL;
                    NPU_EMU_CUBE_LANES
                    for (int j = 0; j < FRACTAL; ++j) c[j] = Load::finish(c[j], part[r][j]);
                }
            }
        }
#endif
        for (int s = s0; s < FRACTAL * FRACTAL / CUBE_STRIP; s += nthreads) {
            const int e0 = s * CUBE_STRIP, m0 = e0 / FRACTAL, n0 = e0 % FRACTAL;
            if (m0 >= m_left) continue;    // a row past A's edge: never written
            W part[CUBE_STRIP];
            NPU_EMU_CUBE_LANES
            for (int j = 0; j < CUBE_STRIP; ++j) part[j] = W(0);
            for (int k = 0; k < k0; ++k) {
                const W a = l0a[m0 * k0 + k];
                const W* b = l0b_step + k * FRACTAL + n0;
                NPU_EMU_CUBE_LANES
                for (int j = 0; j < CUBE_STRIP; ++j) part[j] = Load::mac(part[j], a, b[j]);
            }
            NPU_EMU_CUBE_LANES
            for (int j = 0; j < CUBE_STRIP; ++j) l0c[e0 + j] = Load::finish(l0c[e0 + j], part[j]);
        }
    }
    __syncthreads();
    // The output dtype chosen once for the fractal's outputs.
#define NPU_EMU_CUBE_STORE(OUT)                                                                 \
    for (int e = tid; e < rows * FRACTAL; e += nthreads) {                                      \
        const int m0 = e / FRACTAL, n0 = e % FRACTAL;                                           \
        if (n0 < cols) store_as<OUT>(C, c_off + m0 * p.c_m + n0 * p.c_n, l0c[e]);              \
    }
    switch (out) {
        case OUT_F16: NPU_EMU_CUBE_STORE(OUT_F16); break;
        case OUT_BF16: NPU_EMU_CUBE_STORE(OUT_BF16); break;
        default: NPU_EMU_CUBE_STORE(OUT_F32); break;   // and OUT_S32
    }
#undef NPU_EMU_CUBE_STORE
}

#if defined(NPU_EMU_CPU)
// The CPU's per_output launches (vecdot; a matrix times a vector) of float32 operands whose
// K0 elements lie contiguous (ND rows, or the fractals' own rows), eight outputs at a time
// (output i: row i % R of fractal i / R, as in cube_block). A fractal step
// multiplies each output's eight elements in double lanes (exact), transposes the eight
// outputs' products (an 8 x 8 transpose of shuffles) so that vector k holds every output's
// k-th product, and adds those vectors in ascending k to the outputs' partials, one output a
// lane: each output's sum is the model's, in its order (cube_dot's bits; a step past K adds
// +0 products, which leave a partial that starts from +0 as it is). One output at a time, a
// dot of 4000 was latency-bound scalar code (vecdot at 0.56x NumPy). A row past M (the last
// fractal's) is computed from a valid row and not stored.
namespace dots8 {
using wide8::D8;
using wide8::F8;
typedef int64_t I8 __attribute__((vector_size(64)));

inline D8 load_short(const float* s, int64_t n) {   // s[0, n) of the short last step, zeros past n
    F8 f = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t j = 0; j < n; ++j) f[j] = s[j];
    return wide8::widen(f);
}

// t[k] = lane k of each of p[0..8): the transpose of the 8 x 8 matrix whose rows are p.
inline void transpose(const D8* p, D8* t) {
    const I8 lo1 = {0, 8, 2, 10, 4, 12, 6, 14}, hi1 = {1, 9, 3, 11, 5, 13, 7, 15};
    const I8 lo2 = {0, 1, 8, 9, 4, 5, 12, 13}, hi2 = {2, 3, 10, 11, 6, 7, 14, 15};
    const I8 lo4 = {0, 1, 2, 3, 8, 9, 10, 11}, hi4 = {4, 5, 6, 7, 12, 13, 14, 15};
    D8 a[8], b[8];
    for (int j = 0; j < 8; j += 2) {      // a[j]: rows j, j+1 at even k; a[j+1]: at odd k
        a[j] = __builtin_shuffle(p[j], p[j + 1], lo1);
        a[j + 1] = __builtin_shuffle(p[j], p[j + 1], hi1);
    }
    for (int j = 0; j < 8; j += 4) {      // rows j..j+3: b[j] at k = 0, 4; b[j+1] 1, 5; b[j+2]
        b[j] = __builtin_shuffle(a[j], a[j + 2], lo2);          // 2, 6; b[j+3] 3, 7
        b[j + 2] = __builtin_shuffle(a[j], a[j + 2], hi2);
        b[j + 1] = __builtin_shuffle(a[j + 1], a[j + 3], lo2);
        b[j + 3] = __builtin_shuffle(a[j + 1], a[j + 3], hi2);
    }
    for (int j = 0; j < 4; ++j) {         // b[j]: rows 0..3 at k = j, j + 4; b[j+4]: rows 4..7
        t[j] = __builtin_shuffle(b[j], b[j + 4], lo4);
        t[j + 4] = __builtin_shuffle(b[j], b[j + 4], hi4);
    }
}
}  // namespace dots8

// Outputs [i, end) of a per_output launch by eights where dots8 applies; returns where the
// one-at-a-time loop goes on.
template <typename Load>
__attribute__((noinline)) int64_t cube_dots8(const CubeParams& p, const void* __restrict__ A,
                                              const void* __restrict__ B, void* __restrict__ C,
                                              int32_t out, int64_t i, int64_t end) {
    if constexpr (!Load::kinds) {
        return i;
    } else {
        if (p.k0 != 8 || p.a_kind != KIND_F32 || p.b_kind != KIND_F32 || p.a_k != 1 || p.b_k != 1)
            return i;
        using dots8::D8;
        using dots8::F8;
        const float* a = static_cast<const float*>(A);
        const float* b = static_cast<const float*>(B);
        const int64_t r = p.m < FRACTAL ? p.m : FRACTAL;   // outputs per fractal (cube_block)
        for (; i + 8 <= end; i += 8) {
            int64_t a_off[8], b_off[8], c_off[8];
            bool live[8];
            for (int o = 0; o < 8; ++o) {
                const FractalAt at = fractal_at(p, (i + o) / r);
                const int64_t m0 = (i + o) % r;
                live[o] = at.m1 * FRACTAL + m0 < p.m;    // else past M: computed from row 0, not stored
                a_off[o] = at.a_off + (live[o] ? m0 : 0) * p.a_m, b_off[o] = at.b_off;
                c_off[o] = at.c_off + m0 * p.c_m;
            }
            F8 acc = {0, 0, 0, 0, 0, 0, 0, 0};
            const int64_t whole = p.k / 8;      // steps of eight elements; then one short one
            for (int64_t k1 = 0; k1 < p.k1; ++k1) {
                D8 prod[8], byk[8];
                if (k1 < whole) {
                    for (int o = 0; o < 8; ++o)
                        prod[o] = wide8::load(a + a_off[o] + k1 * p.a_k1) *
                                  wide8::load(b + b_off[o] + k1 * p.b_k1);
                } else {
                    const int64_t k_left = p.k - k1 * 8;
                    for (int o = 0; o < 8; ++o)
                        prod[o] = dots8::load_short(a + a_off[o] + k1 * p.a_k1, k_left) *
                                  dots8::load_short(b + b_off[o] + k1 * p.b_k1, k_left);
                }
                dots8::transpose(prod, byk);
                D8 part = {0, 0, 0, 0, 0, 0, 0, 0};
                for (int k = 0; k < 8; ++k) part = part + byk[k];
                acc = acc + __builtin_convertvector(part, F8);   // LoadFloat::finish, in lanes
            }
            for (int o = 0; o < 8; ++o)
                if (live[o]) store_out(C, c_off[o], acc[o], out);
        }
        return i;
    }
}
#endif

#if defined(NPU_EMU_CPU)
// B's column of fractals at b_off (n_left of its columns within N) as the panel of the tiles
// cube_fractal's fill would make, step by step (cube_block). One function per operand type,
// whatever the K0 (kept out of each K0's body: the module's build time).
template <typename Load>
__attribute__((noinline)) void pack_b_panel(const CubeParams& p, const void* __restrict__ B,
                                            int64_t b_off, int64_t n_left, int k0,
                                            typename Load::Wide* panel) {
    using W = typename Load::Wide;
    for (int64_t k1 = 0; k1 < p.k1; ++k1) {
        W* tile = panel + k1 * k0 * FRACTAL;
        if (n_left < FRACTAL)   // columns past N read as zeros, as cube_fractal's tile
            for (int e = 0; e < k0 * FRACTAL; ++e) tile[e] = W(0);
        fill<Load, true>(tile, B, b_off + k1 * p.b_k1, p.b_n, p.b_k, n_left, p.k - k1 * k0,
                         p.b_kind, k0, 0, 1);
    }
}
#endif

// A block computes p.per_block consecutive output fractals in turn, all its threads on each.
// Where p.per_output (N = 1: vecdot's 1 x K by K x 1 products, a matrix times a vector; the
// host sets it on a GPU, and on the CPU for M = 1 alone, where the one-column step's rows in
// lanes are faster), the outputs are split instead, a cube_dot each: output i is row i % R of
// fractal i / R (R = min(M, 16)), and a block takes p.per_block outputs (the host gives a
// GPU block as many as it has threads, a CPU block, one thread, about 8192 elements of each
// operand: handing out a block costs about as much as a short dot product).
template <typename Load, int K0_>
__device__ __forceinline__ void cube_block(const CubeParams& p, const void* __restrict__ A,
                                           const void* __restrict__ B, void* __restrict__ C,
                                           int32_t out) {
    const int64_t first = static_cast<int64_t>(blockIdx.x) * p.per_block;
    if (p.per_output) {
        const int64_t r = p.m < FRACTAL ? p.m : FRACTAL, outputs = p.fractals * r;
        const int64_t end = first + p.per_block < outputs ? first + p.per_block : outputs;
        const int tid = threadIdx.y * blockDim.x + threadIdx.x;
        int64_t from = first;
#if defined(NPU_EMU_CPU)
        from = cube_dots8<Load>(p, A, B, C, out, first, end);
#endif
        for (int64_t i = from + tid; i < end; i += blockDim.x * blockDim.y) {
            const FractalAt at = fractal_at(p, i / r);
            const int64_t m0 = i % r;
            if (at.m1 * FRACTAL + m0 >= p.m) continue;      // past M in the last fractal
            const typename Load::Value v = cube_dot_kinds<Load, K0_>(
                p, A, B, at.a_off + m0 * p.a_m, at.b_off, K0_ ? K0_ : p.k0);
            store_out(C, at.c_off + m0 * p.c_m, v, out);
        }
        return;
    }
    const int64_t end = first + p.per_block < p.fractals ? first + p.per_block : p.fractals;
    typename Load::Wide* panel = nullptr;
#if defined(NPU_EMU_CPU)
    // A block's fractals (consecutive m1) share B's column of fractals until n1 or the batch
    // changes: it is converted into a panel of B tiles once for them, not read again for each
    // (an ND B whose rows lie 4 KiB apart maps that column to a few cache sets, which could
    // not hold it: a 1024^2 float32 product 71 -> 42 ms). The panel holds what fill puts in
    // each step's tile, so the bits are the same. Up to CUBE_PANEL_BYTES; past that, as the
    // GPU does. (One call of cube_fractal below, with or without a panel: a second one doubled
    // the module's build time.)
    using W = typename Load::Wide;
    const int k0 = K0_ ? K0_ : p.k0;
    const int64_t panel_elems = p.k1 * k0 * FRACTAL;
    if (p.per_block > 1 && panel_elems * static_cast<int64_t>(sizeof(W)) <= CUBE_PANEL_BYTES) {
        thread_local std::unique_ptr<W[]> kept;   // a worker's, freed when it ends
        thread_local int64_t kept_elems = 0;
        if (kept_elems < panel_elems) {
            kept.reset(new W[panel_elems]);
            kept_elems = panel_elems;
        }
        panel = kept.get();
    }
    int64_t packed_b = -1, packed_n1 = -1;   // the column the panel holds
#endif
    for (int64_t f = first; f < end; ++f) {
#if defined(NPU_EMU_CPU)
        if (panel) {
            const FractalAt at = fractal_at(p, f);
            if (at.b_off != packed_b || at.n1 != packed_n1) {
                pack_b_panel<Load>(p, B, at.b_off, p.n - at.n1 * FRACTAL, k0, panel);
                packed_b = at.b_off, packed_n1 = at.n1;
            }
        }
#endif
        cube_fractal<Load, K0_>(p, A, B, C, out, f, panel);
    }
}

// One body per operand type, whatever the output dtype: on the CPU a function of its own,
// which each kernel calls, with only the K0s that type has known to the compiler (the host's
// c0 of its kinds; any other p.k0 takes the general loops). Inlined into each kernel, for
// each output dtype and for every K0, the bodies took g++ -O3 about four times as long for
// this module (old and new built in turns: 53-69 s -> 13-18 s; a user's first matmul waits for
// it), with the same speed. A GPU inlines it.
// The same arithmetic either way: no bit changes.
#if defined(NPU_EMU_CPU)
#define NPU_EMU_CUBE_BODY __attribute__((noinline))
#else
#define NPU_EMU_CUBE_BODY __forceinline__
#endif
template <typename Load>
__device__ NPU_EMU_CUBE_BODY void cube_body(const CubeParams& params, const void* __restrict__ A,
                                           const void* __restrict__ B, void* __restrict__ C,
                                           int32_t out) {
#if defined(NPU_EMU_CPU)
    const CubeParams p = params;   // a copy of its own: no store through C can change it
#else
    const CubeParams& p = params;  // the kernel's parameter space, read as it is
#endif
    if (p.k0 == Load::k0_narrow) cube_block<Load, Load::k0_narrow>(p, A, B, C, out);
    else if (p.k0 == Load::k0_wide) cube_block<Load, Load::k0_wide>(p, A, B, C, out);
    else cube_block<Load, 0>(p, A, B, C, out);
}

}  // namespace

#define NPU_EMU_CUBE_KERNEL(NAME, LOAD, STORAGE, OUT)                                            \
    extern "C" __global__ void NAME(const CubeParams p, const void* A, const void* B,             \
                                    STORAGE* C) {                                                 \
        cube_body<LOAD>(p, A, B, C, OUT);                                                         \
    }                                                                                             \
    NPU_EMU_EXPORT(NAME)

NPU_EMU_CUBE_KERNEL(cube_matmul_float_f32, LoadFloat, float, OUT_F32)
NPU_EMU_CUBE_KERNEL(cube_matmul_float_f16, LoadFloat, uint16_t, OUT_F16)
NPU_EMU_CUBE_KERNEL(cube_matmul_float_bf16, LoadFloat, uint16_t, OUT_BF16)
NPU_EMU_CUBE_KERNEL(cube_matmul_s8_s32, LoadS8, int32_t, OUT_S32)
