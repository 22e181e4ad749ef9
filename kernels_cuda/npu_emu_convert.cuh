// Element types and conversions between every aclDataType the emulator stores, identical bit
// for bit on the GPU (NVRTC, nvcc) and on the CPU (g++ with npu_emu_cpu.h).
//
// Low-precision formats (fp16, bf16, fp8 e5m2 / e4m3fn, HiFloat8, fp8 e8m0) are encoded and
// decoded with integer bit arithmetic only: no __float2half-style intrinsics, no host float
// tricks, so both targets round the same way. The only native floating-point conversions used
// are those IEEE 754 defines exactly (int <-> float/double with round-to-nearest-even,
// float -> double, double -> float), and every NaN that crosses one of them is handled by bit
// arithmetic first, because GPUs canonicalise NaN payloads and x86 does not.
//
// API (namespace npu_emu):
//   storage tags   f16 bf16 fp8_e5m2 fp8_e4m3fn hif8 fp8_e8m0 c32 c64 c128 boolean, plus the
//                  built-in int8_t..uint64_t, float, double
//   float to_float(T)                    exact decode of a low-precision value (T = f16, bf16,
//                                        fp8_e5m2, fp8_e4m3fn, hif8, fp8_e8m0; float: itself)
//   T from_float<T>(float)               round a float to T (rules below; T = float too)
//   Dst convert<Dst>(Src)                any pair of the 20 storage types (rules below)
//   double to_double(f16)                fp16 -> double with NumPy's NaN payloads
//   float double_to_float(double), double float_to_double(float)   NaN payloads as x86
//   uint32_t float_as_bits(float), float bits_as_float(uint32_t),
//   uint64_t double_as_bits(double), double bits_as_double(uint64_t)   bit casts
//   (namespace detail is internal: Store/load, the rounding helpers.)
//
// Rounding and special values (docs/conversions.md#hifloat8; decisions documented in npu_emu/kernels/cast.py):
//   f16, bf16, e5m2, e4m3fn: round to nearest, ties to even; denormals kept; overflow -> inf
//     (e4m3fn has no inf: overflow and +-inf -> NaN 0x7F | sign). NaN -> f16: sign | 0x7C00 |
//     top payload bits (at least 1), as NumPy; -> bf16 sign | 0x7FC0, -> e5m2 sign | 0x7E,
//     -> e4m3fn sign | 0x7F, as ml_dtypes.
//   e8m0 (the layout of ml_dtypes' float8_e8m0fnu): the nearest power of two, ties (1.5 * 2^k)
//     up, float32 denormals included (the nearest of 2^-127 and 2^-126, by value); zero,
//     negatives, inf, NaN and overflow -> 0xFF (NaN).
//   HiFloat8: round half away from zero at the mantissa width of the value's exponent;
//     |x| >= 40960 and +-inf -> S|0x6F; NaN -> 0x80; |x| < 2^-23 -> 0x00; [2^-23, 2^-22) -> 2^-22.
//   double -> any format narrower than float: first rounded to float (as Eigen/CANN's AICPU
//     kernels, ml_dtypes and PyTorch do), then to the format.
//   integer -> low-precision: through float (int -> float rounds to nearest even).
//   float/double -> integer: truncation toward zero; NaN -> 0; saturation of the 32-bit
//     intermediate for int8/int16/int32 (CANN arch35: Cast f32 -> s32 with SAT, then the pack
//     keeps the low bits), of a 64-bit intermediate for uint8/uint16/uint32 and int64; uint64
//     saturates to [0, 2^64 - 1] from above and wraps the int64 result below 2^63.
//   integer -> integer: two's-complement wrap. Anything -> bool: != 0 (NaN -> true; complex:
//     either part). bool -> anything: 0 or 1. complex -> real: the real part; real -> complex:
//     imaginary part +0; complex -> complex: part by part.
//   NaN between float and double: double -> float keeps sign and top payload, quiet (x86);
//     float -> double quiet, payload kept (x86); f16 -> double keeps the payload unquieted
//     (NumPy's direct half -> double).
#pragma once
#include "npu_emu_common.cuh"
#if defined(NPU_EMU_CPU) && defined(__F16C__) && defined(__AVX__)
#include <immintrin.h>   // the F16C fast path below (CPU only)
#include <atomic>
#define NPU_EMU_F16C 1
#endif

namespace npu_emu {

// ------------------------------------------------------------------ storage tags
struct f16 { uint16_t bits; };
struct bf16 { uint16_t bits; };
struct fp8_e5m2 { uint8_t bits; };
struct fp8_e4m3fn { uint8_t bits; };
struct hif8 { uint8_t bits; };
struct fp8_e8m0 { uint8_t bits; };
struct c32 { uint16_t re, im; };   // two fp16 halves
struct c64 { float re, im; };
struct c128 { double re, im; };
struct boolean { uint8_t v; };      // 0 or 1 (any nonzero byte reads as true)

static_assert(sizeof(f16) == 2 && sizeof(bf16) == 2 && sizeof(fp8_e5m2) == 1 &&
              sizeof(fp8_e4m3fn) == 1 && sizeof(hif8) == 1 && sizeof(fp8_e8m0) == 1 &&
              sizeof(c32) == 4 && sizeof(c64) == 8 && sizeof(c128) == 16 && sizeof(boolean) == 1,
              "storage tags must have their aclDataType's size");

// ------------------------------------------------------------------ bit casts
NPU_EMU_HD uint32_t float_as_bits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    return u;
#endif
}

NPU_EMU_HD float bits_as_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
#endif
}

NPU_EMU_HD uint64_t double_as_bits(double d) {
#if defined(__CUDA_ARCH__)
    return static_cast<uint64_t>(__double_as_longlong(d));
#else
    uint64_t u;
    __builtin_memcpy(&u, &d, 8);
    return u;
#endif
}

NPU_EMU_HD double bits_as_double(uint64_t u) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(static_cast<long long>(u));
#else
    double d;
    __builtin_memcpy(&d, &u, 8);
    return d;
#endif
}

// ------------------------------------------------------------------ the canonical NaN
// Every NaN a kernel computes is stored as its type's canonical quiet NaN (positive, the quiet
// bit alone): which operand's NaN an operation passes on, and with what sign, differs between
// the CPU and the GPU and between a loop's scalar and vector forms. Its codes, declared once
// here for every kernel family, and the float compare-and-select most families apply it with.
constexpr uint32_t CANONICAL_NAN_F32 = 0x7FC00000u;
constexpr uint64_t CANONICAL_NAN_F64 = 0x7FF8000000000000ull;
constexpr uint16_t CANONICAL_NAN_F16 = 0x7E00u;
constexpr uint16_t CANONICAL_NAN_BF16 = 0x7FC0u;
NPU_EMU_HD float canonical_nan_f32() { return bits_as_float(CANONICAL_NAN_F32); }
NPU_EMU_HD double canonical_nan_f64() { return bits_as_double(CANONICAL_NAN_F64); }
NPU_EMU_HD float canonical_nan(float x) { return x != x ? canonical_nan_f32() : x; }
NPU_EMU_HD double canonical_nan(double x) { return x != x ? canonical_nan_f64() : x; }

namespace detail {

template <typename A, typename B> struct is_same { static constexpr bool value = false; };
template <typename A> struct is_same<A, A> { static constexpr bool value = true; };
template <bool B, typename A, typename C> struct conditional { using type = A; };
template <typename A, typename C> struct conditional<false, A, C> { using type = C; };

// float32 magnitude bits -> an IEEE-like format with EB exponent bits, MB mantissa bits, bias
// 2^(EB-1)-1: round to nearest even, no NaN/inf/overflow handling (callers do it): the
// magnitude code, past the largest finite code on overflow. Both ranges are computed and one
// is selected, with the add-half-minus-one-plus-odd rounding trick (no branches).
template <int EB, int MB>
NPU_EMU_HD uint32_t f32_magnitude_to_small(uint32_t a) {
    constexpr uint32_t BIAS = (1u << (EB - 1)) - 1u;
    constexpr uint32_t SH = 23u - MB;
    constexpr uint32_t MIN_NORMAL_E = 127u - BIAS + 1u;   // float32 exponent field of 2^(1-BIAS)
    static_assert(MIN_NORMAL_E > 25u, "float32 denormals must underflow to zero");
    const uint32_t r = a - ((127u - BIAS) << 23);
    const uint32_t normal = (r + ((1u << (SH - 1u)) - 1u) + ((r >> SH) & 1u)) >> SH;
    // Denormal result: value / 2^(1-BIAS-MB) = sig / 2^sh, sh > SH (31 is enough for zero).
    const uint32_t sig = (a & 0x7FFFFFu) | 0x800000u;
    uint32_t sh = SH + MIN_NORMAL_E - (a >> 23);
    sh = sh > 31u ? 31u : sh;
    const uint32_t denormal = (sig + ((1u << (sh - 1u)) - 1u) + ((sig >> sh) & 1u)) >> sh;
    return a >= (MIN_NORMAL_E << 23) ? normal : denormal;
}

}  // namespace detail

// ------------------------------------------------------------------ float32 <-> low precision

// Decoders: exact.
// The decoders and encoders below compute every case and select (no early returns), so that
// g++ vectorizes them and GPU warps do not diverge. Where a select would pick the result of a
// native float conversion, or chain more than two ways, they use masks: g++ 12 will not
// if-convert those and leaves the loop scalar.
NPU_EMU_HD float to_float(f16 x) {
    const uint32_t h = x.bits;
    const uint32_t sign = (h & 0x8000u) << 16;
    const uint32_t em = h & 0x7FFFu;
    const uint32_t normal = (em << 13) + (static_cast<uint32_t>(127 - 15) << 23);
    const uint32_t special = 0x7F800000u | ((em & 0x3FFu) << 13);   // inf, NaN (payload kept)
    // Denormal: man * 2^-24. man (< 2^10) converts to float exactly; 2^-24 is then an exponent
    // decrement (the result stays normal).
    const uint32_t denormal = float_as_bits(static_cast<float>(static_cast<int32_t>(em))) - (24u << 23);
    // Masks, not selects: g++ will not if-convert a float conversion (it "could trap").
    const uint32_t is_special = 0u - static_cast<uint32_t>(em >= 0x7C00u);
    const uint32_t is_normal = (0u - static_cast<uint32_t>(em >= 0x0400u)) & ~is_special;
    const uint32_t is_denormal = 0u - static_cast<uint32_t>(em != 0 && em < 0x0400u);
    return bits_as_float(sign | (special & is_special) | (normal & is_normal) | (denormal & is_denormal));
}

NPU_EMU_HD float to_float(bf16 x) { return bits_as_float(static_cast<uint32_t>(x.bits) << 16); }

NPU_EMU_HD float to_float(fp8_e5m2 x) {
    const uint32_t c = x.bits;
    const float f = to_float(f16{static_cast<uint16_t>(c << 8)});   // e5m2 is fp16's top byte
    const float nan = bits_as_float(((c & 0x80u) << 24) | 0x7FC00000u);  // ml_dtypes' NaN
    return (c & 0x7Fu) > 0x7Cu ? nan : f;
}

NPU_EMU_HD float to_float(fp8_e4m3fn x) {
    const uint32_t c = x.bits;
    const uint32_t sign = (c & 0x80u) << 24;
    const uint32_t em = c & 0x7Fu;
    const uint32_t normal = (em << 20) + (static_cast<uint32_t>(127 - 7) << 23);
    // Denormal: man * 2^-9, leading 1 moved to bit 2.
    uint32_t m = em, s = 0;
    bool t = (m & 0x6u) == 0;
    m = t ? m << 2 : m; s += t ? 2u : 0u;
    t = (m & 0x4u) == 0;
    m = t ? m << 1 : m; s += t ? 1u : 0u;
    const uint32_t denormal = ((static_cast<uint32_t>(127 - 7) - s) << 23) | ((m & 0x3u) << 21);
    uint32_t out = em >= 0x08u ? normal : em != 0 ? denormal : 0u;
    out = em == 0x7Fu ? 0x7FC00000u : out;                       // the NaN (ml_dtypes' bits)
    return bits_as_float(sign | out);
}

NPU_EMU_HD float to_float(fp8_e8m0 x) {
    const uint32_t c = x.bits;
    return bits_as_float(c == 0xFFu ? 0x7FC00000u : c == 0 ? 0x00400000u : c << 23);  // 0: 2^-127
}

NPU_EMU_HD float to_float(hif8 x) {
    const uint32_t c = x.bits;
    const uint32_t sign = (c & 0x80u) << 24;
    const uint32_t v = c & 0x7Fu;
    // Prefix classes: 11xx (D = 4, M = 1), 10xx (D = 3, M = 2), 01xx (D = 2), 001x (D = 1),
    // 0001 (D = 0; M = 3 for all three), 0000 (denormal).
    // (One two-way select per line: g++ does not if-convert longer chains.)
    const uint32_t neg = v < 0x20u ? (v >> 3) & 1u : (v >> 4) & 1u;   // exponent sign
    uint32_t mag = v >= 0x60u ? 8u + ((v >> 1) & 7u) : 4u + ((v >> 2) & 3u);
    mag = v < 0x40u ? 2u + ((v >> 3) & 1u) : mag;
    mag = v < 0x20u ? 1u : mag;
    mag = v < 0x10u ? 0u : mag;                                      // 0001: exponent 0, neg 0
    uint32_t mbits = v >= 0x60u ? 1u : 2u;
    mbits = v < 0x40u ? 3u : mbits;
    const uint32_t man = v & ((1u << mbits) - 1u);
    const uint32_t biased = neg ? 127u - mag : 127u + mag;
    uint32_t out = sign | (biased << 23) | (man << (23u - mbits));
    out = v < 0x08u ? sign | ((v + 104u) << 23) : out;          // denormal 2^(v-23)
    out = v == 0 ? 0u : out;                                     // 0x00: the only zero
    out = v == 0x6Fu ? sign | 0x7F800000u : out;                 // +-inf
    out = c == 0x80u ? 0x7FC00000u : out;                        // NaN
    return bits_as_float(out);
}

NPU_EMU_HD float to_float(float x) { return x; }

// Encoders from float32.
template <typename T> NPU_EMU_HD T from_float(float x);

template <> NPU_EMU_HD float from_float<float>(float x) { return x; }

template <> NPU_EMU_HD f16 from_float<f16>(float x) {
    const uint32_t b = float_as_bits(x);
    const uint32_t a = b & 0x7FFFFFFFu;
    uint32_t code = detail::f32_magnitude_to_small<5, 10>(a);
    code = code > 0x7C00u ? 0x7C00u : code;                     // overflow and inf
    const uint32_t p = (a & 0x7FFFFFu) >> 13;                   // NaN: top payload bits, never
    const uint32_t nan = 0x7C00u | p | static_cast<uint32_t>(p == 0);   // zero (NumPy)
    const uint32_t mask = 0u - static_cast<uint32_t>(a > 0x7F800000u);
    return f16{static_cast<uint16_t>(((b >> 16) & 0x8000u) | (code & ~mask) | (nan & mask))};
}

#if defined(NPU_EMU_F16C)
// CPU fast path (x86 F16C): n float32 -> fp16 with vcvtps2ph, eight at a time. Its results
// equal from_float<f16> on every non-NaN input (round to nearest even from the immediate,
// whatever MXCSR says; fp16 denormals kept; float32 denormals give +-0 either way, so DAZ
// changes nothing; overflow -> inf). NaN differs: vcvtps2ph quiets a signalling NaN (0x7E00 |
// payload), where the rule keeps the payload unquieted (at least 1), so a group of eight with
// a NaN in it goes through from_float<f16>. tests/test_cpu_fast_paths.py compares the two on
// float32 bit patterns of every class (and all 2^32 on request).
//
// Where the CPU has AVX-512F, the same two instructions on 16 lanes (zmm) carry the bulk of a
// row: the conversion is the ymm form's, lane for lane, and a row takes half the stores (a
// float32 -> fp16 row of 16M: 8.2 -> 5.9 ms on a Xeon with a 300 MiB L3). The zmm loops carry
// a target attribute, so a module built without AVX-512 (for its complex kernels) keeps them,
// and run only where the CPU says it has AVX-512F (checked once). A test hook (cast_any.cu) turns
// them off in its module, so an AVX-512 host checks the ymm loops too.
inline std::atomic<int> zmm_allowed{1};
inline bool has_avx512f() {
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") != 0;
    }();
    return yes && zmm_allowed.load(std::memory_order_relaxed) != 0;
}
// d[0, n) from s[0, n), n a multiple of 32 (16 lanes twice); a group of 32 with a NaN in it
// through the rule. Streamed: d is 64-byte aligned and written with non-temporal stores (a
// large output; the caller fences), which a Xeon ran 20% faster than staging in L1.
template <bool Streamed>
__attribute__((target("avx512f"))) inline void f16c_from_floats_512(f16* __restrict__ d, const float* __restrict__ s,
                                                                   int64_t n) {
    constexpr int ROUND = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF);
    const __m512i inf = _mm512_set1_epi32(0x7F800000);
    auto put = [&](int64_t j, __m256i v) {
        if constexpr (Streamed) {
            _mm256_stream_si256(reinterpret_cast<__m256i*>(d + j), v);
        } else {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + j), v);
        }
    };
    for (int64_t j = 0; j < n; j += 32) {
        const __m512 x0 = _mm512_loadu_ps(s + j), x1 = _mm512_loadu_ps(s + j + 16);
        const __mmask16 nan0 = _mm512_cmpgt_epi32_mask(_mm512_and_si512(_mm512_castps_si512(x0), magnitude), inf);
        const __mmask16 nan1 = _mm512_cmpgt_epi32_mask(_mm512_and_si512(_mm512_castps_si512(x1), magnitude), inf);
        if ((nan0 | nan1) == 0) {
            put(j, _mm512_cvtps_ph(x0, ROUND));
            put(j + 16, _mm512_cvtps_ph(x1, ROUND));
        } else {
            alignas(32) f16 group[32];
            for (int k = 0; k < 32; ++k) group[k] = from_float<f16>(s[j + k]);
            put(j, _mm256_load_si256(reinterpret_cast<const __m256i*>(group)));
            put(j + 16, _mm256_load_si256(reinterpret_cast<const __m256i*>(group + 16)));
        }
    }
}
__attribute__((target("avx512f"))) inline void f16c_to_floats_512(float* __restrict__ d, const f16* __restrict__ s,
                                                                 int64_t n) {   // n a multiple of 16
    for (int64_t j = 0; j < n; j += 16)
        _mm512_storeu_ps(d + j, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + j))));
}

inline void f16c_from_floats(f16* __restrict__ d, const float* __restrict__ s, int64_t n) {
    if (n >= 32 && has_avx512f()) {
        const int64_t bulk = n & ~int64_t{31};
        f16c_from_floats_512<false>(d, s, bulk);
        d += bulk;
        s += bulk;
        n -= bulk;
    }
    const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF);
    const __m256i inf = _mm256_set1_epi32(0x7F800000);
    constexpr int ROUND = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    // NaN lanes of a group (magnitude bits above inf's; both >= 0, so the signed compare is right)
    auto nans = [&](__m256 x) { return _mm256_cmpgt_epi32(_mm256_and_si256(_mm256_castps_si256(x), magnitude), inf); };
    auto group = [&](int64_t j) {   // eight: the instruction, or the rule where a NaN is among them
        const __m256 x = _mm256_loadu_ps(s + j);
        const __m256i nan = nans(x);
        if (_mm256_testz_si256(nan, nan)) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + j), _mm256_cvtps_ph(x, ROUND));
        } else {
            for (int64_t k = j; k < j + 8; ++k) d[k] = from_float<f16>(s[k]);
        }
    };
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {   // two groups, one NaN test (the common case: none)
        const __m256 x0 = _mm256_loadu_ps(s + j), x1 = _mm256_loadu_ps(s + j + 8);
        const __m256i nan = _mm256_or_si256(nans(x0), nans(x1));
        if (_mm256_testz_si256(nan, nan)) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + j), _mm256_cvtps_ph(x0, ROUND));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + j + 8), _mm256_cvtps_ph(x1, ROUND));
        } else {
            group(j);
            group(j + 8);
        }
    }
    if (j + 8 <= n) {
        group(j);
        j += 8;
    }
    for (; j < n; ++j) d[j] = from_float<f16>(s[j]);
}

// The same for a large output (the caller fences), where the CPU has AVX-512F: the head up to
// the first 64-byte line and the tail plainly, the lines between with non-temporal stores.
inline bool f16c_from_floats_streamed(f16* __restrict__ d, const float* __restrict__ s, int64_t n) {
    const uint64_t at = reinterpret_cast<uint64_t>(d);
    if (at % 2 != 0 || n < 64 || !has_avx512f()) return false;
    const int64_t head = static_cast<int64_t>(((64u - (at & 63u)) & 63u) / 2u);
    f16c_from_floats(d, s, head);
    const int64_t bulk = (n - head) & ~int64_t{31};
    f16c_from_floats_512<true>(d + head, s + head, bulk);
    f16c_from_floats(d + head + bulk, s + head + bulk, n - head - bulk);
    return true;
}

// n fp16 -> float32 with vcvtph2ps, eight at a time: exact, the value of to_float(f16) on
// every non-NaN code; a signalling NaN comes back quieted (callers that keep NaN payloads
// must not use it: the ufunc kernels canonicalize every NaN result, so they may).
inline void f16c_to_floats(float* __restrict__ d, const f16* __restrict__ s, int64_t n) {
    int64_t j = 0;
    if (n >= 16 && has_avx512f()) {
        j = n & ~int64_t{15};
        f16c_to_floats_512(d, s, j);
    }
    for (; j + 8 <= n; j += 8)
        _mm256_storeu_ps(d + j, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j))));
    for (; j < n; ++j) d[j] = to_float(s[j]);
}
#endif

template <> NPU_EMU_HD bf16 from_float<bf16>(float x) {
    const uint32_t b = float_as_bits(x);
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return bf16{static_cast<uint16_t>(((b >> 16) & 0x8000u) | 0x7FC0u)};
    return bf16{static_cast<uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16)};
}

template <> NPU_EMU_HD fp8_e5m2 from_float<fp8_e5m2>(float x) {
    const uint32_t b = float_as_bits(x);
    const uint32_t a = b & 0x7FFFFFFFu;
    uint32_t code = detail::f32_magnitude_to_small<5, 2>(a);
    code = code > 0x7Cu ? 0x7Cu : code;                         // overflow and inf
    code = a > 0x7F800000u ? 0x7Eu : code;                      // NaN (ml_dtypes)
    return fp8_e5m2{static_cast<uint8_t>(((b >> 24) & 0x80u) | code)};
}

template <> NPU_EMU_HD fp8_e4m3fn from_float<fp8_e4m3fn>(float x) {
    const uint32_t b = float_as_bits(x);
    const uint32_t a = b & 0x7FFFFFFFu;
    uint32_t code = detail::f32_magnitude_to_small<4, 3>(a);
    code = code > 0x7Eu ? 0x7Fu : code;                         // overflow -> NaN
    code = a >= 0x7F800000u ? 0x7Fu : code;                     // NaN, inf -> NaN
    return fp8_e4m3fn{static_cast<uint8_t>(((b >> 24) & 0x80u) | code)};
}

template <> NPU_EMU_HD fp8_e8m0 from_float<fp8_e8m0>(float x) {
    const uint32_t b = float_as_bits(x);
    const uint32_t e = b >> 23, m = b & 0x7FFFFFu;
    // The nearest power of two, a tie (1.5 * 2^k) going up. A normal input 2^(e-127) * (1 + f)
    // rounds up from f = 1/2 (m >= 0x400000). A float32 denormal m * 2^-149 lies between the
    // codes 0 (2^-127, m = 0x400000) and 1 (2^-126): the midpoint is m = 0x600000; below
    // 2^-127 the nearest code is 0, the smallest.
    const uint32_t code = e ? e + (m >= 0x400000u ? 1u : 0u) : (m >= 0x600000u ? 1u : 0u);
    // zero, negative, inf, NaN, overflow -> 0xFF (NaN)
    return fp8_e8m0{static_cast<uint8_t>((b == 0 || b >= 0x7F800000u || code > 254u) ? 0xFFu : code)};
}

namespace detail {
// HiFloat8's layout for an exponent e, |e| <= 15 (docs/conversions.md#hifloat8): D = exponent bits (0 for e = 0,
// else bit length of |e|), M = mantissa bits (3, 3, 3, 2, 1 for D = 0..4); the code is
// prefix(D) | sign(e) << (D - 1 + M) | (|e| without its leading 1) << M | mantissa. Written
// with arithmetic instead of selects so that g++ vectorizes it.
NPU_EMU_HD uint32_t hif8_mantissa_bits(uint32_t d) { return 3u - (d >= 3u) - (d >= 4u); }

NPU_EMU_HD uint32_t hif8_exponent_bits(int32_t e, uint32_t* mbits) {
    const uint32_t neg = static_cast<uint32_t>(e) >> 31;
    const uint32_t mag = static_cast<uint32_t>(e < 0 ? -e : e);
    const uint32_t d = (mag >= 1u) + (mag >= 2u) + (mag >= 4u) + (mag >= 8u);
    const uint32_t m = hif8_mantissa_bits(d);
    const uint32_t prefix = (0x08u << (d - (d >= 4u))) + ((d >= 4u) << 5);   // 08 10 20 40 60
    *mbits = m;
    return prefix | (neg << (d + m - 1u)) | ((mag - ((1u << d) >> 1)) << m);
}
}  // namespace detail

template <> NPU_EMU_HD hif8 from_float<hif8>(float x) {
    const uint32_t b = float_as_bits(x);
    const uint32_t sign = (b >> 24) & 0x80u;
    const uint32_t a = b & 0x7FFFFFFFu;
    const int32_t e = static_cast<int32_t>(a >> 23) - 127;
    const uint32_t m = a & 0x7FFFFFu;
    // Normal range |e| <= 15: round half away from zero at the exponent's mantissa width; a
    // carry moves to the next exponent (|x| < 40960 keeps it <= 15).
    int32_t ec = e < -15 ? -15 : e;
    ec = ec > 15 ? 15 : ec;
    uint32_t mb;
    detail::hif8_exponent_bits(ec, &mb);
    const uint32_t sh = 23u - mb;
    uint32_t man = (m >> sh) + ((m >> (sh - 1u)) & 1u);
    const uint32_t carry = man >> mb;                  // 0 or 1
    man &= carry - 1u;
    uint32_t mb_after;
    const uint32_t normal = sign | detail::hif8_exponent_bits(ec + static_cast<int32_t>(carry), &mb_after) | man;
    // Denormals 2^(v-23), v = 1..7 (e = -23..-16): between 2^e and 2^(e+1) the midpoint is
    // 1.5 * 2^e; below 2^-22 the grid is {0, 2^-22}, midpoint 2^-23. v = 8 is 2^-15 (0x7E).
    uint32_t v = (static_cast<uint32_t>(e + 23) + (m >> 22)) | static_cast<uint32_t>(e == -23);
    v += static_cast<uint32_t>(v == 8u) * (0x7Eu - 8u);
    uint32_t code = e <= -16 ? sign | v : normal;
    // Masks, not selects (g++ merges chained selects into branches it cannot vectorize).
    code &= 0u - static_cast<uint32_t>(a >= 0x34000000u);              // |x| < 2^-23 -> 0x00
    const uint32_t inf = 0u - static_cast<uint32_t>(a >= 0x47200000u); // |x| >= 40960, inf
    code = (code & ~inf) | ((sign | 0x6Fu) & inf);
    const uint32_t nan = 0u - static_cast<uint32_t>(a > 0x7F800000u);
    code = (code & ~nan) | (0x80u & nan);
    return hif8{static_cast<uint8_t>(code)};
}

// ------------------------------------------------------------------ float <-> double
NPU_EMU_HD float double_to_float(double d) {
    const uint64_t b = double_as_bits(d);
    // NaN: quiet, sign and top payload kept (x86)
    const uint32_t nan = (static_cast<uint32_t>(b >> 32) & 0x80000000u) | 0x7FC00000u |
                         static_cast<uint32_t>((b >> 29) & 0x7FFFFFu);
    const uint32_t r = float_as_bits(static_cast<float>(d));   // IEEE round to nearest even
    // A mask, not a select: g++ will not if-convert a float conversion (it "could trap").
    const uint32_t mask = 0u - static_cast<uint32_t>((b & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull);
    return bits_as_float((r & ~mask) | (nan & mask));
}

NPU_EMU_HD double float_to_double(float f) {
    const uint32_t b = float_as_bits(f);
    const uint64_t nan = (static_cast<uint64_t>(b & 0x80000000u) << 32) | 0x7FF8000000000000ull |
                         (static_cast<uint64_t>(b & 0x7FFFFFu) << 29);
    const uint64_t r = double_as_bits(static_cast<double>(f));
    const uint64_t mask = 0ull - static_cast<uint64_t>((b & 0x7FFFFFFFu) > 0x7F800000u);
    return bits_as_double((r & ~mask) | (nan & mask));
}

NPU_EMU_HD double to_double(f16 x) {
    // NaN: payload kept unquieted (NumPy's direct half -> double)
    const uint64_t nan = (static_cast<uint64_t>(x.bits & 0x8000u) << 48) | 0x7FF0000000000000ull |
                         (static_cast<uint64_t>(x.bits & 0x3FFu) << 42);
    const uint64_t r = double_as_bits(static_cast<double>(to_float(x)));
    const uint64_t mask = 0ull - static_cast<uint64_t>((x.bits & 0x7FFFu) > 0x7C00u);
    return bits_as_double((r & ~mask) | (nan & mask));
}

// ------------------------------------------------------------------ float -> integer
namespace detail {

// Saturating truncations, NaN -> 0; the value is clamped before the native conversion so that
// it is always defined (and vectorizes).
template <typename F> NPU_EMU_HD int32_t sat_i32(F x) {
    if constexpr (is_same<F, double>::value) {
        // 2^31 - 1 is a double: the value is clamped into [-2^31, 2^31 - 1] in double lanes
        // and truncated once (the same results, with no 64- to 32-bit select after it).
        const double up = x > -2147483648.0 ? x : -2147483648.0;   // a max (NaN: the bound)
        const double c = up < 2147483647.0 ? up : 2147483647.0;   // a min
        return static_cast<int32_t>(x == x ? c : 0.0);
    } else {
        const F lo = F(-2147483648.0), hi = F(2147483648.0);   // as sat_i64 below
        const F up = x > lo ? x : lo;
        const F c = up < hi ? up : F(0);
        const int32_t r = static_cast<int32_t>(x == x ? c : F(0));
        return x >= hi ? 2147483647 : r;
    }
}

template <typename F> NPU_EMU_HD int64_t sat_i64(F x) {
    // Clamped as a max and a min (NaN: the bound, then 0), truncated, then the one value past
    // the top that no F holds; written so that every select stays in F's lanes.
    const F lo = F(-9223372036854775808.0), hi = F(9223372036854775808.0);
    const F up = x > lo ? x : lo;
    const F c = up < hi ? up : F(0);
    const int64_t r = static_cast<int64_t>(x == x ? c : F(0));
    return x >= hi ? 9223372036854775807ll : r;
}

template <typename F> NPU_EMU_HD uint64_t sat_u64(F x) {
    const F hi = F(18446744073709551616.0), half = F(9223372036854775808.0);
    const F c = x >= half && x < hi ? x : F(0);
    const uint64_t upper = static_cast<uint64_t>(c);
    return x >= hi ? 18446744073709551615ull : x >= half ? upper : static_cast<uint64_t>(sat_i64(x));
}

// Truncation of a float, exact on every target: the instruction (SSE4.1's and AVX-512's
// round, PTX's cvt.rzi), no libm.
NPU_EMU_HD float trunc_exact(float x) {
#if defined(NPU_EMU_CPU)
    return __builtin_truncf(x);
#else
    return truncf(x);
#endif
}

// The low 32 bits of sat_i64(x) for a float, without a 64-bit conversion (which AVX2 lacks):
// from 2^31 up, x = M * 2^k with k >= 8 and the bits are those of M << k.
NPU_EMU_HD uint32_t float_low32(float x) {
    const uint32_t b = float_as_bits(x);
    const uint32_t a = b & 0x7FFFFFFFu;
    const uint32_t small = static_cast<uint32_t>(sat_i32(x));          // |x| < 2^31
    const uint32_t k = (a >> 23) - 150u;                               // 8..39 for 2^31 <= |x| < 2^63
    const uint32_t shifted = k < 32u ? ((a & 0x7FFFFFu) | 0x800000u) << k : 0u;
    const uint32_t big = (b >> 31) ? 0u - shifted : shifted;
    const uint32_t sat = (b >> 31) ? 0u : 0xFFFFFFFFu;                 // low bits of INT64_MIN / MAX
    return a > 0x7F800000u ? 0u : a >= 0x5F000000u ? sat : a >= 0x4F000000u ? big : small;
}

template <typename I, typename F> NPU_EMU_HD I float_to_int(F x) {
    if constexpr (is_same<I, int64_t>::value) return sat_i64(x);
    else if constexpr (is_same<I, uint64_t>::value) return sat_u64(x);
    else if constexpr (is_same<I, int8_t>::value || is_same<I, int16_t>::value ||
                       is_same<I, int32_t>::value) return static_cast<I>(sat_i32(x));
    else if constexpr (is_same<F, float>::value && is_same<I, uint8_t>::value) {
        // Same bits as float_low32, cheaper: from 2^31 up to 2^63 a float is a multiple of
        // 2^8 (low byte 0); sat_i32 already gives 0xFF above 2^63 and 0x00 from -2^31 down.
        const uint32_t r = static_cast<uint32_t>(sat_i32(x));
        const uint32_t b = float_as_bits(x);   // in [2^31, 2^63): 0x4F000000 <= b < 0x5F000000
        const uint32_t keep = 0u - static_cast<uint32_t>(b - 0x4F000000u >= 0x10000000u);
        return static_cast<I>(r & keep);
    }
    else if constexpr (is_same<F, float>::value && is_same<I, uint16_t>::value) {
        // Same bits as float_low32, cheaper: trunc(x) modulo 2^16 as float arithmetic, every
        // step exact for |x| < 2^63. t = trunc(x) and t * 2^-16 are exact, so are its
        // truncation and 2^16 times that (y); m = t - y lies in (-2^16, 2^16), t's remainder:
        // exact for |t| < 2^17 (integers), and beyond by Sterbenz's lemma (y within 2^16 of t
        // and of its sign, so between t/2 and t). The int32 m keeps t's low 16 bits, the
        // uint16 takes them. From 2^39 on t is a multiple of 2^16 and gives 0, as the low bits
        // of the int64 do. The ends: 0xFFFF from 2^63 up (INT64_MAX's low bits), 0 from -2^63
        // down and for NaN.
        const float t = trunc_exact(x);
        const float m = t - 65536.0f * trunc_exact(t * 0x1p-16f);
        const bool inside = x >= -0x1p63f && x < 0x1p63f;     // false for NaN
        const int32_t v = static_cast<int32_t>(inside ? m : 0.0f);
        return static_cast<I>(x >= 0x1p63f ? 0xFFFF : v);
    }
    else if constexpr (is_same<F, float>::value) return static_cast<I>(float_low32(x));
    else return static_cast<I>(sat_i64(x));   // uint8, uint16, uint32: low bits of int64
}

// ------------------------------------------------------------------ dispatch
// Each source reads as one of int32_t, int64_t, uint64_t, float, double; each destination is
// built from those. Complex and same-type pairs are handled in convert().
enum Kind { SIGNED_INT, UNSIGNED_INT, BOOLEAN, FLOAT32, FLOAT64, LOWP, COMPLEX };

template <typename T> struct Traits;
#define NPU_EMU_TRAITS(T, K) template <> struct Traits<T> { static constexpr Kind kind = K; };
NPU_EMU_TRAITS(int8_t, SIGNED_INT)
NPU_EMU_TRAITS(int16_t, SIGNED_INT)
NPU_EMU_TRAITS(int32_t, SIGNED_INT)
NPU_EMU_TRAITS(int64_t, SIGNED_INT)
NPU_EMU_TRAITS(uint8_t, UNSIGNED_INT)
NPU_EMU_TRAITS(uint16_t, UNSIGNED_INT)
NPU_EMU_TRAITS(uint32_t, UNSIGNED_INT)
NPU_EMU_TRAITS(uint64_t, UNSIGNED_INT)
NPU_EMU_TRAITS(boolean, BOOLEAN)
NPU_EMU_TRAITS(float, FLOAT32)
NPU_EMU_TRAITS(double, FLOAT64)
NPU_EMU_TRAITS(f16, LOWP)
NPU_EMU_TRAITS(bf16, LOWP)
NPU_EMU_TRAITS(fp8_e5m2, LOWP)
NPU_EMU_TRAITS(fp8_e4m3fn, LOWP)
NPU_EMU_TRAITS(hif8, LOWP)
NPU_EMU_TRAITS(fp8_e8m0, LOWP)
NPU_EMU_TRAITS(c32, COMPLEX)
NPU_EMU_TRAITS(c64, COMPLEX)
NPU_EMU_TRAITS(c128, COMPLEX)
#undef NPU_EMU_TRAITS

template <typename C> struct Part;
template <> struct Part<c32> { using type = f16; };
template <> struct Part<c64> { using type = float; };
template <> struct Part<c128> { using type = double; };

NPU_EMU_HD f16 re_of(c32 x) { return f16{x.re}; }
NPU_EMU_HD f16 im_of(c32 x) { return f16{x.im}; }
NPU_EMU_HD float re_of(c64 x) { return x.re; }
NPU_EMU_HD float im_of(c64 x) { return x.im; }
NPU_EMU_HD double re_of(c128 x) { return x.re; }
NPU_EMU_HD double im_of(c128 x) { return x.im; }

NPU_EMU_HD c32 make_complex(f16 re, f16 im, c32*) { return c32{re.bits, im.bits}; }
NPU_EMU_HD c64 make_complex(float re, float im, c64*) { return c64{re, im}; }
NPU_EMU_HD c128 make_complex(double re, double im, c128*) { return c128{re, im}; }

// Store<Dst>::from(v) for v of type int32_t, int64_t, uint64_t, float or double (int32_t: the
// value of every integer type up to 16 bits and of int32, a narrower lane for the CPU's vectors).
template <typename Dst, Kind K = Traits<Dst>::kind> struct Store;

template <typename Dst> struct Store<Dst, SIGNED_INT> {
    static NPU_EMU_HD Dst from(int32_t v) { return static_cast<Dst>(v); }
    static NPU_EMU_HD Dst from(int64_t v) { return static_cast<Dst>(v); }
    static NPU_EMU_HD Dst from(uint64_t v) { return static_cast<Dst>(v); }
    static NPU_EMU_HD Dst from(float v) { return float_to_int<Dst>(v); }
    static NPU_EMU_HD Dst from(double v) { return float_to_int<Dst>(v); }
};
template <typename Dst> struct Store<Dst, UNSIGNED_INT> : Store<Dst, SIGNED_INT> {};

template <> struct Store<boolean, BOOLEAN> {
    static NPU_EMU_HD boolean from(int32_t v) { return boolean{static_cast<uint8_t>(v != 0)}; }
    static NPU_EMU_HD boolean from(int64_t v) { return boolean{static_cast<uint8_t>(v != 0)}; }
    static NPU_EMU_HD boolean from(uint64_t v) { return boolean{static_cast<uint8_t>(v != 0)}; }
    static NPU_EMU_HD boolean from(float v) { return boolean{static_cast<uint8_t>(v != 0.0f)}; }
    static NPU_EMU_HD boolean from(double v) { return boolean{static_cast<uint8_t>(v != 0.0)}; }
};

template <> struct Store<float, FLOAT32> {
    static NPU_EMU_HD float from(int32_t v) { return static_cast<float>(v); }
    static NPU_EMU_HD float from(int64_t v) { return static_cast<float>(v); }
    static NPU_EMU_HD float from(uint64_t v) { return static_cast<float>(v); }
    static NPU_EMU_HD float from(float v) { return v; }
    static NPU_EMU_HD float from(double v) { return double_to_float(v); }
};

template <> struct Store<double, FLOAT64> {
    static NPU_EMU_HD double from(int32_t v) { return static_cast<double>(v); }
    static NPU_EMU_HD double from(int64_t v) { return static_cast<double>(v); }
    static NPU_EMU_HD double from(uint64_t v) { return static_cast<double>(v); }
    static NPU_EMU_HD double from(float v) { return float_to_double(v); }
    static NPU_EMU_HD double from(double v) { return v; }
};

template <typename Dst> struct Store<Dst, LOWP> {
    static NPU_EMU_HD Dst from(int32_t v) { return from_float<Dst>(static_cast<float>(v)); }
    static NPU_EMU_HD Dst from(int64_t v) { return from_float<Dst>(static_cast<float>(v)); }
    static NPU_EMU_HD Dst from(uint64_t v) { return from_float<Dst>(static_cast<float>(v)); }
    static NPU_EMU_HD Dst from(float v) { return from_float<Dst>(v); }
    static NPU_EMU_HD Dst from(double v) { return from_float<Dst>(double_to_float(v)); }
};

// Load(x): the value of a real source as int32_t, int64_t, uint64_t, float or double.
NPU_EMU_HD int32_t load(int8_t x) { return x; }
NPU_EMU_HD int32_t load(int16_t x) { return x; }
NPU_EMU_HD int32_t load(int32_t x) { return x; }
NPU_EMU_HD int64_t load(int64_t x) { return x; }
NPU_EMU_HD int32_t load(uint8_t x) { return x; }
NPU_EMU_HD int32_t load(uint16_t x) { return x; }
NPU_EMU_HD uint64_t load(uint32_t x) { return x; }
NPU_EMU_HD uint64_t load(uint64_t x) { return x; }
NPU_EMU_HD int32_t load(boolean x) { return x.v != 0; }
NPU_EMU_HD float load(float x) { return x; }
NPU_EMU_HD double load(double x) { return x; }
template <typename T> NPU_EMU_HD float load(T x) { return to_float(x); }   // low precision

}  // namespace detail

// ------------------------------------------------------------------ convert
template <typename Dst, typename Src>
NPU_EMU_HD Dst convert(Src x) {
    using detail::COMPLEX;
    using detail::Traits;
    constexpr detail::Kind ks = Traits<Src>::kind, kd = Traits<Dst>::kind;
    if constexpr (detail::is_same<Dst, Src>::value) {
        return x;
    } else if constexpr (detail::is_same<Dst, double>::value && detail::is_same<Src, f16>::value) {
        return to_double(x);
    } else if constexpr (ks == COMPLEX && kd == COMPLEX) {
        using P = typename detail::Part<Dst>::type;
        return detail::make_complex(convert<P>(detail::re_of(x)), convert<P>(detail::im_of(x)),
                                    static_cast<Dst*>(nullptr));
    } else if constexpr (ks == COMPLEX) {
        if constexpr (kd == detail::BOOLEAN) {
            return boolean{static_cast<uint8_t>(convert<boolean>(detail::re_of(x)).v |
                                                convert<boolean>(detail::im_of(x)).v)};
        } else {
            return convert<Dst>(detail::re_of(x));
        }
    } else if constexpr (kd == COMPLEX) {
        using P = typename detail::Part<Dst>::type;
        return detail::make_complex(convert<P>(x), convert<P>(0.0f), static_cast<Dst*>(nullptr));
    } else {
        return detail::Store<Dst>::from(detail::load(x));
    }
}

}  // namespace npu_emu
