"""Derives the constants of kernels_cuda/npu_emu_math_exp.cuh with mpmath: the split ln2,
the exp tail polynomial (a Chebyshev fit, close to minimax), the atanh series of the log, the
float versions' short fits (cosh/sinh of the reduced argument, the log's atanh tail), and pow's
splits of log2(1.5), 2/(3 ln2) and ln2, and the float lanes' Taylor coefficients 1/n!.
Prints C++ hex-float literals and each fit's error; run `python tools/gen_math_exp_coeffs.py`
and paste. The float lanes' fits and tables are generated into the header: float pow's
tables and float log2/log10's fit in one block at namespace level, the fits of the hyperbolic
functions and expm1's neighbours (float coefficients, polynomials written out by Estrin's
scheme) in named blocks inside their functions:

    python tools/gen_math_exp_coeffs.py --write  # rewrites every GENERATED part
    python tools/gen_math_exp_coeffs.py --check  # exit 1 when a part is not what it makes
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path

import mpmath
import numpy as np
from mpmath import mp, mpf

mp.prec = 300


def split(v: mpf, bits: int) -> tuple[float, float]:
    """v = hi + lo, hi with `bits` significant bits (so hi * k is exact for small k)."""
    m, e = mpmath.frexp(v)
    hi = float(mpmath.ldexp(mpmath.floor(mpmath.ldexp(m, bits)), e - bits))
    return hi, float(v - hi)


def split_nearest(v: mpf, bits: int) -> tuple[float, float]:
    """v = hi + lo, hi v rounded to `bits` significant bits (fdlibm's splits in e_pow.c)."""
    m, e = mpmath.frexp(v)
    hi = float(mpmath.ldexp(mpmath.nint(mpmath.ldexp(m, bits)), e - bits))
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


def chebyshev(f, lo, hi, degree: int) -> list[float]:
    """A Chebyshev fit of f on [lo, hi], coefficients low to high, rounded to double."""
    coeffs, _ = mpmath.chebyfit(f, [lo, hi], degree + 1, error=True)
    return [float(c) for c in reversed(coeffs)]


def horner(coeffs: list[float], z: mpf) -> mpf:
    p = mpf(0)
    for c in reversed(coeffs):
        p = p * z + c
    return p


# The float versions reduce x = k ln2 + r with |r| <= ln2/2 (+ the rounding of k): r <= 0.35.
R_MAX = mpf("0.35")
# log(1 + f) with f in [sqrt(1/2) - 1, sqrt(2) - 1]: s = f / (2 + f), z = s^2 <= 0.02944.
Z_LOG = mpf("0.0295")


def cosh_sinh_fits(degree: int) -> tuple[list[float], list[float], mpf]:
    """cosh r = 1 + z/2 + z^2 CE(z) and sinh r = r + r z SE(z), z = r^2 <= R_MAX^2; returns
    (CE, SE, the largest relative error of e^r - 1 = (cosh r - 1) + sinh r) on a dense grid."""
    def ce(z):
        if z < mpf(2) ** -40:
            return mpf(1) / 24 + z / 720
        r = mpmath.sqrt(z)
        return (mpmath.cosh(r) - 1 - z / 2) / z ** 2

    def se(z):
        if z < mpf(2) ** -40:
            return mpf(1) / 6 + z / 120
        r = mpmath.sqrt(z)
        return (mpmath.sinh(r) / r - 1) / z
    c, s = chebyshev(ce, 0, R_MAX ** 2, degree), chebyshev(se, 0, R_MAX ** 2, degree)
    worst = mpf(0)
    for i in range(-2000, 2001):
        if i:
            r = R_MAX * i / 2000
            z = r * r
            q = z * (mpf(1) / 2 + z * horner(c, z)) + r + r * z * horner(s, z)
            worst = max(worst, abs(q / mpmath.expm1(r) - 1))
    return c, s, worst


def log_tail_fit(degree: int) -> tuple[list[float], mpf]:
    """2 atanh(s) = 2s + s z Q(z), z = s^2 <= Z_LOG; returns (Q, the largest relative error)."""
    def q(z):
        if z < mpf(2) ** -60:
            return mpf(2) / 3 + 2 * z / 5
        s = mpmath.sqrt(z)
        return (2 * mpmath.atanh(s) - 2 * s) / (s * z)
    c = chebyshev(q, 0, Z_LOG, degree)
    worst = mpf(0)
    for i in range(1, 2001):
        z = Z_LOG * i / 2000
        s = mpmath.sqrt(z)
        worst = max(worst, abs((2 * s + s * z * horner(c, z)) / (2 * mpmath.atanh(s)) - 1))
    return c, worst


def log2_of(v: mpf) -> str:
    return f"2^{float(mpmath.log(v, 2)):.1f}"


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
    print("// pow (fdlibm's e_pow.c scheme): log2(1.5) and 2/(3 ln2) to 24 bits, ln2 to 11 bits")
    print("POW_DP_H, POW_DP_L =", ", ".join(x.hex() for x in split_nearest(mpmath.log(mpf(3) / 2, 2), 24)))
    print("POW_CP_H, POW_CP_L =", ", ".join(x.hex() for x in split_nearest(2 / (3 * ln2), 24)))
    print("POW_LN2_H11, POW_LN2_L11 =", ", ".join(x.hex() for x in split(ln2, 11)))
    print(f"SQRT_3_2 = {float(mpmath.sqrt(mpf(3) / 2)).hex()}")
    coeffs, worst = exp_tail(10, 0.375)  # pow's e^z: |z| < 0.37 (its reduction from estimates)
    print(f"POW exp tail on [-0.375, 0.375] (low to high, error 2^{float(mpmath.log(worst, 2)):.1f}) =",
          ", ".join(c.hex() for c in coeffs))
    sqrt3_2 = int.from_bytes(struct.pack(">d", float(mpmath.sqrt(3) / 2)), "big")
    print(f"0x3FF0000000000000 - bits of sqrt(3)/2 = 0x{0x3FF0000000000000 - sqrt3_2:016X}")
    print("// float versions (relative errors before the final rounding to float)")
    ce, se, worst = cosh_sinh_fits(2)
    print(f"CE (low to high) = {', '.join(x.hex() for x in ce)}")
    print(f"SE (low to high) = {', '.join(x.hex() for x in se)}; e^r - 1 error {log2_of(worst)}")
    q, worst = log_tail_fit(4)
    print(f"LOG_Q (low to high) = {', '.join(x.hex() for x in q)}; log1p error {log2_of(worst)}")
    float_taylor()


def float_taylor() -> None:
    """The float lanes' Taylor coefficients 1/n! rounded to float: exp_lanes_f's Q and
    cosh_lanes_f's even and odd parts QE (1/2!, 1/4!, 1/6!, 1/8!) and QO (1/3!, 1/5!, 1/7!)."""
    print("// float 1/n! (exp_lanes_f, cosh_lanes_f)")
    for n in range(2, 9):
        exact = 1 / mpmath.factorial(n)
        with mpmath.workprec(24):  # rounded once, to float's 24 bits
            v = +exact
        h = float(v).hex()  # 0x1.<13 hex digits>p<e>: a float's 23 bits fill the first 6
        print(f"1/{n}! = {h[:10]}{h[h.index('p'):]}f")


# ------------------------------------------------------------------ float pow's tables, float log2/log10's fit
# Written into kernels_cuda/npu_emu_math_exp.cuh between the markers below, at namespace level
# (`--write` rewrites them with the named blocks further down; `--check` checks both).
FLOAT_BEGIN = "// ---- GENERATED by tools/gen_math_exp_coeffs.py (float tables): begin\n"
FLOAT_END = "// ---- GENERATED by tools/gen_math_exp_coeffs.py (float tables): end\n"
POWF_OFF = 0x3F330000     # x = 2^k z with z's bits in [POWF_OFF, POWF_OFF + 2^23): z in [0.699, 1.398)
POWF_LOG_N, POWF_EXP_N = 16, 32


def _f32(bits: int) -> mpf:
    return mpf(struct.unpack("<f", struct.pack("<I", bits))[0])


def _bits64(v: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def _hexd(v: float) -> str:
    return "0.0" if v == 0 else v.hex()


def _cheb_rel(f, exact, lo, hi, n: int) -> tuple[list[float], mpf]:
    """f's Chebyshev fit with n coefficients (high to low, rounded to double) and the largest
    relative error of 1 + r p(r) (exp) or r p(r) (log) against `exact` on a dense grid."""
    coeffs, _ = mpmath.chebyfit(f, [lo, hi], n, error=True)
    c = [float(v) for v in coeffs]
    worst = mpf(0)
    for j in range(1, 4001):
        r = lo + (hi - lo) * mpf(j) / 4001
        if r == 0:
            continue
        p = mpf(0)
        for v in c:
            p = p * r + v
        worst = max(worst, abs(exact(r, p) - 1))
    return c, worst


def pow_tables() -> tuple[str, list[str]]:
    """float pow's double tables (glibc's powf scheme): log2 x = k + log2 c_i + log2(1 + r),
    r = z / c_i - 1, for the 16 intervals of z's top mantissa bits (1/c_i the centre's inverse
    rounded to double; c_i = 1 on the interval holding 1, where r = z - 1 is exact); 2^w =
    2^(n/32) 2^r, |r| <= 1/64, with 2^(i/32)'s bits less i 2^47 (the shifted n adds it back)."""
    invc, logc, lows, highs = [], [], [], []
    for i in range(POWF_LOG_N):
        lo, hi = _f32(POWF_OFF + (i << 19)), _f32(POWF_OFF + ((i + 1) << 19))
        v = 1.0 if lo <= 1 < hi else float(2 / (lo + hi))
        invc.append(v)
        logc.append(float(mpmath.log(1 / mpf(v), 2)))
        lows.append(lo * mpf(v) - 1)
        highs.append(hi * mpf(v) - 1)
    rlo, rhi = min(lows), max(highs)
    ln2 = mpmath.log(2)

    def g(r):  # log2(1 + r) / r
        return (1 - r / 2 + r * r / 3) / ln2 if abs(r) < mpf(2) ** -60 else mpmath.log(1 + r, 2) / r
    a, err_log = _cheb_rel(g, lambda r, p: r * p / mpmath.log(1 + r, 2), rlo, rhi, 6)
    h = mpf(1) / (2 * POWF_EXP_N) * (1 + mpf(2) ** -20)

    def e(r):  # (2^r - 1) / r
        return ln2 * (1 + r * ln2 / 2) if abs(r) < mpf(2) ** -60 else (mpf(2) ** r - 1) / r
    c, err_exp = _cheb_rel(e, lambda r, p: (1 + r * p) / mpf(2) ** r, -h, h, 3)
    t = [(_bits64(float(mpf(2) ** (mpf(i) / POWF_EXP_N))) - (i << 47)) % (1 << 64) for i in range(POWF_EXP_N)]
    lines = [
        f"// float pow: x = 2^k z, z's bits in [0x{POWF_OFF:08X}, 0x{POWF_OFF:08X} + 2^23), interval i = bits 19..22 of",
        "// (x's bits - that offset); POWF_INVC[i] = 1/c_i, POWF_LOGC[i] = log2 c_i; log2(1 + r) = r P(r),",
        f"// |r| <= {float(max(-rlo, rhi)):.4f} (P high to low: relative error 2^{float(mpmath.log(err_log, 2)):.1f}); 2^r = 1 + r Q(r),",
        f"// |r| <= 1/64 (Q high to low: relative error 2^{float(mpmath.log(err_exp, 2)):.1f}); POWF_EXP2_T[i] = the bits of 2^(i/32) - i 2^47",
        f"NPU_EMU_EXP_TABLE double POWF_INVC[{POWF_LOG_N}] = {{{', '.join(_hexd(v) for v in invc)}}};",
        f"NPU_EMU_EXP_TABLE double POWF_LOGC[{POWF_LOG_N}] = {{{', '.join(_hexd(v) for v in logc)}}};",
        f"NPU_EMU_EXP_TABLE double POWF_LOG2_P[{len(a)}] = {{{', '.join(_hexd(v) for v in a)}}};",
        f"NPU_EMU_EXP_TABLE double POWF_EXP2_Q[{len(c)}] = {{{', '.join(_hexd(v) for v in c)}}};",
        f"NPU_EMU_EXP_TABLE uint64_t POWF_EXP2_T[{POWF_EXP_N}] = {{",
    ]
    lines += ["    " + ", ".join(f"0x{v:016X}ull" for v in t[j:j + 4]) + ("," if j + 4 < len(t) else "};")
              for j in range(0, len(t), 4)]
    report = [f"pow log2 P: relative error 2^{float(mpmath.log(err_log, 2)):.2f} on [{float(rlo):.5f}, {float(rhi):.5f}]",
              f"pow exp2 Q: relative error 2^{float(mpmath.log(err_exp, 2)):.2f} on |r| <= 1/64"]
    return "\n".join(lines) + "\n", report


def to_float(v: mpf) -> float:
    """v rounded once to float's 24 bits (a double that converts to float exactly)."""
    with mpmath.workprec(24):
        return float(+v)


def float_hex(v: float) -> str:
    h = v.hex()  # 0x1.<13 hex digits>p<e>: a float's 23 bits fill the first 6
    mant, exp = h[:h.index("p")].rstrip("0"), h[h.index("p"):]
    return (mant[:-1] if mant.endswith(".") else mant) + exp + "f"


def logk_fit(n: int = 3) -> tuple[list[float], mpf]:
    """float log2/log10's 2 atanh(s) = 2s + s z Q(z), z = s^2 <= Z_LOG: Q's Chebyshev fit with n
    coefficients rounded to float (high to low) and its largest relative error."""
    def q(z):
        if z < mpf(2) ** -60:
            return mpf(2) / 3 + 2 * z / 5
        s = mpmath.sqrt(z)
        return (2 * mpmath.atanh(s) - 2 * s) / (s * z)
    coeffs, _ = mpmath.chebyfit(q, [0, Z_LOG], n, error=True)
    c = [to_float(v) for v in coeffs]
    worst = mpf(0)
    for i in range(1, 3001):
        z = Z_LOG * i / 3000
        s = mpmath.sqrt(z)
        p = mpf(0)
        for v in c:
            p = p * z + v
        worst = max(worst, abs((2 * s + s * z * p) / (2 * mpmath.atanh(s)) - 1))
    return c, worst


def float_tables() -> tuple[str, list[str]]:
    q, err = logk_fit()
    pow_block, report = pow_tables()
    lines = [f"// float log2/log10: 2 atanh(s) = 2s + s z Q(z), z = s^2 <= {float(Z_LOG)} (high to low: relative error "
             f"2^{float(mpmath.log(err, 2)):.1f})",
             f"NPU_EMU_EXP_TABLE float LOGK_Q[{len(q)}] = {{{', '.join(float_hex(v) for v in q)}}};"]
    return "\n".join(lines) + "\n" + pow_block, [f"log2/log10 Q: relative error 2^{float(mpmath.log(err, 2)):.2f}"] + report


# ------------------------------------------------------------------ float-lane fits (blocks)
HEADER = Path(__file__).resolve().parent.parent / "kernels_cuda" / "npu_emu_math_exp.cuh"
BLOCK_BEGIN = "    // ---- GENERATED by tools/gen_math_exp_coeffs.py ({name}): begin\n"  # inside a function
BLOCK_END = "    // ---- GENERATED: end\n"


def f32(v) -> float:
    """v rounded to float (through double, as the header's literals were made)."""
    return float(np.float32(float(v)))


def hexf(v: float) -> str:
    """A C++ float literal: 0x1.5554d8p-3f."""
    h = float(v).hex()  # [-]0x1.<13 hex digits>p<e>
    mant, exp = h.split("p")
    mant = mant.rstrip("0").rstrip(".")
    return f"{mant}p{exp}f"


def float_fit(f, lo, hi, degree: int, value, ref, points) -> tuple[list[float], mpf]:
    """A Chebyshev fit of f on [lo, hi] with float coefficients (low to high) and the largest
    relative error of value(coeffs, t) against ref(t) over the given points."""
    coeffs, _ = mpmath.chebyfit(f, [lo, hi], degree + 1, error=True)
    c = [f32(x) for x in reversed(coeffs)]
    return c, max(abs(value(c, t) / ref(t) - 1) for t in points)


def hyperbolic_fits() -> dict[str, tuple[list[float], mpf]]:
    """tanh_p: tanh a = a + a z P(z), z = a^2, a <= 0.5494 (tanh_lanes_f's small form, up to
    atanh(1/2)); sinh_p: sinh a = a + a z P(z), a <= 1 (sinh_lanes_f); exp_q4 and exp_q5:
    e^r = 1 + r + r^2 Q(r), |r| <= 0.35 (tanh_lanes_f; exp_pm_lanes_f, which evaluates
    exp_q5's even and odd parts apart for e^r and e^-r)."""
    def tanh_p(z):
        if z < mpf(2) ** -60:
            return -mpf(1) / 3 + 2 * z / 15
        a = mpmath.sqrt(z)
        return (mpmath.tanh(a) - a) / (a * z)

    def sinh_p(z):
        if z < mpf(2) ** -60:
            return mpf(1) / 6 + z / 120
        a = mpmath.sqrt(z)
        return (mpmath.sinh(a) - a) / (a * z)

    def exp_q(r):
        if abs(r) < mpf(2) ** -60:
            return mpf(1) / 2 + r / 6
        return (mpmath.exp(r) - 1 - r) / (r * r)

    odd = lambda c, a: a + a * a * a * horner(c, a * a)  # noqa: E731
    exp1 = lambda c, r: 1 + r + r * r * horner(c, r)  # noqa: E731
    ta, sa, w = mpf("0.5494"), mpf(1), R_MAX
    return {
        "tanh_p": float_fit(tanh_p, 0, ta * ta, 4, odd, mpmath.tanh, [ta * i / 3000 for i in range(1, 3001)]),
        "sinh_p": float_fit(sinh_p, 0, sa * sa, 3, odd, mpmath.sinh, [sa * i / 3000 for i in range(1, 3001)]),
        "exp_q4": float_fit(exp_q, -w, w, 4, exp1, mpmath.exp, [w * i / 2000 for i in range(-2000, 2001)]),
        "exp_q5": float_fit(exp_q, -w, w, 5, exp1, mpmath.exp, [w * i / 2000 for i in range(-2000, 2001)]),
    }


def block_code(name: str, c: list[float]) -> str:
    """The header's lines for one fit (Estrin's scheme: a short dependency chain; tanh_p and
    exp_q5 Horner's, with fewer operations)."""
    h = [hexf(x) for x in c]
    if name == "tanh_p":  # Horner's scheme: one operation fewer (no z^2)
        return f"    const float p = {h[0]} + z * ({h[1]} + z * ({h[2]} + z * ({h[3]} + z * {h[4]})));\n"
    if name == "sinh_p":
        return f"    const float p = ({h[0]} + z * {h[1]}) + (z * z) * ({h[2]} + z * {h[3]});\n"
    if name == "exp_q4":
        return ("    const float r2 = r * r;\n"
                f"    const float q = ({h[0]} + r * {h[1]}) + r2 * (({h[2]} + r * {h[3]}) + r2 * {h[4]});\n")
    if name == "exp_q5":  # its even and odd parts (e^-r from the same fit)
        return ("    const float r2 = r * r;\n"
                f"    const float ev = r2 * ({h[0]} + r2 * ({h[2]} + r2 * {h[4]}));\n"
                f"    const float od = (r * r2) * ({h[1]} + r2 * ({h[3]} + r2 * {h[5]}));\n")
    raise KeyError(name)


# ------------------------------------------------------------------ float64 log2/log10 (blocks)
# fdlibm's log fit LG1..LG7 (the header's doubles), from which log2 and log10 take theirs scaled.
LOG_LG = ["0x1.5555555555593p-1", "0x1.999999997fa04p-2", "0x1.2492494229359p-2", "0x1.c71c51d8e78afp-3",
          "0x1.7466496cb03dep-3", "0x1.39a09d078c69fp-3", "0x1.2f112df3e5244p-3"]


def _hexd_c(v: float) -> str:
    """A C++ double literal (Python's hex form)."""
    return float(v).hex()


def log_scaled_block(name: str) -> str:
    """float64 log2 (name log2_tail) and log10 (log10_tail): log_b(1 + f) = f H + f C + V (r -
    hfsq), V = 1/ln b, with H = 1 (log2) or 1/2 (log10) so that f H is exact, C = V - H rounded,
    HV = V/2 (h = HV f^2 = V hfsq) and fdlibm's LG_i times V rounded (V r = s (h + V R(z)))."""
    v = 1 / mp.log(2) if name == "log2_tail" else 1 / mp.log(10)
    head = mpf(1) if name == "log2_tail" else mpf(0.5)
    lg = [_hexd_c(float(mpf(float.fromhex(c)) * v)) for c in LOG_LG]
    return (f"    constexpr double C = {_hexd_c(float(v - head))}, HV = {_hexd_c(float(v / 2))};\n"
            f"    const double t1 = w * ({lg[1]} + w * ({lg[3]} + w * {lg[5]}));\n"
            f"    const double t2 = z * ({lg[0]} + w * ({lg[2]} + w * ({lg[4]} + w * {lg[6]})));\n")


def rewrite_blocks(text: str) -> str:
    for name, (c, _) in hyperbolic_fits().items():
        begin = BLOCK_BEGIN.format(name=name)
        start = text.index(begin) + len(begin)
        stop = text.index(BLOCK_END, start)
        text = text[:start] + block_code(name, c) + text[stop:]
    for name in ("log2_tail", "log10_tail"):
        begin = BLOCK_BEGIN.format(name=name)
        start = text.index(begin) + len(begin)
        stop = text.index(BLOCK_END, start)
        text = text[:start] + log_scaled_block(name) + text[stop:]
    return text


def rewrite_header(text: str) -> tuple[str, list[str]]:
    """The header's text with every generated part rewritten (the float tables' block at
    namespace level, the named blocks inside the float-lane functions), and what each fit
    reports."""
    start, stop = text.index(FLOAT_BEGIN) + len(FLOAT_BEGIN), text.index(FLOAT_END)
    block, report = float_tables()
    text = rewrite_blocks(text[:start] + block + text[stop:])
    report += [f"{name}: relative error {log2_of(worst)}" for name, (_, worst) in hyperbolic_fits().items()]
    return text, report


def generated_main(argv: list[str]) -> int:
    """--write: rewrite the header's generated parts; --check: exit 1 when one is stale."""
    text = HEADER.read_text()
    new, report = rewrite_header(text)
    if "--check" in argv:
        if new != text:
            print(f"{HEADER.name}: a generated part is stale; run {Path(__file__).name} --write")
            return 1
        return 0
    HEADER.write_text(new)
    print("\n".join(report))
    return 0


if __name__ == "__main__":
    if "--check" in sys.argv or "--write" in sys.argv:
        sys.exit(generated_main(sys.argv[1:]))
    main()
