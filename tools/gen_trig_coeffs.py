"""Generates the constants of kernels_cuda/npu_emu_math_trig.cuh with mpmath: the polynomial
coefficients (Chebyshev fits in z = r*r, rounded to double, their error checked on a dense
grid), pi/2 split for Cody-Waite, the bits of 2/pi for Payne-Hanek and atan(j/16) as hi + lo.

    python tools/gen_trig_coeffs.py > /tmp/consts.txt   # then paste between the markers
"""
from __future__ import annotations

import mpmath as mp

mp.mp.prec = 1400   # the 2/pi table needs 1216 correct bits


def dbl(v) -> float:
    return float(mp.mpf(v))


def hexd(v: float) -> str:
    return float.hex(v)


def split(v, bits: int):
    """v rounded to `bits` significant bits (an mpf)."""
    m, e = mp.frexp(v)
    return mp.ldexp(mp.nint(mp.ldexp(m, bits)), e - bits)


def fit(g, zmax, n):
    """Coefficients (lowest degree first) of a degree-n fit of g on [0, zmax], rounded to double."""
    poly, _ = mp.chebyfit(g, [mp.mpf(0), zmax], n + 1, error=True)
    return [dbl(c) for c in reversed(poly)]


def horner(cs, z):
    acc = mp.mpf(0)
    for c in reversed(cs):
        acc = acc * z + mp.mpf(c)
    return acc


def max_rel_error(approx, exact, rmax, n=2000):
    worst = mp.mpf(0)
    for i in range(1, n + 1):
        r = rmax * i / n
        e = exact(r)
        worst = max(worst, abs((approx(r) - e) / e))
    return worst


def main() -> None:
    out = []
    R = mp.pi / 4 * mp.mpf("1.0001")          # reduced arguments may pass pi/4 by an ulp
    Z = R * R
    s = fit(lambda z: (mp.sin(mp.sqrt(z)) - mp.sqrt(z)) / (z * mp.sqrt(z)), Z, 7)
    c = fit(lambda z: (mp.cos(mp.sqrt(z)) - 1 + z / 2) / (z * z), Z, 6)
    T = mp.mpf(1) / 32 * mp.mpf("1.001")
    a = fit(lambda z: (mp.atan(mp.sqrt(z)) - mp.sqrt(z)) / (z * mp.sqrt(z)), T * T, 5)
    es = max_rel_error(lambda r: r + r**3 * horner(s, r * r), mp.sin, R)
    ec = max_rel_error(lambda r: 1 - r * r / 2 + r**4 * horner(c, r * r), mp.cos, R)
    ea = max_rel_error(lambda r: r + r**3 * horner(a, r * r), mp.atan, T)
    for name, cs, err in (("SIN", s, es), ("COS", c, ec), ("ATAN", a, ea)):
        out.append(f"// {name}: max relative error of the polynomial 2^{float(mp.log(err, 2)):.1f}")
        out.append(f"constexpr double {name}_C[{len(cs)}] = {{" + ", ".join(hexd(v) for v in cs) + "};")
    pio2 = mp.pi / 2
    c1 = split(pio2, 33)
    c2 = split(pio2 - c1, 33)
    c3 = split(pio2 - c1 - c2, 33)
    c4 = mp.mpf(dbl(pio2 - c1 - c2 - c3))
    out.append("// pi/2 = PIO2_1 + PIO2_2 + PIO2_3 (33 bits each: k * PIO2_i is exact for k < 2^20) + PIO2_4")
    for i, v in enumerate((c1, c2, c3, c4), 1):
        out.append(f"constexpr double PIO2_{i} = {hexd(dbl(v))};")
    for name, v in (("PIO2", mp.pi / 2), ("PI", mp.pi), ("PIO4", mp.pi / 4), ("INV_PIO2", 2 / mp.pi)):
        hi = dbl(v)
        out.append(f"constexpr double {name}_HI = {hexd(hi)}, {name}_LO = {hexd(dbl(v - hi))};")
    out.append(f"constexpr double THREE_PIO4 = {hexd(dbl(3 * mp.pi / 4))};")
    # bits of 2/pi, after two zero words (so that windows starting left of the binary point read 0)
    words = 38
    frac = 2 / mp.pi
    ints = int(mp.floor(frac * mp.mpf(2) ** (32 * words)))
    table = [0, 0] + [(ints >> (32 * (words - 1 - i))) & 0xFFFFFFFF for i in range(words)]
    out.append(f"// 2/pi = 0.{{bits of TWO_OVER_PI_BITS[2..]}}: {32 * words} bits, two zero words first")
    rows = [", ".join(f"0x{w:08X}u" for w in table[i:i + 8]) for i in range(0, len(table), 8)]
    out.append(f"constexpr uint32_t TWO_OVER_PI_BITS[{len(table)}] = {{\n    " + ",\n    ".join(rows) + "};")
    hi = [dbl(mp.atan(mp.mpf(j) / 16)) for j in range(17)]
    lo = [dbl(mp.atan(mp.mpf(j) / 16) - hi[j]) for j in range(17)]
    out.append("// atan(j/16) = ATAN_J16_HI[j] + ATAN_J16_LO[j], j = 0..16")
    out.append("constexpr double ATAN_J16_HI[17] = {" + ", ".join(hexd(v) for v in hi) + "};")
    out.append("constexpr double ATAN_J16_LO[17] = {" + ", ".join(hexd(v) for v in lo) + "};")
    print("\n".join(out))


if __name__ == "__main__":
    main()
