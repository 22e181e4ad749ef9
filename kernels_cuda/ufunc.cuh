// The array API's elementwise functions (docs/ufunc.md): one functor per function, applied by
// the row-walking unary and binary kernels over the broadcast iteration space of
// npu_emu_index.cuh (operand 0 = out). The kernel list is generated from the catalog in
// npu_emu/kernels/ufunc.py into one build unit per arity, math header and dtype group
// (ufunc_<unit>.cu): each build stays short, and a call builds only its own unit.
//
// Types: a functor sees the compute type of the storage type (f16 / bf16 -> float, boolean ->
// bool, the rest as stored) and its result is rounded back once (npu_emu_convert.cuh), so a
// correctly rounded float operation (+ - * / sqrt) is correctly rounded in f16 / bf16 too
// (float's 24 bits >= 2p + 2). A functor that must see the storage bits (nextafter) says so
// with OnStorage. Integers wrap (two's complement) unless a rule below says otherwise.
//
// NaN results are canonical, as in elementwise.cu: every floating-point result that is NaN
// is stored as the positive quiet NaN of its type (complex: each part on its own), whatever
// the function (negative and copysign included). Functions that return their input unchanged
// (positive; floor/ceil/trunc/round of integers; conj and real of real inputs; abs of
// unsigned) are not kernels: the host plans them as copies, which keep every bit.
//
// Indexing: on the GPU each kernel holds a 32-bit and a 64-bit body and IterParams::flags
// (WIDE_INDEX) picks one (npu_emu_index.cuh's with_index_width); the CPU always takes the
// 64-bit body (its index division is paid once per run of >= 16 KiB, so the 32-bit one would
// only double the build).
//
// Adding a function: one entry in the catalog; either with a C expression of `x` (or `a`, `b`)
// that the generator wraps in a functor (a transcendental: `npu_emu::math::exp(x)`, whose
// header its unit's .cu includes), or with a functor op_<name> written here.
#pragma once
#include "npu_emu_common.cuh"
#include "npu_emu_index.cuh"
#include "npu_emu_convert.cuh"
#include "npu_emu_lanes.cuh"
#include "npu_emu_math_split.cuh"  // the math headers themselves: only the units that call them
#if defined(NPU_EMU_CPU) && defined(__SSE2__) && !defined(__NO_MATH_ERRNO__)
#include <immintrin.h>   // sqrt_rn
#define NPU_EMU_UFUNC_SSE_SQRT 1
#endif

namespace npu_emu {
namespace ufunc {

// Long, rarely hot helpers (fmod's loop, divmod, complex division) are one call on the GPU
// rather than inlined into every vector lane of every kernel: a much shorter build. The CPU
// inlines them (its build is one body per kernel).
#if defined(NPU_EMU_CPU)
#define NPU_EMU_UFUNC_OUTLINE NPU_EMU_HD
#else
#define NPU_EMU_UFUNC_OUTLINE __device__ __noinline__
#endif


// ------------------------------------------------------------------ type traits
template <typename T> struct Traits {                         // integers
    static constexpr bool is_int = true, is_float = false, is_signed = (T(-1) < T(0));
};
template <> struct Traits<float> { static constexpr bool is_int = false, is_float = true, is_signed = true; };
template <> struct Traits<double> { static constexpr bool is_int = false, is_float = true, is_signed = true; };
template <> struct Traits<bool> { static constexpr bool is_int = false, is_float = false, is_signed = false; };
template <> struct Traits<c64> { static constexpr bool is_int = false, is_float = false, is_signed = true; };
template <> struct Traits<c128> { static constexpr bool is_int = false, is_float = false, is_signed = true; };
template <typename T> constexpr bool is_float_v = Traits<T>::is_float;
template <typename T> constexpr bool is_int_v = Traits<T>::is_int;
template <typename T> constexpr bool is_signed_int_v = Traits<T>::is_int && Traits<T>::is_signed;
template <typename T> constexpr bool is_complex_v = detail::is_same<T, c64>::value || detail::is_same<T, c128>::value;

// The unsigned type integer arithmetic wraps in (C++ promotes narrow types to int).
template <typename T> struct Wide { using type = uint32_t; };
template <> struct Wide<int64_t> { using type = uint64_t; };
template <> struct Wide<uint64_t> { using type = uint64_t; };

// The unsigned integer of N bytes (a split row's lane flags: as wide as a lane).
template <int N> struct UnsignedOfSize;
template <> struct UnsignedOfSize<1> { using type = uint8_t; };
template <> struct UnsignedOfSize<2> { using type = uint16_t; };
template <> struct UnsignedOfSize<4> { using type = uint32_t; };
template <> struct UnsignedOfSize<8> { using type = uint64_t; };

// Bits of a float type, for the exact sign operations.
template <typename F> struct Bits;
template <> struct Bits<float> {
    using type = uint32_t;
    static constexpr uint32_t sign = 0x80000000u, inf = 0x7F800000u, quiet = CANONICAL_NAN_F32;
    static NPU_EMU_HD uint32_t of(float x) { return float_as_bits(x); }
    static NPU_EMU_HD float from(uint32_t u) { return bits_as_float(u); }
};
template <> struct Bits<double> {
    using type = uint64_t;
    static constexpr uint64_t sign = 0x8000000000000000ull, inf = 0x7FF0000000000000ull,
                              quiet = CANONICAL_NAN_F64;
    static NPU_EMU_HD uint64_t of(double x) { return double_as_bits(x); }
    static NPU_EMU_HD double from(uint64_t u) { return bits_as_double(u); }
};

template <typename F> NPU_EMU_HD bool sign_bit(F x) { return (Bits<F>::of(x) & Bits<F>::sign) != 0; }
template <typename F> NPU_EMU_HD F abs_bits(F x) { return Bits<F>::from(Bits<F>::of(x) & ~Bits<F>::sign); }
template <typename F> NPU_EMU_HD F copysign_bits(F x, F s) {
    return Bits<F>::from((Bits<F>::of(x) & ~Bits<F>::sign) | (Bits<F>::of(s) & Bits<F>::sign));
}
template <typename F> NPU_EMU_HD bool is_nan(F x) { return x != x; }
template <typename F> NPU_EMU_HD bool is_inf(F x) { return (Bits<F>::of(x) & ~Bits<F>::sign) == Bits<F>::inf; }
template <typename F> NPU_EMU_HD bool is_finite(F x) { return (Bits<F>::of(x) & ~Bits<F>::sign) < Bits<F>::inf; }

// Square root, correctly rounded on both targets. On the CPU std::sqrt is the instruction,
// but g++ keeps a branch to libm for errno (negative inputs) and cannot vectorize the loop;
// without -fno-math-errno the SSE instruction itself is called instead (same result).
NPU_EMU_HD float sqrt_rn(float x) {
#if defined(NPU_EMU_UFUNC_SSE_SQRT)
    return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x)));
#elif defined(NPU_EMU_CPU)
    return std::sqrt(x);
#else
    return __fsqrt_rn(x);
#endif
}
NPU_EMU_HD double sqrt_rn(double x) {
#if defined(NPU_EMU_UFUNC_SSE_SQRT)
    const __m128d v = _mm_set_sd(x);
    return _mm_cvtsd_f64(_mm_sqrt_sd(v, v));
#elif defined(NPU_EMU_CPU)
    return std::sqrt(x);
#else
    return __dsqrt_rn(x);
#endif
}


// Masks, not selects: g++ will not if-convert a select after an operation that "could trap"
// (floor, a comparison), and a branch keeps the CPU's loops from vectorizing.
template <typename U> NPU_EMU_HD U mask_of(bool c) { return U(0) - static_cast<U>(c); }
template <typename U> NPU_EMU_HD U select_bits(U m, U yes, U no) { return (yes & m) | (no & ~m); }
template <typename F> NPU_EMU_HD F select(bool c, F yes, F no) {
    using U = typename Bits<F>::type;
    return Bits<F>::from(select_bits(mask_of<U>(c), Bits<F>::of(yes), Bits<F>::of(no)));
}

// Rounding to an integer, exact, by the same additions on both targets (no libm, and loops
// that vectorize): below 2^p, (|x| + 2^p) - 2^p rounds |x| to an integer, ties to even;
// from 2^p on (and inf, NaN) x is its own result. Each result takes x's sign (floor(-0.5) is
// -1, ceil(-0.5) is -0).
template <typename F> NPU_EMU_HD F rint_(F x) {
    constexpr F big = sizeof(F) == 4 ? F(8388608.0) : F(4503599627370496.0);   // 2^23, 2^52
    const F a = abs_bits(x);
    return select(a < big, copysign_bits((a + big) - big, x), x);
}
template <typename F> NPU_EMU_HD F floor_(F x) {
    const F t = rint_(x);
    return copysign_bits(select(t > x, t - F(1), t), x);
}
template <typename F> NPU_EMU_HD F ceil_(F x) {
    const F t = rint_(x);
    return copysign_bits(select(t < x, t + F(1), t), x);
}
template <typename F> NPU_EMU_HD F trunc_(F x) { return copysign_bits(floor_(abs_bits(x)), x); }

// fmod, exact, by shift-and-subtract on the significands (one step per binade between the
// operands): the same integer code on both targets, since CUDA's fmodf is built from
// approximate reciprocals and fused multiply-adds and libm's differs per host.
template <typename F> NPU_EMU_UFUNC_OUTLINE F fmod_(F x, F y) {
    using U = typename Bits<F>::type;
    constexpr int MB = sizeof(F) == 4 ? 23 : 52;           // stored significand bits
    constexpr int EMAX = sizeof(F) == 4 ? 0xFF : 0x7FF;
    constexpr int TOP = 8 * sizeof(F) - 1;
    const U ux = Bits<F>::of(x), uy = Bits<F>::of(y);
    const U sx = ux & Bits<F>::sign, ax = ux & ~Bits<F>::sign, ay = uy & ~Bits<F>::sign;
    int ex = static_cast<int>(ax >> MB), ey = static_cast<int>(ay >> MB);
    if (ay == 0 || ay > Bits<F>::inf || ex == EMAX) return (x * y) / (x * y);   // NaN
    if (ax <= ay) return ax == ay ? Bits<F>::from(sx) : x;
    const U implicit = U(1) << MB, frac = implicit - 1;
    U mx, my;
    if (ex == 0) {   // subnormal: normalize, the exponent going below 1
        mx = ax; ex = 1;
        while (!(mx & implicit)) { mx <<= 1; --ex; }
    } else {
        mx = (ax & frac) | implicit;
    }
    if (ey == 0) {
        my = ay; ey = 1;
        while (!(my & implicit)) { my <<= 1; --ey; }
    } else {
        my = (ay & frac) | implicit;
    }
    for (; ex > ey; --ex) {
        const U d = mx - my;
        if (!(d >> TOP)) {
            if (d == 0) return Bits<F>::from(sx);
            mx = d;
        }
        mx <<= 1;
    }
    const U d = mx - my;
    if (!(d >> TOP)) {
        if (d == 0) return Bits<F>::from(sx);
        mx = d;
    }
    while (!(mx & implicit)) { mx <<= 1; --ex; }
    mx = ex > 0 ? ((mx - implicit) | (static_cast<U>(ex) << MB)) : (mx >> (1 - ex));
    return Bits<F>::from(mx | sx);
}

// ------------------------------------------------------------------ load and store
NPU_EMU_HD float load(f16 x) { return to_float(x); }
NPU_EMU_HD float load(bf16 x) { return to_float(x); }
NPU_EMU_HD bool load(boolean x) { return x.v != 0; }
template <typename T> NPU_EMU_HD T load(T x) { return x; }

template <typename F> NPU_EMU_HD F canonical_of(F x) {
    using U = typename Bits<F>::type;
    const U u = Bits<F>::of(x);
    return Bits<F>::from(select_bits(mask_of<U>((u & ~Bits<F>::sign) > Bits<F>::inf), Bits<F>::quiet, u));
}
NPU_EMU_HD float canonical(float x) { return canonical_of(x); }
NPU_EMU_HD double canonical(double x) { return canonical_of(x); }

template <typename TO> struct Store {   // integers
    template <typename R> static NPU_EMU_HD TO run(R r) { return static_cast<TO>(r); }
};
template <> struct Store<float> { static NPU_EMU_HD float run(float r) { return canonical(r); } };
template <> struct Store<double> { static NPU_EMU_HD double run(double r) { return canonical(r); } };
template <> struct Store<f16> {
    static NPU_EMU_HD f16 run(float r) { return from_float<f16>(canonical(r)); }
    static NPU_EMU_HD f16 run(f16 r) { return r; }        // an OnStorage functor's own result
};
template <> struct Store<bf16> {
    static NPU_EMU_HD bf16 run(float r) { return from_float<bf16>(canonical(r)); }
    static NPU_EMU_HD bf16 run(bf16 r) { return r; }
};
template <> struct Store<boolean> {
    static NPU_EMU_HD boolean run(bool r) { boolean b; b.v = r ? 1 : 0; return b; }
};
template <> struct Store<c64> {
    static NPU_EMU_HD c64 run(c64 r) { r.re = canonical(r.re); r.im = canonical(r.im); return r; }
};
template <> struct Store<c128> {
    static NPU_EMU_HD c128 run(c128 r) { r.re = canonical(r.re); r.im = canonical(r.im); return r; }
};

// A functor that takes the storage values themselves (not their compute type).
template <typename Op> struct OnStorage { static constexpr bool value = false; };

template <typename Op, typename T> NPU_EMU_HD auto arg(T x) {
    if constexpr (OnStorage<Op>::value) return x; else return load(x);
}

template <typename C> NPU_EMU_HD C make_complex(decltype(C::re) re, decltype(C::re) im) {
    C c; c.re = re; c.im = im; return c;
}

// Complex division: NumPy's algorithm (Smith's, loops.c.src), step by step.
template <typename T> NPU_EMU_UFUNC_OUTLINE T complex_divide(T a, T b) {
    using F = decltype(T::re);
    const F br = abs_bits(b.re), bi = abs_bits(b.im);
    if (br >= bi) {
        if (br == F(0) && bi == F(0)) return make_complex<T>(a.re / br, a.im / br);
        const F rat = b.im / b.re;
        const F scl = F(1) / (b.re + b.im * rat);
        return make_complex<T>((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    const F rat = b.re / b.im;
    const F scl = F(1) / (b.im + b.re * rat);
    return make_complex<T>((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
}  // namespace ufunc

// The complex functions the functors below call (npu_emu_math_complex.cuh, which the units
// with complex or integer-pow kernels include after this header: it builds on complex_divide
// and Wide above). Declared here so that other units need not parse it; only the units that
// instantiate a complex functor use them.
namespace math {
NPU_EMU_HD float abs(c64 z);
NPU_EMU_HD double abs(c128 z);
NPU_EMU_HD c64 sign(c64 z);
NPU_EMU_HD c128 sign(c128 z);
NPU_EMU_HD c64 sqrt(c64 z);
NPU_EMU_HD c128 sqrt(c128 z);
}  // namespace math

namespace ufunc {

// ------------------------------------------------------------------ unary functors
struct op_abs {   // signed integers: abs(MIN) = MIN (wraps, as NumPy); complex: |z|, real
    template <typename T> static NPU_EMU_HD auto run(T x) {
        if constexpr (is_complex_v<T>) return math::abs(x);
        else if constexpr (is_float_v<T>) return abs_bits(x);
        else return x < 0 ? static_cast<T>(typename Wide<T>::type(0) - typename Wide<T>::type(x)) : x;
    }
};
struct op_negative {
    template <typename T> static NPU_EMU_HD T run(T x) {
        if constexpr (is_float_v<T>) return -x;
        else if constexpr (is_complex_v<T>) return make_complex<T>(-x.re, -x.im);
        else return static_cast<T>(typename Wide<T>::type(0) - typename Wide<T>::type(x));
    }
};
struct op_sign {   // NaN -> NaN, +-0 -> +0 (NumPy 2); complex: z / |z|
    template <typename T> static NPU_EMU_HD T run(T x) {
        if constexpr (is_complex_v<T>) return math::sign(x);
        else if constexpr (is_float_v<T>) return x > T(0) ? T(1) : x < T(0) ? T(-1) : x != x ? x : T(0);
        else return static_cast<T>((x > T(0)) - (x < T(0)));
    }
};
struct op_square {   // complex: the textbook formula, no fused multiply-add
    template <typename T> static NPU_EMU_HD T run(T x) {
        if constexpr (is_float_v<T>) return x * x;
        else if constexpr (is_complex_v<T>) return make_complex<T>(x.re * x.re - x.im * x.im, x.re * x.im + x.im * x.re);
        else return static_cast<T>(typename Wide<T>::type(x) * typename Wide<T>::type(x));
    }
};
struct op_sqrt {
    template <typename T> static NPU_EMU_HD T run(T x) {
        if constexpr (is_complex_v<T>) return math::sqrt(x); else return sqrt_rn(x);
    }
};
struct op_floor { template <typename T> static NPU_EMU_HD T run(T x) { return floor_(x); } };
struct op_ceil { template <typename T> static NPU_EMU_HD T run(T x) { return ceil_(x); } };
struct op_trunc { template <typename T> static NPU_EMU_HD T run(T x) { return trunc_(x); } };
struct op_round {   // complex: each part
    template <typename T> static NPU_EMU_HD T run(T x) {
        if constexpr (is_complex_v<T>) return make_complex<T>(rint_(x.re), rint_(x.im)); else return rint_(x);
    }
};
struct op_reciprocal {   // complex: divide's 1 / z
    template <typename T> static NPU_EMU_HD T run(T x) {
        if constexpr (is_complex_v<T>) return complex_divide(make_complex<T>(1, 0), x); else return T(1) / x;
    }
};
// x ** c for the exponents CANN's aclnnPowTensorScalar hands to its Pows kernel on the SoCs
// that have one (aclnn_pow.cpp, pows_base.h): that kernel's composites, computed in float for
// float16 and bfloat16 and rounded once: 0.5 sqrt x, -0.5 1 / sqrt x, 3 x (x x), -2 1 / (x x)
// (-1 is reciprocal's 1 / x, 2 multiply's x x). Where sqrt's special values are not the array
// API standard's pow, the standard's: (-0) ** 0.5 = +0 and (-0) ** -0.5 = +inf (x + 0 turns
// -0 into +0 and nothing else), (-inf) ** 0.5 = +inf and (-inf) ** -0.5 = +0 (sqrt gives NaN).
struct op_pows_sqrt {
    template <typename T> static NPU_EMU_HD T run(T x) {
        const T inf = Bits<T>::from(Bits<T>::inf);
        return is_inf(x) && sign_bit(x) ? inf : sqrt_rn(x + T(0));
    }
};
struct op_pows_rsqrt {
    template <typename T> static NPU_EMU_HD T run(T x) {
        return is_inf(x) && sign_bit(x) ? T(0) : T(1) / sqrt_rn(x + T(0));
    }
};
struct op_pows_cube { template <typename T> static NPU_EMU_HD T run(T x) { return x * (x * x); } };
struct op_pows_inv_square { template <typename T> static NPU_EMU_HD T run(T x) { return T(1) / (x * x); } };
struct op_signbit { template <typename T> static NPU_EMU_HD bool run(T x) { return sign_bit(x); } };
struct op_isnan {
    template <typename T> static NPU_EMU_HD bool run(T x) {
        if constexpr (is_float_v<T>) return is_nan(x);
        else if constexpr (is_complex_v<T>) return is_nan(x.re) || is_nan(x.im);
        else return false;
    }
};
struct op_isinf {
    template <typename T> static NPU_EMU_HD bool run(T x) {
        if constexpr (is_float_v<T>) return is_inf(x);
        else if constexpr (is_complex_v<T>) return is_inf(x.re) || is_inf(x.im);
        else return false;
    }
};
struct op_isfinite {
    template <typename T> static NPU_EMU_HD bool run(T x) {
        if constexpr (is_float_v<T>) return is_finite(x);
        else if constexpr (is_complex_v<T>) return is_finite(x.re) && is_finite(x.im);
        else return true;
    }
};
struct op_conj { template <typename T> static NPU_EMU_HD T run(T x) { return make_complex<T>(x.re, -x.im); } };
struct op_real { template <typename T> static NPU_EMU_HD auto run(T x) { return x.re; } };
struct op_imag { template <typename T> static NPU_EMU_HD auto run(T x) { return x.im; } };
struct op_logical_not { static NPU_EMU_HD bool run(bool x) { return !x; } };
struct op_bitwise_invert {
    template <typename T> static NPU_EMU_HD T run(T x) {
        if constexpr (detail::is_same<T, bool>::value) return !x; else return static_cast<T>(~x);
    }
};

// ------------------------------------------------------------------ binary functors
// add / multiply: for the dtypes aclnnAdd / aclnnMul lack (uint16/32/64, the float8 types
// through float); integers wrap.
// complex add and multiply: aclnnAdd's and aclnnMul's formulas (elementwise.cuh
// ComplexArith), part by part and the textbook product, so a call the array API gives the
// ufunc kernel instead of the operator (a reversed view) has the operator's bits.
struct op_add {
    template <typename T> static NPU_EMU_HD T run(T a, T b) {
        if constexpr (is_float_v<T>) return a + b;
        else if constexpr (is_complex_v<T>) return make_complex<T>(a.re + b.re, a.im + b.im);
        else return static_cast<T>(typename Wide<T>::type(a) + typename Wide<T>::type(b));
    }
};
struct op_multiply {
    template <typename T> static NPU_EMU_HD T run(T a, T b) {
        if constexpr (is_float_v<T>) return a * b;
        else if constexpr (is_complex_v<T>)
            return make_complex<T>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
        else return static_cast<T>(typename Wide<T>::type(a) * typename Wide<T>::type(b));
    }
};
struct op_subtract {
    template <typename T> static NPU_EMU_HD T run(T a, T b) {
        if constexpr (is_float_v<T>) return a - b;
        else if constexpr (is_complex_v<T>) return make_complex<T>(a.re - b.re, a.im - b.im);
        else return static_cast<T>(typename Wide<T>::type(a) - typename Wide<T>::type(b));
    }
};
struct op_divide {
    template <typename T> static NPU_EMU_HD T run(T a, T b) {
        if constexpr (is_float_v<T>) return a / b; else return complex_divide(a, b);
    }
};
// Integers divided in double: each converted as the cast kernels convert (exact below 2^53,
// to nearest beyond), one correctly rounded division.
struct op_true_divide {
    template <typename T> static NPU_EMU_HD double run(T a, T b) {
        return static_cast<double>(a) / static_cast<double>(b);
    }
};

// Python's divmod of floats, as NumPy computes it (npy_divmod): the remainder has the sign of
// the divisor, the quotient is snapped to the nearest integer of (a - mod) / b.
template <typename F> NPU_EMU_UFUNC_OUTLINE F float_divmod(F a, F b, F* modulus) {
    F mod = fmod_(a, b);
    if (b == F(0)) { *modulus = mod; return a / b; }
    F div = (a - mod) / b;
    if (mod != F(0)) {
        if ((b < F(0)) != (mod < F(0))) { mod += b; div -= F(1); }
    } else {
        mod = copysign_bits(F(0), b);
    }
    F floordiv;
    if (div != F(0)) {
        floordiv = floor_(div);
        if (div - floordiv > F(0.5)) floordiv += F(1);
    } else {
        floordiv = copysign_bits(F(0), a / b);
    }
    *modulus = mod;
    return floordiv;
}

// The split form (npu_emu_math_split.cuh's contract) of integer floor division (Mod false)
// and remainder (true), for the CPU's rows: idiv takes about 25 cycles an int64 and does not
// vectorize. The quotient is the truncation of the correctly rounded double quotient, which
// is exact where both operands are below 2^53 in magnitude (a true quotient k - d, d at least
// 1/|b|, lies more than half an ulp of itself from the integer k when |a| < 2^53; so is the
// float quotient of 8- and 16-bit operands, below 2^24, with twice the lanes); then the
// exact remainder floors it, as run() does. rare: an operand of 2^53 or more (64-bit types);
// those lanes take run(). b == 0 and b == -1 divide by 1 here and select run()'s answers.
template <typename T, bool Mod, bool Int = is_int_v<T>> struct IntDivSplit {};   // floats: none
template <typename T, bool Mod> struct IntDivSplit<T, Mod, true> {
    static NPU_EMU_HD bool rare(T a, T b) {
        if constexpr (sizeof(T) < 8) {
            return false;
        } else if constexpr (is_signed_int_v<T>) {
            constexpr uint64_t LIM = uint64_t(1) << 53;   // a + 2^53 in [0, 2^54): |a| < 2^53
            return (static_cast<uint64_t>(a) + LIM >= 2 * LIM) | (static_cast<uint64_t>(b) + LIM >= 2 * LIM);
        } else {
            return (a | b) >= (uint64_t(1) << 53);
        }
    }
    static NPU_EMU_HD T fast(T a, T b) {
        using W = typename Wide<T>::type;   // wrapping arithmetic
        using Q = typename detail::conditional<(sizeof(T) < 4 || (sizeof(T) == 4 && is_signed_int_v<T>)),
                                               int32_t, int64_t>::type;
        const bool zero = b == T(0);
        const bool minus_one = is_signed_int_v<T> && b == static_cast<T>(-1);
        const T d = zero || minus_one ? T(1) : b;
        using D = typename detail::conditional<(sizeof(T) <= 2), float, double>::type;   // 16 bits < 2^24
        const T q = static_cast<T>(static_cast<Q>(static_cast<D>(a) / static_cast<D>(d)));
        T r = static_cast<T>(W(a) - W(q) * W(d));
        T f = q;
        if constexpr (is_signed_int_v<T>) {
            const bool down = r != T(0) && ((r < T(0)) != (d < T(0)));
            f = down ? static_cast<T>(W(q) - W(1)) : q;
            r = down ? static_cast<T>(W(r) + W(d)) : r;
        }
        if constexpr (Mod) return zero || minus_one ? T(0) : r;
        else return zero ? T(0) : minus_one ? static_cast<T>(W(0) - W(a)) : f;
    }
};

// Integer floor division and remainder: x // 0 == 0 and x % 0 == 0 (NumPy's results, with
// its warning left out); MIN // -1 == MIN (wraps), MIN % -1 == 0.
struct op_floor_divide {
    template <typename T> using split = IntDivSplit<T, false>;
    template <typename T> static NPU_EMU_HD T run(T a, T b) {
        if constexpr (is_float_v<T>) {
            if (b == T(0)) return a / b;
            // An infinite operand: floor(a / b), the standard's cases (+inf // 2 is +inf,
            // -1 // +inf is -0), where NumPy follows Python (NaN, -1).
            if (is_inf(a) || is_inf(b)) return floor_(a / b);
            T mod;
            return float_divmod(a, b, &mod);
        } else {
            if (b == T(0)) return T(0);
            if constexpr (is_signed_int_v<T>) {
                if (b == T(-1)) return static_cast<T>(typename Wide<T>::type(0) - typename Wide<T>::type(a));
                const T q = static_cast<T>(a / b);
                return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
            } else {
                return static_cast<T>(a / b);
            }
        }
    }
};
struct op_remainder {
    template <typename T> using split = IntDivSplit<T, true>;
    template <typename T> static NPU_EMU_HD T run(T a, T b) {
        if constexpr (is_float_v<T>) {
            T mod;
            if (b == T(0)) return fmod_(a, b);
            float_divmod(a, b, &mod);
            return mod;
        } else {
            if (b == T(0)) return T(0);
            if constexpr (is_signed_int_v<T>) {
                if (b == T(-1)) return T(0);
                const T r = static_cast<T>(a % b);
                return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
            } else {
                return static_cast<T>(a % b);
            }
        }
    }
};
// NaN if either is NaN; maximum(-0, +0) == +0 and minimum(-0, +0) == -0 in either order
// (IEEE 754-2019 maximum / minimum; NumPy's result there depends on its code path). Selects,
// not branches, so the CPU's loops vectorize: equal operands combine their bits (and: +0 wins,
// or: -0 wins; equal nonzero values have equal bits).
template <bool MAX, typename T> NPU_EMU_HD T max_min(T a, T b) {
    if constexpr (is_float_v<T>) {
        using U = typename Bits<T>::type;
        const U ua = Bits<T>::of(a), ub = Bits<T>::of(b);
        U r = select_bits(mask_of<U>(MAX ? a > b : a < b), ua, ub);
        r = select_bits(mask_of<U>(a == b), MAX ? ua & ub : ua | ub, r);
        return Bits<T>::from(select_bits(mask_of<U>(a != a || b != b), Bits<T>::of(a + b), r));
    } else {
        return (MAX ? a > b : a < b) ? a : b;
    }
}
struct op_maximum { template <typename T> static NPU_EMU_HD T run(T a, T b) { return max_min<true>(a, b); } };
struct op_minimum { template <typename T> static NPU_EMU_HD T run(T a, T b) { return max_min<false>(a, b); } };
struct op_copysign { template <typename T> static NPU_EMU_HD T run(T a, T b) { return copysign_bits(a, b); } };

// nextafter on the storage bits (f16 / bf16 step in their own format, as NumPy's
// npy_half_nextafter and ml_dtypes do): NaN in -> NaN; x == y -> y; from zero: the smallest
// subnormal with y's sign; otherwise one code up or down in magnitude.
template <typename U> NPU_EMU_HD U next_bits(U ux, U uy, U sign, U inf, U nan) {
    const U mx = ux & ~sign, my = uy & ~sign;
    if (mx > inf || my > inf) return nan;
    if (ux == uy || (mx == 0 && my == 0)) return uy;
    if (mx == 0) return static_cast<U>((uy & sign) | 1u);
    // Sign-magnitude codes as ordered integers (magnitudes are below 2^63).
    const int64_t kx = (ux & sign) ? -static_cast<int64_t>(mx) : static_cast<int64_t>(mx);
    const int64_t ky = (uy & sign) ? -static_cast<int64_t>(my) : static_cast<int64_t>(my);
    const bool grow = (ky > kx) == ((ux & sign) == 0);   // away from zero
    return static_cast<U>(grow ? ux + 1u : ux - 1u);
}
struct op_nextafter {
    static NPU_EMU_HD float run(float a, float b) {
        return bits_as_float(next_bits<uint32_t>(float_as_bits(a), float_as_bits(b), 0x80000000u,
                                                 Bits<float>::inf, Bits<float>::quiet));
    }
    static NPU_EMU_HD double run(double a, double b) {
        return bits_as_double(next_bits<uint64_t>(double_as_bits(a), double_as_bits(b), 0x8000000000000000ull,
                                                  Bits<double>::inf, Bits<double>::quiet));
    }
    static NPU_EMU_HD f16 run(f16 a, f16 b) {
        return f16{next_bits<uint16_t>(a.bits, b.bits, 0x8000u, 0x7C00u, CANONICAL_NAN_F16)};
    }
    static NPU_EMU_HD bf16 run(bf16 a, bf16 b) {
        return bf16{next_bits<uint16_t>(a.bits, b.bits, 0x8000u, 0x7F80u, CANONICAL_NAN_BF16)};
    }
};
template <> struct OnStorage<op_nextafter> { static constexpr bool value = true; };

#define NPU_EMU_UFUNC_COMPARE(NAME, EXPR)                                                   \
    struct NAME {                                                                           \
        template <typename T> static NPU_EMU_HD bool run(T a, T b) { return EXPR; }         \
    };
NPU_EMU_UFUNC_COMPARE(op_less, a < b)
NPU_EMU_UFUNC_COMPARE(op_less_equal, a <= b)
NPU_EMU_UFUNC_COMPARE(op_greater, a > b)
NPU_EMU_UFUNC_COMPARE(op_greater_equal, a >= b)
#undef NPU_EMU_UFUNC_COMPARE
struct op_equal {
    template <typename T> static NPU_EMU_HD bool run(T a, T b) {
        if constexpr (is_complex_v<T>) return a.re == b.re && a.im == b.im; else return a == b;
    }
};
struct op_not_equal {
    template <typename T> static NPU_EMU_HD bool run(T a, T b) { return !op_equal::run(a, b); }
};
struct op_logical_and { static NPU_EMU_HD bool run(bool a, bool b) { return a && b; } };
struct op_logical_or { static NPU_EMU_HD bool run(bool a, bool b) { return a || b; } };
struct op_logical_xor { static NPU_EMU_HD bool run(bool a, bool b) { return a != b; } };
struct op_bitwise_and { template <typename T> static NPU_EMU_HD T run(T a, T b) { return static_cast<T>(a & b); } };
struct op_bitwise_or { template <typename T> static NPU_EMU_HD T run(T a, T b) { return static_cast<T>(a | b); } };
struct op_bitwise_xor { template <typename T> static NPU_EMU_HD T run(T a, T b) { return static_cast<T>(a ^ b); } };
// Shifts by a count outside [0, bits): left -> 0, right -> 0 or -1 by the sign (NumPy's
// npy_lshift / npy_rshift: the count compared as an unsigned number).
struct op_bitwise_left_shift {
    template <typename T> static NPU_EMU_HD T run(T a, T b) {
        using W = typename Wide<T>::type;
        return static_cast<uint64_t>(b) < 8 * sizeof(T) ? static_cast<T>(W(a) << W(b)) : T(0);
    }
};
struct op_bitwise_right_shift {
    template <typename T> static NPU_EMU_HD T run(T a, T b) {
        if (static_cast<uint64_t>(b) < 8 * sizeof(T)) return static_cast<T>(a >> b);
        return (is_signed_int_v<T> && a < T(0)) ? static_cast<T>(-1) : T(0);
    }
};

// ------------------------------------------------------------------ the kernels
template <typename Op, typename TO, typename TI> NPU_EMU_HD TO apply1(TI x) {
    return Store<TO>::run(Op::run(arg<Op>(x)));
}
template <typename Op, typename TO, typename TI> NPU_EMU_HD TO apply2(TI a, TI b) {
    return Store<TO>::run(Op::run(arg<Op>(a), arg<Op>(b)));
}

// Split functions (the math library's fast paths): a function whose functor has
// `split<T>` with `fast(x)` and `rare(x)` (both branch-free) promises fast(x) == run(x), bit
// for bit, wherever rare(x) is false. The CPU's contiguous rows then compute fast() over a
// chunk in a loop the compiler vectorizes and redo only the rare lanes with run(); every
// other path (the GPU, strided rows) calls run(). Same bits either way, by that promise
// (tests/test_ufunc.py compares the two paths over every split function).
template <typename... Ts> struct make_void { using type = void; };
template <typename... Ts> using void_t = typename make_void<Ts...>::type;
template <typename Op, typename T, typename = void> struct Split1 { static constexpr bool value = false; };
template <typename Op, typename T>
struct Split1<Op, T, void_t<decltype(Op::template split<T>::fast(T())),
                             decltype(Op::template split<T>::rare(T()))>> {
    static constexpr bool value = true;
};
template <typename Op, typename T, typename = void> struct Split2 { static constexpr bool value = false; };
template <typename Op, typename T>
struct Split2<Op, T, void_t<decltype(Op::template split<T>::fast(T(), T())),
                             decltype(Op::template split<T>::rare(T(), T()))>> {
    static constexpr bool value = true;
};
// A unary split form may also have a second branch-free tier, `wide(x)` with `wide_ok(x)`:
// equal to run(x) bit for bit wherever rare(x) and wide_ok(x) hold (run(x) written as
// `!rare(x) ? fast(x) : wide_ok(x) ? wide(x) : <the rest>`). A chunk with rare lanes then
// computes wide() over the chunk in a second vectorized loop and redoes one by one only the
// lanes outside both (float32 sin and cos: float lanes below 2^12, double lanes to 2^20).
template <typename Op, typename T, typename = void> struct Tiered1 { static constexpr bool value = false; };
template <typename Op, typename T>
struct Tiered1<Op, T, void_t<decltype(Op::template split<T>::wide(T())),
                              decltype(Op::template split<T>::wide_ok(T()))>> {
    static constexpr bool value = true;
};
template <typename Op, typename T> using compute_of = decltype(arg<Op>(T()));

#if defined(NPU_EMU_CPU)
constexpr int STAGE_CHUNK = 256;   // elements per staged chunk: the buffers stay in L1

// fp16 rows staged through float32 with the F16C instructions (vcvtph2ps exact; vcvtps2ph
// equals the rule on every canonical value): not for functors that read storage bits.
template <typename Op, typename TI> constexpr bool f16_staged() {
#if defined(NPU_EMU_F16C)
    return detail::is_same<TI, f16>::value && !OnStorage<Op>::value;
#else
    return false;
#endif
}

// buf[j] = the compute value of p[j * s], j < m (s is 1, or 0: one scalar for the chunk).
template <typename Op, typename TI, typename C, typename I>
NPU_EMU_HD void load_chunk(C* buf, const TI* p, int m, I s) {
#if defined(NPU_EMU_F16C)
    if constexpr (f16_staged<Op, TI>())
        if (s == 1) {
            f16c_to_floats(buf, p, m);
            return;
        }
#endif
    if (s == 0) {
        const C v = arg<Op>(*p);
        for (int j = 0; j < m; ++j) buf[j] = v;
        return;
    }
    if (s == 1) {
        for (int j = 0; j < m; ++j) buf[j] = arg<Op>(p[j]);
        return;
    }
    for (int j = 0; j < m; ++j) buf[j] = arg<Op>(p[j * s]);   // a strided row, gathered
}

template <bool Binary, typename Op, typename C> struct ResultOf { using type = decltype(Op::run(C())); };
template <typename Op, typename C> struct ResultOf<true, Op, C> { using type = decltype(Op::run(C(), C())); };

// Whether the bytes of n elements of type A at a and m of type B at b are disjoint.
template <typename A, typename B, typename I>
NPU_EMU_HD bool disjoint(const A* a, I n, const B* b, I m) {
    const uintptr_t pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
    return pa + static_cast<uintptr_t>(n) * sizeof(A) <= pb || pb + static_cast<uintptr_t>(m) * sizeof(B) <= pa;
}

// A row with a contiguous output (o[j] = Op(a[j * sa]), or Op(a[j * sa], b[j * sb])) chunk by
// chunk (o may be a itself: a chunk is read before it is written): the fp16 conversions eight
// at a time through L1 buffers, and a split function's fast() over the whole chunk with only
// its rare lanes redone by run(). Strided operands are gathered into the buffers first (a
// float32 exp(x[::2, ::2]) computed element by element by the full function, 0.5x NumPy).
// A split function whose operands and result are stored as they are computed (float32,
// float64), on a row whose output overlaps no operand, reads the operands and writes the
// output directly ("direct"); otherwise through L1 buffers of compute values (the buffers'
// copies cost a float32 expm1 about 15 %). The rare lanes need their operands after fast()
// has written the chunk's output, hence the disjointness. Either way a lane's result goes
// through Store<R> as it is made (NaN canonical; the buffered path's last store repeats it,
// which changes nothing), but fast()'s results of a form that declares `canonical` (its only
// NaN is the canonical one already): the same operations, so the same bits.
template <bool Binary, typename Op, typename TI, typename TO, typename I>
NPU_EMU_HD void staged_row(TO* o, const TI* a, const TI* b, I n, I sa, I sb) {
    using C = compute_of<Op, TI>;
    using R = typename ResultOf<Binary, Op, C>::type;
    constexpr bool split = Binary ? Split2<Op, C>::value : Split1<Op, C>::value;
    constexpr bool can_direct = split && detail::is_same<C, TI>::value && detail::is_same<R, TO>::value
                                && !f16_staged<Op, TI>();
    bool direct = false;
    if constexpr (can_direct)
        direct = sa == 1 && (sb == 1 || sb == 0) && disjoint(o, n, a, n) &&
                 (!Binary || disjoint(o, n, b, sb == 1 ? n : I(1)));
    C A[STAGE_CHUNK], B[Binary ? STAGE_CHUNK : 1];
    R out[STAGE_CHUNK];
    for (I j0 = 0; j0 < n; j0 += STAGE_CHUNK) {
        const int m = static_cast<int>(min(static_cast<I>(STAGE_CHUNK), n - j0));
        const C* x = A;
        const C* y = B;
        R* r = out;
        if constexpr (can_direct) {
            if (direct) {
                x = a + j0;
                r = o + j0;
                if (sb == 1) y = b + j0;
            }
        }
        if (!direct) load_chunk<Op>(A, a + j0 * sa, m, sa);
        if constexpr (Binary) if (!direct || sb != 1) load_chunk<Op>(B, b + j0 * sb, m, sb);
        if constexpr (split) {
            using S = typename Op::template split<C>;
            using F = typename UnsignedOfSize<sizeof(C)>::type;
            // The first pass stores fast()'s results and counts the rare lanes; only a chunk
            // that has one decides each lane's verdict again, in a second vectorized loop, and
            // keeps it (a flag as wide as a lane of C: the mask is stored with no narrowing) for
            // the redo pass, which would cost about 10 us per chunk with a rare lane deciding in
            // scalar code where the test is as dear as fast() itself. The binary forms keep
            // their flags from the first pass: logaddexp's float64 test shares fast()'s work
            // (the compiler computes it once for both), so a second loop would pay it again on
            // most chunks of ordinary data (0.4 % rare lanes touch 2/3 of the chunks).
            // Both are computed before the result is stored: r may be x (as far as g++ knows),
            // and a store first made it read x again and compute logaddexp's core twice (its
            // float64 row 1.5x slower). A form whose fast() makes no NaN but the canonical one
            // (CanonicalFast, npu_emu_math_split.cuh) stores it as it is (a compare and blend
            // less per lane: 10-15 % of a float32 exp); the other lanes go through Store<R>.
            constexpr bool keep_flags = Binary;
            constexpr bool canon = npu_emu::math::CanonicalFast<S>::value;
            F is_rare[STAGE_CHUNK];
            int rare = 0;   // a count, not a bool: g++ does not vectorize a loop that ORs bools
            int jv = 0;     // lanes [0, jv) computed L at a time (npu_emu_lanes.cuh)
#if defined(NPU_EMU_LANES8)
            // A form with an L-lane fast() (8 or 16: the same operations per lane as its one-lane
            // fast(), so the same bits; table reads as permutations, not gathers) runs it over
            // the chunk's full groups of L, the one-lane fast() over the rest; canonical forms on
            // float rows. The flags first: r may be x as far as g++ knows.
            constexpr int L = lanes::LanesOf<S>::value;
            if constexpr (canon && detail::is_same<C, float>::value && detail::is_same<R, float>::value &&
                          (L == 8 || L == 16)) {
                jv = m & ~(L - 1);
                for (int j = 0; j < jv; ++j) {
                    F f;
                    if constexpr (Binary) f = S::rare(x[j], y[j]);
                    else f = S::rare(x[j]);
                    if constexpr (keep_flags) is_rare[j] = f;
                    rare += f;
                }
                for (int j = 0; j < jv; j += L) {
                    if constexpr (Binary) lanes::store(r + j, S::fast(lanes::load<L>(x + j), lanes::load<L>(y + j)));
                    else lanes::store(r + j, S::fast(lanes::load<L>(x + j)));
                }
            }
#endif
            for (int j = jv; j < m; ++j) {
                R v;
                F f;
                if constexpr (Binary) { v = S::fast(x[j], y[j]); f = S::rare(x[j], y[j]); }
                else { v = S::fast(x[j]); f = S::rare(x[j]); }
                r[j] = canon ? v : Store<R>::run(v);
                if constexpr (keep_flags) is_rare[j] = f;
                rare += f;
            }
            if (rare > 0) {
                if constexpr (!Binary && Tiered1<Op, C>::value) {
                    rare = 0;   // the second tier, vectorized over the chunk with the flags
                    for (int j = 0; j < m; ++j) {   // flags as integers: no branch
                        const F f = S::rare(x[j]);
                        const F w = f & static_cast<F>(S::wide_ok(x[j]));
                        const R v = Store<R>::run(S::wide(x[j]));
                        r[j] = w != 0 ? v : r[j];
                        is_rare[j] = f - w;
                        rare += is_rare[j];
                    }
                } else if constexpr (!keep_flags) {
                    for (int j = 0; j < m; ++j) is_rare[j] = S::rare(x[j]);
                }
                // Done when the last rare lane is: an early exit, which also keeps g++ from
                // vectorizing this loop (if-converted, it would compile the whole function into
                // every lane: 50-90 % more build time for nothing).
                for (int j = 0; rare > 0 && j < m; ++j) {
                    if (!is_rare[j]) continue;
                    if constexpr (Binary) r[j] = Store<R>::run(Op::run(x[j], y[j]));
                    else r[j] = Store<R>::run(Op::run(x[j]));
                    --rare;
                }
            }
            if (direct) continue;
        } else {
            for (int j = 0; j < m; ++j) {
                if constexpr (Binary) out[j] = Op::run(A[j], B[j]);
                else out[j] = Op::run(A[j]);
            }
        }
#if defined(NPU_EMU_F16C)
        if constexpr (f16_staged<Op, TI>() && detail::is_same<TO, f16>::value) {
            for (int j = 0; j < m; ++j) out[j] = canonical(out[j]);
            f16c_from_floats(o + j0, out, m);
            continue;
        }
#endif
        for (int j = 0; j < m; ++j) o[j0 + j] = Store<TO>::run(out[j]);
    }
}
template <typename Op, typename TI> constexpr bool staged1() {
    return Split1<Op, compute_of<Op, TI>>::value || f16_staged<Op, TI>();
}
template <typename Op, typename TI> constexpr bool staged2() {
    return Split2<Op, compute_of<Op, TI>>::value || f16_staged<Op, TI>();
}
#endif

template <typename TI, typename TO> NPU_EMU_HD constexpr int vec_of() {
    return vec_elems(sizeof(TI) > sizeof(TO) ? static_cast<int>(sizeof(TI)) : static_cast<int>(sizeof(TO)));
}

// The GPU's 64-bit body (spaces past 2^31 elements, negative strides) moves single elements:
// half the code, and such launches are rare. The CPU's only body keeps the vector moves (the
// GPU geometry run on the CPU tests them).
template <typename I> NPU_EMU_HD constexpr bool vector_moves() {
#if defined(NPU_EMU_CPU)
    return true;
#else
    return sizeof(I) == 4;
#endif
}

template <typename Op, typename TI, typename TO, typename I>
__device__ __forceinline__ void unary_row(TO* __restrict__ o, const TI* __restrict__ x, I n, I so, I sx) {
    constexpr int V = vec_of<TI, TO>();
    if (vector_moves<I>() && vec_dest<V>(o, n, so) && vec_source<V>(x, n, sx)) {   // the GPU's runs
        TI xv[V];
        TO ov[V];
        if (sx == 1) load_vec<V>(xv, x); else for (int j = 0; j < V; ++j) xv[j] = *x;
        for (int j = 0; j < V; ++j) ov[j] = apply1<Op, TO>(xv[j]);
        store_vec<V>(o, ov);
#if defined(NPU_EMU_CPU)   // long runs: loops the compiler vectorizes (a GPU thread takes 1)
    } else if (so == 1) {             // a strided input is gathered by staged_row (one call:
        if constexpr (staged1<Op, TI>())   // one copy of its loops in the module)
            staged_row<false, Op, TI, TO, I>(o, x, x, n, sx, I(0));
        else if (sx == 1)
            for (I j = 0; j < n; ++j) o[j] = apply1<Op, TO>(x[j]);
        else
            for (I j = 0; j < n; ++j) o[j] = apply1<Op, TO>(x[j * sx]);
#endif
    } else {
        for (I j = 0; j < n; ++j) o[j * so] = apply1<Op, TO>(x[j * sx]);
    }
}

template <typename Op, typename TI, typename TO, typename I>
__device__ __forceinline__ void binary_row(TO* __restrict__ o, const TI* __restrict__ a,
                                           const TI* __restrict__ b, I n, I so, I sa, I sb) {
    constexpr int V = vec_of<TI, TO>();
    if (vector_moves<I>() && vec_dest<V>(o, n, so) && vec_source<V>(a, n, sa) && vec_source<V>(b, n, sb)) {
        TI av[V], bv[V];
        TO ov[V];
        if (sa == 1) load_vec<V>(av, a); else for (int j = 0; j < V; ++j) av[j] = *a;
        if (sb == 1) load_vec<V>(bv, b); else for (int j = 0; j < V; ++j) bv[j] = *b;
        for (int j = 0; j < V; ++j) ov[j] = apply2<Op, TO>(av[j], bv[j]);
        store_vec<V>(o, ov);
#if defined(NPU_EMU_CPU)   // long runs: loops the compiler vectorizes (a GPU thread takes 1)
    } else if (staged2<Op, TI>() && so == 1) {   // strided operands gathered (staged_row)
        if constexpr (staged2<Op, TI>()) staged_row<true, Op, TI, TO, I>(o, a, b, n, sa, sb);
    } else if (so == 1 && sa == 1 && sb == 1) {
        for (I j = 0; j < n; ++j) o[j] = apply2<Op, TO>(a[j], b[j]);
    } else if (so == 1 && sa == 1 && sb == 0) {   // array (op) scalar: the common broadcast
        const TI bs = *b;
        for (I j = 0; j < n; ++j) o[j] = apply2<Op, TO>(a[j], bs);
    } else if (so == 1 && sb == 0) {              // a strided row (op) scalar
        const TI bs = *b;
        for (I j = 0; j < n; ++j) o[j] = apply2<Op, TO>(a[j * sa], bs);
    } else if (so == 1) {
        for (I j = 0; j < n; ++j) o[j] = apply2<Op, TO>(a[j * sa], b[j * sb]);
#endif
    } else {
        for (I j = 0; j < n; ++j) o[j * so] = apply2<Op, TO>(a[j * sa], b[j * sb]);
    }
}

// A launch whose output is large (npu_emu_cpu.h's STREAM_MIN_BYTES_UFUNC: 64 MiB) writes its
// contiguous rows with non-temporal stores on the CPU: each row made 2 KiB at a time into an
// L1 buffer by the row functions above (the same values), then streamed, so a store that
// misses the cache does not read its line first (3 bytes of traffic per byte written become 2).
template <typename TO, int N> NPU_EMU_HD bool streams(const IterParams<N>& p) {
#if defined(NPU_EMU_CPU)
    return p.numel * static_cast<long long>(sizeof(TO)) >= npu_emu_cpu::STREAM_MIN_BYTES_UFUNC;
#else
    return false;
#endif
}

// The CPU's rows are one out-of-line function a kernel (called from the plain walk and from
// the streamed one): inlined at both, a kernel's code and its build time would double.
#if defined(NPU_EMU_CPU)
#define NPU_EMU_UFUNC_ROW __attribute__((noinline))
#else
#define NPU_EMU_UFUNC_ROW __forceinline__
#endif
template <typename Op, typename TI, typename TO, typename I>
__device__ NPU_EMU_UFUNC_ROW void unary_row_of(TO* o, const TI* x, I n, I so, I sx) {
    unary_row<Op, TI, TO, I>(o, x, n, so, sx);
}
template <typename Op, typename TI, typename TO, typename I>
__device__ NPU_EMU_UFUNC_ROW void binary_row_of(TO* o, const TI* a, const TI* b, I n, I so, I sa, I sb) {
    binary_row<Op, TI, TO, I>(o, a, b, n, so, sa, sb);
}

template <typename Op, typename TI, typename TO, typename I>
__device__ __forceinline__ void unary_body(const IterParams<2>& p, const TI* x, TO* out) {
    const I so = static_cast<I>(p.stride[0][0]), sx = static_cast<I>(p.stride[1][0]);
    const bool stream = streams<TO>(p);
    for_each_segment<I, 2>(p, [&](const I* off, I n) {
#if defined(NPU_EMU_CPU)
        if (stream && so == 1) {
            npu_emu_cpu::stream_row(out + off[0], static_cast<long long>(n), [&](TO* d, long long j, long long k) {
                unary_row_of<Op, TI, TO, I>(d, x + off[1] + static_cast<I>(j) * sx, static_cast<I>(k), I(1), sx);
            });
            return;
        }
#endif
        unary_row_of<Op, TI, TO, I>(out + off[0], x + off[1], n, so, sx);
    });
}

template <typename Op, typename TI, typename TO, typename I>
__device__ __forceinline__ void binary_body(const IterParams<3>& p, const TI* a, const TI* b, TO* out) {
    const I so = static_cast<I>(p.stride[0][0]), sa = static_cast<I>(p.stride[1][0]),
            sb = static_cast<I>(p.stride[2][0]);
    const bool stream = streams<TO>(p);
    for_each_segment<I, 3>(p, [&](const I* off, I n) {
#if defined(NPU_EMU_CPU)
        if (stream && so == 1) {
            npu_emu_cpu::stream_row(out + off[0], static_cast<long long>(n), [&](TO* d, long long j, long long k) {
                const I at = static_cast<I>(j);
                binary_row_of<Op, TI, TO, I>(d, a + off[1] + at * sa, b + off[2] + at * sb, static_cast<I>(k), I(1), sa, sb);
            });
            return;
        }
#endif
        binary_row_of<Op, TI, TO, I>(out + off[0], a + off[1], b + off[2], n, so, sa, sb);
    });
}

}  // namespace ufunc
}  // namespace npu_emu

#define NPU_EMU_UFUNC_DISPATCH(BODY, OP, TI, TO, ...)                                          \
    npu_emu::with_index_width(p.flags, [&](auto i) {                                           \
        npu_emu::ufunc::BODY<OP, TI, TO, decltype(i)>(__VA_ARGS__);                            \
    })

// One kernel per catalog line (the generated ufunc_<family>_<group>.cu units): NAME is the kernel's exported
// name, OP its functor, TI / TO the input and output storage types.
#define NPU_EMU_UFUNC1_KERNEL(NAME, OP, TI, TO)                                               \
    extern "C" __global__ void NAME(const npu_emu::IterParams<2> p, const TI* x, TO* out) {  \
        NPU_EMU_UFUNC_DISPATCH(unary_body, npu_emu::ufunc::OP, TI, TO, p, x, out);            \
    }                                                                                         \
    NPU_EMU_EXPORT(NAME)
#define NPU_EMU_UFUNC2_KERNEL(NAME, OP, TI, TO)                                               \
    extern "C" __global__ void NAME(const npu_emu::IterParams<3> p, const TI* a, const TI* b, \
                                    TO* out) {                                                \
        NPU_EMU_UFUNC_DISPATCH(binary_body, npu_emu::ufunc::OP, TI, TO, p, a, b, out);        \
    }                                                                                         \
    NPU_EMU_EXPORT(NAME)

// A math library function NAME of x (unary) or a, b (binary): the catalog's `math` entries.
// Its functor calls npu_emu::math::NAME and offers the header's split form, where the header
// has one for the type: npu_emu::math::Split<npu_emu::math::fn::NAME, T> (npu_emu_math_split.cuh).
#define NPU_EMU_UFUNC_MATH1(OP, NAME)                                                          \
    namespace npu_emu { namespace math { namespace fn { struct NAME; } } }                     \
    namespace npu_emu { namespace ufunc {                                                      \
    struct OP {                                                                                \
        template <typename T> static NPU_EMU_HD T run(T x) { return npu_emu::math::NAME(x); }  \
        template <typename T> using split = npu_emu::math::Split<npu_emu::math::fn::NAME, T>;  \
    };                                                                                         \
    } }
#define NPU_EMU_UFUNC_MATH2(OP, NAME)                                                          \
    namespace npu_emu { namespace math { namespace fn { struct NAME; } } }                     \
    namespace npu_emu { namespace ufunc {                                                      \
    struct OP {                                                                                \
        template <typename T> static NPU_EMU_HD T run(T a, T b) { return npu_emu::math::NAME(a, b); } \
        template <typename T> using split = npu_emu::math::Split<npu_emu::math::fn::NAME, T>;  \
    };                                                                                         \
    } }
// A functor from a C expression of x (unary) or a, b (binary): the catalog's `expr` entries.
#define NPU_EMU_UFUNC_EXPR1(OP, EXPR)                                                          \
    namespace npu_emu { namespace ufunc {                                                      \
    struct OP { template <typename T> static NPU_EMU_HD T run(T x) { return EXPR; } };         \
    } }
#define NPU_EMU_UFUNC_EXPR2(OP, EXPR)                                                          \
    namespace npu_emu { namespace ufunc {                                                      \
    struct OP { template <typename T> static NPU_EMU_HD T run(T a, T b) { return EXPR; } };    \
    } }
