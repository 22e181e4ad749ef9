"""Derives the constants of kernels_cuda/npu_emu_math_exp.cuh with mpmath: the split ln2,
the exp tail polynomial (a Chebyshev fit, close to minimax) and the atanh series of the log.
Prints C++ hex-float literals; run `python tools/gen_math_exp_coeffs.py` and paste."""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

mp.prec = 300


def split(v: mpf, bits: int) -> tuple[float, float]:
    """v = hi + lo, hi with `bits` significant bits (so hi * k is exact for small k)."""
    m, e = mpmath.frexp(v)
    hi = float(mpmath.ldexp(mpmath.floor(mpmath.ldexp(m, bits)), e - bits))
    return hi, float(v - hi)


def dd(v: mpf) -> tuple[float, float]:
    hi = float(v)
    return hi, float(v - hi)


def exp_tail(degree: int, half_width: float) -> tuple[list[float], mpf]:
    """F(r) = (e^r - 1 - r - r^2/2) / r^3 on [-w, w]; returns (coefficients low to high, the
    largest absolute error of r^3 F(r) with the rounded coefficients, on a dense grid)."""
    def f(r):
        if abs(r) < mpf(2) ** -20:
            return mpf(1) / 6 + r / 24 + r * r / 120 + r ** 3 / 720
        return (mpmath.exp(r) - 1 - r - r * r / 2) / r ** 3
    coeffs, _ = mpmath.chebyfit(f, [-half_width, half_width], degree + 1, error=True)
    rounded = [float(c) for c in reversed(coeffs)]
    worst = mpf(0)
    for i in range(2001):
        r = mpf(-half_width) + 2 * mpf(half_width) * i / 2000
        p = mpf(0)
        for c in reversed(rounded):
            p = p * r + c
        worst = max(worst, abs(r ** 3 * (p - f(r))))
    return rounded, worst


def main() -> None:
    ln2 = mpmath.log(2)
    print("// ln2 = LN2_HI (42 bits: k * LN2_HI is exact for |k| < 2^11) + LN2_LO")
    hi, lo = split(ln2, 42)
    print(f"LN2_HI = {hi.hex()}, LN2_LO = {lo.hex()}")
    third = float(ln2 - dd(ln2)[0] - dd(ln2)[1])
    print(f"LN2 dd = {', '.join(x.hex() for x in dd(ln2))}; third = {third.hex()}")
    print(f"INV_LN2 = {float(1 / ln2).hex()}; dd {', '.join(x.hex() for x in dd(1 / ln2))}")
    print(f"INV_LN10 dd = {', '.join(x.hex() for x in dd(1 / mpmath.log(10)))}")
    print(f"SQRT2 = {float(mpmath.sqrt(2)).hex()}")
    for degree in (9, 10, 11, 12):
        coeffs, worst = exp_tail(degree, 0.35)
        print(f"exp tail degree {degree}: max |r^3 err| = 2^{float(mpmath.log(worst, 2)):.1f}")
    coeffs, worst = exp_tail(10, 0.35)
    print("EXP_TAIL (low to high) =", ", ".join(c.hex() for c in coeffs))
    print("// log1p(f) = 2s + s z P(z), s = f/(2+f), z = s^2, P = sum 2 z^n / (2n+3)")
    c = [mpf(2) / (2 * n + 3) for n in range(13)]
    print("P0 dd =", ", ".join(x.hex() for x in dd(c[0])), "; P1 dd =", ", ".join(x.hex() for x in dd(c[1])))
    print("P2.. (low to high) =", ", ".join(float(x).hex() for x in c[2:]))


if __name__ == "__main__":
    main()
