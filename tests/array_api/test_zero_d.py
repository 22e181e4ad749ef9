"""0-d arrays stand wherever the standard's signature takes a Python scalar: fill values,
arange / linspace bounds, clip bounds, where's branches, correction, fftfreq's d. The
reference is the same call with the Python number (and NumPy 2 for the values)."""
from __future__ import annotations

import numpy as np
import pytest

import npu_emu.array_api as xp

from ._support import bits


@pytest.fixture(autouse=True)
def _cpu(cpu_backend):
    yield cpu_backend


def _same(a: xp.Array, b: xp.Array) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(bits(a), bits(b))


@pytest.mark.parametrize("value, dtype", [(7, xp.int8), (2.5, xp.float32), (-0.0, xp.float64),
                                          (1 + 2j, xp.complex64), (True, xp.bool),
                                          (2**64 - 1, xp.uint64), (0.375, xp.hifloat8),
                                          (3.0, xp.bfloat16)])
def test_full_takes_a_0d_fill_value_and_its_dtype(value, dtype):
    fill = xp.asarray(value, dtype=dtype)
    _same(xp.full((2, 3), fill), xp.full((2, 3), value, dtype=dtype))
    _same(xp.full_like(xp.zeros((2,), dtype=dtype), fill), xp.full(2, value, dtype=dtype))
    if dtype.kind in ("floating", "complex floating"):
        _same(xp.full(2, fill, dtype=xp.complex128), xp.full(2, value, dtype=xp.complex128))


def test_full_refuses_a_0d_value_its_dtype_cannot_take():
    with pytest.raises(TypeError, match="fill_value"):
        xp.full(2, xp.asarray(2.5), dtype=xp.int32)
    with pytest.raises(TypeError, match="0-d"):
        xp.full(2, xp.asarray([1.0, 2.0]))


def test_ranges_take_0d_bounds():
    _same(xp.arange(xp.asarray(5)), xp.arange(5))
    _same(xp.arange(xp.asarray(1), xp.asarray(7), xp.asarray(2)), xp.arange(1, 7, 2))
    _same(xp.arange(0, xp.asarray(2.0), 0.5), xp.arange(0, 2.0, 0.5))
    np.testing.assert_array_equal(np.asarray(xp.arange(0, xp.asarray(2.0), 0.5)),
                                  np.arange(0, 2.0, 0.5))
    _same(xp.linspace(xp.asarray(0.0), xp.asarray(1.0), 5), xp.linspace(0.0, 1.0, 5))
    _same(xp.linspace(xp.asarray(1j), 2.0, 3), xp.linspace(1j, 2.0, 3))
    _same(xp.linspace(0.0, 1.0, xp.asarray(4)), xp.linspace(0.0, 1.0, 4))


def test_clip_where_and_keyword_numbers_take_0d_arrays():
    x = xp.asarray([1.0, 5.0, 9.0])
    _same(xp.clip(x, xp.asarray(2.0), xp.asarray(6.0)), xp.clip(x, 2.0, 6.0))
    c = xp.asarray([True, False, True])
    _same(xp.where(c, xp.asarray(1.0), x), xp.where(c, 1.0, x))
    _same(xp.std(x, correction=xp.asarray(1)), xp.std(x, correction=1))
    _same(xp.fft.fftfreq(4, d=xp.asarray(0.5)), xp.fft.fftfreq(4, d=0.5))
    _same(xp.roll(x, xp.asarray(1)), xp.roll(x, 1))
    _same(xp.eye(xp.asarray(2)), xp.eye(2))
