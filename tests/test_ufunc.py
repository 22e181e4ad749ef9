"""The elementwise function kernels (npu_emu/kernels/ufunc.py, kernels_cuda/ufunc.cuh): every
function x dtype of the catalog against NumPy 2.4 (bf16: ml_dtypes 0.7, computed in float32
and rounded back), bit for bit with NaN compared as NaN (ours are canonical); special values;
broadcast, strided and negative-stride views; the GPU's launch geometry run on the CPU; the
generated unit sources fresh; the modules built by NVRTC with no flush-to-zero, approximation or
fused multiply-add."""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import ml_dtypes
import mpmath
import numpy as np
import pytest

from npu_emu.dtypes import INFO, aclDataType as DT
from npu_emu.kernels import ufunc as U
from npu_emu.kernels.copy import View
from npu_emu.runtime.base import module_sources

from helpers import pows_reference
from test_gpu_geometry import gpu_shaped  # noqa: F401  (fixture)
from test_kernels_compile import FMA, FTZ, built, needs_nvrtc  # noqa: F401  (fixture)

BF16 = np.dtype(ml_dtypes.bfloat16)
# NumPy names where the array API's differ.
NUMPY_NAMES = {"bitwise_invert": np.invert, "bitwise_left_shift": np.left_shift,
               "bitwise_right_shift": np.right_shift, "true_divide": np.true_divide,
               # CANN's Pows composites (x ** 0.5, -0.5, 3, -2)
               **{name: functools.partial(pows_reference, c) for name, c in (
                   ("pows_sqrt", 0.5), ("pows_rsqrt", -0.5), ("pows_cube", 3),
                   ("pows_inv_square", -2))}}
ZERO_PAIRS = {"maximum", "minimum"}   # our documented rule at (+-0, -+0); NumPy's varies
CASES = [(u.name, dt) for u in U.UFUNCS for dt in sorted(u.dtypes | u.copy)]
# Our math library's functions (within 1 ulp, not NumPy's bits): tested apart.
TRANSCENDENTAL = sorted(u.name for u in U.UFUNCS if u.math)
# Complex abs, sqrt, sign, reciprocal are math too (tests/test_ufunc_complex.py, vs mpmath).
COMPLEX_MATH = {"abs", "sqrt", "sign", "reciprocal"}
EXACT_CASES = [(n, dt) for n, dt in CASES
               if n not in TRANSCENDENTAL and not (n in COMPLEX_MATH and dt in U.COMPLEX)]


# --------------------------------------------------------------------------- values
FLOAT_SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 3.0, -7.0, 7.25, 1e-40, -1e-45,
                  5e-324, 2.2250738585072014e-308, 1e-310, 65504.0, -65504.0, 1e38, 3.4e38, 1e300,
                  np.inf, -np.inf, np.nan, -np.nan, 1 / 3, 2.0 ** 24 + 1, 0.49999997, 4.5, -3.5]


def values(dt: DT, rng: np.random.Generator, n: int = 40) -> np.ndarray:
    """Special values of the dtype plus random ones."""
    host = INFO[dt].host
    if dt in U.FLOATS:
        rand = np.concatenate([rng.normal(size=n) * 10, rng.normal(size=n // 4) * 1e-3])
        with np.errstate(over="ignore"):   # 1e300 and friends become inf in the narrow types
            return np.concatenate([np.array(FLOAT_SPECIALS), rand]).astype(host)
    if dt in U.COMPLEX:
        part = values(DT.ACL_FLOAT if dt == DT.ACL_COMPLEX64 else DT.ACL_DOUBLE, rng, n)
        out = np.empty(part.shape, host)
        out.real, out.imag = part, np.roll(part, 7)   # every special in each part
        return out
    if dt == DT.ACL_BOOL:
        return np.array([False, True])
    info = np.iinfo(host)
    special = {0, 1, 2, 3, 7, 8, 9, 15, 16, 31, 32, 63, 64, 100, info.min, info.min + 1, info.max,
               info.max - 1, -1, -2, -3, -8, -100}
    special = sorted(v for v in special if info.min <= v <= info.max)
    return np.concatenate([np.array(special, dtype=host),
                           rng.integers(info.min, info.max, n, dtype=host, endpoint=True)])


def comparable(x: np.ndarray) -> np.ndarray:
    """Raw bits, every NaN (any payload, any sign) as one value; complex part by part."""
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return np.stack([comparable(x.real), comparable(x.imag)])
    if x.dtype.kind == "f" or x.dtype == BF16:
        bits = x.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[x.itemsize]).copy()
        bits[np.isnan(x.astype(np.float64))] = 1   # no float's bits are 1 and NaN at once
        return bits
    return x


def assert_same(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype)
    g, w = comparable(got), comparable(want)
    bad = np.argwhere(g != w)
    if bad.size:
        at = tuple(bad[0][-got.ndim:]) if got.ndim else ()   # complex: drop the part axis
        raise AssertionError(f"{what}: {len(bad)} differ, first at {at}: got {got[at]!r}, "
                             f"want {want[at]!r}")


# ----------------------------------------------------------------------- reference
def textbook_square(x):
    out = np.empty_like(x)
    out.real = x.real * x.real - x.imag * x.imag
    out.imag = x.real * x.imag + x.imag * x.real
    return out


def textbook_multiply(x, y):
    x, y = np.broadcast_arrays(x, y)
    out = np.empty(x.shape, x.dtype)
    out.real = x.real * y.real - x.imag * y.imag
    out.imag = x.real * y.imag + x.imag * y.real
    return out


def reference(name: str, dt: DT, *args: np.ndarray) -> np.ndarray:
    """NumPy's result (bf16: float32 NumPy rounded to bf16 by ml_dtypes), with the rules we
    document where we differ from it."""
    fn = NUMPY_NAMES.get(name) or getattr(np, name)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if name == "square" and dt in U.COMPLEX:
            return textbook_square(args[0])   # NumPy's own loop may fuse; ours does not
        if name == "multiply" and dt in U.COMPLEX:   # (and aclnnMul's, elementwise.cuh)
            return textbook_multiply(*args)           # the same: NumPy's may fuse
        if name == "nextafter":
            want = fn(*args)   # ml_dtypes steps bf16 itself; NumPy float16 below
            if dt == DT.ACL_FLOAT16:   # IEEE / C: nextafter(x, y) == y when x == y (+0 vs -0
                a, b = np.broadcast_arrays(*args)   # included); NumPy's float16 returns x there
                want = np.where(a == b, b, want)
            return want
        if dt == DT.ACL_BF16:
            want = fn(*(a.astype(np.float32) for a in args))
            want = want.astype(BF16) if want.dtype == np.float32 else want
        else:
            want = fn(*args)
        if name == "floor_divide" and dt in U.FLOATS:   # our rule: floor(x1 / x2) there
            a, b = (x.astype(np.float64) for x in np.broadcast_arrays(*args))
            rule = np.floor(a / b).astype(want.dtype)
            want = np.where((np.isinf(a) | np.isinf(b)) & (b != 0), rule, want)
        if name in ZERO_PAIRS and dt in U.FLOATS:
            a, b = np.broadcast_arrays(*args)
            zeros = (a == 0) & (b == 0)
            neg = np.signbit(a) & np.signbit(b) if name == "maximum" else np.signbit(a) | np.signbit(b)
            want = np.where(zeros, np.where(neg, -0.0, 0.0).astype(want.dtype), want)
        return np.asarray(want)


# -------------------------------------------------------------------------- each pair
@pytest.mark.parametrize("name,dt", EXACT_CASES, ids=[f"{n}-{INFO[d].short}" for n, d in EXACT_CASES])
def test_function_matches_numpy(name, dt):
    rng = np.random.default_rng(hash(name) % 1000 + int(dt))
    v = values(dt, rng)
    args = (v,) if U.lookup(name).arity == 1 else (v[:, None], v[None, :])   # every pair
    got = U.apply_numpy(name, *args)
    want = reference(name, dt, *args)
    assert_same(got, want.astype(got.dtype) if want.dtype != got.dtype and dt == DT.ACL_BF16 else want,
                f"{name}({INFO[dt].short})")
    assert got.dtype == INFO[U.result_dtype(name, dt)].host


# ------------------------------------------------------------- the transcendentals
def ordered(x: np.ndarray) -> np.ndarray:
    """Float bits as integers in the order of the values (-0 next to +0), for ulp distances."""
    bits = x.view({4: np.int32, 8: np.int64}[x.itemsize]).astype(np.int64)
    top = np.int64(0x7FFFFFFF if x.itemsize == 4 else 0x7FFFFFFFFFFFFFFF)
    return np.where(bits < 0, -(bits & top), bits)


def transcendental_args(name: str, host) -> tuple[np.ndarray, ...]:
    """The special values and a seeded sample (wide and near 1), every pair for a binary."""
    rng = np.random.default_rng(20261201)
    sample = np.concatenate([rng.normal(size=300) * 3, rng.uniform(-1, 1, 200),
                             rng.normal(size=100) * 200, np.exp(rng.uniform(-80, 80, 100))])
    with np.errstate(over="ignore"):
        v = np.concatenate([np.array(FLOAT_SPECIALS), sample]).astype(host)
    if U.lookup(name).arity == 1:
        return (v,)
    w = v[:: 7]
    return (v[:, None], w[None, :])


MPMATH = {"exp": mpmath.exp, "expm1": mpmath.expm1, "log": mpmath.log, "log1p": mpmath.log1p,
          "log2": lambda x: mpmath.log(x, 2), "log10": mpmath.log10, "sinh": mpmath.sinh,
          "cosh": mpmath.cosh, "tanh": mpmath.tanh, "asinh": mpmath.asinh,
          "acosh": mpmath.acosh, "atanh": mpmath.atanh, "sin": mpmath.sin, "cos": mpmath.cos,
          "tan": mpmath.tan, "asin": mpmath.asin, "acos": mpmath.acos, "atan": mpmath.atan,
          "pow": mpmath.power, "atan2": mpmath.atan2, "hypot": mpmath.hypot,
          "logaddexp": lambda x, y: mpmath.log(mpmath.exp(x) + mpmath.exp(y))}


ULP_CASES = [pytest.param(n, h, id=f"{n}-{h.__name__}") for n in TRANSCENDENTAL for h in (np.float32, np.float64)]


@pytest.mark.parametrize("name,host", ULP_CASES)
def test_transcendental_within_one_ulp(name, host):
    """float32: within 1 ulp of NumPy 2's float64 result rounded to float32 (our library is
    within 1 ulp of the correctly rounded value); float64: within 2 ulp of NumPy 2 (glibc's
    libm, itself within about 1 ulp), else within 1 ulp of mpmath 1.3's. NaN exactly where
    NumPy gives NaN, as the canonical NaN."""
    fn = {"pow": np.power, "atan2": np.arctan2, "asin": np.arcsin, "acos": np.arccos,
          "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
          "atanh": np.arctanh}.get(name) or getattr(np, name)
    limit = 1 if host == np.float32 else 2
    args = transcendental_args(name, host)
    got = U.apply_numpy(name, *args)
    with np.errstate(all="ignore"):
        want = fn(*(a.astype(np.float64) for a in args)).astype(host)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), f"{name}({host.__name__}): NaN where NumPy has none"
    assert np.all(got[np.isnan(got)].view(f"u{got.itemsize}") ==
                  (0x7FC00000 if host == np.float32 else 0x7FF8000000000000))
    dist = np.where(nan, 0, np.abs(ordered(got) - ordered(want)))
    # Where NumPy is further off (its float64 logaddexp cancels near 0), mpmath decides.
    for k in np.flatnonzero(dist.ravel() > limit):
        point = [float(a.ravel()[k]) for a in np.broadcast_arrays(*args)]
        with mpmath.workdps(60):
            exact = host(float(MPMATH[name](*(mpmath.mpf(p) for p in point))))
        off = abs(int(ordered(np.array([got.ravel()[k]]))[0]) - int(ordered(np.array([exact]))[0]))
        assert off <= 1, f"{name}({host.__name__}) at {point}: {got.ravel()[k]!r}, mpmath {exact!r}"


def split_path_args(name: str, host) -> tuple[np.ndarray, ...]:
    """The specials and a wide sample (the rare lanes of a split function among ordinary
    ones, in chunks of either kind), flat, every binary pair."""
    args = transcendental_args(name, host)
    return tuple(np.ascontiguousarray(a).ravel() for a in np.broadcast_arrays(*args)) if len(args) > 1 \
        else args


@pytest.mark.parametrize("host", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("name", TRANSCENDENTAL)
def test_split_fast_path_gives_the_bits_of_the_full_function(name, host):
    """The CPU's rows with a contiguous output take a function's split form (fast() over a
    chunk, on AVX-512 hosts 8 or 16 lanes at a time where the form offers it, the rare lanes
    again through the full function; strided operands gathered first); a strided output and
    the GPU call the full function on every element. All must give the same bits: a
    contiguous row against the same values read at stride 2 and against an output written at
    stride 2 (and the second operand as a broadcast scalar for binaries)."""
    with np.errstate(over="ignore"):
        args = split_path_args(name, host)
    contiguous = U.apply_numpy(name, *args)
    strided = U.apply_numpy(name, *(np.repeat(a, 2)[::2] for a in args))
    assert_same(contiguous, strided, f"{name}({host.__name__}) split path")
    assert_same(contiguous, U.apply_numpy(name, *args, out_step=2),
                f"{name}({host.__name__}) split path against the full function")
    if len(args) == 2:   # array (op) scalar rows: the scalar read at stride 0
        bits = np.dtype(f"u{args[1].dtype.itemsize}")
        for b in np.unique(args[1].view(bits)).view(host):   # each distinct second operand
            # (by its bits: -0.0 and 0.0, NaNs of either sign, apart), once
            one = np.full(1, b, host)
            assert_same(U.apply_numpy(name, args[0], one),
                        U.apply_numpy(name, np.repeat(args[0], 2)[::2], np.repeat(one, 2)[::2]),
                        f"{name}({host.__name__}) with scalar {b!r}")



def floored(a: int, b: int, bits: int, signed: bool) -> tuple[int, int]:
    """Python's floor division and remainder with the catalog's rules: x // 0 == x % 0 == 0,
    the quotient wrapped to the type (MIN // -1 == MIN)."""
    if b == 0:
        return 0, 0
    q, r = a // b, a % b
    q %= 2**bits
    if signed and q >= 2**(bits - 1):
        q -= 2**bits
    return q, r


@pytest.mark.parametrize("host", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                  np.uint32, np.uint64])
def test_integer_floor_divide_and_remainder_split_rows(host):
    """Integer // and % on the CPU's contiguous rows take the split form (the quotient from a
    float division, exact below 2^53, or 2^24 for 8- and 16-bit types; 64-bit operands
    beyond that redone by the full function); strided rows call the full function (idiv).
    Both against Python's integers with the rules, over every pair of the edges (the
    extremes, 0, +-1, +-2^53 and its neighbours) and random operands of every size, with
    scalar divisors too."""
    info = np.iinfo(host)
    bits, signed = info.bits, info.min < 0
    edges = {info.min, info.min + 1, info.max, info.max - 1, 0, 1, 2, 3, 7, 100}
    if signed:
        edges |= {-1, -2, -3, -7, -100}
    if bits == 64:
        edges |= {s * (2**53 + d) for s in ((1, -1) if signed else (1,)) for d in (-1, 0, 1)}
    edges = np.array(sorted(edges), dtype=object)
    rng = np.random.default_rng(bits + signed)
    wide = rng.integers(info.min, info.max, 3000, dtype=host, endpoint=True)
    small = rng.integers(max(info.min, -1000), min(info.max, 1000), 3000).astype(host)
    a = np.concatenate([np.repeat(edges, len(edges)).astype(host), wide, small, wide])
    b = np.concatenate([np.tile(edges, len(edges)).astype(host), small, wide, wide[::-1]])
    for name, part in (("floor_divide", 0), ("remainder", 1)):
        contiguous = U.apply_numpy(name, a, b)
        assert_same(contiguous, U.apply_numpy(name, np.repeat(a, 2)[::2], np.repeat(b, 2)[::2]),
                    f"{name}({host.__name__}) split path")
        want = np.array([floored(int(x), int(y), bits, signed)[part] for x, y in zip(a, b)],
                        dtype=object).astype(host)
        assert_same(contiguous, want, f"{name}({host.__name__})")
        for d in edges[:: max(1, len(edges) // 6)].astype(host):   # array (op) scalar rows
            got = U.apply_numpy(name, a, np.full(1, d, host))
            want = np.array([floored(int(x), int(d), bits, signed)[part] for x in a],
                            dtype=object).astype(host)
            assert_same(got, want, f"{name}({host.__name__}) by {d}")


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_float32_sin_cos_second_tier_gives_the_bits_of_the_full_function(name):
    """float32 sin and cos: fast() below 2^12 (float lanes), the second tier wide() from 2^12
    to 2^20 (double lanes, vectorized over a chunk with rare lanes), one by one beyond. Chunks
    of one tier, of two and of all three, against the same values at stride 2 (the full
    function on every element), and within 1 ulp of NumPy's float64 result rounded."""
    rng = np.random.default_rng(12)
    low = rng.uniform(-4000, 4000, 700)
    mid = rng.uniform(4096, 2**20, 700) * rng.choice([-1, 1], 700)
    high = rng.uniform(2**20, 2**30, 50)
    x = np.concatenate([low[:256], mid[:256], np.stack([low[256:], mid[256:], low[256:]]).T.ravel(),
                        np.stack([mid[:50], high, low[:50]]).T.ravel(),
                        [4096.0, -4096.0, np.nextafter(np.float32(4096), 0), 2.0**20, -(2.0**20)]])
    x = x.astype(np.float32)
    contiguous = U.apply_numpy(name, x)
    assert_same(contiguous, U.apply_numpy(name, np.repeat(x, 2)[::2]), f"{name} tiers")
    want = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    off = np.abs(contiguous.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64))
    assert off.max() <= 1


def in_place(name: str, args: tuple[np.ndarray, ...], at: int) -> np.ndarray:
    """name(*args) computed by one launch whose output is the view of input `at` itself."""
    be = U.get_backend("cpu")
    dt = INFO_BY_HOST[args[0].dtype]
    ptrs = [be.malloc(a.nbytes) for a in args]
    try:
        views = []
        for ptr, a in zip(ptrs, args):
            be.copy_from_host(ptr, a)
            views.append(View(ptr, a.shape, (1,), a.itemsize))
        be.enqueue(U.plan(be, name, views[at], views, dt), be.default_stream)
        be.default_stream.synchronize()
        out = np.empty_like(args[at])
        be.copy_to_host(out, ptrs[at])
    finally:
        for ptr in ptrs:
            be.free(ptr)
    return out


INFO_BY_HOST = {np.dtype(np.float32): DT.ACL_FLOAT, np.dtype(np.float64): DT.ACL_DOUBLE}


@pytest.mark.parametrize("host", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["expm1", "tanh", "asin", "logaddexp", "atan2", "pow"])
def test_split_rows_in_place_give_the_bits_of_separate_rows(name, host):
    """A split function's row whose output is an input's own memory goes through the L1
    buffers (its rare lanes need their operands after fast() wrote the chunk); a row into
    separate memory reads and writes directly. The bits are the same."""
    with np.errstate(over="ignore"):
        args = split_path_args(name, host)
    want = U.apply_numpy(name, *args)
    for at in range(len(args)):
        assert_same(in_place(name, args, at), want, f"{name}({host.__name__}) into input {at}")


@pytest.mark.parametrize("name,host", [("tanh", np.float32), ("log1p", np.float32),
                                       ("atan2", np.float64)])
def test_outputs_past_64_mib_stream_with_the_same_bits(name, host):
    """A launch whose output reaches 64 MiB writes its rows with non-temporal stores, 2 KiB
    at a time through an L1 buffer: the same bytes as the same function on pieces of 1M
    elements, which are stored plainly."""
    n = (64 << 20) // np.dtype(host).itemsize + 37          # past the threshold, and a tail
    rng = np.random.default_rng(64)
    args = [np.abs(rng.standard_normal(n)).astype(host) * 4 for _ in range(U.lookup(name).arity)]
    whole = U.apply_numpy(name, *args)
    step = 1 << 20
    parts = np.concatenate([U.apply_numpy(name, *(a[i:i + step] for a in args))
                            for i in range(0, n, step)])
    assert whole.tobytes() == parts.tobytes()


F16_FUNCTIONS = sorted(u.name for u in U.UFUNCS if DT.ACL_FLOAT16 in u.dtypes)


@pytest.mark.parametrize("name", F16_FUNCTIONS)
def test_float16_rows_staged_through_f16c_give_the_bits_of_the_rule(name):
    """float16 contiguous rows go through the F16C conversions on x86 hosts that have them
    (ufunc.cuh staged_row); strided rows convert one value at a time by the rule. Every fp16
    code (paired with a shuffled partner for binaries, and with a broadcast scalar) must give
    the same bits both ways."""
    codes = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    args = (codes,) if U.lookup(name).arity == 1 else \
        (codes, np.random.default_rng(16).permutation(codes))
    with np.errstate(all="ignore"):
        contiguous = U.apply_numpy(name, *args)
        strided = U.apply_numpy(name, *(np.repeat(a, 2)[::2] for a in args))
    assert_same(contiguous, strided, f"{name}(float16) staged row")
    if len(args) == 2:
        one = np.full(1, np.float16(1.5))
        assert_same(U.apply_numpy(name, codes, one),
                    U.apply_numpy(name, np.repeat(codes, 2)[::2], np.repeat(one, 2)[::2]),
                    f"{name}(float16) with a scalar")


@pytest.mark.parametrize("name", TRANSCENDENTAL)
def test_narrow_floats_are_the_float32_result_rounded_once(name):
    """float16 / bfloat16: the float32 kernel's result on the widened input, rounded to the
    type (ties to even: NumPy 2's float16 cast, ml_dtypes' bfloat16 cast)."""
    for host in (np.float16, BF16):
        with np.errstate(over="ignore"):   # the large samples become inf in float16
            args = tuple(a.astype(host) for a in transcendental_args(name, np.float32))
        got = U.apply_numpy(name, *args)
        with np.errstate(all="ignore"):
            want = U.apply_numpy(name, *(a.astype(np.float32) for a in args)).astype(host)
        assert_same(got, want, f"{name}({host})")


# ------------------------------------------------------------------- special values
def test_integer_division_rules():
    """Documented where NumPy warns: x // 0 == x % 0 == 0, MIN // -1 == MIN, MIN % -1 == 0."""
    for host in (np.int8, np.int16, np.int32, np.int64):
        lo = np.iinfo(host).min
        a = np.array([7, -7, lo, lo, 5, 0], host)
        b = np.array([0, 0, -1, 0, -1, 0], host)
        np.testing.assert_array_equal(U.apply_numpy("floor_divide", a, b), np.array([0, 0, lo, 0, -5, 0], host))
        np.testing.assert_array_equal(U.apply_numpy("remainder", a, b), np.zeros(6, host))
    a, b = np.array([-7, 7, -7, 7], np.int32), np.array([2, -2, -2, 2], np.int32)
    np.testing.assert_array_equal(U.apply_numpy("floor_divide", a, b), [-4, -4, 3, 3])   # Python's
    np.testing.assert_array_equal(U.apply_numpy("remainder", a, b), [1, -1, -1, 1])


def test_float_special_cases_of_the_standard():
    f = np.float64
    inf, nan = np.inf, np.nan
    cases = {   # (inputs) -> result, from the array API standard's special cases
        "floor_divide": [((5.0, 0.0), inf), ((-5.0, 0.0), -inf), ((0.0, 0.0), nan), ((-0.0, 1.0), -0.0),
                         ((inf, 2.0), inf), ((-1.0, inf), -0.0), ((1.0, -inf), -0.0), ((inf, inf), nan)],
        "remainder": [((5.0, inf), 5.0), ((-5.0, inf), inf), ((inf, 2.0), nan), ((-1.0, 3.0), 2.0),
                      ((1.0, -3.0), -2.0), ((0.0, -3.0), -0.0)],
        "divide": [((1.0, -0.0), -inf), ((0.0, 0.0), nan)],
        "round": [((0.5,), 0.0), ((1.5,), 2.0), ((2.5,), 2.0), ((-0.5,), -0.0), ((-2.5,), -2.0)],
        "sign": [((-0.0,), 0.0), ((nan,), nan), ((-inf,), -1.0)],
        "nextafter": [((0.0, -1.0), -5e-324), ((1.0, 1.0), 1.0), ((-0.0, 0.0), 0.0), ((inf, 0.0), 1.7976931348623157e308)],
        "maximum": [((nan, 1.0), nan), ((1.0, nan), nan), ((-0.0, 0.0), 0.0), ((0.0, -0.0), 0.0)],
        "minimum": [((-0.0, 0.0), -0.0), ((0.0, -0.0), -0.0)],
        "sqrt": [((-0.0,), -0.0), ((-1.0,), nan), ((inf,), inf)],
        "copysign": [((1.0, -0.0), -1.0), ((nan, -1.0), nan)],
    }
    for name, rows in cases.items():
        for ins, want in rows:
            got = U.apply_numpy(name, *(np.array([x], f) for x in ins))
            assert_same(got, np.array([want], f), f"{name}{ins}")


def test_nan_results_are_canonical():
    """Any NaN in, the positive quiet NaN of the type out, whatever the payload and sign."""
    for host, bits, canon in ((np.float32, np.uint32, 0x7FC00000), (np.float64, np.uint64, 0x7FF8000000000000),
                              (np.float16, np.uint16, 0x7E00), (BF16, np.uint16, 0x7FC0)):
        width = np.dtype(bits).itemsize * 8
        sign = 1 << (width - 1)
        quiet = {16: 0x7E01 if host == np.float16 else 0x7FC1, 32: 0x7FC00123, 64: 0x7FF8000000000123}[width]
        x = np.array([quiet, quiet | sign], bits).view(host)
        for name in ("negative", "abs", "floor", "sqrt", "square"):
            assert (U.apply_numpy(name, x).view(bits) == canon).all(), (name, host)
        for name in ("subtract", "maximum", "copysign", "remainder", "nextafter"):
            assert (U.apply_numpy(name, x, x[::-1].copy()).view(bits) == canon).all(), (name, host)


def test_subnormals_are_kept():
    tiny = np.array([1e-45, -1e-45, 1.1754942e-38], np.float32)
    assert_same(U.apply_numpy("subtract", tiny, np.zeros(3, np.float32)), tiny, "f32 subnormal")
    assert_same(U.apply_numpy("square", np.array([1e-23], np.float32)), np.array([1e-46], np.float32), "underflow")
    assert U.apply_numpy("sqrt", np.array([1e-45], np.float32))[0] == np.sqrt(np.float32(1e-45))
    f16 = np.array([2.0 ** -24, -(2.0 ** -20)], np.float16)
    assert_same(U.apply_numpy("negative", f16), -f16, "f16 subnormal")


def test_shifts_past_the_width():
    for host in (np.int8, np.uint16, np.int32, np.uint64, np.int64):
        bits = np.dtype(host).itemsize * 8
        a = np.array([1, 3, 5, 1], host)
        b = np.array([bits - 1, bits, bits + 1, 0], host)
        np.testing.assert_array_equal(U.apply_numpy("bitwise_left_shift", a, b), np.left_shift(a, b))
        np.testing.assert_array_equal(U.apply_numpy("bitwise_right_shift", a, b), np.right_shift(a, b))
    neg = np.array([-4, -4, -4], np.int16)
    np.testing.assert_array_equal(U.apply_numpy("bitwise_right_shift", neg, np.array([1, 16, -1], np.int16)),
                                  [-2, -1, -1])
    np.testing.assert_array_equal(U.apply_numpy("bitwise_left_shift", neg, np.array([1, 16, -1], np.int16)),
                                  [-8, 0, 0])


# ----------------------------------------------------------------- views, broadcast
def view_cases():
    base = np.arange(2 * 6 * 10, dtype=np.float64).reshape(2, 6, 10) - 57.5
    return [
        ("transposed", base.transpose(2, 0, 1), base[:, :, :1].transpose(2, 0, 1)),
        ("negative strides", base[::-1, ::-2, ::-3], base[0, ::-2, ::-3]),
        ("strided both", base[:, 1::2, ::2], base[:, ::2, 1::2]),
        ("0-d with array", base[1, 2, 3][()] * np.ones(()), base[1]),
        ("broadcast row", base[:, :1, :], base[:1, :, ::-1]),
    ]


@pytest.mark.parametrize("case", view_cases(), ids=lambda c: c[0])
@pytest.mark.parametrize("name", ["subtract", "maximum", "less", "remainder"])
def test_broadcast_and_strided_views(case, name):
    _, a, b = case
    for dtype in (np.float64, np.int16, np.float16):
        x, y = a.astype(dtype), b.astype(dtype)
        if x.ndim and y.ndim:   # astype copies: rebuild the views in the new dtype
            x, y = _restride(a, dtype), _restride(b, dtype)
        dt = {np.float64: DT.ACL_DOUBLE, np.int16: DT.ACL_INT16, np.float16: DT.ACL_FLOAT16}[dtype]
        assert_same(U.apply_numpy(name, x, y), reference(name, dt, x, y), f"{name} {dtype}")


def _restride(view: np.ndarray, dtype) -> np.ndarray:
    """`view`'s pattern (same offsets and strides in elements) over a base of `dtype`."""
    base = view.base if view.base is not None else view
    while base.base is not None:
        base = base.base
    new_base = base.astype(dtype)
    lo = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return np.lib.stride_tricks.as_strided(
        new_base.reshape(-1)[lo // view.itemsize:], view.shape,
        tuple(s // view.itemsize * new_base.itemsize for s in view.strides))


def test_unary_on_views_and_in_place():
    x = (np.arange(60, dtype=np.float32) - 30.25).reshape(6, 10)
    for view in (x[::-1, ::3], x.T, x[2:3, ::-1]):
        assert_same(U.apply_numpy("floor", view), np.floor(view), "floor view")
        assert_same(U.apply_numpy("isfinite", view), np.isfinite(view), "isfinite view")
    be = U.get_backend("cpu")
    ptr = be.malloc(x.nbytes)
    try:
        be.copy_from_host(ptr, x)
        v = View(ptr, x.shape, (10, 1), 4)
        launches = U.plan(be, "negative", v, [v], DT.ACL_FLOAT)   # out is the input's view
        be.enqueue(launches, be.default_stream)
        be.default_stream.synchronize()
        out = np.empty_like(x)
        be.copy_to_host(out, ptr)
    finally:
        be.free(ptr)
    assert_same(out, -x, "in place")


def test_copies_keep_every_bit():
    x = np.array([0x7FC00123, 0xFFC00001, 0x3F800000], np.uint32).view(np.float32)
    for name in ("positive", "real", "conj"):
        assert (U.apply_numpy(name, x).view(np.uint32) == x.view(np.uint32)).all()
    ints = np.array([-3, 7, np.iinfo(np.int64).min], np.int64)
    for name in ("floor", "round", "positive"):
        np.testing.assert_array_equal(U.apply_numpy(name, ints), ints)
    np.testing.assert_array_equal(U.apply_numpy("abs", np.array([250], np.uint8)), [250])


def test_plans_pick_the_64_bit_body_for_negative_strides(cpu_backend):
    v = View(1 << 20, (4, 8), (-8, 1), 4)
    (launch,) = U.plan(cpu_backend, "subtract", v, [v, v], DT.ACL_FLOAT)
    assert launch.args[0]["flags"] == U.WIDE_INDEX
    (launch,) = U.plan(cpu_backend, "subtract", View(1 << 20, (4, 8), (8, 1), 4), [v, v], DT.ACL_FLOAT)
    assert launch.args[0]["flags"] == U.WIDE_INDEX                    # an input's strides count
    w = View(1 << 20, (4, 8), (8, 1), 4)
    (launch,) = U.plan(cpu_backend, "less", View(1 << 22, (4, 8), (8, 1), 1), [w, w], DT.ACL_FLOAT)
    assert launch.args[0]["flags"] == 0 and launch.kernel.name == U.kernel_name("less", "f32")


def test_identity_entries_copy_views_with_negative_strides(cpu_backend):
    # abs of an unsigned integer, positive, floor/ceil/trunc/round of an integer, conj and
    # real of a real number are planned as copies (strided_copy.cu). A view with negative
    # strides used to take the copy's 32-bit body, whose unsigned offsets then pointed 4 GiB
    # past the view (a crash, found by a random test of the array API: abs(x[:, ::-1]) of
    # uint8). Every width, reversed in each way, gives the input's bits.
    base = np.arange(5 * 7 * 9).reshape(5, 7, 9)
    views = [lambda a: a[::-1], lambda a: a[:, :, ::-1], lambda a: a[::-2, 1:, ::-3],
             lambda a: a[1, ::-1].T, lambda a: a[::-1, ::-1, ::-1].transpose(2, 0, 1)]
    cases = [("abs", t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)] + \
        [("positive", np.int8), ("floor", np.int16), ("round", np.int64), ("conj", np.float64),
         ("real", np.float32), ("trunc", np.uint8)]
    for name, t in cases:
        with np.errstate(over="ignore"):
            a = base.astype(t)
        for make in views:
            v = make(a)
            np.testing.assert_array_equal(U.apply_numpy(name, v).view(np.uint8),
                                          np.ascontiguousarray(v).view(np.uint8), err_msg=name)
    # the plan: the copy's 64-bit body for a negative stride, the 32-bit one otherwise
    src = View(1 << 20, (4, 8), (8, -1), 1)
    (launch,) = U.plan(cpu_backend, "abs", View(1 << 22, (4, 8), (8, 1), 1), [src], DT.ACL_UINT8)
    assert launch.kernel.name.endswith("_i64")
    (launch,) = U.plan(cpu_backend, "abs", View(1 << 22, (4, 8), (8, 1), 1),
                       [View(1 << 20, (4, 8), (8, 1), 1)], DT.ACL_UINT8)
    assert launch.kernel.name.endswith("_i32")


# -------------------------------------------------------------------------- bad input
def test_bad_input_is_refused_with_the_rule():
    with pytest.raises(ValueError, match="name='exp2' is not an elementwise function"):
        U.apply_numpy("exp2", np.ones(2))
    with pytest.raises(TypeError, match="sqrt is not defined for s32"):
        U.apply_numpy("sqrt", np.ones(2, np.int32))
    with pytest.raises(TypeError, match="must share one dtype"):
        U.apply_numpy("subtract", np.ones(2, np.float32), np.ones(2))
    with pytest.raises(ValueError, match="subtract takes 2 arrays, got 1"):
        U.apply_numpy("subtract", np.ones(2))
    with pytest.raises(ValueError, match="out has 4-byte elements; bool has 1"):
        U.plan(U.get_backend("cpu"), "less", View(0, (2,), (1,), 4), [View(0, (2,), (1,), 4)] * 2, DT.ACL_FLOAT)


def test_plan_refuses_inputs_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"ins\[1\] of shape \[3\] does not broadcast to out's shape \[2, 4\]"):
        U.plan(U.get_backend("cpu"), "subtract", View(0, (2, 4), (4, 1), 4),
               [View(0, (4,), (1,), 4), View(0, (3,), (1,), 4)], DT.ACL_FLOAT)


def test_empty_inputs():
    assert U.apply_numpy("subtract", np.ones((0, 3)), np.ones(3)).shape == (0, 3)


# ------------------------------------------------------------------- GPU geometry
@pytest.mark.parametrize("name,dt", [("subtract", DT.ACL_FLOAT), ("less", DT.ACL_DOUBLE),
                                     ("floor_divide", DT.ACL_INT8), ("square", DT.ACL_COMPLEX128),
                                     ("sqrt", DT.ACL_BF16), ("isnan", DT.ACL_FLOAT16),
                                     ("real", DT.ACL_COMPLEX64), ("equal", DT.ACL_INT64)])
def test_gpu_geometry(gpu_shaped, name, dt):
    """The cuda backend's grid (one vector or one element per thread), run by the cpu
    backend: contiguous rows take vectors, misaligned and strided ones single elements."""
    rng = np.random.default_rng(int(dt))
    u = U.lookup(name)
    base = np.resize(values(dt, rng, 300), 7 * 48 + 1)
    x = base[:7 * 48].reshape(7, 48)
    for view in (x, base[1:].reshape(7, 48), x[:, ::-2]):
        args = (view,) if u.arity == 1 else (view, view[0, ::-1].copy())
        gpu_shaped.runs.clear()
        got = U.apply_numpy(name, *args)
        assert_same(got, reference(name, dt, *args), f"{name} gpu geometry")
        assert gpu_shaped.runs
    gpu_shaped.runs.clear()
    U.apply_numpy(name, *((x,) if u.arity == 1 else (x, x)))
    assert gpu_shaped.runs[-1] == 16 // max(INFO[dt].itemsize, INFO[u.result_dtype(dt)].itemsize)


# --------------------------------------------------------------------- the catalog
def test_catalog_names_every_kernel_once_and_the_modules_export_them(cpu_backend):
    lines = catalog_lines()
    names = [n for _, n, _ in lines]
    assert len(names) == len(set(names))
    for u in U.UFUNCS:
        for dt in u.dtypes:
            assert (u.unit(dt), U.kernel_name(u.name, u.kernel_tag(dt)), u.functor) in lines
    for unit, name, _ in lines[::17]:   # a sample: the kernel is in the module the plan asks
        assert cpu_backend.function(U.MODULES[unit], name).name == name


def catalog_lines() -> list[tuple[str, str, str]]:
    """(unit, kernel name, functor) of each kernel line of the generated unit sources."""
    return [(unit, name, functor) for unit in U.MODULES for name, functor in
            re.findall(r"^NPU_EMU_UFUNC[12]_KERNEL\((\w+), (\w+),", U.unit_source(unit), re.M)]


def test_units_split_by_function_family_and_dtype_group_and_read_only_their_math_header():
    """The cold-start rule: a call builds the unit of its function's family (arity, math
    header) and dtype group only, and a unit compiles no math header its functions do not call
    (the basic units none, except complex abs / sign / sqrt and integer pow, which read the
    complex header)."""
    f32, f16, s64, c64 = DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_INT64, DT.ACL_COMPLEX64
    assert [U.lookup(n).module(dt) for n, dt in (
        ("sqrt", f32), ("add", s64), ("subtract", c64), ("exp", f16), ("sin", f32),
        ("pow", DT.ACL_DOUBLE), ("hypot", DT.ACL_BF16), ("less", DT.ACL_UINT16),
        ("logical_and", DT.ACL_BOOL))] == [
        "ufunc_unary_basic_f32.cu", "ufunc_binary_basic_int64.cu", "ufunc_binary_basic_complex.cu",
        "ufunc_unary_exp_f16.cu", "ufunc_unary_trig_f32.cu", "ufunc_binary_exp_f64.cu",
        "ufunc_binary_trig_bf16.cu", "ufunc_compare_int16.cu", "ufunc_compare_int8.cu"]
    every = set(U.MATH_HEADERS.values()) | {U.COMPLEX_MATH_HEADER}
    for unit, module in U.MODULES.items():
        read = {p.name for p in module_sources(module)}
        calls = {h for u, tag in U.units()[unit] for h in U.headers_of(u, tag)}
        if U.COMPLEX_MATH_HEADER in calls:   # the complex functions are built on both
            calls |= set(U.MATH_HEADERS.values())
        assert read & every == calls, unit
    assert not {h for u, tag in U.units()["unary_basic_f32"] for h in U.headers_of(u, tag)}
    assert U.headers_of(U.lookup("sqrt"), "c64") == {U.COMPLEX_MATH_HEADER}
    assert U.headers_of(U.lookup("pow"), "s32") == {U.COMPLEX_MATH_HEADER}


def test_a_math_entry_becomes_a_functor_with_the_split_form():
    text = U.unit_source("unary_exp_f32")
    assert '#include "npu_emu_math_exp.cuh"' in text and "npu_emu_math_trig.cuh" not in text
    assert "NPU_EMU_UFUNC_MATH1(op_exp, exp)" in text
    assert "NPU_EMU_UFUNC1_KERNEL(ufunc_exp_f32, op_exp, float, float)" in text
    assert "NPU_EMU_UFUNC_MATH2(op_pow, pow)" in U.unit_source("binary_exp_f64")


def test_an_expression_entry_becomes_a_functor(monkeypatch):
    """The shape a new function takes: one entry with an expression."""
    entry = U.Ufunc("twice", 1, U.FLOATS, expr="x + x")
    monkeypatch.setattr(U, "UFUNCS", U.UFUNCS + (entry,))
    text = U.unit_source("unary_basic_bf16")
    assert "NPU_EMU_UFUNC_EXPR1(op_twice, x + x)" in text
    assert "NPU_EMU_UFUNC1_KERNEL(ufunc_twice_bf16, op_twice, npu_emu::bf16, npu_emu::bf16)" in text


@needs_nvrtc
@pytest.mark.parametrize("module", sorted(U.MODULES.values()))
def test_nvrtc_builds_the_modules_without_ftz_approx_or_fma(built, module):
    """The cuda backend's own build (test_kernels_compile's, shared through the cache)."""
    _, ptx = built[module]
    assert not FTZ.findall(ptx)[:5] and not FMA.findall(ptx)[:5]
    assert ".approx" not in ptx
    entries = re.findall(r"^\.visible \.entry (\w+)", ptx, re.M)
    unit = next(unit for unit, m in U.MODULES.items() if m == module)
    assert sorted(entries) == sorted(n for u, n, _ in catalog_lines() if u == unit)


# ------------------------------------------------------------------------ thread counts
THREAD_SCRIPT = """
import hashlib, sys, warnings
import numpy as np
sys.path[:0] = sys.argv[1:3]   # this tests folder, and the tree it tests
from test_ufunc import CASES, values
from npu_emu.kernels import ufunc as U
warnings.simplefilter("ignore")
h = hashlib.sha256()
for name, dt in CASES:
    v = np.resize(values(dt, np.random.default_rng(1)), 1 << 16)   # several blocks per launch
    args = (v,) if U.lookup(name).arity == 1 else (v, v[::-1].copy())
    h.update(U.apply_numpy(name, *args).tobytes())
print(h.hexdigest())
"""


def test_same_bytes_under_one_and_two_threads():
    """Every function x dtype, 65536 elements: the bytes do not depend on OMP_NUM_THREADS."""
    digests = set()
    for threads in ("1", "2"):
        env = dict(os.environ, OMP_NUM_THREADS=threads)
        here = Path(__file__).resolve().parent
        run = subprocess.run([sys.executable, "-c", THREAD_SCRIPT, str(here), str(here.parent)],
                             capture_output=True, text=True, env=env, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        digests.add(run.stdout.strip())
    assert len(digests) == 1
