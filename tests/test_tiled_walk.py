"""Elementwise kernels walk a transposed read in tiles (kernels.indexing.tiled): the tiled
space visits every element once with each operand's own offset (a property over shapes and
strides), and the kernels that take it (ufunc, select, aclnnAdd / aclnnMul, cast) give
NumPy's bits on transposed operands, at sizes that tile and sizes that do not."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npu_emu.array_api as xp
from npu_emu.kernels import indexing
from npu_emu.kernels.indexing import IterSpace, coalesce, tiled


def _offsets(space: IterSpace) -> list[tuple[int, ...]]:
    """Every element's (offset in operand 0, offset in operand 1, ...), sorted."""
    grids = np.meshgrid(*[np.arange(n) for n in space.sizes], indexing="ij")
    cols = [sum(g * s for g, s in zip(grids, st)).ravel() for st in space.strides]
    return sorted(zip(*[c.tolist() for c in cols]))


@st.composite
def _shapes(draw):
    """2 to 4 dims of up to 2^14 elements in all, sizes that tile (8, 16, 32, 64) or not."""
    shape, budget = [], 1 << 14
    for _ in range(draw(st.integers(2, 4))):
        n = draw(st.sampled_from([k for k in (1, 2, 3, 8, 16, 24, 32, 64) if k <= budget]))
        shape.append(n)
        budget //= n
    return shape


@settings(max_examples=60, deadline=None)
@given(_shapes(), st.data())
def test_a_tiled_walk_visits_every_element_once_at_each_operands_offset(shape, data):
    n = len(shape)
    out = [0] * n
    acc = 1
    for d in reversed(range(n)):               # the output row-major
        out[d], acc = acc, acc * shape[d]
    perm = data.draw(st.permutations(list(range(n))))
    src = [0] * n
    acc = 1
    for d in reversed(perm):                   # an input in another order, maybe reversed
        src[d] = acc * data.draw(st.sampled_from([1, -1]))
        acc *= shape[d]
    bcast = [data.draw(st.sampled_from([0, s])) for s in out]
    space = coalesce(shape, [out, src, bcast])
    old = indexing.TILE_MIN_NUMEL
    indexing.TILE_MIN_NUMEL = 0
    try:
        walk = tiled(space)
    finally:
        indexing.TILE_MIN_NUMEL = old
    assert walk.numel == space.numel and walk.ndim <= indexing.MAX_DIMS
    assert _offsets(walk) == _offsets(space)


def test_a_transposed_read_of_a_large_space_is_tiled_and_a_small_or_odd_one_is_not():
    t = tiled(coalesce((512, 256), [(256, 1), (1, 512)]))
    assert t.sizes == (32, 32, 8, 16) and t.strides[1][:2] == (512, 1)
    assert tiled(coalesce((64, 64), [(64, 1), (1, 64)])).ndim == 2          # in cache anyway
    assert tiled(coalesce((511, 257), [(257, 1), (1, 511)])).ndim == 2      # no tile divides
    assert tiled(coalesce((512, 256), [(256, 1), (256, 1)])).ndim == 1      # no transposed read


_RNG = np.random.default_rng(41)


@pytest.mark.parametrize("shape", [(256, 384), (257, 255)], ids=["tiled", "odd"])
def test_kernels_on_transposed_operands_give_numpys_bits(cpu_backend, shape):
    a = _RNG.standard_normal(shape[::-1]).astype(np.float32)
    b = _RNG.standard_normal(shape).astype(np.float32)
    x, y = xp.asarray(a), xp.asarray(b)
    cases = [
        (lambda: x.T + y, a.T + b),                                   # aclnnAdd
        (lambda: y * x.T, b * a.T),                                   # aclnnMul
        (lambda: x.T / y, a.T / b),                                   # the ufunc family
        (lambda: xp.where(y > 0, x.T, y), np.where(b > 0, a.T, b)),   # select, 4-byte
    ]
    z = (a + 1j * a[::-1]).astype(np.complex128)
    w = (b - 1j * b).astype(np.complex128)
    zx, wx = xp.asarray(z), xp.asarray(w)
    cases.append((lambda: xp.where(y > 0, zx.T, wx), np.where(b > 0, z.T, w)))   # 16-byte
    ua = (a * 40).astype(np.uint8)
    ux = xp.asarray(ua)
    cases.append((lambda: xp.where(y > 0, ux.T, 7), np.where(b > 0, ua.T, np.uint8(7))))
    for ours, want in cases:
        got = np.asarray(ours())
        assert got.dtype == want.dtype and got.tobytes() == np.ascontiguousarray(want).tobytes()
    dst = xp.zeros(shape, dtype=xp.float64)                            # the cast kernel
    dst[...] = x.T
    assert np.array_equal(np.asarray(dst), a.T.astype(np.float64))
