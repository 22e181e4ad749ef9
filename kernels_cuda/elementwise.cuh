// Elementwise binary kernels of aclnnAdd / aclnnMul (docs/operators.md): out = a (op) b over a
// broadcast iteration space (IterParams<3>: operand 0 = out, 1 = a, 2 = b), all three of one
// storage type T (the operator casts inputs to the promoted type first, as CANN does).
//
//   add     out = a + b
//   mul     out = a * b
//   muladd  out = a + (b * alpha)            each step rounded in T (CANN: Mul then Add)
//   axpy    out = a + b * alpha, CANN's Axpy: f16/bf16 compute in f32, f32 in f64,
//           s32 in f32 then converted back (math/axpy golden); alpha is a float
//
// fp16/bf16 arithmetic is done in float and rounded once per operation: for + and * that is
// exactly the IEEE half/bfloat16 result (float has > 2p+2 bits). Integers wrap (two's
// complement), bool is logical (or for +, and for *), complex uses the textbook formulas
// with no fused multiply-add (both backends compile with contraction off).
//
// NaN results are canonical. Every floating-point result that is NaN is stored as the
// positive quiet NaN of its type, whatever the payloads and signs of the NaN inputs:
//   f32 0x7FC00000   f64 0x7FF8000000000000   f16 0x7E00   bf16 0x7FC0
//   c64 / c128: each part on its own (a NaN real part does not touch the imaginary part).
// Why: the NPU's vector unit does not propagate NaN payloads (npu_emu's model, the choice the
// cube's fixpipe makes in matmul.cu), and left alone the two backends would disagree: x86
// keeps the first NaN operand's payload and sign, NVIDIA GPUs return 0x7FFFFFFF. So both
// backends canonicalize explicitly, after each rounding to the storage type (muladd: after
// its final add; axpy: after the conversion back). Conversions (npu_emu_convert.cuh) are not
// arithmetic and keep their own documented NaN rules.
#pragma once
#include "npu_emu_common.cuh"
#include "npu_emu_index.cuh"
#include "npu_emu_convert.cuh"

namespace {

using npu_emu::IterParams;

using npu_emu::canonical_nan;   // the canonical NaN of each float type (npu_emu_convert.cuh)

// Arithmetic on one storage type.
template <typename T> struct Arith {  // float, double
    static NPU_EMU_HD T add(T a, T b) { return canonical_nan(a + b); }
    static NPU_EMU_HD T mul(T a, T b) { return canonical_nan(a * b); }
};

template <typename T, typename U> struct WrapArith {  // integers: wrap via the unsigned type
    static NPU_EMU_HD T add(T a, T b) { return static_cast<T>(static_cast<U>(a) + static_cast<U>(b)); }
    static NPU_EMU_HD T mul(T a, T b) { return static_cast<T>(static_cast<U>(a) * static_cast<U>(b)); }
};
template <> struct Arith<int8_t> : WrapArith<int8_t, uint32_t> {};
template <> struct Arith<uint8_t> : WrapArith<uint8_t, uint32_t> {};
template <> struct Arith<int16_t> : WrapArith<int16_t, uint32_t> {};
template <> struct Arith<int32_t> : WrapArith<int32_t, uint32_t> {};
template <> struct Arith<int64_t> : WrapArith<int64_t, uint64_t> {};

template <typename H> struct HalfArith {  // f16, bf16: float arithmetic, one rounding per op
    // A canonical float NaN converts to the canonical f16 / bf16 NaN.
    static NPU_EMU_HD H add(H a, H b) {
        return npu_emu::convert<H>(canonical_nan(npu_emu::convert<float>(a) + npu_emu::convert<float>(b)));
    }
    static NPU_EMU_HD H mul(H a, H b) {
        return npu_emu::convert<H>(canonical_nan(npu_emu::convert<float>(a) * npu_emu::convert<float>(b)));
    }
};
template <> struct Arith<npu_emu::f16> : HalfArith<npu_emu::f16> {};
template <> struct Arith<npu_emu::bf16> : HalfArith<npu_emu::bf16> {};

template <> struct Arith<npu_emu::boolean> {
    static NPU_EMU_HD npu_emu::boolean add(npu_emu::boolean a, npu_emu::boolean b) {
        npu_emu::boolean r; r.v = (a.v | b.v) ? 1 : 0; return r;
    }
    static NPU_EMU_HD npu_emu::boolean mul(npu_emu::boolean a, npu_emu::boolean b) {
        npu_emu::boolean r; r.v = (a.v & b.v) ? 1 : 0; return r;
    }
};

template <typename Cx> struct ComplexArith {
    static NPU_EMU_HD Cx add(Cx a, Cx b) {
        Cx r;
        r.re = canonical_nan(a.re + b.re);
        r.im = canonical_nan(a.im + b.im);
        return r;
    }
    static NPU_EMU_HD Cx mul(Cx a, Cx b) {
        Cx r;
        r.re = canonical_nan(a.re * b.re - a.im * b.im);
        r.im = canonical_nan(a.re * b.im + a.im * b.re);
        return r;
    }
};
template <> struct Arith<npu_emu::c64> : ComplexArith<npu_emu::c64> {};
template <> struct Arith<npu_emu::c128> : ComplexArith<npu_emu::c128> {};

// CANN's Axpy (float alpha), per its kernel golden.
template <typename T> struct Axpy;
template <> struct Axpy<npu_emu::f16> {
    static NPU_EMU_HD npu_emu::f16 run(npu_emu::f16 a, npu_emu::f16 b, float alpha) {
        const float prod = npu_emu::convert<float>(b) * alpha;
        return npu_emu::convert<npu_emu::f16>(canonical_nan(npu_emu::convert<float>(a) + prod));
    }
};
template <> struct Axpy<npu_emu::bf16> {
    static NPU_EMU_HD npu_emu::bf16 run(npu_emu::bf16 a, npu_emu::bf16 b, float alpha) {
        const float prod = npu_emu::convert<float>(b) * alpha;
        return npu_emu::convert<npu_emu::bf16>(canonical_nan(npu_emu::convert<float>(a) + prod));
    }
};
template <> struct Axpy<float> {
    static NPU_EMU_HD float run(float a, float b, float alpha) {
        const double prod = static_cast<double>(b) * static_cast<double>(alpha);
        return canonical_nan(npu_emu::convert<float>(static_cast<double>(a) + prod));
    }
};
template <> struct Axpy<int32_t> {
    static NPU_EMU_HD int32_t run(int32_t a, int32_t b, float alpha) {
        const float prod = npu_emu::convert<float>(b) * alpha;
        return npu_emu::convert<int32_t>(npu_emu::convert<float>(a) + prod);
    }
};

enum Op { ADD, MUL, MULADD, AXPY };

template <Op OP, typename T> struct Apply;
template <typename T> struct Apply<ADD, T> {
    static NPU_EMU_HD T run(T a, T b, T, float) { return Arith<T>::add(a, b); }
};
template <typename T> struct Apply<MUL, T> {
    static NPU_EMU_HD T run(T a, T b, T, float) { return Arith<T>::mul(a, b); }
};
template <typename T> struct Apply<MULADD, T> {
    static NPU_EMU_HD T run(T a, T b, T alpha, float) { return Arith<T>::add(a, Arith<T>::mul(b, alpha)); }
};
template <typename T> struct Apply<AXPY, T> {
    static NPU_EMU_HD T run(T a, T b, T, float alpha) { return Axpy<T>::run(a, b, alpha); }
};

#if defined(NPU_EMU_CPU)
// CPU: contiguous fp16 / bf16 rows of ADD, MUL and AXPY (each computes in float and rounds
// once) go through L1 buffers of floats, 256 elements at a time, in loops g++ vectorizes:
// the loads are exact (vcvtph2ps, or bf16's shift), the float operation and its canonical NaN
// are the scalar code's, and the store is the rule's rounding (vcvtps2ph equals it on every
// canonical value; bf16's integer rounding vectorizes as it is). MULADD rounds twice in T and
// keeps the plain loop.
template <Op OP, typename T> constexpr bool half_staged() {
    return (OP == ADD || OP == MUL || OP == AXPY) &&
           (std::is_same<T, npu_emu::f16>::value || std::is_same<T, npu_emu::bf16>::value);
}

template <typename T, typename I>
inline void half_to_floats(float* __restrict__ d, const T* __restrict__ s, int m, I step) {
    if (step == 0) {
        const float v = npu_emu::convert<float>(*s);
        for (int j = 0; j < m; ++j) d[j] = v;
        return;
    }
#if defined(NPU_EMU_F16C)
    if constexpr (std::is_same<T, npu_emu::f16>::value) {
        npu_emu::f16c_to_floats(d, s, m);
        return;
    }
#endif
    for (int j = 0; j < m; ++j) d[j] = npu_emu::convert<float>(s[j]);
}

template <Op OP, typename T, typename I>
inline void half_row(T* __restrict__ o, const T* __restrict__ a, const T* __restrict__ b, I n,
                     I sa, I sb, float alpha_f) {
    constexpr int CH = 256;
    float A[CH], B[CH], R[CH];
    for (I j0 = 0; j0 < n; j0 += CH) {
        const int m = static_cast<int>(min(static_cast<I>(CH), n - j0));
        half_to_floats(A, a + j0 * sa, m, sa);
        half_to_floats(B, b + j0 * sb, m, sb);
        for (int j = 0; j < m; ++j) {
            if constexpr (OP == ADD) R[j] = canonical_nan(A[j] + B[j]);
            else if constexpr (OP == MUL) R[j] = canonical_nan(A[j] * B[j]);
            else R[j] = canonical_nan(A[j] + B[j] * alpha_f);   // Axpy: float product, float sum
        }
#if defined(NPU_EMU_F16C)
        if constexpr (std::is_same<T, npu_emu::f16>::value) {
            npu_emu::f16c_from_floats(o + j0, R, m);
            continue;
        }
#endif
        for (int j = 0; j < m; ++j) o[j0 + j] = npu_emu::convert<T>(R[j]);
    }
}
#endif

template <Op OP, typename T, typename I>
__device__ __forceinline__ void binary_row(T* __restrict__ o, const T* __restrict__ a,
                                           const T* __restrict__ b, I n, I so, I sa, I sb,
                                           T alpha, float alpha_f, bool stream = false) {
#if defined(NPU_EMU_CPU)
    if (stream && so == 1) {   // a large output: non-temporal stores (npu_emu_cpu.h)
        npu_emu_cpu::stream_row(o, static_cast<long long>(n), [&](T* out, long long j, long long k) {
            const I at = static_cast<I>(j);
            binary_row<OP, T, I>(out, a + at * sa, b + at * sb, static_cast<I>(k), static_cast<I>(1),
                                 sa, sb, alpha, alpha_f);
        });
        return;
    }
    if constexpr (half_staged<OP, T>()) {
        if (so == 1 && (sa == 1 || sa == 0) && (sb == 1 || sb == 0)) {
            half_row<OP, T, I>(o, a, b, n, sa, sb, alpha_f);
            return;
        }
    }
#endif
    constexpr int V = npu_emu::vec_elems(sizeof(T));
    if (npu_emu::vec_dest<V>(o, n, so) && npu_emu::vec_source<V>(a, n, sa) &&
        npu_emu::vec_source<V>(b, n, sb)) {   // the GPU's runs: one vector per operand
        T av[V], bv[V], ov[V];
        if (sa == 1) npu_emu::load_vec<V>(av, a); else for (int j = 0; j < V; ++j) av[j] = *a;
        if (sb == 1) npu_emu::load_vec<V>(bv, b); else for (int j = 0; j < V; ++j) bv[j] = *b;
        for (int j = 0; j < V; ++j) ov[j] = Apply<OP, T>::run(av[j], bv[j], alpha, alpha_f);
        npu_emu::store_vec<V>(o, ov);
    } else if (so == 1 && sa == 1 && sb == 1) {
        for (I j = 0; j < n; ++j) o[j] = Apply<OP, T>::run(a[j], b[j], alpha, alpha_f);
    } else if (so == 1 && sa == 1 && sb == 0) {
        const T bv = *b;
        for (I j = 0; j < n; ++j) o[j] = Apply<OP, T>::run(a[j], bv, alpha, alpha_f);
    } else if (so == 1 && sa == 0 && sb == 1) {
        const T av = *a;
        for (I j = 0; j < n; ++j) o[j] = Apply<OP, T>::run(av, b[j], alpha, alpha_f);
    } else if (so == 1 && sb == 0) {          // a strided row and a scalar (x[::2] + 1)
        const T bv = *b;
        for (I j = 0; j < n; ++j) o[j] = Apply<OP, T>::run(a[j * sa], bv, alpha, alpha_f);
    } else if (so == 1 && sa == 0) {
        const T av = *a;
        for (I j = 0; j < n; ++j) o[j] = Apply<OP, T>::run(av, b[j * sb], alpha, alpha_f);
    } else if (so == 1) {
        for (I j = 0; j < n; ++j) o[j] = Apply<OP, T>::run(a[j * sa], b[j * sb], alpha, alpha_f);
    } else {
        for (I j = 0; j < n; ++j) o[j * so] = Apply<OP, T>::run(a[j * sa], b[j * sb], alpha, alpha_f);
    }
}

template <Op OP, typename T, typename I>
__device__ __forceinline__ void binary_body(const IterParams<3>& p, const T* a, const T* b, T* out,
                                            T alpha, float alpha_f) {
    const I so = static_cast<I>(p.stride[0][0]), sa = static_cast<I>(p.stride[1][0]),
            sb = static_cast<I>(p.stride[2][0]);
#if defined(NPU_EMU_CPU)
    const bool stream = npu_emu_cpu::streaming(p.numel * static_cast<long long>(sizeof(T)));
#else
    constexpr bool stream = false;
#endif
    npu_emu::for_each_segment<I, 3>(p, [&](const I* off, I n) {
        binary_row<OP, T, I>(out + off[0], a + off[1], b + off[2], n, so, sa, sb, alpha, alpha_f, stream);
    });
}

}  // namespace

// One kernel: OPNAME_TN_IN (e.g. add_f32_i32), exported for the cpu backend. The units
// elementwise_<group>.cu instantiate these from their generated lists
// (elementwise_<group>.inc, written by npu_emu/kernels/elementwise.py from its catalog).
#define NPU_EMU_BINARY(OPNAME, OP, T, TN, I, IN)                                                 \
    extern "C" __global__ void OPNAME##_##TN##_##IN(const IterParams<3> p, const T* a, const T* b, \
                                                    T* out, const T alpha, const float alpha_f) {  \
        binary_body<OP, T, I>(p, a, b, out, alpha, alpha_f);                                     \
    }                                                                                           \
    NPU_EMU_EXPORT(OPNAME##_##TN##_##IN)

