"""The reduction kernels (kernels_cuda/reduce.cuh and its units, npu_emu/kernels/reduce.py) on the cpu
backend: every function x dtype against NumPy (2.x; integers exact), floats bit for bit
against a pure-NumPy implementation of the documented order (docs/reductions.md) and within
its error bound of an exact sum (math.fsum), the same bits for every geometry (groups,
thread counts, the GPU's shape, OMP_NUM_THREADS=1 and 2 in subprocesses), NaN / inf / -0,
empty and size-1 axes, extents past one leaf and past leaf^2, the catalog's generated lists,
and the PTX NVRTC makes of each unit (no atomics)."""
from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from npu_emu.dtypes import INFO, aclDataType as DT
from npu_emu.kernels import reduce as R
from npu_emu.runtime import kernels_dir

from helpers import run_built_as
from test_kernels_compile import built, needs_nvrtc  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parent.parent
L, W = R.LEAF, R.LANES

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@pytest.fixture(autouse=True)
def _cpu(cpu_backend):
    yield cpu_backend


def run(name, x, axis=None, dtype=None, **kw):
    return R.apply_numpy(name, x, axis=axis, dtype=dtype, **kw)


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}[a.dtype.itemsize])


def host(dt):
    return INFO[dt].host if INFO[dt].host is not None else INFO[dt].storage


def random(dt, shape, rng, scale=10.0):
    if dt == DT.ACL_BOOL:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if INFO[dt].kind in ("signed", "unsigned"):
        info = np.iinfo(host(dt))
        return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(host(dt))
    if INFO[dt].kind == "complex":
        return (rng.normal(size=shape) * scale + 1j * rng.normal(size=shape) * scale).astype(host(dt))
    return (rng.normal(size=shape) * scale).astype(host(dt))


# ---------------------------------------------------------------- the order, in NumPy
# An implementation of docs/reductions.md independent of the kernel's: vectorized over
# outputs, leaves and lanes; the leaf tree level by level (the kernel uses a binary-counter
# stack).

def cmul(a, b):
    """The textbook complex product, each operation rounded in the parts' type."""
    re = a.real * b.real - a.imag * b.imag
    im = a.real * b.imag + a.imag * b.real
    out = np.empty(np.broadcast(a, b).shape, dtype=a.dtype)
    out.real, out.imag = re, im
    return out


def ordered(v: np.ndarray, combine) -> np.ndarray:
    """v: (M, K) in the reduced space's logical order, K >= 1 -> (M,) in the fixed order."""
    m, k = v.shape
    nl = -(-k // L)
    pad = np.zeros((m, nl * L), dtype=v.dtype)
    pad[:, :k] = v
    x = pad.reshape(m, nl, L // W, W)
    valid = (np.arange(nl * L) < k).reshape(nl, L // W, W)
    lanes = x[:, :, 0, :].copy()
    for step in range(1, L // W):
        lanes = np.where(valid[:, step, :], combine(lanes, x[:, :, step, :]), lanes)
    used = np.minimum(k - np.arange(nl) * L, W)            # lanes holding elements, per leaf
    for h in (8, 4, 2, 1):
        take = (np.arange(h)[None, :] + h) < used[:, None]  # (nl, h)
        lanes[:, :, :h] = np.where(take, combine(lanes[:, :, :h], lanes[:, :, h:2 * h]), lanes[:, :, :h])
    nodes = lanes[:, :, 0]
    while nodes.shape[1] > 1:                               # level by level, odd last moves up
        n = nodes.shape[1]
        paired = combine(nodes[:, 0:n - 1:2], nodes[:, 1:n:2])
        nodes = np.concatenate([paired, nodes[:, n - 1:]], axis=1) if n % 2 else paired
    return nodes[:, 0]


def logical(x: np.ndarray, axes) -> np.ndarray:
    """x's reduced elements as (outputs, K) in C order over the reduced axes."""
    axes = tuple(range(x.ndim)) if axes is None else tuple(sorted(a % x.ndim for a in np.atleast_1d(axes)))
    moved = np.moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim)))
    k = math.prod(x.shape[a] for a in axes)
    return moved.reshape(-1, k), moved.shape[:x.ndim - len(axes)]


def acc_type(dt):
    return np.float32 if dt in (DT.ACL_FLOAT16, DT.ACL_BF16) else np.dtype(host(dt)).type


def canonical(a):
    a = np.array(a)
    if a.dtype.kind == "c":
        re, im = canonical(a.real), canonical(a.imag)
        out = np.empty(a.shape, a.dtype)
        out.real, out.imag = re, im
        return out
    return np.where(np.isnan(a), np.array(np.nan, a.dtype), a)


def divide(a, n):
    """a / n in a's type; complex part by part (as the kernel)."""
    if a.dtype.kind != "c":
        return (a / a.dtype.type(n)).astype(a.dtype)
    out = np.empty_like(a)
    out.real, out.imag = divide(a.real.copy(), n), divide(a.imag.copy(), n)
    return out


def reference(name, x, dt, axes=None, correction=0.0):
    """sum / prod / mean / var / std of x (dtype dt, real or complex floats) in the order."""
    acc = acc_type(dt)
    v, shape = logical(np.asarray(x).astype(acc), axes)
    add = np.add
    mul = cmul if np.dtype(acc).kind == "c" else np.multiply
    if name == "prod":
        r = ordered(v, mul)
    else:
        r = ordered(v, add) + acc(0)         # plus +0: a sum of negative zeros alone is +0
        if name != "sum":
            r = divide(r, v.shape[1])
        if name in ("var", "std"):
            d = (v - r[:, None]).astype(acc)
            r = ordered(d * d, add) / acc(max(v.shape[1] - correction, 0))   # real floats only
            r = np.sqrt(r) if name == "std" else r
    return canonical(r.astype(acc)).astype(host(dt)).reshape(shape)


# ----------------------------------------------------------------------- the catalog

def test_every_kernel_is_in_one_module():
    """Every kernel of the catalog is in exactly one module: its unit's, for its input's
    group (the files' freshness: tests/test_kernel_catalog.py)."""
    total = 0
    for text in R.generated().values():
        total += text.count("\nNPU_EMU_REDUCE(") + text.count("\nNPU_EMU_SCAN(")
    assert total == sum(len(k.types) for k in R.KERNEL_SETS)
    assert {k.unit for k in R.KERNEL_SETS} == set(R.UNITS)
    assert R.KERNEL_SETS[0].module_for(DT.ACL_FLOAT) == "reduce_sum_float.cu"
    assert R.kernel_set("reduce", "any").module_for(DT.ACL_BOOL) == "reduce_bool_int.cu"
    assert R.kernel_set("scan", "prod").module_for(DT.ACL_COMPLEX64) == "reduce_scan_complex.cu"


def test_every_catalog_kernel_is_exported(cpu_backend):
    for ks in R.KERNEL_SETS:
        for src, dst in ks.types:
            assert cpu_backend.function(ks.module_for(src), R.kernel_name(ks.kind, ks.op, src, dst))


def test_bad_arguments_name_the_rule():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    with pytest.raises(TypeError, match="max has no kernel from DT_COMPLEX64"):
        run("max", x.astype(np.complex64))
    with pytest.raises(ValueError, match="axis=2 is out of range"):
        run("sum", x, axis=2)
    with pytest.raises(ValueError, match="repeats an axis"):
        run("sum", x, axis=(0, -2))
    with pytest.raises(ValueError, match="cumulative_sum takes one axis"):
        run("cumulative_sum", x, axis=(0, 1))
    with pytest.raises(ValueError, match="power of two"):
        R.Geometry(3, 1)


# ----------------------------------------------------------------- against NumPy

INTS = R.SIGNED + R.UNSIGNED
FLOATS = (DT.ACL_FLOAT, DT.ACL_DOUBLE)


@pytest.mark.parametrize("dt", (DT.ACL_BOOL,) + INTS, ids=lambda d: INFO[d].short)
def test_integer_and_bool_reductions_equal_numpy(dt):
    rng = np.random.default_rng(int(dt))
    x = random(dt, (6, 5, 300), rng)
    for axis in (None, 1, (0, 2), -1):
        ax = axis
        for name in ("sum", "prod"):
            want = getattr(np, name)(x, axis=ax, dtype=host(R.default_dtype(name, dt)))
            np.testing.assert_array_equal(run(name, x, axis), want, err_msg=f"{name} {axis}")
        for name in ("all", "any"):
            np.testing.assert_array_equal(run(name, x, axis), getattr(np, name)(x, axis=ax))
        if dt != DT.ACL_BOOL:
            for name in ("max", "min"):
                np.testing.assert_array_equal(run(name, x, axis), getattr(np, name)(x, axis=ax))
            if axis is None or isinstance(axis, int):
                for name in ("argmax", "argmin"):
                    np.testing.assert_array_equal(run(name, x, axis), getattr(np, name)(x, axis=ax))
    for name, fn in (("cumulative_sum", np.cumsum), ("cumulative_prod", np.cumprod)):
        out = host(R.default_dtype(name, dt))
        np.testing.assert_array_equal(run(name, x, 2), fn(x, axis=2, dtype=out))
        got = run(name, x, 0, include_initial=True)
        assert (got[0] == (0 if name == "cumulative_sum" else 1)).all()
        np.testing.assert_array_equal(got[1:], fn(x, axis=0, dtype=out))


def test_integer_sums_wrap():
    x = np.full(3000, 2**62, dtype=np.int64)
    wrapped = 3000 * 2**62 % 2**64
    assert run("sum", x) == np.int64(wrapped - 2**64 if wrapped >= 2**63 else wrapped) == np.sum(x)
    y = np.full(40, 200, dtype=np.uint8)
    assert run("sum", y, dtype=np.uint8) == np.uint8(40 * 200 % 256)
    assert run("prod", np.full(9, 300, dtype=np.int32), dtype=np.int32) == np.prod(np.full(9, 300, np.int32), dtype=np.int32)


@pytest.mark.parametrize("dt", R.REAL_FLOATS + R.COMPLEX, ids=lambda d: INFO[d].short)
def test_float_reductions_follow_the_order_bit_for_bit(dt):
    rng = np.random.default_rng(int(dt) + 7)
    x = random(dt, (3, 2500), rng)
    if INFO[dt].kind == "complex":
        x = x / 10
    names = ("sum", "prod", "mean") + (("var", "std") if INFO[dt].kind != "complex" else ())
    for name in names:
        xx = (1 + x / 1000).astype(x.dtype) if name == "prod" else x
        for axis in (1, None):
            got = run(name, xx, axis, correction=1.0)
            want = reference(name, xx, dt, axis, correction=1.0)
            assert np.array_equal(bits(got), bits(want)), f"{name} axis={axis}: {got} != {want}"
            if INFO[dt].host is not None and dt != DT.ACL_BF16:      # NumPy as a second opinion
                ref = getattr(np, name)(xx.astype(np.complex128 if x.dtype.kind == "c" else np.float64),
                                        axis=axis, **({"ddof": 1} if name in ("var", "std") else {}))
                np.testing.assert_allclose(got.astype(ref.dtype), ref, rtol=2e-2 if dt == DT.ACL_FLOAT16 else 1e-4)
    for name in ("max", "min", "argmax", "argmin") if INFO[dt].kind != "complex" else ():
        f32 = x.astype(np.float32)
        np.testing.assert_array_equal(np.asarray(run(name, x, 1)).astype(np.float32 if "arg" not in name else np.int64),
                                      getattr(np, name)(f32, axis=1))


@pytest.mark.parametrize("dt", R.REAL_FLOATS, ids=lambda d: INFO[d].short)
def test_scans_accumulate_in_float_and_round_each_output(dt):
    rng = np.random.default_rng(3)
    x = random(dt, (4, 700), rng)
    acc = acc_type(dt)
    want = np.cumsum(x.astype(acc), axis=1, dtype=acc).astype(host(dt))   # sequential
    assert np.array_equal(bits(run("cumulative_sum", x, 1)), bits(want))
    p = (1 + x / 100).astype(x.dtype)
    want = np.cumprod(p.astype(acc), axis=1, dtype=acc).astype(host(dt))
    assert np.array_equal(bits(run("cumulative_prod", p, 1)), bits(want))


@pytest.mark.parametrize("dt", R.REAL_FLOATS + (DT.ACL_INT32,), ids=lambda d: INFO[d].short)
def test_scans_down_a_strided_axis_keep_each_lines_order(dt):
    """Along an axis that is not the contiguous one, the cpu kernel steps up to 64
    neighbouring lines together (and a line at a time where they do not lie evenly): each
    output still the sequential scan's, bit for bit, with NaNs and signed zeros in the
    lines, on a transposed view, and with include_initial."""
    rng = np.random.default_rng(59)
    x = random(dt, (300, 3, 70), rng)
    if INFO[dt].kind == "floating":
        flat = x.reshape(-1)
        flat[::97] = np.nan
        flat[5::89] = -0.0
    acc = acc_type(dt) if INFO[dt].kind == "floating" else np.int64
    out = host(R.default_dtype("cumulative_sum", dt))
    for view, axis in ((x, 0), (x, 1), (np.swapaxes(x, 0, 2), 2), (x[:, 1, :], 0)):
        want = np.cumsum(view.astype(acc), axis=axis, dtype=acc).astype(out)
        got = run("cumulative_sum", view, axis)
        if INFO[dt].kind == "floating":
            got, want = canonical(got), canonical(want)
        assert np.array_equal(bits(got), bits(want))
    got = run("cumulative_prod", (1 + x / 100).astype(x.dtype) if INFO[dt].kind == "floating" else x,
              0, include_initial=True)
    assert got.shape == (301, 3, 70) and (got[0] == 1).all()


_SCAN_CASES = """
import numpy as np, ml_dtypes
from npu_emu.dtypes import aclDataType as DT
from npu_emu.kernels import reduce as R
rng = np.random.default_rng(61)
out = {}
for name, dt in (("f32", np.float32), ("f64", np.float64), ("f16", np.float16),
                 ("bf16", ml_dtypes.bfloat16), ("i32", np.int32)):
    x = (rng.standard_normal((130, 5, 67)) * 4).astype(dt)
    for axis in (0, 1, 2):
        for fn in ("cumulative_sum", "cumulative_prod"):
            got = R.apply_numpy(fn, x, axis=axis, include_initial=axis == 1)
            out[f"{name}-{axis}-{fn}"] = np.ascontiguousarray(got).tobytes().hex()
print(repr(out))
"""


def test_the_gpus_one_line_scans_give_the_cpu_builds_bits():
    """NPU_EMU_SCAN_LINES 1 (a GPU thread's one line) against the cpu build's 64 lines at a
    time, built from the same source: every float type and int32, every axis of a 3-d array."""
    one = run_built_as(_SCAN_CASES, R.unit_modules("scan"), "NPU_EMU_SCAN_LINES=1")
    many = run_built_as(_SCAN_CASES)
    assert one.keys() == many.keys() and len(one) == 30
    for case in one:
        assert one[case] == many[case], case


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: INFO[d].short)
@pytest.mark.parametrize("k", [1, 17, 1024, 1025, 40000, 1024 * 1024 + 3000])
def test_sum_error_is_within_the_documented_bound(dt, k):
    """|sum - exact| <= (L/W - 1 + log2 W + ceil(log2 leaves)) * u * sum|x| (docs/reductions.md);
    the exact sum from math.fsum (correctly rounded, so far below the bound)."""
    rng = np.random.default_rng(k)
    x = (rng.normal(size=k) * np.exp(rng.normal(size=k) * 3)).astype(host(dt))
    got = float(run("sum", x))
    exact = math.fsum(x.astype(np.float64))
    u = np.finfo(host(dt)).eps / 2
    depth = L // W - 1 + 4 + math.ceil(math.log2(max(-(-k // L), 1)))
    assert abs(got - exact) <= depth * u * math.fsum(np.abs(x.astype(np.float64))) * 1.0001
    if k > L * L:   # past leaf^2: the order, bit for bit, on the largest extent too
        assert np.array_equal(bits(np.asarray(got, host(dt))), bits(reference("sum", x, dt)))


# ---------------------------------------------------------------------- views, axes

def test_multi_axis_strided_and_negative_stride_views():
    rng = np.random.default_rng(11)
    base = random(DT.ACL_FLOAT, (9, 40, 70), rng)
    ints = random(DT.ACL_INT32, (9, 40, 70), rng)
    views = [base[::-1, 3:, ::-3], base.transpose(2, 0, 1)[:, ::2], base[:, ::-1, :][..., 5:66:2]]
    for v, iv in zip(views, [ints[::-1, 3:, ::-3], ints.transpose(2, 0, 1)[:, ::2], ints[:, ::-1, :][..., 5:66:2]]):
        for axis in ((0, 2), (1,), (0, 1, 2), (2, 0), ()):
            got = run("sum", v, axis)
            assert np.array_equal(bits(got), bits(reference("sum", v, DT.ACL_FLOAT, axis if axis else None)
                                                  if axis else v)), axis
            # the logical order: a contiguous copy of the view gives the same bits
            assert np.array_equal(bits(got), bits(run("sum", np.ascontiguousarray(v), axis)))
            np.testing.assert_array_equal(run("sum", iv, axis), iv.sum(axis=axis, dtype=np.int64))
            np.testing.assert_array_equal(run("max", iv, axis), iv.max(axis=axis) if axis != () else iv)
    flat = base[::2, ::-1].copy()
    assert run("argmax", base[::2, ::-1]) == np.argmax(flat)


def test_plan_writes_a_strided_output_view(cpu_backend):
    """The output is any view: here every other element of a buffer, transposed."""
    be = cpu_backend
    x = random(DT.ACL_INT32, (4, 6, 50), np.random.default_rng(2))
    xb, xv = R._device_view(be, x)
    buf = np.full(2 * 24, -1, dtype=np.int64)
    yb = be.malloc(buf.nbytes)
    be.copy_from_host(yb, buf)
    try:
        out = R.View(yb, (4, 6), (2, 8), 8)          # out[i, j] at element 2 * i + 8 * j
        p = R.plan(be, "sum", xv, DT.ACL_INT32, out, DT.ACL_INT64, (2,))
        be.enqueue(p.launches, be.default_stream)
        be.synchronize()
        be.copy_to_host(buf, yb)
    finally:
        be.free(xb)
        be.free(yb)
    want = np.full(48, -1, dtype=np.int64)
    np.lib.stride_tricks.as_strided(want, (4, 6), (16, 64))[...] = x.sum(axis=2)
    np.testing.assert_array_equal(buf, want)
    with pytest.raises(ValueError, match=r"out has shape \(4, 1, 6\)"):
        R.plan(be, "sum", xv, DT.ACL_INT32, R.View(yb, (4, 1, 6), (6, 6, 1), 8), DT.ACL_INT64, (2,))


def test_empty_and_size_one_axes():
    e = np.zeros((3, 0, 4), dtype=np.float32)
    assert run("sum", e, 1).tolist() == [[0.0] * 4] * 3 and not np.signbit(run("sum", e, 1)).any()
    assert (run("prod", e, 1) == 1).all()
    assert run("all", e, 1).all() and not run("any", e, 1).any()
    assert np.isnan(run("mean", e, 1)).all() and np.isnan(run("var", e, 1)).all()
    assert (run("max", e, 1) == -np.inf).all() and (run("min", e, 1) == np.inf).all()
    assert (run("argmax", e, 1) == -1).all()
    assert (run("max", e.astype(np.int16), 1) == -32768).all()
    assert run("sum", e, 0).shape == (0, 4)
    assert run("cumulative_sum", np.zeros(0, np.float32)).shape == (0,)
    assert run("cumulative_sum", np.zeros(0, np.float32), include_initial=True).tolist() == [0.0]
    one = np.arange(12, dtype=np.float64).reshape(3, 1, 4)
    np.testing.assert_array_equal(run("sum", one, 1), one[:, 0])
    np.testing.assert_array_equal(run("var", one, 1), np.zeros((3, 4)))
    assert np.isinf(run("var", one, 1, correction=1.0)).sum() == 0           # 0 / 0 -> NaN
    assert np.isnan(run("var", one, 1, correction=1.0)).all()
    np.testing.assert_array_equal(run("var", np.array([1.0, 2.0]), correction=3), np.var([1.0, 2.0], ddof=3))
    zero_d = np.array(-0.0, dtype=np.float32)
    assert bits(run("sum", zero_d)) == 0 and run("argmax", zero_d) == 0     # -0 + 0 = +0
    assert run("mean", np.array(2.5)) == 2.5 and run("var", np.array(2.5)) == 0
    with pytest.raises(ValueError, match="axis=0 is out of range for an array of 0 dims"):
        run("sum", zero_d, 0)


# --------------------------------------------------------------------- special values

NAN32, NAN64 = np.uint32(0x7FC00000), np.uint64(0x7FF8000000000000)


def test_nan_propagates_as_the_canonical_nan():
    x = np.linspace(-5, 5, 3000).astype(np.float32)
    weird = x.copy()
    weird.view(np.uint32)[1234] = 0xFFC12345          # a negative NaN with a payload
    for name in ("sum", "prod", "max", "min", "mean", "var", "std"):
        assert bits(run(name, weird)) == NAN32, name
    assert run("argmax", weird) == 1234 and run("argmin", weird) == 1234
    two = weird.copy()
    two.view(np.uint32)[2000] = 0x7F800001
    assert run("argmax", two) == 1234 and run("argmin", two) == 1234     # the first NaN
    d = np.array([1.0, np.inf, -np.inf, 2.0])
    assert bits(run("sum", d)) == NAN64 and run("max", d) == np.inf and run("min", d) == -np.inf
    h = np.array([1, np.nan, 2], dtype=np.float16)
    assert bits(run("max", h)) == 0x7E00 and bits(run("sum", h)) == 0x7E00
    b = np.array([1, np.nan, 2], dtype=ml_dtypes.bfloat16)
    assert bits(run("min", b)) == 0x7FC0 and bits(run("mean", b)) == 0x7FC0
    c = np.array([1 + 1j, complex(np.nan, 2), 3j], dtype=np.complex64)
    got = run("sum", c)
    assert bits(np.float32(got.real)) == NAN32 and got.imag == 6
    ints = np.array([3, -7, 9], dtype=np.int8)
    assert run("max", ints) == 9 and run("argmin", ints) == 1


def test_signed_zeros():
    """A sum (and a mean) of negative zeros alone is +0: the tree's -0 plus the additive
    identity, as NumPy 2, PyTorch and CuPy give; a real product and a cumulative sum keep -0
    (NumPy's prod and cumsum of -0 are -0); complex sums and means likewise, part by part."""
    neg = np.full(2000, -0.0, dtype=np.float32)
    assert not np.signbit(run("sum", neg)) and np.signbit(run("max", neg))
    assert not np.signbit(run("mean", neg)) and np.signbit(run("prod", neg[:3]))
    assert np.signbit(run("cumulative_sum", neg[:5])).all()
    for f in (np.float32, np.float64, np.complex64, np.complex128):   # NumPy's own answers
        x = np.full(5, -0.0, dtype=f) if np.dtype(f).kind == "f" else np.full(5, complex(-0.0, -0.0), f)
        for name, ref in (("sum", np.sum), ("mean", np.mean), ("prod", np.prod),
                          ("cumulative_sum", np.cumsum)):
            if name == "prod" and np.dtype(f).kind == "c":
                continue      # NumPy multiplies in its identity 1 + 0j first; our tree does not
            got, want = np.asarray(run(name, x)), np.asarray(ref(x))
            assert np.signbit(got.real).tolist() == np.signbit(want.real).tolist(), (f, name)
            if got.dtype.kind == "c":
                assert np.signbit(got.imag).tolist() == np.signbit(want.imag).tolist(), (f, name)
    mixed = neg.copy()
    mixed[1500] = 0.0
    # max prefers +0, min -0, wherever they are; argmax takes -0 == +0 (the first index)
    assert not np.signbit(run("max", mixed)) and np.signbit(run("min", mixed))
    assert not np.signbit(run("max", mixed[::-1])) and np.signbit(run("min", mixed[::-1]))
    assert run("argmax", mixed) == 0 and run("argmin", mixed) == 0
    assert not np.signbit(run("sum", mixed))


# ------------------------------------------------------------- the order-free ops
CHUNK = 8192      # reduce.cuh's ArgExtreme::CHUNK: argmax's and argmin's chunks
# max, min, argmax, argmin, all and any do not depend on the order (docs/reductions.md), so
# their kernels fold contiguous ranges chunk by chunk (argmax: the chunk's best value, then
# its first index; all / any: stop at the chunk that decides). These cases put the deciding
# element in every kind of place: past several chunks, tied across chunks, in sorted data
# (every chunk improves), in strided and multi-axis views (the plain fold).

@pytest.mark.parametrize("dt", (DT.ACL_FLOAT, DT.ACL_DOUBLE, DT.ACL_INT32, DT.ACL_UINT8,
                                DT.ACL_INT64, DT.ACL_FLOAT16), ids=lambda d: INFO[d].short)
def test_order_free_ops_equal_numpy_wherever_the_best_element_is(dt):
    rng = np.random.default_rng(7 + int(dt))
    n = 5 * CHUNK + 77
    base = random(dt, n, rng)
    cases = {"random": base, "ascending": np.sort(base), "descending": np.sort(base)[::-1].copy()}
    tied = base.copy()
    top, low = base.max(), base.min()
    tied[[3 * CHUNK + 5, 4 * CHUNK + 100]] = top          # the maximum again, in two later chunks
    tied[[2 * CHUNK + 9, 5 * CHUNK + 3]] = low
    cases["tied"] = tied
    for label, x in cases.items():
        for view in (x, x[::3], x[::-1]):
            for name in ("max", "min", "argmax", "argmin"):
                np.testing.assert_array_equal(run(name, view), getattr(np, name)(view),
                                              err_msg=f"{name} {label} {view.strides}")
        m = x[: 64 * 80].reshape(64, 80)
        for axis in (0, 1, None):
            for name in ("max", "min", "argmax", "argmin"):
                np.testing.assert_array_equal(run(name, m, axis), getattr(np, name)(m, axis=axis),
                                              err_msg=f"{name} {label} axis={axis}")
        # two reduced axes that do not merge: the fold through the cursor
        np.testing.assert_array_equal(run("max", m[:, ::2], (0, 1)), m[:, ::2].max())


@pytest.mark.parametrize("dt", (DT.ACL_FLOAT, DT.ACL_DOUBLE), ids=lambda d: INFO[d].short)
def test_order_free_ops_nan_and_zeros_past_one_chunk(dt):
    f = host(dt)
    n = 3 * CHUNK + 500
    x = np.linspace(-3, 3, n).astype(f)
    x[[CHUNK + 6000, 2 * CHUNK + 8000]] = np.nan   # NaN in a later chunk wins max, min and both args
    for name in ("max", "min"):
        assert np.isnan(run(name, x)), name
    assert run("argmax", x) == CHUNK + 6000 and run("argmin", x) == CHUNK + 6000
    neg = np.full(n, -0.0, dtype=f)
    neg[2 * CHUNK + 7000] = 0.0              # +0 in a later chunk: max is +0, min stays -0
    assert not np.signbit(run("max", neg)) and np.signbit(run("min", neg))
    assert run("argmax", neg) == 0 and run("argmin", neg) == 0
    neg[:] = -1.0
    neg[[CHUNK + 2000, 3 * CHUNK + 100]] = -0.5   # all negative: the one nearest zero, first
    assert run("max", neg) == -0.5 and run("argmax", neg) == CHUNK + 2000
    assert run("min", -neg) == 0.5 and run("argmin", -neg) == CHUNK + 2000


def _extreme_by_the_rule(x: np.ndarray, name: str) -> np.ndarray:
    """max / min of each row of x by docs/reductions.md's rule, element by element in Python:
    a NaN wins; otherwise the largest (smallest) value, and a zero result is +0 for max (-0
    for min) when that zero occurs, else the other zero."""
    out = []
    for row in x.tolist():
        if any(v != v for v in row):
            out.append(np.nan)
            continue
        best = max(row) if name == "max" else min(row)
        if best == 0:
            preferred = [v for v in row if v == 0 and math.copysign(1, v) == (1 if name == "max" else -1)]
            best = (0.0 if name == "max" else -0.0) if preferred else (-0.0 if name == "max" else 0.0)
        out.append(best)
    return np.array(out, dtype=x.dtype)


@pytest.mark.parametrize("dt", (DT.ACL_FLOAT, DT.ACL_DOUBLE), ids=lambda d: INFO[d].short)
@pytest.mark.parametrize("rows", (40, 3000))
def test_max_and_min_keep_nan_and_zero_flags_per_column_and_per_row(dt, rows):
    """The NaN and zero flags of max and min (reduce.cuh's BestFloat keeps them as integer
    extremes of the bits), per output: columns side by side (axis 0: each column its own
    flags) and rows (axis 1: one range each, past a chunk of 32 lanes at 3000), against the
    rule computed element by element."""
    f = host(dt)
    rng = np.random.default_rng(29)
    m = np.abs(rng.normal(size=(rows, 96))).astype(f) + 1
    m[:, 0:8] = -0.0                                  # zeros alone: -0 only, or -0 with +0
    m[rng.integers(0, rows, 4), [0, 2, 4, 6]] = 0.0
    m[:, 8:16] = -m[:, 8:16]                          # negative: max nearest zero
    m[:, 16:20] = 0.0                                 # +0 alone
    m[rng.integers(0, rows, 6), [20, 21, 25, 33, 50, 95]] = np.nan
    m[5, 40], m[9, 41], m[rows - 1, 42] = np.inf, -np.inf, np.nan
    for name in ("max", "min"):
        for x, axis in ((m, 0), (np.ascontiguousarray(m.T), 1), (m[:, 8:16], 0)):
            want = _extreme_by_the_rule(x.T if axis == 0 else x, name)
            got = run(name, x, axis)
            assert np.array_equal(bits(got), bits(want)), (name, axis, x.shape)


def test_all_and_any_decide_in_any_chunk():
    for n in (1, 4095, 4096, 4097, 20000):
        for where in sorted({0, n // 2, n - 1}):
            x = np.ones(n, dtype=np.float32)
            x[where] = 0.0
            assert not run("all", x) and run("any", x) == (n > 1), (n, where)
            z = np.zeros(n, dtype=np.float64)
            z[where] = np.nan                # NaN is true
            assert run("any", z) and (run("all", z) == (n == 1)), (n, where)
            assert not run("any", np.zeros(n, dtype=np.int16)) and run("all", np.ones(n, np.uint8))


# -------------------------------------------------------------- geometry independence

CASES = [("sum", DT.ACL_FLOAT, (5, 7000), 1), ("sum", DT.ACL_DOUBLE, (3, 300, 11), (1, 2)),
         ("prod", DT.ACL_COMPLEX64, (2, 5000), 1), ("var", DT.ACL_FLOAT16, (4, 9000), 1),
         ("std", DT.ACL_BF16, (9000,), None), ("mean", DT.ACL_COMPLEX128, (2, 3000), None),
         ("argmax", DT.ACL_FLOAT, (3, 6000), 1), ("max", DT.ACL_DOUBLE, (6000,), None),
         ("sum", DT.ACL_FLOAT, (20000,), None), ("cumulative_sum", DT.ACL_FLOAT16, (5, 300), 1),
         # outputs side by side in memory (the columns of a matrix; the cpu's row loops take
         # rows of at least 16: rows whose lanes fit 16 KB whole as a band (256 float32, 128
         # float64 outputs), wider ones in chunks of 256 bytes of lanes (64 float32, 32
         # float64), the last one short; up to 1024 for the order-free ops; narrower rows go
         # one by one)
         ("sum", DT.ACL_FLOAT, (3000, 40), 0), ("var", DT.ACL_DOUBLE, (1500, 37), 0),
         ("argmin", DT.ACL_FLOAT, (2100, 33), 0), ("prod", DT.ACL_COMPLEX128, (1100, 20), 0),
         ("sum", DT.ACL_FLOAT, (3000, 70), 0), ("var", DT.ACL_DOUBLE, (1100, 67), 0),
         ("prod", DT.ACL_COMPLEX128, (1100, 66), 0), ("argmin", DT.ACL_FLOAT, (2100, 130), 0),
         ("sum", DT.ACL_BF16, (5, 70, 64), (0, 1)),
         ("sum", DT.ACL_FLOAT, (2100, 300), 0), ("mean", DT.ACL_DOUBLE, (3100, 150), 0),
         ("var", DT.ACL_FLOAT, (2500, 256), 0), ("prod", DT.ACL_COMPLEX64, (1100, 200), 0),
         ("sum", DT.ACL_FLOAT, (9, 40, 300), 0),
         # at the side-by-side loops' edge (16 outputs a row) and below it
         ("sum", DT.ACL_FLOAT, (3000, 16), 0), ("max", DT.ACL_FLOAT, (2000, 15), 0),
         ("var", DT.ACL_DOUBLE, (1500, 17), 0), ("argmax", DT.ACL_FLOAT, (2100, 24), 0)]


def case_input(i, dt, shape):
    x = random(dt, shape, np.random.default_rng(100 + i))
    return (1 + x / 1000).astype(x.dtype) if INFO[dt].kind == "complex" else x


GEOMETRIES = [lambda n, l: R.Geometry(1, 1), lambda n, l: R.Geometry(1, 7),
              lambda n, l: R.Geometry(2, 3), lambda n, l: R.Geometry(4, 1000, 4),
              lambda n, l: R.Geometry(1 << 20, 5),
              # the GPU's choice, each GPU thread a cpu block (as tests/test_gpu_geometry.py)
              lambda n, l: dataclasses.replace(R.gpu_geometry(n, l), block=1),
              lambda n, l: R.gpu_geometry(n, l)]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_every_geometry_gives_the_same_bits(i):
    name, dt, shape, axis = CASES[i]
    x = case_input(i, dt, shape)
    want = bits(run(name, x, axis))
    for geo in GEOMETRIES:
        assert np.array_equal(bits(run(name, x, axis, geometry=geo)), want)
    if name in ("sum", "var", "std", "mean"):
        assert np.array_equal(want, bits(reference(name, x, dt, axis)))


@pytest.mark.parametrize("dt", (DT.ACL_FLOAT, DT.ACL_DOUBLE), ids=lambda d: INFO[d].short)
def test_outputs_side_by_side_give_the_order_at_any_alignment(cpu_backend, dt):
    """Columns whose first element sits anywhere in a cache line (NumPy's own arrays start 16
    bytes past one): the cpu backend's chunks of a wide row start at the next 64-byte
    boundary, the first one cut short; the bits are the order's, for one block or several."""
    be = cpu_backend
    x = random(dt, (2100, 300), np.random.default_rng(11))
    item = x.itemsize
    for name in ("sum", "var"):
        want = bits(reference(name, x, dt, 0))
        for skip in (0, 1, 3, 4, 7, 12):   # elements past a 64-byte boundary
            xb, yb = be.malloc(x.nbytes + 64), be.malloc(300 * item)
            try:
                be.copy_from_host(xb + skip * item, x)
                xv = R.View(xb + skip * item, x.shape, (300, 1), item)
                for geo in (R.Geometry(1 << 20, 1), R.Geometry(1 << 20, 7), R.Geometry(1 << 20, 40)):
                    p = R.plan(be, name, xv, dt, R.View(yb, (300,), (1,), item), dt, (0,),
                               geometry=lambda n, l, geo=geo: geo)
                    ws = be.malloc(p.workspace_size) if p.workspace_size else 0   # each plan's own
                    try:
                        be.enqueue(p.launches, be.default_stream, workspace=ws)
                        be.synchronize()
                    finally:
                        if ws:
                            be.free(ws)
                    got = np.empty(300, x.dtype)
                    be.copy_to_host(got, yb)
                    assert np.array_equal(bits(got), want), (name, skip, geo)
            finally:
                be.free(xb)
                be.free(yb)


# Past the size that runs inline (cpu_geometry's INLINE_BYTES at two workers): two threads
# split these into groups and combine them in a second launch.
LARGE_CASES = [("sum", DT.ACL_FLOAT, (600_000,), None), ("max", DT.ACL_FLOAT, (700_000,), None),
               ("argmax", DT.ACL_DOUBLE, (2, 200_000), 1),
               ("var", DT.ACL_FLOAT16, (150_000,), None),
               ("sum", DT.ACL_FLOAT, (3_000, 512), 0),      # columns, in bands of 64
               ("max", DT.ACL_FLOAT, (3_000, 512), 0)]

DIGEST = """
import hashlib, sys, numpy as np
sys.path.insert(0, {tests!r})
from npu_emu import runtime
runtime.use("cpu")
import test_reduce as T
h = hashlib.sha256()
for i, (name, dt, shape, axis) in enumerate(T.CASES + T.LARGE_CASES):
    h.update(T.bits(T.run(name, T.case_input(i, dt, shape), axis)).tobytes())
print(runtime.current().parallelism, h.hexdigest())
"""


def test_small_reductions_run_inline_and_large_ones_split():
    """One block on the calling thread up to INLINE_BYTES / workers of weighed input (the
    types under 4 bytes weigh 16 a element) where the split would be into groups or narrow
    bands of columns, the split past it; the large cases of the thread test below are past
    it at two workers. Scans keep their rule."""
    leaves = lambda n: -(-n // R.LEAF)
    assert R.cpu_geometry(2, 1, leaves(250_000), R.weight(4)).threads == 1
    assert R.cpu_geometry(2, 1, leaves(300_000), R.weight(4)).threads > 1
    assert R.cpu_geometry(2, 1, leaves(125_000), R.weight(8)).threads == 1
    assert R.cpu_geometry(2, 1, leaves(150_000), R.weight(8)).threads > 1
    assert R.cpu_geometry(2, 1, leaves(150_000), R.weight(2)).threads > 1
    assert R.cpu_geometry(16, 1, leaves(200_000), R.weight(4)).threads > 1   # more workers
    for name, dt, shape, axis in LARGE_CASES:
        axis = len(shape) - 1 if axis is None and len(shape) == 1 else axis
        n = shape[axis] if axis is not None else math.prod(shape)
        nout = math.prod(shape) // n
        assert R.cpu_geometry(2, nout, leaves(n), R.weight(INFO[dt].itemsize),
                              side_by_side=axis == 0 and len(shape) > 1).threads > 1
    assert R.cpu_geometry(2, 100, 1).threads > 1          # a scan: lines are not leaves
    # Columns side by side: never in bands narrower than R.BAND (the kernels' side-by-side
    # paths take at least that many), in one block while the work is small
    assert R.cpu_geometry(2, 64, leaves(8192), R.weight(4), side_by_side=True).threads == 1
    assert R.cpu_geometry(2, 64, leaves(8192), R.weight(4)).threads > 1       # rows: split
    assert R.cpu_geometry(2, 64, leaves(65536), R.weight(4), side_by_side=True).threads == 1
    assert R.cpu_geometry(2, 256, leaves(16384), R.weight(4), side_by_side=True).threads == 4
    assert R.cpu_geometry(2, 4096, leaves(4096), R.weight(4), side_by_side=True).threads == 8


def test_thread_counts_give_the_same_bits():
    out = {}
    for threads in ("1", "2"):
        env = dict(os.environ, OMP_NUM_THREADS=threads, PYTHONPATH=str(ROOT))
        res = subprocess.run([sys.executable, "-c", DIGEST.format(tests=str(ROOT / "tests"))],
                             capture_output=True, text=True, env=env, cwd=ROOT)
        assert res.returncode == 0, res.stderr[-2000:]
        out[threads] = res.stdout.split()
    assert out["1"][0] == "1" and out["2"][0] == "2"
    assert out["1"][1] == out["2"][1]


# ------------------------------------------------------------------------ the builds

def test_parameter_struct_matches_the_host_packing(tmp_path):
    from npu_emu.runtime.cpu import CXX_FLAGS
    dtype = R.params_dtype()
    assert dtype.itemsize == R._PARAMS.size
    lines = ['#include "reduce.cuh"', f'static_assert(sizeof(ReduceParams) == {dtype.itemsize}, "size");']
    lines += [f'static_assert(__builtin_offsetof(ReduceParams, {n}) == {off}, "{n}");'
              for n, (_, off, *_) in dtype.fields.items()]
    src = tmp_path / "check.cpp"
    src.write_text("\n".join(lines) + "\n")
    flags = [f for f in CXX_FLAGS if f not in ("-shared", "-O3")]
    res = subprocess.run(["g++", *flags, "-fsyntax-only", f"-I{kernels_dir()}", str(src)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]


@needs_nvrtc
def test_ptx_has_no_atomics(built):
    """Determinism: no atomic or reduction-to-memory instruction in what the GPU would load
    (the flush-to-zero and contraction checks of every module are in test_kernels_compile.py,
    whose build this shares)."""
    for module, kernels in R.MODULES.items():
        ptx = built[module][1]
        assert ptx.count(".entry") == len(kernels), module
        assert "atom." not in ptx and "red." not in ptx, module
        assert "bar.sync" not in ptx, module    # no block-level cooperation either


def test_the_host_and_the_kernels_agree_on_the_side_by_side_minimum():
    """kernels/reduce.py's SIDE_BY_SIDE_MIN (the geometry's rule) is reduce.cuh's R_MIN (the
    kernels' side-by-side paths)."""
    import re
    text = (kernels_dir() / "reduce.cuh").read_text()
    found = re.search(r"constexpr int R_MIN = (\d+);", text)
    assert found and int(found.group(1)) == R.SIDE_BY_SIDE_MIN


def test_the_chunk_tests_place_their_elements_by_is_the_kernels():
    """CHUNK above (where the order-free tests put their deciding elements: in later chunks)
    is reduce.cuh's ArgExtreme::CHUNK."""
    import re
    text = (kernels_dir() / "reduce.cuh").read_text()
    found = re.search(r"static constexpr int64_t CHUNK = (\d+);", text)
    assert found and int(found.group(1)) == CHUNK


def test_any_order_reductions_walk_memory_order_and_give_the_rule():
    """max, min, all and any (ANY_ORDER: no result of theirs depends on the order, ties
    included) walk their reduced elements in memory order, so a transposed or permuted view
    reads its memory in runs; argmax, argmin and the ordered reductions keep the logical C
    order. The results are the rule's on permuted 3-d views over every set of axes, NaN and
    signed zeros included."""
    sizes, strides = R.reduced_dims((4, 5, 6), (1, 24, 4), (0, 1, 2), by_memory=True)
    assert (sizes, strides) == ((120,), (1,))            # x.transpose(2, 0, 1) of a (5, 6, 4): one run
    assert R.reduced_dims((4, 5, 6), (1, 24, 4), (0, 1, 2)) == ((30, 4), (4, 1))   # C order: two runs
    assert R.ANY_ORDER == {"max", "min", "all", "any"}
    rng = np.random.default_rng(31)
    base = rng.standard_normal((5, 6, 40)).astype(np.float32)
    base[1, 2, 3], base[3, 0, 7] = np.nan, np.nan
    base[2] = -0.0
    base[2, 4, 9] = 0.0
    for perm in ((2, 0, 1), (1, 2, 0), (2, 1, 0)):
        v = np.transpose(base, perm)
        for axes in ((0,), (1,), (2,), (0, 1), (1, 2), (0, 2), (0, 1, 2)):
            moved = np.moveaxis(v, axes, range(-len(axes), 0))
            rows = moved.reshape(moved.shape[:v.ndim - len(axes)] + (-1,)).reshape(-1, math.prod(v.shape[a] for a in axes))
            for name in ("max", "min"):
                want = _extreme_by_the_rule(rows, name).reshape(moved.shape[:v.ndim - len(axes)])
                assert np.array_equal(bits(run(name, v, axes)), bits(want)), (perm, axes, name)
            np.testing.assert_array_equal(run("any", v > 1.5, axes), (v > 1.5).any(axis=axes))
            np.testing.assert_array_equal(run("all", v > -3, axes), (v > -3).all(axis=axes))
            np.testing.assert_array_equal(run("argmax", v, axes[0]), np.argmax(v, axis=axes[0]))


@pytest.mark.parametrize("dt", (DT.ACL_FLOAT, DT.ACL_DOUBLE, DT.ACL_FLOAT16, DT.ACL_COMPLEX64),
                         ids=lambda d: INFO[d].short)
def test_lines_side_by_side_give_the_order(dt):
    """A full reduction of a transposed view (each line of the reduced space a column of the
    memory, the lines side by side) reads the leaves of several lines at once: the bits are
    the order's (the reference's, and the contiguous copy's), for whole and partial blocks of
    lines, leaf groups that start inside a line (every geometry), and inputs past the kernel's
    leaf buffer (long lines take the plain path)."""
    rng = np.random.default_rng(37)
    for rows, cols in ((2048, 70), (1024, 33), (3072, 16), (2048, 5), (70 * 1024, 17)):
        a = random(dt, (rows, cols), rng)
        v = a.T                                      # lines of `rows` elements, `cols` apart
        for name in ("sum", "mean", "var") if INFO[dt].kind != "complex" else ("sum", "prod"):
            want = bits(run(name, np.ascontiguousarray(v)))
            assert np.array_equal(bits(run(name, v)), want), (name, rows, cols)
            if name in ("sum", "mean", "var"):
                assert np.array_equal(want, bits(reference(name, np.ascontiguousarray(v), dt, None)))
            if rows * cols <= 2048 * 70:
                for geo in GEOMETRIES:
                    assert np.array_equal(bits(run(name, v, geometry=geo)), want), (name, geo)
