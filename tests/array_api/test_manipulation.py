"""Manipulation functions against NumPy: the views (reshape, squeeze, moveaxis, flip, unstack)
share memory; the data movement (concat, stack, roll, tile, repeat) is InplaceCopy into views
of the result, one launch per piece, bit-exact for every dtype and promoted by the rule set;
take / take_along_axis gather bits; clip keeps x's dtype with NaN propagating."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import npu_emu.array_api as xp

from ._support import (ALL, FLOATS, NARROW_FLOATS, SPECIAL, as_float, bits, core_calls, make,
                       sample, values)

RNG = np.random.default_rng(12)


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


def ints(shape: tuple[int, ...], start: int = 0) -> tuple[np.ndarray, xp.Array]:
    host = np.arange(start, start + int(np.prod(shape)), dtype=np.int32).reshape(shape)
    return host, xp.asarray(host)


SHAPES = st.lists(st.integers(0, 4), min_size=1, max_size=4).map(tuple)


def strided(host: np.ndarray, x: xp.Array, step: int) -> tuple[np.ndarray, xp.Array]:
    """The same non-contiguous view of both (every `step`-th element of the last axis,
    backwards when step < 0)."""
    key = (Ellipsis, slice(None, None, step))
    return host[key], x[key]


# ------------------------------------------------------------------- concat, stack

@given(shape=SHAPES, n=st.integers(1, 3), data=st.data())
def test_concat_matches_numpy(shape, n, data):
    axis = data.draw(st.integers(0, len(shape) - 1) | st.none())
    step = data.draw(st.sampled_from([1, 2, -1]))
    hosts, arrays = [], []
    for i in range(n):
        s = list(shape)
        if axis is not None:
            s[axis] = data.draw(st.integers(0, 3))
        h, x = ints(tuple(s) + (2,), start=100 * i)
        h, x = strided(h, x, step)
        hosts.append(h)
        arrays.append(x)
    if axis is not None and data.draw(st.booleans()):
        axis -= len(shape) + 1          # the same axis, counted from the end
    got = xp.concat(arrays, axis=axis)
    want = np.concatenate(hosts, axis=axis)
    assert got.shape == want.shape
    np.testing.assert_array_equal(values(got), want)


@pytest.mark.parametrize("dtype", ALL)
def test_concat_and_stack_move_bits_of_every_dtype(dtype):
    a, b = sample(dtype, (2, 3), RNG), sample(dtype, (2, 3), RNG)
    if dtype in FLOATS:
        a = make(np.array(SPECIAL[:6]).reshape(2, 3), dtype)   # signed zeros, inf, NaN
    for got, want in ((xp.concat([a, b], axis=1), np.concatenate([bits(a), bits(b)], axis=1)),
                      (xp.concat([a, b], axis=None), np.concatenate([bits(a).ravel(),
                                                                     bits(b).ravel()])),
                      (xp.stack([a, b], axis=-1), np.stack([bits(a), bits(b)], axis=-1))):
        assert got.dtype == getattr(xp, dtype)
        np.testing.assert_array_equal(bits(got), want)


@pytest.mark.parametrize("d1,d2", [("int8", "int16"), ("uint8", "int8"), ("int32", "float32"),
                                   ("float16", "float32"), ("bfloat16", "float32"),
                                   ("bool", "int32"), ("float32", "complex64")])
def test_concat_and_stack_promote_by_the_rule_set(d1, d2):
    a, b = sample(d1, (2, 2), RNG), sample(d2, (2, 2), RNG)
    want_dtype = xp.result_type(a, b)
    want = np.concatenate([as_float(values(a)), as_float(values(b))])
    got = xp.concat([a, b])
    assert got.dtype == want_dtype
    np.testing.assert_array_equal(as_float(values(got)), want)
    assert xp.stack([a, b]).dtype == want_dtype


@given(shape=st.lists(st.integers(0, 3), max_size=3).map(tuple), n=st.integers(1, 3),
       data=st.data())
def test_stack_matches_numpy(shape, n, data):
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    pairs = [ints(shape, 10 * i) for i in range(n)]
    got = xp.stack([x for _, x in pairs], axis=axis)
    np.testing.assert_array_equal(values(got), np.stack([h for h, _ in pairs], axis=axis))


def test_concat_and_stack_refuse_bad_input():
    a, b = xp.zeros((2, 3)), xp.zeros((3, 2))
    with pytest.raises(ValueError, match="except along axis"):
        xp.concat([a, b])
    with pytest.raises(ValueError, match="one shape"):
        xp.stack([a, b])
    with pytest.raises(ValueError, match="at least one"):
        xp.concat([])
    with pytest.raises(TypeError, match="tuple or list"):
        xp.concat(a)
    with pytest.raises(ValueError, match="0-dimensional"):
        xp.concat([xp.zeros(()), xp.zeros(())])
    with pytest.raises(IndexError):
        xp.concat([a, a], axis=2)
    with pytest.raises(TypeError, match="no promoted dtype|promot"):
        xp.concat([xp.zeros(2, dtype=xp.uint64), xp.zeros(2, dtype=xp.int64)])


# ------------------------------------------------------------ one launch per piece

def test_data_movement_is_one_launch_per_piece(monkeypatch):
    x = sample("float32", (3, 4), RNG)
    cases = [
        (lambda: xp.concat([x, x, x]), ["InplaceCopy"] * 3),
        (lambda: xp.concat([x, x[:0], x]), ["InplaceCopy"] * 2),     # empty pieces: nothing
        (lambda: xp.stack([x, x]), ["InplaceCopy"] * 2),
        (lambda: xp.tile(x, (2, 3)), ["InplaceCopy"]),
        (lambda: xp.repeat(x, 3, axis=1), ["InplaceCopy"]),
        (lambda: xp.roll(x, 1, axis=0), ["InplaceCopy"] * 2),
        (lambda: xp.roll(x, (1, 2), axis=(0, 1)), ["InplaceCopy"] * 4),
        (lambda: xp.roll(x, 3, axis=0), ["InplaceCopy"]),             # a whole turn: one copy
        (lambda: xp.flip(x), []), (lambda: xp.moveaxis(x, 0, 1), []),
        (lambda: xp.unstack(x), []), (lambda: xp.reshape(x, (12,)), []),
    ]
    for fn, launches in cases:
        with core_calls(monkeypatch) as seen:
            fn()
        assert seen == launches, fn


# ------------------------------------------------------------------ tile, repeat

@given(shape=st.lists(st.integers(0, 3), max_size=4).map(tuple),
       reps=st.lists(st.integers(0, 3), max_size=4).map(tuple), step=st.sampled_from([1, -1]))
def test_tile_matches_numpy(shape, reps, step):
    h, x = ints(shape + (2,))
    h, x = strided(h, x, step)
    got = xp.tile(x, reps)
    np.testing.assert_array_equal(values(got), np.tile(h, reps))


def test_tile_beyond_the_operators_eight_dims():
    # 5 tiled axes make a 10-dim view: neighbours merge, then the leading index loops.
    h, x = ints((2, 3, 2, 1, 2))
    for reps in ((2, 2, 2, 2, 2), (2, 1, 2, 3, 1), (3, 2, 2, 2, 2, 2)):
        np.testing.assert_array_equal(values(xp.tile(x, reps)), np.tile(h, reps))


@given(shape=st.lists(st.integers(0, 3), max_size=3).map(tuple), r=st.integers(0, 3),
       data=st.data())
def test_repeat_matches_numpy(shape, r, data):
    h, x = ints(shape)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    np.testing.assert_array_equal(values(xp.repeat(x, r, axis=axis)), np.repeat(h, r, axis=axis))
    n = h.size if axis is None else h.shape[axis]
    counts = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    got = xp.repeat(x, xp.asarray(counts, dtype=xp.int32), axis=axis)
    np.testing.assert_array_equal(values(got), np.repeat(h, counts, axis=axis))


@pytest.mark.parametrize("dtype", ["bfloat16", "hifloat8", "complex64", "bool"])
def test_tile_and_repeat_move_bits(dtype):
    x = sample(dtype, (2, 3), RNG)
    np.testing.assert_array_equal(bits(xp.tile(x, (2, 1, 2))), np.tile(bits(x), (2, 1, 2)))
    np.testing.assert_array_equal(bits(xp.repeat(x, 2, axis=0)), np.repeat(bits(x), 2, axis=0))
    counts = xp.asarray([1, 0, 2])
    np.testing.assert_array_equal(bits(xp.repeat(x, counts, axis=1)),
                                  np.repeat(bits(x), [1, 0, 2], axis=1))


def test_tile_and_repeat_refuse_bad_counts():
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError, match="negative"):
        xp.tile(x, (2, -1))
    with pytest.raises(ValueError, match="negative"):
        xp.repeat(x, -1)
    with pytest.raises(ValueError, match="negative"):
        xp.repeat(x, xp.asarray([1, -1, 0]), axis=1)
    with pytest.raises(ValueError, match="broadcast"):
        xp.repeat(x, xp.asarray([1, 2]), axis=1)
    with pytest.raises(TypeError, match="integer dtype"):
        xp.repeat(x, xp.asarray([1.0, 2.0, 3.0]), axis=1)


# ------------------------------------------------------------------------- roll

@given(shape=st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple), data=st.data())
def test_roll_matches_numpy(shape, data):
    h, x = ints(shape)
    shift = st.integers(-6, 6)
    nd = len(shape)
    kind = data.draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        s, axis = data.draw(shift), None
    elif kind == "int":
        s, axis = data.draw(shift), data.draw(st.integers(-nd, nd - 1))
    else:      # axes may repeat: their shifts add up
        axis = tuple(data.draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=3)))
        s = tuple(data.draw(shift) for _ in axis)
    np.testing.assert_array_equal(values(xp.roll(x, s, axis=axis)), np.roll(h, s, axis=axis))


def test_roll_keeps_special_values_and_refuses_mismatched_shifts():
    x = make(np.array(SPECIAL), "bfloat16")
    np.testing.assert_array_equal(bits(xp.roll(x, 2)), np.roll(bits(x), 2))
    with pytest.raises(ValueError, match="different lengths"):
        xp.roll(xp.zeros((2, 2)), (1, 2), axis=(0,))
    with pytest.raises(ValueError, match="tuple"):
        xp.roll(xp.zeros((2, 2)), (1, 2))


# ------------------------------------------------------------------------ views

def test_flip_moveaxis_unstack_are_views_matching_numpy():
    h, x = ints((2, 3, 4))
    for axis in (None, 0, -1, (0, 2)):
        np.testing.assert_array_equal(values(xp.flip(x, axis=axis)), np.flip(h, axis=axis))
    for src, dst in ((0, -1), ((0, 1), (2, 0)), (-1, 0)):
        np.testing.assert_array_equal(values(xp.moveaxis(x, src, dst)), np.moveaxis(h, src, dst))
    for axis in (0, 1, -1):
        parts = xp.unstack(x, axis=axis)
        assert len(parts) == h.shape[axis]
        for got, want in zip(parts, np.moveaxis(h, axis, 0)):
            np.testing.assert_array_equal(values(got), want)
    # Writing through the views reaches x.
    xp.flip(x)[0, 0, 0] = -1
    xp.unstack(x, axis=2)[0][0, 0] = -2
    assert int(x[1, 2, 3]) == -1 and int(x[0, 0, 0]) == -2
    # A flipped view feeds the kernels (they get a contiguous copy of it).
    np.testing.assert_array_equal(values(xp.flip(x) + 1), np.flip(values(x)) + 1)


def test_axis_errors_are_index_and_value_errors():
    x = xp.zeros((2, 3))
    for call in (lambda: xp.flip(x, axis=2), lambda: xp.moveaxis(x, 0, 5),
                 lambda: xp.unstack(x, axis=-3), lambda: xp.moveaxis(x, (0, 0), (0, 1))):
        with pytest.raises(IndexError):
            call()
        with pytest.raises(ValueError):
            call()


def test_reshape_copy_and_squeeze_of_several_axes():
    h, x = ints((2, 1, 3, 1))
    y = xp.squeeze(x, axis=(1, -1))
    assert y.shape == (2, 3)
    with pytest.raises(ValueError, match="size 3, not 1"):
        xp.squeeze(x, axis=(1, 2))
    with pytest.raises(ValueError, match="twice"):
        xp.squeeze(x, axis=(1, -3))
    view = xp.reshape(x, (6,))
    view[0] = 50
    assert int(x[0, 0, 0, 0]) == 50            # copy=None: a view where one exists
    copied = xp.reshape(x, (6,), copy=True)
    copied[1] = 60
    assert int(x[0, 0, 1, 0]) == 1
    t = xp.permute_dims(xp.squeeze(x, axis=(1, 3)), (1, 0))   # (3, 2), not contiguous
    with pytest.raises(ValueError, match="copy=False"):
        xp.reshape(t, (6,), copy=False)
    np.testing.assert_array_equal(values(xp.reshape(t, (6,))), h.reshape(2, 3).T.reshape(6))


def test_expand_dims_of_one_axis_or_several():
    h, x = ints((2, 3))
    for axis in (0, -1, 2, (0, -1), (1, 3), ()):
        got = xp.expand_dims(x, axis=axis)
        np.testing.assert_array_equal(values(got), np.expand_dims(h, axis))
    xp.expand_dims(x, axis=(1, 3))[0, 0, 0, 0] = 7          # a view
    assert int(x[0, 0]) == 7
    with pytest.raises(IndexError):
        xp.expand_dims(x, axis=3)
    with pytest.raises(ValueError, match="twice"):
        xp.expand_dims(x, axis=(0, -4))


# ------------------------------------------------------------------ take

@pytest.mark.parametrize("dtype", ["int32", "bfloat16", "hifloat8", "complex128"])
def test_take_and_take_along_axis_gather_bits(dtype):
    x = sample(dtype, (3, 4), RNG)
    raw = bits(x)
    idx = np.array([3, -1, 0, 0])
    for indices in (xp.asarray(idx), idx, xp.asarray(idx.astype(np.uint8) % 4)):
        want_idx = np.asarray(indices) if not isinstance(indices, np.ndarray) else idx
        np.testing.assert_array_equal(bits(xp.take(x, indices, axis=1)),
                                      np.take(raw, want_idx, axis=1))
    np.testing.assert_array_equal(bits(xp.take(x[0], xp.asarray([2, -4]))), raw[0][[2, -4]])
    along = RNG.integers(-3, 3, (2, 4))
    np.testing.assert_array_equal(bits(xp.take_along_axis(x, xp.asarray(along), axis=0)),
                                  np.take_along_axis(raw, along, axis=0))
    # The other axes broadcast.
    np.testing.assert_array_equal(bits(xp.take_along_axis(x, xp.asarray([[0, 2]]), axis=1)),
                                  np.take_along_axis(raw, np.array([[0, 2]]), axis=1))


def test_take_refuses_bad_input():
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError, match="axis is required"):
        xp.take(x, xp.asarray([0]))
    with pytest.raises(TypeError, match="integer dtype"):
        xp.take(x, xp.asarray([0.0]), axis=0)
    with pytest.raises(ValueError, match="1-D"):
        xp.take(x, xp.asarray([[0]]), axis=0)
    with pytest.raises(ValueError, match="same rank"):
        xp.take_along_axis(x, xp.asarray([0]), axis=0)


# ------------------------------------------------------------------------ clip

@pytest.mark.parametrize("dtype", ["float32", "float64"] + NARROW_FLOATS)
def test_clip_floats_propagate_nan_and_keep_the_dtype(dtype):
    x = make(np.array(SPECIAL + [5.0, -5.0]), dtype)
    host = as_float(values(x))
    got = xp.clip(x, -1, 2.5)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(as_float(values(got)), np.clip(host, -1, 2.5))
    lo = make(np.array([np.nan] + [0.0] * 8), dtype)
    got = values(xp.clip(x, min=lo))
    assert np.isnan(as_float(got)[0])
    np.testing.assert_array_equal(as_float(got)[1:], np.maximum(host[1:], 0.0))
    # Signed zeros and the other elements within the bounds are x's own.
    np.testing.assert_array_equal(bits(xp.clip(x[:2], -1.0, 1.0)), bits(x[:2]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_clip_is_maximum_then_minimum_on_our_kernels(dtype):
    """clip(x, lo, hi) = minimum(maximum(x, lo), hi), bit for bit: maximum(-0, +0) is +0 and
    minimum -0 in either order (NumPy's clip answers by its code path), here with zero bounds
    of both signs; other values against NumPy's clip on the float64 values."""
    rng = np.random.default_rng(47)
    v = rng.choice(np.array([-0.0, 0.0, 1.5, -2.0, 3.0, -np.inf, np.inf]), 400)
    x = make(v, dtype)
    for lo, hi in ((-0.0, 0.0), (0.0, -0.0), (0.0, 0.0), (-0.0, -0.0), (-1.0, 2.0)):
        got = xp.clip(x, lo, hi)
        want = xp.minimum(xp.maximum(x, lo), hi)
        np.testing.assert_array_equal(bits(got), bits(want))
        np.testing.assert_array_equal(as_float(values(got)), np.clip(as_float(values(x)), lo, hi))
    zeros = make(np.array([-0.0, 0.0]), dtype)
    assert np.signbit(as_float(values(xp.clip(zeros, min=-0.0)))).tolist() == [True, False]
    assert np.signbit(as_float(values(xp.clip(zeros, min=0.0)))).tolist() == [False, False]
    assert np.signbit(as_float(values(xp.clip(zeros, max=-0.0)))).tolist() == [True, True]
    assert np.signbit(as_float(values(xp.clip(zeros, max=0.0)))).tolist() == [True, False]


def test_clip_integers_broadcast_and_ignore_bounds_beyond_the_dtype():
    h = np.array([[-128, -3, 0, 7, 127]], dtype=np.int8)
    x = xp.asarray(h)
    np.testing.assert_array_equal(values(xp.clip(x, -1000, 5)), np.clip(h, -128, 5))
    np.testing.assert_array_equal(values(xp.clip(x, max=1000)), h)
    hi = xp.asarray([[1], [2]], dtype=xp.int8)
    got = xp.clip(x, xp.asarray(-2, dtype=xp.int8), hi)
    assert got.shape == (2, 5) and got.dtype == xp.int8
    np.testing.assert_array_equal(values(got), np.clip(h, -2, np.array([[1], [2]])))
    u = xp.asarray(np.array([0, 5, 2**64 - 1], dtype=np.uint64))
    np.testing.assert_array_equal(values(xp.clip(u, 3, 2**64 - 2)),
                                  np.array([3, 5, 2**64 - 2], dtype=np.uint64))
    np.testing.assert_array_equal(values(xp.clip(x)), h)        # no bounds: a copy


@pytest.mark.parametrize("x_dt,b_dt", [("uint8", "int8"), ("int8", "int16"), ("uint8", "int64"),
                                       ("int16", "uint8"), ("uint16", "int32")])
def test_clip_bounds_of_another_integer_dtype_saturate_not_wrap(x_dt, b_dt):
    """An integer bound of another integer dtype beyond x's range binds as x's extreme (as
    NumPy clamps in the wider type), never as its conversion's wrapped value (-1 -> 255)."""
    info_x, info_b = np.iinfo(x_dt), np.iinfo(b_dt)
    h = np.linspace(info_x.min, info_x.max, 9).astype(x_dt)
    cands = [info_b.min, -1, 0, 3, 100, info_b.max]
    lo = np.array([v for v in cands if info_b.min <= v <= info_b.max], dtype=b_dt)
    for a in lo:
        for b in lo:
            if a > b:
                continue
            got = values(xp.clip(xp.asarray(h), xp.asarray(a), xp.asarray(b)))
            want = np.clip(h.astype(np.int64), int(a), int(b))
            want = np.clip(want, int(info_x.min), int(info_x.max)).astype(x_dt)
            np.testing.assert_array_equal(got, want, err_msg=f"clip({x_dt}, {a}, {b})")
        # one bound at a time (the path without the fused kernel)
        np.testing.assert_array_equal(
            values(xp.clip(xp.asarray(h), xp.asarray(a))),
            np.clip(np.maximum(h.astype(np.int64), int(a)), info_x.min, info_x.max).astype(x_dt))


def test_clip_refuses_what_the_standard_leaves_out():
    with pytest.raises(TypeError, match="integer bounds"):
        xp.clip(xp.asarray([1, 2]), 0.5)
    with pytest.raises(TypeError, match="real numeric"):
        xp.clip(xp.asarray([True]), 0)
    with pytest.raises(TypeError, match="real numeric"):
        xp.clip(xp.asarray([1j]), 0)
    with pytest.raises(TypeError, match="must be None"):
        xp.clip(xp.asarray([1.0]), "0")


def test_shapes_that_do_not_broadcast_say_so_as_array_libraries_do():
    # SciPy's own tests match "cannot be broadcast"; CANN's rule follows in the same message.
    with pytest.raises(ValueError, match=r"shapes \(\(2,\), \(3,\)\) cannot be broadcast together: "
                                         r"The size of tensor"):
        xp.broadcast_arrays(xp.ones(2), xp.ones(3))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        xp.broadcast_shapes((2, 3), (4,))
