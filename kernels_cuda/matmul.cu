// The cube unit (docs/operators.md#aclnnmatmul), fractal by fractal: C (Nz, 16x16 fractals, as in L0C) = A x B,
// A in 16 x K0 fractals (Zz, or Nz on Ascend950: the host passes A's fractal strides), B in
// Zn (16 x K0 fractals holding B transposed, column-major inside), batched with broadcasting.
//
// One block computes one 16x16 output fractal: for each K fractal k1 (ascending), it loads
// A's fractal (m1, k1) and B's fractal (k1, n1) into shared memory (L0A, L0B) and adds their
// product to the fractal accumulator in shared memory (L0C). Threads split the fractal's
// elements, so any block size is correct, including 1 on the CPU.
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
    int64_t m1, n1, k1;                   // fractal counts
    int32_t batch_ndim;
    int32_t k0;                           // elements per fractal row of A and B (<= 32)
    int32_t a_kind, b_kind;               // operand kinds (matmul.cu's Kind)
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

struct LoadFloat {
    using Value = float;
    static __device__ __forceinline__ float load(const void* base, int64_t i, int32_t kind) {
        return load_operand(base, i, kind);
    }
};
struct LoadS8 {
    using Value = int32_t;
    static __device__ __forceinline__ int32_t load(const void* base, int64_t i, int32_t) {
        return load_operand_s8(base, i);
    }
};

// Fixpipe: L0C accumulator -> output element.
__device__ __forceinline__ float canonical(float x) {
    return x != x ? npu_emu::bits_as_float(0x7FC00000u) : x;
}
struct StoreF32 {
    using Storage = float;
    static __device__ __forceinline__ float store(float x) { return canonical(x); }
};
struct StoreF16 {
    using Storage = uint16_t;
    static __device__ __forceinline__ uint16_t store(float x) {
        return npu_emu::from_float<npu_emu::f16>(canonical(x)).bits;
    }
};
struct StoreBF16 {
    using Storage = uint16_t;
    static __device__ __forceinline__ uint16_t store(float x) {
        return npu_emu::from_float<npu_emu::bf16>(canonical(x)).bits;
    }
};
struct StoreS32 {
    using Storage = int32_t;
    static __device__ __forceinline__ int32_t store(int32_t x) { return x; }
};

// One fractal step's contribution to one accumulator.
__device__ __forceinline__ float fractal_step(float acc, const float* a, const float* b, int k0) {
    double partial = 0.0;
    for (int k = 0; k < k0; ++k) partial += static_cast<double>(a[k]) * static_cast<double>(b[k]);
    return acc + npu_emu::double_to_float(partial);
}
__device__ __forceinline__ int32_t fractal_step(int32_t acc, const int32_t* a, const int32_t* b, int k0) {
    uint32_t partial = 0;
    for (int k = 0; k < k0; ++k) partial += static_cast<uint32_t>(a[k] * b[k]);
    return static_cast<int32_t>(static_cast<uint32_t>(acc) + partial);
}

template <typename Load, typename Store>
__device__ __forceinline__ void cube_body(const CubeParams& p, const void* __restrict__ A,
                                          const void* __restrict__ B,
                                          typename Store::Storage* __restrict__ C) {
    using V = typename Load::Value;
    __shared__ V l0a[FRACTAL * MAX_K0];
    __shared__ V l0b[FRACTAL * MAX_K0];
    __shared__ V l0c[FRACTAL * FRACTAL];

    // Block -> (batch, n1, m1), m1 fastest: consecutive blocks write consecutive Nz fractals.
    int64_t id = blockIdx.x;
    const int64_t m1 = id % p.m1;
    id /= p.m1;
    const int64_t n1 = id % p.n1;
    id /= p.n1;
    int64_t a_off = m1 * p.a_m1, b_off = n1 * p.b_n1, c_off = m1 * p.c_m1 + n1 * p.c_n1;
    for (int d = 0; d < p.batch_ndim; ++d) {
        const int64_t i = id % p.batch_size[d];
        id /= p.batch_size[d];
        a_off += i * p.a_batch[d];
        b_off += i * p.b_batch[d];
        c_off += i * p.c_batch[d];
    }
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int nthreads = blockDim.x * blockDim.y;
    const int k0 = p.k0;
    const int fractal_elems = FRACTAL * k0;

    for (int e = tid; e < FRACTAL * FRACTAL; e += nthreads) l0c[e] = V(0);
    for (int64_t k1 = 0; k1 < p.k1; ++k1) {
        __syncthreads();
        const int64_t af = a_off + k1 * p.a_k1, bf = b_off + k1 * p.b_k1;
        for (int e = tid; e < fractal_elems; e += nthreads) {
            l0a[e] = Load::load(A, af + e, p.a_kind);
            l0b[e] = Load::load(B, bf + e, p.b_kind);
        }
        __syncthreads();
        for (int e = tid; e < FRACTAL * FRACTAL; e += nthreads) {
            const int m0 = e / FRACTAL, n0 = e % FRACTAL;
            l0c[e] = fractal_step(l0c[e], l0a + m0 * k0, l0b + n0 * k0, k0);
        }
    }
    __syncthreads();
    typename Store::Storage* cf = C + c_off;
    for (int e = tid; e < FRACTAL * FRACTAL; e += nthreads) cf[e] = Store::store(l0c[e]);
}

}  // namespace

#define NPU_EMU_CUBE_KERNEL(NAME, LOAD, STORE)                                                   \
    extern "C" __global__ void NAME(const CubeParams p, const void* A, const void* B,             \
                                    STORE::Storage* C) {                                          \
        cube_body<LOAD, STORE>(p, A, B, C);                                                       \
    }                                                                                             \
    NPU_EMU_EXPORT(NAME)

NPU_EMU_CUBE_KERNEL(cube_matmul_float_f32, LoadFloat, StoreF32)
NPU_EMU_CUBE_KERNEL(cube_matmul_float_f16, LoadFloat, StoreF16)
NPU_EMU_CUBE_KERNEL(cube_matmul_float_bf16, LoadFloat, StoreBF16)
NPU_EMU_CUBE_KERNEL(cube_matmul_s8_s32, LoadS8, StoreS32)
