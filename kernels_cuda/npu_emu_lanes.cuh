// Lanes: a float function written once over its lane type, for one lane (the GPU's threads, the
// CPU's scalar code and the tails of its rows) and for 8 or 16 lanes at a time (the CPU's rows
// where GCC targets AVX-512F: its vector extensions; another compiler takes the one-lane form),
// with the same operations in the same order on each lane, so the same bits.
//
// Lane types: float and double (one lane), or F8 / D8, GCC vectors of 8 floats and 8 doubles
// (with U8 / I8 their uint32 / int32 bits and U8L their uint64 bits), or F16, 16 floats (U16 /
// I16 their bits), for functions computed in float alone. A function over lanes
// uses + - * / (each lane rounded as IEEE rounds the scalar operation), comparisons (a bool,
// or a mask of lanes; mask_of(c) makes either a bit mask), select(m, a, b) (m ? a : b per
// lane), splat<D>(c) (c on every lane), the bit casts below, the conversions to_double /
// to_float / i32_to_double (one rounding each, as the scalar casts), and lookups of short
// tables at each lane's own index: one load on one lane, vpermt2pd / vpermt2q on 8 and
// vpermt2ps on 16 (a permutation of registers: bits moved, not computed), where the
// compiler's own vectorization of t[i] gathers, and a gather of 8 lanes costs about as much
// as 12 double operations on the cores measured.
//
// A split form (npu_emu_math_split.cuh) offers its 8- or 16-lane version as overloads of
// fast() and declares `static constexpr int lanes = 8;` (or 16; LanesOf below); ufunc.cuh's
// staged_row runs it over a chunk's full groups of lanes and the one-lane fast() over the rest.
#pragma once
#include "npu_emu_common.cuh"
#include "npu_emu_convert.cuh"

#if defined(NPU_EMU_CPU) && defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#define NPU_EMU_LANES8 1
#include <immintrin.h>
#endif

namespace npu_emu {
namespace lanes {

// One lane.
NPU_EMU_HD uint32_t bits(float x) { return float_as_bits(x); }
NPU_EMU_HD uint64_t bits(double x) { return double_as_bits(x); }
NPU_EMU_HD float float_from_bits(uint32_t u) { return bits_as_float(u); }
NPU_EMU_HD double double_from_bits(uint64_t u) { return bits_as_double(u); }
NPU_EMU_HD int32_t as_signed(uint32_t u) { return static_cast<int32_t>(u); }
NPU_EMU_HD double to_double(float x) { return static_cast<double>(x); }
NPU_EMU_HD double i32_to_double(int32_t i) { return static_cast<double>(i); }
NPU_EMU_HD float to_float(double x) { return static_cast<float>(x); }
// Table indices: signed 32-bit on one lane (GCC's vectorizer of the one-lane form gathers
// with them, not with unsigned or 64-bit ones), 64-bit on 8 (vpermt2pd's).
NPU_EMU_HD int32_t index_of(uint32_t u) { return static_cast<int32_t>(u); }
NPU_EMU_HD int32_t index_of(uint64_t u) { return static_cast<int32_t>(u); }
NPU_EMU_HD double select(bool m, double a, double b) { return m ? a : b; }
template <typename D> NPU_EMU_HD D splat(double c);
template <> NPU_EMU_HD double splat<double>(double c) { return c; }
// (the tables by reference: GCC vectorizes a gather from the array itself, not through a
// pointer it cannot tell from the loop's output)
NPU_EMU_HD double lookup16(const double (&t)[16], int32_t i) { return t[i & 15]; }
NPU_EMU_HD uint64_t lookup32(const uint64_t (&t)[32], int32_t i) { return t[i & 31]; }
NPU_EMU_HD float lookup32(const float (&t)[32], uint32_t i) { return t[static_cast<int32_t>(i & 31u)]; }
// A condition as a bit mask: all ones where it holds (bool on one lane, a comparison's lanes).
NPU_EMU_HD uint32_t mask_of(bool m) { return 0u - static_cast<uint32_t>(m); }

#if defined(NPU_EMU_LANES8)
// Eight lanes.
typedef float F8 __attribute__((vector_size(32)));
typedef uint32_t U8 __attribute__((vector_size(32)));
typedef int32_t I8 __attribute__((vector_size(32)));
typedef double D8 __attribute__((vector_size(64)));
typedef uint64_t U8L __attribute__((vector_size(64)));
typedef int64_t I8L __attribute__((vector_size(64)));
NPU_EMU_HD U8 bits(F8 x) { return reinterpret_cast<U8>(x); }
NPU_EMU_HD U8L bits(D8 x) { return reinterpret_cast<U8L>(x); }
NPU_EMU_HD F8 float_from_bits(U8 u) { return reinterpret_cast<F8>(u); }
NPU_EMU_HD D8 double_from_bits(U8L u) { return reinterpret_cast<D8>(u); }
NPU_EMU_HD I8 as_signed(U8 u) { return reinterpret_cast<I8>(u); }
// The conversions by their instructions (GCC 12 splits __builtin_convertvector's 8-lane forms
// in two); each rounds or converts exactly as the scalar cast does.
NPU_EMU_HD D8 to_double(F8 x) { return reinterpret_cast<D8>(_mm512_cvtps_pd(reinterpret_cast<__m256>(x))); }
NPU_EMU_HD D8 i32_to_double(I8 i) { return reinterpret_cast<D8>(_mm512_cvtepi32_pd(reinterpret_cast<__m256i>(i))); }
NPU_EMU_HD F8 to_float(D8 x) { return reinterpret_cast<F8>(_mm512_cvtpd_ps(reinterpret_cast<__m512d>(x))); }
NPU_EMU_HD I8L index_of(U8 u) { return reinterpret_cast<I8L>(_mm512_cvtepu32_epi64(reinterpret_cast<__m256i>(u))); }
NPU_EMU_HD I8L index_of(U8L u) { return reinterpret_cast<I8L>(u); }
NPU_EMU_HD D8 select(I8L m, D8 a, D8 b) { return m ? a : b; }
template <> NPU_EMU_HD D8 splat<D8>(double c) { return D8{} + c; }
NPU_EMU_HD D8 lookup16(const double (&t)[16], I8L i) {
    D8 lo, hi;
    __builtin_memcpy(&lo, t, sizeof lo);
    __builtin_memcpy(&hi, t + 8, sizeof hi);
    return __builtin_shuffle(lo, hi, i & 15);
}
NPU_EMU_HD U8L lookup32(const uint64_t (&t)[32], I8L i) {
    U8L a, b, c, d;
    __builtin_memcpy(&a, t, sizeof a);
    __builtin_memcpy(&b, t + 8, sizeof b);
    __builtin_memcpy(&c, t + 16, sizeof c);
    __builtin_memcpy(&d, t + 24, sizeof d);
    const I8L k = i & 15;
    const U8L lo = __builtin_shuffle(a, b, k), hi = __builtin_shuffle(c, d, k);
    return (i & 16) != 0 ? hi : lo;
}

// Sixteen float lanes (one register), for float-only functions: a table of 32 floats is read
// by vpermt2ps (two registers, permuted), where the one-lane form's vectorization gathers (on
// Zen 4 two gathers took two thirds of float atan's loop).
typedef float F16 __attribute__((vector_size(64)));
typedef uint32_t U16 __attribute__((vector_size(64)));
typedef int32_t I16 __attribute__((vector_size(64)));
NPU_EMU_HD U16 bits(F16 x) { return reinterpret_cast<U16>(x); }
NPU_EMU_HD F16 float_from_bits(U16 u) { return reinterpret_cast<F16>(u); }
NPU_EMU_HD U16 mask_of(I16 m) { return reinterpret_cast<U16>(m); }
NPU_EMU_HD F16 lookup32(const float (&t)[32], U16 i) {
    F16 lo, hi;
    __builtin_memcpy(&lo, t, sizeof lo);
    __builtin_memcpy(&hi, t + 16, sizeof hi);
    return __builtin_shuffle(lo, hi, i & 31u);
}
// L floats from memory and back: FloatLanes<L> is F8 or F16.
template <int L> struct FloatLanesOf;
template <> struct FloatLanesOf<8> { using type = F8; };
template <> struct FloatLanesOf<16> { using type = F16; };
template <int L> using FloatLanes = typename FloatLanesOf<L>::type;
template <int L> NPU_EMU_HD FloatLanes<L> load(const float* p) {
    FloatLanes<L> v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}
template <typename V> NPU_EMU_HD void store(float* p, V v) { __builtin_memcpy(p, &v, sizeof v); }
#endif

// LanesOf<S>::value: the lanes S's fast() takes at a time on this target besides one (S's
// `lanes`, 8 or 16, where the target has AVX-512F; else 1).
template <typename S, typename = void> struct LanesOf { static constexpr int value = 1; };
#if defined(NPU_EMU_LANES8)
template <typename S> struct LanesOf<S, decltype(void(S::lanes))> { static constexpr int value = S::lanes; };
#endif

}  // namespace lanes
}  // namespace npu_emu
