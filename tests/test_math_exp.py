"""kernels_cuda/npu_emu_math_exp.cuh, the exp/log family of our own math library, against
correctly rounded references from mpmath (1.3): every result within 1 ulp, special values
exactly as C99 Annex F (glibc through NumPy gives the expected bits), and the NVRTC build of
the same source free of approximate, flushing or fused instructions and of libdevice calls.

The header is compiled through a small shim (tests/kernels/math_shim_exp.cu) with the cpu
backend's own flags and loaded with ctypes. NPU_EMU_MATH_SWEEP=1 runs ~20x more points;
NPU_EMU_MATH_EXHAUSTIVE=1 checks the float32 unary functions on all 2^32 inputs.
`python tests/test_math_exp.py` prints the max-ulp table of docs/math.md
(`python tests/test_math_exp.py --exhaustive` the exhaustive float32 counts, `--stride 251`
the sweep's; `--libm` the C++ sweep of the float-lane functions against the C library).
"""
from __future__ import annotations

import ctypes
import math
import os
import platform
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

mpmath = pytest.importorskip("mpmath", minversion="1.3")
from mpmath import mp, mpf  # noqa: E402

from npu_emu.runtime import base, cpu  # noqa: E402

SHIM = Path(__file__).parent / "kernels" / "math_shim_exp.cu"
SWEEP = os.environ.get("NPU_EMU_MATH_SWEEP", "") not in ("", "0")
RANDOM_POINTS = 30000 if SWEEP else 1200
SEED = 20261201

# name -> (mpmath reference, number of arguments)
FUNCTIONS = {
    "exp": (lambda x: mp.exp(x), 1),
    "exp2": (lambda x: mp.power(2, x), 1),
    "expm1": (lambda x: mp.expm1(x), 1),
    "log": (lambda x: mp.log(x), 1),
    "log2": (lambda x: mp.log(x, 2), 1),
    "log10": (lambda x: mp.log10(x), 1),
    "log1p": (lambda x: mp.log1p(x), 1),
    "sinh": (lambda x: mp.sinh(x), 1),
    "cosh": (lambda x: mp.cosh(x), 1),
    "tanh": (lambda x: mp.tanh(x), 1),
    "asinh": (lambda x: mp.asinh(x), 1),
    "acosh": (lambda x: mp.acosh(x), 1),
    "atanh": (lambda x: mp.atanh(x), 1),
    "pow": (lambda x, y: mp.power(x, y), 2),
    "logaddexp": (lambda x, y: max(x, y) + mp.log1p(mp.exp(-abs(x - y))), 2),
}
NUMPY = {"exp2": np.exp2, "pow": np.power}  # the rest under the same name
DTYPES = {"f32": np.float32, "f64": np.float64}
# (precision, smallest normal exponent, largest exponent) of each format
FORMATS = {np.float32: (24, -126, 127), np.float64: (53, -1022, 1023)}
CANONICAL_NAN = {np.float32: 0x7FC00000, np.float64: 0x7FF8000000000000}


# ------------------------------------------------------------------ the library under test
@lru_cache(maxsize=None)
def _compiled(out_dir: str, march: str | None = None) -> ctypes.CDLL:
    """The shim built with the cpu backend's flags (for `march`, default the backend's)."""
    lib = Path(out_dir) / f"math_shim_exp_{march or 'default'}.so"
    cmd = [cpu._compiler(), *cpu.cxx_flags(march, cxx=cpu._compiler()), "-I", str(base.kernels_dir()), str(SHIM), "-o", str(lib)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return ctypes.CDLL(str(lib))


@pytest.fixture(scope="module")
def shim(tmp_path_factory) -> ctypes.CDLL:
    return _compiled(str(tmp_path_factory.mktemp("math_exp")))


def run(lib: ctypes.CDLL, name: str, dtype, *args: np.ndarray) -> np.ndarray:
    arrays = [np.ascontiguousarray(a, dtype=dtype) for a in args]
    out = np.empty_like(arrays[0])
    fn = getattr(lib, f"{name}_{'f32' if dtype == np.float32 else 'f64'}")
    ptrs = [a.ctypes.data_as(ctypes.c_void_p) for a in (*arrays, out)]
    fn(*ptrs, ctypes.c_long(out.size))
    return out


# ------------------------------------------------------------------ correctly rounded references
def round_to(v: mpf, dtype) -> float:
    """v rounded to nearest-even in `dtype` (subnormals, overflow to inf included), exactly:
    from mpmath's (sign, mantissa, exponent) with integer arithmetic."""
    p, emin, emax = FORMATS[dtype]
    if not mpmath.isfinite(v):
        return float(v)
    sign, man, exp, bc = v._mpf_
    if man == 0:
        return 0.0
    if exp + bc - 1 > emax + 1:  # far outside the format: no need to shift huge integers
        return -math.inf if sign else math.inf
    if exp + bc - 1 < emin - p - 1:
        return -0.0 if sign else 0.0
    q = max(exp + bc - p, emin - p + 1)  # the exponent of the result's last bit
    shift = q - exp
    if shift <= 0:
        n = man << -shift
    else:
        n, rem = man >> shift, man & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        n += rem > half or (rem == half and n & 1)
    if n and n.bit_length() + q - 1 > emax:
        r = math.inf
    else:
        r = math.ldexp(n, q)
    return -r if sign else r


def reference(name: str, dtype, *args: float) -> float:
    """The correctly rounded result for finite arguments inside the domain (mpmath at ~4x the
    format's precision); NaN outside it."""
    f, _ = FUNCTIONS[name]
    mp.prec = 120 if dtype == np.float32 else 240
    try:
        v = f(*[mpf(a) for a in args])
    except (ValueError, ZeroDivisionError):
        return math.nan
    if isinstance(v, mpmath.mpc):
        if v.imag != 0:
            return math.nan
        v = v.real
    return round_to(v, dtype)


def ordered(bits: np.ndarray, dtype) -> np.ndarray:
    """Bit patterns as integers in the order of the values (one apart = one ulp apart)."""
    i = bits.view(np.int32 if dtype == np.float32 else np.int64).astype(np.int64)
    mask = np.int64(0x7FFFFFFF) if dtype == np.float32 else np.int64(0x7FFFFFFFFFFFFFFF)
    return np.where(i < 0, -(i & mask), i)


def ulp_distance(got: np.ndarray, want: np.ndarray, dtype) -> np.ndarray:
    d = np.abs(ordered(got, dtype) - ordered(want, dtype)).astype(np.float64)
    both_nan = np.isnan(got) & np.isnan(want)
    return np.where(both_nan, 0.0, np.where(np.isnan(got) | np.isnan(want), np.inf, d))


# ------------------------------------------------------------------ inputs
def _log_uniform(rng, n, lo_exp, hi_exp, signs=True):
    v = np.exp2(rng.uniform(lo_exp, hi_exp, n))
    return v * (rng.choice([-1.0, 1.0], n) if signs else 1.0)


def _random_bits(rng, n, dtype, positive=False):
    if dtype == np.float32:
        v = rng.integers(0, 0xFF800000, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    else:
        v = rng.integers(0, 0xFFF0000000000000, n, dtype=np.uint64).view(np.float64)
    v = v[np.isfinite(v)].astype(np.float64)
    return np.abs(v) if positive else v


def sample(name: str, dtype, rng) -> tuple[np.ndarray, ...]:
    """Finite arguments: each reduction range's inside and boundaries, the over- and underflow
    thresholds, subnormal results and inputs, and random points over the whole domain."""
    n = RANDOM_POINTS
    info = np.finfo(dtype)
    big = float(np.log(info.max))            # ~88.7 / ~709.8
    tiny = float(np.log(info.smallest_subnormal)) - 1
    small = _log_uniform(rng, n // 4, -60, 0)
    near1 = 1 + _log_uniform(rng, n // 4, -52 if dtype == np.float64 else -23, -1)
    edges = np.concatenate([k * np.log(2) / 2 + np.array([-1e-9, 0, 1e-9]) for k in range(-6, 7)])
    if name in ("exp", "expm1"):
        xs = [rng.uniform(tiny, big + 1, n), small, edges,
              np.linspace(big - 1e-3, big + 1e-3, 41), np.linspace(tiny - 1, tiny + 40, 81)]
    elif name == "exp2":
        xs = [rng.uniform(tiny / np.log(2), big / np.log(2) + 1, n), small, edges,
              np.arange(-1080, 1030, 7.0), np.arange(-1080, 1030, 7.0) + 0.5]
    elif name in ("log", "log2", "log10"):
        xs = [_random_bits(rng, n, dtype, positive=True), near1, 2 - near1,
              2.0 ** np.arange(-1074, 1024.0), 10.0 ** np.arange(-30, 30.0),
              [np.sqrt(0.5), np.sqrt(2.0)]]
    elif name == "log1p":
        xs = [_random_bits(rng, n // 2, dtype, positive=True), small,
              -_log_uniform(rng, n // 4, -60, 0, False), np.sqrt([0.5, 2.0]) - 1,
              [-0.29, 0.41, -0.2900001, 0.41000001], -1 + _log_uniform(rng, 100, -52, -1, False)]
    elif name in ("sinh", "cosh"):
        xs = [rng.uniform(-big - 2, big + 2, n), small, rng.uniform(-23, 23, n // 4),
              [22.0, -22.0, 21.999999]]
    elif name == "tanh":
        xs = [rng.uniform(-25, 25, n), small, [22.0, -22.0, 21.999999]]
    elif name == "asinh":
        xs = [_random_bits(rng, n, dtype), small, [2.0 ** 28, 2.0 ** 28 * (1 + 2 ** -20)]]
    elif name == "acosh":
        xs = [1 + _log_uniform(rng, n, -52, FORMATS[dtype][2], False), near1, [2.0, 2.0 ** 28, 1.9999999]]
    elif name == "atanh":
        xs = [_log_uniform(rng, n, -60, 0), 1 - _log_uniform(rng, n // 4, -53, -1, False), [0.5, -0.5]]
    elif name == "pow":
        x = _log_uniform(rng, n, -1074 if dtype == np.float64 else -149, big / np.log(2), False)
        y = rng.uniform(-1.05, 1.05, n) * big / np.abs(np.log(x))
        xi = -_log_uniform(rng, n // 4, -20, 20, False)
        yi = np.round(rng.uniform(-1, 1, n // 4) * big / np.abs(np.log(-xi)))
        x1 = 1 + _log_uniform(rng, n // 4, -52 if dtype == np.float64 else -23, -4)
        y1 = _log_uniform(rng, n // 4, 0, 60)
        xe = np.array([2.0, 3.0, 10.0, 0.5, 4.0, 9.0, 2.0, 2.0, 1.5])
        ye = np.array([10.0, 3.0, 5.0, 3.0, 0.5, 0.5, -1074.0, 1023.0, 2.0])
        args = (np.concatenate([x, xi, x1, xe]), np.concatenate([y, yi, y1, ye]))
        return _finite_pairs(args, dtype)
    elif name == "logaddexp":
        x = rng.uniform(-big, big, n)
        d = _log_uniform(rng, n, -60, 7)
        pairs = (np.concatenate([x, [-np.log(2), 0.0]]), np.concatenate([x + d, [-np.log(2), -1.0]]))
        return _finite_pairs(pairs, dtype)
    else:
        raise AssertionError(name)
    with np.errstate(over="ignore"):
        x = np.concatenate([np.asarray(a, dtype=np.float64) for a in xs]).astype(dtype)
    return (x[np.isfinite(x)],)


def _finite_pairs(args, dtype):
    with np.errstate(over="ignore"):
        x, y = (np.asarray(a).astype(dtype) for a in args)
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep]


NAN_PATTERNS = {np.float32: [0xFFC00000, 0x7FC00001, 0x7FA00000],
                np.float64: [0xFFF8000000000000, 0x7FF8000000000001, 0x7FF4000000000000]}
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0]


def special_args(name: str, dtype) -> tuple[np.ndarray, ...]:
    info = np.finfo(dtype)
    pts = SPECIALS + [float(info.max), -float(info.max), float(info.smallest_subnormal),
                      -float(info.smallest_subnormal), float(info.tiny), -float(info.tiny)]
    # NaNs with a sign, a payload, signalling: every NaN result is the canonical one
    uint = np.uint32 if dtype == np.float32 else np.uint64
    nans = np.array(NAN_PATTERNS[dtype], dtype=uint).view(dtype)
    if FUNCTIONS[name][1] == 1:
        return (np.concatenate([np.array(pts, dtype=dtype), nans]),)
    grid = np.concatenate([np.array(pts + [0.25, -0.25, 4.0, -4.0], dtype=dtype), nans])
    return tuple(a.ravel() for a in np.meshgrid(grid, grid))


# ------------------------------------------------------------------ measurement
def measure(lib: ctypes.CDLL, name: str, dtype, seed: int = SEED) -> tuple[float, int, list, int]:
    """(max ulp distance from the correctly rounded result, number of points, worst cases,
    number of results that are not the correctly rounded one)."""
    rng = np.random.default_rng(seed + sum(map(ord, name)) + (dtype == np.float64))
    args = sample(name, dtype, rng)
    got = run(lib, name, dtype, *args)
    want = np.array([reference(name, dtype, *map(float, a)) for a in zip(*args)], dtype=dtype)
    d = ulp_distance(got, want, dtype)
    worst = np.argsort(d)[::-1][:3]
    cases = [(tuple(float(a[i]) for a in args), float(got[i]), float(want[i]), d[i]) for i in worst]
    return float(d.max()), int(d.size), cases, int((d > 0).sum())


@pytest.mark.parametrize("dtype", list(DTYPES), ids=list(DTYPES))
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_within_one_ulp_of_the_correctly_rounded_result(shim, name, dtype):
    worst, count, cases, _ = measure(shim, name, DTYPES[dtype])
    assert count > 100
    assert worst <= 1, f"{name} {dtype}: {worst} ulp at (args, got, want, ulp) {cases}"


@pytest.mark.parametrize("dtype", list(DTYPES), ids=list(DTYPES))
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_special_values_follow_c99(shim, name, dtype):
    """±0, ±inf, NaN, ±1, the largest and smallest values: where C99 Annex F fixes the result
    (inf, 0 or 1 out, or an infinite argument), the bits it gives (glibc's libm through
    NumPy 2.x); NaN as the canonical quiet NaN; the rest within 1 ulp as everywhere."""
    dt = DTYPES[dtype]
    args = special_args(name, dt)
    got = run(shim, name, dt, *args)
    with np.errstate(all="ignore"):
        want = getattr(np, name) if name not in NUMPY else NUMPY[name]
        want = np.asarray(want(*args), dtype=dt)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), [a[np.isnan(got) != nan] for a in args]
    uint = np.uint32 if dt == np.float32 else np.uint64
    assert (got[nan].view(uint) == CANONICAL_NAN[dt]).all()
    # exact: inf or 0 out, inf in, or 1 out (exp(0), pow(x, 0), pow(-1, inf), tanh(max), ...)
    exact = ~nan & (~np.isfinite(want) | (want == 0) | (want == 1)
                    | np.logical_or.reduce([~np.isfinite(a) for a in args]))
    assert np.array_equal(got[exact].view(uint), want[exact].view(uint)), \
        [(tuple(a[exact][i] for a in args), got[exact][i], want[exact][i])
         for i in np.flatnonzero(got[exact].view(uint) != want[exact].view(uint))[:5]]
    # the rest (finite nonzero in and out): within 1 ulp of the correctly rounded result
    rest = ~nan & ~exact
    ref = np.array([reference(name, dt, *map(float, a)) for a in zip(*(x[rest] for x in args))], dtype=dt)
    assert ulp_distance(got[rest], ref, dt).max(initial=0) <= 1


# ------------------------------------------------------------------ float32 over all bit patterns
# A float64 value within 16 double ulps of no float32 midpoint rounds to the same float32 as
# the exact result, because NumPy's float64 routines (glibc's libm, or NumPy's SIMD ones) are
# documented within 4 ulp (their NaN means outside the domain, their inf beyond the double
# range). Only the few arguments that land near a midpoint or the float overflow threshold
# need mpmath, so the screened reference is the correctly rounded float32 (verified with
# NumPy 2.4.6). The default run checks every STRIDE-th bit pattern; NPU_EMU_MATH_EXHAUSTIVE=1
# checks all 2^32 (minutes per function) and reports how many results are correctly rounded.
STRIDE = 251 if SWEEP else 65521
EXHAUSTIVE = os.environ.get("NPU_EMU_MATH_EXHAUSTIVE", "") not in ("", "0")
UNARY = [name for name, (_, arity) in FUNCTIONS.items() if arity == 1]


# Where each function is finite (lo < x < hi), what it is at the ends of that range (C99 Annex
# F: the pole's +-inf) and the clip that keeps NumPy's float64 routine off its overflow and
# underflow paths (slow, and the float32 result there is inf, 0 or +-1 either way).
# (lo, hi, value at lo, value at hi, clip)
DOMAIN = {"exp": (-math.inf, math.inf, None, None, 700.0), "exp2": (-math.inf, math.inf, None, None, 1000.0),
          "expm1": (-math.inf, math.inf, None, None, 700.0), "sinh": (-math.inf, math.inf, None, None, 700.0),
          "cosh": (-math.inf, math.inf, None, None, 700.0), "tanh": (-math.inf, math.inf, None, None, 50.0),
          "asinh": (-math.inf, math.inf, None, None, None),
          "log": (0.0, math.inf, -math.inf, None, None), "log2": (0.0, math.inf, -math.inf, None, None),
          "log10": (0.0, math.inf, -math.inf, None, None), "log1p": (-1.0, math.inf, -math.inf, None, None),
          "acosh": (1.0, math.inf, 0.0, None, None), "atanh": (-1.0, 1.0, -math.inf, math.inf, None)}


def rounded_to_float32(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Finite float64 values rounded to float32 (nearest, ties to even) and whether each lies
    within 2^-47 of itself (at least 16 double ulps) of a float32 midpoint. Results below the
    smallest normal float32 are rounded in integer units of 2^-149 and assembled from bits: the
    conversion instructions take a slow microcode path there, which would dominate a sweep."""
    a = np.abs(d)
    tiny = a < 2.0 ** -126
    g = np.empty(d.shape, np.float32)
    big = d[~tiny]
    g[~tiny] = big.astype(np.float32)
    g_big = g[~tiny]
    lo, hi = np.nextafter(g_big, np.float32(-np.inf)), np.nextafter(g_big, np.float32(np.inf))
    g64, tol = g_big.astype(np.float64), np.abs(big) * 2.0 ** -47
    near = np.zeros(d.shape, bool)
    near[~tiny] = (np.abs(big - (g64 + lo) / 2) <= tol) | (np.abs(big - (g64 + hi) / 2) <= tol)
    units = a[tiny] * 2.0 ** 149  # exact: a power-of-two scaling of a normal double
    n = np.rint(units)
    sign = np.where(np.signbit(d[tiny]), np.uint32(0x80000000), np.uint32(0))
    g[tiny] = (n.astype(np.uint32) | sign).view(np.float32)  # n = 2^23 is the smallest normal
    near[tiny] = np.abs(np.abs(units - np.floor(units)) - 0.5) <= units * 2.0 ** -47
    return g, near


def screened_float32_reference(name: str, x: np.ndarray) -> np.ndarray:
    """The correctly rounded float32 results for finite float32 arguments x."""
    lo, hi, at_lo, at_hi, clip = DOMAIN[name]
    xd = x.astype(np.float64)
    inside = (xd > lo) & (xd < hi)
    f = np.full(x.shape, np.nan, np.float32)
    if at_lo is not None:
        f[xd == lo] = at_lo
    if at_hi is not None:
        f[xd == hi] = at_hi
    xs = xd[inside] if clip is None else np.clip(xd[inside], -clip, clip)
    with np.errstate(all="ignore"):
        d = NUMPY.get(name, getattr(np, name, None))(xs)
        g, near = rounded_to_float32(d)
    doubt = near | (~np.isfinite(g) & (np.abs(d) < 2 * float(np.finfo(np.float32).max)))
    xin = x[inside]
    for i in np.flatnonzero(doubt):
        g[i] = reference(name, np.float32, float(xin[i]))
    f[inside] = g
    return f


def float32_sweep(lib: ctypes.CDLL, name: str, stride: int, chunk: int = 1 << 24) -> tuple[float, int, int, float]:
    """Every stride-th float32 bit pattern (finite ones) through `name`: (max ulp from the
    correctly rounded result, number of arguments, number correctly rounded, the worst x)."""
    worst, count, exact, worst_x = 0.0, 0, 0, math.nan
    for start in range(0, 1 << 32, chunk * stride):
        bits = np.arange(start, min(start + chunk * stride, 1 << 32), stride, dtype=np.uint64).astype(np.uint32)
        x = bits.view(np.float32)
        x = x[np.isfinite(x)]
        got, want = run(lib, name, np.float32, x), screened_float32_reference(name, x)
        same = got.view(np.uint32) == want.view(np.uint32)
        nan = np.isnan(want)
        assert (got[nan].view(np.uint32) == CANONICAL_NAN[np.float32]).all(), name
        other = ~same & ~nan
        d = ulp_distance(got[other], want[other], np.float32)
        if d.size and d.max() > worst:
            worst, worst_x = float(d.max()), float(x[other][np.argmax(d)])
        count, exact = count + x.size, exact + int((same | nan).sum())
    return worst, count, exact, worst_x


@pytest.mark.parametrize("name", UNARY)
def test_float32_over_spaced_bit_patterns(shim, name):
    worst, count, _, x = float32_sweep(shim, name, STRIDE)
    assert count > 60000
    assert worst <= 1, f"{name}: {worst} ulp at {x!r}"


@pytest.mark.skipif(not EXHAUSTIVE, reason="all 2^32 float32 inputs: set NPU_EMU_MATH_EXHAUSTIVE=1")
@pytest.mark.parametrize("name", UNARY)
def test_float32_over_every_bit_pattern(shim, name):
    worst, count, exact, x = float32_sweep(shim, name, 1)
    print(f"{name}: {count} finite float32 inputs, {exact} correctly rounded, max {worst:g} ulp")
    assert count == (1 << 32) - (1 << 24)   # all but the 2^24 - 2 NaNs and the two infinities
    assert worst <= 1, f"{name}: {worst} ulp at {x!r}"


LIBM_SWEPT = ["log", "log2", "log10", "log1p", "expm1", "exp", "cosh", "sinh", "tanh", "asinh", "acosh", "atanh"]


@lru_cache(maxsize=None)
def _libm_sweep(out_dir: str) -> ctypes.CDLL:
    """tests/kernels/math_sweep_exp_f32.cu built with the cpu backend's flags."""
    src, lib = SHIM.parent / "math_sweep_exp_f32.cu", Path(out_dir) / "math_sweep_exp_f32.so"
    cmd = [cpu._compiler(), *cpu.cxx_flags(cxx=cpu._compiler()), "-I", str(base.kernels_dir()), str(src), "-o", str(lib)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    so = ctypes.CDLL(str(lib))
    so.npu_emu_sweep_f32.argtypes = (ctypes.c_char_p, ctypes.POINTER(ctypes.c_longlong),
                                     ctypes.POINTER(ctypes.c_double))
    return so


def libm_sweep(out_dir: str, name: str) -> tuple[int, int, int, int, float, float]:
    """All 2^32 float32 patterns through `name` in C++, against the C library's double result
    rounded to float (about a minute, where the NumPy sweep takes 8 to 20): (finite inputs, correctly
    rounded, more than 1 ulp off, non-canonical NaNs, max error in ulps, its argument)."""
    counts, worst = (ctypes.c_longlong * 4)(), (ctypes.c_double * 2)()
    assert _libm_sweep(out_dir).npu_emu_sweep_f32(name.encode(), counts, worst) == 0, name
    return (*counts, *worst)


@pytest.mark.skipif(not EXHAUSTIVE, reason="all 2^32 float32 inputs: set NPU_EMU_MATH_EXHAUSTIVE=1")
@pytest.mark.skipif(platform.system() != "Linux", reason="the reference is glibc's double function")
@pytest.mark.parametrize("name", LIBM_SWEPT)
def test_float32_over_every_bit_pattern_against_libm(tmp_path_factory, name):
    finite, exact, over, bad_nan, worst, x = libm_sweep(str(tmp_path_factory.mktemp("sweep")), name)
    print(f"{name}: {finite} finite inputs, {exact} correctly rounded, max {worst:.4f} ulp at {x!r}")
    assert finite == (1 << 32) - (1 << 24)
    assert over == 0 and bad_nan == 0, (name, over, bad_nan)
    assert worst < 1, (name, worst, x)


SPLIT_F32 = ["exp", "expm1", "log", "log2", "log10", "log1p", "sinh", "cosh", "tanh", "asinh", "acosh",
             "atanh"]


def vectorizer_report(tmp_path, name: str, body: str) -> str:
    """g++'s report of the loops it vectorized (-fopt-info-vec-optimized) in `body` after the
    header, built with the cpu backend's flags."""
    src = tmp_path / name
    src.write_text('#include "npu_emu_math_exp.cuh"\n' + body)
    cmd = [cpu._compiler(), *cpu.cxx_flags(cxx=cpu._compiler()), "-fopt-info-vec-optimized",
           f"-I{base.kernels_dir()}", str(src), "-o", str(tmp_path / f"{src.stem}.so")]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    return res.stderr


def fast_loops(names: list[str], ctype: str) -> str:
    """One loop over Split<NAME, ctype>::fast per name, three lines each (the loop on the
    second line of each function: source line 3 + 3 i once the header line is first)."""
    return "".join(
        f'extern "C" void {n}_fast(const {ctype}* __restrict x, {ctype}* __restrict y, long n) {{\n'
        f"    for (long i = 0; i < n; ++i) y[i] = npu_emu::math::Split<npu_emu::math::fn::{n}, {ctype}>::fast(x[i]);\n"
        "}\n" for n in names)


@pytest.mark.skipif(not cpu._X86, reason="reads GCC's x86 vectorizer report")
def test_loops_over_the_float_fast_paths_vectorize(tmp_path):
    """GCC vectorizes a loop over every float Split::fast with the cpu flags (the float-lane
    paths included: their bit operations and selects must not stop it), and over the binary
    pow's, through pointers that may alias as staged_row's do (its table lookups become
    gathers, which a masked table load would stop there)."""
    report = vectorizer_report(tmp_path, "fast_loops.cu", fast_loops(SPLIT_F32, "float") +
        'extern "C" void pow_fast(const float* x, const float* z, float* y, long n) {  // may alias, as in staged_row\n'
        "    for (long i = 0; i < n; ++i) y[i] = npu_emu::math::Split<npu_emu::math::fn::pow, float>::fast(x[i], z[i]);\n"
        "}\n")
    for i, name in enumerate(SPLIT_F32 + ["pow"]):
        assert re.search(rf"fast_loops.cu:{3 + 3 * i}:\d+: optimized: loop vectorized", report), name


SPLIT_F64 = ["exp", "expm1", "log", "log2", "log10", "log1p", "sinh", "cosh", "tanh", "asinh", "atanh"]


@pytest.mark.skipif(not cpu._X86, reason="reads GCC's x86 vectorizer report")
def test_loops_over_the_double_fast_paths_vectorize(tmp_path):
    """As above for double: the split forms built on exp_pair_d, the logarithms, and the binary
    logaddexp, whose rare() shares its computation with fast() (one loop computes both)."""
    report = vectorizer_report(tmp_path, "fast_loops_f64.cu", fast_loops(SPLIT_F64, "double") +
        'extern "C" int logaddexp_fast(const double* __restrict x, const double* __restrict z, double* __restrict y, long n) {\n'
        "    using S = npu_emu::math::Split<npu_emu::math::fn::logaddexp, double>; int rare = 0;\n"
        "    for (long i = 0; i < n; ++i) { y[i] = S::fast(x[i], z[i]); rare += S::rare(x[i], z[i]); }\n"
        "    return rare;\n}\n")
    for i, name in enumerate(SPLIT_F64):
        assert re.search(rf"fast_loops_f64.cu:{3 + 3 * i}:\d+: optimized: loop vectorized", report), name
    assert re.search(rf"fast_loops_f64.cu:{4 + 3 * len(SPLIT_F64)}:\d+: optimized: loop vectorized", report), "logaddexp"


def test_float32_exp_where_its_float_lane_path_ends(shim):
    """float32 exp computes in float lanes on [-87, 88] and through the double path outside:
    every float32 within 2^16 bit patterns of either end, on both sides, within 1 ulp."""
    edges = np.array([-87.0, 88.0], np.float32).view(np.uint32).astype(np.int64)
    bits = np.concatenate([np.arange(e - (1 << 16), e + (1 << 16)) for e in edges]).astype(np.uint32)
    x = bits.view(np.float32)
    got, want = run(shim, "exp", np.float32, x), screened_float32_reference("exp", x)
    d = ulp_distance(got, want, np.float32)
    assert d.max() <= 1, (x[np.argmax(d)], d.max())


def _near_points_within_one_ulp(shim, points: dict) -> None:
    """Every float32 within 2^12 bit patterns of each point (those below +inf), both signs,
    within 1 ulp of the correctly rounded result; NaN results the canonical NaN."""
    for name, pts in points.items():
        edges = np.array(pts, np.float32).view(np.uint32).astype(np.int64)
        bits = np.concatenate([np.arange(e - (1 << 12), min(e + (1 << 12), 0x7F800000)) for e in edges])
        x = bits.astype(np.uint32).view(np.float32)
        x = np.concatenate([x, -x])
        got, want = run(shim, name, np.float32, x), screened_float32_reference(name, x)
        nan = np.isnan(want)
        assert (got[nan].view(np.uint32) == CANONICAL_NAN[np.float32]).all(), name
        d = ulp_distance(got[~nan], want[~nan], np.float32)
        assert d.max() <= 1, (name, x[~nan][np.argmax(d)], d.max())


def test_float32_hyperbolics_where_their_paths_switch(shim):
    """The float32 cosh and sinh (float lanes up to |x| = 88, the second exponential dropped
    from k = 41, sinh's polynomial below 1), tanh (its polynomial below atanh(1/2), 1 - 2/(E + 1)
    above, where 2|x| = k ln2 + r switches k and the argument is clamped at 9.25, past 9.0109
    where tanh rounds to 1), expm1 where its reduction switches k, and asinh, acosh and atanh (the
    argument itself below 2^-12, the float-lane log of a float argument and its correction up
    to 2^12 for asinh (log 2|x| beyond), 2^60 for acosh and everywhere for atanh, double beyond):
    every float32 within 2^12 bit patterns of each switch, both signs, within 1 ulp."""
    ln2 = math.log(2)
    points = {"cosh": [88.0, 40.5 * ln2, 2.0 ** -13, 2.0 ** -12, 0.5 * ln2, 1.5 * ln2],
              "sinh": [88.0, 40.5 * ln2, 1.0, 0.5 * ln2, 1.5 * ln2, 2.0 ** -12],
              "tanh": [math.atanh(0.5), 1.5 * ln2 / 2, 2.5 * ln2 / 2, 23.5 * ln2 / 2, 9.0109133, 9.25, 2.0 ** -12],
              "expm1": [0.5 * ln2, -0.5 * ln2, 1.5 * ln2, 24.5 * ln2, -24.5 * ln2],
              "asinh": [2.0 ** -12, 2.0 ** 125], "acosh": [1.0, 2.0 ** 60, 2.0 ** 125],
              "atanh": [2.0 ** -12, 0.5, 1.0]}
    _near_points_within_one_ulp(shim, points)


def test_float32_expm1_where_its_paths_switch(shim):
    """float32 expm1's float lanes run from -17.5 (below, the argument is raised to it: -1) to 88
    (the double path above), with k raised to -24 below -24.5 ln2 (r outside the fit's range
    there, the result -1 or -1 + 2^-24) and 2^k applied to w's exponent bits at the end: every
    float32 in [-18, -16] and within 2^12 bit patterns of 88 (k = 127, where 2^-k is taken as
    0), within 1 ulp; -inf gives -1, -0 gives -0."""
    lo, hi = np.array([-16.0, -18.0], np.float32).view(np.uint32)
    edge = np.float32(88.0).view(np.uint32)
    bits = np.concatenate([np.arange(lo, hi + 1), np.arange(edge - (1 << 12), edge + (1 << 12))]).astype(np.uint32)
    x = bits.view(np.float32)
    got, want = run(shim, "expm1", np.float32, x), screened_float32_reference("expm1", x)
    d = ulp_distance(got, want, np.float32)
    assert d.max() <= 1, (x[np.argmax(d)], d.max())
    special = np.array([-np.inf, -0.0, -1e30, -17.5], np.float32)
    assert run(shim, "expm1", np.float32, special).view(np.uint32).tolist() == \
        np.array([-1.0, -0.0, -1.0, -1.0], np.float32).view(np.uint32).tolist()


def test_float32_pow_where_its_paths_switch(shim):
    """float32 pow is 2^(y log2 x) in double for normal x > 0 (glibc's powf tables), the clamp
    of w = y log2 x at [-160, 129] and the double pow for subnormal x: results near the float
    underflow (2^-149 ... 2^-126), overflow (2^128) and 1, x within a few ulps of 1 with large
    y, x near the reduction's switch (bits 0x3F330000) and near each of its 16 table intervals'
    ends (any binade) with |w| up to 151, and subnormal x, within 1 ulp."""
    rng = np.random.default_rng(SEED)
    n = 400
    x = np.exp2(rng.uniform(-126, 127, 5 * n))
    w = np.repeat([-151.5, -149.7, -126.2, 127.9, 128.3], n) + rng.normal(size=5 * n)
    y = w / np.log2(x)
    ones = 1.0 + rng.integers(-40, 40, n) * 2.0 ** -23
    edge_bits = 0x3F330000 + (rng.integers(0, 17, 2 * n) << 19) + rng.integers(-8, 8, 2 * n) + \
        (rng.integers(-126, 127, 2 * n) << 23)
    edges = np.clip(edge_bits, 0x00800000, 0x7F7FFFFF).astype(np.uint32).view(np.float32).astype(np.float64)
    l2 = np.log2(edges)
    l2[l2 == 0] = 1.0
    xs = np.concatenate([x, ones, np.float32(np.sqrt(0.5)) * (1 + rng.integers(-40, 40, n) * 2.0 ** -24),
                         np.exp2(rng.uniform(-149, -126, n)), edges])
    ys = np.concatenate([y, rng.choice([-1, 1], n) * np.exp2(rng.uniform(10, 31, n)), rng.uniform(-300, 300, n),
                         rng.uniform(-1.2, 1.2, n), rng.uniform(-152, 130, 2 * n) / l2])
    xs, ys = xs.astype(np.float32), ys.astype(np.float32)
    keep = np.isfinite(ys) & (xs > 0)
    xs, ys = xs[keep], ys[keep]
    got = run(shim, "pow", np.float32, xs, ys)
    want = np.array([reference("pow", np.float32, float(a), float(b)) for a, b in zip(xs, ys)], np.float32)
    d = ulp_distance(got, want, np.float32)
    assert d.max() <= 1, (xs[np.argmax(d)], ys[np.argmax(d)], d.max())



def test_float32_asinh_and_atanh_where_their_paths_switch(shim):
    """float32 asinh in float lanes for every finite x: |x| itself below 2^-12, log u0 plus the
    correction d up to 2^12, log 2|x| (|x| clamped to 2^12 in the square root) from there to the
    largest float; atanh's float argument q0 and its correction with the k_log1pf logarithm from
    2^-12 to 1 (q0 crosses the log's reduction switch at sqrt(2) and its binades near 1): every
    float32 within 2^12 bit patterns of each point, both signs, within 1 ulp, and the special
    values."""
    big = float(np.finfo(np.float32).max)
    points = {"asinh": [2.0 ** -12, 0.5, 1.0, 2.0 ** 12, 2.0 ** 64, 2.0 ** 125, big],
              "atanh": [2.0 ** -12, math.tanh(math.log(2) / 4), 1.0 / 3, 0.5, 0.75, 1.0]}
    _near_points_within_one_ulp(shim, points)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
    assert run(shim, "asinh", np.float32, special).view(np.uint32).tolist() == \
        [0, 0x80000000, 0x7F800000, 0xFF800000, CANONICAL_NAN[np.float32]]

def test_logaddexp_where_the_result_cancels(shim):
    """float64 logaddexp(x, y) with e^x + e^y close to 1 (max in [-0.75, 0)): the result is
    far below max, and the Newton step keeps it within 1 ulp down to 2^-46 |max|; one known
    point (once 4 ulp off) and a seeded sample of cancelling pairs."""
    rng = np.random.default_rng(SEED)
    m = rng.uniform(-0.75, -1e-3, 1500)
    o = np.log1p(-np.exp(m)) + rng.normal(size=m.size) * 10.0 ** rng.uniform(-14, -1, m.size)
    x, y = np.concatenate([[-0.5191622146738437], m]), np.concatenate([[-0.9003603310614043], o])
    got = run(shim, "logaddexp", np.float64, x, y)
    want = np.array([reference("logaddexp", np.float64, a, b) for a, b in zip(x, y)])
    assert got[0] == want[0] == 0.001440984998808526
    keep = np.abs(want) >= 2.0 ** -46 * np.abs(np.maximum(x, y))
    assert keep.sum() > 1000
    d = ulp_distance(got[keep], want[keep], np.float64)
    assert d.max() <= 1, (x[keep][np.argmax(d)], y[keep][np.argmax(d)], d.max())


def test_float64_logaddexp_corrects_every_cancelling_lane(shim):
    """The full float64 logaddexp corrects the split form's result r0 on the lanes that cancel
    (max < 0, |r0| below half of log1p(e^d) = L) by log1p(e^(max - r0) + e^(min - r0) - 1): pairs
    over the whole range of such lanes (|max| from 2^-1000 to 1.04, R / L from 2^-44 to 1/2 and
    just beyond, both signs), within 1 ulp wherever |R| >= 2^-46 |max|."""
    rng = np.random.default_rng(SEED + 1)
    n = 3000 if SWEEP else 600
    L = np.concatenate([rng.uniform(1e-3, math.log(2.0), n), 2.0 ** rng.uniform(-1000, -10, n)])
    t = np.concatenate([2.0 ** rng.uniform(-44, -1, n), rng.uniform(0.45, 0.55, n)])
    R = np.where(rng.uniform(size=L.size) < 0.5, -1.0, 1.0) * L * rng.permutation(t)
    m = R - L
    with np.errstate(divide="ignore"):
        o = m + np.log(np.expm1(L))
    keep = (m < 0) & (o < m) & (o - m >= -700)
    x, y = m[keep], o[keep]
    x, y = np.concatenate([x, y]), np.concatenate([y, x])  # both orders
    got = run(shim, "logaddexp", np.float64, x, y)
    want = np.array([reference("logaddexp", np.float64, a, b) for a, b in zip(x, y)])
    ok = np.abs(want) >= 2.0 ** -46 * np.abs(np.maximum(x, y))
    assert ok.sum() > 0.9 * x.size
    d = ulp_distance(got[ok], want[ok], np.float64)
    assert d.max() <= 1, (x[ok][np.argmax(d)], y[ok][np.argmax(d)], d.max())


def test_float64_logaddexp_where_its_split_form_switches(shim):
    """float64 logaddexp's split form (plain double, e^d and log1p(e^d) as unrounded pairs)
    leaves to the double-double path the lanes that cancel (max < 0 and |result| below half of
    log1p(e^d)) and, with d = min - max clamped at -700, those whose max is below 2^-900: pairs
    on both sides of each switch (|result| / log1p(e^d) from 1/4 to 1, d around -700, max
    around 2^-900, x == y, d around the log's switch at u = sqrt(2)), within 1 ulp."""
    rng = np.random.default_rng(SEED)
    L = rng.uniform(1e-3, math.log(2.0), 3000)
    R = np.where(rng.uniform(size=L.size) < 0.5, -1.0, 1.0) * L * rng.uniform(0.25, 1.0, L.size)
    m = R - L
    o = m + np.log(np.expm1(L))
    keep = (m < 0) & (o <= m)
    xs, ys = [m[keep]], [o[keep]]
    tiny = np.array([2.0 ** -900, 2.0 ** -901, 2.0 ** -899, 1e-300, 0.0])
    for d in (-700.0, np.nextafter(-700.0, 0), np.nextafter(-700.0, -1), -699.5, -745.0, -1e5):
        xs += [tiny, -tiny, np.full(3, 1.0), np.full(3, -3.5)]
        ys += [tiny + d, -tiny + d, np.full(3, 1.0 + d), np.full(3, -3.5 + d)]
    same = rng.uniform(-5, 5, 200)
    d = _bit_neighbours([math.log(math.sqrt(2.0) - 1.0), 0.0, -1e-300], 50)
    d = d[d <= 0]
    xs += [same, np.full(d.size, 0.25), np.full(d.size, -0.25)]
    ys += [same, 0.25 + d, -0.25 + d]
    x, y = np.concatenate(xs), np.concatenate(ys)
    got = run(shim, "logaddexp", np.float64, x, y)
    want = np.array([reference("logaddexp", np.float64, a, b) for a, b in zip(x, y)])
    d = ulp_distance(got, want, np.float64)
    assert d.max() <= 1, (x[np.argmax(d)], y[np.argmax(d)], d.max())


def test_float32_log1p_where_one_plus_x_rounds_in_double(shim):
    """x = 2^53: 1 + x rounds to x in double and u - 1 = x - 1 exactly, so adding back the
    rounding error of 1 + x unscaled once gave log(x) + 1 (262,144 ulp, found by the
    exhaustive sweep). The float32 arguments around 2^52..2^54, within 1 ulp."""
    x = np.float32(2.0 ** 53) * np.array([0.5, 1.0, 2.0], np.float32)
    x = np.concatenate([x, np.nextafter(x, np.float32(0)), np.nextafter(x, np.float32(np.inf))])
    d = ulp_distance(run(shim, "log1p", np.float32, x), screened_float32_reference("log1p", x), np.float32)
    assert d.max() <= 1, (x[np.argmax(d)], d.max())


def _bit_neighbours(values, k: int) -> np.ndarray:
    """The k float64 bit patterns below and above each of `values` (and the values)."""
    b = np.asarray(values, np.float64).view(np.int64)[:, None] + np.arange(-k, k + 1)
    return b.ravel().view(np.float64)


def test_float64_logarithms_where_their_reduction_switches(shim):
    """The float64 logarithms reduce x = 2^k m with m in [sqrt(1/2), sqrt(2)) and log1p
    takes x itself for f in (sqrt(1/2) - 1, sqrt(2) - 1) and 1 + x rounded (plus its rounding
    error) elsewhere: 300 bit patterns either side of each switch, at several exponents, and
    log1p where 1 + x rounds (x just below 1, around 2^52 ... 2^54, near -1), within 1 ulp."""
    edges = np.sqrt([0.5, 2.0])[:, None] * 2.0 ** np.array([-1022, -60, -1, 0, 1, 60, 1000])
    x = _bit_neighbours(np.concatenate([edges.ravel(), [1.0, 2.0, 0.5]]), 300)
    w = _bit_neighbours(np.concatenate([np.sqrt([0.5, 2.0]) - 1, [-0.2929, 0.4142, 1.0, 2.0 ** 52,
                                                                  2.0 ** 53, 2.0 ** 54, -1 + 2.0 ** -20]]), 300)
    for name, args in (("log", x), ("log2", x), ("log10", x), ("log1p", w[w > -1])):
        got = run(shim, name, np.float64, args)
        want = np.array([reference(name, np.float64, float(a)) for a in args])
        d = ulp_distance(got, want, np.float64)
        assert d.max() <= 1, (name, args[np.argmax(d)], d.max())


def test_float64_exp_family_where_its_formulas_switch(shim):
    """exp and expm1 reduce x = k ln2 + r with k = round(x / ln2) (tanh: 2|x| = k ln2 + r), and
    e^x as an unrounded pair (expm1, sinh, tanh) carries r's high half squared apart; sinh
    switches from its Taylor form to (e^|x| - e^-|x|)/2 at |x| = 1; the fast paths end at 2^-28,
    2^-54, -40, 700, -708 and 709 (tanh's argument is clamped at 22); exp overflows past 709.78
    and underflows to subnormals below -708.4: bit patterns either side of each, within 1 ulp."""
    ln2 = math.log(2.0)
    halves = (np.arange(-60, 60) + 0.5) * ln2
    ends = [2.0 ** -54, 2.0 ** -28, 1.0, 22.0, 40.0, 700.0, 708.0, 709.0, 709.782712893384,
            708.3964185322641, 745.1332191019411, 744.44, 56.5 * ln2, 19.5 * ln2]
    pts = np.concatenate([halves, halves / 2, ends, [-e for e in ends]])
    x = _bit_neighbours(pts, 40)
    x = x[np.isfinite(x)]
    for name, args in (("exp", x[np.abs(x) < 746]), ("expm1", x), ("sinh", x), ("cosh", x),
                       ("tanh", x)):
        got = run(shim, name, np.float64, args)
        want = np.array([reference(name, np.float64, float(a)) for a in args])
        d = ulp_distance(got, want, np.float64)
        assert d.max() <= 1, (name, args[np.argmax(d)], d.max())


def test_float64_hyperbolics_on_their_wide_fast_range(shim):
    """The float64 split forms' fast paths reach |x| < 709 for sinh and cosh (e^|x| on exp_d and
    exp_pair_d with 2^k up to 2^1023; from 709 the full path's exp_scaled, finite up to 710.48)
    and all |x| >= 2^-28 for tanh (|x| clamped to 22, where tanh rounds to 1): random arguments
    over [19, 709] (where e^-|x| drops below half an ulp), bit patterns either side of 22, 709,
    the last reductions ((k + 1/2) ln2 for k up to 1022) and the overflow thresholds, both signs,
    within 1 ulp; tanh is +-1 from 22 on, +-inf included."""
    rng = np.random.default_rng(SEED)
    ln2 = math.log(2.0)
    wide = rng.uniform(19.0, 709.0, 3000 if SWEEP else 300)
    ends = [19.0, 22.0, 709.0, 709.782712893384, 710.4758600739439, 708.3964185322641]
    ends += [(k + 0.5) * ln2 for k in range(1015, 1023)]
    x = np.concatenate([wide, _bit_neighbours(ends, 30)])
    x = np.concatenate([x, -x])
    for name in ("sinh", "cosh", "tanh"):
        got = run(shim, name, np.float64, x)
        want = np.array([reference(name, np.float64, float(a)) for a in x])
        d = ulp_distance(got, want, np.float64)
        assert d.max() <= 1, (name, x[np.argmax(d)], d.max())
    big = np.concatenate([_bit_neighbours([22.0], 1000), 2.0 ** rng.uniform(4.5, 1023, 1000), [np.inf]])
    big = np.concatenate([big, -big])
    assert np.array_equal(run(shim, "tanh", np.float64, big), np.sign(big))


def test_float64_pow_where_its_paths_switch(shim):
    """float64 pow where its paths switch: the fast path ends at |y| = 2^40 (x within 2^-30 of 1
    keeps y log2 x finite beyond), subnormal x is scaled by 2^54, the reduction switches from
    b = 1 to b = 1.5 at sqrt(3/2) and halves x from sqrt(3) on, results near the overflow
    threshold and in the subnormal range are scaled in two factors, and beyond 2^+-1100 they are
    inf or 0: within 1 ulp there. A negative x with an integer y gives the bits of |x|^y with the
    sign of y's parity, and pow(2, k) = 2^k."""
    rng = np.random.default_rng(SEED)
    near1 = 1 + rng.choice([-1.0, 1.0], 300) * 2.0 ** rng.uniform(-52, -30, 300)
    y_big = rng.choice([-1.0, 1.0], 300) * np.minimum(2.0 ** rng.uniform(38, 42, 300),
                                                      700 / np.abs(np.log(near1)))
    sub = 2.0 ** rng.uniform(-1074, -1022, 200)
    y_sub = rng.uniform(-0.66, 1.0, 200)
    edges = _bit_neighbours((np.sqrt([1.5, 3.0, 0.75]) * 2.0 ** np.array([[-300], [0], [300]])).ravel(), 20)
    y_edges = rng.uniform(-2, 2, edges.size)
    # results from 2^1023.9 up and from 2^-1022 down to the smallest subnormal
    x_far = 2.0 ** rng.uniform(-60, 60, 400)
    z = np.concatenate([rng.uniform(1023.5, 1024.1, 200), rng.uniform(-1075.5, -1021, 200)])
    y_far = z / np.log2(x_far)
    # and far beyond: y log2 x up to +-2^40 with |y| <= 2^40 (0 or inf)
    x_out = 2.0 ** rng.uniform(-1, 1, 200)
    y_out = rng.choice([-1.0, 1.0], 200) * np.minimum(2.0 ** rng.uniform(11, 40, 200) / np.abs(np.log2(x_out)), 2.0 ** 40)
    x = np.concatenate([near1, sub, edges, x_far, x_out])
    y = np.concatenate([y_big, y_sub, y_edges, y_far, y_out])
    got = run(shim, "pow", np.float64, x, y)
    want = np.array([reference("pow", np.float64, a, b) for a, b in zip(x, y)])
    d = ulp_distance(got, want, np.float64)
    assert d.max() <= 1, (x[np.argmax(d)], y[np.argmax(d)], d.max())
    # negative x, integer y: the bits of |x|^y, negated for odd y
    xs = np.concatenate([x_far[:100], near1[:50], sub[:50]])
    yi = np.round(rng.uniform(-40, 40, xs.size))
    pos, neg = run(shim, "pow", np.float64, xs, yi), run(shim, "pow", np.float64, -xs, yi)
    odd = yi % 2 == 1
    assert np.array_equal(np.where(odd, -pos, pos).view(np.uint64), neg.view(np.uint64))
    k = np.arange(-1074, 1024.0)
    assert np.array_equal(run(shim, "pow", np.float64, np.full(k.size, 2.0), k), np.exp2(k))


def test_float64_inverse_hyperbolics_where_their_forms_switch(shim):
    """float64 asinh, acosh and atanh carry their log1p argument's rounding error into the log:
    bit patterns either side of where the log1p takes its argument a itself or reduces 1 + a
    (a = sqrt(2) - 1: asinh at 0.3536, acosh at 1.0607), where the 1 or the x^2 of 1 + x^2 drops
    out, where (x - 1)^2 and 2(x - 1) trade places in acosh (x = 3), at the fast paths' ends
    (2^-28, 2^28, 1) and where atanh switches from the log's series to the quotient (0.1716),
    within 1 ulp."""
    asinh_pts = [0.35355339059327384, 2.0 ** -28, 2.0 ** -26.5, 2.0 ** 26.5, 2.0 ** 28, 0.5, 2.0, 1.0]
    acosh_pts = [1.0 + 2.0 ** -52, 1.0 + 2.0 ** -30, 1.0 + 2.0 ** -8, 1.0606601717798214, 2.0, 3.0, 2.0 ** 26.5, 2.0 ** 28]
    atanh_pts = [2.0 ** -28, 0.17157287525380990, 0.5, 0.75, 1.0 - 2.0 ** -20, 1.0 - 2.0 ** -50]
    for name, pts in (("asinh", asinh_pts), ("acosh", acosh_pts), ("atanh", atanh_pts)):
        x = _bit_neighbours(pts, 40)
        x = x[(x > 1.0) if name == "acosh" else (np.abs(x) < 1.0) if name == "atanh" else np.isfinite(x)]
        if name != "acosh":
            x = np.concatenate([x, -x])
        got = run(shim, name, np.float64, x)
        want = np.array([reference(name, np.float64, float(a)) for a in x])
        d = ulp_distance(got, want, np.float64)
        assert d.max() <= 1, (name, x[np.argmax(d)], d.max())


def test_exact_logarithms_stay_exact(shim):
    """log2(2^k) = k for every power of two (subnormals included), in both formats, and
    float64 log10(1eN) = N wherever that is the correctly rounded result (1e-311 ... 1e308:
    exact for N = 0 ... 22, the nearest doubles to 10^N elsewhere)."""
    for dt, lo, hi in ((np.float32, -149, 127), (np.float64, -1074, 1023)):
        k = np.arange(lo, hi + 1.0)
        assert np.array_equal(run(shim, "log2", dt, np.exp2(k).astype(dt)), k.astype(dt)), dt
    n = np.arange(-311, 309)
    got = run(shim, "log10", np.float64, np.array([float(f"1e{i}") for i in n]))
    assert np.array_equal(got, n.astype(np.float64)), n[got != n]


def test_float64_log2_log10_where_they_cancel(shim):
    """float64 log2 and log10 take f H (H = 1 or 1/2) exactly and f (1/ln b - H) rounded, with
    one rounding at the end: within 1 ulp where that term is largest against the result (k = 0:
    x near 1 on both sides, and across [sqrt(1/2), sqrt(2))) and where k + f H cancels (x just
    below and above powers of 2, and of 10)."""
    rng = np.random.default_rng(SEED + 7)
    n = 3000 if SWEEP else 400
    near1 = _log_uniform(rng, n, -52, -2, False)
    k = rng.integers(-1074, 1024, n).astype(np.float64)
    m = 1 + rng.choice([-1.0, 1.0], n) * _log_uniform(rng, n, -52, -2, False)
    x = np.concatenate([1 + near1, 1 - near1 / 2, rng.uniform(np.sqrt(0.5), np.sqrt(2.0), n),
                        np.exp2(k) * m, 10.0 ** rng.integers(-300, 300, n) * m,
                        np.nextafter(np.sqrt([0.5, 2.0]), 0), np.nextafter(np.sqrt([0.5, 2.0]), 2)])
    x = x[(x > 0) & np.isfinite(x)]
    for name in ("log2", "log10"):
        got = run(shim, name, np.float64, x)
        want = np.array([reference(name, np.float64, float(a)) for a in x])
        d = ulp_distance(got, want, np.float64)
        assert d.max() <= 1, (name, x[np.argmax(d)], d.max())


def test_odd_functions_keep_the_sign_of_zero(shim):
    for name in ("expm1", "log1p", "sinh", "tanh", "asinh", "atanh"):
        for dt in DTYPES.values():
            got = run(shim, name, dt, np.array([-0.0, 0.0], dtype=dt))
            assert list(np.signbit(got)) == [True, False], name


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 ISA levels")
def test_the_same_bits_at_another_isa_level(shim, tmp_path):
    """The baseline x86-64-v2 build (SSE only) and the backend's own (-march=native, AVX2 or
    wider where the host has it) give identical bytes for every function and dtype."""
    other = _compiled(str(tmp_path), "x86-64-v2")
    for name in FUNCTIONS:
        for dt in DTYPES.values():
            rng = np.random.default_rng(SEED)
            args = [np.concatenate([a, b]) for a, b in zip(special_args(name, dt), sample(name, dt, rng))]
            a, b = run(shim, name, dt, *args), run(other, name, dt, *args)
            assert a.tobytes() == b.tobytes(), name


@pytest.mark.parametrize("dtype", list(DTYPES), ids=list(DTYPES))
@pytest.mark.parametrize("name", [n for n in FUNCTIONS if n != "exp2"])
def test_the_kernels_rows_give_the_functions_own_bits(shim, name, dtype):
    """The ufunc kernels' rows (ufunc.cuh staged_row: a split form's fast() over each chunk,
    float32 pow's 8-lane form on an AVX-512 host, the rare lanes redone; a row that ends
    inside a group of 8, and every third element gathered) give the bytes of the function
    itself, computed one lane at a time by the shim (built without AVX-512)."""
    import npu_emu.array_api as xp
    dt = DTYPES[dtype]
    rng = np.random.default_rng(SEED + 1)
    args = [np.concatenate([a, b])[:-3] for a, b in zip(special_args(name, dt), sample(name, dt, rng))]
    fn = getattr(xp, name)
    want = run(shim, name, dt, *args)
    got = np.asarray(fn(*(xp.asarray(a) for a in args)))
    assert got.tobytes() == want.tobytes(), np.nonzero(got.view(np.uint8) != want.view(np.uint8))[0][:5]
    got = np.asarray(fn(*(xp.asarray(a)[1::3] for a in args)))
    assert got.tobytes() == want[1::3].tobytes()


def test_the_gpu_build_has_no_approximate_flushing_or_fused_instruction_and_no_libdevice_call():
    cuda = pytest.importorskip("npu_emu.runtime.cuda")
    try:
        cuda.import_cupy()
        cuda.nvrtc_version()
    except Exception as exc:  # no CuPy/NVRTC: the test extra installs both
        pytest.skip(f"CuPy with NVRTC is not installed ({exc}); pip install -e '.[test]'")
    _, ptx = cuda.compile_source(SHIM.read_text(), SHIM.name, 90)
    assert ptx.count(".entry") == 2 * len(FUNCTIONS)
    assert not re.findall(r"\.approx\b", ptx)
    assert not re.findall(r"^\s*[a-z][\w.]*\.ftz\b.*$", ptx, re.M)
    assert not re.findall(r"^\s*(?:fma|mad)\.[\w.]*\b(?:f32|f64)\b.*$", ptx, re.M)
    assert "__nv_" not in ptx and not re.findall(r"^\s*call", ptx, re.M)
    assert re.search(r"\bsqrt\.rn\.f64\b", ptx)  # asinh/acosh's square root, correctly rounded


def test_generated_float_lane_fits_are_fresh():
    """The header's generated parts are what tools/gen_math_exp_coeffs.py makes: float pow's
    tables and float log2/log10's fit (one block at namespace level) and the float lanes' fits
    in the named blocks (tanh_lanes_f, sinh_lanes_f, exp_pm_lanes_f)."""
    tool = Path(__file__).resolve().parent.parent / "tools" / "gen_math_exp_coeffs.py"
    res = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def main() -> None:
    """Print the measured max-ulp table (markdown rows for docs/math.md); with --exhaustive
    [names], the float32 unary functions over all 2^32 inputs instead (--stride N [names]:
    every N-th bit pattern)."""
    import tempfile
    lib = _compiled(tempfile.mkdtemp())
    if "--libm" in sys.argv:  # the C++ sweep over all 2^32 patterns (test_..._against_libm)
        print("| function | correctly rounded | max ulp (error) |")
        print("|---|---|---|")
        for name in sys.argv[sys.argv.index("--libm") + 1:] or LIBM_SWEPT:
            finite, exact, over, bad_nan, worst, x = libm_sweep(tempfile.mkdtemp(), name)
            print(f"| {name} | {exact} of {finite} | {1 if worst else 0} ({worst:.4f} at {x!r}; "
                  f"{over} over 1 ulp, {bad_nan} non-canonical NaN) |", flush=True)
        return
    if "--exhaustive" in sys.argv or "--stride" in sys.argv:
        at = sys.argv.index("--exhaustive") if "--exhaustive" in sys.argv else sys.argv.index("--stride") + 1
        stride = 1 if "--exhaustive" in sys.argv else int(sys.argv[at])
        print(f"| function | finite float32 inputs ({'all' if stride == 1 else f'every {stride}th'} patterns) "
              "| correctly rounded | max ulp |")
        print("|---|---|---|---|")
        for name in sys.argv[at + 1:] or UNARY:
            worst, count, exact, x = float32_sweep(lib, name, stride)
            print(f"| {name} | {count} | {exact} | {worst:g} (at {x!r}) |", flush=True)
        return
    print("| function | float32: max ulp (not correctly rounded) "
          "| float64: max ulp (not correctly rounded) | points (float32 / float64) |")
    print("|---|---|---|---|")
    for name in FUNCTIONS:
        row = [measure(lib, name, dt) for dt in DTYPES.values()]
        cells = [f"{worst:g} ({wrong})" for worst, _, _, wrong in row]
        print(f"| {name} | {cells[0]} | {cells[1]} | {row[0][1]} / {row[1][1]} |", flush=True)
        for (w, _, cases, _), dt in zip(row, DTYPES):
            if w > 0.0:
                print(f"    {dt} worst: {cases[0]}", file=sys.stderr)


if __name__ == "__main__":
    main()
