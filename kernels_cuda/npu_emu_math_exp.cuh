// The exp/log family (exp, exp2, expm1, log, log2, log10, log1p, the hyperbolic functions and
// their inverses, pow, logaddexp) for float and double, written once for both targets from
// + - * / sqrt, comparisons and bit operations only: g++ (-ffp-contract=off) and NVRTC
// (--fmad=false, no ftz) then produce the same bits. docs/math.md has the algorithms and the
// measured errors; the constants come from tools/gen_math_exp_coeffs.py.
#pragma once

#include "npu_emu_common.cuh"
#include "npu_emu_convert.cuh"
#include "npu_emu_math_float.cuh"
#include "npu_emu_lanes.cuh"
#include "npu_emu_math_split.cuh"

namespace npu_emu {
namespace math {
namespace expdetail {

// ------------------------------------------------------------------ double-double arithmetic
// An unevaluated sum hi + lo with |lo| <= ulp(hi) / 2. Without fma, exact products come from
// Veltkamp's split (Dekker's algorithm); none of the operands here is large enough to overflow
// the split (|a| < 2^996).
struct dd {
    double hi, lo;
};

NPU_EMU_HD dd two_sum(double a, double b) {
    const double s = a + b;
    const double bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
}

NPU_EMU_HD dd fast_two_sum(double a, double b) {  // needs |a| >= |b| (or a == 0)
    const double s = a + b;
    return {s, b - (s - a)};
}

NPU_EMU_HD dd split(double a) {
    const double c = 134217729.0 * a;  // 2^27 + 1
    const double hi = c - (c - a);
    return {hi, a - hi};
}

NPU_EMU_HD dd two_prod(double a, double b) {
    const double p = a * b;
    const dd x = split(a), y = split(b);
    return {p, ((x.hi * y.hi - p) + x.hi * y.lo + x.lo * y.hi) + x.lo * y.lo};
}

NPU_EMU_HD dd dd_add(dd a, dd b) {
    dd s = two_sum(a.hi, b.hi);
    const dd t = two_sum(a.lo, b.lo);
    s = fast_two_sum(s.hi, s.lo + t.hi);
    return fast_two_sum(s.hi, s.lo + t.lo);
}

NPU_EMU_HD dd dd_add_d(dd a, double b) {
    const dd s = two_sum(a.hi, b);
    return fast_two_sum(s.hi, s.lo + a.lo);
}

NPU_EMU_HD dd dd_mul(dd a, dd b) {
    const dd p = two_prod(a.hi, b.hi);
    return fast_two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

NPU_EMU_HD dd dd_mul_d(dd a, double b) {
    const dd p = two_prod(a.hi, b);
    return fast_two_sum(p.hi, p.lo + a.lo * b);
}

NPU_EMU_HD dd dd_div(dd a, dd b) {
    const double q1 = a.hi / b.hi;
    const dd r = dd_add(a, dd_mul_d(b, -q1));  // the remainder a - q1 b
    return fast_two_sum(q1, r.hi / b.hi);
}

NPU_EMU_HD double sqrt_rn(double x) {  // IEEE sqrt (correctly rounded) on both targets
#if defined(__CUDA_ARCH__)
    return ::sqrt(x);
#else
    return __builtin_sqrt(x);
#endif
}

// ------------------------------------------------------------------ constants and bits
constexpr double LN2_HI = 0x1.62e42fefa3800p-1;   // 42 bits: k * LN2_HI is exact for |k| < 2^11
constexpr double LN2_LO = 0x1.ef35793c76730p-45;  // ln2 - LN2_HI
// ln2, 1/ln2 and 1/ln10 as double-doubles (hi, lo); scalars, as device code may use those
constexpr double LN2_H = 0x1.62e42fefa39efp-1, LN2_L = 0x1.abc9e3b39803fp-56;
constexpr double LN2_TAIL = 0x1.7b57a079a1934p-111;  // ln2 - LN2_H - LN2_L
constexpr double INV_LN2 = 0x1.71547652b82fep+0;
constexpr double INV_LN2_L = 0x1.777d0ffda0d24p-56;
constexpr double INV_LN10_H = 0x1.bcb7b1526e50ep-2, INV_LN10_L = 0x1.95355baaafad3p-57;
constexpr uint64_t SQRT2_BITS = 0x3FF6A09E667F3BCDull;

NPU_EMU_HD double inf_d() { return bits_as_double(0x7FF0000000000000ull); }
NPU_EMU_HD double abs_d(double x) { return bits_as_double(double_as_bits(x) & 0x7FFFFFFFFFFFFFFFull); }
NPU_EMU_HD double high_word(double v) {  // v with its low 32 bits cleared: 21 significant bits
    return bits_as_double(double_as_bits(v) & 0xFFFFFFFF00000000ull);
}
NPU_EMU_HD double pow2(int k) {  // 2^k, -1022 <= k <= 1023
    return bits_as_double(static_cast<uint64_t>(k + 1023) << 52);
}

// v * 2^k for v in [0.5, 2) and -1100 < k < 1100, rounded once (to a subnormal, 0 or inf where
// the result lies there): the first factor is exact, only the second one rounds.
// Selects, no branches (the split forms' loops vectorize over it); in range the second factor is 1.
NPU_EMU_HD double scale(double v, int k) {
    const int k1 = k > 1023 ? 1023 : k < -1022 ? k + 1000 : k;
    const int k2 = k > 1023 ? k - 1023 : k < -1022 ? -1000 : 0;
    return v * pow2(k1) * pow2(k2);
}

NPU_EMU_HD double round_to_int(double t) {  // nearest integer (ties to even), |t| < 2^51
    const double shift = 0x1.8p52;
    return (t + shift) - shift;
}

// c[0] x^(N-1) + c[1] x^(N-2) + ... + c[N-1] by Horner's rule, one multiply and one add a
// step, in that order (unrolled by the compiler: the written-out chain's bits).
template <int N>
NPU_EMU_HD double horner(const double (&c)[N], double x) {
    double f = c[0];
    for (int i = 1; i < N; ++i) f = f * x + c[i];
    return f;
}

// ------------------------------------------------------------------ exp core
// x = k ln2 + r, |r| <= ln2/2 (+ a little): k * LN2_HI is exact and x - k * LN2_HI exact by
// Sterbenz's lemma, so r is known as a double-double to ~2^-100.
struct reduced {
    int k;
    dd r;
};

NPU_EMU_HD reduced exp_reduce(dd x) {
    const double kd = round_to_int(x.hi * INV_LN2);
    const dd r = two_sum(x.hi - kd * LN2_HI, -(kd * LN2_LO));
    return {static_cast<int>(kd), fast_two_sum(r.hi, r.lo + x.lo)};
}

// F(r) = (e^r - 1 - r - r^2/2) / r^3 on [-0.35, 0.35]: a degree-10 Chebyshev fit; with the
// rounded coefficients |r^3 (F - fit)| < 2^-61.
NPU_EMU_HD double exp_tail(double r) {
    const double c[11] = {0x1.61b58491cefd7p-33, 0x1.1f75a3caadff5p-29, 0x1.ae6432edf6fafp-26,
                          0x1.27e4da1e12fb1p-22, 0x1.71de3a593c8b9p-19, 0x1.a01a01a74077ap-16,
                          0x1.a01a01a019ac3p-13, 0x1.6c16c16c16214p-10, 0x1.1111111111111p-7,
                          0x1.5555555555556p-5,  0x1.5555555555555p-3};
    return horner(c, r);
}

// e^r - 1 - r as a double-double (r^2/2 exact, the cubic tail in double): |error| < 2^-60.
NPU_EMU_HD dd expm1_minus_r(dd r) {
    const dd sq = two_prod(r.hi, r.hi);
    const double tail = 0.5 * sq.lo + sq.hi * r.hi * exp_tail(r.hi) + r.lo * r.hi;
    return fast_two_sum(0.5 * sq.hi, tail);
}

// e^r for a reduced r, as a double-double with |error| < 2^-59 (relative).
NPU_EMU_HD dd exp_poly(dd r) {
    const dd p = expm1_minus_r(r);
    const dd s1 = two_sum(1.0, r.hi);
    const dd s2 = two_sum(s1.hi, p.hi);
    return fast_two_sum(s2.hi, s1.lo + s2.lo + p.lo + r.lo);
}

// e^x * 2^extra rounded once, for any x (0 or inf outside the range), extra in {0, -1}.
// Selects, no branches: out of range, x is replaced by 0 before the reduction and the result by
// inf or 0.
NPU_EMU_HD double exp_scaled(dd x, int extra) {
    const bool over = x.hi > 711.0, under = x.hi < -746.0;
    const reduced red = exp_reduce(over || under ? dd{0.0, 0.0} : x);
    const dd e = exp_poly(red.r);
    const double r = scale(e.hi + e.lo, red.k + extra);
    return over ? inf_d() : under ? 0.0 : r;
}

// ------------------------------------------------------------------ exp to ~2^-100
// For logaddexp's correction only (where the result cancels): e^x as 2^k (1 + E) with E to
// ~2^-100 of itself (E, not 1 + E: e^x - 1 keeps that relative accuracy where k = 0, for the
// tiny x that logaddexp meets). r = x - k ln2 with ln2 in three parts (k * LN2_HI exact),
// E = e^r - 1 by the Taylor series of r / 256 in double-double (degree 9, truncation below
// 2^-110), then eight doublings E -> E (E + 2).
constexpr double LN2_LO2 = 0x1.f97b57a079a19p-103;  // ln2 - LN2_HI - LN2_LO
struct precise_exp {
    int k;
    dd e;  // e^x = 2^k (1 + e)
};

NPU_EMU_HD precise_exp exp_precise(dd x) {  // |x| < 700
    const double kd = round_to_int(x.hi * INV_LN2);
    dd r = dd_add(two_sum(x.hi - kd * LN2_HI, x.lo), two_prod(-kd, LN2_LO));
    r = dd_add_d(r, -kd * LN2_LO2);
    const dd y = {r.hi * 0x1p-8, r.lo * 0x1p-8};
    // 1/n! for n = 9 ... 2, double-double (tools/gen_math_exp_coeffs.py)
    const dd c[8] = {{0x1.71de3a556c734p-19, -0x1.c154f8ddc6c00p-73}, {0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-76},
                     {0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-73}, {0x1.6c16c16c16c17p-10, -0x1.f49f49f49f49fp-65},
                     {0x1.1111111111111p-7, 0x1.1111111111111p-63},  {0x1.5555555555555p-5, 0x1.5555555555555p-59},
                     {0x1.5555555555555p-3, 0x1.5555555555555p-57},  {0.5, 0.0}};
    dd p = c[0];
    for (int n = 1; n < 8; ++n) p = dd_add(dd_mul(p, y), c[n]);
    dd e = dd_add(y, dd_mul(dd_mul(y, y), p));  // e^y - 1
    for (int n = 0; n < 8; ++n) e = dd_mul(e, dd_add_d(e, 2.0));
    return {static_cast<int>(kd), e};
}

// ------------------------------------------------------------------ log core
// log(1 + f) = 2 atanh(s) = 2s + s z P(z) with s = f / (2 + f), z = s^2 <= 0.0295 for f in
// [sqrt(1/2) - 1, sqrt(2) - 1], and P the atanh series sum 2 z^n / (2n + 3): its terms past
// z^12 are below 2^-70 of the result.
NPU_EMU_HD double atanh_series_tail(double z) {  // 2/7 + 2z/9 + ... + 2z^10/27
    const double c[11] = {0x1.2f684bda12f68p-4, 0x1.47ae147ae147bp-4, 0x1.642c8590b2164p-4,
                          0x1.8618618618618p-4, 0x1.af286bca1af28p-4, 0x1.e1e1e1e1e1e1ep-4,
                          0x1.1111111111111p-3, 0x1.3b13b13b13b14p-3, 0x1.745d1745d1746p-3,
                          0x1.c71c71c71c71cp-3, 0x1.2492492492492p-2};
    return horner(c, z);
}

NPU_EMU_HD double atanh_series(double z) {  // P(z) in double
    return (atanh_series_tail(z) * z + 0x1.999999999999ap-2) * z + 0x1.5555555555555p-1;
}

// log(1 + f) for a double-double f in that range: s z P(z) in double, at most 1% of the result:
// relative error below 2^-57.
NPU_EMU_HD dd log1p_core(dd f) {
    const dd s = dd_div(f, dd_add_d(f, 2.0));
    const double z = s.hi * s.hi;
    return fast_two_sum(2.0 * s.hi, 2.0 * s.lo + s.hi * z * atanh_series(z));
}

// e ln2 + log(1 + f), f = m - 1 + low (m - 1 exact).
NPU_EMU_HD dd log_from_parts(double m, double low, int e) {
    const dd l = log1p_core(two_sum(m - 1.0, low));
    const double ed = static_cast<double>(e);
    return dd_add(fast_two_sum(ed * LN2_HI, ed * LN2_LO), l);
}

// log(u) for a positive finite double-double u: u = 2^e m, m in [sqrt(1/2), sqrt(2)), so
// log(u) = e ln2 + log(1 + f) with f = m - 1 exact.
// Selects, no branches (the split forms' loops vectorize over it).
NPU_EMU_HD dd log_dd(dd u) {
    const bool sub = u.hi < 0x1p-1022;  // subnormal: normalize first
    const double uh = sub ? u.hi * 0x1p54 : u.hi, ul = sub ? u.lo * 0x1p54 : u.lo;
    const uint64_t b = double_as_bits(uh);
    const uint64_t mb = (b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
    const bool high = mb > SQRT2_BITS;
    const int e = (sub ? -54 : 0) + static_cast<int>(b >> 52) - 1023 + (high ? 1 : 0);
    const double low = ul == 0.0 ? 0.0 : ul * pow2(-e / 2) * pow2(-e - (-e / 2));
    return log_from_parts(bits_as_double(high ? mb - (1ull << 52) : mb), low, e);
}

}  // namespace expdetail

// ================================================================== double
namespace fn { struct exp; struct log; struct log2; struct log10; }

// Split forms (npu_emu_math_split.cuh) of the double functions: fast(x) is the full path's
// operations for the common arguments with its branches resolved (so the same bits), rare(x)
// the rest.
// Every split form in this header declares `canonical` (fast() on a non-rare lane makes no NaN
// but the canonical one): each rare() takes NaN, and the infinities but for float32 expm1's
// -inf (clamped to -17.5 first) and tanh's +-inf (clamped to 9.25 / 22 first; float32 tanh
// returns canonical_nan_f32() for NaN as its last select), so fast() computes on finite arguments in
// bounded ranges, with nonzero divisors and non-negative square roots: nothing there makes a
// NaN (a result may overflow to inf). tests/test_split_canonical.py checks it.
// exp in fdlibm's scheme (e_exp.c) in plain double, no double-double: x = k ln2 + r with ln2 in
// fdlibm's split (k * LN2_HI_FD exact, x - k * LN2_HI_FD exact by Sterbenz's lemma),
// r = hi - lo; k by the 0x1.8p52 shift, whose low bits hold k as an integer, so 2^k and 2^-k
// come from bits (no int64 to double conversion: the loops vectorize). fdlibm bounds the
// result below 1 ulp. On the same reduction, exp_pair_d gives e^x as an unrounded pair for
// expm1, sinh, tanh and logaddexp. exp_scaled above stays what the other functions (and the
// rare paths) use.
namespace expdetail {
// ln2 in fdlibm's split (LN2_HI_FD has 21 trailing zero bits: k * LN2_HI_FD exact for |k| < 2^11)
constexpr double LN2_HI_FD = 0x1.62e42fee00000p-1;
constexpr double LN2_LO_FD = 0x1.a39ef35793c76p-33;
// e_exp.c's P1..P5: r (e^r + 1) / (e^r - 1) = 2 + r^2/6 - ... on [0, 0.347], error < 2^-59
constexpr double EXP_P1 = 0x1.555555555553ep-3, EXP_P2 = -0x1.6c16c16bebd93p-9, EXP_P3 = 0x1.1566aaf25de2cp-14,
                 EXP_P4 = -0x1.bbd41c5d26bf1p-20, EXP_P5 = 0x1.6376972bea4d0p-25;

struct exp_arg {  // x = k ln2 + (hi - lo), r = hi - lo rounded; kb's low 12 bits: k
    double hi, lo, r, k;
    uint64_t kb;
};
NPU_EMU_HD exp_arg exp_reduce_d(double x) {  // |x| < 1000
    const double t = x * INV_LN2 + 0x1.8p52;
    const double k = t - 0x1.8p52;
    const double hi = x - k * LN2_HI_FD, lo = k * LN2_LO_FD;
    return {hi, lo, hi - lo, k, double_as_bits(t)};
}
NPU_EMU_HD double pow2_kb(uint64_t kb) { return bits_as_double((kb + 1023u) << 52); }   // 2^k, -1022 <= k <= 1023
NPU_EMU_HD double pow2_neg_kb(uint64_t kb) { return bits_as_double((1023u - kb) << 52); }  // 2^-k

// e^x for -708 < x < 709 (2^k a normal scale): 1 - ((lo - r c / (2 - c)) - hi), times 2^k.
NPU_EMU_HD double exp_d(double x) {
    const exp_arg a = exp_reduce_d(x);
    const double t = a.r * a.r;
    const double c = a.r - t * (EXP_P1 + t * (EXP_P2 + t * (EXP_P3 + t * (EXP_P4 + t * EXP_P5))));
    const double y = 1.0 - ((a.lo - (a.r * c) / (2.0 - c)) - a.hi);
    return y * pow2_kb(a.kb);
}

// exp_tail's polynomial by Estrin's scheme (r2 = r^2 rounded): a shorter chain of dependent
// operations than Horner's rule, for the split forms' vectorized loops.
NPU_EMU_HD double exp_tail_estrin(double r, double r2) {
    const double b0 = 0x1.5555555555555p-3 + 0x1.5555555555556p-5 * r, b1 = 0x1.1111111111111p-7 + 0x1.6c16c16c16214p-10 * r,
                 b2 = 0x1.a01a01a019ac3p-13 + 0x1.a01a01a74077ap-16 * r, b3 = 0x1.71de3a593c8b9p-19 + 0x1.27e4da1e12fb1p-22 * r,
                 b4 = 0x1.ae6432edf6fafp-26 + 0x1.1f75a3caadff5p-29 * r, b5 = 0x1.61b58491cefd7p-33;
    const double r4 = r2 * r2, r8 = r4 * r4;
    return ((b0 + b1 * r2) + r4 * (b2 + b3 * r2)) + r8 * (b4 + b5 * r2);
}

// e^(x + ex) for -700 <= x < 709 (2^k a normal scale, k <= 1023; |ex| <= ulp(x)) in parts,
// e^(x + ex) = sc (s1 + e1 + p_hi + p_lo): exp_d's reduction x = k ln2 + (hi - lo) with ex in
// lo, r = hi - lo rounded and its error rl carried, e^r = 1 + r + r^2/2 + r^3 F(r) (F exp_tail's
// fit), s1 + e1 = 1 + r exactly, r^2/2 split as an exact high part p_hi (r's high 26 bits
// squared) and the rest, sc = 2^k.
struct exp_terms {
    double s1, e1, p_hi, p_lo, sc;
};
NPU_EMU_HD exp_terms exp_terms_d(double x, double ex) {
    const exp_arg a = exp_reduce_d(x);  // x = k ln2 + (a.hi - a.lo), a.hi exact
    const double lo = a.lo - ex, r = a.hi - lo, rl = (a.hi - r) - lo;  // r + rl = a.hi - lo
    // r^2 = r_h^2 + r_l (r + r_h), r_h of 26 bits (r_h^2 and r_h r_l exact)
    const double r_h = bits_as_double(double_as_bits(r) & 0xFFFFFFFFF8000000ull), r_l = r - r_h, r2 = r * r;
    const double p_hi = 0.5 * (r_h * r_h);  // exact
    const double p_lo = (0.5 * (r_l * (r + r_h)) + r2 * r * exp_tail_estrin(r, r2)) + rl * (1.0 + r);
    const double s1 = 1.0 + r, e1 = (1.0 - s1) + r;  // |r| < 1
    return {s1, e1, p_hi, p_lo, pow2_kb(a.kb)};
}

// e^(x + ex) as an unrounded pair hi + lo (|lo| below about 2^-52 hi), relative error below
// about 2^-58: the parts above summed with their errors, hi = 2^k (1 + r + p) rounded.
struct exp_pair {
    double hi, lo;
};
NPU_EMU_HD exp_pair exp_pair_d(double x, double ex) {
    const exp_terms t = exp_terms_d(x, ex);
    const double p = t.p_hi + t.p_lo, pe = (t.p_hi - p) + t.p_lo;  // |p_lo| < p_hi
    const double s2 = t.s1 + p, e2 = p - (s2 - t.s1);             // s1 > p
    return {s2 * t.sc, ((t.e1 + e2) + pe) * t.sc};
}
}  // namespace expdetail

template <> struct Split<fn::exp, double> {  // -708 < x < 709: 2^k a normal scale, no clamping
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) { return !(x > -708.0 && x < 709.0); }
    static NPU_EMU_HD double fast(double x) { return expdetail::exp_d(x); }
};
NPU_EMU_HD double exp(double x) {
    using S = Split<fn::exp, double>;
    if (!S::rare(x)) return S::fast(x);
    if (x != x) return canonical_nan_f64();
    return expdetail::exp_scaled({x, 0.0}, 0);
}

NPU_EMU_HD double exp2(double x) {
    using namespace expdetail;
    if (x != x) return canonical_nan_f64();
    if (x > 1025.0) return inf_d();
    if (x < -1076.0) return 0.0;
    const double k = round_to_int(x);
    const dd r = two_prod(x - k, LN2_H);  // x - k is exact; r = (x - k) ln2, |r| <= ln2/2
    const dd e = exp_poly(fast_two_sum(r.hi, r.lo + (x - k) * LN2_L));
    return scale(e.hi + e.lo, static_cast<int>(k));
}

namespace fn { struct expm1; struct sinh; struct cosh; struct tanh; }

// expm1: (2^k (1 + r) - 1) + 2^k (r^2/2 + r^3 F + ...) from exp_terms_d, the first a two-sum (2^k
// times 1 + r rounded is exact), the rest added to its error: no division, one rounding of a
// value whose error stays well below half an ulp (0.71 ulp at most measured).
template <> struct Split<fn::expm1, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) { return !(expdetail::abs_d(x) >= 0x1p-54 && x >= -40.0 && x <= 700.0); }
    static NPU_EMU_HD double fast(double x) {
        using namespace expdetail;
        const exp_terms e = exp_terms_d(x, 0.0);
        const double t = e.s1 * e.sc;  // exact
        const double s = t - 1.0, bb = s - t, err = (t - (s - bb)) + (-1.0 - bb);  // two-sum
        return s + (err + e.sc * (e.p_hi + (e.p_lo + e.e1)));
    }
};
NPU_EMU_HD double expm1(double x) {
    using namespace expdetail;
    using S = Split<fn::expm1, double>;
    if (!S::rare(x)) return S::fast(x);
    if (x != x) return canonical_nan_f64();
    if (abs_d(x) < 0x1p-54) return x;  // e^x - 1 = x + x^2/2 rounds to x (keeps -0)
    if (x > 700.0) return exp(x);      // the -1 is below half an ulp
    return -1.0;                       // x < -40: e^x < 2^-57
}

// The logarithms: fast for positive normal finite x; rare: subnormals (scaled by 2^54 first),
// 0, negative, inf and NaN. fdlibm's scheme (e_log.c, s_log1p.c; log2 and log10
// scale it, below) in plain double, no table and no double-double: x = 2^k m with m in
// [sqrt(1/2), sqrt(2)) from the bits and f = m - 1 exact; s = f / (2 + f), z = s^2 <= 0.0295
// and log(1 + f) = f - hfsq + s (hfsq + R) with hfsq = f^2/2 and R = LG1 z + ... + LG7 z^7
// (fdlibm's fit, error below 2^-58.45). Each result is within 1 ulp (fdlibm's bound;
// docs/math.md has the measured errors). asinh, acosh, atanh and pow build on these pieces
// too; the double-double log above (log_dd) is what the rare paths of asinh and acosh use.
namespace expdetail {
// (LN2_HI_FD, LN2_LO_FD: fdlibm's split of ln2, with exp_d above)
constexpr double LG1 = 0x1.5555555555593p-1, LG2 = 0x1.999999997fa04p-2, LG3 = 0x1.2492494229359p-2,
                 LG4 = 0x1.c71c51d8e78afp-3, LG5 = 0x1.7466496cb03dep-3, LG6 = 0x1.39a09d078c69fp-3,
                 LG7 = 0x1.2f112df3e5244p-3;
// log10(2) with k * LOG10_2_HI exact for |k| < 2^11 (FreeBSD e_log10.c)
constexpr double LOG10_2_HI = 0x1.34413509f6000p-2, LOG10_2_LO = 0x1.9fef311f12b36p-42;

struct log_arg {  // x = 2^k (1 + f), 1 + f in [sqrt(1/2), sqrt(2)); k a small integer as a double
    double f, k;
};

// For positive normal finite x (a subnormal is scaled by 2^54 first and 54 taken off k).
// Adding 1 - sqrt(1/2) to the mantissa's bits carries into the exponent where m >= sqrt(2):
// the exponent field of the sum is k + 1023. Integer shifts and adds only (no int64 to double
// conversion: k comes from the bits of 2^52 + k + 1023), so the loops vectorize.
NPU_EMU_HD log_arg log_reduce_d(double x) {
    const uint64_t b = double_as_bits(x);
    const uint64_t kb = (b + 0x00095F619980C433ull) >> 52;  // 0x3FF0... - bits of sqrt(1/2)
    const double m = bits_as_double(b - ((kb - 1023u) << 52));
    const double k = bits_as_double(0x4330000000000000ull | kb) - 0x1.00000000003ffp52;
    return {m - 1.0, k};
}

// s (hfsq + R), the part of log(1 + f) past f - hfsq (at most ~1/12 of f^3).
NPU_EMU_HD double log1p_tail_d(double f, double hfsq) {
    const double s = f / (2.0 + f), z = s * s, w = z * z;
    const double t1 = w * (LG2 + w * (LG4 + w * LG6));
    const double t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    return s * (hfsq + (t2 + t1));
}

// k ln2 + log(1 + f) + c (c: log1p's correction for the rounding of 1 + x, |c| <= 2^-53),
// as fdlibm sums it: k * LN2_HI_FD exact, the small terms first.
NPU_EMU_HD double log_sum_d(log_arg a, double c) {
    const double hfsq = 0.5 * a.f * a.f;
    const double r = log1p_tail_d(a.f, hfsq);
    return a.k * LN2_HI_FD - ((hfsq - (r + (a.k * LN2_LO_FD + c))) - a.f);
}
NPU_EMU_HD double log_sum_d(log_arg a) {  // k ln2 + log(1 + f)
    const double hfsq = 0.5 * a.f * a.f;
    const double r = log1p_tail_d(a.f, hfsq);
    return a.k * LN2_HI_FD - ((hfsq - (r + a.k * LN2_LO_FD)) - a.f);
}
NPU_EMU_HD log_arg log_reduce_subnormal_d(double x) {  // 0 < x < 2^-1022
    const log_arg a = log_reduce_d(x * 0x1p54);
    return {a.f, a.k - 54.0};
}

// k + log2(1 + f) and k log10(2) + log10(1 + f) without double-double products: with V = 1/ln2
// or 1/ln10, V log(1 + f) = f H + f C - h + V r with H = 1 (log2) or 1/2 (log10), so that f H
// is exact, C = V - H rounded (|f C| at most 0.36 of the result for log2, 0.15 for log10),
// h = (V/2) f^2 = V hfsq and V r = s (h + V R(z)) from fdlibm's fit scaled by V (generated).
// The exact leading sum k + f H (k log10(2) with an exact high part for log10) is a fast
// two-sum (|k| >= 1 > |f| or k = 0); its error joins the small terms, added first. One rounding
// at the end; before it, at most about 0.8 ulp (log2) and 0.5 ulp (log10) in the worst binade
// alignment, so each result is within 1 ulp of the correctly rounded one. Exact where the
// result is: f = 0 gives k (log2(2^k) = k).
NPU_EMU_HD double log2_sum_d(log_arg a) {
    const double f = a.f, s = f / (2.0 + f), z = s * s, w = z * z;
    // ---- GENERATED by tools/gen_math_exp_coeffs.py (log2_tail): begin
    constexpr double C = 0x1.c551d94ae0bf8p-2, HV = 0x1.71547652b82fep-1;
    const double t1 = w * (0x1.2776c50ee7037p-1 + w * (0x1.484afccf4e947p-2 + w * 0x1.c477fc00c758ap-3));
    const double t2 = z * (0x1.ec709dc3a0456p-1 + w * (0x1.a61762d25e3b9p-2 + w * (0x1.0ca126c29e1eep-2 + w * 0x1.b53bc0f37a0cap-3)));
    // ---- GENERATED: end
    const double h = HV * f * f, r = s * (h + (t2 + t1));
    const double y = a.k + f, e = f - (y - a.k);
    return y + (e + (f * C + (r - h)));
}

NPU_EMU_HD double log10_sum_d(log_arg a) {
    const double f = a.f, s = f / (2.0 + f), z = s * s, w = z * z;
    // ---- GENERATED by tools/gen_math_exp_coeffs.py (log10_tail): begin
    constexpr double C = -0x1.0d213ab646bc7p-4, HV = 0x1.bcb7b1526e50ep-3;
    const double t1 = w * (0x1.63c627750e7dfp-3 + w * (0x1.8b4dd737e9b4dp-4 + w * 0x1.1069cdb3308bep-4));
    const double t2 = z * (0x1.287a7636f4394p-2 + w * (0x1.fc3fa6487759ep-4 + w * (0x1.43764f34d02f5p-4 + w * 0x1.073da173a8d19p-4)));
    // ---- GENERATED: end
    const double h = HV * f * f, r = s * (h + (t2 + t1));
    const double y2 = a.k * LOG10_2_HI, fh = 0.5 * f;
    const double y = y2 + fh, e = fh - (y - y2);
    return y + (e + (a.k * LOG10_2_LO + (f * C + (r - h))));
}

// log1p for -1 < x < inf, |x| >= 2^-54: f = x itself (k = 0) for x in (sqrt(1/2) - 1,
// sqrt(2) - 1); elsewhere u = 1 + x rounded, reduced as for log, and the rounding error
// c = 1 + x - u (exact: a fast two-sum with the larger of 1 and x first) added back as c / u,
// log(u + c) = log u + c/u to far below an ulp. Both forms computed, one selected.
NPU_EMU_HD double log1p_d(double x) {
    const bool near0 = x > -0x1.2bec333018866p-2 && x < 0x1.a827999fcef32p-2;
    const double u = 1.0 + x;
    const double c = x < 1.0 ? x - (u - 1.0) : 1.0 - (u - x);
    const log_arg far = log_reduce_d(u);  // u >= 2^-53: normal
    const log_arg a = near0 ? log_arg{x, 0.0} : far;
    return log_sum_d(a, near0 ? 0.0 : c / u);
}
}  // namespace expdetail

NPU_EMU_HD bool log_rare(double x) { return !(x >= 0x1p-1022 && x < expdetail::inf_d()); }
NPU_EMU_HD double log_special(double x) {  // x <= 0, NaN or +inf
    using namespace expdetail;
    return x == 0.0 ? -inf_d() : x == inf_d() ? inf_d() : canonical_nan_f64();
}
NPU_EMU_HD bool is_subnormal_d(double x) { return x > 0.0 && x < 0x1p-1022; }

template <> struct Split<fn::log, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) { return log_rare(x); }
    static NPU_EMU_HD double fast(double x) { return expdetail::log_sum_d(expdetail::log_reduce_d(x)); }
};
NPU_EMU_HD double log(double x) {
    using namespace expdetail;
    using S = Split<fn::log, double>;
    return !S::rare(x) ? S::fast(x)
           : is_subnormal_d(x) ? log_sum_d(log_reduce_subnormal_d(x)) : log_special(x);
}

template <> struct Split<fn::log2, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) { return log_rare(x); }
    static NPU_EMU_HD double fast(double x) { return expdetail::log2_sum_d(expdetail::log_reduce_d(x)); }
};
NPU_EMU_HD double log2(double x) {
    using namespace expdetail;
    using S = Split<fn::log2, double>;
    return !S::rare(x) ? S::fast(x)
           : is_subnormal_d(x) ? log2_sum_d(log_reduce_subnormal_d(x)) : log_special(x);
}

template <> struct Split<fn::log10, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) { return log_rare(x); }
    static NPU_EMU_HD double fast(double x) { return expdetail::log10_sum_d(expdetail::log_reduce_d(x)); }
};
NPU_EMU_HD double log10(double x) {
    using namespace expdetail;
    using S = Split<fn::log10, double>;
    return !S::rare(x) ? S::fast(x)
           : is_subnormal_d(x) ? log10_sum_d(log_reduce_subnormal_d(x)) : log_special(x);
}

namespace fn { struct log1p; struct pow; }
template <> struct Split<fn::log1p, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) {
        return !(x > -1.0 && x < expdetail::inf_d() && expdetail::abs_d(x) >= 0x1p-54);
    }
    static NPU_EMU_HD double fast(double x) { return expdetail::log1p_d(x); }
};
NPU_EMU_HD double log1p(double x) {
    using namespace expdetail;
    using S = Split<fn::log1p, double>;
    if (!S::rare(x)) return S::fast(x);
    if (!(x >= -1.0)) return canonical_nan_f64();  // NaN or x < -1
    if (x == -1.0) return -inf_d();
    if (x == inf_d()) return inf_d();
    return x;  // |x| < 2^-54: x - x^2/2 rounds to x (keeps -0)
}

// The split forms' fast paths: sinh for 2^-28 <= |x| < 709, cosh for |x| < 709 (where exp_d's
// and exp_pair_d's 2^k is a normal double, k <= 1023), tanh from 2^-28 on (|x| clamped to 22);
// the rest in the full paths: sinh and cosh from 709 on (finite up to 710.47, where e^|x| itself
// overflows from 709.78) on exp_scaled, which halves before it rounds.
// cosh is fdlibm's e^|x|/2 + (1/2)/e^|x| on exp_d. sinh below 1 is the Taylor series
// |x| + |x|^3 S(x^2) (truncated past 2^-65; fdlibm's formula is 2 ulp off there), above it
// (e^|x| - e^-|x|)/2 on exp_pair_d; tanh is E/(E + 2) on exp_pair_d throughout (below).
NPU_EMU_HD double with_sign_of(double r, double x) { return x < 0.0 ? -r : r; }
namespace expdetail {
NPU_EMU_HD double sinh_tail_d(double z) {  // (sinh x - x) / x^3 for z = x^2 <= 1: 1/3! + z/5! + ... + z^8/19!
    const double c[9] = {0x1.2f49b46814157p-57, 0x1.952c77030ad4ap-49, 0x1.ae7f3e733b81fp-41,
                         0x1.6124613a86d09p-33, 0x1.ae64567f544e4p-26, 0x1.71de3a556c734p-19,
                         0x1.a01a01a01a01ap-13, 0x1.1111111111111p-7,  0x1.5555555555555p-3};
    return horner(c, z);
}
}  // namespace expdetail

template <> struct Split<fn::sinh, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) { return !(expdetail::abs_d(x) >= 0x1p-28 && expdetail::abs_d(x) < 709.0); }
    static NPU_EMU_HD double fast(double x) {
        using namespace expdetail;
        const double ax = abs_d(x), z = ax * ax;
        const double near0 = ax + ax * z * sinh_tail_d(z);
        // |x| >= 1: (e^|x| - e^-|x|) / 2 with e^|x| an unrounded pair and e^-|x| <= 0.37 rounded
        // (from |x| = 19, e^-|x| is below 2^-54 of e^|x| and d = e.hi: the pair's sum, halved)
        const exp_pair e = exp_pair_d(ax, 0.0);
        const double inv = 1.0 / e.hi, d = e.hi - inv, d_err = (e.hi - d) - inv;  // e.hi > inv
        return with_sign_of(ax < 1.0 ? near0 : 0.5 * (d + (d_err + e.lo)), x);
    }
};
NPU_EMU_HD double sinh(double x) {
    using namespace expdetail;
    using S = Split<fn::sinh, double>;
    if (!S::rare(x)) return S::fast(x);
    if (x != x) return canonical_nan_f64();
    if (abs_d(x) < 0x1p-28) return x;  // x^3/6 is below half an ulp
    return with_sign_of(exp_scaled({abs_d(x), 0.0}, -1), x);  // e^-|x| is below 2^-63 of the result
}

template <> struct Split<fn::cosh, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) { return !(expdetail::abs_d(x) < 709.0); }
    static NPU_EMU_HD double fast(double x) {
        using namespace expdetail;
        const double t = exp_d(abs_d(x));
        return 0.5 * t + 0.5 / t;  // from |x| = 19 on, 0.5 / t is below half an ulp: 0.5 t
    }
};
NPU_EMU_HD double cosh(double x) {
    using namespace expdetail;
    using S = Split<fn::cosh, double>;
    if (!S::rare(x)) return S::fast(x);
    if (x != x) return canonical_nan_f64();
    return exp_scaled({abs_d(x), 0.0}, -1);
}

// tanh |x| = E / (E + 2), E = e^(2|x|) - 1 from exp_pair_d's pair e (E's own error below about
// 2^-56 of it: e.hi >= 1, so e.hi - 1 and e.hi + 1 are fast two-sums), one division: inv = 1 / (E + 2)'s
// high part d, q = E_hi inv cut to 21 bits (its low word cleared) and d split into 21 bits and
// the rest, so q d is two exact products and E - q d a remainder without rounding error that
// matters (E_hi - q d_h exact by Sterbenz's lemma); tanh = q + rem inv, one rounding.
// |x| is clamped to 22 (+inf included): from there on tanh |x| = 1 - 2 / (e^(2|x|) + 1) lies
// within 2 e^-44 < 2^-62 of 1, far inside the half ulp (2^-54) that rounds to 1 below it, and
// the computed value at 22 is 1 (its error, below 2^-56 of E's and an ulp of the last step, moves
// it by far less than the 2^-54 - 2^-62 to the midpoint). rare(): NaN and |x| < 2^-28 only.
template <> struct Split<fn::tanh, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) { return !(expdetail::abs_d(x) >= 0x1p-28); }
    static NPU_EMU_HD double fast(double x) {
        using namespace expdetail;
        const double ax = abs_d(x);
        const exp_pair e = exp_pair_d(2.0 * (ax > 22.0 ? 22.0 : ax), 0.0);
        const double n_hi = e.hi - 1.0, n_lo = ((e.hi - n_hi) - 1.0) + e.lo;
        const double d_hi = e.hi + 1.0, d_lo = ((e.hi - d_hi) + 1.0) + e.lo;
        const double inv = 1.0 / d_hi, q = high_word(n_hi * inv);
        const double d_h = high_word(d_hi), d_l = d_hi - d_h;
        const double rem = ((n_hi - q * d_h) - q * d_l) + (n_lo - q * d_lo);
        return with_sign_of(q + rem * inv, x);
    }
};
NPU_EMU_HD double tanh(double x) {
    using namespace expdetail;
    using S = Split<fn::tanh, double>;
    if (!S::rare(x)) return S::fast(x);
    if (x != x) return canonical_nan_f64();
    return x;  // |x| < 2^-28: x^3/3 is below half an ulp
}

namespace fn { struct asinh; struct acosh; struct atanh; }

// asinh, acosh and atanh in fdlibm's scheme (s_asinh.c, e_acosh.c, e_atanh.c): log1p of an
// argument without cancellation, here on the plain-double log1p above (log_reduce_d,
// log_sum_d), with the argument's rounding error carried: log1p(a + d) = log1p(a) + d / (1 + a)
// goes into the log's sum of small terms (as log1p_d's own correction for 1 + x does), so the
// result keeps that log's error (within 1 ulp) whatever the argument's.
namespace expdetail {
// log1p(x + num / den) for x > -1 with x + 1 = u + c exactly (u normal, formed by the caller with
// one step less than 1 + x), |num / den| below about 2^-50 (1 + x): log1p_d's two forms (x itself
// near 0, else u reduced as for log) and log_sum_d's sum, R by Estrin's scheme (a shorter chain);
// one division for the correction and c together, off the log's own chain. Near0 = false where
// x is at least sqrt(2) - 1 (the reduction of u alone).
template <bool Near0 = true>
NPU_EMU_HD double log1p_plus_d(double x, double u, double c, double num, double den) {
    const bool near0 = Near0 && x > -0x1.2bec333018866p-2 && x < 0x1.a827999fcef32p-2;
    const log_arg a = near0 ? log_arg{x, 0.0} : log_reduce_d(u);  // u >= 2^-53: normal
    const double corr = (near0 ? num : c * den + num) / (den * u);
    const double hfsq = 0.5 * a.f * a.f, s = a.f / (2.0 + a.f), z = s * s, w = z * z;
    const double R = z * (((LG1 + z * LG2) + w * (LG3 + z * LG4)) + (w * w) * ((LG5 + z * LG6) + w * LG7));
    return a.k * LN2_HI_FD - ((hfsq - (s * (hfsq + R) + (a.k * LN2_LO_FD + corr))) - a.f);
}

// sqrt(t) for t = t_hi + t_lo > 0 (|t_lo| <= ulp(t_hi)): r0 correctly rounded, and the residual
// t - r0^2 (exact but for t_lo's own rounding, r0^2 a Dekker product), so
// sqrt(t) = r0 + res / (2 r0) to about 2^-100.
struct sqrt_parts {
    double r0, res;
};
NPU_EMU_HD sqrt_parts sqrt_res_d(double t_hi, double t_lo) {
    const double r0 = sqrt_rn(t_hi);
    const dd sq = two_prod(r0, r0);
    return {r0, ((t_hi - sq.hi) - sq.lo) + t_lo};  // t_hi - sq.hi exact
}

// x^2 + c for c >= 0 as hi + lo: x^2 a Dekker product, the sum a fast two-sum by magnitude
NPU_EMU_HD dd square_plus_d(double x, double c) {
    const dd sq = two_prod(x, x);
    const double s = sq.hi + c;
    const double e = sq.hi > c ? c - (s - sq.hi) : sq.hi - (s - c);  // both >= 0: exact
    return {s, e + sq.lo};
}
}  // namespace expdetail

// asinh |x| for 2^-28 <= |x| <= 2^28: log1p(|x| + (r - 1)), r = sqrt(1 + x^2) = r0 + res / (2 r0)
// (r0 - 1 exact, |x| + (r0 - 1) rounded with its error e, r0 - 1 <= |x|), so the log1p's argument
// carries e + res / (2 r0). (fdlibm's log(2|x| + 1 / (|x| + r)) above 2 is the same value: r is
// exact enough here.) Beyond: log(2|x|) (the 1/(4x^2) left out is below 2^-58).
template <> struct Split<fn::asinh, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) { return !(expdetail::abs_d(x) >= 0x1p-28 && expdetail::abs_d(x) <= 0x1p28); }
    static NPU_EMU_HD double fast(double x) {
        using namespace expdetail;
        const double ax = abs_d(x);
        const dd t = square_plus_d(ax, 1.0);
        const sqrt_parts r = sqrt_res_d(t.hi, t.lo);
        // 1 + a formed from r0 + |x| directly (one step less to the log), both with their errors
        const double q = r.r0 - 1.0, a = ax + q, e = q - (a - ax);
        const double u = r.r0 + ax, c = (ax - (u - r.r0)) - e;  // x + 1 = u + c (plus the same e)
        const double den = 2.0 * r.r0;
        return with_sign_of(log1p_plus_d(a, u, c, e * den + r.res, den), x);
    }
};
NPU_EMU_HD double asinh(double x) {
    using namespace expdetail;
    using S = Split<fn::asinh, double>;
    if (!S::rare(x)) return S::fast(x);
    if (x != x) return canonical_nan_f64();
    const double ax = abs_d(x);
    if (ax < 0x1p-28 || ax == inf_d()) return x;
    const dd l = dd_add(log_dd({ax, 0.0}), dd{LN2_H, LN2_L});
    return with_sign_of(l.hi + l.lo, x);
}

// acosh x for 1 < x <= 2^28: log1p(t + r) with t = x - 1 (exact) and r = sqrt(t^2 + 2t) (=
// sqrt(x^2 - 1)) = r0 + res / (2 r0), t + r0 rounded with its error e (t < r0), the log1p's
// argument carrying e + res / (2 r0). Beyond: log(2x).
template <> struct Split<fn::acosh, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) { return !(x > 1.0 && x <= 0x1p28); }
    static NPU_EMU_HD double fast(double x) {
        using namespace expdetail;
        const double t = x - 1.0;
        const dd q = square_plus_d(t, 2.0 * t);
        const sqrt_parts r = sqrt_res_d(q.hi, q.lo);
        const double a = r.r0 + t, e = t - (a - r.r0);
        const double u = x + r.r0, c = (r.r0 - (u - x)) - e;  // 1 + a = u + c: one step less to the log
        const double den = 2.0 * r.r0;
        return log1p_plus_d(a, u, c, e * den + r.res, den);
    }
};
NPU_EMU_HD double acosh(double x) {
    using namespace expdetail;
    using S = Split<fn::acosh, double>;
    if (!S::rare(x)) return S::fast(x);
    if (!(x >= 1.0)) return canonical_nan_f64();  // NaN or x < 1
    if (x == 1.0) return 0.0;
    if (x == inf_d()) return inf_d();
    const dd l = dd_add(log_dd({x, 0.0}), dd{LN2_H, LN2_L});
    return l.hi + l.lo;
}

// atanh |x| for 2^-28 <= |x| < 1. Below 0.1716 (the log's range of s = f / (2 + f)) it is the
// log's own series: log(1 + f) = 2 atanh(s) = 2s + s R(s^2), so atanh |x| = |x| + |x| R(x^2) / 2
// (fdlibm's fit, no division). Above, e_atanh.c's log1p(2|x| / (1 - |x|)) / 2, as
// log((1 + |x|) / (1 - |x|)) / 2 with 1 +- |x| = n, d exact as double-doubles and the quotient
// q = n_hi / d_hi with its remainder n - q d (q d_hi a Dekker product) carried into the log
// (q >= sqrt(2): its reduction alone). Both computed, one selected.
template <> struct Split<fn::atanh, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x) { return !(expdetail::abs_d(x) >= 0x1p-28 && expdetail::abs_d(x) < 1.0); }
    static NPU_EMU_HD double fast(double x) {
        using namespace expdetail;
        const double ax = abs_d(x), z = ax * ax, w = z * z;
        const double near0 = ax + 0.5 * (ax * (z * (LG1 + w * (LG3 + w * (LG5 + w * LG7))) + w * (LG2 + w * (LG4 + w * LG6))));
        const double d_hi = 1.0 - ax, d_lo = (1.0 - d_hi) - ax, n_hi = 1.0 + ax, n_lo = (1.0 - n_hi) + ax;
        const double q = n_hi / d_hi;
        const dd qd = two_prod(q, d_hi);
        const double rem = (((n_hi - qd.hi) - qd.lo) + n_lo) - q * d_lo;  // n_hi - qd.hi exact
        const double far = 0.5 * log1p_plus_d<false>(q - 1.0, q, 0.0, rem, d_hi);
        return with_sign_of(ax < 0x1.5f619980c4337p-3 ? near0 : far, x);
    }
};
NPU_EMU_HD double atanh(double x) {
    using namespace expdetail;
    using S = Split<fn::atanh, double>;
    if (!S::rare(x)) return S::fast(x);
    if (x != x) return canonical_nan_f64();
    const double ax = abs_d(x);
    if (ax > 1.0) return canonical_nan_f64();
    if (ax < 0x1p-28) return x;  // x^3/3 is below half an ulp
    return with_sign_of(inf_d(), x);
}

// pow in fdlibm's scheme (e_pow.c) in plain double, no double-double: log2 x to about 2^-64
// (relative) as t1 + t2 with t1 of 21 bits, y = y1 + (y - y1) with y1 of 21 bits, so y1 t1 is
// exact, and 2^(y log2 x) = 2^n e^((y log2 x - n) ln2) with the low parts carried into the
// exponential's argument.
// log2: x = 2^n a with a in [sqrt(3)/2, sqrt(3)) from the bits (as log_reduce_d: adding
// 1 - sqrt(3)/2 to the significand carries into the exponent from sqrt(3) on), then with b = 1,
// or 1.5 above sqrt(3/2), s = (a - b) / (a + b), |s| <= 0.1011, and
// log2 a = log2 b + 2/(3 ln2) s (3 + s^2 + s^4 L(s^2)). s, 3 + s^2 + s^4 L and their product
// are carried as a 21-bit high part (its low word cleared: two such parts multiply exactly) and
// a low part, as e_pow.c does. Unlike e_pow.c, the high parts p_h and t1 come from an estimate
// (s (3 + s^2), within 2^-15) and only the low parts wait for the whole sum, whose last terms,
// 2/(3 ln2) (m + f P), are left for the exponential: they go to y (2/3) (m + f P) in its
// argument (2/(3 ln2) ln2 = 2/3). The shortest chain of dependent operations is what bounds the
// vectorized loop.
// Exponential: n = the integer nearest y1 t1 (from the bits of the 0x1.8p52 shift), the rest
// times ln2 as z + w (z rounded, w its error), |z| < 0.37, and e^(z + w) = 1 + z + (w + z w +
// z^2 G(z)), G(z) = 1/2 + z F(z) with F a fit as exp_tail's on [-0.375, 0.375] (error 2^-60.7),
// 1 + z as an exact sum (e_exp.c's rational form would put a division on that chain, and is less
// accurate). 2^n from bits, in
// two factors (one rounding: subnormal results, overflow to inf). Selects and bit operations
// only, so the loops vectorize. Measured error below 0.77 ulp (docs/math.md).
namespace expdetail {
// log2(1.5) and 2/(3 ln2) with 24-bit high parts, ln2 with an 11-bit one
// (tools/gen_math_exp_coeffs.py)
constexpr double POW_DP_H = 0x1.2b80340000000p-1, POW_DP_L = 0x1.cfdeb43cfd006p-27;
constexpr double POW_CP_H = 0x1.ec709e0000000p-1, POW_CP_L = -0x1.e2fe0145b01f5p-28;
constexpr double POW_LN2_H11 = 0x1.62c0000000000p-1, POW_LN2_L11 = 0x1.217f7d1cf79acp-12;  // 11 bits, the rest
constexpr double SQRT_3_2 = 0x1.3988e1409212ep+0;  // sqrt(3/2)
// e_pow.c's L1..L6: L(z) ~ (3 atanh(s) / s - 3 - z) / z^2 (z = s^2 <= 0.0103), fdlibm's fit
constexpr double POW_L1 = 0x1.3333333333303p-1, POW_L2 = 0x1.b6db6db6fabffp-2, POW_L3 = 0x1.55555518f264dp-2,
                 POW_L4 = 0x1.17460a91d4101p-2, POW_L5 = 0x1.d864a93c9db65p-3, POW_L6 = 0x1.a7e284a454eefp-3;

// log2 x = t1 + t2 + 2/(3 ln2) (m + f P), t1 with its low word cleared; the other terms below
// 2^-15 |log2 x|, f P (the series' tail) the last one known.
struct log2_parts {
    double t1, t2, m, f, P;
};

// For a positive normal x, minus k0 (0, or 54 for a subnormal scaled by 2^54).
NPU_EMU_HD log2_parts log2_pow_d(double x, double k0 = 0.0) {
    const uint64_t b = double_as_bits(x);
    const uint64_t kb = (b + 0x0004498517A7B356ull) >> 52;  // 0x3FF0... - bits of sqrt(3)/2
    const double a = bits_as_double(b - ((kb - 1023u) << 52));
    const double n = bits_as_double(0x4330000000000000ull | kb) - (0x1.00000000003ffp52 + k0);  // exact
    const bool mid = a > SQRT_3_2;
    const double bp = mid ? 1.5 : 1.0, dp_h = mid ? POW_DP_H : 0.0, dp_l = mid ? POW_DP_L : 0.0;
    // s = (a - b) / (a + b) as s_h + s_l: a - b exact, s_h t_h exact, a - (t_h - b) exact
    const double apb = mid ? a + 1.5 : a + 1.0;  // the sum selected: one step less to the division
    const double u = a - bp, v = 1.0 / apb;
    const double ss = u * v, s_h = high_word(ss);
    const double t_h = high_word(apb), t_l = a - (t_h - bp);
    const double s_l = v * ((u - s_h * t_h) - s_h * t_l);
    // p = s (3 + s^2 + s^4 L): p_h the first 21 bits of s (3 + s^2) (within 2^-15), z_h =
    // 2/(3 ln2)'s high part times p_h (exact), t1 = n + log2 b's high part (exact) plus z_h, cut
    // to 21 bits
    const double s2 = ss * ss, s4 = s2 * s2, s8 = s4 * s4;
    const double p_h = high_word(ss * (3.0 + s2));
    const double z_h = POW_CP_H * p_h, nd = n + dp_h;
    const double t1 = high_word(nd + z_h);
    // p - p_h with q_h = 3 + s_h^2 cut to 21 bits: s_h q_h exact, s_h q_h - p_h exact, and
    // s (3 + s^2 + s^4 L) - s_h q_h = s_l q_h + s (3 + s_h^2 - q_h) + s (s_l (s_h + s) + s^4 L)
    const double sh2 = s_h * s_h, q_h = high_word(3.0 + sh2);
    const double m = ((s_h * q_h - p_h) + s_l * q_h) + ss * (s_l * (s_h + ss) - ((q_h - 3.0) - sh2));
    const double P = ((POW_L1 + s2 * POW_L2) + s4 * (POW_L3 + s2 * POW_L4)) + s8 * (POW_L5 + s2 * POW_L6);
    // (nd - t1) + z_h: below 2^-15 |t1|, exact or nearly
    return {t1, ((nd - t1) + z_h) + (POW_CP_L * p_h + dp_l), m, ss * s4, P};
}

// 2^(y log2 x) for |y| <= 2^40 (or |y1 t1| <= 1100): 0 below 2^-1075 and inf from 2^1024 on,
// rounded once.
NPU_EMU_HD double exp2_pow_d(double y, log2_parts l) {
    // y log2 x = y1 t1 (exact) + ((y - y1) t1 + y t2) + y (2/(3 ln2)) (m + f P)
    const double y1 = high_word(y), ph0 = y1 * l.t1;
    const double sh = ph0 + 0x1.8p52;  // n = the integer nearest y1 t1, in the low bits
    // (y log2 x - n) ln2 = z + w: p_h = y1 t1 - n times ln2's high part (exact: p_h has at most
    // 42 bits), plus the low parts (below 0.03; 2/(3 ln2) ln2 = 2/3)
    const double y23 = y * 0x1.5555555555555p-1;
    const double p_h = ph0 - (sh - 0x1.8p52);  // exact, |p_h| <= 1/2
    const double u = p_h * POW_LN2_H11;
    const double v = ((y23 * l.m + l.P * (y23 * l.f)) + (l.t2 * (y * LN2_H) + l.t1 * ((y - y1) * LN2_H)))
                     + p_h * POW_LN2_L11;
    const double z = u + v, w = v - (z - u);
    // e^(z + w) = 1 + z + (w + z w + z^2 G(z)), G by Estrin's scheme; 1 + z = s + c exactly
    const double s = 1.0 + z, c = z - (s - 1.0);
    const double zz = z * z, z4 = zz * zz, z8 = z4 * z4;
    const double g = (((0.5 + z * 0x1.5555555555555p-3) + zz * (0x1.5555555555556p-5 + z * 0x1.1111111111111p-7))
                      + z4 * ((0x1.6c16c16c15ab3p-10 + z * 0x1.a01a01a0196d4p-13) + zz * (0x1.a01a01aaeba6cp-16 + z * 0x1.71de3a5b31551p-19)))
                     + z8 * ((0x1.27e4cf82d095bp-22 + z * 0x1.ae64279e563dep-26) + zz * (0x1.1f89cb8097583p-29 + z * 0x1.61cb0304d6bcbp-33));
    const double e = s + (((c + w) + z * w) + zz * g);
    // 2^n as 2^(n - n/2) 2^(n/2), n clamped to +-1100: the first product exact, only the second
    // one rounds. Beyond 1100 (inf or 0) z is not reduced and e is replaced by 1.
    const int64_t n0 = static_cast<int64_t>(double_as_bits(sh) - 0x4338000000000000ull);
    const int64_t n = n0 > 1100 ? 1100 : n0 < -1100 ? -1100 : n0, n1 = n >> 1;
    return (abs_d(ph0) <= 1100.0 ? e : 1.0) * bits_as_double(static_cast<uint64_t>(n1 + 1023) << 52)
           * bits_as_double(static_cast<uint64_t>(n - n1 + 1023) << 52);
}
}  // namespace expdetail

// C99 Annex F's pow (pow(x, +-0) = 1 and pow(1, y) = 1 even for NaN; the array API agrees where
// it specifies). Finite x != 0: |x|^y in fdlibm's scheme above (a subnormal |x| scaled by 2^54
// first), the sign from y's parity for x < 0.
template <> struct Split<fn::pow, double> {  // normal x > 0 but 1, finite y != 0 up to 2^40
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x, double y) {
        using expdetail::abs_d;
        return !(x >= 0x1p-1022 && x < expdetail::inf_d() && x != 1.0 && abs_d(y) > 0.0 && abs_d(y) <= 0x1p40);
    }
    static NPU_EMU_HD double fast(double x, double y) {
        using namespace expdetail;
        return exp2_pow_d(y, log2_pow_d(x));
    }
};
NPU_EMU_HD double pow(double x, double y) {
    using namespace expdetail;
    using S = Split<fn::pow, double>;
    if (!S::rare(x, y)) return S::fast(x, y);
    if (y == 0.0 || x == 1.0) return 1.0;
    if (x != x || y != y) return canonical_nan_f64();
    const double ax = abs_d(x), ay = abs_d(y);
    // y an integer? odd? (every double of magnitude >= 2^53 is an even integer)
    bool y_int = true, y_odd = false;
    if (ay < 0x1p53) {
        const long long n = static_cast<long long>(ay);
        y_int = static_cast<double>(n) == ay;
        y_odd = y_int && (n & 1);
    }
    const bool neg = (double_as_bits(x) >> 63) && y_odd;  // the sign of the result (-0 too)
    if (ay == inf_d()) {
        if (ax == 1.0) return 1.0;
        return (ax > 1.0) == (y > 0.0) ? inf_d() : 0.0;
    }
    if (ax == 0.0) {
        const double r = y < 0.0 ? inf_d() : 0.0;
        return neg ? -r : r;
    }
    if (ax == inf_d()) {
        const double r = y < 0.0 ? 0.0 : inf_d();
        return neg ? -r : r;
    }
    if (x < 0.0 && !y_int) return canonical_nan_f64();
    double r;
    if (ax == 1.0) {  // x == -1, y an integer
        r = 1.0;
    } else if (ay > 0x1p64) {  // |y log x| > 2^11 (|log x| >= 2^-53 for x != 1): over- or underflows
        r = (ax > 1.0) == (y > 0.0) ? inf_d() : 0.0;
    } else {  // |x|^y, the fast path's bits where it applies (a subnormal |x| scaled by 2^54)
        const bool sub = ax < 0x1p-1022;
        const log2_parts l = log2_pow_d(sub ? ax * 0x1p54 : ax, sub ? 54.0 : 0.0);
        // |y| > 2^40: y log2 x is within 2^-18 of y1 t1, so beyond 1100 the result is inf or 0
        const double p = high_word(y) * l.t1;
        r = abs_d(p) > 1100.0 ? ((p > 0.0) ? inf_d() : 0.0) : exp2_pow_d(y, l);
    }
    return neg ? -r : r;
}

// The split form: for finite x, y, max + log1p(e^d) in plain double, d = min - max <= 0 (its
// rounding error e_d from a two-sum, clamped at -700: below, e^d < 2^-1009 is below half an
// ulp of any max of magnitude >= 2^-900), no division but the log's s = f / (2 + f):
//  - e^d as exp_pair_d's unrounded pair t_hi + t_lo (relative error below 2^-58);
//  - log1p(t) = log(u) + c / u with u = 1 + t_hi rounded, c its error (plus t_lo), u = 2^j (1 + f)
//    (j = 0 or 1, f = u - 1 or u/2 - 1 exact, f in [sqrt(1/2) - 1, sqrt(2) - 1]) and
//    log(1 + f) = f - f^2/2 + s (f^2/2 + R(z)) as log_sum_d, f^2/2 exact (Dekker) and kept
//    apart from the sum: j LN2_HI_FD + f is exact, so max, it and -f^2/2 are summed with their
//    rounding errors and the small terms added last: relative error of the log below 2^-56.5.
// Where max < 0 the sum can cancel: lanes with |result| < log1p(e^d) / 2 are rare (the
// double-double path above), so the result's relative error stays below 2^-55.5 (within
// 1 ulp). The cancellation test needs the result itself: fast and rare share
// logaddexp_core_d, and the compiler computes it once for both.
namespace expdetail {
struct lae_parts {
    double r, log1p;  // the result, and log1p(e^d) (to decide whether the lane cancels)
    double m, d;
};
NPU_EMU_HD lae_parts logaddexp_core_d(double x, double y) {
    const double m = x > y ? x : y, o = x > y ? y : x;
    const double d0 = o - m, bb = d0 - o, e0 = (o - (d0 - bb)) + (-m - bb);  // two_sum(o, -m)
    const bool far = d0 < -700.0;
    const double d = far ? -700.0 : d0, ed = far ? 0.0 : e0;
    const exp_pair t = exp_pair_d(d, ed);  // e^(d + ed) = t.hi + t.lo, t.hi <= 1
    const double th = t.hi, tl = t.lo;
    // log1p(th + tl)
    const double u = 1.0 + th, c = ((1.0 - u) + th) + tl;
    const bool big = u > 0x1.6a09e667f3bcdp+0;  // sqrt(2)
    const double h = big ? 0.5 * u : u, f = h - 1.0, j = big ? 1.0 : 0.0;
    const dd ff = two_prod(f, f);
    const double hf = 0.5 * ff.hi, hfl = 0.5 * ff.lo;  // f^2/2 = hf + hfl, exactly
    const double s = f / (2.0 + f), z = s * s, w = z * z;
    // c / u = c' / (1 + f) = c' (1 - s) / (1 + s), |s| < 0.172: four terms (relative error 2^-11.7)
    const double corr = (big ? 0.5 * c : c) * (1.0 - 2.0 * s * (1.0 - s * (1.0 - s * (1.0 - s))));
    const double t1 = w * (LG2 + w * (LG4 + w * LG6));
    const double t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    const double small = ((s * (hf + (t2 + t1)) - hfl) + j * LN2_LO_FD) + corr;
    const double S = j * LN2_HI_FD + f;                   // exact
    const double a_hi = S - hf, a_lo = (S - a_hi) - hf;   // |S| >= hf
    const double b_hi = m + a_hi, bb2 = b_hi - m, b_lo = (m - (b_hi - bb2)) + (a_hi - bb2);
    const double a_rest = a_lo + small;  // log1p(e^d) = a_hi + a_rest (a_hi is 0 where e^d < 2^-53)
    return {b_hi + (b_lo + a_rest), a_hi + a_rest, m, d0};
}
}  // namespace expdetail

namespace fn { struct logaddexp; }
template <> struct Split<fn::logaddexp, double> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(double x, double y) {
        using namespace expdetail;
        const lae_parts p = logaddexp_core_d(x, y);
        const bool finite = (abs_d(x) < inf_d()) & (abs_d(y) < inf_d());  // & and |: no control flow
        return !finite | ((p.m < 0.0) & (abs_d(p.r) < 0.5 * p.log1p)) | ((p.d < -700.0) & (abs_d(p.m) < 0x1p-900));
    }
    static NPU_EMU_HD double fast(double x, double y) { return expdetail::logaddexp_core_d(x, y).r; }
};

// log(e^x + e^y): the split form, and where its sum cancels (the rare lanes that are finite, with
// x != y and d = min - max >= -700) a correction of its result r0. The true result R satisfies
// e^(max - R) + e^(min - R) = 1, so with f = e^(max - r0) + e^(min - r0) - 1 = e^(R - r0) - 1,
// R = r0 + log1p(f) exactly. Both exponentials are taken to ~2^-100 (exp_precise: max - r0 and
// min - r0 exact as double-doubles, e^(max - r0) - 1 kept apart), so f's error stays near
// 2^-100 |max| (below), and log1p(f) =
// f - f^2/2 + f^3/3 - ... is cut after f^2/2. How far r0 is off: the split form's L =
// log1p(e^d) <= ln2 has a relative error below 2^-56.5, its sum with max is exact before the
// last rounding, and that rounding is below 2^-53 |r0| < 2^-54 L (a rare lane has |r0| < L / 2):
// |R - r0| < 2^-53.6 L. With max < 0 and R = max + L, |R| < L / 2 gives L < 2 |max| and
// |max| < 1.5 L <= 1.04, so |f| ~ |R - r0| < 2^-52.6 |max|: f^3/3 is below 2^-157 |max| and the
// correction's rounding below 2^-105.6 |max|, far below f's own error, which bounds the result:
// within 1 ulp unless R is below about 2^-46 |max| (only where e^x + e^y lies within ~2^-47 of
// 1). f's error: where |max| > ln2 / 2 / 1.5 it is near 2^-100 of 1, and for smaller |max|,
// max - r0 ~ -L is above -ln2 / 2 (ka = 0) and f = Ea + e^(min - r0), both parts below 2 L
// and each to ~2^-100 of itself. (Until 6 December 2026 r0 came from a double-double exp and
// log1p, and a Newton step r0 + f / (1 + f) with f = (e^(max - r0) + e^(min - r0)) - 1
// followed: more than twice the work, and f was only near 2^-100 of 1 where |max| is tiny,
// which put results of max far below 2^-50 thousands of ulps off.)
NPU_EMU_HD double logaddexp(double x, double y) {
    using namespace expdetail;
    using S = Split<fn::logaddexp, double>;
    if (!S::rare(x, y)) return S::fast(x, y);
    if (x != x || y != y) return canonical_nan_f64();
    if (x == y) {  // x + ln2 (and no inf - inf below)
        if (abs_d(x) == inf_d()) return x;
        const dd s = two_sum(x, LN2_H);
        return s.hi + (s.lo + (LN2_L + LN2_TAIL));
    }
    const double m = x > y ? x : y, o = x > y ? y : x;
    if (m == inf_d() || o == -inf_d()) return m + 0.0;  // log(e^-0) = +0
    const dd d = two_sum(o, -m);  // -|x - y|, exact
    if (d.hi < -700.0) return m + exp_scaled(d, 0);  // log1p(e) = e to far below an ulp
    const double r0 = S::fast(x, y);  // the lane cancels: r0 corrected by log1p(f) (above)
    const precise_exp a = exp_precise(two_sum(m, -r0)), b = exp_precise(two_sum(o, -r0));
    // f = (2^ka - 1 + 2^ka Ea) + 2^kb (1 + Eb), ka in {-1, 0} (max - r0 is about -L): 2^ka - 1
    // exact, and where |max| is tiny (ka = 0), f = Ea + e^(min - r0) to 2^-100 of |max|, not of 1
    const double sa = pow2(a.k), sb = pow2(b.k);
    const dd eb = dd_add_d(b.e, 1.0);
    const dd f = dd_add(dd_add_d({a.e.hi * sa, a.e.lo * sa}, sa - 1.0), {eb.hi * sb, eb.lo * sb});
    return r0 + (f.hi + (f.lo - 0.5 * f.hi * f.hi));
}

// ================================================================== float
// exp, expm1, log, log2, log10 and log1p compute in float arithmetic over their common
// arguments (16 lanes a vector where double has 8: exp_lanes_f, expm1_lanes_f,
// log_reduce_lanes below, each within 1 ulp on all 2^32 inputs), and so do sinh, cosh and tanh
// up to |x| = 88 (exp_pm_lanes_f, sinh_lanes_f, tanh_lanes_f). Their other arguments and
// the other functions are evaluated in plain double with short polynomials (the value before
// the one rounding to float has a relative error below 2^-34, far below a float ulp,
// 2^-24..2^-23: every result is within 1 ulp, and correctly rounded unless the double value
// lies within 2^-34 of a float midpoint).
// Every float argument and every intermediate is a normal double, so float results,
// subnormals included, come from that single conversion. Each function has a split form
// (npu_emu_math_split.cuh): fast(x) covers every ordinary argument without branches, with
// selects and bit operations, so the CPU's loops over it vectorize; rare(x) marks the rest
// (NaN, the ends of the domain), and NAME(x) is `rare(x) ? special value : fast(x)`. NaN
// results are the canonical NaN.
namespace expdetail {

NPU_EMU_HD float inf_f() { return bits_as_float(0x7F800000u); }
NPU_EMU_HD float with_sign_of(float r, float x) {  // |r| with x's sign (r >= 0 or +0)
    return bits_as_float(float_as_bits(r) | (float_as_bits(x) & 0x80000000u));
}
NPU_EMU_HD double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }
// |x|'s bits, ordered as |x| is (NaN above inf): the split forms' rare() tests compare them as
// integers, in the float lanes of the loop (no conversion to double).
NPU_EMU_HD uint32_t abs_bits_f(float x) { return float_as_bits(x) & 0x7FFFFFFFu; }

// x = k ln2 + r, |r| <= 0.35, for |x| < 2^9: k from the rounding shift's low bits (no branch and
// no double-to-integer conversion), r = x - k LN2_H with an error below 2^-45 (absolute).
struct reduced_f {
    int64_t k;
    double r;
};
NPU_EMU_HD reduced_f reduce_f(double x) {
    const double shifted = x * INV_LN2 + 0x1.8p52;
    const double kd = shifted - 0x1.8p52;
    return {static_cast<int64_t>(double_as_bits(shifted) - 0x4338000000000000ull), x - kd * LN2_H};
}
NPU_EMU_HD double pow2_f(int64_t k) {  // 2^k, -1022 <= k <= 1023, from integer bits
    return bits_as_double(static_cast<uint64_t>(k + 1023) << 52);
}

// cosh r - 1 = z/2 + z^2 CE(z) and sinh r = r + r z SE(z), z = r^2, |r| <= 0.35: Chebyshev fits
// (tools/gen_math_exp_coeffs.py); e^r - 1 = their sum within 2^-35 (relative).
NPU_EMU_HD double cosh_m1_f(double z) {
    return z * (0.5 + z * ((0x1.a0f3b74b5bfefp-16 * z + 0x1.6c169967fdcf8p-10) * z + 0x1.555555578318ap-5));
}
NPU_EMU_HD double sinh_f(double r, double z) {
    return r + r * z * ((0x1.a12a334369fe7p-13 * z + 0x1.1110df0882e55p-7) * z + 0x1.5555555ac8210p-3);
}

NPU_EMU_HD double exp_f(double x) {  // e^x, |x| < 700 (the result a normal double)
    const reduced_f red = reduce_f(x);
    const double z = red.r * red.r;
    return (1.0 + (sinh_f(red.r, z) + cosh_m1_f(z))) * pow2_f(red.k);
}

// e^x - 1 = 2^k (e^r - 1) + (2^k - 1), |x| < 700: no cancellation (k = 0: e^r - 1 itself; else
// |e^x - 1| > 0.29 and both terms are accurate to 2^-35 of it).
NPU_EMU_HD double expm1_f(double x) {
    const reduced_f red = reduce_f(x);
    const double z = red.r * red.r, s = pow2_f(red.k);
    return s * (sinh_f(red.r, z) + cosh_m1_f(z)) + (s - 1.0);
}

// log(1 + f) = 2 atanh(s) = 2s + s z Q(z), s = f / (2 + f), z = s^2 <= 0.0295 for f in
// [sqrt(1/2) - 1, sqrt(2) - 1]; Q a degree-4 Chebyshev fit: relative error below 2^-43.
NPU_EMU_HD double log1p_core_f(double f) {
    const double s = f / (2.0 + f);
    const double z = s * s;
    const double q = (((0x1.8c99d4b7f356bp-3 * z + 0x1.c67a24806c68ep-3) * z + 0x1.2493255328889p-2) * z
                      + 0x1.999998c93029ap-2) * z + 0x1.555555556514ap-1;
    return 2.0 * s + s * z * q;
}

// log(u) for a positive normal double u: u = 2^e m, m in [sqrt(1/2), sqrt(2)), f = m - 1 exact;
// e from integer bits ((e + 2^52 + 2^51) has e in its low mantissa bits). Relative error below
// 2^-42 (e ln2 rounds once, the rest is below 2^-43 of log(1 + f) <= 0.35).
NPU_EMU_HD double log_f(double u) {
    const uint64_t b = double_as_bits(u);
    const uint64_t mb = (b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
    const uint64_t high = mb > SQRT2_BITS ? 1u : 0u;
    const double e = bits_as_double(0x4338000000000000ull + (b >> 52) + high) - (0x1.8p52 + 1023.0);
    return e * LN2_H + log1p_core_f(bits_as_double(mb - (high << 52)) - 1.0);
}

// log(1 + w) for w > -1 (1 + w normal): u = 1 + w rounded, log1p(w) = log(u) + c / u with c =
// w - (u - 1) the rounding error (exact where it matters: |w| < 1); c / u is taken as c, which
// is off by c (u - 1), below 2^-53 of the result.
// The rounding error c of 1 + w is added back below 1 (log(u + c) = log u + c/u, u near 1);
// from 1 on, c/u < 2^-53 and c alone could be far off (w = 2^53: u - 1 = w - 1, c = 1).
NPU_EMU_HD double log1p_f(double w) {
    const double u = 1.0 + w;
    return log_f(u) + (w < 1.0 ? w - (u - 1.0) : 0.0);
}

}  // namespace expdetail

namespace fn { struct exp; struct expm1; struct log; struct log2; struct log10; struct log1p; struct sinh;
               struct cosh; struct tanh; struct asinh; struct acosh; struct atanh; struct pow; struct logaddexp; }

namespace expdetail {
// The float-lane reduction x = k ln2 + r with ln2 = C1 + C2 + C3 (12, 9 and 24 bits): k C1 and
// k C2 are exact for |k| <= 128, x - k C1 is exact (Sterbenz), and two_sum keeps the rounding
// of the next step, so r = hi + lo to ~2^-46 (exp_lanes_f and expm1_lanes_f).
struct ExpReduced {
    int32_t k;
    float hi, lo;
};
NPU_EMU_HD ExpReduced exp_reduce_lanes_f(float x) {
    const float C1 = 0x1.62ep-1f, C2 = 0x1.0cp-15f, C3 = -0x1.05c61p-29f;
    const float shifted = x * 0x1.715476p+0f + 0x1.8p23f;
    const float kf = shifted - 0x1.8p23f;
    const int32_t k = static_cast<int32_t>(float_as_bits(shifted) - 0x4B400000u);
    const float r1 = x - kf * C1, b = -(kf * C2);
    const float hi = r1 + b;
    const float bb = hi - r1;
    const float lo = ((r1 - (hi - bb)) + (b - bb)) - kf * C3;
    return {k, hi, lo};
}

// e^x in float arithmetic (16 lanes a vector where double has 8), for -87 <= x <= 88 (the
// result a normal float). x = k ln2 + hi + lo (exp_reduce_lanes_f). e^r - 1 - r = hi^2 Q(hi)
// with Q the Taylor series to r^6/8! (truncation below 2^-31 of the result) plus lo (1 + hi);
// 1 + hi is split
// exactly and the small parts added before the one last rounding: the error before it stays
// below 2^-26 of the result, so every result is within 1 ulp of the correctly rounded one
// (NPU_EMU_MATH_EXHAUSTIVE=1 tests/test_math_exp.py checks all of them). 2^k scales exactly.
NPU_EMU_HD float exp_lanes_f(float x) {
    const ExpReduced red = exp_reduce_lanes_f(x);
    const int32_t k = red.k;
    const float hi = red.hi, lo = red.lo;
    float q = 0x1.a01a02p-16f;                      // 1/8!
    q = q * hi + 0x1.a01a02p-13f;                  // 1/7!
    q = q * hi + 0x1.6c16c2p-10f;                  // 1/6!
    q = q * hi + 0x1.111112p-7f;                   // 1/5!
    q = q * hi + 0x1.555556p-5f;                   // 1/4!
    q = q * hi + 0x1.555556p-3f;                   // 1/3!
    q = q * hi + 0.5f;
    const float t = hi * hi * q + (lo + lo * hi);
    const float h = 1.0f + hi;
    const float l = (1.0f - h) + hi;               // exact: |hi| < 1
    return (h + (l + t)) * bits_as_float(static_cast<uint32_t>(k + 127) << 23);
}

// ------------------------------------------------------------------ float-lane logarithms
// log x = e ln2 + log(1 + f) for positive finite float x (subnormals scaled by 2^23 first):
// x = 2^e m with m in [sqrt(1/2), sqrt(2)) from integer bits and f = m - 1 exact. log(1 + f)
// = f - f^2/2 + f^3 P(f) is carried as a float-float hi + lo: f^2/2 is split exactly (the top
// 12 bits of f squared are exact, the rest is fl (f + fh)), f - fh^2/2 is a fast two-sum, and
// P (degree 7, relative error 2^-27.3 of the result) adds 7% of the result at most, so its
// rounding errors stay far below an ulp. log_lanes_f then adds e ln2 with ln2 split so that e
// times its high part is exact, and ends with one rounding of hi + (the small parts). (log2 and
// log10 take a shorter path, logk_reduce_lanes below; the 1/ln2, 1/ln10 and log10(2) splits are
// theirs.)
// (ff, fast_two_sum_f, top12_f: npu_emu_math_float.cuh.)
constexpr float LN2_HI_F = 0x1.62e4p-1f, LN2_LO_F = 0x1.7f7d1cp-20f;        // 16 bits + the rest
constexpr float LG2_HI_F = 0x1.344p-2f, LG2_LO_F = 0x1.3509f8p-18f;        // log10(2), the same
constexpr float INV_LN2_HI_F = 0x1.714p+0f, INV_LN2_LO_F = 0x1.47652cp-12f;  // 12 bits + the rest
constexpr float INV_LN2_F = 0x1.715476p+0f;                                   // 1/ln2 rounded
constexpr float INV_LN10_HI_F = 0x1.bcap-2f, INV_LN10_LO_F = 0x1.7b1526p-14f;

struct log_lanes {  // x = 2^e m and log m = hi + lo + tail (to ~2^-27 of itself)
    float e, m, hi, lo, tail;
};
// x a positive normal float; 2^e_offset x is the argument (subnormals come scaled by 2^23).
// P by Estrin's scheme: the same operations on every target, and a short dependency chain
// (the CPU's loops are bound by it, not by the number of operations).
NPU_EMU_HD log_lanes log_reduce_lanes(float x, int32_t e_offset = 0) {
    const uint32_t b = float_as_bits(x);
    const uint32_t t = b - 0x3F3504F3u;  // the bits of sqrt(1/2), rounded down
    const int32_t e = static_cast<int32_t>(t) >> 23;
    const float m = bits_as_float(b - (t & 0xFF800000u));
    const float f = m - 1.0f, g = f * -0.5f;
    const float fh = top12_f(f), gh = top12_f(g);  // gh = -fh / 2
    const ff h = fast_two_sum_f(f, gh * fh);      // f - fh^2 / 2, exactly
    const float f2 = f * f, f4 = f2 * f2;
    const float p01 = 0x1.555554p-2f + f * -0x1.000226p-2f, p23 = 0x1.99a01ep-3f + f * -0x1.54728cp-3f;
    const float p45 = 0x1.22d8f8p-3f + f * -0x1.0d81f2p-3f, p67 = 0x1.05602ep-3f + f * -0x1.38cf20p-4f;
    const float p = (p01 + f2 * p23) + f4 * (p45 + f2 * p67);
    const float tail = p * (f2 * f) + (g - gh) * (f + fh);  // f^3 P - (f^2 - fh^2) / 2
    return {static_cast<float>(e + e_offset), m, h.hi, h.lo, tail};
}
NPU_EMU_HD float log_lanes_f(const log_lanes& r) {  // log x
    const ff s = fast_two_sum_f(r.e * LN2_HI_F, r.hi);
    return s.hi + ((s.lo + (r.lo + r.e * LN2_LO_F)) + r.tail);
}
// ------------------------------------------------------------------ generated float tables
// Tables and fits of float pow and the float log2/log10 (below). Tables: inline constexpr arrays
// on the CPU (its loops gather from them), __constant__ memory on the GPU.
#if defined(NPU_EMU_CPU)
#define NPU_EMU_EXP_TABLE inline constexpr
#else
#define NPU_EMU_EXP_TABLE __constant__ const
#endif
// ---- GENERATED by tools/gen_math_exp_coeffs.py (float tables): begin
// float log2/log10: 2 atanh(s) = 2s + s z Q(z), z = s^2 <= 0.0295 (high to low: relative error 2^-28.5)
NPU_EMU_EXP_TABLE float LOGK_Q[3] = {0x1.2eebdap-2f, 0x1.997c1p-2f, 0x1.55555cp-1f};
// float pow: x = 2^k z, z's bits in [0x3F330000, 0x3F330000 + 2^23), interval i = bits 19..22 of
// (x's bits - that offset); POWF_INVC[i] = 1/c_i, POWF_LOGC[i] = log2 c_i; log2(1 + r) = r P(r),
// |r| <= 0.0296 (P high to low: relative error 2^-38.3); 2^r = 1 + r Q(r),
// |r| <= 1/64 (Q high to low: relative error 2^-32.7); POWF_EXP2_T[i] = the bits of 2^(i/32) - i 2^47
NPU_EMU_EXP_TABLE double POWF_INVC[16] = {0x1.661ec6a5122f9p+0, 0x1.571ed3c506b3ap+0, 0x1.49539e3b2d067p+0, 0x1.3c995a47babe7p+0, 0x1.30d190130d190p+0, 0x1.25e22708092f1p+0, 0x1.1bb4a4046ed29p+0, 0x1.12358e75d3033p+0, 0x1.0953f39010954p+0, 0x1.0000000000000p+0, 0x1.e573ac901e574p-1, 0x1.ca4b3055ee191p-1, 0x1.b2036406c80d9p-1, 0x1.9c2d14ee4a102p-1, 0x1.886e5f0abb04ap-1, 0x1.767dce434a9b1p-1};
NPU_EMU_EXP_TABLE double POWF_LOGC[16] = {-0x1.efec61b011f85p-2, -0x1.b0b67f4f46812p-2, -0x1.7418acebbf18fp-2, -0x1.39de8e1559f6ep-2, -0x1.01d9bbcfa61d4p-2, -0x1.97c1cb13c7ec0p-3, -0x1.2f9e32d5bfdd1p-3, -0x1.960caf9abb7c1p-4, -0x1.a6f9c377dd31dp-5, 0.0, 0x1.3aa2fdd27f1bfp-4, 0x1.476a9f983f74dp-3, 0x1.e840be74e6a4dp-3, 0x1.406463b1b0448p-2, 0x1.88e9c72e0b224p-2, 0x1.ce0a4923a587dp-2};
NPU_EMU_EXP_TABLE double POWF_LOG2_P[6] = {-0x1.eced39152f467p-3, 0x1.27bdf8d71e62dp-2, -0x1.715471122ee34p-2, 0x1.ec7097c30e6cbp-2, -0x1.71547652c094dp-1, 0x1.71547652bcfbdp+0};
NPU_EMU_EXP_TABLE double POWF_EXP2_Q[3] = {0x1.c6b110836bd9dp-5, 0x1.ebfccc58808f0p-3, 0x1.62e42fefa39efp-1};
NPU_EMU_EXP_TABLE uint64_t POWF_EXP2_T[32] = {
    0x3FF0000000000000ull, 0x3FEFD9B0D3158574ull, 0x3FEFB5586CF9890Full, 0x3FEF9301D0125B51ull,
    0x3FEF72B83C7D517Bull, 0x3FEF54873168B9AAull, 0x3FEF387A6E756238ull, 0x3FEF1E9DF51FDEE1ull,
    0x3FEF06FE0A31B715ull, 0x3FEEF1A7373AA9CBull, 0x3FEEDEA64C123422ull, 0x3FEECE086061892Dull,
    0x3FEEBFDAD5362A27ull, 0x3FEEB42B569D4F82ull, 0x3FEEAB07DD485429ull, 0x3FEEA47EB03A5585ull,
    0x3FEEA09E667F3BCDull, 0x3FEE9F75E8EC5F74ull, 0x3FEEA11473EB0187ull, 0x3FEEA589994CCE13ull,
    0x3FEEACE5422AA0DBull, 0x3FEEB737B0CDC5E5ull, 0x3FEEC49182A3F090ull, 0x3FEED503B23E255Dull,
    0x3FEEE89F995AD3ADull, 0x3FEEFF76F2FB5E47ull, 0x3FEF199BDD85529Cull, 0x3FEF3720DCEF9069ull,
    0x3FEF5818DCFBA487ull, 0x3FEF7C97337B9B5Full, 0x3FEFA4AFA2A490DAull, 0x3FEFD0765B6E4540ull};
// ---- GENERATED by tools/gen_math_exp_coeffs.py (float tables): end

// log2 and log10 by FreeBSD's k_log1pf scheme (e_log2f.c, e_log10f.c), one float division in
// place of log_reduce_lanes' longer polynomial and the scaling of its three parts: x = 2^e m as
// there (f = m - 1 exact), s = f / (2 + f), z = s^2 <= 0.0295, and log(1 + f) = f - hfsq +
// s (hfsq + z Q(z)) with hfsq = f^2 / 2 (FreeBSD's identity: 2s + s z Q(z) = 2 atanh s), Q of
// degree 2 (float coefficients, relative error 2^-28.5; tools/gen_math_exp_coeffs.py). hi =
// the top 12 bits of f - hfsq and lo = (f - hi) - hfsq + r carry log(1 + f) = hi + lo; with the
// constant split so that hi times its high part is exact, e (e log10(2)) and that product are
// summed exactly (a fast two-sum) and the small parts added before the one last rounding.
struct logk_lanes {
    float e, hi, lo;  // x = 2^e m, log m = hi + lo (hi 12 bits)
};
NPU_EMU_HD logk_lanes logk_reduce_lanes(float x, int32_t e_offset = 0) {
    const uint32_t b = float_as_bits(x);
    const uint32_t t = b - 0x3F3504F3u;  // the bits of sqrt(1/2), rounded down
    const int32_t e = static_cast<int32_t>(t) >> 23;
    const float f = bits_as_float(b - (t & 0xFF800000u)) - 1.0f;
    const float s = f / (2.0f + f);
    const float z = s * s;
    const float zq = z * LOGK_Q[2] + (z * z) * (LOGK_Q[1] + z * LOGK_Q[0]);
    const float hfsq = 0.5f * f * f;
    const float r = s * (hfsq + zq);
    const float hi = top12_f(f - hfsq);
    const float lo = ((f - hi) - hfsq) + r;
    return {static_cast<float>(e + e_offset), hi, lo};
}
NPU_EMU_HD float logk2_lanes_f(const logk_lanes& l) {  // e + (hi + lo) / ln2
    const ff s = fast_two_sum_f(l.e, l.hi * INV_LN2_HI_F);
    return s.hi + (s.lo + ((l.lo + l.hi) * INV_LN2_LO_F + l.lo * INV_LN2_HI_F));
}
NPU_EMU_HD float logk10_lanes_f(const logk_lanes& l) {  // e log10(2) + (hi + lo) / ln10
    const ff s = fast_two_sum_f(l.e * LG2_HI_F, l.hi * INV_LN10_HI_F);
    return s.hi + (s.lo + (((l.lo + l.hi) * INV_LN10_LO_F + l.lo * INV_LN10_HI_F) + l.e * LG2_LO_F));
}

// log1p x = log(u) + u.lo / u.hi for 1 + x = u.hi + u.lo exactly (a fast two-sum with the
// larger of 1 and x first): log(u.hi + u.lo) = log u.hi + log1p(u.lo / u.hi), and u.lo / u.hi
// is below 2^-24, so its square is far below an ulp. For x in (-1, inf) (u.hi >= 2^-24).
NPU_EMU_HD float log1p_lanes_f(float x) {
    const float a = x > 1.0f ? x : 1.0f, b = x > 1.0f ? 1.0f : x;
    const ff u = fast_two_sum_f(a, b);
    log_lanes r = log_reduce_lanes(u.hi);
    r.lo = r.lo + u.lo / u.hi;
    return log_lanes_f(r);
}

// x = k ln2 + r + lo for |x| <= 88.7 (|k| <= 128), for expm1_lanes_f, exp_pm_lanes_f and
// tanh_lanes_f: ln2 = LN2_HI_F + LN2_LO_F (16 bits and a float), k LN2_HI_F and x - k
// LN2_HI_F are exact (Sterbenz's lemma for k != 0), and k LN2_LO_F rounds below 2^-36; r is
// that difference rounded and lo its rounding error (exact: a fast two-sum), so r + lo is
// x - k ln2 to about 2^-36 (absolute), |r| <= ln2/2 (+ k's rounding) and |lo| <= 2^-26.
struct ExpReducedF {
    int32_t k;
    float r, lo;
};
NPU_EMU_HD ExpReducedF reduce_ln2_lanes_f(float x) {
    const float shifted = x * INV_LN2_F + 0x1.8p23f;
    const float kf = shifted - 0x1.8p23f;
    const float r1 = x - kf * LN2_HI_F, b = kf * LN2_LO_F;
    const float r = r1 - b;
    return {static_cast<int32_t>(float_as_bits(shifted) - 0x4B400000u), r, (r1 - r) - b};
}

// e^x - 1 in float arithmetic for -17.5 <= x <= 88, k in [-24, 127].
// x = k ln2 + hi + lo as in reduce_ln2_lanes_f, with k raised to -24 below (there r is in
// [-0.87, -0.35), outside the fit's range, and e^x - 1 = -1 + 2^-24 e^r is -1 or -1 + 2^-24,
// both within 1 ulp of it: e^r < 0.72); e^r - 1 = hi + hi^2/2 + hi^3 Q(hi) + lo (1 + hi) with
// Q of degree 4 (a fit with float coefficients: relative error 2^-31 of the result; Estrin's
// scheme, as in log_reduce_lanes), and hi^2/2 split
// exactly as in log_reduce_lanes: e^r - 1 = p.hi + p.lo + tail. Then e^x - 1 = 2^k w with
// w = (1 - 2^-k) + (e^r - 1), which does not cancel (k = 0: e^r - 1 itself; else |w| > 0.29),
// computed unscaled and scaled at the end by adding k to w's exponent field (w is a normal
// float for k != 0, and k = 0 adds nothing; every step commutes with the scaling: the bits are
// those of the same sum scaled by 2^k throughout, as this function computed it before).
// 1 - 2^-k = c + c_lo exactly with c its rounding and c_lo = (1 - c) - 2^-k: 0 for -24 <= k <=
// 24 (c exact), -2^-k beyond 24 (c = 1); 2^-k from the same exponent bits (0 at k = 127, where
// it is below 2^-150 of w). Then a fast two-sum with p.hi (|p.hi| < 0.42 < |c| for k != 0, c = 0
// at k = 0) and one rounding of the sum of the small parts at the end.
NPU_EMU_HD float expm1_lanes_f(float x) {
    const int32_t sb = static_cast<int32_t>(float_as_bits(x * INV_LN2_F + 0x1.8p23f));
    const float shifted = bits_as_float(static_cast<uint32_t>(sb > 0x4B3FFFE8 ? sb : 0x4B3FFFE8));  // k >= -24 (an integer max)
    const float kf = shifted - 0x1.8p23f;
    const float r1 = x - kf * LN2_HI_F, b = kf * LN2_LO_F;
    const float hi = r1 - b, lo = (r1 - hi) - b;
    const float g = hi * 0.5f;
    const float hh = top12_f(hi), gh = top12_f(g);  // gh = hh / 2
    const ff p = fast_two_sum_f(hi, gh * hh);      // hi + hh^2 / 2, exactly
    const float h2 = hi * hi;
    const float q01 = 0x1.555554p-3f + hi * 0x1.5554f8p-5f, q23 = 0x1.1112d4p-7f + hi * 0x1.6d3a84p-10f;
    const float q = q01 + h2 * (q23 + h2 * 0x1.9e7cf8p-13f);
    const float tail = q * (h2 * hi) + ((g - gh) * (hi + hh) + (lo + lo * hi));
    const uint32_t ke = float_as_bits(shifted) << 23;        // k in the exponent field
    const float m = bits_as_float(0x3F800000u - ke);         // 2^-k
    const float c = 1.0f - m, c_lo = (1.0f - c) - m;         // 1 - 2^-k = c + c_lo
    const ff a = fast_two_sum_f(c, p.hi);
    const float w = a.hi + ((a.lo + (c_lo + p.lo)) + tail);
    return bits_as_float(float_as_bits(w) + ke);             // 2^k w
}

// e^a / 2 + sgn e^-a / 2 for 0 <= a <= 88 and sgn = +1 (cosh a) or -1 (sinh a, used from
// a = 1 on: sinh_lanes_f), in float lanes and with no division. a = k ln2 + r1 - b as in
// reduce_ln2_lanes_f (r1 = a - k LN2_HI_F exact, b = k LN2_LO_F below 2^-12.5, r = r1 - b
// rounded, |r| <= 0.35); e^r = 1 + r + r^2 Q(r), Q a degree-5 fit with float coefficients
// (relative error 2^-30.2), evaluated as its even and odd parts ev and od, so that the same fit
// gives e^-r = 1 - r + ev - od. 1 + r1 and 1 - r1 are split exactly and b joins the small parts:
// e^(r1 - b) = hp + lp and e^(b - r1) = hm + lm, with the polynomial taken at r (r's rounding
// error moves ev +- od by at most 0.42 2^-26: below 0.14 ulp of e^+-r). With p = 2^(k-1) and
// m = 2^(-k-1) (0 from k = 41 on, where it is below 2^-80 of the first term: every factor a
// normal float), p hp and sgn m hm are exact; the result is p hp + (sgn m hm + (p lp + sgn m lm)),
// rounded twice: the inner sum is at most a third of the result (k >= 1; at k = 0, cosh's r = a
// >= 0 and m hm <= 1/2), so its rounding costs at most 1/8 ulp. e^a's relative error is scaled
// by coth a (at most 1.32 from 1 on) for sinh. All 2^32 arguments: within 0.80 ulp (cosh) and
// 0.89 ulp (sinh, at 0.868, on its polynomial below 1).
NPU_EMU_HD float exp_pm_lanes_f(float a, float sgn) {
    const float shifted = a * INV_LN2_F + 0x1.8p23f;
    const float kf = shifted - 0x1.8p23f;
    const float r1 = a - kf * LN2_HI_F, b = kf * LN2_LO_F;
    const float r = r1 - b;
    const int32_t k = static_cast<int32_t>(float_as_bits(shifted) - 0x4B400000u);
    // ---- GENERATED by tools/gen_math_exp_coeffs.py (exp_q5): begin
    const float r2 = r * r;
    const float ev = r2 * (0x1p-1f + r2 * (0x1.5554e4p-5f + r2 * 0x1.6d491p-10f));
    const float od = (r * r2) * (0x1.555556p-3f + r2 * (0x1.1110ep-7f + r2 * 0x1.a12a34p-13f));
    // ---- GENERATED: end
    const float hp = 1.0f + r1, lp = ((1.0f - hp) + r1) + ((ev + od) - b);  // e^(r1 - b) = hp + lp
    const float hm = 1.0f - r1, lm = ((1.0f - hm) - r1) + ((ev - od) + b);  // e^(b - r1) = hm + lm
    const float p = bits_as_float(static_cast<uint32_t>(k + 126) << 23);                  // 2^(k-1)
    const float m = k > 40 ? 0.0f : bits_as_float(static_cast<uint32_t>(126 - k) << 23);  // 2^(-k-1)
    return p * hp + (sgn * (m * hm) + (p * lp + sgn * (m * lm)));
}

// cosh |x| for |x| <= 88: exp_pm_lanes_f. Tiny |x| need no care: r^2 may be subnormal (below
// 2^-63; no slower on the x86 cores measured) and cosh rounds to 1 there either way.
NPU_EMU_HD float cosh_lanes_f(float x) {
    const float a = bits_as_float(float_as_bits(x) & 0x7FFFFFFFu);
    return exp_pm_lanes_f(a, 1.0f);
}

// sinh |x| for |x| <= 88, with x's sign: below 1 the odd polynomial a + a z P(z), z = a^2, P a
// degree-3 fit with float coefficients (relative error 2^-27.9; the second term is at most
// 0.15 of the result, so its roundings stay below 0.4 ulp; for tiny a it vanishes and the
// result is a, as it should be); from 1 on exp_pm_lanes_f with sgn = -1 (both are computed,
// a select picks one: no branch).
NPU_EMU_HD float sinh_lanes_f(float x) {
    const float a = bits_as_float(float_as_bits(x) & 0x7FFFFFFFu);
    const float z = a * a;
    // ---- GENERATED by tools/gen_math_exp_coeffs.py (sinh_p): begin
    const float p = (0x1.555556p-3f + z * 0x1.11111ep-7f) + (z * z) * (0x1.a009p-13f + z * 0x1.78a70ep-19f);
    // ---- GENERATED: end
    const float small = a + (a * z) * p;
    const float big = exp_pm_lanes_f(a, -1.0f);  // used from 1 on
    return with_sign_of(a < 1.0f ? small : big, x);
}

// tanh |x| in float lanes, from two forms chosen per lane (both computed: no branch).
// Below T = atanh(1/2) (rounded up): the odd polynomial a + a z P(z), z = a^2, P a degree-4 fit
// with float coefficients (relative error 2^-27.5; the second term is at most a tenth of the
// first, so its roundings stay below 0.4 ulp). From T on, tanh a = 1 - q with q = 2 / (E + 1)
// and E = e^(2a): the result is at least 1/2 and q at most 1/2, so q's errors count at most
// half against ulp(t) = 2^-24 (E's relative error at most 3/8). 2a = k ln2 + r
// (reduce_ln2_lanes_f, its lo below 2^-26 left out: 0.1 ulp at most), e^r - 1 = r + r^2 Q(r)
// with Q a degree-4 fit (2^-26.4: 0.07 ulp) as the exact pair v + vl, and E + 1 = 2^k (1 + 2^-k
// + e^r - 1) as the normalized pair dh + dl (1 + 2^-k rounds for k > 23, where q < 2^-22
// makes that error negligible). q0 = 2^(1-k) / dh (one division) and q = q0 (1 - dl / dh) to
// first order; 1 - q0 is split exactly (a fast two-sum), so that q0's rounding (0.25 ulp of t
// at most) and the one last rounding are the other errors. |x| is clamped to 9.25, beyond
// where tanh rounds to 1 (9.0109): q there is below 2^-25 and the result rounds to 1. All 2^32
// arguments: within 0.85 ulp.
constexpr float TANH_SMALL_F = 0x1.193ea8p-1f;  // atanh(1/2) rounded up
NPU_EMU_HD float tanh_lanes_f(float x) {
    const float a = bits_as_float(float_as_bits(x) & 0x7FFFFFFFu);
    const float z = a * a;
    // ---- GENERATED by tools/gen_math_exp_coeffs.py (tanh_p): begin
    const float p = -0x1.555554p-2f + z * (0x1.110fecp-3f + z * (-0x1.b9a1p-5f + z * (0x1.5d2b14p-6f + z * -0x1.b1792ep-8f)));
    // ---- GENERATED: end
    const float small = a + (a * z) * p;
    const float y = 2.0f * (a < 9.25f ? a : 9.25f);
    const ExpReducedF red = reduce_ln2_lanes_f(y);  // lo (below 2^-26) left out
    const int32_t k = red.k;
    const float r = red.r;
    // ---- GENERATED by tools/gen_math_exp_coeffs.py (exp_q4): begin
    const float r2 = r * r;
    const float q = (0x1p-1f + r * 0x1.5554d8p-3f) + r2 * ((0x1.555516p-5f + r * 0x1.12105cp-7f) + r2 * 0x1.6d15f8p-10f);
    // ---- GENERATED: end
    const float t = r2 * q;
    const float v = r + t, vl = (r - v) + t;                     // r + t, exactly
    const float m = bits_as_float(static_cast<uint32_t>(127 - k) << 23);  // 2^-k
    const float u = 1.0f + m;
    const float dh = u + v, dl = ((u - dh) + v) + vl;            // 1 + 2^-k + e^r - 1
    const float g = 1.0f / dh;
    const float q0 = g * (m + m);                                // 2^(1-k) / dh
    const float c = q0 * (dl * g);
    const float s = 1.0f - q0, e = (1.0f - s) - q0;
    const float big = s + (e + c);
    const float res = with_sign_of(a < TANH_SMALL_F ? small : big, x);
    return x != x ? canonical_nan_f32() : res;  // NaN in the lanes too: rare() is false
}
}  // namespace expdetail

template <> struct Split<fn::exp, float> {  // outside [-87, 88]: the double path, 0 and inf from its conversion
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x) { return !(x >= -87.0f && x <= 88.0f); }
    static NPU_EMU_HD float fast(float x) { return expdetail::exp_lanes_f(x); }
};
NPU_EMU_HD float exp(float x) {
    using namespace expdetail;
    using S = Split<fn::exp, float>;
    return !S::rare(x) ? S::fast(x) : x != x ? canonical_nan_f32() : static_cast<float>(exp_f(clamp(x, -104.0, 90.0)));
}

NPU_EMU_HD float exp2(float x) {
    using namespace expdetail;
    if (x != x) return canonical_nan_f32();
    if (x > 129.0f) return inf_f();
    if (x < -151.0f) return 0.0f;
    const double k = round_to_int(x);
    const double r = (x - k) * LN2_H, z = r * r;
    return static_cast<float>((1.0 + (sinh_f(r, z) + cosh_m1_f(z))) * pow2(static_cast<int>(k)));
}

// Below -17.5 (-inf included) fast() computes at -17.5: e^x < e^-17.5 < 0.85 * 2^-25, half an
// ulp below 1, so -1 is the correctly rounded result there and at -17.5 itself (what the lanes
// give: 2^-24 e^r = 0.84 2^-25 there, far from the midpoint). Above 88 (results beyond 2^127) and for
// NaN: the double path, clamped to [-18, 90] (inf comes out).
template <> struct Split<fn::expm1, float> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x) { return !(x <= 88.0f); }
    static NPU_EMU_HD float fast(float x) {
        const float r = expdetail::expm1_lanes_f(x > -17.5f ? x : -17.5f);
        return x == 0.0f ? x : r;  // keeps -0
    }
};
NPU_EMU_HD float expm1(float x) {
    using namespace expdetail;
    using S = Split<fn::expm1, float>;
    return !S::rare(x) ? S::fast(x) : x != x ? canonical_nan_f32() : static_cast<float>(expm1_f(clamp(x, -18.0, 90.0)));
}

// The float logarithms compute in float lanes (log_reduce_lanes above). Their rare arguments:
// NaN, x <= 0, +inf and the subnormals, which the full function scales by 2^23 into the same
// core (log_subnormal).
NPU_EMU_HD bool log_rare(float x) { return !(x >= 0x1p-126f && x < expdetail::inf_f()); }
NPU_EMU_HD expdetail::log_lanes log_subnormal(float x) { return expdetail::log_reduce_lanes(x * 0x1p23f, -23); }
NPU_EMU_HD float log_special(float x) {  // NaN, x <= 0 or +inf
    using namespace expdetail;
    return !(x >= 0.0f) ? canonical_nan_f32() : x == 0.0f ? -inf_f() : x;
}
NPU_EMU_HD bool is_subnormal(float x) { return x > 0.0f && x < 0x1p-126f; }

template <> struct Split<fn::log, float> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x) { return log_rare(x); }
    static NPU_EMU_HD float fast(float x) { return expdetail::log_lanes_f(expdetail::log_reduce_lanes(x)); }
};
NPU_EMU_HD float log(float x) {
    using S = Split<fn::log, float>;
    return !S::rare(x) ? S::fast(x) : is_subnormal(x) ? expdetail::log_lanes_f(log_subnormal(x)) : log_special(x);
}

template <> struct Split<fn::log2, float> {  // exact powers of two come out exact
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x) { return log_rare(x); }
    static NPU_EMU_HD float fast(float x) { return expdetail::logk2_lanes_f(expdetail::logk_reduce_lanes(x)); }
};
NPU_EMU_HD float log2(float x) {
    using S = Split<fn::log2, float>;
    return !S::rare(x) ? S::fast(x) : is_subnormal(x) ? expdetail::logk2_lanes_f(expdetail::logk_reduce_lanes(x * 0x1p23f, -23)) : log_special(x);
}

template <> struct Split<fn::log10, float> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x) { return log_rare(x); }
    static NPU_EMU_HD float fast(float x) { return expdetail::logk10_lanes_f(expdetail::logk_reduce_lanes(x)); }
};
NPU_EMU_HD float log10(float x) {
    using S = Split<fn::log10, float>;
    return !S::rare(x) ? S::fast(x) : is_subnormal(x) ? expdetail::logk10_lanes_f(expdetail::logk_reduce_lanes(x * 0x1p23f, -23)) : log_special(x);
}

template <> struct Split<fn::log1p, float> {  // -1 < x < inf
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x) { return !(x > -1.0f && x < expdetail::inf_f()); }
    static NPU_EMU_HD float fast(float x) {
        const float r = expdetail::log1p_lanes_f(x);
        return x == 0.0f ? x : r;  // keeps -0
    }
};
NPU_EMU_HD float log1p(float x) {
    using namespace expdetail;
    using S = Split<fn::log1p, float>;
    if (!S::rare(x)) return S::fast(x);
    return x == -1.0f ? -inf_f() : x == inf_f() ? x : canonical_nan_f32();
}

// sinh and cosh of a = |x| = k ln2 + r by the addition formulas, sinh a = sinh(k ln2) cosh r +
// cosh(k ln2) sinh r and cosh a = cosh(k ln2) cosh r + sinh(k ln2) sinh r, with sinh(k ln2) =
// 2^(k-1) - 2^(-k-1) and cosh(k ln2) = 2^(k-1) + 2^(-k-1): no division, and no cancellation
// (k = 0: sinh a = sinh r; k >= 1: the sum is at least a third of its larger term). |x| is
// clamped to 90, where both overflow float (inf comes out of the conversion).
namespace expdetail {
struct sinh_cosh_f {
    double sinh, cosh;
};
NPU_EMU_HD sinh_cosh_f sinh_cosh(double a) {
    const reduced_f red = reduce_f(a);
    const double z = red.r * red.r;
    const double sh = sinh_f(red.r, z), ch = 1.0 + cosh_m1_f(z);
    const double p = pow2_f(red.k - 1), m = pow2_f(-red.k - 1);
    const double shk = p - m, chk = p + m;
    return {shk * ch + chk * sh, chk * ch + shk * sh};
}
}  // namespace expdetail

// sinh: float lanes up to |x| = 88 (sinh_lanes_f), the double addition formulas beyond.
template <> struct Split<fn::sinh, float> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x) { return expdetail::abs_bits_f(x) > 0x42B00000u; }  // |x| > 88 or NaN
    static NPU_EMU_HD float fast(float x) { return expdetail::sinh_lanes_f(x); }
};
NPU_EMU_HD float sinh(float x) {
    using namespace expdetail;
    using S = Split<fn::sinh, float>;
    if (!S::rare(x)) return S::fast(x);
    const double a = abs_d(x);
    return x != x ? canonical_nan_f32() : with_sign_of(static_cast<float>(sinh_cosh(a > 90.0 ? 90.0 : a).sinh), x);
}

// cosh: float lanes up to |x| = 88 (cosh_lanes_f), the double addition formulas beyond.
template <> struct Split<fn::cosh, float> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x) { return expdetail::abs_bits_f(x) > 0x42B00000u; }  // |x| > 88 or NaN
    static NPU_EMU_HD float fast(float x) { return expdetail::cosh_lanes_f(x); }
};
NPU_EMU_HD float cosh(float x) {
    using namespace expdetail;
    using S = Split<fn::cosh, float>;
    if (!S::rare(x)) return S::fast(x);
    const double a = abs_d(x);
    return x != x ? canonical_nan_f32() : static_cast<float>(sinh_cosh(a > 90.0 ? 90.0 : a).cosh);
}

// tanh: float lanes for every argument (tanh_lanes_f; NaN gives the canonical NaN there, a
// select: cheaper in the loop than a rare() test, its flag store and count), so rare() is false.
template <> struct Split<fn::tanh, float> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float) { return false; }
    static NPU_EMU_HD float fast(float x) { return expdetail::tanh_lanes_f(x); }
};
NPU_EMU_HD float tanh(float x) {
    using S = Split<fn::tanh, float>;
    return S::rare(x) ? canonical_nan_f32() : S::fast(x);
}

// asinh |x| = log u, u = a + s, s = sqrt(a^2 + 1) (a = |x|), in float lanes as acosh's below:
// s0 = sqrt(a^2 + 1) in float (within 2^-22.5 of s), u0 = s0 + a with its rounding error eps (a
// fast two-sum, s0 >= a), D = a^2 + 1 - s0^2 in double (a^2 and s0^2 exact, a^2 + 1 rounded by
// 2^-53 of itself, the difference exact by Sterbenz's lemma) and s = s0 + D / (2 s0) to 2^-46 of
// s. So u = u0 (1 + d), d = (2 s0 eps + D) / (2 s0 u0) (|d| < 2^-22, one float division, to
// 2^-22 of itself), and log u = log u0 + d (d^2 / 2 below 2^-33 of the result, which is at
// least 2^-12), d added to the small parts of the float-lane log of u0. From a = 2^12 on, log
// 2a (log a with e + 1: log u - log 2a < 1 / (4 a^2) <= 2^-26, below 2^-5 of an ulp of the
// result) with a clamped to 2^12 in the rest (a^2 stays finite). |x| itself below 2^-12
// (asinh a = a - a^3/6 + ..., within a^2/6 < 2^-26.5 of a: it rounds to a). NaN and inf: the
// double path. (Until 6 December 2026: u in double with a double square root, and the
// float-lane log of the double u; about 2x slower.)
template <> struct Split<fn::asinh, float> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x) { return expdetail::abs_bits_f(x) >= 0x7F800000u; }  // inf or NaN
    static NPU_EMU_HD float fast(float x) {
        using namespace expdetail;
        const float a = bits_as_float(float_as_bits(x) & 0x7FFFFFFFu);
        const bool big = a >= 0x1p12f;
        const float c = big ? 0x1p12f : a;
        const float s0 = sqrt_rn_f(c * c + 1.0f);
        const float u0 = s0 + c, eps = c - (u0 - s0);  // s0 + c = u0 + eps exactly
        const double cd = c, sd = s0;
        const float d = static_cast<float>((cd * cd + 1.0) - sd * sd);
        const float s2 = 2.0f * s0;
        log_lanes l = log_reduce_lanes(big ? a : u0);
        l.e = big ? l.e + 1.0f : l.e;
        l.lo = l.lo + (big ? 0.0f : (eps * s2 + d) / (s2 * u0));
        return with_sign_of(a < 0x1p-12f ? a : log_lanes_f(l), x);
    }
};
NPU_EMU_HD float asinh(float x) {
    using namespace expdetail;
    using S = Split<fn::asinh, float>;
    return !S::rare(x) ? S::fast(x) : x != x ? canonical_nan_f32() : x;
}

// acosh x = log u, u = x + s, s = sqrt(x^2 - 1), in float lanes with one float square root and
// one float division: s0 = sqrt((x - 1)(x + 1)) in float (within 2^-22.5 of s), u0 = x + s0
// with its rounding error eps (a fast two-sum, x >= s0), D = x^2 - 1 - s0^2 in double (x^2 and
// s0^2 exact, x^2 - 1 too below 2^26 and within 2^-53 above, the difference exact by Sterbenz's
// lemma) and s = s0 + D / (2 s0) to 2^-46 of s
// (D / s0^2 is below 2^-21.7, so the next term, D^2 / (8 s0^3), is that small). So u = u0 (1 + d),
// d = (2 s0 eps + D) / (2 s0 u0) (|d| < 2^-22, the quotient to 2^-22 of itself), and log u =
// log u0 + d (d^2 / 2 below 2^-33 of the result, which is at least 2^-11.5), d added to the
// small parts of the float-lane log of u0. At x = 1 everything is 0 (the divisor's s0 is
// raised to 2^-20, which no other x reaches). From x = 2^60 on (2 s0 u0 would leave the normal
// floats) and for NaN: log_f(x + sqrt(x^2 - 1)) in double. (Until 6 December 2026: u in double
// with a double square root, and the float-lane log of the double u; about 1.3x slower.)
template <> struct Split<fn::acosh, float> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x) { return !(x >= 1.0f && x < 0x1p60f); }
    static NPU_EMU_HD float fast(float x) {
        using namespace expdetail;
        const float s0 = sqrt_rn_f((x - 1.0f) * (x + 1.0f));
        const float u0 = x + s0, eps = s0 - (u0 - x);  // x + s0 = u0 + eps exactly
        const double xd = x, sd = s0;
        const float d = static_cast<float>((xd * xd - 1.0) - sd * sd);
        const float sc = s0 > 0x1p-20f ? s0 : 0x1p-20f;
        const float rr = 1.0f / ((2.0f * sc) * u0);
        log_lanes l = log_reduce_lanes(u0);
        l.lo = l.lo + (eps * (2.0f * s0) + d) * rr;
        return log_lanes_f(l);
    }
};
NPU_EMU_HD float acosh(float x) {
    using namespace expdetail;
    using S = Split<fn::acosh, float>;
    if (!S::rare(x)) return S::fast(x);
    const double xd = x;
    return x == inf_f() ? x : x >= 1.0f ? static_cast<float>(log_f(xd + sqrt_rn(xd * xd - 1.0))) : canonical_nan_f32();
}

// atanh |x| = log(q) / 2, q = (1 + |x|) / (1 - |x|), in float lanes with one float division:
// rr = 1 / ((1 + a) (1 - a)) (a = |x|, both sums rounded in float) gives q0 = (1 + a)^2 rr ~ q
// and ip = (1 - a) rr ~ 1 / (1 + a), each within a few float ulps. The exact quotient is
// q = q0 (1 + d) with d = e / (1 + a), e = (1 + a) - q0 (1 - a) in double (1 +- a exact there,
// q0 (1 - a) rounded by 2^-53), and d = e ip to 2^-21 of itself; |d| < 2^-21, so log q =
// log q0 + d (d^2 / 2 < 2^-43, below 2^-32 of the result) with d added to the small parts of the
// log of q0, halved exactly. That log is log2's k_log1pf form (logk_reduce_lanes) in natural
// units, e ln2 + hi + lo as log_lanes_f sums it (one float division in place of the degree-7
// polynomial of log_reduce_lanes: the loop about 8 % faster, later on 6 December). |x| itself
// below 2^-12 (atanh a = a + a^3/3 + ..., within a^2/3 < 2^-25.5 of a: it rounds to a). (Until
// 6 December 2026: q in double with two double divisions a vector, and the float-lane log of
// the double q; about 1.4x slower.)
template <> struct Split<fn::atanh, float> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x) { return expdetail::abs_bits_f(x) >= 0x3F800000u; }  // |x| >= 1 or NaN
    static NPU_EMU_HD float fast(float x) {
        using namespace expdetail;
        const float a = bits_as_float(float_as_bits(x) & 0x7FFFFFFFu);
        const float ph = 1.0f + a, mh = 1.0f - a;
        const float rr = 1.0f / (ph * mh);
        const float q0 = ph * (ph * rr), ip = mh * rr;
        const double ad = a;
        const float e = static_cast<float>((1.0 + ad) - static_cast<double>(q0) * (1.0 - ad));
        const logk_lanes l = logk_reduce_lanes(q0);
        const ff h = fast_two_sum_f(l.e * LN2_HI_F, l.hi);
        const float big = 0.5f * (h.hi + (h.lo + ((l.lo + e * ip) + l.e * LN2_LO_F)));
        return with_sign_of(a < 0x1p-12f ? a : big, x);
    }
};
NPU_EMU_HD float atanh(float x) {
    using namespace expdetail;
    using S = Split<fn::atanh, float>;
    if (!S::rare(x)) return S::fast(x);
    return abs_d(x) == 1.0 ? with_sign_of(inf_f(), x) : canonical_nan_f32();
}

// Normal x > 0 and finite y: 2^w, w = y log2 x, in double with glibc's powf scheme (two short
// tables, read by permutations on AVX-512 hosts, npu_emu_lanes.cuh; no division): x = 2^k z with z in [0.699, 1.398) split off in
// float bits, z in one of 16 intervals of its top mantissa bits with centre c (c = 1 on the
// interval holding 1), log2 x = k + log2 c + log2(1 + r), r = z / c - 1 = z POWF_INVC - 1
// (rounded by 2^-53 absolute; exact where c = 1) and log2(1 + r) = r P(r) (degree 6, relative
// error 2^-38.3; glibc's degree 5 has 2^-32, which leaves 0.83 ulp). w = y log2 x, clamped to
// [-160, 129] (where the result is 0 or inf), is rounded to n / 32 by the 0x1.8p47 shift (n in
// its low bits), f = w - n/32 exact, and 2^w = 2^(n/32) (1 + f Q(f)) with 2^(n/32)'s bits from
// POWF_EXP2_T[n mod 32] + n 2^47 (an integer add: the exponent too). Relative error before the
// one rounding to float below 2^-31 (the log's error times |w| ln2 <= 105, where log2 c and
// log2(1 + r) partly cancel at most 1.3x, plus Q's 2^-32.7): within 0.51 ulp. The rest (x <= 0,
// subnormal x, infinities, NaN) is the double version's (C99 Annex F's special cases; float
// values convert exactly). (Until 6 December 2026: log1p_core_f's double division and exp_f's
// polynomials, 1.3x slower.)
namespace expdetail {
template <typename F> NPU_EMU_HD F pow_lanes(F x, F y) {
    using namespace lanes;
    using D = decltype(to_double(x));
    const auto b = bits(x);
    const auto t = b - 0x3F330000u;
    const auto i = index_of((t >> 19) & 15u);
    const D k = i32_to_double(as_signed(t) >> 23);
    const D z = to_double(float_from_bits(b - (t & 0xFF800000u)));  // exact
    const D r = z * lookup16(POWF_INVC, i) - 1.0, r2 = r * r;
    const double* P = POWF_LOG2_P;
    const D l2 = ((P[5] * r + (lookup16(POWF_LOGC, i) + k)) + r2 * (P[3] * r + P[4])) + (r2 * r2) * ((P[0] * r + P[1]) * r + P[2]);
    const D w0 = to_double(y) * l2;
    const D w = select(w0 < -160.0, splat<D>(-160.0), select(w0 > 129.0, splat<D>(129.0), w0));  // clamp
    const D shifted = w + 0x1.8p47;  // n = round(32 w) in its low bits
    const auto n = bits(shifted);
    const D f = w - (shifted - 0x1.8p47);  // exact, |f| <= 1/64
    // The table's index from the unclamped w0 (the same n mod 32 where w0 is in range): from
    // the clamped w, GCC folds the clamped lanes' entry and masks the load, which then stops
    // the vectorizer in loops over pointers that may alias (staged_row's). Out of range the
    // entry is any 2^(i/32) and the result still within a factor 4 of 2^w: inf at 129, 0 at
    // -160.
    const D s = double_from_bits(lookup32(POWF_EXP2_T, index_of(bits(w0 + 0x1.8p47))) + (n << 47));
    const double* Q = POWF_EXP2_Q;
    return to_float((((Q[0] * f + Q[1]) * (f * f)) + (Q[2] * f + 1.0)) * s);
}
}  // namespace expdetail

template <> struct Split<fn::pow, float> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x, float y) {
        return !(x >= 0x1p-126f && x < expdetail::inf_f()) || expdetail::abs_bits_f(y) >= 0x7F800000u;
    }
    static constexpr int lanes = 8;   // fast() on 8 lanes too (npu_emu_lanes.cuh)
    static NPU_EMU_HD float fast(float x, float y) { return expdetail::pow_lanes(x, y); }
#if defined(NPU_EMU_LANES8)
    static lanes::F8 fast(lanes::F8 x, lanes::F8 y) { return expdetail::pow_lanes(x, y); }
#endif
};
NPU_EMU_HD float pow(float x, float y) {
    using S = Split<fn::pow, float>;
    return S::rare(x, y) ? static_cast<float>(pow(static_cast<double>(x), static_cast<double>(y))) : S::fast(x, y);
}

// max + log1p(e^(min - max)), min - max exact in double, for finite arguments unless the result
// can cancel towards 0 (max in [-0.75, 0): the double version, which carries that case).
template <> struct Split<fn::logaddexp, float> {
    static constexpr bool canonical = true;
    static NPU_EMU_HD bool rare(float x, float y) {
        const float m = x > y ? x : y;
        using expdetail::abs_d;
        return !(abs_d(x) < expdetail::inf_d() && abs_d(y) < expdetail::inf_d()) || (m >= -0.75f && m < 0.0f);
    }
    static NPU_EMU_HD float fast(float x, float y) {
        using namespace expdetail;
        const double m = x > y ? x : y, o = x > y ? y : x;
        const double d = o - m;
        return static_cast<float>(m + log1p_f(exp_f(d < -120.0 ? -120.0 : d)));
    }
};
NPU_EMU_HD float logaddexp(float x, float y) {
    using S = Split<fn::logaddexp, float>;
    return S::rare(x, y) ? static_cast<float>(logaddexp(static_cast<double>(x), static_cast<double>(y)))
                         : S::fast(x, y);
}

}  // namespace math
}  // namespace npu_emu
