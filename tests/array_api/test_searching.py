"""Searching functions against NumPy: argmax / argmin (first occurrence, NaN first),
count_nonzero and nonzero (-0.0 is zero, complex by either part), searchsorted (both sides,
a sorter, promoted operands), and where (promotion by the rule set, Python scalars, bits of
the chosen branch kept), for the standard's dtypes and the NPU's narrow floats."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import npu_emu.array_api as xp

from ._support import (ALL, FLOATS, NARROW_FLOATS, REAL, SPECIAL, as_float, bits, make, sample,
                       values)

RNG = np.random.default_rng(13)


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


# ------------------------------------------------------------------ argmax, argmin

@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("fname", ["argmax", "argmin"])
def test_arg_reductions_match_numpy(fname, dtype):
    x = sample(dtype, (3, 4, 5), RNG)
    host = as_float(values(x))
    fn, ref = getattr(xp, fname), getattr(np, fname)
    for axis in (None, 0, 1, -1):
        for keepdims in (False, True):
            got = fn(x, axis=axis, keepdims=keepdims)
            want = ref(host, axis=axis, keepdims=keepdims)
            assert got.dtype == xp.int64 and got.shape == np.shape(want)
            np.testing.assert_array_equal(values(got), want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_arg_reductions_find_the_first_nan_and_first_tie(dtype):
    x = make(np.array([1.0, 3.0, np.nan, 3.0, np.nan, -2.0, -2.0]), dtype)
    assert int(xp.argmax(x)) == 2 and int(xp.argmin(x)) == 2
    y = make(np.array([1.0, 3.0, -0.0, 3.0, 0.0, -2.0, -2.0]), dtype)
    assert int(xp.argmax(y)) == 1 and int(xp.argmin(y)) == 5


def test_arg_reductions_refuse_empty_and_complex():
    with pytest.raises(ValueError, match="empty"):
        xp.argmax(xp.zeros((0, 3)))
    with pytest.raises(TypeError, match="no order"):
        xp.argmin(xp.asarray([1j]))
    with pytest.raises(IndexError):
        xp.argmax(xp.zeros((2, 3)), axis=2)



@pytest.mark.parametrize("fname", ["argmax", "argmin"])
@pytest.mark.parametrize("shape,axis,keepdims", [((0, 2), 1, False), ((2, 0), 0, False),
                                                 ((0, 3, 2), -1, True), ((4, 0), 0, True)])
def test_arg_reductions_of_no_row_give_no_index(fname, shape, axis, keepdims):
    """Empty only along a kept axis: an empty index array, as NumPy gives (the reduced axis
    has elements); empty along the reduced axis: ValueError naming it."""
    got = getattr(xp, fname)(xp.zeros(shape), axis=axis, keepdims=keepdims)
    want = getattr(np, fname)(np.zeros(shape), axis=axis, keepdims=keepdims)
    assert got.shape == want.shape and got.dtype == xp.int64
    with pytest.raises(ValueError, match=r"empty axis 1 \(shape \(3, 0\)\)"):
        getattr(xp, fname)(xp.zeros((3, 0)), axis=1)


# ---------------------------------------------------------- count_nonzero, nonzero

@pytest.mark.parametrize("dtype", ALL)
def test_count_nonzero_and_nonzero_match_numpy(dtype):
    x = sample(dtype, (3, 2, 4), RNG)
    host = values(x).astype(np.complex128 if dtype.startswith("complex") else
                            bool if dtype == "bool" else np.float64)
    for axis in (None, 1, (0, 2), ()):
        for keepdims in (False, True):
            got = xp.count_nonzero(x, axis=axis, keepdims=keepdims)
            want = np.count_nonzero(host, axis=axis, keepdims=keepdims)
            assert got.dtype == xp.int64
            np.testing.assert_array_equal(values(got), want)
    got = xp.nonzero(x)
    assert len(got) == 3 and all(i.dtype == xp.int64 for i in got)
    for g, w in zip(got, np.nonzero(host)):
        np.testing.assert_array_equal(values(g), w)


@pytest.mark.parametrize("dtype", FLOATS + ["complex64"])
def test_signed_zero_is_zero_and_nan_is_not(dtype):
    v = np.array([0.0, -0.0, np.nan, 1.0, 0.0])
    if dtype == "complex64":
        v = v + np.array([0, 0, 0, 0, -1j])    # an imaginary part alone is non-zero
    x = make(v, dtype)
    want = 3 if dtype == "complex64" else 2
    assert int(xp.count_nonzero(x)) == want
    np.testing.assert_array_equal(values(xp.nonzero(x)[0]), np.nonzero(v)[0])


def test_nonzero_refuses_a_0d_array():
    with pytest.raises(ValueError, match="0-d"):
        xp.nonzero(xp.asarray(1))


# -------------------------------------------------------------------- searchsorted

@given(a=st.lists(st.integers(-5, 5), max_size=8), v=st.lists(st.integers(-6, 6), max_size=5),
       side=st.sampled_from(["left", "right"]))
def test_searchsorted_matches_numpy(a, v, side):
    sorted_a = np.sort(np.array(a, dtype=np.int64))
    x1, x2 = xp.asarray(sorted_a), xp.asarray(np.array(v, dtype=np.int64))
    got = xp.searchsorted(x1, x2, side=side)
    assert got.dtype == xp.int64
    np.testing.assert_array_equal(values(got), np.searchsorted(sorted_a, v, side=side))
    # The same with x1 unsorted and a sorter.
    shuffled = np.array(a, dtype=np.int64)
    order = np.argsort(shuffled, kind="stable")
    got = xp.searchsorted(xp.asarray(shuffled), x2, side=side, sorter=xp.asarray(order))
    np.testing.assert_array_equal(values(got), np.searchsorted(shuffled, v, side=side,
                                                                sorter=order))


@pytest.mark.parametrize("dtype", NARROW_FLOATS + ["float64"])
def test_searchsorted_on_floats_with_infinities_and_nan(dtype):
    a = make(np.array([-np.inf, -1.0, 0.0, 0.5, 2.0, np.inf, np.nan]), dtype)
    if dtype == "float8_e4m3fn":       # no infinities there (they become NaN)
        a = make(np.array([-1.0, 0.0, 0.5, 2.0, np.nan]), dtype)
    host = as_float(values(a))
    probes = np.array([-3.0, -1.0, 0.0, -0.0, 0.25, 2.0, 100.0])
    for side in ("left", "right"):
        got = xp.searchsorted(a, make(probes, dtype), side=side)
        want = np.searchsorted(host, as_float(values(make(probes, dtype))), side=side)
        np.testing.assert_array_equal(values(got), want)


def test_searchsorted_promotes_and_checks():
    a = xp.asarray([1, 3, 5], dtype=xp.int8)
    got = xp.searchsorted(a, xp.asarray([2.5, 5.0], dtype=xp.float32))
    np.testing.assert_array_equal(values(got), [1, 2])
    np.testing.assert_array_equal(values(xp.searchsorted(a, 3, side="right")), 2)
    with pytest.raises(ValueError, match="1-D"):
        xp.searchsorted(xp.zeros((2, 2)), xp.zeros(1))
    with pytest.raises(ValueError, match="side"):
        xp.searchsorted(a, a, side="middle")
    with pytest.raises(ValueError, match="sorter has shape"):
        xp.searchsorted(a, a, sorter=xp.asarray([0, 1]))


# ---------------------------------------------------------------------------- where

@given(data=st.data())
def test_where_broadcasts_like_numpy(data):
    shapes = [data.draw(st.lists(st.integers(1, 3), max_size=3).map(tuple)) for _ in range(3)]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return
    c = RNG.integers(0, 2, shapes[0]).astype(bool)
    a = RNG.integers(-9, 9, shapes[1]).astype(np.int16)
    b = RNG.integers(-9, 9, shapes[2]).astype(np.int16)
    got = xp.where(xp.asarray(c), xp.asarray(a), xp.asarray(b))
    np.testing.assert_array_equal(values(got), np.where(c, a, b))


@pytest.mark.parametrize("d1,d2", [("int8", "int16"), ("uint8", "int8"), ("float16", "float32"),
                                   ("bfloat16", "float32"), ("int32", "float32"),
                                   ("hifloat8", "hifloat8"), ("complex64", "float64")])
def test_where_promotes_by_the_rule_set(d1, d2):
    a, b = sample(d1, (6,), RNG), sample(d2, (6,), RNG)
    c = xp.asarray(np.array([1, 0, 1, 1, 0, 0], dtype=bool))
    got = xp.where(c, a, b)
    assert got.dtype == xp.result_type(a, b)
    want = np.where(values(c), as_float(values(a)), as_float(values(b)))
    np.testing.assert_array_equal(as_float(values(got)), want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_where_keeps_the_bits_of_the_chosen_elements(dtype):
    a = make(np.array(SPECIAL), dtype)
    b = make(np.array(SPECIAL[::-1]), dtype)
    c = np.array([1, 0, 1, 0, 1, 0, 1], dtype=bool)
    got = xp.where(xp.asarray(c), a, b)
    np.testing.assert_array_equal(bits(got), np.where(c, bits(a), bits(b)))


def test_where_of_reversed_strided_and_broadcast_views_reads_their_elements():
    # Branches of one dtype take the library's copies; they read any view as the general
    # path does, and the result is new memory.
    a = RNG.standard_normal((4, 6))
    b = RNG.standard_normal(6)
    c = RNG.integers(0, 2, (4, 6)).astype(bool)
    x, y, cond = xp.asarray(a)[::-1, ::2], xp.asarray(b)[::-2], xp.asarray(c)[:, 1::2][::-1]
    got = xp.where(cond, x, y)
    want = np.where(c[:, 1::2][::-1], a[::-1, ::2], b[::-2])
    np.testing.assert_array_equal(values(got), want)
    got[...] = 0.0
    np.testing.assert_array_equal(values(x), a[::-1, ::2])
    np.testing.assert_array_equal(values(y), b[::-2])
    # The same call through the general path (a float32 branch promoted) agrees.
    y32 = xp.asarray(b.astype(np.float32))[::-2]
    np.testing.assert_array_equal(values(xp.where(cond, x, y32)),
                                  np.where(c[:, 1::2][::-1], a[::-1, ::2],
                                           b.astype(np.float32)[::-2].astype(np.float64)))
    assert xp.where(cond[:0], x[:0], y).shape == (0, 3)


def test_where_with_python_scalars_and_numeric_conditions():
    x = xp.asarray([1.5, -2.0, 3.0], dtype=xp.float16)
    got = xp.where(x > 0, x, 0)
    assert got.dtype == xp.float16
    np.testing.assert_array_equal(values(got), np.array([1.5, 0, 3.0], np.float16))
    assert xp.where(x > 0, 1.5, x).dtype == xp.float16
    i = xp.asarray([1, 2, 3], dtype=xp.int8)
    assert xp.where(i > 1, i, -1).dtype == xp.int8
    # A non-bool condition means "non-zero" (NumPy's reading).
    np.testing.assert_array_equal(values(xp.where(xp.asarray([0, 2, -0.0]), 1, i)), [1, 1, 3])
    with pytest.raises(TypeError, match="at least one"):
        xp.where(x > 0, 1, 2)
    with pytest.raises(ValueError):
        xp.where(xp.asarray([True, False]), i, i)


@pytest.mark.parametrize("value", [-0.0, float("nan"), -float("nan"), 1e40, 1.4e-45, 2.5])
def test_a_python_scalar_branch_gives_its_converted_bits(value):
    # A scalar branch is the shared 0-d constant of its value in the array's dtype (float32,
    # by NumPy's float32 rounding); the result is new memory, the constant stays as it was.
    a = RNG.standard_normal(7).astype(np.float32)
    c = np.array([1, 0, 1, 0, 0, 1, 0], dtype=bool)
    x, cond = xp.asarray(a), xp.asarray(c)
    with np.errstate(over="ignore"):
        s32 = np.float32(value)
    for got, want in ((xp.where(cond, x, value), np.where(c, a, s32)),
                      (xp.where(cond, value, x), np.where(c, s32, a))):
        assert got.dtype == xp.float32
        np.testing.assert_array_equal(bits(got).view(np.uint32), want.view(np.uint32))
        got[...] = 7.0
    again = xp.where(cond, x, value)
    np.testing.assert_array_equal(bits(again).view(np.uint32), np.where(c, a, s32).view(np.uint32))


def test_where_with_the_condition_alone_is_nonzero():
    c = xp.asarray([[True, False], [False, True]])
    got = xp.where(c)
    want = np.nonzero(np.asarray(c))
    assert len(got) == 2 and all(np.array_equal(np.asarray(g), w) for g, w in zip(got, want))
    with pytest.raises(TypeError):
        xp.where(c, xp.asarray(1.0))
