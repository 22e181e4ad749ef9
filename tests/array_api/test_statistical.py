"""Statistical functions: values against NumPy over axes and keepdims (and the bits of our
reduce kernels), the standard's
accumulation dtypes (integers widen, dtype= casts first), the NPU's float32 accumulation of
the narrow floats (rounded back by our conversion), NaN propagation, empty reductions and
the special cases of var / std, the cumulative functions with include_initial."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu import codecs
from npu_emu.kernels import reduce as reduce_family

from ._support import float32_defaults  # noqa: F401 (the fixture)

# These tests were written against the NPU's float32 defaults: they run with that setting
# of the switch (test_defaults.py checks the namespace's own, float64).
pytestmark = pytest.mark.usefixtures("float32_defaults")

RNG = np.random.default_rng(5)


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


def host(x: xp.Array) -> np.ndarray:
    return np.asarray(xp.astype(x, xp.float32)) if x.dtype == xp.hifloat8 else \
        np.array(np.asarray(x))


AXES = [None, 0, 1, -1, (0, 2), (2, 0, 1), ()]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "std", "var", "min", "max"])
def test_reductions_match_numpy(name, axis, keepdims):
    a = RNG.uniform(-2, 2, (3, 4, 5))
    got = getattr(xp, name)(xp.asarray(a, dtype=xp.float64), axis=axis, keepdims=keepdims)
    want = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    assert got.dtype == xp.float64 and got.shape == want.shape
    np.testing.assert_allclose(host(got), want, rtol=1e-12)


def test_float32_reductions_are_our_reduce_kernels():
    """The bits are the reduce family's (its fixed order, docs/reductions.md); the values
    are NumPy 2's float64 results within float32 rounding (min / max: exactly NumPy's)."""
    a = RNG.standard_normal((64, 257)).astype(np.float32)
    x = xp.asarray(a)
    a64 = a.astype(np.float64)
    for name in ("sum", "mean", "max", "min", "prod"):
        for axis in (None, 0, 1):
            got = host(getattr(xp, name)(x, axis=axis))
            np.testing.assert_array_equal(got, reduce_family.apply_numpy(name, a, axis))
            want = getattr(np, name)(a64, axis=axis)
            if name in ("max", "min"):
                np.testing.assert_array_equal(got, want.astype(np.float32))
            elif name == "prod":
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-30)   # underflows
            else:   # an absolute bound: the sums cancel
                scale = np.sum(np.abs(a64), axis=axis) / (1 if name == "sum" else a.size // want.size)
                assert np.all(np.abs(got - want) <= 2 ** -20 * scale), name
    got = host(xp.std(x, axis=1, correction=1))
    np.testing.assert_array_equal(got, reduce_family.apply_numpy("std", a, 1, correction=1))
    np.testing.assert_allclose(got, np.std(a64, axis=1, ddof=1), rtol=1e-5)


ACCUMULATED = {"int8": "int64", "int16": "int64", "int32": "int64", "int64": "int64",
               "uint8": "uint64", "uint16": "uint64", "uint32": "uint64", "uint64": "uint64",
               "bool": "int64", "float16": "float16", "float32": "float32",
               "complex64": "complex64"}


@pytest.mark.parametrize("dtype", list(ACCUMULATED))
@pytest.mark.parametrize("name", ["sum", "prod", "cumulative_sum", "cumulative_prod"])
def test_accumulation_dtype(name, dtype):
    a = (RNG.integers(0, 2, 6).astype(bool) if dtype == "bool" else
         RNG.integers(0 if dtype[0] == "u" else -3, 4, 6).astype(dtype))
    got = getattr(xp, name)(xp.asarray(a))
    assert got.dtype == getattr(xp, ACCUMULATED[dtype])
    np_name = {"cumulative_sum": "cumsum", "cumulative_prod": "cumprod"}.get(name, name)
    want = getattr(np, np_name)(a.astype(ACCUMULATED[dtype]))
    np.testing.assert_array_equal(host(got), want)


def test_explicit_dtype_casts_first():
    # int16 -> float16 rounds 2049 to 2048 before summing (the standard: cast, then compute)
    a = np.array([2049, 1, 3000], dtype=np.int16)
    got = xp.sum(xp.asarray(a), dtype=xp.float16)
    assert got.dtype == xp.float16
    want = np.float16(a.astype(np.float16).astype(np.float32).sum())
    assert host(got) == want
    got = xp.sum(xp.asarray(a), dtype=xp.float64)
    assert got.dtype == xp.float64 and host(got) == 5050.0
    assert xp.prod(xp.asarray([2, 3], dtype=xp.uint8), dtype=xp.int8).dtype == xp.int8
    with pytest.raises(TypeError, match="imaginary"):
        xp.sum(xp.asarray([1j]), dtype=xp.float32)
    with pytest.raises(TypeError, match="numeric"):
        xp.sum(xp.asarray([1.0]), dtype=xp.bool)


def test_narrow_floats_accumulate_in_float32():
    ones = np.ones(4096, dtype=np.float16)
    got = xp.cumulative_sum(xp.asarray(ones))
    # float16 accumulation would stop at 2048; float32 accumulation rounds each partial sum
    want = np.cumsum(ones, dtype=np.float32).astype(np.float16)
    np.testing.assert_array_equal(host(got), want)
    assert host(got)[-1] == 4096
    b = np.full(3000, 0.1, dtype=ml_dtypes.bfloat16)
    got = xp.sum(xp.asarray(b))
    assert got.dtype == xp.bfloat16
    assert host(got) == np.sum(b.astype(np.float32)).astype(ml_dtypes.bfloat16)
    m = xp.mean(xp.asarray(np.array([65504, 65504], dtype=np.float16)))
    assert host(m) == 65504          # no overflow: the sum is float32
    v = np.array([0.5, 1.5, 2.5, 6.0], dtype=np.float32)
    h = xp.astype(xp.asarray(v), xp.hifloat8)
    for name in ("sum", "mean", "max", "var"):
        got = getattr(xp, name)(h)
        assert got.dtype == xp.hifloat8
        want = codecs.decode(codecs.encode(np.float32(getattr(np, name)(v)), h.dtype.acl_dtype),
                             h.dtype.acl_dtype)
        assert host(got) == want


def test_integer_mean_std_var_give_the_default_float():
    a = np.array([[1, 2, 3], [4, 5, 7]], dtype=np.int32)
    for name in ("mean", "std", "var"):
        got = getattr(xp, name)(xp.asarray(a), axis=1)
        assert got.dtype == xp.float32
        np.testing.assert_allclose(host(got), getattr(np, name)(a.astype(np.float32), axis=1),
                                   rtol=1e-6)
    with pytest.raises(TypeError, match="real numeric"):
        xp.std(xp.asarray([1j, 2j]))
    with pytest.raises(TypeError, match="real numeric"):
        xp.max(xp.asarray([True]))


def test_nan_propagates():
    a = np.array([[1.0, np.nan, 2.0], [3.0, 4.0, 5.0]])
    for name in ("sum", "prod", "mean", "std", "var", "min", "max"):
        got = host(getattr(xp, name)(xp.asarray(a), axis=1))
        assert math.isnan(got[0]) and not math.isnan(got[1]), name


def test_empty_reductions_and_var_special_cases():
    e = xp.asarray(np.zeros((0, 3)))
    np.testing.assert_array_equal(host(xp.sum(e, axis=0)), [0, 0, 0])
    np.testing.assert_array_equal(host(xp.prod(e, axis=0)), [1, 1, 1])
    assert all(math.isnan(v) for v in host(xp.mean(e, axis=0)))
    assert host(xp.sum(e, axis=1)).shape == (0,)
    for name in ("min", "max"):
        with pytest.raises(ValueError, match="empty"):
            getattr(xp, name)(e, axis=0)
        assert host(getattr(xp, name)(e, axis=1)).shape == (0,)
    x = xp.asarray([1.0, 2.0, 4.0])
    assert math.isnan(host(xp.var(x, correction=3)))          # N - correction == 0
    assert math.isnan(host(xp.std(x, correction=5)))          # N - correction < 0
    assert host(xp.var(x, correction=1.5)) == pytest.approx(np.var([1, 2, 4], ddof=1.5))
    with pytest.raises(ValueError, match="correction"):
        xp.var(x, correction=-1)


def test_axis_errors():
    x = xp.asarray(np.zeros((2, 3)))
    with pytest.raises(IndexError):
        xp.sum(x, axis=2)
    with pytest.raises(ValueError, match="twice"):
        xp.mean(x, axis=(1, -1))
    with pytest.raises(TypeError, match="keepdims"):
        xp.max(x, keepdims=1)
    with pytest.raises(TypeError, match="no dtype|dtype"):
        xp.mean(x, dtype=xp.float64)
    for axis in (True, (0, True), np.bool_(False)):      # NumPy and strict refuse them too
        xp.sum(x, axis=1)                                  # (after a call the short way keeps)
        with pytest.raises(TypeError, match="bool names no axis"):
            xp.sum(x, axis=axis)


@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_cumulative(name, axis, include_initial):
    a = RNG.integers(-3, 4, (3, 4)).astype(np.int16)
    got = getattr(xp, name)(xp.asarray(a), axis=axis, include_initial=include_initial)
    fn = np.cumsum if name == "cumulative_sum" else np.cumprod
    want = fn(a.astype(np.int64), axis=axis)
    if include_initial:
        shape = list(a.shape)
        shape[axis] = 1
        want = np.concatenate([np.full(shape, 0 if name == "cumulative_sum" else 1), want],
                              axis=axis)
    assert got.dtype == xp.int64
    np.testing.assert_array_equal(host(got), want)


def test_cumulative_rules():
    with pytest.raises(ValueError, match="axis is required"):
        xp.cumulative_sum(xp.asarray(np.ones((2, 2))))
    with pytest.raises(ValueError, match="0-d"):
        xp.cumulative_prod(xp.asarray(1.0))
    one = xp.cumulative_sum(xp.asarray([1.0, 2.0, 3.0]), include_initial=True)
    np.testing.assert_array_equal(host(one), [0, 1, 3, 6])
    empty = xp.cumulative_sum(xp.asarray(np.zeros(0, np.float32)), include_initial=True)
    np.testing.assert_array_equal(host(empty), [0])
    got = xp.cumulative_prod(xp.asarray([2, 3], dtype=xp.int8), dtype=xp.float64)
    assert got.dtype == xp.float64
    np.testing.assert_array_equal(host(got), [2, 6])


def test_views_are_read_in_place():
    a = RNG.standard_normal((6, 8))
    x = xp.asarray(a)
    np.testing.assert_allclose(host(xp.sum(x[::-2, 1::3], axis=0)), a[::-2, 1::3].sum(axis=0))
    np.testing.assert_allclose(host(xp.var(x.T, axis=1)), a.T.var(axis=1))
    np.testing.assert_array_equal(host(xp.max(x[:, ::-1], axis=1, keepdims=True)),
                                  a[:, ::-1].max(axis=1, keepdims=True))


def test_results_are_arrays_on_the_same_device():
    x = xp.asarray([1.0, 2.0])
    for name in ("sum", "prod", "mean", "std", "var", "min", "max", "cumulative_sum",
                 "cumulative_prod"):
        got = getattr(xp, name)(x)
        assert isinstance(got, xp.Array) and got.device == x.device
    with pytest.raises(TypeError, match="not an array"):
        xp.sum(np.ones(3))


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("axis", [0, 1])
def test_a_running_result_of_a_transposed_array_keeps_its_order_and_bits(cpu_backend, name,
                                                                         axis):
    """cumulative_sum / cumulative_prod of x.T, include_initial too: laid out in x.T's
    order (so the scan runs along memory), with the bits of the same scan on a row-major
    copy."""
    a = np.random.default_rng(13).uniform(0.5, 1.5, (70, 90)).astype(np.float32)
    x = xp.asarray(a)
    f = getattr(xp, name)
    got = f(x.T, axis=axis)
    want = f(xp.asarray(np.ascontiguousarray(a.T)), axis=axis)
    g = np.asarray(got)
    assert g.flags.f_contiguous and not g.flags.c_contiguous
    assert g.tobytes(order="C") == np.asarray(want).tobytes(order="C")
    ref = (np.cumsum if name == "cumulative_sum" else np.cumprod)(a.T.astype(np.float64), axis)
    assert np.allclose(g, ref, rtol=1e-5)
    init = np.asarray(f(x.T, axis=axis, include_initial=True))
    assert init.flags.f_contiguous and not init.flags.c_contiguous
    want_init = np.asarray(f(xp.asarray(np.ascontiguousarray(a.T)), axis=axis,
                             include_initial=True))
    assert init.tobytes(order="C") == want_init.tobytes(order="C")
