"""The complex functions of the ufunc kernels (kernels_cuda/npu_emu_math_complex.cuh) and integer
pow: values against mpmath 1.3 (each part within a few ulp of |result|), the special values
of C99 Annex G as the array API states them (with its symmetries), canonical NaN parts, the
paths for huge, tiny and near-unit arguments, strided and broadcast views, and integer pow
against NumPy 2.4."""
from __future__ import annotations

import math
import os

import mpmath
import numpy as np
import pytest

from npu_emu.kernels import ufunc as U

UNARY = ["sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "sinh",
         "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sign", "reciprocal",
         "abs"]
MP = {"exp": mpmath.exp, "expm1": mpmath.expm1, "log": mpmath.log, "log1p": mpmath.log1p,
      "log2": lambda z: mpmath.log(z) / mpmath.log(2), "log10": lambda z: mpmath.log(z) / mpmath.log(10),
      "sqrt": mpmath.sqrt, "sin": mpmath.sin, "cos": mpmath.cos, "tan": mpmath.tan,
      "sinh": mpmath.sinh, "cosh": mpmath.cosh, "tanh": mpmath.tanh, "asin": mpmath.asin,
      "acos": mpmath.acos, "atan": mpmath.atan, "asinh": mpmath.asinh, "acosh": mpmath.acosh,
      "atanh": mpmath.atanh, "abs": abs, "sign": lambda z: z / abs(z), "reciprocal": lambda z: 1 / z,
      "pow": mpmath.power}
HOSTS = {np.complex64: (np.float32, 24, -126), np.complex128: (np.float64, 53, -1022)}
# The bound, in ulps of |result| (each part's error against mpmath's value, divided by the
# ulp of the result's magnitude in the part's format). complex64 computes in double and
# rounds each part once (reciprocal: divide's float algorithm, as 1 / z gives).
LIMIT = {np.complex64: 1.0, np.complex128: 4.0}
LIMIT_RECIPROCAL_C64 = 2.0
INF, NAN = math.inf, math.nan
# Points per kind of sample (3 kinds, plus the edge points): NPU_EMU_MATH_SWEEP=1 for the
# sweep docs/math.md reports (`NPU_EMU_MATH_SWEEP=1 python tests/test_ufunc_complex.py`).
PER_KIND = 1500 if os.environ.get("NPU_EMU_MATH_SWEEP") else 60


def reference(name: str, *zs: complex) -> mpmath.mpc | None:
    """mpmath's value. A zero part is nudged by 2^-3000 towards its sign, so a signed zero
    picks the side of a branch cut as C99 Annex G says; the precision covers the parts' range
    (mpmath's complex functions are accurate to about 2^-prec of their scale)."""
    parts = [abs(p) for z in zs for p in (z.real, z.imag) if p != 0]
    span = int(max(0.0, -math.log2(min(parts))) + max(0.0, math.log2(max(parts)))) if parts else 0
    zero = any(p == 0 for z in zs for p in (z.real, z.imag))
    with mpmath.workprec(200 + span + (3100 if zero else 0)):
        eps = mpmath.mpf(2) ** -3000

        def part(p: float):
            return mpmath.mpf(p) if p != 0 else (-eps if math.copysign(1, p) < 0 else eps)
        args = [mpmath.mpc(part(z.real), part(z.imag)) for z in zs]
        return mpmath.mpc(MP[name](*args))


def ulp_error(got: complex, ref: mpmath.mpc, host) -> float:
    """max(|re - ref.re|, |im - ref.im|) in ulps of |ref| (subnormal ulp at the bottom)."""
    _, p, emin = HOSTS[host]
    m = abs(ref)
    if m == 0:
        return 0.0 if got == 0 else math.inf
    e = max(int(mpmath.floor(mpmath.log(m, 2))), emin)
    ulp = mpmath.mpf(2) ** (e - p + 1)
    return float(max(abs(mpmath.mpf(float(got.real)) - ref.real),
                     abs(mpmath.mpf(float(got.imag)) - ref.imag)) / ulp)


def edge_points() -> list[complex]:
    """The paths of the implementation: near the unit circle and the circle around -1 (log,
    log1p cancel there), tiny and huge arguments (scaled paths), |x| near 22 and 708 (tanh,
    exp, sinh, cosh switch formula), near the branch points +-1, +-i."""
    t = 1e-9
    return [complex(math.cos(0.3), math.sin(0.3)) * (1 + 1e-12), complex(0.6, 0.8000000001),
            complex(1 - 1e-10, 1e-6), complex(-1 + math.cos(0.2), math.sin(0.2)),
            complex(1e-300, 1e-310), complex(1e-20, -3e-20), complex(5e-324, 5e-324),
            complex(1e300, 1e300), complex(-1e308, 1e307), complex(1e15, -1e-5),
            complex(22.5, 0.7), complex(-21.9, 2.0), complex(709.5, 0.3), complex(-709.5, -2.0),
            complex(710.2, 1.2), complex(-740.0, 0.5), complex(1 + t, t), complex(-1 - t, -t),
            complex(t, 1 + t), complex(-t, -1 + t), complex(3e8, 2e8), complex(1e-8, 1e10),
            complex(0.0, 2.0), complex(-0.0, -2.0), complex(2.0, 0.0), complex(-3.0, -0.0),
            complex(0.5, 0.0), complex(0.0, 0.5)]


def sample(host, n: int = PER_KIND, seed: int = 16) -> np.ndarray:
    """Seeded random points: normal, near the origin, every binade of ±2^±43, and edge points."""
    rng = np.random.default_rng(seed)
    sign = lambda k: np.where(rng.random((k, 2)) < 0.5, -1.0, 1.0)   # noqa: E731
    kinds = [rng.normal(size=(n, 2)) * 2, rng.uniform(-1.5, 1.5, (n, 2)),
             sign(n) * np.exp2(rng.uniform(-43, 43, (n, 2)))]
    a = np.concatenate(kinds)
    with np.errstate(over="ignore", under="ignore"):
        z = np.concatenate([a[:, 0] + 1j * a[:, 1], np.array(edge_points())]).astype(host)
    return z[np.isfinite(z)]


def measure(name: str, host, zs: np.ndarray, ws: np.ndarray | None = None) -> tuple[float, tuple]:
    """The largest error of our kernel over the points whose result is in range."""
    got = U.apply_numpy(name, *((zs,) if ws is None else (zs, ws)))
    if name == "abs":
        got = got.astype(host)
    big = float(np.finfo(HOSTS[host][0]).max)
    worst, at = 0.0, ()
    for k, z in enumerate(zs):
        args = (complex(z),) if ws is None else (complex(z), complex(ws[k]))
        if args[0] == 0:
            continue   # the special values' test has zero
        ref = reference(name, *args)
        if not (abs(ref.real) <= big and abs(ref.imag) <= big):
            continue   # the result overflows the format
        err = ulp_error(complex(got[k]), ref, host)
        if err > worst:
            worst, at = err, (args, complex(got[k]), complex(ref))
    return worst, at


# ------------------------------------------------------------------------ accuracy
@pytest.mark.parametrize("host", [np.complex64, np.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("name", UNARY)
def test_within_a_few_ulp_of_mpmath(name, host):
    limit = LIMIT_RECIPROCAL_C64 if (name, host) == ("reciprocal", np.complex64) else LIMIT[host]
    worst, at = measure(name, host, sample(host))
    assert worst <= limit, f"{name}({host.__name__}): {worst:.2f} ulp of |result| at {at}"


@pytest.mark.parametrize("host", [np.complex64, np.complex128], ids=["c64", "c128"])
def test_pow_within_the_error_of_exp_of_w_log_z(host):
    """z^w = exp(w log z): the error of log z is multiplied by |w log z| (NumPy's and C's
    cpow have the same property); complex64 computes in double, so stays within 1 ulp."""
    rng = np.random.default_rng(7)
    z = sample(host, 20)
    w = (rng.normal(size=z.size) * 3 + 1j * rng.normal(size=z.size)).astype(host)
    w[::5] = np.round(w[::5].real * 3)                    # integer exponents (repeated products)
    got = U.apply_numpy("pow", z, w)
    big = float(np.finfo(HOSTS[host][0]).max)
    for k in range(z.size):
        ref = reference("pow", complex(z[k]), complex(w[k]))
        if not (abs(ref.real) <= big and abs(ref.imag) <= big) or abs(ref) < 1e-300:
            continue
        scale = 1.0 if host == np.complex64 else 3.0 + 2.0 * abs(complex(w[k]) * np.log(complex(z[k])))
        err = ulp_error(complex(got[k]), ref, host)
        assert err <= scale, f"pow({z[k]}, {w[k]}) = {got[k]}, mpmath {complex(ref)}: {err:.1f} ulp"


# ------------------------------------------------------------------ special values
PI, PI_2, PI_4, PI3_4 = math.pi, math.pi / 2, math.pi / 4, 3 * math.pi / 4
R, I = "re?", "im?"   # the standard leaves that part's sign unspecified
# (function, z, expected, unspecified signs): the array API's special cases (C99 Annex G),
# for Im z >= +0; the conjugates (and, for odd functions, the negatives) follow.
SPECIAL = [
    ("exp", (0.0, 0.0), (1.0, 0.0), ()), ("exp", (-0.0, 0.0), (1.0, 0.0), ()),
    ("exp", (1.0, INF), (NAN, NAN), ()), ("exp", (1.0, NAN), (NAN, NAN), ()),
    ("exp", (INF, 0.0), (INF, 0.0), ()), ("exp", (-INF, 1.0), (0.0, 0.0), ()),
    ("exp", (-INF, 2.0), (-0.0, 0.0), ()), ("exp", (INF, 1.0), (INF, INF), ()),
    ("exp", (INF, 2.0), (-INF, INF), ()), ("exp", (-INF, INF), (0.0, 0.0), (R, I)),
    ("exp", (INF, INF), (INF, NAN), (R,)), ("exp", (-INF, NAN), (0.0, 0.0), (R, I)),
    ("exp", (INF, NAN), (INF, NAN), (R,)), ("exp", (NAN, 0.0), (NAN, 0.0), ()),
    ("exp", (NAN, 1.0), (NAN, NAN), ()), ("exp", (NAN, NAN), (NAN, NAN), ()),
    ("expm1", (0.0, 0.0), (0.0, 0.0), ()), ("expm1", (-0.0, 0.0), (0.0, 0.0), ()),
    ("expm1", (1.0, INF), (NAN, NAN), ()), ("expm1", (1.0, NAN), (NAN, NAN), ()),
    ("expm1", (INF, 0.0), (INF, 0.0), ()), ("expm1", (-INF, 1.0), (-1.0, 0.0), ()),
    ("expm1", (INF, 1.0), (INF, INF), ()), ("expm1", (-INF, INF), (-1.0, 0.0), (I,)),
    ("expm1", (INF, INF), (INF, NAN), (R,)), ("expm1", (-INF, NAN), (-1.0, 0.0), (I,)),
    ("expm1", (INF, NAN), (INF, NAN), (R,)), ("expm1", (NAN, 0.0), (NAN, 0.0), ()),
    ("expm1", (NAN, 1.0), (NAN, NAN), ()), ("expm1", (NAN, NAN), (NAN, NAN), ()),
    ("log", (-0.0, 0.0), (-INF, PI), ()), ("log", (0.0, 0.0), (-INF, 0.0), ()),
    ("log", (1.0, INF), (INF, PI_2), ()), ("log", (1.0, NAN), (NAN, NAN), ()),
    ("log", (-INF, 1.0), (INF, PI), ()), ("log", (INF, 1.0), (INF, 0.0), ()),
    ("log", (-INF, INF), (INF, PI3_4), ()), ("log", (INF, INF), (INF, PI_4), ()),
    ("log", (INF, NAN), (INF, NAN), ()), ("log", (-INF, NAN), (INF, NAN), ()),
    ("log", (NAN, 1.0), (NAN, NAN), ()), ("log", (NAN, INF), (INF, NAN), ()),
    ("log", (NAN, NAN), (NAN, NAN), ()),
    ("log2", (-0.0, 0.0), (-INF, PI / math.log(2)), ()), ("log2", (INF, INF), (INF, PI_4 / math.log(2)), ()),
    ("log10", (-0.0, 0.0), (-INF, PI / math.log(10)), ()), ("log10", (NAN, INF), (INF, NAN), ()),
    ("log1p", (-1.0, 0.0), (-INF, 0.0), ()), ("log1p", (0.0, 0.0), (0.0, 0.0), ()),
    ("log1p", (1.0, INF), (INF, PI_2), ()), ("log1p", (1.0, NAN), (NAN, NAN), ()),
    ("log1p", (-INF, 1.0), (INF, PI), ()), ("log1p", (INF, 1.0), (INF, 0.0), ()),
    ("log1p", (-INF, INF), (INF, PI3_4), ()), ("log1p", (INF, INF), (INF, PI_4), ()),
    ("log1p", (INF, NAN), (INF, NAN), ()), ("log1p", (-INF, NAN), (INF, NAN), ()),
    ("log1p", (NAN, 1.0), (NAN, NAN), ()), ("log1p", (NAN, INF), (INF, NAN), ()),
    ("log1p", (NAN, NAN), (NAN, NAN), ()),
    ("sqrt", (0.0, 0.0), (0.0, 0.0), ()), ("sqrt", (-0.0, 0.0), (0.0, 0.0), ()),
    ("sqrt", (1.0, INF), (INF, INF), ()), ("sqrt", (NAN, INF), (INF, INF), ()),
    ("sqrt", (-INF, INF), (INF, INF), ()), ("sqrt", (1.0, NAN), (NAN, NAN), ()),
    ("sqrt", (-INF, 1.0), (0.0, INF), ()), ("sqrt", (INF, 1.0), (INF, 0.0), ()),
    ("sqrt", (-INF, NAN), (NAN, INF), (I,)), ("sqrt", (INF, NAN), (INF, NAN), ()),
    ("sqrt", (NAN, 1.0), (NAN, NAN), ()), ("sqrt", (NAN, NAN), (NAN, NAN), ()),
    ("sqrt", (-4.0, 0.0), (0.0, 2.0), ()), ("sqrt", (4.0, 0.0), (2.0, 0.0), ()),
    ("sinh", (0.0, 0.0), (0.0, 0.0), ()), ("sinh", (0.0, INF), (0.0, NAN), (R,)),
    ("sinh", (0.0, NAN), (0.0, NAN), (R,)), ("sinh", (1.0, INF), (NAN, NAN), ()),
    ("sinh", (1.0, NAN), (NAN, NAN), ()), ("sinh", (INF, 0.0), (INF, 0.0), ()),
    ("sinh", (INF, 1.0), (INF, INF), ()), ("sinh", (INF, 2.0), (-INF, INF), ()),
    ("sinh", (INF, INF), (INF, NAN), (R,)), ("sinh", (INF, NAN), (INF, NAN), (R,)),
    ("sinh", (NAN, 0.0), (NAN, 0.0), ()), ("sinh", (NAN, 1.0), (NAN, NAN), ()),
    ("sinh", (NAN, NAN), (NAN, NAN), ()),
    ("cosh", (0.0, 0.0), (1.0, 0.0), ()), ("cosh", (0.0, INF), (NAN, 0.0), (I,)),
    ("cosh", (0.0, NAN), (NAN, 0.0), (I,)), ("cosh", (1.0, INF), (NAN, NAN), ()),
    ("cosh", (1.0, NAN), (NAN, NAN), ()), ("cosh", (INF, 0.0), (INF, 0.0), ()),
    ("cosh", (INF, 1.0), (INF, INF), ()), ("cosh", (INF, 2.0), (-INF, INF), ()),
    ("cosh", (INF, INF), (INF, NAN), (R,)), ("cosh", (INF, NAN), (INF, NAN), ()),
    ("cosh", (NAN, 0.0), (NAN, 0.0), (I,)), ("cosh", (NAN, 1.0), (NAN, NAN), ()),
    ("cosh", (NAN, NAN), (NAN, NAN), ()),
    ("tanh", (0.0, 0.0), (0.0, 0.0), ()), ("tanh", (1.0, INF), (NAN, NAN), ()),
    ("tanh", (0.0, INF), (0.0, NAN), ()), ("tanh", (1.0, NAN), (NAN, NAN), ()),
    ("tanh", (0.0, NAN), (0.0, NAN), ()), ("tanh", (INF, 1.0), (1.0, 0.0), ()),
    ("tanh", (INF, INF), (1.0, 0.0), (I,)), ("tanh", (INF, NAN), (1.0, 0.0), (I,)),
    ("tanh", (NAN, 0.0), (NAN, 0.0), ()), ("tanh", (NAN, 1.0), (NAN, NAN), ()),
    ("tanh", (NAN, NAN), (NAN, NAN), ()),
    ("asinh", (0.0, 0.0), (0.0, 0.0), ()), ("asinh", (1.0, INF), (INF, PI_2), ()),
    ("asinh", (1.0, NAN), (NAN, NAN), ()), ("asinh", (INF, 1.0), (INF, 0.0), ()),
    ("asinh", (INF, INF), (INF, PI_4), ()), ("asinh", (INF, NAN), (INF, NAN), ()),
    ("asinh", (NAN, 0.0), (NAN, 0.0), ()), ("asinh", (NAN, 1.0), (NAN, NAN), ()),
    ("asinh", (NAN, INF), (INF, NAN), (R,)), ("asinh", (NAN, NAN), (NAN, NAN), ()),
    ("acosh", (0.0, 0.0), (0.0, PI_2), ()), ("acosh", (-0.0, 0.0), (0.0, PI_2), ()),
    ("acosh", (1.0, INF), (INF, PI_2), ()), ("acosh", (1.0, NAN), (NAN, NAN), ()),
    ("acosh", (0.0, NAN), (NAN, PI_2), ()), ("acosh", (-INF, 1.0), (INF, PI), ()),
    ("acosh", (INF, 1.0), (INF, 0.0), ()), ("acosh", (-INF, INF), (INF, PI3_4), ()),
    ("acosh", (INF, INF), (INF, PI_4), ()), ("acosh", (INF, NAN), (INF, NAN), ()),
    ("acosh", (-INF, NAN), (INF, NAN), ()), ("acosh", (NAN, 1.0), (NAN, NAN), ()),
    ("acosh", (NAN, INF), (INF, NAN), ()), ("acosh", (NAN, NAN), (NAN, NAN), ()),
    ("atanh", (0.0, 0.0), (0.0, 0.0), ()), ("atanh", (0.0, NAN), (0.0, NAN), ()),
    ("atanh", (1.0, 0.0), (INF, 0.0), ()), ("atanh", (1.0, INF), (0.0, PI_2), ()),
    ("atanh", (1.0, NAN), (NAN, NAN), ()), ("atanh", (INF, 1.0), (0.0, PI_2), ()),
    ("atanh", (INF, INF), (0.0, PI_2), ()), ("atanh", (INF, NAN), (0.0, NAN), ()),
    ("atanh", (NAN, 1.0), (NAN, NAN), ()), ("atanh", (NAN, INF), (0.0, PI_2), (R,)),
    ("atanh", (NAN, NAN), (NAN, NAN), ()),
    ("acos", (0.0, 0.0), (PI_2, -0.0), ()), ("acos", (-0.0, 0.0), (PI_2, -0.0), ()),
    ("acos", (0.0, NAN), (PI_2, NAN), ()), ("acos", (1.0, INF), (PI_2, -INF), ()),
    ("acos", (1.0, NAN), (NAN, NAN), ()), ("acos", (-INF, 1.0), (PI, -INF), ()),
    ("acos", (INF, 1.0), (0.0, -INF), ()), ("acos", (-INF, INF), (PI3_4, -INF), ()),
    ("acos", (INF, INF), (PI_4, -INF), ()), ("acos", (INF, NAN), (NAN, INF), (I,)),
    ("acos", (NAN, 1.0), (NAN, NAN), ()), ("acos", (NAN, INF), (NAN, -INF), ()),
    ("acos", (NAN, NAN), (NAN, NAN), ()),
    ("sign", (0.0, 0.0), (0.0, 0.0), ()), ("sign", (-0.0, -0.0), (0.0, 0.0), ()),
    ("sign", (NAN, 1.0), (NAN, NAN), ()), ("sign", (1.0, NAN), (NAN, NAN), ()),
    ("sign", (-3.0, 4.0), (-0.6, 0.8), ()), ("sign", (-INF, 1.0), (-1.0, 0.0), ()),
    ("sign", (2.0, INF), (0.0, 1.0), ()),
]
ODD = {"sinh", "tanh", "asinh", "atanh", "sin", "tan", "asin", "atan"}
NO_SYMMETRY = {"sign"}   # listed with both signs where they matter


def special_rows():
    """Every row, its conjugate (f(conj z) = conj f(z)) and for odd f its negatives."""
    for name, z, want, free in SPECIAL:
        rows = [(z, want, free)]
        if name not in NO_SYMMETRY and not math.isnan(z[1]):   # conj of a NaN: the same input
            rows.append(((z[0], -z[1]), (want[0], -want[1]), free))
            if name in ODD:
                rows += [((-a, -b), (-c, -d), f) for (a, b), (c, d), f in list(rows)]
        for row in rows:
            yield name, *row


def same_part(got: float, want: float, free: bool) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    if want == 0 or math.isinf(want):
        return abs(got) == abs(want) and (free or math.copysign(1, got) == math.copysign(1, want))
    return abs(got - want) <= 4 * abs(want) * 2.0 ** -23   # pi/2 and friends, in either format


@pytest.mark.parametrize("host", [np.complex64, np.complex128], ids=["c64", "c128"])
def test_special_values_of_the_standard(host):
    rows = list(special_rows())
    bad = []
    for name in sorted({r[0] for r in rows}):
        mine = [r for r in rows if r[0] == name]
        got = U.apply_numpy(name, np.array([complex(*z) for _, z, _, _ in mine], host))
        for (_, z, want, free), g in zip(mine, got):
            if not (same_part(float(g.real), want[0], R in free) and same_part(float(g.imag), want[1], I in free)):
                bad.append(f"{name}{z} = ({g.real!r}, {g.imag!r}), want {want}")
    assert not bad, f"{len(bad)} special values differ:\n" + "\n".join(bad[:20])


# sin, cos, tan, asin, atan are the standard's identities on sinh, cosh, tanh, asinh, atanh.
IDENTITIES = {"sin": ("sinh", True), "cos": ("cosh", False), "tan": ("tanh", True),
              "asin": ("asinh", True), "atan": ("atanh", True)}


@pytest.mark.parametrize("name", sorted(IDENTITIES))
def test_circular_functions_are_the_standards_identities(name):
    """sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz), asin z = -i asinh(iz),
    atan z = -i atanh(iz): bit for bit on every special and sampled point, which gives them
    the special values the standard derives the same way."""
    hyper, times_minus_i = IDENTITIES[name]
    parts = [0.0, -0.0, 1.0, -2.5, INF, -INF, NAN, 1e-300, 800.0]
    z = np.array([complex(a, b) for a in parts for b in parts], np.complex128)
    z = np.concatenate([z, sample(np.complex128, 10)])
    iz = np.empty_like(z)
    iz.real, iz.imag = -z.imag, z.real
    h = U.apply_numpy(hyper, iz)
    want = np.empty_like(h)
    if times_minus_i:
        want.real, want.imag = h.imag, -h.real
    else:
        want = h
    got = U.apply_numpy(name, z)
    want.real[np.isnan(want.real)] = NAN
    want.imag[np.isnan(want.imag)] = NAN
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), name


def test_nan_parts_are_canonical():
    """A NaN of any payload and sign in, the canonical quiet NaN in every NaN part out."""
    for host, bits, canon in ((np.complex64, np.uint32, 0x7FC00000), (np.complex128, np.uint64, 0x7FF8000000000000)):
        odd = np.array([0x7FC00123 if bits is np.uint32 else 0x7FF8000000000123], bits)
        nan = odd.view(HOSTS[host][0])[0]
        z = np.array([complex(-nan, 1.0), complex(1.0, nan), complex(nan, -nan), complex(INF, -nan)], host)
        for name in UNARY + ["round"]:
            out = U.apply_numpy(name, z)
            parts = out.view(bits) if name != "abs" else out.view(bits)
            flat = parts.ravel()
            vals = flat.view(HOSTS[host][0])
            assert np.all(flat[np.isnan(vals)] == canon), name
        out = U.apply_numpy("pow", z, z[::-1].copy())
        flat = out.view(bits).ravel()
        assert np.all(flat[np.isnan(flat.view(HOSTS[host][0]))] == canon)


def test_round_each_part_half_to_even():
    z = np.array([complex(0.5, -1.5), complex(2.5, -0.5), complex(-0.4, 1e300), complex(NAN, 3.5)])
    got = U.apply_numpy("round", z)
    assert np.array_equal(np.signbit(got.real), np.signbit(np.round(z).real))
    np.testing.assert_array_equal(got, np.round(z))   # NumPy 2.4: each part, half to even


def test_abs_is_the_real_hypot_and_reciprocal_is_divide():
    """abs(z) gives hypot's bits (the real kernel), reciprocal(z) divide(1, z)'s."""
    for host in (np.complex64, np.complex128):
        z = sample(host, 30)
        bits = np.uint32 if host == np.complex64 else np.uint64   # NaN parts compared as bits
        assert np.array_equal(U.apply_numpy("abs", z).view(bits),
                              U.apply_numpy("hypot", z.real.copy(), z.imag.copy()).view(bits))
        one = np.ones_like(z)
        assert np.array_equal(U.apply_numpy("reciprocal", z).view(bits), U.apply_numpy("divide", one, z).view(bits))


# ------------------------------------------------------------------ views
@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "atanh", "abs", "pow"])
def test_strided_and_broadcast_views_give_the_contiguous_bits(name):
    base = sample(np.complex128, 40)[:120].reshape(4, 30)
    arity = U.lookup(name).arity
    view = base[::-1, 1::3]
    if arity == 1:
        got, want = U.apply_numpy(name, view), U.apply_numpy(name, np.ascontiguousarray(view))
    else:
        other = base[1, ::-3][None, :view.shape[1]]
        got = U.apply_numpy(name, view, other)
        want = U.apply_numpy(name, np.ascontiguousarray(view), np.ascontiguousarray(np.broadcast_to(other, view.shape)))
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), name


# ------------------------------------------------------------------ integer pow
INT_HOSTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("host", INT_HOSTS, ids=lambda h: h.__name__)
def test_integer_pow_wraps_as_numpy(host):
    """b >= 0: NumPy 2.4's power (wrapping in the type); b < 0: 1 / a^|b| truncated (1 for
    a = 1, +-1 for a = -1, else 0; the array API refuses those before the launch)."""
    info = np.iinfo(host)
    rng = np.random.default_rng(3)
    a = np.concatenate([np.array([0, 1, 2, 3, 7, info.max, info.min, info.max - 1], host),
                        rng.integers(info.min, info.max, 40, dtype=host, endpoint=True)])
    b = np.concatenate([np.arange(0, 20, dtype=host), np.array([63, 64, 100, info.max], host),
                        rng.integers(0, min(info.max, 200), 10, dtype=host, endpoint=True)])
    with np.errstate(all="ignore"):
        want = np.power(a[:, None], b[None, :])
    assert np.array_equal(U.apply_numpy("pow", a[:, None], b[None, :]), want)
    if info.min < 0:
        a = np.array([1, -1, -1, 2, -2, 0, info.min], host)
        b = np.array([-3, -3, -2, -1, -5, -1, -1], host)
        assert U.apply_numpy("pow", a, b).tolist() == [1, -1, 1, 0, 0, 0, 0]


if __name__ == "__main__":   # the accuracy table of docs/math.md
    print("| function | complex64: max ulp of abs(result) | complex128 | points per dtype |")
    print("|---|---|---|---|")
    for fn in UNARY:
        cells = [f"{measure(fn, h, sample(h))[0]:.2f}" for h in (np.complex64, np.complex128)]
        print(f"| {fn} | {cells[0]} | {cells[1]} | {sample(np.complex128).size} |")
