"""Library calls in parts on the cpu backend's threads (npu_emu/array_api/_engine/parts.py):
the parts cover the work once, an error in any part is raised after all have finished, the
caller's NumPy error state holds in every part; and sort, argsort, take and x[indices] split
that way give the bits the whole call gives (NumPy's stable orders, NumPy's take), with the
thresholds lowered so that small arrays take the parts."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu.array_api._engine import indexing, parts

from ._support import FLOATS, REAL, SPECIAL, as_float, bits, make, sample, values
from .test_sorting import stable_descending

RNG = np.random.default_rng(27)


@pytest.fixture
def two_threads(cpu_backend, monkeypatch):
    """Two threads for the cpu backend, every result large enough to split, and a count of
    the calls split in two or more parts."""
    before = cpu_backend.threads
    cpu_backend.set_threads(2)
    monkeypatch.setattr(parts, "SPLIT_FROM", 0)
    monkeypatch.setattr(indexing, "GATHER_SPLIT_FROM", 0)
    monkeypatch.setattr(indexing, "MASK_COMPRESS_FROM", 0)
    split = []
    real_run = parts.run

    def run(fn, n, k):
        if k > 1:
            split.append((n, k))
        real_run(fn, n, k)
    monkeypatch.setattr(parts, "run", run)
    yield split
    cpu_backend.set_threads(before)


def test_run_covers_every_index_once_in_parts_at_once():
    seen, threads = [], set()
    lock = threading.Lock()

    def fn(s):
        with lock:
            seen.extend(range(s.start, s.stop))
            threads.add(threading.get_ident())
    parts.run(fn, 10, 3)
    assert sorted(seen) == list(range(10))
    assert len(threads) > 1 and threading.get_ident() in threads
    seen.clear()
    parts.run(fn, 5, 1)
    assert seen == list(range(5))


def test_an_error_in_a_part_comes_after_every_part_and_the_error_state_holds():
    done, states = [], []

    def fn(s):
        states.append(np.geterr()["invalid"])
        if s.start == 0:
            raise ValueError("first part")
        done.append(s.start)
    with np.errstate(invalid="ignore"):
        with pytest.raises(ValueError, match="first part"):
            parts.run(fn, 9, 3)
    assert sorted(done) == [3, 6] and states == ["ignore"] * 3

    def late(s):
        if s.start:
            raise KeyError(s.start)
    with pytest.raises(KeyError):
        parts.run(late, 4, 2)


def test_placed_counts_every_part_and_places_them_in_order():
    sizes = {0: 2, 3: 0, 6: 5}            # range(10) in 3 parts starts at 0, 3 and 6
    place, total = parts.placed(lambda s: sizes[s.start], 10, 3)
    assert place == {0: (0, 2), 3: (2, 0), 6: (2, 5)} and total == 7
    assert parts.placed(lambda s: s.stop - s.start, 4, 1) == ({0: (0, 4)}, 4)


def test_count_splits_large_results_on_the_backends_threads(cpu_backend):
    before = cpu_backend.threads
    try:
        cpu_backend.set_threads(2)
        assert parts.count(cpu_backend, parts.SPLIT_FROM, 1000) == 2
        assert parts.count(cpu_backend, parts.SPLIT_FROM - 1, 1000) == 1
        assert parts.count(cpu_backend, parts.SPLIT_FROM, 1) == 1
        assert parts.count(cpu_backend, 100, 1000, split_from=64) == 2
        cpu_backend.set_threads(1)
        assert parts.count(cpu_backend, 1 << 30, 1000) == 1
    finally:
        cpu_backend.set_threads(before)


@pytest.mark.parametrize("dtype", REAL)
def test_sort_and_argsort_in_parts_are_the_stable_orders(two_threads, dtype):
    x = sample(dtype, (5, 9, 4), RNG)
    host = as_float(values(x))
    for axis in (0, 1, -1):
        asc = xp.argsort(x, axis=axis)
        np.testing.assert_array_equal(values(asc), np.argsort(host, axis=axis, kind="stable"))
        desc = xp.argsort(x, axis=axis, descending=True)
        np.testing.assert_array_equal(values(desc), stable_descending(host, axis))
        np.testing.assert_array_equal(bits(xp.sort(x, axis=axis)),
                                      np.take_along_axis(bits(x), values(asc), axis))
        np.testing.assert_array_equal(bits(xp.sort(x, axis=axis, descending=True)),
                                      np.take_along_axis(bits(x), values(desc), axis))
    assert two_threads, "nothing ran in parts"


@pytest.mark.parametrize("dtype", FLOATS)
def test_sort_in_parts_keeps_zeros_and_nans_in_their_lanes_order(two_threads, dtype):
    v = np.array([SPECIAL * 3, SPECIAL[::-1] * 3, [np.nan, -0.0, 0.0] * 7])
    x = make(v, dtype)
    host = as_float(values(x))
    for axis in (1, 0):
        asc = np.argsort(host, axis=axis, kind="stable")
        np.testing.assert_array_equal(bits(xp.sort(x, axis=axis)),
                                      np.take_along_axis(bits(x), asc, axis))
        desc = stable_descending(host, axis)
        np.testing.assert_array_equal(bits(xp.sort(x, axis=axis, descending=True)),
                                      np.take_along_axis(bits(x), desc, axis))
    assert two_threads


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "float16", "bfloat16",
                                   "float32"])
def test_argsort_of_one_lane_makes_its_keys_in_parts(two_threads, dtype):
    """argsort of a single lane (1-D, one row, one column) by unique keys makes and cuts the
    keys in parts of the lane (each part's indices counted from its start): NumPy's stable
    orders, both ways, with zeros, infinities and NaNs among repeats."""
    rng = np.random.default_rng(43)
    for n in (1, 2, 9, 1001):
        if dtype in FLOATS:
            v = np.round(rng.standard_normal(n) * 3).astype(np.float32)
            v[rng.integers(0, n, min(n, 9))] = rng.choice(SPECIAL, min(n, 9))
            x = make(v, dtype)
        else:
            x = sample(dtype, (n,), rng)
        host = as_float(values(x))
        for shape in ((n,), (1, n), (n, 1)):
            axis = 0 if shape == (n, 1) else -1
            y, h = xp.reshape(x, shape), host.reshape(shape)
            two_threads.clear()
            np.testing.assert_array_equal(values(xp.argsort(y, axis=axis)),
                                          np.argsort(h, axis=axis, kind="stable"))
            assert n < 2 or two_threads, "the keys were not made in parts"
            np.testing.assert_array_equal(values(xp.argsort(y, axis=axis, descending=True)),
                                          stable_descending(h, axis))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float32", "bfloat16",
                                   "hifloat8", "complex128"])
def test_take_and_integer_indexing_in_parts_are_numpys(two_threads, dtype):
    x = sample(dtype, (6, 5, 3), RNG)
    raw = bits(x)
    for axis in (0, 1, 2):
        n = raw.shape[axis]
        idx = np.concatenate([RNG.integers(-n, n, 11), [0, n - 1, -n, -1]])
        got = xp.take(x, xp.asarray(idx), axis=axis)
        assert got.dtype == x.dtype and got.shape == np.take(raw, idx, axis=axis).shape
        np.testing.assert_array_equal(bits(got), np.take(raw, idx, axis=axis))
    idx = RNG.integers(-6, 6, 9)
    np.testing.assert_array_equal(bits(x[xp.asarray(idx)]), raw[idx])
    np.testing.assert_array_equal(bits(x[idx.tolist()]), raw[idx])
    assert len(two_threads) == 5


def test_take_in_parts_refuses_indices_out_of_range(two_threads):
    x = xp.asarray(np.arange(12.0).reshape(4, 3))
    for bad, axis in (([0, 4], 0), ([-5], 0), ([3], 1), ([-4, 1], 1)):
        with pytest.raises(IndexError, match=f"out of bounds for axis {axis} with size"):
            xp.take(x, xp.asarray(bad), axis=axis)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 4"):
        x[xp.asarray([1, 7])]
    assert not two_threads        # refused before any part ran


@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "bfloat16", "complex128"])
def test_copies_of_reversed_views_in_parts_are_numpys(two_threads, dtype):
    """A reversed view is copied ascending by the library (Array._materialized), in parts
    along its first axis: x's bits in the view's order, for every reversed axis, odd lengths
    and a first axis of one (one part)."""
    x = sample(dtype, (7, 5, 3), RNG)
    raw = bits(x)
    for view, want in ((x[::-1], raw[::-1]), (x[:, ::-2], raw[:, ::-2]),
                       (x[::-1, :, ::-1], raw[::-1, :, ::-1]), (x[:1, ::-1], raw[:1, ::-1])):
        got = xp.asarray(view, copy=True)
        assert got._flip is None and got.shape == want.shape
        np.testing.assert_array_equal(bits(got), want)
    assert len(two_threads) == 3        # the first axis of one: one call


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float32", "bfloat16", "hifloat8",
                                   "complex128"])
def test_masked_gathers_in_parts_are_numpys(two_threads, dtype):
    """x[mask] with a mask of x's shape is compressed part by part along axis 0 (each part's
    count first, then its elements in their place): NumPy's x[mask] bits, for masks keeping
    some, none and all elements, odd first axes, and a first axis of one (one part, one
    compress)."""
    x = sample(dtype, (7, 5, 3), RNG)
    raw = bits(x)
    masks = [RNG.integers(0, 2, raw.shape).astype(bool), np.zeros(raw.shape, bool),
             np.ones(raw.shape, bool)]
    for m in masks:
        got = x[xp.asarray(m)]
        assert got.dtype == x.dtype and got.shape == (int(m.sum()),)
        np.testing.assert_array_equal(bits(got), raw[m])
    one = RNG.integers(0, 2, (1, 5, 3)).astype(bool)
    np.testing.assert_array_equal(bits(x[:1][xp.asarray(one)]), raw[:1][one])
    np.testing.assert_array_equal(bits(x[::-2][xp.asarray(masks[0][::2])]), raw[::-2][masks[0][::2]])
    assert len(two_threads) == 2 * 4     # counts and copies of each mask but the one-row one


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64", "bfloat16"])
def test_searchsorted_in_parts_is_numpys(two_threads, dtype):
    """searchsorted of x2's rows in parts: NumPy's indices for both sides, with a sorter,
    for 1-D and 2-D x2 (repeated values: the sides differ), and a 0-d x2 (one call)."""
    x1 = sample(dtype, (23,), RNG)
    h1 = as_float(values(x1))
    order = np.argsort(h1, kind="stable")
    s1 = xp.sort(x1)
    hs = np.sort(h1)
    for shape in ((9,), (5, 4)):
        x2 = sample(dtype, shape, RNG)
        h2 = as_float(values(x2))
        for side in ("left", "right"):
            np.testing.assert_array_equal(values(xp.searchsorted(s1, x2, side=side)),
                                          np.searchsorted(hs, h2, side=side))
            np.testing.assert_array_equal(
                values(xp.searchsorted(x1, x2, side=side, sorter=xp.asarray(order))),
                np.searchsorted(h1, h2, side=side, sorter=order))
    np.testing.assert_array_equal(values(xp.searchsorted(s1, xp.asarray(hs[3]))),
                                  np.searchsorted(hs, hs[3]))
    assert len(two_threads) == 8


@pytest.mark.parametrize("dtype", ["bool", "int8", "float32", "complex64"])
def test_nonzero_of_several_dims_by_flat_indices_in_parts_is_numpys(two_threads, monkeypatch,
                                                                    dtype):
    """nonzero of 2 or more dims from NONZERO_FLAT_FROM bytes: each part's flat indices
    unravelled into their place (the first axis offset by the part's start): NumPy's
    nonzero for 2-D and 3-D x, NaN non-zero and -0.0 zero, none and all non-zero, and a first
    axis of one (one part)."""
    from npu_emu.array_api import _searching
    monkeypatch.setattr(_searching, "NONZERO_FLAT_FROM", 0)
    for shape in ((7, 6), (5, 3, 4), (1, 9)):
        v = RNG.integers(-1, 2, shape).astype(np.float64)
        if dtype in ("float32", "complex64"):
            v[v == 1] = np.nan
            v[v == 0] = -0.0
        cases = [v, np.zeros(shape), np.ones(shape)]
        for c in cases:
            x = make(c, dtype)
            want = np.nonzero(as_float(values(x)) if dtype != "complex64" else values(x))
            got = xp.nonzero(x)
            assert len(got) == len(shape)
            for g, w in zip(got, want):
                assert g.dtype == xp.int64
                np.testing.assert_array_equal(values(g), w)
    assert len(two_threads) == 2 * 3 * 2        # counts and indices, 3 cases, 2 shapes


@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "hifloat8", "complex128"])
def test_take_along_axis_in_parts_is_numpys(two_threads, dtype):
    """take_along_axis split along another axis than its own: NumPy's bits for every axis,
    indices broadcasting along a third axis, negative indices; and indices that broadcast
    along the split axis (one call)."""
    x = sample(dtype, (5, 6, 4), RNG)
    raw = bits(x)
    for axis in (0, 1, 2):
        shape = list(raw.shape)
        shape[axis] = 3
        idx = RNG.integers(-raw.shape[axis], raw.shape[axis], shape)
        np.testing.assert_array_equal(bits(xp.take_along_axis(x, xp.asarray(idx), axis=axis)),
                                      np.take_along_axis(raw, idx, axis=axis))
    wide = RNG.integers(0, 6, (5, 2, 1))
    np.testing.assert_array_equal(bits(xp.take_along_axis(x, xp.asarray(wide), axis=1)),
                                  np.take_along_axis(raw, wide, axis=1))
    lone = RNG.integers(0, 6, (1, 2, 4))
    np.testing.assert_array_equal(bits(xp.take_along_axis(x, xp.asarray(lone), axis=1)),
                                  np.take_along_axis(raw, lone, axis=1))
    assert len(two_threads) == 4


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "float32", "float64"])
def test_isin_in_parts_is_numpys(two_threads, dtype):
    """isin of x1's rows in parts (each part's own choice of NumPy's algorithm): NumPy's
    answers, both ways, for 1-D and 2-D x1 (NaN in nothing, -0.0 equal to 0.0), and a 0-d x1
    (one call)."""
    x1 = sample(dtype, (9, 4), RNG)
    x2 = sample(dtype, (5,), RNG)
    h1, h2 = as_float(values(x1)), as_float(values(x2))
    if dtype.startswith("float"):
        h1[0, 0], h1[1, 1], h2[0] = np.nan, -0.0, 0.0
        x1, x2 = make(h1, dtype), make(h2, dtype)
    for invert in (False, True):
        np.testing.assert_array_equal(values(xp.isin(x1, x2, invert=invert)),
                                      np.isin(h1, h2, invert=invert))
        np.testing.assert_array_equal(values(xp.isin(x1[:, 0], x2, invert=invert)),
                                      np.isin(h1[:, 0], h2, invert=invert))
    np.testing.assert_array_equal(values(xp.isin(x1[0, 0], x2)), np.isin(h1[0, 0], h2))
    assert len(two_threads) == 4


@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "bfloat16", "complex128"])
def test_masked_scatters_in_parts_are_numpys(two_threads, dtype):
    """x[mask] = values (one for each true element) in parts along axis 0: NumPy's bits, for
    values of x's dtype and of another (converted first), masks setting none and all, a
    first axis of one (one part); too few values: NumPy's ValueError, x unchanged."""
    x = sample(dtype, (7, 5, 3), RNG)
    m = RNG.integers(0, 2, (7, 5, 3)).astype(bool)
    for mask in (m, np.zeros(m.shape, bool), np.ones(m.shape, bool)):
        y = xp.asarray(x, copy=True)
        vals = sample(dtype, (int(mask.sum()),), RNG)
        want = bits(y).copy()
        want[mask] = bits(vals)
        y[xp.asarray(mask)] = vals
        np.testing.assert_array_equal(bits(y), want)
    y = xp.asarray(x, copy=True)
    ints = xp.asarray(RNG.integers(0, 2, int(m.sum())))
    want = bits(y).copy()
    want[m] = bits(xp.astype(ints, x.dtype))
    y[xp.asarray(m)] = ints
    np.testing.assert_array_equal(bits(y), want)
    before = bits(y).copy()
    with pytest.raises(ValueError, match="cannot assign"):
        y[xp.asarray(m)] = ints[:2]          # (one value would broadcast, as in NumPy)
    np.testing.assert_array_equal(bits(y), before)
    one = xp.asarray(x[:1], copy=True)
    m1 = RNG.integers(0, 2, (1, 5, 3)).astype(bool)
    vals = sample(dtype, (int(m1.sum()),), RNG)
    want = bits(one).copy()
    want[m1] = bits(vals)
    one[xp.asarray(m1)] = vals
    np.testing.assert_array_equal(bits(one), want)
    assert len(two_threads) == 2 * 4 + 1    # counts and values of each; the refused one counted


def test_compressed_is_boolean_indexing_at_every_density():
    """library.compressed: NumPy's compress in the middle densities, its boolean indexing
    near none and near all; values[mask] either way, into out or into a new array."""
    from npu_emu.array_api._engine.library import compressed
    v = RNG.standard_normal(1000).astype(np.float32)
    for p in (0.0, 0.03, 0.5, 0.95, 1.0):
        m = RNG.random(1000) < p
        c = int(m.sum())
        np.testing.assert_array_equal(compressed(m, v, c), v[m])
        out = np.empty(c, np.float32)
        assert compressed(m, v, c, out) is out
        np.testing.assert_array_equal(out, v[m])
