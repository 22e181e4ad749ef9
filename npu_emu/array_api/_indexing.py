"""Indexing functions: take and take_along_axis (the backend's library gathers x's bits).
The Array's [] and []= are the engine's (npu_emu/array_api/_engine/indexing.py).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..dtypes import INFO, SIGNED, UNSIGNED
from ._engine import parts
from ._engine.args import array_arg, axis_arg
from ._engine.array import Array
from ._engine.device import library, library_order
from ._engine.indexing import gather
from ._engine.library import in_parts, raw_result


# ------------------------------------------------------------- take, take_along_axis

def _index_array(fname: str, x: Array, indices: object) -> Any:
    """The library's view of integer indices (our array on x's device, or a NumPy array or
    list, uploaded on cuda)."""
    be = x._st.backend
    if isinstance(indices, Array):
        if indices._st.backend is not be:
            raise ValueError(f"{fname}: indices are on {indices.device}, x on {x.device}")
        if INFO[indices._t.dtype].kind not in (SIGNED, UNSIGNED):
            raise TypeError(f"{fname}: indices must have an integer dtype, not "
                            f"{indices.dtype.name}")
        return indices._values()
    if isinstance(indices, (list, tuple, np.ndarray)):
        a = np.asarray(indices)
        if a.dtype.kind not in "iu":
            raise TypeError(f"{fname}: indices must be integers, not {a.dtype}")
        return a if library(be) is np else library(be).asarray(a)
    raise TypeError(f"{fname}: indices is a {type(indices).__name__}, not an integer array")


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    """The elements of x at `indices` (1-D; negative ones count from the end) along `axis`
    (needed unless x is 1-D): the library gathers x's bits (any dtype, unchanged)."""
    x = array_arg("", x)
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for an array of {x.ndim} dimensions")
        axis = 0
    a = axis_arg(axis, x.ndim)
    idx = _index_array("take", x, indices)
    if idx.ndim != 1:
        raise ValueError(f"take: indices must be 1-D, not of shape {idx.shape}")
    return gather(x, idx, a)


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """x's elements at `indices` along `axis` (indices of x's rank; the other axes
    broadcast): the library gathers x's bits."""
    x = array_arg("", x)
    idx = _index_array("take_along_axis", x, indices)
    if idx.ndim != x.ndim:
        raise ValueError(f"take_along_axis: indices have {idx.ndim} dimensions and x "
                         f"{x.ndim}; they must have the same rank")
    a = axis_arg(axis, x.ndim)
    be = x._st.backend
    p = 1 if a == 0 else 0               # the axis the parts split (another than `axis`)
    if x.ndim > 1 and x.shape[p] == idx.shape[p]:
        shape = list(np.broadcast_shapes(*(tuple(1 if d == a else n for d, n in
                                                 enumerate(s)) for s in (x.shape, idx.shape))))
        shape[a] = idx.shape[a]
        nbytes = math.prod(shape) * INFO[x._t.dtype].itemsize
        k = parts.count(be, nbytes, x.shape[p])
        if k > 1:   # in parts along axis p on the cpu backend's threads, into our new array
            raw, lead = x._raw(), (slice(None),) * p
            return in_parts(shape, x._t.dtype, be, lambda s: np.take_along_axis(
                raw[lead + (s,)], idx[lead + (s,)], axis=a), x.shape[p], k, axis=p)
    with library_order(be):
        found = library(be).take_along_axis(x._raw(), idx, axis=a)
    return raw_result(found, x._t.dtype, be)


__all__ = ["take", "take_along_axis"]
