"""Indexing against NumPy: basic indexing is a view of the same memory (any steps, negative
ones included), advanced indexing gathers, assignment converts and broadcasts as the NPU's
InplaceCopy does."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import npu_emu.array_api as xp
from npu_emu.array_api._engine.views import basic_view

from ._support import float32_defaults  # noqa: F401 (the fixture)

# These tests were written against the NPU's float32 defaults: they run with that setting
# of the switch (test_defaults.py checks the namespace's own, float64).
pytestmark = pytest.mark.usefixtures("float32_defaults")


@st.composite
def slices(draw, n):
    start = draw(st.none() | st.integers(-n - 2, n + 2))
    stop = draw(st.none() | st.integers(-n - 2, n + 2))
    step = draw(st.none() | st.integers(-3, 3).filter(lambda s: s != 0))
    return slice(start, stop, step)


def _item(draw, n):
    if n and draw(st.booleans()):
        return draw(st.integers(-n, n - 1))
    return draw(slices(n))


@st.composite
def basic_keys(draw, shape):
    """A basic index for `shape`: ints and slices for some leading dims, maybe `...` and
    then some trailing dims, and a few None anywhere."""
    dims = list(shape)
    head = draw(st.integers(0, len(dims)))
    items = [_item(draw, n) for n in dims[:head]]
    if draw(st.booleans()):
        tail = draw(st.integers(0, len(dims) - head))
        items += [Ellipsis] + [_item(draw, n) for n in dims[len(dims) - tail:]]
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    return tuple(items)


SHAPES = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)


@given(data=st.data(), shape=SHAPES)
def test_basic_indexing_matches_numpy_and_is_a_view(data, shape):
    key = data.draw(basic_keys(shape))
    host = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    x = xp.asarray(host.copy())
    got = x[key]
    want = host[key]
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)
    if got.size:
        got[...] = -1                 # written through the view, read in the base
        expect = host.copy()
        expect[key] = -1
        np.testing.assert_array_equal(np.asarray(x), expect)


@given(data=st.data(), shape=SHAPES)
def test_basic_view_geometry(data, shape):
    """The view's signed strides and offset are NumPy's (elements, offset of element 0)."""
    key = data.draw(basic_keys(shape))
    base = np.zeros(max(int(np.prod(shape)), 1), dtype=np.int64)[:int(np.prod(shape))].reshape(shape)
    want = base[key]
    strides = [s // 8 for s in base.strides]
    vshape, vstrides, offset = basic_view(shape, strides, 0, key)
    assert tuple(vshape) == np.shape(want)
    if isinstance(want, np.ndarray) and want.size:
        start = (want.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // 8
        assert offset == start
        assert [s for n, s in zip(vshape, vstrides) if n > 1] == \
               [s // 8 for n, s in zip(want.shape, want.strides) if n > 1]


def test_negative_steps_feed_kernels():
    h = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = xp.asarray(h)
    r = x[::-1, ::-2]
    np.testing.assert_array_equal(np.asarray(r + 1), h[::-1, ::-2] + 1)       # aclnnAdd input
    np.testing.assert_array_equal(np.asarray(xp.astype(r, xp.float16)), h[::-1, ::-2].astype(np.float16))
    np.testing.assert_array_equal(np.asarray(xp.expand(x[::-1, :1], (3, 4))),
                                  np.broadcast_to(h[::-1, :1], (3, 4)))


def test_assignment_into_a_reversed_view():
    h = np.zeros((3, 4), dtype=np.int64)
    x = xp.asarray(h)
    x[::-1, 1::2] = xp.asarray([[1, 2], [3, 4], [5, 6]])
    want = np.zeros((3, 4), dtype=np.int64)
    want[::-1, 1::2] = [[1, 2], [3, 4], [5, 6]]
    np.testing.assert_array_equal(h, want)
    x[::-2] = xp.asarray([7, 8, 9, 10])[::-1]          # both sides reversed
    want[::-2] = [10, 9, 8, 7]
    np.testing.assert_array_equal(h, want)


def test_inplace_operator_on_a_reversed_view():
    h = np.arange(6, dtype=np.float32)
    x = xp.asarray(h)
    v = x[::-1]
    v += xp.asarray([0.0, 10.0, 20.0, 30.0, 40.0, 50.0])
    j = np.arange(6)
    np.testing.assert_array_equal(h, j + 10 * (5 - j))


def test_setitem_broadcasts_and_converts_like_the_npu():
    x = xp.zeros((2, 3), dtype=xp.int32)
    x[:, 1] = 2.9                        # float into int: truncates toward zero
    x[1] = xp.asarray([-1.5, 0.5, 7.9], dtype=xp.float32)
    np.testing.assert_array_equal(np.asarray(x), [[0, 2, 0], [-1, 0, 7]])
    b = xp.zeros(3, dtype=xp.bfloat16)
    b[...] = xp.asarray([1 / 3, 3.0, -0.1])
    np.testing.assert_array_equal(np.asarray(b).view(np.uint16),
                                  np.array([1 / 3, 3.0, -0.1], dtype=np.float32)
                                  .astype(np.dtype("bfloat16")).view(np.uint16))
    with pytest.raises(OverflowError):
        x[0, 0] = 2 ** 40
    with pytest.raises(ValueError, match="must match"):    # CANN's InplaceCopy message
        x[0] = xp.ones(4, dtype=xp.int32)


def test_setitem_refuses_python_scalars_it_cannot_hold():
    """A Python complex into a real array (NumPy and PyTorch refuse it: the imaginary part
    would go), a NaN, an infinity or a float past an integer dtype's range (PyTorch refuses
    them, as an int past the range) raise; a float within the range converts toward zero,
    through a mask too. Nothing is written by a refused assignment."""
    f = xp.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match="imaginary part"):
        f[0] = 3 + 4j
    i8 = xp.asarray([1, 2], dtype=xp.int8)
    for bad, error in ((1e10, OverflowError), (128.0, OverflowError), (-129.0, OverflowError),
                       (float("inf"), OverflowError), (float("nan"), ValueError)):
        with pytest.raises(error):
            i8[0] = bad
        with pytest.raises(error):
            i8[xp.asarray([True, False])] = bad
    np.testing.assert_array_equal(np.asarray(i8), [1, 2])
    np.testing.assert_array_equal(np.asarray(f), [1.0, 2.0])
    i8[0], i8[1] = 127.9, -128.9                  # within the range: toward zero
    np.testing.assert_array_equal(np.asarray(i8), [127, -128])
    i8[xp.asarray([True, False])] = -5.5
    np.testing.assert_array_equal(np.asarray(i8), [-5, -128])
    u = xp.asarray([0], dtype=xp.uint64)
    u[0] = float(2**64 - 2048)                    # the largest double below 2**64
    assert np.asarray(u).tolist() == [2**64 - 2048]
    with pytest.raises(OverflowError):
        u[0] = float(2**64)


def test_overlapping_assignment():
    h = np.arange(8, dtype=np.int16)
    x = xp.asarray(h)
    x[1:] = x[:-1]
    np.testing.assert_array_equal(h, [0, 0, 1, 2, 3, 4, 5, 6])


def test_complex_assignment_into_a_strided_view():
    x = xp.zeros(6, dtype=xp.complex64)
    x[::2] = xp.asarray([1 + 1j, 2, 3j], dtype=xp.complex128)
    np.testing.assert_array_equal(np.asarray(x), [1 + 1j, 0, 2, 0, 3j, 0])


def test_integer_array_and_mask_indexing():
    h = np.arange(20, dtype=np.float32).reshape(4, 5)
    x = xp.asarray(h)
    idx = xp.asarray([3, 0, -1])
    for key in [idx, (idx, 2), (slice(None), xp.asarray([4, 4])), [1, 2], np.array([0, 3]),
                (xp.asarray([[0], [1]]), xp.asarray([1, 2]))]:
        k = tuple(np.asarray(i) if isinstance(i, xp.Array) else i for i in key) \
            if isinstance(key, tuple) else (np.asarray(key) if isinstance(key, xp.Array) else key)
        np.testing.assert_array_equal(np.asarray(x[key]), h[k])
    mask = h > 7
    np.testing.assert_array_equal(np.asarray(x[xp.asarray(mask)]), h[mask])
    np.testing.assert_array_equal(np.asarray(x[xp.asarray(mask[:, 0]), 1:3]), h[mask[:, 0], 1:3])
    got = x[xp.asarray([0, 1])]
    got[...] = -1                        # a gather is a copy
    np.testing.assert_array_equal(np.asarray(x), h)
    with pytest.raises(IndexError):
        x[xp.asarray([5])]
    with pytest.raises(IndexError, match="integer or boolean"):
        x[xp.asarray([0.0])]


def test_advanced_assignment():
    h = np.zeros((3, 4), dtype=np.float16)
    x = xp.asarray(h)
    x[xp.asarray([0, 2]), 1] = 1.5
    x[xp.asarray(h == 0)[:, 0] & xp.asarray([False, True, False]), :] = xp.asarray([1, 2, 3, 4])
    want = np.zeros((3, 4), dtype=np.float16)
    want[[0, 2], 1] = 1.5
    want[1] = [1, 2, 3, 4]
    np.testing.assert_array_equal(h, want)


def test_low_precision_gather_keeps_bits():
    x = xp.astype(xp.asarray(np.array([0, 2 ** -22, 32768, np.nan, np.inf], dtype=np.float32)),
                  xp.hifloat8)
    got = x[xp.asarray([4, 0, 2, 3, 1])]
    assert got.dtype == xp.hifloat8
    # HiFloat8 codes (docs/conversions.md#hifloat8): inf 0x6F, zero 0x00, 32768 0x6E, NaN 0x80
    got._st.backend.default_stream.synchronize()
    np.testing.assert_array_equal(np.array(got._raw()), [0x6F, 0x00, 0x6E, 0x80, 0x01])


def test_index_errors():
    x = xp.zeros((2, 3))
    with pytest.raises(IndexError, match="out of bounds"):
        x[2]
    with pytest.raises(IndexError, match="too many"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="ellipsis"):
        x[..., ...]
    with pytest.raises(ValueError):
        x[::0]


def test_broadcast_views_are_not_destinations():
    b = xp.broadcast_to(xp.asarray([1, 2], dtype=xp.uint16), (3, 2))
    with pytest.raises(ValueError, match="overlap"):
        b += 1                               # the library path checks as the core does
    with pytest.raises(ValueError, match="overlap"):
        b[xp.asarray([0])] = 1
    with pytest.raises(ValueError, match="overlap"):
        xp.broadcast_to(xp.zeros(2, dtype=xp.complex64), (2, 2))[...] = 1j


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float32", "float64", "bfloat16",
                                   "complex128"])
def test_masked_fill_runs_on_the_select_kernel_and_gives_numpys_bits(dtype):
    """x[mask] = v with a bool array of ours over x's leading axes and one value is our
    select kernel writing x in place: NumPy's bits, for masks over every leading axis count,
    reversed and strided views of x, Python scalars and 0-d arrays converted to x's dtype;
    the value's own bits (a NaN payload) where the mask holds."""
    from ._support import bits, make, sample
    rng = np.random.default_rng(31)
    base = sample(dtype, (6, 5, 4), rng)
    fill = sample(dtype, (), rng)
    views = {"whole": lambda a: a, "reversed": lambda a: a[::-1, :, ::-2],
             "strided": lambda a: a[1::2, ::2]}
    for vname, view in views.items():
        for lead in (1, 2, 3):
            for value in (fill, 1, True) if dtype == "bool" else (fill, 1, xp.asarray(2.5)):
                x = xp.asarray(base, copy=True)
                target = view(x)
                m = rng.integers(0, 2, target.shape[:lead]).astype(bool)
                want = bits(x).copy()
                v = value if isinstance(value, xp.Array) else xp.asarray(value)
                v_bits = bits(xp.astype(v, x.dtype))
                view(want)[m] = v_bits
                target[xp.asarray(m)] = value
                np.testing.assert_array_equal(bits(x), want, err_msg=f"{vname} {lead} {value!r}")
    if dtype == "float32":
        x = make(np.zeros(5), dtype)
        nan = xp.asarray(np.array([0x7FC01234], np.uint32).view(np.float32)[0])
        x[xp.asarray([True, False, True, False, False])] = nan
        np.testing.assert_array_equal(bits(x).view(np.uint32), [0x7FC01234, 0, 0x7FC01234, 0, 0])


def test_masked_fills_over_their_own_memory_are_numpys():
    """The mask or the value a view of x's own memory: x itself as the mask (the kernel's
    in-place case), another view of it, and a value read from x (the library's path)."""
    h = np.array([True, False, True, True, False, False])
    x = xp.asarray(h.copy())
    x[x] = False
    assert not np.asarray(x).any()
    run = np.ones(40, bool)
    for dst, msk in ((slice(1, None), slice(None, -1)), (slice(None, -1), slice(1, None))):
        x = xp.asarray(run.copy())
        x[dst][x[msk]] = False              # the mask read before any element is written
        want = run.copy()
        want[dst][run[msk]] = False
        np.testing.assert_array_equal(np.asarray(x), want)
    v = np.arange(8.0)
    x = xp.asarray(v.copy())
    x[x > 3] = x[2]
    want = v.copy()
    want[v > 3] = v[2]
    np.testing.assert_array_equal(np.asarray(x), want)


def test_masked_gathers_past_the_compress_threshold_are_numpys():
    """x[mask] with a mask of x's shape from MASK_COMPRESS_FROM bytes on (NumPy's compress,
    in parts from 1 MiB on the cpu backend's threads): NumPy's boolean indexing's values, NaN
    payloads and signed zeros included."""
    from npu_emu.array_api._engine import indexing
    rng = np.random.default_rng(32)
    for shape in ((indexing.MASK_COMPRESS_FROM // 4 + 3,), (400, 700)):
        v = rng.standard_normal(shape).astype(np.float32)
        v[v > 1.8] = -0.0
        raw = v.view(np.uint32)
        raw[v < -1.8] = 0x7FC04321
        m = rng.standard_normal(shape) > 0.2
        got = xp.asarray(v)[xp.asarray(m)]
        np.testing.assert_array_equal(np.asarray(got).view(np.uint32), raw[m])
