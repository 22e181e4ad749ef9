"""The split forms that declare `canonical` (kernels_cuda/npu_emu_math_split.cuh): wherever
rare() is false, fast() is either not a NaN or exactly the canonical quiet NaN (float32
0x7FC00000, float64 0x7FF8000000000000). The cpu backend's contiguous rows store such a
form's fast() results without canonicalizing them (ufunc.cuh staged_row), so any other NaN
would leak into the output (the CPU's default NaN is 0xFFC00000, the GPU's 0x7FFFFFFF).

Every split form of both math headers goes through a shim (tests/kernels/math_shim_split.cu)
built with the cpu backend's flags (the default build and, where the host has AVX-512, the
wide one); the checked arguments are NaNs with payloads and either sign, the infinities,
zeros, subnormals, the largest finites, a sweep over the bit patterns, every edge of rare()
found in that sweep (the exact pattern where it flips, bisected, and its neighbours) and
random values; binary forms pair them with each other.
"""
from __future__ import annotations

import ctypes
import subprocess
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from npu_emu.runtime import base, cpu

SHIM = Path(__file__).parent / "kernels" / "math_shim_split.cu"
UNARY = ("exp", "expm1", "log", "log2", "log10", "log1p", "sinh", "cosh", "tanh", "asinh", "acosh",
         "atanh", "sin", "cos", "tan", "asin", "acos", "atan")
BINARY = ("pow", "logaddexp", "atan2")
FORMATS = {"f32": (np.float32, np.uint32, 32), "f64": (np.float64, np.uint64, 64)}
CANON = {"f32": 0x7FC00000, "f64": 0x7FF8000000000000}
# the forms that declare `canonical` (a declaration added or dropped shows here)
DECLARED = {
    "f32": set(UNARY + BINARY),
    "f64": set(UNARY + BINARY),
}


@lru_cache(maxsize=None)
def _shim(out_dir: str, wide: bool) -> ctypes.CDLL:
    out = Path(out_dir) / f"math_shim_split{'_wide' if wide else ''}.so"
    cmd = [cpu._compiler(), *cpu.cxx_flags(None, wide=wide, cxx=cpu._compiler()), f"-I{base.kernels_dir()}", str(SHIM), "-o", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    return ctypes.CDLL(str(out))


def _builds() -> list[bool]:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        flags = ""
    return [False, True] if " avx512f" in flags else [False]


@pytest.fixture(scope="module", params=_builds(), ids=lambda w: "wide" if w else "default")
def shim(request, tmp_path_factory):
    return _shim(str(tmp_path_factory.mktemp("math_split")), request.param)


def call(lib, name: str, fmt: str, *args: np.ndarray) -> np.ndarray:
    dtype = FORMATS[fmt][0]
    arrays = [np.ascontiguousarray(a, dtype=dtype) for a in args]
    out = np.empty_like(arrays[0])
    getattr(lib, f"{name}_{fmt}")(*(a.ctypes.data_as(ctypes.c_void_p) for a in (*arrays, out)), ctypes.c_long(out.size))
    return out


def specials(fmt: str) -> np.ndarray:
    dtype, utype, bits = FORMATS[fmt]
    sign = utype(1) << utype(bits - 1)
    mant = 23 if fmt == "f32" else 52
    exp_all = ((utype(1) << utype(bits - 1 - mant)) - utype(1)) << utype(mant)
    quiet = utype(1) << utype(mant - 1)
    pats = [exp_all | quiet, exp_all | quiet | utype(0x12345), exp_all | utype(1), exp_all | (quiet - utype(1)),
            exp_all | utype(0x5A5A), ~utype(0) >> utype(1),                      # NaNs: quiet, payloads, signalling
            exp_all, utype(0), utype(1), quiet - utype(1), quiet, utype(1) << utype(mant),   # inf, 0, subnormals, min normal
            exp_all - utype(1)]                                                  # largest finite
    pats = np.array(pats, dtype=utype)
    pats = np.concatenate([pats, pats | sign])
    vals = pats.view(dtype)
    extra = np.array([1, 0.5, 2, 0.75, 1.5, 3.0, 10, 88, 87, 89, 700, 708, 709, 710, 40, 17.5, 2**-27, 2**-28, 2**-54,
                      2**12, 2**20, 2**28, 2**40, 2**60, 2**62, 2**-60, 2**-500, 2**500, np.pi / 2, np.pi], dtype=np.float64)
    with np.errstate(over="ignore"):
        extra = extra.astype(dtype)
    return np.concatenate([vals, extra, -extra])


def sweep(fmt: str, rng) -> np.ndarray:
    """Bit patterns spread over the whole format (both signs), sorted by pattern."""
    dtype, utype, bits = FORMATS[fmt]
    step = 1 << (bits - 20)
    pats = np.arange(0, 1 << 20, dtype=np.uint64).astype(utype) * utype(step)
    pats = pats + rng.integers(0, step, size=pats.size, dtype=np.uint64).astype(utype)
    return np.sort(pats).view(dtype)


def rare_edges(lib, name: str, fmt: str, x: np.ndarray, other: np.ndarray | None = None, swap: bool = False):
    """Where rare() flips between neighbours of the sorted sweep x (a binary form: with the
    other operand other[i] fixed per lane, x first or, with swap, second): the exact patterns
    on both sides, bisected, and 4 neighbours each way; with the index of each one's lane."""
    dtype, utype, bits = FORMATS[fmt]

    def rare_of(v, idx):
        args = (v,) if other is None else (other[idx], v) if swap else (v, other[idx])
        return call(lib, f"{name}_rare", fmt, *args) != 0

    r = rare_of(x, np.arange(x.size))
    k = np.nonzero(r[:-1] != r[1:])[0]
    lo, hi = x[k].view(utype).copy(), x[k + 1].view(utype).copy()
    same = (lo >> utype(bits - 1)) == (hi >> utype(bits - 1))
    lo, hi, k = lo[same], hi[same], k[same]
    rlo = r[k]
    while np.any(hi - lo > 1):
        mid = lo + (hi - lo) // utype(2)
        rm = rare_of(mid.view(dtype), k)
        lo = np.where(rm == rlo, mid, lo)
        hi = np.where(rm == rlo, hi, mid)
    near = np.concatenate([lo - utype(d) for d in range(5)] + [hi + utype(d) for d in range(5)])
    return near.view(dtype), np.tile(k, 10)


def check(lib, name: str, fmt: str, *args: np.ndarray) -> None:
    dtype, utype, _ = FORMATS[fmt]
    with np.errstate(all="ignore"):
        fast = call(lib, f"{name}_fast", fmt, *args)
        rare = call(lib, f"{name}_rare", fmt, *args) != 0
    got = fast.view(utype)
    bad = ~rare & np.isnan(fast) & (got != utype(CANON[fmt]))
    if np.any(bad):
        i = np.nonzero(bad)[0][:5]
        shown = ", ".join(f"{tuple(a[j].item() for a in args)} -> {got[j]:#x}" for j in i)
        pytest.fail(f"{name} {fmt}: {int(bad.sum())} non-rare lanes give a NaN other than the canonical one: {shown}")


def test_declarations(shim):
    """Which forms declare `canonical` (DECLARED above)."""
    for fmt in FORMATS:
        got = {n for n in UNARY + BINARY if getattr(shim, f"{n}_canonical_{fmt}")()}
        assert got == DECLARED[fmt], fmt


def declared(names: list[str]) -> list[tuple[str, str]]:
    """(name, format) of each form among `names` that declares canonical (test_declarations
    pins which)."""
    return [(n, fmt) for fmt in FORMATS for n in names if n in DECLARED[fmt]]


@pytest.mark.parametrize("name, fmt", declared(UNARY))
def test_unary_fast_gives_only_the_canonical_nan(shim, name, fmt):
    dtype = FORMATS[fmt][0]
    rng = np.random.default_rng(20261206)
    x = sweep(fmt, rng)
    edges, _ = rare_edges(shim, name, fmt, x)
    rnd = rng.standard_normal(200_000) * np.exp(rng.uniform(-30, 30, 200_000))
    with np.errstate(over="ignore"):
        rnd = rnd.astype(dtype)
    check(shim, name, fmt, np.concatenate([specials(fmt), x, edges, rnd, rng.uniform(-1, 1, 100_000).astype(dtype)]))


@pytest.mark.parametrize("name, fmt", declared(BINARY))
def test_binary_fast_gives_only_the_canonical_nan(shim, name, fmt):
    dtype = FORMATS[fmt][0]
    rng = np.random.default_rng(20261207)
    s = specials(fmt)
    x = sweep(fmt, rng)
    pick = rng.choice(x, 4000)
    a = np.concatenate([np.repeat(s, s.size), np.repeat(s, pick.size), np.tile(pick, s.size)])
    b = np.concatenate([np.tile(s, s.size), np.tile(pick, s.size), np.repeat(s, pick.size)])
    check(shim, name, fmt, a, b)
    check(shim, name, fmt, b, a)
    # each operand swept with the other fixed at a random value per lane, and the edges of
    # rare() along it
    other = rng.permutation(x)
    check(shim, name, fmt, x, other)
    check(shim, name, fmt, other, x)
    e, k = rare_edges(shim, name, fmt, x, other)
    check(shim, name, fmt, e, other[k])
    e, k = rare_edges(shim, name, fmt, x, other, swap=True)
    check(shim, name, fmt, other[k], e)
    rnd = lambda n: (rng.standard_normal(n) * np.exp(rng.uniform(-20, 20, n))).astype(dtype)
    check(shim, name, fmt, rnd(300_000), rnd(300_000))
