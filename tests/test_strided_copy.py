"""The strided gather/scatter kernel (kernels_cuda/strided_copy.cu) against NumPy's
as_strided + copy: any rank 0..8, sizes 0 and 1, zero (broadcast) source strides, element
sizes 1..16 bytes, offsets; the destination is poisoned and every byte outside its view must
be untouched."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from npu_emu.kernels.copy import View, plan_copy
from npu_emu.kernels.indexing import coalesce

from helpers import injective_views

UNIT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}


def _random_storage(rng: np.random.Generator, n: int, itemsize: int) -> np.ndarray:
    return rng.integers(0, 256, n * itemsize, dtype=np.uint8)


def _as_view(buf: np.ndarray, shape, strides, offset, itemsize) -> np.ndarray:
    """A NumPy view of a flat byte buffer as elements of `itemsize` bytes."""
    elems = buf.view(np.dtype((np.void, itemsize)))
    return np.lib.stride_tricks.as_strided(elems[offset:], shape=shape,
                                           strides=[s * itemsize for s in strides])


def run_copy(be, dst_buf, dst_shape, dst_strides, dst_offset, src_buf, src_shape, src_strides,
             src_offset, itemsize, stream=None):
    """Copy on the device; returns the whole destination storage afterwards."""
    sp = be.malloc(src_buf.nbytes)
    dp = be.malloc(dst_buf.nbytes)
    try:
        be.copy_from_host(sp, src_buf)
        be.copy_from_host(dp, dst_buf)
        launches = plan_copy(be, View(dp + dst_offset * itemsize, tuple(dst_shape), tuple(dst_strides), itemsize),
                             View(sp + src_offset * itemsize, tuple(src_shape), tuple(src_strides), itemsize))
        stream = stream or be.default_stream
        be.enqueue(launches, stream)
        stream.synchronize()
        out = np.empty_like(dst_buf)
        be.copy_to_host(out, dp)
        return out, launches
    finally:
        be.free(sp)
        be.free(dp)


def expected_copy(dst_buf, dst_shape, dst_strides, dst_offset, src_buf, src_shape, src_strides,
                  src_offset, itemsize):
    want = dst_buf.copy()
    if all(n > 0 for n in dst_shape):
        src = _as_view(src_buf, src_shape, src_strides, src_offset, itemsize)
        dst = _as_view(want, dst_shape, dst_strides, dst_offset, itemsize)
        dst[...] = np.broadcast_to(src, dst_shape)
    return want


@st.composite
def copy_cases(draw, max_rank=8, max_size=4):
    itemsize = draw(st.sampled_from([1, 2, 4, 8, 16]))
    ndim = draw(st.integers(0, max_rank))
    shape = draw(st.lists(st.integers(0, max_size), min_size=ndim, max_size=ndim))
    # Destination: an injective view, so the expected result is well defined.
    strides, dst_offset, dst_len = draw(injective_views(shape))
    # Source: the same shape or a broadcastable one (dims dropped on the left or set to 1),
    # with arbitrary strides including 0.
    lead = draw(st.integers(0, ndim))
    src_shape = [1 if draw(st.booleans()) else n for n in shape[lead:]]
    src_strides = [draw(st.integers(0, 12)) for _ in src_shape]
    src_offset = draw(st.integers(0, 7))
    extent = src_offset + sum(max(n - 1, 0) * s for n, s in zip(src_shape, src_strides)) + 1
    src_len = extent + draw(st.integers(0, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    return itemsize, shape, strides, dst_offset, dst_len, src_shape, src_strides, src_offset, src_len, seed


@given(copy_cases())
def test_strided_copy_matches_numpy(backend, case):
    itemsize, shape, strides, doff, dlen, sshape, sstrides, soff, slen, seed = case
    rng = np.random.default_rng(seed)
    src_buf = _random_storage(rng, slen, itemsize)
    dst_buf = np.full(dlen * itemsize, 0xA5, dtype=np.uint8)  # poison
    got, _ = run_copy(backend, dst_buf, shape, strides, doff, src_buf, sshape, sstrides, soff, itemsize)
    want = expected_copy(dst_buf, shape, strides, doff, src_buf, sshape, sstrides, soff, itemsize)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("shape", [(33, 47), (3, 64, 17), (16, 16), (2, 40, 3, 50), (290, 130),
                                   (2, 70, 150)])
def test_transposes_take_the_tiled_kernel(backend, itemsize, shape):
    """Reversed-axes source views: the shared-memory tile path, including partial tiles and
    blocks of several tiles (a cpu block spans 128 elements of the destination's fast axis:
    (290, 130) and (2, 70, 150) end in a partial one)."""
    rng = np.random.default_rng(1)
    n = int(np.prod(shape))
    src_buf = _random_storage(rng, n, itemsize)
    cstrides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    tshape = tuple(reversed(shape))
    tstrides = tuple(reversed(cstrides))
    dst_buf = np.full((n + 5) * itemsize, 0x5A, dtype=np.uint8)
    dst_strides = [int(np.prod(tshape[i + 1:])) for i in range(len(tshape))]
    got, launches = run_copy(backend, dst_buf, tshape, dst_strides, 2, src_buf, tshape, tstrides, 0, itemsize)
    want = expected_copy(dst_buf, tshape, dst_strides, 2, src_buf, tshape, tstrides, 0, itemsize)
    np.testing.assert_array_equal(got, want)
    # A tile pays when both fast axes are long: the 2-D cases here. (16-byte elements are
    # split in two 8-byte units, whose rows are already 16-byte runs.)
    if itemsize <= 8 and len(shape) == 2:
        assert launches[0].kernel.name.startswith("tiled_copy_")


def test_broadcast_and_contiguous_take_the_run_kernel(backend):
    shape = (64, 300)
    rng = np.random.default_rng(2)
    src_buf = _random_storage(rng, 300, 4)
    dst_buf = np.zeros(64 * 300 * 4, np.uint8)
    got, launches = run_copy(backend, dst_buf, shape, (300, 1), 0, src_buf, (1, 300), (0, 1), 0, 4)
    np.testing.assert_array_equal(got.view(np.uint32).reshape(shape),
                                  np.broadcast_to(src_buf.view(np.uint32), shape))
    assert launches[0].kernel.name == "strided_copy_b4_i32"


def test_64bit_index_path(backend):
    """A view reaching past 2**31 elements takes the 64-bit kernels (pages never touched
    are never really allocated, so this stays cheap)."""
    big = 2**31 + 64
    sp = backend.malloc(big)
    dp = backend.malloc(64)
    try:
        marks = np.arange(1, 7, dtype=np.uint8)
        # elements (i, j) of a (2, 3) view with strides (2**31, 1) at offset 5
        backend.copy_from_host(sp + 5, marks[:3])
        backend.copy_from_host(sp + 5 + 2**31, marks[3:])
        launches = plan_copy(backend, View(dp, (2, 3), (3, 1), 1), View(sp + 5, (2, 3), (2**31, 1), 1))
        assert launches[0].kernel.name.endswith("_i64")
        backend.enqueue(launches, backend.default_stream)
        backend.default_stream.synchronize()
        out = np.zeros(6, np.uint8)
        backend.copy_to_host(out, dp)
        np.testing.assert_array_equal(out, marks)
    finally:
        backend.free(sp)
        backend.free(dp)


def test_empty_view_plans_nothing(backend):
    assert plan_copy(backend, View(0, (3, 0), (0, 1), 4), View(0, (3, 0), (0, 1), 4)) == []


@given(st.lists(st.integers(1, 5), min_size=0, max_size=6), st.data())
def test_coalesce_preserves_the_address_set(shape, data):
    """Coalescing reorders and merges dims but every (dst, src) offset pair survives."""
    n = len(shape)
    dst = [data.draw(st.integers(0, 40)) for _ in range(n)]
    src = [data.draw(st.integers(0, 40)) for _ in range(n)]
    space = coalesce(shape, [dst, src])
    import itertools
    want = sorted((sum(i * s for i, s in zip(idx, dst)), sum(i * s for i, s in zip(idx, src)))
                  for idx in itertools.product(*[range(k) for k in shape]))
    got = sorted((sum(i * s for i, s in zip(idx, space.strides[0])),
                  sum(i * s for i, s in zip(idx, space.strides[1])))
                 for idx in itertools.product(*[range(k) for k in space.sizes]))
    assert got == want
    assert space.ndim <= max(n, 1)


@given(copy_cases(max_rank=5, max_size=5), st.integers(1, 7))
def test_any_run_length(backend, case, run):
    """Threads that start mid-row (short runs, as on a GPU) seek with magic-number division
    and carry through the odometer: the result must not depend on the run length."""
    itemsize, shape, strides, doff, dlen, sshape, sstrides, soff, slen, seed = case
    rng = np.random.default_rng(seed)
    src_buf = _random_storage(rng, slen, itemsize)
    dst_buf = np.full(dlen * itemsize, 0x3C, dtype=np.uint8)
    original = backend.elementwise_geometry

    def short_runs(numel, size):
        return max(1, -(-numel // run)), 1, run
    backend.elementwise_geometry = short_runs
    try:
        got, _ = run_copy(backend, dst_buf, shape, strides, doff, src_buf, sshape, sstrides, soff, itemsize)
    finally:
        backend.elementwise_geometry = original
    want = expected_copy(dst_buf, shape, strides, doff, src_buf, sshape, sstrides, soff, itemsize)
    np.testing.assert_array_equal(got, want)
