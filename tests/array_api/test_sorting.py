"""sort and argsort against NumPy's stable sort and a hand-written stable descending order:
equal elements keep their order both ways (signed zeros included, read from the bits), NaNs
go last ascending and first descending, and the narrow floats order as their values."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import npu_emu.array_api as xp

from ._support import FLOATS, REAL, SPECIAL, as_float, bits, make, sample, values

RNG = np.random.default_rng(14)


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


def stable_descending(v: np.ndarray, axis: int) -> np.ndarray:
    """Indices sorting v descending, equal elements in their order, NaN first: Python's
    stable sort per 1-D slice, on keys (not NaN, -value)."""
    v = np.moveaxis(v, axis, -1)
    out = np.empty(v.shape, dtype=np.int64)
    for idx in np.ndindex(v.shape[:-1]):
        row = v[idx]
        out[idx] = sorted(range(len(row)),
                          key=lambda i: (not np.isnan(row[i]), -row[i] if not np.isnan(row[i])
                                         else 0))
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("dtype", REAL)
def test_argsort_and_sort_match_stable_orders(dtype):
    x = sample(dtype, (3, 7), RNG)
    host = as_float(values(x))
    for axis in (0, -1):
        asc = xp.argsort(x, axis=axis)
        assert asc.dtype == xp.int64
        np.testing.assert_array_equal(values(asc), np.argsort(host, axis=axis, kind="stable"))
        desc = xp.argsort(x, axis=axis, descending=True)
        np.testing.assert_array_equal(values(desc), stable_descending(host, axis))
        got = xp.sort(x, axis=axis)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(bits(got), np.take_along_axis(bits(x), values(asc), axis))
        got = xp.sort(x, axis=axis, descending=True)
        np.testing.assert_array_equal(bits(got), np.take_along_axis(bits(x), values(desc), axis))


@pytest.mark.parametrize("dtype", FLOATS)
def test_special_values_order_and_signed_zeros_keep_their_places(dtype):
    v = np.array(SPECIAL + [-0.0, 0.0, np.nan, 3.0])
    x = make(v, dtype)
    host = as_float(values(x))
    asc = values(xp.argsort(x))
    np.testing.assert_array_equal(asc, np.argsort(host, kind="stable"))
    desc = values(xp.argsort(x, descending=True))
    np.testing.assert_array_equal(desc, stable_descending(host, 0))
    # The zeros (0.0, -0.0, -0.0, 0.0 in x's order) come out in that order either way.
    for order in (asc, desc):
        zeros = [i for i in order if host[i] == 0]
        assert zeros == sorted(zeros)
    np.testing.assert_array_equal(bits(xp.sort(x, descending=True)), bits(x)[desc])


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int32", "uint32", "int16", "uint8",
                                   "bool"])
def test_argsort_of_many_ties_nans_and_extremes(dtype):
    """Values of up to 32 bits sort by unique keys on the cpu backend (_sorting): rows of 700
    drawn from a few values -- both zeros, infinities, NaNs with payloads and signs (a
    signalling one too), the integers' extremes -- against the stable orders, and no
    warning."""
    if dtype in ("float32", "bfloat16"):
        nans = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7F800001], np.uint32).view(np.float32)
        pool = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, 1.5, -1.5, 3e38, -1e-45],
                                        np.float32), nans])
        host = RNG.choice(pool, (3, 700))
        x = xp.asarray(host, dtype=getattr(xp, dtype))
    elif dtype == "bool":
        x = xp.asarray(RNG.integers(0, 2, (3, 700)).astype(bool))
    else:
        info = np.iinfo(dtype)
        x = xp.asarray(RNG.choice(np.array([info.min, info.max, 0, 1, info.min + 1], dtype=dtype),
                                  (3, 700)))
    with np.errstate(invalid="ignore"):      # the signalling NaN, widened
        host = as_float(values(x))
    for axis in (0, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            asc, desc = xp.argsort(x, axis=axis), xp.argsort(x, axis=axis, descending=True)
        np.testing.assert_array_equal(values(asc), np.argsort(host, axis=axis, kind="stable"))
        np.testing.assert_array_equal(values(desc), stable_descending(host, axis))


@given(v=st.lists(st.integers(-3, 3), max_size=12), descending=st.booleans(),
       stable=st.booleans())
def test_argsort_is_stable_on_ties(v, descending, stable):
    x = xp.asarray(np.array(v, dtype=np.int8))
    got = values(xp.argsort(x, descending=descending, stable=stable))
    key = (lambda i: -v[i]) if descending else (lambda i: v[i])
    assert list(got) == sorted(range(len(v)), key=key)


def test_sort_of_0d_and_empty_arrays_and_refusals():
    assert float(xp.sort(xp.asarray(2.5))) == 2.5
    assert int(xp.argsort(xp.asarray(2.5))) == 0
    assert xp.sort(xp.zeros((0, 3)), axis=0).shape == (0, 3)
    assert xp.argsort(xp.zeros((2, 0))).shape == (2, 0)
    with pytest.raises(TypeError, match="no order"):
        xp.sort(xp.asarray([1j, 2]))
    with pytest.raises(IndexError):
        xp.argsort(xp.zeros((2, 3)), axis=2)


@pytest.mark.parametrize("dtype", FLOATS)
def test_sort_keeps_zeros_and_nans_in_their_order_on_every_axis(dtype):
    """sort takes NumPy's fast sort (descending: read backwards) and puts the signed zeros
    and the NaNs (payloads differ; a narrow float's do not survive its float32 value) back
    in their order: the stable sorts' bits (NumPy's ascending, the hand-written descending),
    lane by lane, along each axis of a 3-d array, with many of both in every lane."""
    rng = np.random.default_rng(41)
    v = rng.choice(np.array([-0.0, 0.0, np.nan, -np.nan, 1.5, -2.0, np.inf]), (5, 6, 40))
    x = make(v, dtype)
    raw = x._raw()
    word = raw.view(f"u{raw.itemsize}")
    nan = np.isnan(as_float(values(x)))
    if raw.itemsize > 1:          # other NaN payloads (the 1-byte types have no room to spare)
        word[nan] ^= rng.integers(0, 4, nan.sum()).astype(word.dtype)
        assert len(set(word[nan].tolist())) > 2
    host = as_float(values(x))
    for axis in (0, 1, 2, -1):
        want = np.take_along_axis(bits(x), np.argsort(host, axis=axis, kind="stable"), axis)
        np.testing.assert_array_equal(bits(xp.sort(x, axis=axis)), want)
        want = np.take_along_axis(bits(x), stable_descending(host, axis), axis)
        np.testing.assert_array_equal(bits(xp.sort(x, axis=axis, descending=True)), want)



@pytest.mark.parametrize("dtype", FLOATS)
def test_sort_finds_the_runs_to_restore_however_few(dtype):
    """sort restores the zeros' run only where x holds a -0, and the NaNs' only where a lane
    ends in a NaN (ascending): one -0 in the whole array, one NaN in one lane, +0 alone with
    NaN payloads elsewhere, and neither, all give the stable sorts' bits along each axis."""
    rng = np.random.default_rng(43)
    base = rng.choice(np.array([0.5, 1.5, -2.0, 3.0, 0.0]), (6, 7, 33))
    cases = {"one -0": base.copy(), "one NaN": base.copy(), "+0 and NaNs": base.copy(),
             "neither": np.where(base == 0, 4.0, base)}
    cases["one -0"][2, 3, 17] = -0.0
    cases["one NaN"][4, 1, 5] = np.nan
    cases["+0 and NaNs"][rng.random(base.shape) < 0.05] = np.nan
    for name, v in cases.items():
        x = make(v, dtype)
        raw = x._raw()
        nan = np.isnan(as_float(values(x)))
        if raw.itemsize > 1 and nan.sum() > 1:      # NaN payloads of their own
            word = raw.view(f"u{raw.itemsize}")
            word[nan] ^= rng.integers(0, 4, nan.sum()).astype(word.dtype)
        host = as_float(values(x))
        for axis in (0, 1, 2):
            want = np.take_along_axis(bits(x), np.argsort(host, axis=axis, kind="stable"), axis)
            np.testing.assert_array_equal(bits(xp.sort(x, axis=axis)), want, err_msg=f"{name} {axis}")
            want = np.take_along_axis(bits(x), stable_descending(host, axis), axis)
            np.testing.assert_array_equal(bits(xp.sort(x, axis=axis, descending=True)), want,
                                          err_msg=f"{name} {axis} descending")
