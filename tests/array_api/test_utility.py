"""Utility functions: all and any against NumPy (NaN and complex truth, empty reductions,
axes, the narrow floats), diff against NumPy (n, axis, prepend / append, views), and diff's
steps being our subtract (aclnnAdd where the SoC has the dtype)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu.array_api._engine import kernel as _calls

RNG = np.random.default_rng(8)


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1, ()])
@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any_match_numpy(name, axis, keepdims):
    a = np.array([[0.0, np.nan, 1.0], [0.0, -0.0, 0.0], [2.0, 3.0, -1.0]])
    got = getattr(xp, name)(xp.asarray(a), axis=axis, keepdims=keepdims)
    want = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    assert got.dtype == xp.bool and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float16", "bfloat16",
                                   "float8_e4m3fn", "hifloat8", "complex64"])
def test_all_any_every_dtype(dtype):
    base = np.array([[0, 1, 0], [2, 0, 0]], dtype=np.float32)
    if dtype == "complex64":
        a = np.array([[0, 1j, 0], [2, 0, 0]], dtype=np.complex64)
        x = xp.asarray(a)
    elif dtype == "bool":
        a = base.astype(bool)
        x = xp.asarray(a)
    else:
        a = base
        x = xp.astype(xp.asarray(base), getattr(xp, dtype))
    for name in ("all", "any"):
        for axis in (None, 0, 1):
            np.testing.assert_array_equal(np.asarray(getattr(xp, name)(x, axis=axis)),
                                          getattr(np, name)(a, axis=axis))


def test_empty_all_is_true_any_is_false():
    e = xp.asarray(np.zeros((0, 2)))
    assert bool(xp.all(e)) and not bool(xp.any(e))
    np.testing.assert_array_equal(np.asarray(xp.all(e, axis=0)), [True, True])
    assert np.asarray(xp.any(e, axis=1)).shape == (0,)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float32", "int16", "uint8", "float16", "complex128"])
def test_diff_matches_numpy(dtype, axis, n):
    a = (RNG.integers(0, 9, (4, 5)) * (1 + 1j if dtype == "complex128" else 1)).astype(dtype)
    got = xp.diff(xp.asarray(a), axis=axis, n=n)
    want = np.diff(a, axis=axis, n=n)      # uint8 wraps as on the NPU (x - y modulo 2^8)
    assert got.dtype == getattr(xp, dtype) and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


def test_diff_prepend_append_and_views():
    a = RNG.standard_normal((3, 6)).astype(np.float32)
    p, q = RNG.standard_normal((3, 2)).astype(np.float32), RNG.standard_normal((3, 1))
    got = xp.diff(xp.asarray(a), prepend=xp.asarray(p), append=xp.asarray(q.astype(np.float32)))
    np.testing.assert_array_equal(np.asarray(got), np.diff(a, prepend=p,
                                                           append=q.astype(np.float32)))
    # another dtype promotes (float32 with float64: float64), as concat does
    mixed = xp.diff(xp.asarray(a), axis=1, append=xp.asarray(q))
    assert mixed.dtype == xp.float64
    np.testing.assert_allclose(np.asarray(mixed), np.diff(a.astype(np.float64), append=q))
    np.testing.assert_array_equal(np.asarray(xp.diff(xp.asarray(a)[::-1, ::2], axis=0)),
                                  np.diff(a[::-1, ::2], axis=0))
    b = np.arange(4, dtype=ml_dtypes.bfloat16) * 3
    np.testing.assert_array_equal(np.asarray(xp.diff(xp.asarray(b))), np.diff(b))


def test_diff_takes_n_and_axis_by_position_as_numpy():
    a = RNG.integers(0, 50, (3, 6)).astype(np.int32)
    np.testing.assert_array_equal(np.asarray(xp.diff(xp.asarray(a), 2)), np.diff(a, 2))
    np.testing.assert_array_equal(np.asarray(xp.diff(xp.asarray(a), 1, 0)), np.diff(a, 1, 0))


def test_diff_errors():
    with pytest.raises(TypeError, match="numeric"):
        xp.diff(xp.asarray([True, False]))
    with pytest.raises(ValueError, match="0-d"):
        xp.diff(xp.asarray(1.0))
    with pytest.raises(ValueError, match="n=-1"):
        xp.diff(xp.asarray([1.0, 2.0]), n=-1)
    with pytest.raises(IndexError):
        xp.diff(xp.asarray([1.0, 2.0]), axis=1)
    with pytest.raises(ValueError):
        xp.diff(xp.asarray(np.ones((2, 3))), axis=1, prepend=xp.asarray(np.ones((3, 1))))
    with pytest.raises(TypeError, match="diff: prepend"):
        xp.diff(xp.asarray([1, 2]), prepend=0)
    with pytest.raises(TypeError, match="diff: append"):
        xp.diff(xp.asarray([1, 2]), append=[3])


def test_diff_steps_are_our_subtract(monkeypatch):
    calls = []
    real = _calls.run
    monkeypatch.setattr(_calls, "run", lambda op, *a, **k: (calls.append(op.name),
                                                            real(op, *a, **k))[1])
    x = xp.asarray(np.arange(10, dtype=np.float32) ** 2)
    got = xp.diff(x, n=2)
    assert calls == ["Add", "Add"]                 # aclnnAdd with alpha -1, one per step
    np.testing.assert_array_equal(np.asarray(got), np.full(8, 2.0, np.float32))
