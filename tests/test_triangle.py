"""The triangle family (kernels_cuda/triangle.cuh, npu_emu/kernels/triangle.py): tril and
triu into a contiguous result, x's bits kept on one side of the k-th diagonal and zero bits
on the other, for every element width, x of any strides (reversed, transposed, strided), a
batch, every k (past either corner too), and any grid. Reference: NumPy's tril and triu of
the same bits."""
from __future__ import annotations

import numpy as np
import pytest

from npu_emu import runtime
from npu_emu.kernels import triangle as T

UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _bits(width: int, shape, rng) -> np.ndarray:
    if width == 16:   # two 64-bit words an element
        return rng.integers(1, 2**63, (*shape, 2), dtype=np.uint64)
    return rng.integers(1, np.iinfo(UINT[width]).max, shape, dtype=UINT[width], endpoint=True)


def _run(be, lower, k, width, x: np.ndarray) -> np.ndarray:
    """The kernel on host memory: x a NumPy view of `width`-byte elements (16: a trailing
    axis of two words), batch first."""
    item = width // x.itemsize if width == 16 else 1
    shape = x.shape[:3] if width == 16 else x.shape
    strides = tuple(s // x.itemsize // item for s in x.strides[:3])
    full = (*shape, 2) if width == 16 else shape
    n = int(np.prod(full))
    buf = np.full(n + 64, 0x5A, x.dtype)             # 64 elements past the end: untouched
    out = buf[:n].reshape(full)
    launches = T.plan(be, lower, k, width, out.ctypes.data, x.ctypes.data, shape, strides)
    be.enqueue(launches, None, 0)
    be.default_stream.synchronize()
    assert (buf[n:] == buf.dtype.type(0x5A)).all()
    return out


@pytest.mark.parametrize("width", list(T.WIDTHS))
def test_tril_and_triu_keep_the_bits_on_their_side(width, monkeypatch):
    be = runtime.backend("cpu")
    rng = np.random.default_rng(width)
    base = _bits(width, (3, 11, 17), rng)
    views = {"contiguous": base, "transposed": base.transpose(0, 2, 1, 3) if width == 16
             else base.transpose(0, 2, 1), "reversed": base[:, ::-1, ::-1],
             "strided": base[::2, 1::3, ::2], "one row": base[:, :1], "one column": base[:, :, :1]}
    for name, x in views.items():
        rows, cols = x.shape[1:3]
        for k in (-rows - 5, -rows, -3, -1, 0, 1, 5, cols - 1, cols, cols + 4):
            for lower, fn in ((True, np.tril), (False, np.triu)):
                got = _run(be, lower, k, width, x)
                if width == 16:
                    keep = fn(np.ones((rows, cols), bool), k=k)[None, :, :, None]
                    want = np.where(keep, x, 0)
                else:
                    want = fn(x, k=max(min(k, 99), -99))
                assert got.tobytes() == np.ascontiguousarray(want).tobytes(), (name, k, lower)


def test_the_grid_does_not_change_the_result(monkeypatch):
    """Rows shared out differently among blocks (one row a block up to all in one): the same
    bytes."""
    be = runtime.backend("cpu")
    x = _bits(4, (2, 40, 33), np.random.default_rng(3))
    want = np.tril(x, k=2)
    for elements in (1, 33, 100, 1 << 20):
        monkeypatch.setattr(T, "BLOCK_ELEMENTS", elements)
        assert _run(be, True, 2, 4, x).tobytes() == want.tobytes()


def test_plan_refuses_a_width_it_has_no_kernel_for():
    be = runtime.backend("cpu")
    with pytest.raises(ValueError, match="3-byte elements"):
        T.plan(be, True, 0, 3, 0, 0, (1, 2, 2), (4, 2, 1))
    assert T.plan(be, True, 0, 4, 0, 0, (0, 2, 2), (4, 2, 1)) == []
