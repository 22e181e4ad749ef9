// Complex functions of the math library (docs/math.md#complex-functions), for c64 and c128:
// abs, sqrt, sign, exp, expm1, log, log1p, log2, log10, sin, cos, tan, sinh, cosh, tanh, asin,
// acos, atan, asinh, acosh, atanh, pow (npu_emu::math overloads of the real functions' names).
// Built only from + - * /, sqrt_rn and the real functions of npu_emu_math_exp.cuh /
// npu_emu_math_trig.cuh (no fma, no libm, no libdevice), so both backends give the same bits.
// complex64 computes in double and rounds each part once; complex128 in double, with scaling
// where a product or square could overflow and double-doubles where log cancels (|z| ~ 1).
// Special values follow C99 Annex G (the array API's special cases); where the standard leaves
// a sign unspecified the choice is NumPy 2's. NaN parts are made canonical by the kernel's store.
// Also here: integer pow (exact, wrapping), so the catalog's pow entry covers every type.
// Needs ufunc.cuh's sqrt_rn and complex_divide (ufunc.cuh includes this header after them).
#pragma once
#include "npu_emu_common.cuh"
#include "npu_emu_convert.cuh"
#include "npu_emu_math_exp.cuh"
#include "npu_emu_math_trig.cuh"

// The functions below are calls, not inlined into every kernel: c64 and c128 kernels share
// one body and the module builds faster (the cost of a call is small next to theirs).
#if defined(NPU_EMU_CPU)
#define NPU_EMU_CPLX inline __attribute__((noinline))
#else
#define NPU_EMU_CPLX __device__ __noinline__
#endif

namespace npu_emu {
namespace math {
namespace cplx {

struct cd { double re, im; };   // the computation type of both complex types

constexpr double PI = 3.141592653589793, PI_2 = 1.5707963267948966, PI_4 = 0.7853981633974483,
                 PI3_4 = 2.356194490192345, LN2 = 0.6931471805599453,
                 INV_LN2 = 1.4426950408889634, INV_LN10 = 0.4342944819032518,
                 LOG10_2 = 0.30102999566398120;

NPU_EMU_HD double inf() { return bits_as_double(0x7FF0000000000000ull); }
NPU_EMU_HD double fabs_(double x) { return bits_as_double(double_as_bits(x) & 0x7FFFFFFFFFFFFFFFull); }
NPU_EMU_HD double copysign_(double m, double s) {
    return bits_as_double((double_as_bits(m) & 0x7FFFFFFFFFFFFFFFull) | (double_as_bits(s) & 0x8000000000000000ull));
}
NPU_EMU_HD bool neg(double x) { return (double_as_bits(x) >> 63) != 0; }
NPU_EMU_HD bool isnan_(double x) { return x != x; }
NPU_EMU_HD bool isinf_(double x) { return fabs_(x) == inf(); }
NPU_EMU_HD bool finite(double x) { return fabs_(x) < inf(); }
NPU_EMU_HD double max_(double a, double b) { return a > b ? a : b; }

NPU_EMU_HD cd mul(cd a, cd b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
NPU_EMU_HD cd div(cd a, cd b) { return npu_emu::ufunc::complex_divide(a, b); }   // the divide kernel's

// a + p + q (p, q exact squares as hi + lo) to about 2^-104 of the largest term: the
// cancelling sums of log near the unit circle (x^2 + y^2 - 1) and log1p (2x + x^2 + y^2).
struct dd { double hi, lo; };
NPU_EMU_HD dd two_sum(double a, double b) {
    const double s = a + b, bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
}
NPU_EMU_HD dd square(double a) {   // Dekker's product with Veltkamp's split (|a| < 2^996)
    const double c = 134217729.0 * a, hi = c - (c - a), lo = a - hi;
    const double p = a * a;
    return {p, ((hi * hi - p) + 2.0 * hi * lo) + lo * lo};
}
NPU_EMU_HD double sum3(double a, dd p, dd q) {
    const dd s = two_sum(a, p.hi), t = two_sum(s.hi, q.hi);
    return t.hi + (t.lo + (s.lo + (p.lo + q.lo)));
}

// log|z| of finite z for the bases e, 2, 10 (Base: 0, 2, 10): 0.5 log1p(x^2 + y^2 - 1) in
// double-double near the unit circle, else the real log of hypot (scaled past 2^1000).
template <int Base> NPU_EMU_CPLX double log_abs(double x, double y) {
    const double k = Base == 2 ? INV_LN2 : Base == 10 ? INV_LN10 : 1.0;
    double ax = fabs_(x), ay = fabs_(y), extra = 0.0;   // log|z| = log|z 2^-e| + e log 2
    if (max_(ax, ay) > 0x1p1000) { ax *= 0.25; ay *= 0.25; extra = 2.0; }   // hypot finite
    else if (max_(ax, ay) < 0x1p-1000) { ax *= 0x1p600; ay *= 0x1p600; extra = -600.0; }   // exact
    const double h = hypot(ax, ay);
    if (h > 0.70703125 && h < 1.4140625) return 0.5 * log1p(sum3(-1.0, square(ax), square(ay))) * k;
    const double l = Base == 2 ? log2(h) : Base == 10 ? log10(h) : log(h);
    return extra == 0.0 ? l : l + extra * (Base == 2 ? 1.0 : Base == 10 ? LOG10_2 : LN2);
}

// ------------------------------------------------------------------ exp, log
NPU_EMU_CPLX cd exp_(double x, double y) {
    if (finite(x) && finite(y)) {
        if (y == 0.0) return {exp(x), y};
        const double c = cos(y), s = sin(y);
        if (fabs_(x) > 708.0) {   // e^x overflows or is subnormal: e^(x/2) twice, one rounding last
            const double h = exp(0.5 * x);
            return {(h * c) * h, (h * s) * h};
        }
        const double e = exp(x);
        return {e * c, e * s};
    }
    if (isnan_(x)) return {x, y == 0.0 ? y : canonical_nan_f64()};   // NaN + i0 -> NaN + i0
    if (isinf_(x)) {
        if (!neg(x)) {
            if (y == 0.0) return {x, y};
            if (!finite(y)) return {x, canonical_nan_f64()};   // +inf + i(inf | NaN): +inf + iNaN
            return {x * cos(y), x * sin(y)};
        }
        if (!finite(y)) return {0.0, 0.0};                     // -inf + i(inf | NaN): +0 + i0
        return {0.0 * cos(y), 0.0 * sin(y)};                   // +0 cis(y)
    }
    return {canonical_nan_f64(), canonical_nan_f64()};     // finite + i(inf | NaN)
}

// e^z - 1: (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y, no cancellation near 0.
NPU_EMU_CPLX cd expm1_(double x, double y) {
    if (!finite(x) || !finite(y) || x > 708.0) {
        const cd e = exp_(x, y);
        return {e.re - 1.0, e.im};
    }
    if (y == 0.0) return {expm1(x) + 0.0, y};                  // +-0 + i0 -> +0 + i0
    const double s = sin(0.5 * y);
    return {expm1(x) * cos(y) - 2.0 * (s * s), exp(x) * sin(y)};
}

template <int Base> NPU_EMU_CPLX cd log_(double x, double y) {
    const double k = Base == 2 ? INV_LN2 : Base == 10 ? INV_LN10 : 1.0;
    const double arg = Base == 0 ? atan2(y, x) : atan2(y, x) * k;
    if (!finite(x) || !finite(y)) {   // Annex G: log|z| = +inf for an infinite part, NaN else
        return {isinf_(x) || isinf_(y) ? inf() : canonical_nan_f64(), arg};
    }
    if (x == 0.0 && y == 0.0) return {-inf(), arg};
    return {log_abs<Base>(x, y), arg};
}

// log(1 + z): 0.5 log1p(2x + x^2 + y^2) in double-double where |1 + z| ~ 1, so small z keep
// their digits; atan2(y, 1 + x).
NPU_EMU_CPLX cd log1p_(double x, double y) {
    if (!finite(x) || !finite(y)) return log_<0>(1.0 + x, y);
    const double ux = 1.0 + x, h = hypot(ux, y), arg = atan2(y, ux);
    if (h > 0.70703125 && h < 1.4140625) return {0.5 * log1p(sum3(2.0 * x, square(x), square(y))), arg};
    return {log_abs<0>(ux, y), arg};
}

// ------------------------------------------------------------------ sqrt
NPU_EMU_CPLX cd sqrt_(double x, double y) {
    if (isinf_(y)) return {inf(), y};                          // any x, NaN included
    if (isnan_(x)) return {x, x};
    if (isinf_(x)) {
        if (!neg(x)) return {x, isnan_(y) ? y : copysign_(0.0, y)};
        return {isnan_(y) ? y : 0.0, copysign_(inf(), y)};     // -inf + iNaN: NaN + i inf
    }
    if (isnan_(y)) return {y, y};
    if (x == 0.0 && y == 0.0) return {0.0, y};
    // Kahan: t = sqrt((|x| + |z|) / 2), the other part |y| / 2t; scaled so nothing overflows
    // and the halving of a subnormal loses no bit.
    double ax = fabs_(x), ay = fabs_(y), s = 1.0;
    const double m = max_(ax, ay);
    if (m > 0x1p1020) { ax *= 0.25; ay *= 0.25; s = 2.0; }
    else if (m < 0x1p-1000) { ax *= 0x1p600; ay *= 0x1p600; s = 0x1p-300; }
    const double t = npu_emu::ufunc::sqrt_rn(0.5 * (ax + hypot(ax, ay)));
    const double o = (ay / (2.0 * t)) * s;
    if (!neg(x) || x == 0.0) return {t * s, copysign_(o, y)};
    return {o, copysign_(t * s, y)};
}

// ------------------------------------------------------------------ hyperbolic
// sinh z = sinh x cos y + i cosh x sin y; cosh z = cosh x cos y + i sinh x sin y. Past
// |x| = 708 both are e^|x| / 2 times cis y, as e^(|x|/2) twice (no early overflow).
template <bool Cosh> NPU_EMU_CPLX cd sinh_cosh(double x, double y) {
    if (finite(x) && finite(y)) {
        if (y == 0.0) return Cosh ? cd{cosh(x), x * y} : cd{sinh(x), y};
        const double c = cos(y), s = sin(y);
        if (fabs_(x) > 708.0) {
            const double h = exp(0.5 * fabs_(x)), a = (h * (0.5 * c)) * h, b = (h * (0.5 * s)) * h;
            return Cosh ? cd{a, neg(x) ? -b : b} : cd{neg(x) ? -a : a, b};
        }
        return Cosh ? cd{cosh(x) * c, sinh(x) * s} : cd{sinh(x) * c, cosh(x) * s};
    }
    if (!finite(y)) {   // y inf or NaN
        if (x == 0.0) return Cosh ? cd{canonical_nan_f64(), 0.0} : cd{x, canonical_nan_f64()};
        if (isinf_(x)) return {Cosh ? inf() : x, canonical_nan_f64()};
        return {canonical_nan_f64(), canonical_nan_f64()};
    }
    if (isnan_(x)) return {x, y == 0.0 ? y : canonical_nan_f64()};   // NaN + i0 -> NaN + i0
    if (y == 0.0) return Cosh ? cd{inf(), neg(x) ? -y : y} : cd{x, y};
    return Cosh ? cd{inf() * cos(y), x * sin(y)} : cd{x * cos(y), inf() * sin(y)};
}

// tanh z: Kahan's formula (t = tan y, b = 1 + t^2, s = sinh x: (b s sqrt(1 + s^2) + i t) /
// (1 + b s^2)); past |x| = 22 it is +-1 + i 4 sin y cos y e^(-2|x|).
NPU_EMU_CPLX cd tanh_(double x, double y) {
    if (finite(x) && finite(y)) {
        if (fabs_(x) > 22.0) {
            const double e = exp(-fabs_(x));
            return {copysign_(1.0, x), ((4.0 * sin(y)) * cos(y)) * e * e};
        }
        const double t = tan(y), b = 1.0 + t * t, s = sinh(x);
        const double r = npu_emu::ufunc::sqrt_rn(1.0 + s * s), d = 1.0 + b * (s * s);
        return {(b * r * s) / d, t / d};
    }
    if (isinf_(x)) return {copysign_(1.0, x), copysign_(0.0, y)};   // +-1 + i0 (y's sign)
    if (isnan_(x)) return {x, y == 0.0 ? y : canonical_nan_f64()};
    return {x == 0.0 ? x : canonical_nan_f64(), canonical_nan_f64()};   // finite + i(inf | NaN)
}

// ------------------------------------------------------------------ inverse functions
// asinh z = log1p(z + z^2 / (1 + sqrt(1 + z^2))) on the first quadrant (odd, conjugate
// symmetric); log(2z) past 2^28 (the z^-2 terms are below 2^-56).
NPU_EMU_CPLX cd asinh_(double x, double y) {
    if (!finite(x) || !finite(y)) {
        if (isnan_(x)) return {isinf_(y) ? inf() : x, y == 0.0 ? y : canonical_nan_f64()};
        if (isnan_(y)) return {isinf_(x) ? x : canonical_nan_f64(), canonical_nan_f64()};
        return {copysign_(inf(), x), atan2(y, fabs_(x))};
    }
    const double ax = fabs_(x), ay = fabs_(y);
    cd w;
    if (max_(ax, ay) > 0x1p28) {
        w = log_<0>(ax, ay);
        w.re += LN2;
    } else {
        const cd z2 = {(ax - ay) * (ax + ay), 2.0 * ax * ay};
        // 1 + z^2, its real part as (1 - y)(1 + y) + x^2: no cancellation near z = i
        const cd r = sqrt_((1.0 - ay) * (1.0 + ay) + ax * ax, z2.im);
        const cd t = div(z2, {1.0 + r.re, r.im});
        w = log1p_(ax + t.re, ay + t.im);
    }
    return {copysign_(w.re, x), copysign_(w.im, y)};
}

// acosh z = log1p((z - 1) + sqrt(z - 1) sqrt(z + 1)) (conjugate symmetric), log(2z) past 2^28.
NPU_EMU_CPLX cd acosh_(double x, double y) {
    if (!finite(x) || !finite(y)) {
        if (isnan_(x)) return {isinf_(y) ? inf() : x, canonical_nan_f64()};
        if (isnan_(y)) return {isinf_(x) ? inf() : canonical_nan_f64(), x == 0.0 ? PI_2 : canonical_nan_f64()};
        return {inf(), atan2(y, x)};
    }
    const double ay = fabs_(y);
    cd w;
    if (max_(fabs_(x), ay) > 0x1p28) {
        w = log_<0>(x, ay);
        w.re += LN2;
    } else {
        const cd p = mul(sqrt_(x - 1.0, ay), sqrt_(x + 1.0, ay));
        w = log1p_((x - 1.0) + p.re, ay + p.im);
    }
    return {w.re, copysign_(w.im, y)};
}

// acos z from acosh z = a + ib (a >= 0, b of y's sign): acos z = |b| - i a sign(y).
NPU_EMU_CPLX cd acos_(double x, double y) {
    const cd w = acosh_(x, y);
    return {fabs_(w.im), neg(y) ? w.re : -w.re};
}

// atanh z = log1p(4x / ((1 - x)^2 + y^2)) / 4 + i atan2(2y, (1 - x)(1 + x) - y^2) / 2 on the
// first quadrant (odd, conjugate symmetric); past 2^60: x / |z|^2 + i pi/2.
NPU_EMU_CPLX cd atanh_(double x, double y) {
    if (!finite(x) || !finite(y)) {
        if (isnan_(x)) return isinf_(y) ? cd{0.0, copysign_(PI_2, y)} : cd{x, canonical_nan_f64()};
        if (isnan_(y)) return {isinf_(x) || x == 0.0 ? copysign_(0.0, x) : canonical_nan_f64(), canonical_nan_f64()};
        return {copysign_(0.0, x), copysign_(PI_2, y)};
    }
    const double ax = fabs_(x), ay = fabs_(y);
    cd w;
    if (max_(ax, ay) > 0x1p60) {
        const double h = hypot(ax, ay);
        w = {(ax / h) / h, PI_2};
    } else {
        const double u = 1.0 - ax;
        w = {0.25 * log1p((4.0 * ax) / (u * u + ay * ay)), 0.5 * atan2(2.0 * ay, u * (1.0 + ax) - ay * ay)};
    }
    return {copysign_(w.re, x), copysign_(w.im, y)};
}

// ------------------------------------------------------------------ pow
// NumPy's cpow: z^0 = 1; 0^w = 0 for Re w > 0, else NaN; integer w in (-100, 100) by
// repeated multiplication (1 / z^|n| for n < 0); else exp(w log z).
NPU_EMU_CPLX cd pow_(cd z, cd w) {
    if (w.re == 0.0 && w.im == 0.0) return {1.0, 0.0};
    if (z.re == 0.0 && z.im == 0.0) return w.re > 0.0 ? cd{0.0, 0.0} : cd{canonical_nan_f64(), canonical_nan_f64()};
    if (w.im == 0.0 && w.re > -100.0 && w.re < 100.0 && w.re == static_cast<double>(static_cast<int>(w.re))) {
        const int n = static_cast<int>(w.re);
        cd r = z, p = z;   // r: the product of the powers p = z^(2^j) of n's set bits
        bool first = true;
        for (int m = n < 0 ? -n : n;;) {
            if (m & 1) { r = first ? p : mul(r, p); first = false; }
            m >>= 1;
            if (m == 0) break;
            p = mul(p, p);
        }
        return n < 0 ? div({1.0, 0.0}, r) : r;
    }
    const cd l = log_<0>(z.re, z.im);
    const cd e = mul(w, l);
    return exp_(e.re, e.im);
}

NPU_EMU_CPLX cd sign_(double x, double y) {   // z / |z|; 0 at 0; NaN with a NaN part
    if (isnan_(x) || isnan_(y)) return {canonical_nan_f64(), canonical_nan_f64()};
    if (isinf_(x) || isinf_(y)) {
        if (isinf_(x) && isinf_(y)) return {canonical_nan_f64(), canonical_nan_f64()};
        return isinf_(x) ? cd{copysign_(1.0, x), 0.0} : cd{0.0, copysign_(1.0, y)};
    }
    if (x == 0.0 && y == 0.0) return {0.0, 0.0};
    const double m = max_(fabs_(x), fabs_(y));   // scaled: hypot neither overflows nor loses digits
    const double s = m > 0x1p1000 ? 0.0625 : m < 0x1p-1000 ? 0x1p600 : 1.0;
    const double h = hypot(x * s, y * s);
    return {(x * s) / h, (y * s) / h};
}

// ------------------------------------------------------------------ the two types
NPU_EMU_HD cd wide(c64 z) { return {static_cast<double>(z.re), static_cast<double>(z.im)}; }
NPU_EMU_HD cd wide(c128 z) { return {z.re, z.im}; }
template <typename C> NPU_EMU_HD C narrow(cd z) {
    C c;
    c.re = static_cast<decltype(c.re)>(z.re);   // double -> float rounds once (ties to even)
    c.im = static_cast<decltype(c.im)>(z.im);
    return c;
}
NPU_EMU_HD cd times_i(cd z) { return {-z.im, z.re}; }     // i z
NPU_EMU_HD cd times_minus_i(cd z) { return {z.im, -z.re}; }

}  // namespace cplx

// The functions, for c64 and c128. sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz),
// asin z = -i asinh(iz), atan z = -i atanh(iz), acos z from acosh z (Annex G's identities,
// which also give their special values).
#define NPU_EMU_COMPLEX_FN(NAME, BODY)                                                        \
    template <typename C> NPU_EMU_HD C NAME##_c(C z_) {                                       \
        using namespace cplx;                                                                 \
        const cd z = wide(z_);                                                                \
        return narrow<C>(BODY);                                                               \
    }                                                                                         \
    NPU_EMU_HD c64 NAME(c64 z) { return NAME##_c(z); }                                        \
    NPU_EMU_HD c128 NAME(c128 z) { return NAME##_c(z); }
NPU_EMU_COMPLEX_FN(sqrt, sqrt_(z.re, z.im))
NPU_EMU_COMPLEX_FN(sign, sign_(z.re, z.im))
NPU_EMU_COMPLEX_FN(exp, exp_(z.re, z.im))
NPU_EMU_COMPLEX_FN(expm1, expm1_(z.re, z.im))
NPU_EMU_COMPLEX_FN(log, log_<0>(z.re, z.im))
NPU_EMU_COMPLEX_FN(log2, log_<2>(z.re, z.im))
NPU_EMU_COMPLEX_FN(log10, log_<10>(z.re, z.im))
NPU_EMU_COMPLEX_FN(log1p, log1p_(z.re, z.im))
NPU_EMU_COMPLEX_FN(sinh, (sinh_cosh<false>(z.re, z.im)))
NPU_EMU_COMPLEX_FN(cosh, (sinh_cosh<true>(z.re, z.im)))
NPU_EMU_COMPLEX_FN(tanh, tanh_(z.re, z.im))
NPU_EMU_COMPLEX_FN(sin, times_minus_i(sinh_cosh<false>(-z.im, z.re)))
NPU_EMU_COMPLEX_FN(cos, (sinh_cosh<true>(-z.im, z.re)))
NPU_EMU_COMPLEX_FN(tan, times_minus_i(tanh_(-z.im, z.re)))
NPU_EMU_COMPLEX_FN(asinh, asinh_(z.re, z.im))
NPU_EMU_COMPLEX_FN(acosh, acosh_(z.re, z.im))
NPU_EMU_COMPLEX_FN(atanh, atanh_(z.re, z.im))
NPU_EMU_COMPLEX_FN(asin, times_minus_i(asinh_(-z.im, z.re)))
NPU_EMU_COMPLEX_FN(atan, times_minus_i(atanh_(-z.im, z.re)))
NPU_EMU_COMPLEX_FN(acos, acos_(z.re, z.im))
#undef NPU_EMU_COMPLEX_FN

// |z| = hypot, in the part's type (the real function is within 1 ulp).
NPU_EMU_HD float abs(c64 z) { return hypot(z.re, z.im); }
NPU_EMU_HD double abs(c128 z) { return hypot(z.re, z.im); }

NPU_EMU_HD c64 pow(c64 a, c64 b) { return cplx::narrow<c64>(cplx::pow_(cplx::wide(a), cplx::wide(b))); }
NPU_EMU_HD c128 pow(c128 a, c128 b) { return cplx::narrow<c128>(cplx::pow_(cplx::wide(a), cplx::wide(b))); }

// Integer pow: a^b by squaring, wrapping in the width's unsigned type (NumPy's result for
// b >= 0). b < 0 (the array API refuses it before the launch): 1 / a^|b| truncated, so 1 for
// a = 1, +-1 for a = -1, 0 otherwise (and 0^b: 0).
template <typename I> NPU_EMU_HD I ipow(I a, I b) {
    using W = typename npu_emu::ufunc::Wide<I>::type;
    if (b < I(0)) {
        if (a == I(1)) return I(1);
        if (a == I(-1)) return (b & I(1)) ? a : I(1);
        return I(0);
    }
    W r = 1, p = static_cast<W>(a);
    for (W m = static_cast<W>(b); m != 0; m >>= 1) {
        if (m & 1u) r = static_cast<W>(r * p);
        p = static_cast<W>(p * p);
    }
    return static_cast<I>(r);
}
NPU_EMU_HD int8_t pow(int8_t a, int8_t b) { return ipow(a, b); }
NPU_EMU_HD int16_t pow(int16_t a, int16_t b) { return ipow(a, b); }
NPU_EMU_HD int32_t pow(int32_t a, int32_t b) { return ipow(a, b); }
NPU_EMU_HD int64_t pow(int64_t a, int64_t b) { return ipow(a, b); }
NPU_EMU_HD uint8_t pow(uint8_t a, uint8_t b) { return ipow(a, b); }
NPU_EMU_HD uint16_t pow(uint16_t a, uint16_t b) { return ipow(a, b); }
NPU_EMU_HD uint32_t pow(uint32_t a, uint32_t b) { return ipow(a, b); }
NPU_EMU_HD uint64_t pow(uint64_t a, uint64_t b) { return ipow(a, b); }

}  // namespace math
}  // namespace npu_emu
