"""kernels_cuda/npu_emu_math_trig.cuh: sin cos tan asin acos atan atan2 hypot for float32 and
float64, each within 1 ulp of the correctly rounded result, measured against mpmath 1.3
(references at 160 bits, rounded to the format exactly: subnormals and overflow included).

A shim (tests/kernels/math_shim_trig.cu) is built with the cpu backend's exact flags and
loaded with ctypes; the same shim is compiled by NVRTC and its PTX checked for anything that
would let the GPU's bits differ. NPU_EMU_MATH_SWEEP=1 runs a much larger sample;
NPU_EMU_MATH_EXHAUSTIVE=1 runs the float32 sweep over all 2^32 inputs (tens of CPU minutes).
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

from npu_emu.runtime import base, cpu

SHIM = Path(__file__).parent / "kernels" / "math_shim_trig.cu"
SWEEP = os.environ.get("NPU_EMU_MATH_SWEEP", "") == "1"
N_RANDOM = 40000 if SWEEP else 3000
REF_PREC = 160   # bits: far above the 2^-120 a near-tie of a double result would need

# (mpmath function, arity); mpmath's atan2 is (y, x), as ours.
FUNCS = {
    "sin": (mp.sin, 1), "cos": (mp.cos, 1), "tan": (mp.tan, 1),
    "asin": (mp.asin, 1), "acos": (mp.acos, 1), "atan": (mp.atan, 1),
    "atan2": (mp.atan2, 2), "hypot": (mp.hypot, 2),
}
# (numpy dtype, unsigned view, precision p, smallest exponent of an ulp, largest exponent)
FORMATS = {
    "f32": (np.float32, np.uint32, 24, -149, 127),
    "f64": (np.float64, np.uint64, 53, -1074, 1023),
}
CANON_NAN = {"f32": 0x7FC00000, "f64": 0x7FF8000000000000}


# ------------------------------------------------------------------------------ the shim

def build_shim(folder: Path, march: str | None = None, wide: bool = False) -> ctypes.CDLL:
    """The shim built by the cpu backend's compiler with its flags (for `march`; `wide`: with
    AVX-512 kept, as the float modules are on a host that has it), loaded."""
    out = folder / f"math_shim_trig_{march or 'default'}{'_wide' if wide else ''}.so"
    cmd = [cpu._compiler(), *cpu.cxx_flags(march, wide=wide, cxx=cpu._compiler()), f"-I{base.kernels_dir()}", str(SHIM), "-o", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    return ctypes.CDLL(str(out))


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    return build_shim(tmp_path_factory.mktemp("math_trig"))


def run(shim, name: str, fmt: str, *args: np.ndarray) -> np.ndarray:
    dtype = FORMATS[fmt][0]
    args = [np.ascontiguousarray(a, dtype=dtype) for a in args]
    out = np.empty_like(args[0])
    fn = getattr(shim, f"{name}_{fmt}")
    fn.restype = None
    fn(*(a.ctypes.data_as(ctypes.c_void_p) for a in args), out.ctypes.data_as(ctypes.c_void_p),
       ctypes.c_long(out.size))
    return out


# ------------------------------------------------------------------------------ references

def round_to_format(v: mp.mpf, fmt: str) -> float:
    """v rounded to nearest (ties to even) in the format: exact, subnormals and overflow too."""
    _, _, p, emin, emax = FORMATS[fmt]
    if v == 0:
        return 0.0
    _, e = mp.frexp(v)                      # |v| = m * 2^e, 1/2 <= m < 1
    q = max(int(e) - p, emin)               # exponent of an ulp at v
    r = mp.nint(mp.ldexp(v, -q))            # mpmath's nint rounds half to even
    out = mp.ldexp(r, q)
    if abs(out) >= mp.ldexp(1, emax + 1):   # IEEE overflow: after rounding
        return float("inf") if out > 0 else float("-inf")
    return float(out)                        # exact: out is representable


def _reference_uncached(name: str, fmt: str, args: tuple[np.ndarray, ...]) -> np.ndarray:
    fn, _ = FUNCS[name]
    dtype = FORMATS[fmt][0]
    out = np.empty(args[0].size, dtype=np.float64)
    with mp.workprec(REF_PREC):
        for i, vals in enumerate(zip(*(a.tolist() for a in args))):
            out[i] = round_to_format(fn(*(mp.mpf(v) for v in vals)), fmt)
    return out.astype(dtype)


def reference(name: str, fmt: str, *args: np.ndarray) -> np.ndarray:
    """Correctly rounded results, cached on disk by the inputs' bytes and mpmath's version."""
    key = hashlib.sha256(f"{name}|{fmt}|{REF_PREC}|{mp.__version__}|v1".encode() +
                         b"".join(np.ascontiguousarray(a).tobytes() for a in args)).hexdigest()[:32]
    path = base.cache_dir() / "math_ref" / f"{name}_{fmt}_{key}.npy"
    if path.is_file():
        return np.load(path)
    ref = _reference_uncached(name, fmt, args)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
    np.save(tmp, ref)
    os.replace(tmp, path)
    return ref


def ulp_distance(got: np.ndarray, want: np.ndarray, fmt: str) -> np.ndarray:
    """How many representable values lie between got and want (0: the same value; the
    special-value test checks zeros' signs)."""
    _, utype, *_ = FORMATS[fmt]
    nbits = np.dtype(utype).itemsize * 8
    sign = np.uint64(1) << np.uint64(nbits - 1)

    def split(a):   # (is negative, magnitude's bits) as uint64
        b = a.view(utype).astype(np.uint64)
        return (b & sign) != 0, b & (sign - np.uint64(1))
    gn, gm = split(got)
    wn, wm = split(want)
    same = np.maximum(gm, wm) - np.minimum(gm, wm)
    return np.where(gn == wn, same, gm + wm).astype(np.float64)


# ------------------------------------------------------------------------------ samples

def _bits_to(dtype, utype, raw):
    return raw.astype(utype).view(dtype)


def random_finite(rng, fmt: str, n: int) -> np.ndarray:
    """n finite values uniform over bit patterns: every binade equally, subnormals included."""
    dtype, utype, *_ = FORMATS[fmt]
    nbits = np.dtype(utype).itemsize * 8
    raw = rng.integers(0, 2 ** nbits, n, dtype=np.uint64 if nbits == 64 else np.int64)
    x = _bits_to(dtype, utype, raw)
    return x[np.isfinite(x)]


@functools.lru_cache(maxsize=None)
def near_multiples_of_pio2(fmt: str, exponents: tuple[int, ...]) -> np.ndarray:
    """The values q * 2^E closest to a multiple of pi/2 for each E: q runs over the
    continued-fraction convergents' denominators of frac(2^E * 2/pi) below 2^p (the best
    approximations: the hardest cases for argument reduction), with their neighbours."""
    dtype, _, p, *_ = FORMATS[fmt]
    out = []
    with mp.workprec(1400):
        two_over_pi = 2 / mp.pi
        for e in exponents:
            e = int(e)
            alpha = mp.frac(mp.ldexp(two_over_pi, e))
            # convergents p_k / q_k of alpha
            q_prev, q_cur, a = 0, 1, alpha
            qs = []
            for _ in range(80):
                ai = int(mp.floor(1 / a)) if a != 0 else 0
                if ai == 0:
                    break
                a = 1 / a - ai
                q_prev, q_cur = q_cur, ai * q_cur + q_prev
                if q_cur >= 2 ** p:
                    break
                qs.append(q_cur)
            for q in qs[-3:]:
                for d in (-1, 0, 1):
                    if 0 < q + d < 2 ** p:
                        out.append(float(mp.ldexp(q + d, e)))
    x = np.array(out, dtype=np.float64).astype(dtype)
    return x[np.isfinite(x)]


def trig_samples(fmt: str, rng) -> np.ndarray:
    dtype, _, p, emin, emax = FORMATS[fmt]
    all_e = list(range(-p, emax - p + 1))
    exps = tuple(all_e) if (fmt == "f32" or SWEEP) else tuple(sorted(set(
        all_e[:40] + list(rng.choice(all_e, 60, replace=False)) + all_e[-10:])))
    k = np.arange(1, 2000)
    parts = [
        random_finite(rng, fmt, N_RANDOM),
        rng.uniform(-10, 10, N_RANDOM // 2),
        (k * (np.pi / 2)).astype(dtype),                     # multiples of pi/2, rounded
        np.nextafter((k * (np.pi / 2)).astype(dtype), dtype(0)),
        near_multiples_of_pio2(fmt, exps),
        np.array([np.finfo(dtype).max, np.finfo(dtype).tiny, np.finfo(dtype).smallest_subnormal,
                  1048576.0, np.nextafter(dtype(1048576.0), dtype(0)), 0.7853981633974483,
                  6381956970095103.0 * 2.0 ** 797 if fmt == "f64" else 1e38]),
    ]
    x = np.concatenate([np.asarray(a, dtype=np.float64).astype(dtype) for a in parts])
    x = x[np.isfinite(x)]
    return np.concatenate([x, -x])


def unit_samples(fmt: str, rng) -> np.ndarray:
    """Arguments of asin / acos: [-1, 1] by value and by bits, near +-1 and 0, subnormals."""
    dtype = FORMATS[fmt][0]
    one = dtype(1)
    below_one = [one]
    for _ in range(64):
        below_one.append(np.nextafter(below_one[-1], dtype(0)))
    half = [dtype(0.5)]   # float64: the reduction changes at 1/2
    for _ in range(16):
        half = [np.nextafter(half[0], dtype(0))] + half + [np.nextafter(half[-1], dtype(1))]
    x = np.concatenate([
        rng.uniform(-1, 1, N_RANDOM).astype(dtype),
        np.array(below_one, dtype=dtype),
        np.array(half, dtype=dtype), rng.uniform(0.49, 0.51, 200).astype(dtype),
        (one - np.geomspace(1e-16 if fmt == "f64" else 1e-7, 0.5, 200)).astype(dtype),
        random_finite(rng, fmt, 4 * N_RANDOM),
        np.array([0.5, np.finfo(dtype).smallest_subnormal, 2.0 ** -27, 2.0 ** -26], dtype=dtype),
    ])
    x = x[np.abs(x) <= 1]
    return np.concatenate([x, -x])


# the float64 reduction's interval boundaries (s_atan.c's): the ratio's centre changes there
ATAN_BOUNDS = np.array([7 / 16, 11 / 16, 19 / 16, 39 / 16])


def near(dtype, values, steps: int = 8) -> np.ndarray:
    """values (rounded to dtype) and their `steps` nearest neighbours on each side."""
    v = np.asarray(values).astype(dtype)
    out, lo, hi = [v], v, v
    for _ in range(steps):
        lo, hi = np.nextafter(lo, dtype(-np.inf)), np.nextafter(hi, dtype(np.inf))
        out += [lo, hi]
    return np.concatenate(out)


def atan_samples(fmt: str, rng) -> np.ndarray:
    dtype = FORMATS[fmt][0]
    j16 = np.arange(0, 17) / 16
    x = np.concatenate([
        random_finite(rng, fmt, N_RANDOM),
        rng.uniform(-4, 4, N_RANDOM),
        j16, j16 + 1 / 32, j16 - 1 / 32, 1 / np.maximum(j16[1:], 1 / 16),
        near(dtype, ATAN_BOUNDS), (ATAN_BOUNDS[:, None] * rng.uniform(0.99, 1.01, (4, 100))).ravel(),
        [2.0 ** 60, 2.0 ** 61, 2.0 ** -27, np.finfo(dtype).max],
    ]).astype(dtype)
    x = x[np.isfinite(x)]
    return np.concatenate([x, -x])


def pair_samples(fmt: str, rng) -> tuple[np.ndarray, np.ndarray]:
    """(y, x) / (x, y) pairs: bits uniform, moderate values, ratios around 2^+-62, both large,
    both subnormal, every sign."""
    dtype = FORMATS[fmt][0]
    n = N_RANDOM
    a = [random_finite(rng, fmt, n)[: n // 2], rng.normal(size=n) * 10]
    b = [random_finite(rng, fmt, n)[: n // 2], rng.normal(size=n) * 10]
    base_v = rng.uniform(0.5, 2, 200)
    for scale in (2.0 ** 62, 2.0 ** -62, 2.0 ** 61.5, 2.0 ** 60):
        a.append(base_v * scale)
        b.append(rng.uniform(0.5, 2, 200))
    big = np.finfo(dtype).max / 4
    sub = np.finfo(dtype).smallest_subnormal
    a += [rng.uniform(0.5, 4, 200) * big, rng.integers(1, 1000, 200) * sub]
    b += [rng.uniform(0.5, 4, 200) * big, rng.integers(1, 1000, 200) * sub]
    # ratios at the float64 reduction's interval boundaries (the products rounded: both sides)
    base_x = rng.uniform(0.5, 2, 800) * 2.0 ** rng.integers(-20, 20, 800)
    a.append(base_x * np.repeat(ATAN_BOUNDS, 200) * rng.uniform(1 - 2e-15, 1 + 2e-15, 800))
    b.append(base_x)
    m = min(sum(map(len, a)), sum(map(len, b)))
    y = np.concatenate(a)[:m].astype(dtype)
    x = np.concatenate(b)[:m].astype(dtype)
    keep = np.isfinite(x) & np.isfinite(y)
    y, x = y[keep], x[keep]
    sy, sx = rng.choice([-1, 1], y.size).astype(dtype), rng.choice([-1, 1], x.size).astype(dtype)
    return y * sy, x * sx


def samples(name: str, fmt: str):
    rng = np.random.default_rng(20261201 + sum(map(ord, name + fmt)))
    if name in ("sin", "cos", "tan"):
        return (trig_samples(fmt, rng),)
    if name in ("asin", "acos"):
        return (unit_samples(fmt, rng),)
    if name == "atan":
        return (atan_samples(fmt, rng),)
    return pair_samples(fmt, rng)


# ------------------------------------------------------------------------------ tests

# the measured maximum (docs/math.md); the contract is <= 1 ulp
MAX_ULP = 1


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("name", list(FUNCS))
def test_within_one_ulp_of_correct_rounding(shim, name, fmt):
    args = samples(name, fmt)
    got = run(shim, name, fmt, *args)
    want = reference(name, fmt, *args)
    dist = ulp_distance(got, want, fmt)
    worst = int(np.argmax(dist))
    print(f"{name} {fmt}: max {int(dist.max())} ulp over {dist.size} inputs, "
          f"{int(np.count_nonzero(dist))} not correctly rounded")
    assert dist.max() <= MAX_ULP, (
        f"{name}_{fmt}{tuple(a[worst] for a in args)} = {got[worst]!r}, correctly rounded "
        f"{want[worst]!r}: {int(dist[worst])} ulp")


@pytest.mark.parametrize("name", ["sin", "cos", "tan", "asin", "acos", "atan"])
def test_float32_over_every_binade_agrees_with_the_float64_algorithm(shim, name):
    """Every 65521st float32 bit pattern (every 641st with the sweep: 6.7 million), through the
    float32 path and through the float64 one rounded to float32 (a separate reduction below
    2^20, separate polynomials and arithmetic): at most 1 ulp apart."""
    step = 641 if SWEEP else 65521
    x = np.arange(0, 2 ** 32, step, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = x[np.isfinite(x)]
    if name in ("asin", "acos"):
        x = x[np.abs(x) <= 1]
    got = run(shim, name, "f32", x)
    fn = getattr(shim, f"{name}_f32_via_f64")
    fn.restype = None
    other = np.empty_like(x)
    fn(x.ctypes.data_as(ctypes.c_void_p), other.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(x.size))
    dist = ulp_distance(got, other, "f32")
    assert dist.max() <= 1, (name, x[int(np.argmax(dist))])


# the functions with a split form (Split<fn::NAME, T>: fast and rare), per format
SPLIT = {fmt: ["sin", "cos", "tan", "asin", "acos", "atan", "atan2"] for fmt in ("f32", "f64")}
EDGES = [0.0, -0.0, 2.0 ** 20 - 0.0625, -(2.0 ** 20), 2.0 ** -27, -(2.0 ** -27), 2.0 ** -27 * 0.999,
         2.0 ** -60, 2.0 ** -60 * 0.999, 2.0 ** 60 * 0.999, 4096.0, 4095.9998, -4096.0,
         1.0, -1.0, np.inf, -np.inf, np.nan, 1.0000001, -1.0000001, 3e38, 2.0 ** 60, 2.0 ** 60 * 1.001,
         2.0 ** -500, 2.0 ** -500 * 0.999, 2.0 ** 500, 2.0 ** 500 * 1.001, 2.0 ** 62, 2.0 ** -62]


def split_args(name: str, fmt: str) -> tuple[np.ndarray, ...]:
    """The accuracy samples with the edges of every fast range; binary: each edge paired with
    every sample too."""
    args = samples(name, fmt)
    with np.errstate(over="ignore"):   # the float64 edges past float32's range become inf
        edges = np.array(EDGES).astype(FORMATS[fmt][0])
    if len(args) == 1:
        return (np.concatenate([args[0], edges, random_finite(np.random.default_rng(7), fmt, 20000)]),)
    y, x = args
    e = np.repeat(edges, 64)
    return np.concatenate([y, e, np.resize(y, e.size)]), np.concatenate([x, np.resize(x, e.size), e])


def documented_rare(name: str, fmt: str, args) -> np.ndarray:
    """Where the header says the function leaves its fast path."""
    f64 = fmt == "f64"
    with np.errstate(invalid="ignore", over="ignore"):
        a = np.abs(args[0])
        if name in ("sin", "cos", "tan") and not f64:
            return ~(a < 2.0 ** 12)
        if name in ("sin", "cos", "tan"):
            return ~((a < 2.0 ** 20) & ((a >= 2.0 ** -27) if f64 else True))
        if name == "atan":
            return ~((a >= 2.0 ** -27) & (a <= 2.0 ** 60) if f64 else np.isfinite(a))
        if name == "asin":
            return ~((a >= 2.0 ** -27) & (a < 1) if f64 else a <= 1)
        if name == "acos":
            return ~(a < 1 if f64 else a <= 1)
        ay, ax = (np.abs(v).astype(np.float64) for v in args)
        if not f64:
            return ~((ay >= 2.0 ** -60) & (ay <= 2.0 ** 60) & (ax >= 2.0 ** -60) & (ax <= 2.0 ** 60))
        inside = lambda v: (v >= 2.0 ** -500) & (v <= 2.0 ** 500)
        return ~(inside(ay) & inside(ax) & (ay <= ax * 2.0 ** 62) & (ax <= ay * 2.0 ** 62))


@pytest.mark.parametrize("name,fmt", [(n, f) for f in SPLIT for n in SPLIT[f]])
def test_split_fast_path_gives_the_full_functions_bits(shim, name, fmt):
    """Split::fast (a loop over it vectorizes) equals the function bit for bit wherever
    Split::rare is false, and rare holds only outside the documented fast range."""
    args = split_args(name, fmt)
    rare = run(shim, f"{name}_rare", fmt, *args) != 0
    full = run(shim, name, fmt, *args)
    fast = run(shim, f"{name}_fast", fmt, *args)
    assert full[~rare].tobytes() == fast[~rare].tobytes(), name
    np.testing.assert_array_equal(rare, documented_rare(name, fmt, args), err_msg=name)


@pytest.mark.skipif(not cpu._X86, reason="reads GCC's x86 vectorizer report")
def test_loops_over_the_fast_paths_vectorize(tmp_path):
    """GCC vectorizes a loop over every Split::fast with the cpu flags (asin and acos need
    -fno-math-errno too: with errno, GCC keeps sqrt's library fallback)."""
    flags = cpu.cxx_flags(cxx=cpu._compiler())     # as the modules are built (gathers allowed)
    cmd = [cpu._compiler(), *flags, "-fopt-info-vec-optimized", f"-I{base.kernels_dir()}", str(SHIM),
           "-o", str(tmp_path / "shim.so")]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    lines = SHIM.read_text().splitlines()
    want = [(n, f) for f in SPLIT for n in SPLIT[f] if n not in ("asin", "acos") or "-fno-math-errno" in flags]
    for fn, fmt in want:
        ctype = "float" if fmt == "f32" else "double"
        needle = (f"NPU_EMU_SHIM_FAST({fn}, {ctype}, {fmt})" if fn != "atan2"
                  else f"extern \"C\" __global__ void atan2_fast_{fmt}")
        first = next(i for i, ln in enumerate(lines, 1) if ln.startswith(needle))
        # a macro's loop is reported at the macro's use, atan2's at the line of its loop body
        line = first if fn != "atan2" else first + 1
        assert re.search(rf"{SHIM.name}:{line}:\d+: optimized: loop vectorized", res.stderr), (fn, fmt)


# ------------------------------------------------------------------------------ float32 sweep
# Every float32 input (NPU_EMU_MATH_EXHAUSTIVE=1: all 2^32 bit patterns, minutes per function)
# or every 1021st bit pattern by default (4.2 million, every binade). The non-negative inputs
# are held against NumPy's float64 function rounded to float32 (verified with NumPy 2.4: glibc's
# libm or SVML in float64, far below float32's half ulp), and a point more than 1 ulp from it
# is decided by mpmath; each negative input's result must be its positive twin's by symmetry
# (odd functions: the sign flipped, cos: the same bits; acos against NumPy too).
EXHAUSTIVE = os.environ.get("NPU_EMU_MATH_EXHAUSTIVE", "") == "1"
NUMPY_F64 = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
             "atan": np.arctan}
ODD = {"sin", "tan", "asin", "atan"}
SWEEP_BLOCK = 1 << 24


def check_against_numpy(shim, name: str, x: np.ndarray, got: np.ndarray) -> tuple[int, int]:
    """(max ulp from the correctly rounded result, count differing from NumPy's float64 rounded)."""
    with np.errstate(all="ignore"):
        want = NUMPY_F64[name](x.astype(np.float64)).astype(np.float32)
    differ = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))   # NaN: canonical only
    if differ.size == 0:
        return 0, 0
    g, w, xs = got[differ], want[differ], x[differ]
    nan = np.isnan(w)
    assert np.array_equal(np.isnan(g), nan), f"{name}: NaN where NumPy has none near {xs[0]!r}"
    assert (g[nan].view(np.uint32) == CANON_NAN["f32"]).all(), name
    dist = np.where(nan, 0, ulp_distance(g, w, "f32"))
    far = np.flatnonzero(dist > 1)
    if far.size:   # NumPy's float64 rounded twice, or ours: mpmath decides
        dist[far] = ulp_distance(g[far], reference(name, "f32", xs[far]), "f32")
    worst = int(np.argmax(dist))
    assert dist[worst] <= 1, f"{name}_f32({xs[worst]!r}) = {g[worst]!r}: {int(dist[worst])} ulp"
    return int(dist[worst]), int(np.count_nonzero(dist))


def sweep_float32(shim, name: str, step: int) -> dict:
    worst, off_numpy, total = 0, 0, 0
    sign = np.uint32(0x80000000)
    for start in range(0, 1 << 31, SWEEP_BLOCK):
        bits = np.arange(start, start + SWEEP_BLOCK, step, dtype=np.uint32)
        x = bits.view(np.float32)
        got = run(shim, name, "f32", x)
        w, off = check_against_numpy(shim, name, x, got)
        neg = run(shim, name, "f32", (bits | sign).view(np.float32))
        if name == "acos":
            w2, off2 = check_against_numpy(shim, name, (bits | sign).view(np.float32), neg)
            w, off = max(w, w2), off + off2
        else:
            twin = got.view(np.uint32) ^ (sign if name in ODD else np.uint32(0))
            twin = np.where(np.isnan(got), got.view(np.uint32), twin)   # NaN stays canonical
            bad = np.flatnonzero(neg.view(np.uint32) != twin)
            assert bad.size == 0, f"{name}_f32(-{x[bad[0]]!r}) breaks the symmetry"
            off *= 2
        worst, off_numpy, total = max(worst, w), off_numpy + off, total + 2 * x.size
    return {"max_ulp": worst, "off_numpy": off_numpy, "total": total}


@pytest.mark.parametrize("name", list(NUMPY_F64))
def test_float32_sweep_over_bit_patterns(shim, name):
    """Every float32 input with NPU_EMU_MATH_EXHAUSTIVE=1, else a spaced slice: within 1 ulp."""
    step = 1 if EXHAUSTIVE else 1021
    stats = sweep_float32(shim, name, step)
    print(f"{name} f32 sweep (step {step}): max {stats['max_ulp']} ulp over {stats['total']} inputs, "
          f"{stats['off_numpy']} differ from NumPy's float64 rounded")


INF, NAN = float("inf"), float("nan")
PIO2, PI, PIO4 = np.pi / 2, np.pi, np.pi / 4
# C99 Annex F and the array API's special cases: (function, arguments, result). A NaN result
# must be the canonical quiet NaN; zeros must have the sign given.
SPECIAL = [
    ("sin", (0.0,), 0.0), ("sin", (-0.0,), -0.0), ("sin", (INF,), NAN), ("sin", (-INF,), NAN),
    ("sin", (NAN,), NAN),
    ("cos", (0.0,), 1.0), ("cos", (-0.0,), 1.0), ("cos", (INF,), NAN), ("cos", (-INF,), NAN),
    ("cos", (NAN,), NAN),
    ("tan", (0.0,), 0.0), ("tan", (-0.0,), -0.0), ("tan", (INF,), NAN), ("tan", (-INF,), NAN),
    ("tan", (NAN,), NAN),
    ("asin", (0.0,), 0.0), ("asin", (-0.0,), -0.0), ("asin", (1.5,), NAN), ("asin", (-1.5,), NAN),
    ("asin", (INF,), NAN), ("asin", (NAN,), NAN), ("asin", (1.0,), PIO2), ("asin", (-1.0,), -PIO2),
    ("acos", (1.0,), 0.0), ("acos", (-1.0,), PI), ("acos", (1.5,), NAN), ("acos", (-INF,), NAN),
    ("acos", (NAN,), NAN), ("acos", (0.0,), PIO2), ("acos", (-0.0,), PIO2),
    ("atan", (0.0,), 0.0), ("atan", (-0.0,), -0.0), ("atan", (INF,), PIO2),
    ("atan", (-INF,), -PIO2), ("atan", (NAN,), NAN),
    ("atan2", (0.0, -0.0), PI), ("atan2", (-0.0, -0.0), -PI), ("atan2", (0.0, 0.0), 0.0),
    ("atan2", (-0.0, 0.0), -0.0), ("atan2", (0.0, -1.0), PI), ("atan2", (-0.0, -1.0), -PI),
    ("atan2", (0.0, 1.0), 0.0), ("atan2", (-0.0, 1.0), -0.0), ("atan2", (-1.0, 0.0), -PIO2),
    ("atan2", (-1.0, -0.0), -PIO2), ("atan2", (1.0, 0.0), PIO2), ("atan2", (1.0, -0.0), PIO2),
    ("atan2", (1.0, -INF), PI), ("atan2", (-1.0, -INF), -PI), ("atan2", (1.0, INF), 0.0),
    ("atan2", (-1.0, INF), -0.0), ("atan2", (INF, 1.0), PIO2), ("atan2", (-INF, 1.0), -PIO2),
    ("atan2", (INF, -INF), 3 * PIO4), ("atan2", (-INF, -INF), -3 * PIO4),
    ("atan2", (INF, INF), PIO4), ("atan2", (-INF, INF), -PIO4), ("atan2", (NAN, 1.0), NAN),
    ("atan2", (1.0, NAN), NAN), ("atan2", (INF, 0.0), PIO2), ("atan2", (0.0, INF), 0.0),
    ("atan2", (0.0, -INF), PI), ("atan2", (-0.0, -INF), -PI),
    ("hypot", (INF, NAN), INF), ("hypot", (NAN, -INF), INF), ("hypot", (-INF, 1.0), INF),
    ("hypot", (NAN, 1.0), NAN), ("hypot", (1.0, NAN), NAN), ("hypot", (-0.0, 0.0), 0.0),
    ("hypot", (-3.0, -0.0), 3.0), ("hypot", (3.0, 4.0), 5.0),
]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_special_values(shim, fmt):
    dtype, utype, *_ = FORMATS[fmt]
    wrong = []
    for name, args, want in SPECIAL:
        got = run(shim, name, fmt, *(np.array([a], dtype=dtype) for a in args))
        # pi-based results: the format's correctly rounded value (mpmath), the rest as given
        want_v = dtype(want)
        if np.isfinite(want) and want not in (0.0, 1.0, 3.0, 5.0):
            with mp.workprec(REF_PREC):
                want_v = dtype(round_to_format(mp.mpf(want / np.pi) * mp.pi, fmt))
        gbits = int(got.view(utype)[0])
        wbits = CANON_NAN[fmt] if np.isnan(want) else int(np.array([want_v], dtype).view(utype)[0])
        if gbits != wbits:
            wrong.append(f"{name}{args} = {got[0]!r} (0x{gbits:x}), want 0x{wbits:x}")
    assert not wrong, "\n".join(wrong)


def test_nan_inputs_give_the_canonical_nan(shim):
    """Payload and sign of a NaN input are not passed on."""
    for fmt, (dtype, utype, *_) in FORMATS.items():
        nans = np.array([0xFFC00001, 0x7F800001, 0x7FFFFFFF] if fmt == "f32" else
                        [0xFFF8000000000001, 0x7FF0000000000001], dtype=utype).view(dtype)
        for name, (_, arity) in FUNCS.items():
            if name == "hypot":
                continue    # hypot(inf, NaN) is inf; its NaN cases are in SPECIAL
            args = [nans] + [np.ones_like(nans)] * (arity - 1)
            got = run(shim, name, fmt, *args).view(utype)
            assert (got == CANON_NAN[fmt]).all(), (name, fmt, [hex(int(v)) for v in got])


@pytest.mark.skipif(not cpu._X86, reason="compares two x86-64 ISA levels")
def test_float32_atan_family_where_its_float_paths_switch(shim):
    """float32 asin and acos change form at |x| = 1/2; ratios at tan(pi/16) and tan(3pi/16)
    (the centres of an earlier atan2; atan's arguments as well), pairs at every exponent, next
    to the largest float and subnormal, each within 1 ulp of the correctly rounded result."""
    f32 = np.float32
    rng = np.random.default_rng(20261206)
    edges = np.array([np.tan(np.pi / 16), np.tan(3 * np.pi / 16)])
    u = np.concatenate([near(f32, np.concatenate([edges, 1 / edges, [1.0, 0.5]]), 24),
                        (edges[:, None] * rng.uniform(0.999, 1.001, (2, 200))).ravel()]).astype(f32)
    u = np.concatenate([u, -u])
    for name in ("atan", "asin", "acos"):
        x = u[np.abs(u) <= 1] if name != "atan" else u
        dist = ulp_distance(run(shim, name, "f32", x), reference(name, "f32", x), "f32")
        assert dist.max() <= 1, f"{name}_f32({x[int(np.argmax(dist))]!r})"
    e = np.arange(-149, 128)
    xs = [np.ldexp(rng.uniform(1, 2, e.size), e),                       # every exponent
          np.full(300, np.finfo(f32).max) * rng.uniform(0.5, 1, 300),   # next to the largest
          rng.integers(1, 64, 300) * float(np.finfo(f32).smallest_subnormal)]
    x = np.concatenate(xs).astype(f32)
    ratio = np.concatenate([np.repeat(edges, x.size // 2 + 1)[: x.size] * rng.uniform(1 - 1e-6, 1 + 1e-6, x.size)])
    y = (x.astype(np.float64) * ratio).astype(f32)
    keep = (y != 0) & np.isfinite(y)
    y, x = y[keep], x[keep]
    y2 = (x.astype(np.float64) * rng.uniform(0.01, 1, x.size)).astype(f32)   # any ratio, swapped
    keep2 = y2 != 0
    ys = np.concatenate([y, x, y2[keep2], -x[keep2]])
    xs = np.concatenate([x, y, -x[keep2], y2[keep2]])
    dist = ulp_distance(run(shim, "atan2", "f32", ys, xs), reference("atan2", "f32", ys, xs), "f32")
    worst = int(np.argmax(dist))
    assert dist[worst] <= 1, f"atan2_f32({ys[worst]!r}, {xs[worst]!r}): {int(dist[worst])} ulp"


def test_float32_float_lanes_where_their_paths_switch(shim):
    """float32 asin and acos (float lanes) change form at |x| = 1/2, where sqrt((1 - |x|)/2)'s
    rounding would be amplified most (it is carried as hi + lo); atan takes t = u below 1/4,
    t = (u - c) / (1 + c u) around the midpoint c of one of 32 intervals of [1/4, 4) (eight a
    binade: a table of atan c) and t = -1/u from 4. Every interval's ends and their neighbours,
    and random points across each, within 1 ulp of the correctly rounded result, and within
    0.75 ulp of the exact value (NumPy's float64 function; over every float32 the largest is
    0.66: here without the hi + lo square root asin reaches 1.03, without atan c's low part
    atan 1.37)."""
    f32 = np.float32
    rng = np.random.default_rng(20261207)
    edges = (0.25 * 2.0 ** np.arange(4)[:, None] * (1 + np.arange(8) / 8)[None, :]).ravel()
    u = np.concatenate([near(f32, np.append(edges, 4.0), 16), rng.uniform(0.2, 5, 3000),
                        np.exp(rng.uniform(np.log(4), np.log(3e38), 500)),
                        np.exp(rng.uniform(np.log(1e-40), np.log(0.25), 500))]).astype(f32)
    a = np.concatenate([near(f32, [0.5, 1.0, 0.25, 2.0 ** -12], 24), rng.uniform(0.5, 0.6, 2000),
                        rng.uniform(0.9, 1, 500), rng.uniform(0, 0.5, 500)]).astype(f32)
    a = a[a <= 1]
    for name, x in (("atan", u), ("asin", a), ("acos", a)):
        x = np.concatenate([x, -x])
        got = run(shim, name, "f32", x)
        dist = ulp_distance(got, reference(name, "f32", x), "f32")
        assert dist.max() <= 1, f"{name}_f32({x[int(np.argmax(dist))]!r})"
        exact = NUMPY_F64[name](x.astype(np.float64))
        err = np.abs(got - exact) / np.spacing(np.abs(exact.astype(f32))).astype(np.float64)
        assert err.max() < 0.75, f"{name}_f32({x[int(np.argmax(err))]!r}): {err.max():.3f} ulp"


def test_float32_atan2_where_its_float_lanes_switch(shim):
    """float32 atan2 (float lanes) takes u = min(|y|, |x|) / max: below 1/4 the quotient with
    its rounding carried, from 1/4 a centre c of u's eighth of its binade (picked by an
    estimate of u), then B + s atan u with B = 0, pi/2 or pi by the signs and |y| > |x|. Ratios
    at every eighth's boundary and at powers of two below 1/4 (there atan u falls a binade
    below u, where the quotient's rounding alone is a whole ulp of the result), |y| = |x| and
    their neighbours in y's bits, with x at exponents across the fast range [2^-60, 2^60] and
    just past it, in all four quadrants: within 1 ulp of the correctly rounded result and within
    0.7 ulp of the exact value (0.60 is the largest measured over 33 million random pairs)."""
    f32 = np.float32
    rng = np.random.default_rng(20261208)
    bounds = np.concatenate([(0.25 * 2.0 ** np.arange(2)[:, None] * (1 + np.arange(8) / 8)[None, :]).ravel(),
                             [1.0], 2.0 ** -np.arange(3, 16)])
    ex = np.concatenate([rng.integers(-60, 60, 40), [-60, 59, 60, -61]])
    x = (rng.uniform(1, 2, (bounds.size, ex.size)) * 2.0 ** ex[None, :]).astype(f32)
    y = (x.astype(np.float64) * bounds[:, None]).astype(f32).ravel()
    y = near(f32, y, 6)
    x = np.tile(x.ravel(), 13)
    y = np.concatenate([y, (x.astype(np.float64) * rng.uniform(0.2, 0.3, x.size)).astype(f32)])
    x = np.concatenate([x, x])
    keep = (y != 0) & np.isfinite(y)
    y, x = y[keep], x[keep]
    ys = np.concatenate([y, x, -y, -x, y, x, -y, -x])
    xs = np.concatenate([x, y, x, y, -x, -y, -x, -y])
    got = run(shim, "atan2", "f32", ys, xs)
    dist = ulp_distance(got, reference("atan2", "f32", ys, xs), "f32")
    worst = int(np.argmax(dist))
    assert dist[worst] <= 1, f"atan2_f32({ys[worst]!r}, {xs[worst]!r}): {int(dist[worst])} ulp"
    exact = np.arctan2(ys.astype(np.float64), xs.astype(np.float64))
    err = np.abs(got - exact) / np.spacing(np.abs(exact.astype(f32))).astype(np.float64)
    worst = int(np.argmax(err))
    assert err[worst] < 0.7, f"atan2_f32({ys[worst]!r}, {xs[worst]!r}): {err[worst]:.3f} ulp"


def test_float32_sin_cos_tan_float_lanes_where_their_paths_switch(shim):
    """float32 sin, cos and tan (float lanes below 2^12) reduce by a float Cody-Waite whose k
    (|x| 2/pi rounded in float) may be one off next to an odd multiple of pi/4 (|r| a little
    past pi/4, where the kernels swap, and tan's -1/tan r is nearest 1) and whose r is smallest
    next to a multiple of pi/2 (tan's largest results); from 2^12 the double path takes over.
    Arguments next to every j pi/4 up to 2^7 and to a random few hundred up to 2^12 (8 floats
    either side), next to 2^12 and 2^20, and random ones below 2^12: within 1 ulp of the
    correctly rounded result and within 0.8 ulp (sin, cos; tan 1.45) of the exact value
    (NumPy's float64 function); the split form's fast path gives the function's bits."""
    f32 = np.float32
    rng = np.random.default_rng(20261209)
    j = np.concatenate([np.arange(1, 163), rng.integers(163, 5216, 300), [5213, 5214, 5215]])
    x = np.concatenate([near(f32, j * (np.pi / 4), 8), near(f32, [4096.0, 2.0 ** 20], 8),
                        rng.uniform(0, 4096, 4000).astype(f32)])
    x = np.concatenate([x, -x])
    for name, bound in (("sin", 0.8), ("cos", 0.8), ("tan", 1.45)):
        got = run(shim, name, "f32", x)
        dist = ulp_distance(got, reference(name, "f32", x), "f32")
        worst = int(np.argmax(dist))
        assert dist[worst] <= 1, f"{name}_f32({x[worst]!r}) = {got[worst]!r}: {int(dist[worst])} ulp"
        exact = NUMPY_F64[name](x.astype(np.float64))
        err = np.abs(got - exact) / np.spacing(np.abs(exact.astype(f32))).astype(np.float64)
        worst = int(np.argmax(err))
        print(f"{name}: {err[worst]:.3f} ulp from the exact value at {x[worst]!r}")
        assert err[worst] < bound, f"{name}_f32({x[worst]!r}): {err[worst]:.3f} ulp"
        common = run(shim, f"{name}_rare", "f32", x) == 0
        assert common.sum() > x.size // 2
        assert got[common].tobytes() == run(shim, f"{name}_fast", "f32", x)[common].tobytes()


def test_float64_tan_where_its_paths_switch(shim):
    """float64 tan (one rational N/D on |r| <= pi/4, -D/N in odd quadrants) is least accurate
    where |r| is largest (x next to odd multiples of pi/4, where the quadrant and so the form
    changes) and its odd quadrants have a pole next to each odd multiple of pi/2: arguments
    next to all of these (and to 0x1.59428p-1, fdlibm's old switch), through Cody-Waite
    (|x| < 2^20) and Payne-Hanek, each within 1 ulp of the correctly rounded result, and the
    split form's fast path with the function's bits."""
    f64 = np.float64
    rng = np.random.default_rng(20261207)
    big = float.fromhex("0x1.59428p-1")
    ks = np.concatenate([np.arange(-40, 41), rng.integers(-600000, 600000, 60)])
    xs = []
    with mp.workprec(400):
        for k in ks.tolist() + rng.integers(2 ** 20, 2 ** 62, 40).tolist():
            centre = mp.mpf(int(k)) * mp.pi / 2
            for off in (big, -big, mp.pi / 4, -mp.pi / 4, 0):
                if k == 0 and off == 0:
                    continue
                xs.append(float(centre + off))
    x = np.array(xs, dtype=f64)
    # neighbours in bits (the reduced argument moves by about an ulp of x each), and nearby
    # values on both sides (r a little above and below the switch)
    x = np.concatenate([near(f64, x, 6), (x[:, None] * (1 + rng.uniform(-1e-9, 1e-9, (x.size, 20)))).ravel()])
    x = np.concatenate([x, -x])
    got = run(shim, "tan", "f64", x)
    dist = ulp_distance(got, reference("tan", "f64", x), "f64")
    worst = int(np.argmax(dist))
    assert dist[worst] <= 1, f"tan_f64({x[worst]!r}) = {got[worst]!r}: {int(dist[worst])} ulp"
    fast = run(shim, "tan_fast", "f64", x)
    common = run(shim, "tan_rare", "f64", x) == 0
    assert common.sum() > x.size // 2
    assert got[common].tobytes() == fast[common].tobytes()


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("name", list(FUNCS))
def test_the_kernels_rows_give_the_functions_own_bits(shim, name, fmt):
    """The ufunc kernels' rows (ufunc.cuh staged_row: a split form's fast() over each chunk,
    float32 atan and atan2 16 lanes at a time on an AVX-512 host, their table read by a
    permutation; the rare lanes redone; a row that ends inside a group of 16, and every third
    element gathered) give the bytes of the function itself, computed one lane at a time by
    the shim (built without AVX-512)."""
    import npu_emu.array_api as xp
    args = [a[:-3] for a in samples(name, fmt)]
    want = run(shim, name, fmt, *args)
    fn = getattr(xp, name)
    got = np.asarray(fn(*(xp.asarray(a) for a in args)))
    assert got.tobytes() == want.tobytes(), np.flatnonzero(got.view(FORMATS[fmt][1]) != want.view(FORMATS[fmt][1]))[:5]
    got = np.asarray(fn(*(xp.asarray(a)[1::3] for a in args)))
    assert got.tobytes() == want[1::3].tobytes()


def test_same_bits_at_another_isa_level(shim, tmp_path):
    """The build for x86-64-v2 (SSE only) gives the default build's bytes on every sample, and
    so does the AVX-512 build where the host has it (the float atan family chooses its
    centres with blends there, with bit masks elsewhere)."""
    others = {"x86-64-v2": build_shim(tmp_path, "x86-64-v2")}
    if "avx512f" in (open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""):
        others["AVX-512"] = build_shim(tmp_path, wide=True)
    for level, other in others.items():
        for fmt in FORMATS:
            for name in FUNCS:
                args = samples(name, fmt)
                a, b = run(shim, name, fmt, *args), run(other, name, fmt, *args)
                assert a.tobytes() == b.tobytes(), f"{name}_{fmt} differs at {level}"


def test_generated_constants_are_fresh():
    """The header's polynomial coefficients and tables are what tools/gen_trig_coeffs.py makes."""
    tool = Path(__file__).resolve().parent.parent / "tools" / "gen_trig_coeffs.py"
    res = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


# ------------------------------------------------------------------------------ GPU compile path

def test_nvrtc_build_has_no_approximate_ftz_fused_or_library_code():
    """The shim under NVRTC with the cuda backend's options: what the GPU would run contains
    no approximate instruction, no flush to zero, no fused multiply-add and no libdevice call,
    so its results are the cpu build's bits (both round every operation as IEEE says)."""
    from npu_emu.runtime import cuda
    try:
        cuda.import_cupy()
        cuda.nvrtc_version()
    except Exception as exc:  # CudaUnavailable, or NVRTC's library missing
        pytest.skip(f"CuPy with NVRTC is not installed ({exc}); pip install -e '.[test]'")
    _, ptx = cuda.compile_source(SHIM.read_text(), "math_shim_trig.cu", 90)
    for fmt in FORMATS:
        for name in FUNCS:
            assert f".entry {name}_{fmt}(" in ptx, f"{name}_{fmt} missing from the PTX"
    assert not re.findall(r"^\s*[a-z][\w.]*\.approx\b.*$", ptx, re.M)
    assert not re.findall(r"^\s*[a-z][\w.]*\.ftz\b.*$", ptx, re.M)
    assert not re.findall(r"^\s*(?:fma|mad)\.[\w.]*\b(?:f32|f64)\b.*$", ptx, re.M)
    assert "__nv_" not in ptx
    assert not re.findall(r"^\s*call\b", ptx, re.M)   # everything inlined: no library routine
    # the only square root is IEEE's correctly rounded one
    assert set(re.findall(r"\bsqrt\.[\w.]+", ptx)) <= {"sqrt.rn.f64", "sqrt.rn.f32"}


@pytest.mark.cuda
def test_gpu_gives_the_cpu_bits(shim):
    """On a GPU: the shim compiled by the cuda backend's NVRTC path and run there gives the cpu
    build's bytes for every function, sample and special value (both dtypes, the float32
    branch-free paths too)."""
    import cupy
    from cupy.cuda import nvrtc
    from npu_emu.runtime import cuda
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    arch, real = cuda.pick_arch(int(props["major"]) * 10 + int(props["minor"]),
                                tuple(nvrtc.getSupportedArchs()))
    image, _ = cuda.compile_source(SHIM.read_text(), "math_shim_trig.cu", arch, real)
    module = cupy.cuda.function.Module()
    module.load(image)
    differ = []
    for fmt in FORMATS:
        dtype = FORMATS[fmt][0]
        names = list(FUNCS) + [f"{n}_fast" for n in SPLIT[fmt]]
        for name in names:
            base_name = name.removesuffix("_fast")
            args = samples(base_name, fmt)
            pairs = [a for f, a, _ in SPECIAL if f == base_name]
            args = tuple(np.concatenate([a, np.array([p[i] for p in pairs], dtype=dtype)])
                         for i, a in enumerate(args))
            if name.endswith("_fast"):
                keep = run(shim, f"{base_name}_rare", fmt, *args) == 0
                args = tuple(a[keep] for a in args)
            want = run(shim, name, fmt, *args)
            dev = [cupy.asarray(a) for a in args]
            out = cupy.empty_like(dev[0])
            module.get_function(f"{name}_{fmt}")((1,), (256,), (*dev, out, np.int64(out.size)))
            got = cupy.asnumpy(out)
            if got.tobytes() != want.tobytes():
                bad = int(np.count_nonzero(got.view(FORMATS[fmt][1]) != want.view(FORMATS[fmt][1])))
                differ.append(f"{name}_{fmt}: {bad} of {got.size} differ")
    assert not differ, "\n".join(differ)
