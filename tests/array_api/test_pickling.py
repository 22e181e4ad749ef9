"""Arrays pickle, copy and deepcopy: the stored bits (every dtype of the namespace, the NPU's
bfloat16 / float8 / HiFloat8 included), dtype, shape, private layout and device survive, and
a copy is new memory. The reference is the array's own stored bits before the round trip."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import npu_emu.array_api as xp

from ._support import ALL, bits, sample


@pytest.fixture(autouse=True)
def _cpu(cpu_backend):
    yield cpu_backend


def _same(a: xp.Array, b: xp.Array) -> None:
    assert b is not a and b.dtype == a.dtype and b.shape == a.shape and b.device == a.device
    assert b.format == a.format
    np.testing.assert_array_equal(bits(b), bits(a))


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_round_trip_keeps_the_bits_of_every_dtype(dtype, how):
    x = sample(dtype, (3, 4), np.random.default_rng(7))
    if how == "pickle":
        y = pickle.loads(pickle.dumps(x, protocol=pickle.HIGHEST_PROTOCOL))
    else:
        y = getattr(copy, how)(x)
    _same(x, y)


@pytest.mark.parametrize("how", [lambda x: pickle.loads(pickle.dumps(x)), copy.copy,
                                 copy.deepcopy], ids=["pickle", "copy", "deepcopy"])
def test_views_0d_empty_and_special_values(how):
    base = xp.asarray(np.arange(24, dtype=np.float32).reshape(4, 6))
    for x in (base[::-2, 1::2], base.mT, base[1, 2], base[:0], xp.flip(base, axis=1),
              xp.asarray([np.nan, -0.0, np.inf, -np.inf], dtype=xp.bfloat16),
              xp.asarray(np.array([1.5, -2.0, np.nan], np.float32), dtype=xp.hifloat8)):
        y = how(x)
        _same(x, y)
        assert y._flip is None and y._t.is_contiguous()    # a new, contiguous array


def test_a_private_layout_survives():
    h = np.arange(20 * 28, dtype=np.float16).reshape(20, 28)
    nz = xp.format_cast(xp.asarray(h), "NZ")
    for y in (pickle.loads(pickle.dumps(nz)), copy.deepcopy(nz)):
        _same(nz, y)
        assert y._layout.view_shape == (20, 28)
        np.testing.assert_array_equal(np.asarray(xp.format_cast(y, "ND")), h)


def test_copies_are_new_memory_and_containers_deepcopy():
    h = np.arange(6, dtype=np.float64)
    x = xp.asarray(h)                       # shares h's memory
    ro = xp.asarray(np.frombuffer(h.tobytes(), np.float64))    # read-only import
    state = {"a": x, "b": [x, ro]}
    c = copy.deepcopy(state)
    assert c["b"][0] is c["a"]              # the memo keeps shared references shared
    c["a"][0] = 100.0
    c["b"][1][1] = 200.0                    # the copy of read-only memory is writable
    assert h[0] == 0.0 and np.asarray(x)[0] == 0.0
    assert np.asarray(c["b"][1]).tolist() == [0.0, 200.0, 2.0, 3.0, 4.0, 5.0]
    y = copy.copy(x)
    y[1] = -1.0
    assert h[1] == 1.0


def test_a_pickle_of_the_wrong_bits_is_refused():
    from npu_emu.array_api._engine.array import rebuild
    with pytest.raises(ValueError, match="bfloat16.*uint16"):
        rebuild(np.zeros(3, np.float32), "bfloat16", "cpu")
