// The exp/log family (exp, exp2, expm1, log, log2, log10, log1p, the hyperbolic functions and
// their inverses, pow, logaddexp) for float and double, written once for both targets from
// + - * / sqrt, comparisons and bit operations only: g++ (-ffp-contract=off) and NVRTC
// (--fmad=false, no ftz) then produce the same bits. docs/math.md has the algorithms and the
// measured errors; the constants come from tools/gen_math_exp_coeffs.py.
#pragma once

#include "npu_emu_common.cuh"
#include "npu_emu_convert.cuh"
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

NPU_EMU_HD dd dd_sqrt(dd a) {  // a > 0
    const double s = sqrt_rn(a.hi);
    const dd sq = two_prod(s, s);
    return fast_two_sum(s, ((a.hi - sq.hi) - sq.lo + a.lo) / (2.0 * s));
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
NPU_EMU_HD double nan_d() { return bits_as_double(0x7FF8000000000000ull); }  // the canonical NaN
NPU_EMU_HD double abs_d(double x) { return bits_as_double(double_as_bits(x) & 0x7FFFFFFFFFFFFFFFull); }
NPU_EMU_HD double pow2(int k) {  // 2^k, -1022 <= k <= 1023
    return bits_as_double(static_cast<uint64_t>(k + 1023) << 52);
}

// v * 2^k for v in [0.5, 2) and -1100 < k < 1100, rounded once (to a subnormal, 0 or inf where
// the result lies there): the first factor is exact, only the second one rounds.
NPU_EMU_HD double scale(double v, int k) {
    if (k > 1023) return v * pow2(1023) * pow2(k - 1023);
    if (k < -1022) return v * pow2(k + 1000) * pow2(-1000);
    return v * pow2(k);
}

NPU_EMU_HD double round_to_int(double t) {  // nearest integer (ties to even), |t| < 2^51
    const double shift = 0x1.8p52;
    return (t + shift) - shift;
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
    double f = 0x1.61b58491cefd7p-33;
    f = f * r + 0x1.1f75a3caadff5p-29;
    f = f * r + 0x1.ae6432edf6fafp-26;
    f = f * r + 0x1.27e4da1e12fb1p-22;
    f = f * r + 0x1.71de3a593c8b9p-19;
    f = f * r + 0x1.a01a01a74077ap-16;
    f = f * r + 0x1.a01a01a019ac3p-13;
    f = f * r + 0x1.6c16c16c16214p-10;
    f = f * r + 0x1.1111111111111p-7;
    f = f * r + 0x1.5555555555556p-5;
    return f * r + 0x1.5555555555555p-3;
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

// e^x as a double-double, |x| < 700 (the scaling by 2^k is exact there).
NPU_EMU_HD dd exp_dd(double x) {
    const reduced red = exp_reduce({x, 0.0});
    const dd e = exp_poly(red.r);
    const double s = pow2(red.k);
    return {e.hi * s, e.lo * s};
}

// e^x - 1 as a double-double with relative error < 2^-57, 2^-54 <= |x| < 700.
NPU_EMU_HD dd expm1_dd(double x) {
    const reduced red = exp_reduce({x, 0.0});
    if (red.k == 0) {  // r == x: x + (e^x - 1 - x), no cancellation
        const dd p = expm1_minus_r(red.r);
        const dd s = two_sum(x, p.hi);
        return fast_two_sum(s.hi, s.lo + p.lo);
    }
    const dd e = exp_poly(red.r);
    const double s = pow2(red.k);
    return dd_add_d({e.hi * s, e.lo * s}, -1.0);
}

// e^x * 2^extra rounded once, for any x (0 or inf outside the range), extra in {0, -1}.
NPU_EMU_HD double exp_scaled(dd x, int extra) {
    if (x.hi > 711.0) return inf_d();
    if (x.hi < -746.0) return 0.0;
    const reduced red = exp_reduce(x);
    const dd e = exp_poly(red.r);
    return scale(e.hi + e.lo, red.k + extra);
}

// ------------------------------------------------------------------ log core
// log(1 + f) = 2 atanh(s) = 2s + s z P(z) with s = f / (2 + f), z = s^2 <= 0.0295 for f in
// [sqrt(1/2) - 1, sqrt(2) - 1], and P the atanh series sum 2 z^n / (2n + 3): its terms past
// z^12 are below 2^-70 of the result.
NPU_EMU_HD double atanh_series_tail(double z) {  // 2/7 + 2z/9 + ... + 2z^10/27
    double q = 0x1.2f684bda12f68p-4;
    q = q * z + 0x1.47ae147ae147bp-4;
    q = q * z + 0x1.642c8590b2164p-4;
    q = q * z + 0x1.8618618618618p-4;
    q = q * z + 0x1.af286bca1af28p-4;
    q = q * z + 0x1.e1e1e1e1e1e1ep-4;
    q = q * z + 0x1.1111111111111p-3;
    q = q * z + 0x1.3b13b13b13b14p-3;
    q = q * z + 0x1.745d1745d1746p-3;
    q = q * z + 0x1.c71c71c71c71cp-3;
    return q * z + 0x1.2492492492492p-2;
}

NPU_EMU_HD double atanh_series(double z) {  // P(z) in double
    return (atanh_series_tail(z) * z + 0x1.999999999999ap-2) * z + 0x1.5555555555555p-1;
}

// log(1 + f) for a double-double f in that range. Precise (for pow and logaddexp, where the
// log is multiplied up or cancelled): relative error below 2^-68, P's first two coefficients
// and the products in double-double. Otherwise s z P(z) in double, at most 1% of the result:
// relative error below 2^-57.
template <bool Precise = false>
NPU_EMU_HD dd log1p_core(dd f) {
    const dd s = dd_div(f, dd_add_d(f, 2.0));
    if (!Precise) {
        const double z = s.hi * s.hi;
        return fast_two_sum(2.0 * s.hi, 2.0 * s.lo + s.hi * z * atanh_series(z));
    }
    const dd z = dd_mul(s, s);
    dd p = dd_add({0x1.999999999999ap-2, -0x1.999999999999ap-56}, {z.hi * atanh_series_tail(z.hi), 0.0});
    p = dd_add({0x1.5555555555555p-1, 0x1.5555555555555p-55}, dd_mul(z, p));  // 2/3 + z (2/5 + ...)
    return dd_add({2.0 * s.hi, 2.0 * s.lo}, dd_mul(dd_mul(s, z), p));
}

// log(u) for a positive finite double-double u: u = 2^e m, m in [sqrt(1/2), sqrt(2)), so
// log(u) = e ln2 + log(1 + f) with f = m - 1 exact.
template <bool Precise = false>
NPU_EMU_HD dd log_dd(dd u) {
    double uh = u.hi, ul = u.lo;
    int e = 0;
    if (uh < 0x1p-1022) {  // subnormal: normalize first
        uh *= 0x1p54;
        ul *= 0x1p54;
        e = -54;
    }
    const uint64_t b = double_as_bits(uh);
    e += static_cast<int>(b >> 52) - 1023;
    uint64_t mb = (b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
    if (mb > SQRT2_BITS) {
        mb -= 1ull << 52;
        e += 1;
    }
    const double m = bits_as_double(mb);
    const double low = ul == 0.0 ? 0.0 : ul * pow2(-e / 2) * pow2(-e - (-e / 2));
    const dd l = log1p_core<Precise>(two_sum(m - 1.0, low));
    const double ed = static_cast<double>(e);
    return dd_add(fast_two_sum(ed * LN2_HI, ed * LN2_LO), l);
}

// log(1 + w) for a double-double w > -1.
template <bool Precise = false>
NPU_EMU_HD dd log1p_dd(dd w) {
    if (w.hi >= -0.29 && w.hi <= 0.41) return log1p_core<Precise>(w);
    return log_dd<Precise>(dd_add_d(w, 1.0));
}

}  // namespace expdetail

// ================================================================== double
NPU_EMU_HD double exp(double x) {
    if (x != x) return expdetail::nan_d();
    return expdetail::exp_scaled({x, 0.0}, 0);
}

NPU_EMU_HD double exp2(double x) {
    using namespace expdetail;
    if (x != x) return nan_d();
    if (x > 1025.0) return inf_d();
    if (x < -1076.0) return 0.0;
    const double k = round_to_int(x);
    const dd r = two_prod(x - k, LN2_H);  // x - k is exact; r = (x - k) ln2, |r| <= ln2/2
    const dd e = exp_poly(fast_two_sum(r.hi, r.lo + (x - k) * LN2_L));
    return scale(e.hi + e.lo, static_cast<int>(k));
}

NPU_EMU_HD double expm1(double x) {
    using namespace expdetail;
    if (x != x) return nan_d();
    if (abs_d(x) < 0x1p-54) return x;  // e^x - 1 = x + x^2/2 rounds to x (keeps -0)
    if (x > 700.0) return exp(x);      // the -1 is below half an ulp
    if (x < -40.0) return -1.0;        // e^x < 2^-57
    const dd e = expm1_dd(x);
    return e.hi + e.lo;
}

NPU_EMU_HD double log(double x) {
    using namespace expdetail;
    if (!(x > 0.0)) return x == 0.0 ? -inf_d() : nan_d();
    if (x == inf_d()) return inf_d();
    const dd l = log_dd({x, 0.0});
    return l.hi + l.lo;
}

NPU_EMU_HD double log2(double x) {
    using namespace expdetail;
    if (!(x > 0.0)) return x == 0.0 ? -inf_d() : nan_d();
    if (x == inf_d()) return inf_d();
    const dd l = dd_mul(log_dd({x, 0.0}), dd{INV_LN2, INV_LN2_L});
    return l.hi + l.lo;
}

NPU_EMU_HD double log10(double x) {
    using namespace expdetail;
    if (!(x > 0.0)) return x == 0.0 ? -inf_d() : nan_d();
    if (x == inf_d()) return inf_d();
    const dd l = dd_mul(log_dd({x, 0.0}), dd{INV_LN10_H, INV_LN10_L});
    return l.hi + l.lo;
}

NPU_EMU_HD double log1p(double x) {
    using namespace expdetail;
    if (!(x >= -1.0)) return nan_d();  // NaN or x < -1
    if (x == -1.0) return -inf_d();
    if (x == inf_d()) return inf_d();
    if (abs_d(x) < 0x1p-54) return x;  // x - x^2/2 rounds to x (keeps -0)
    const dd l = log1p_dd({x, 0.0});
    return l.hi + l.lo;
}

NPU_EMU_HD double sinh(double x) {
    using namespace expdetail;
    if (x != x) return nan_d();
    const double ax = abs_d(x);
    double r;
    if (ax < 0x1p-28) return x;  // x^3/6 is below half an ulp
    if (ax > 22.0) {
        r = exp_scaled({ax, 0.0}, -1);  // e^-x is below 2^-63 of the result
    } else {  // (E + E / (E + 1)) / 2 with E = e^|x| - 1: no cancellation
        const dd e = expm1_dd(ax);
        const dd t = dd_add(e, dd_div(e, dd_add_d(e, 1.0)));
        r = 0.5 * (t.hi + t.lo);
    }
    return x < 0.0 ? -r : r;
}

NPU_EMU_HD double cosh(double x) {
    using namespace expdetail;
    if (x != x) return nan_d();
    const double ax = abs_d(x);
    if (ax > 22.0) return exp_scaled({ax, 0.0}, -1);
    const dd e = exp_dd(ax);
    const dd t = dd_add(e, dd_div({1.0, 0.0}, e));
    return 0.5 * (t.hi + t.lo);
}

NPU_EMU_HD double tanh(double x) {
    using namespace expdetail;
    if (x != x) return nan_d();
    const double ax = abs_d(x);
    double r;
    if (ax < 0x1p-28) return x;  // x^3/3 is below half an ulp
    if (ax > 22.0) {
        r = 1.0;  // 1 - tanh < 2^-62
    } else {      // E / (E + 2) with E = e^(2|x|) - 1
        const dd e = expm1_dd(2.0 * ax);
        const dd t = dd_div(e, dd_add_d(e, 2.0));
        r = t.hi + t.lo;
    }
    return x < 0.0 ? -r : r;
}

NPU_EMU_HD double asinh(double x) {
    using namespace expdetail;
    if (x != x) return nan_d();
    const double ax = abs_d(x);
    if (ax < 0x1p-28 || ax == inf_d()) return x;
    dd l;
    if (ax > 0x1p28) {  // log(2|x|): the 1/(4x^2) left out is below 2^-58
        l = dd_add(log_dd({ax, 0.0}), dd{LN2_H, LN2_L});
    } else {  // log1p(|x| + x^2 / (1 + sqrt(1 + x^2))): no cancellation
        const dd sq = two_prod(ax, ax);
        const dd root = dd_sqrt(dd_add_d(sq, 1.0));
        l = log1p_dd(dd_add_d(dd_div(sq, dd_add_d(root, 1.0)), ax));
    }
    const double r = l.hi + l.lo;
    return x < 0.0 ? -r : r;
}

NPU_EMU_HD double acosh(double x) {
    using namespace expdetail;
    if (!(x >= 1.0)) return nan_d();  // NaN or x < 1
    if (x == 1.0) return 0.0;
    if (x == inf_d()) return inf_d();
    dd l;
    if (x > 0x1p28) {
        l = dd_add(log_dd({x, 0.0}), dd{LN2_H, LN2_L});
    } else if (x < 2.0) {  // log1p(t + sqrt(t^2 + 2t)), t = x - 1 exact
        const double t = x - 1.0;
        const dd q = dd_add_d(two_prod(t, t), 2.0 * t);
        l = log1p_dd(dd_add_d(dd_sqrt(q), t));
    } else {
        const dd q = dd_add_d(two_prod(x, x), -1.0);
        l = log_dd(dd_add_d(dd_sqrt(q), x));
    }
    return l.hi + l.lo;
}

NPU_EMU_HD double atanh(double x) {
    using namespace expdetail;
    if (x != x) return nan_d();
    const double ax = abs_d(x);
    if (ax > 1.0) return nan_d();
    double r;
    if (ax < 0x1p-28) return x;  // x^3/3 is below half an ulp
    if (ax == 1.0) {
        r = inf_d();
    } else {  // log1p(2|x| / (1 - |x|)) / 2
        const dd l = log1p_dd(dd_div({2.0 * ax, 0.0}, two_sum(1.0, -ax)));
        r = 0.5 * (l.hi + l.lo);
    }
    return x < 0.0 ? -r : r;
}

// C99 Annex F's pow (pow(x, +-0) = 1 and pow(1, y) = 1 even for NaN; the array API agrees where
// it specifies). Finite x > 0: e^(y log x), log x as a double-double (relative error < 2^-67)
// so that y log x, up to 745 in size, is known to ~2^-57.
NPU_EMU_HD double pow(double x, double y) {
    using namespace expdetail;
    if (y == 0.0 || x == 1.0) return 1.0;
    if (x != x || y != y) return nan_d();
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
    if (x < 0.0 && !y_int) return nan_d();
    double r;
    if (ax == 1.0) {  // x == -1, y an integer
        r = 1.0;
    } else if (ay > 0x1p64) {  // |y log x| > 2^11 (|log x| >= 2^-53 for x != 1): over- or underflows
        r = (ax > 1.0) == (y > 0.0) ? inf_d() : 0.0;
    } else {
        const dd l = log_dd<true>({ax, 0.0});
        const dd p = two_prod(y, l.hi);
        r = exp_scaled(fast_two_sum(p.hi, p.lo + y * l.lo), 0);
    }
    return neg ? -r : r;
}

// log(e^x + e^y) = max + log1p(e^-d), d = |x - y| kept exact as a double-double. Within 1 ulp
// unless the result cancels to far below max (|result| < 2^-50 |max|, only near max = -ln2).
NPU_EMU_HD double logaddexp(double x, double y) {
    using namespace expdetail;
    if (x != x || y != y) return nan_d();
    if (x == y) {  // x + ln2 (and no inf - inf below)
        if (abs_d(x) == inf_d()) return x;
        const dd s = two_sum(x, LN2_H);
        return s.hi + (s.lo + (LN2_L + LN2_TAIL));
    }
    const double m = x > y ? x : y, o = x > y ? y : x;
    if (m == inf_d() || o == -inf_d()) return m + 0.0;  // log(e^-0) = +0
    const dd d = two_sum(o, -m);  // -|x - y|, exact
    if (d.hi < -700.0) return m + exp_scaled(d, 0);  // log1p(e) = e to far below an ulp
    const reduced red = exp_reduce(d);
    const dd e = exp_poly(red.r);
    const double s = pow2(red.k);
    const dd l = dd_add_d(log1p_dd<true>({e.hi * s, e.lo * s}), m);
    return l.hi + l.lo;
}

// ================================================================== float
// Evaluated in plain double (relative error below 2^-48, so far below a float ulp that one
// rounding to float lands within 1 ulp: correctly rounded except where the double value lies
// within 2^-48 of a float midpoint), without the double-double steps the double versions need.
// Every float argument and every intermediate is a normal double: float results, subnormals
// included, come from a single conversion. NaN stays the canonical NaN.
namespace expdetail {

NPU_EMU_HD float nan_f() { return bits_as_float(0x7FC00000u); }
NPU_EMU_HD float inf_f() { return bits_as_float(0x7F800000u); }

NPU_EMU_HD double expm1_small(double r) {  // e^r - 1 for |r| <= 0.35
    return r + r * r * (0.5 + r * exp_tail(r));
}

NPU_EMU_HD double exp_plain(double x) {  // -1000 < x < 1000 with e^x a normal double
    // k from the rounding shift's low bits and 2^k from integer operations: no branch and no
    // double-to-integer conversion, so a loop over it vectorizes.
    const double shifted = x * INV_LN2 + 0x1.8p52;
    const double kd = shifted - 0x1.8p52;
    const double r = (x - kd * LN2_HI) - kd * LN2_LO;
    const double scale = bits_as_double((double_as_bits(shifted) + 1023u) << 52);
    return (1.0 + expm1_small(r)) * scale;
}

NPU_EMU_HD double expm1_plain(double x) {
    return abs_d(x) <= 0.34 ? expm1_small(x) : exp_plain(x) - 1.0;
}

NPU_EMU_HD double log1p_small(double f) {  // log(1 + f), f in [sqrt(1/2) - 1, sqrt(2) - 1]
    const double s = f / (2.0 + f);
    const double z = s * s;
    return 2.0 * s + s * z * atanh_series(z);
}

NPU_EMU_HD double log_plain(double u) {  // u a positive normal double
    const uint64_t b = double_as_bits(u);
    const uint64_t mb = (b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
    const uint64_t high = mb > SQRT2_BITS ? 1u : 0u;  // m in [sqrt(1/2), sqrt(2))
    // e as a double from integer bits: (e + 2^52 + 2^51) has e in its low mantissa bits
    const double e = bits_as_double(0x4338000000000000ull + (b >> 52) + high) - (0x1.8p52 + 1023.0);
    return e * LN2_H + log1p_small(bits_as_double(mb - (high << 52)) - 1.0);
}

NPU_EMU_HD double log1p_plain(double w) {  // w > -1, 1 + w normal
    return (w >= -0.29 && w <= 0.41) ? log1p_small(w) : log_plain(1.0 + w);
}

}  // namespace expdetail

NPU_EMU_HD float exp(float x) {  // selects, not branches (vectorizable under g++ -fno-trapping-math)
    using namespace expdetail;
    const double xd = x;
    const float r = static_cast<float>(exp_plain(xd > 89.0 ? 89.0 : xd < -104.0 ? -104.0 : xd));
    return x != x ? nan_f() : xd > 89.0 ? inf_f() : xd < -104.0 ? 0.0f : r;
}

NPU_EMU_HD float exp2(float x) {
    using namespace expdetail;
    if (x != x) return nan_f();
    if (x > 129.0f) return inf_f();
    if (x < -151.0f) return 0.0f;
    const double k = round_to_int(x);
    return static_cast<float>((1.0 + expm1_small((x - k) * LN2_H)) * pow2(static_cast<int>(k)));
}

NPU_EMU_HD float expm1(float x) {
    using namespace expdetail;
    if (x != x) return nan_f();
    if (x > 89.0f) return inf_f();
    if (x < -18.0f) return -1.0f;  // e^x < 2^-25
    if (x == 0.0f) return x;       // keeps -0
    return static_cast<float>(expm1_plain(x));
}

namespace fn { struct log; }
template <> struct Split<fn::log, float> {   // positive finite x: log_plain, no selects
    static NPU_EMU_HD bool rare(float x) { return !(x > 0.0f && x < expdetail::inf_f()); }
    static NPU_EMU_HD float fast(float x) { return static_cast<float>(expdetail::log_plain(x)); }
};

NPU_EMU_HD float log(float x) {
    using namespace expdetail;
    using S = Split<fn::log, float>;
    if (!S::rare(x)) return S::fast(x);
    return !(x >= 0.0f) ? nan_f() : x == 0.0f ? -inf_f() : x;   // NaN, x < 0, +-0, +inf
}

NPU_EMU_HD float log2(float x) {
    using namespace expdetail;
    if (!(x > 0.0f)) return x == 0.0f ? -inf_f() : nan_f();
    if (x == inf_f()) return x;
    return static_cast<float>(log_plain(x) * INV_LN2);
}

NPU_EMU_HD float log10(float x) {
    using namespace expdetail;
    if (!(x > 0.0f)) return x == 0.0f ? -inf_f() : nan_f();
    if (x == inf_f()) return x;
    return static_cast<float>(log_plain(x) * INV_LN10_H);
}

NPU_EMU_HD float log1p(float x) {
    using namespace expdetail;
    if (!(x >= -1.0f)) return nan_f();
    if (x == -1.0f) return -inf_f();
    if (x == inf_f() || x == 0.0f) return x;  // keeps -0
    return static_cast<float>(log1p_plain(x));
}

NPU_EMU_HD float sinh(float x) {  // (E + E / (E + 1)) / 2, E = e^|x| - 1 (finite in double)
    using namespace expdetail;
    if (x != x) return nan_f();
    const double ax = abs_d(x);
    if (ax == 0.0) return x;
    if (ax > 90.0) return x < 0.0f ? -inf_f() : inf_f();
    const double e = expm1_plain(ax);
    const float r = static_cast<float>(0.5 * (e + e / (e + 1.0)));
    return x < 0.0f ? -r : r;
}

NPU_EMU_HD float cosh(float x) {
    using namespace expdetail;
    if (x != x) return nan_f();
    const double ax = abs_d(x);
    if (ax > 90.0) return inf_f();
    const double e = exp_plain(ax);
    return static_cast<float>(0.5 * (e + 1.0 / e));
}

NPU_EMU_HD float tanh(float x) {  // E / (E + 2), E = e^(2|x|) - 1
    using namespace expdetail;
    if (x != x) return nan_f();
    const double ax = abs_d(x);
    if (ax == 0.0) return x;
    const double e = expm1_plain(ax > 10.0 ? 20.0 : 2.0 * ax);  // tanh(10) rounds to 1
    const float r = ax > 10.0 ? 1.0f : static_cast<float>(e / (e + 2.0));
    return x < 0.0f ? -r : r;
}

NPU_EMU_HD float asinh(float x) {  // log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), x^2 finite in double
    using namespace expdetail;
    if (x != x) return nan_f();
    const double ax = abs_d(x);
    if (ax == 0.0 || ax == inf_d()) return x;
    const double sq = ax * ax;
    const float r = static_cast<float>(log1p_plain(ax + sq / (1.0 + sqrt_rn(1.0 + sq))));
    return x < 0.0f ? -r : r;
}

NPU_EMU_HD float acosh(float x) {
    using namespace expdetail;
    if (!(x >= 1.0f)) return nan_f();
    if (x == inf_f()) return x;
    const double t = static_cast<double>(x) - 1.0;  // exact
    if (t < 1.0) return static_cast<float>(log1p_plain(t + sqrt_rn(t * (t + 2.0))));
    const double xd = x;
    return static_cast<float>(log_plain(xd + sqrt_rn(xd * xd - 1.0)));
}

NPU_EMU_HD float atanh(float x) {  // log1p(2|x| / (1 - |x|)) / 2, 1 - |x| exact in double
    using namespace expdetail;
    if (x != x) return nan_f();
    const double ax = abs_d(x);
    if (ax > 1.0) return nan_f();
    if (ax == 0.0) return x;
    const float r = ax == 1.0 ? inf_f() : static_cast<float>(0.5 * log1p_plain(2.0 * ax / (1.0 - ax)));
    return x < 0.0f ? -r : r;
}

// The special cases are the double version's (float values convert exactly); finite x > 0:
// e^(y log x) with |y log x| < 2^7 known to 2^-45.
NPU_EMU_HD float pow(float x, float y) {
    using namespace expdetail;
    const double ax = abs_d(x), ay = abs_d(y);
    if (!(ax > 0.0 && ax < inf_d() && ay > 0.0 && ay < inf_d()) || ax == 1.0)
        return static_cast<float>(pow(static_cast<double>(x), static_cast<double>(y)));
    if (x < 0.0f && ay < 0x1p53 && static_cast<double>(static_cast<long long>(ay)) != ay) return nan_f();
    const double z = static_cast<double>(y) * log_plain(ax);
    double r = z > 90.0 ? inf_d() : z < -105.0 ? 0.0 : exp_plain(z);
    if (x < 0.0f && ay < 0x1p53 && (static_cast<long long>(ay) & 1)) r = -r;
    return static_cast<float>(r);
}

NPU_EMU_HD float logaddexp(float x, float y) {  // the double version (its cancellation guard)
    return static_cast<float>(logaddexp(static_cast<double>(x), static_cast<double>(y)));
}

}  // namespace math
}  // namespace npu_emu
