"""Test helpers: random strided views over device storages, host data per dtype, and
reading a whole storage back to check nothing outside a view changed."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from npu_emu import device
from npu_emu.dtypes import INFO, aclDataType as DT
from npu_emu.tensor import Tensor, make_tensor


@st.composite
def injective_views(draw, shape):
    """(strides, offset, storage_len) of a view of `shape` whose elements are distinct
    (a permuted, stepped, padded layout), so it can be written to."""
    ndim = len(shape)
    order = draw(st.permutations(list(range(ndim))))
    strides = [0] * ndim
    acc = 1
    for d in reversed(order):
        strides[d] = acc * draw(st.integers(1, 2))
        acc = strides[d] * max(shape[d], 1) + draw(st.integers(0, 2))
    offset = draw(st.integers(0, 4))
    return strides, offset, offset + acc + draw(st.integers(0, 2))


@st.composite
def readable_views(draw, shape):
    """(strides, offset, storage_len) of any view of `shape` (strides may be 0: aliasing)."""
    strides = [draw(st.integers(0, 7)) for _ in shape]
    offset = draw(st.integers(0, 5))
    extent = offset + sum(max(n - 1, 0) * s for n, s in zip(shape, strides)) + 1
    return strides, offset, extent + draw(st.integers(0, 2))


def host_values(rng: np.random.Generator, dtype: DT, n: int) -> np.ndarray:
    """n values of `dtype` as its host dtype (raw storage where there is no host dtype)."""
    info = INFO[dtype]
    if info.kind == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if info.kind in ("signed", "unsigned"):
        lo, hi = (np.iinfo(info.storage).min, np.iinfo(info.storage).max)
        return rng.integers(lo, hi, n, dtype=info.storage, endpoint=True)
    if info.kind == "complex":
        return (rng.normal(size=n) * 10 + 1j * rng.normal(size=n) * 10).astype(info.storage)
    if info.host is None:  # HiFloat8 and friends: any code
        return rng.integers(0, 256, n, dtype=np.uint8)
    return (rng.normal(size=n) * 8).astype(np.float32).astype(info.host)


def storage_tensor(values: np.ndarray, dtype: DT, shape, strides, offset) -> Tensor:
    """A device tensor viewing `values` (the flat storage) with the given geometry."""
    base = device.from_numpy(np.ascontiguousarray(values).reshape(-1), dtype)
    return make_tensor(list(shape), dtype, list(strides), offset, "ND", [max(len(values), 1)],
                       base.data, owner=base.owner)


def host_view(storage: np.ndarray, shape, strides, offset) -> np.ndarray:
    """The NumPy equivalent of a view over a flat storage."""
    item = storage.itemsize
    if math.prod(shape) == 0:
        return np.empty(shape, storage.dtype)
    return np.lib.stride_tricks.as_strided(storage[offset:], shape=shape,
                                           strides=[s * item for s in strides])


def bits(array: np.ndarray) -> np.ndarray:
    """The same memory as unsigned integers (exact comparisons, NaN payloads included)."""
    size = array.dtype.itemsize
    return np.ascontiguousarray(array).view(np.dtype(f"u{size}") if size <= 8 else np.uint64)


def raw(array: np.ndarray, dtype: DT) -> np.ndarray:
    """Bits of host values as stored for dtype."""
    return bits(device.storage_array(array, dtype))
