"""Indexing. Basic indexing (integers, slices with any step, `...`, `None`) gives a view of
the same memory, no copy; integer-array and boolean-mask indexing gather with the backend's
array library into a new array. Assignment to a basic index is one InplaceCopy (the value
broadcast, then converted to the array's dtype, as the NPU converts); to an advanced index,
the value is converted by our kernels first and the library scatters its bits.
"""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from ..dtypes import BOOL, COMPLEX, FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT
from ._array import Array, is_scalar
from ._calls import assign, check_library_destination, check_writable, convert
from ._device import library, library_order
from ._elementwise import _TAKES, _SCALAR_KIND, python_value, scalar_array, scalar_dtype

# The widest dtype of each Python scalar kind: a value that does not fit the destination's
# kind is made in it, then converted by InplaceCopy (so x_int[0] = 2.7 truncates to 2).
_WIDEST = {BOOL: DT.ACL_BOOL, SIGNED: DT.ACL_INT64, FLOATING: DT.ACL_DOUBLE,
           COMPLEX: DT.ACL_COMPLEX128}


def _is_basic(item: object) -> bool:
    if item is None or item is Ellipsis or isinstance(item, slice):
        return True
    if isinstance(item, (bool, np.bool_)):
        return False
    if isinstance(item, (int, np.integer)):
        return True
    return isinstance(item, Array) and item.ndim == 0 and INFO[item._t.dtype].kind in (SIGNED,
                                                                                      UNSIGNED)


def basic_view(shape: Sequence[int], strides: Sequence[int], offset: int,
               key: tuple) -> tuple[list[int], list[int], int]:
    """The view (shape, signed strides, offset of element 0) that a basic index selects.
    IndexError for an index out of range, too many indices, or two ellipses."""
    ndim = len(shape)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consuming = sum(1 for k in key if k is not None and k is not Ellipsis)
    if consuming > ndim:
        raise IndexError(f"too many indices: {consuming} for an array of {ndim} dimensions")
    if Ellipsis in key:
        i = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:i] + (slice(None),) * (ndim - consuming) + key[i + 1:]
    else:
        key = key + (slice(None),) * (ndim - consuming)
    out_shape, out_strides, d = [], [], 0
    for k in key:
        if k is None:
            out_shape.append(1)
            out_strides.append(0)
            continue
        n, s = shape[d], strides[d]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            if length:
                offset += start * s
            out_shape.append(length)
            out_strides.append(s * step)
        else:
            i = operator.index(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {d} of size {n}")
            offset += (i % n) * s
        d += 1
    return out_shape, out_strides, offset


def _key(key: object) -> tuple:
    return key if isinstance(key, tuple) else (key,)


def getitem(x: Array, key: object) -> Array:
    items = _key(key)
    if all(_is_basic(k) for k in items):
        return x._view(*basic_view(*x._signed(), items))
    return _advanced_get(x, items)


def _library_key(x: Array, items: tuple) -> tuple:
    """The index as the backend library takes it: our arrays as library views, NumPy arrays
    and lists as library arrays on the device."""
    be = x._st.backend
    xp = library(be)
    out = []
    for k in items:
        if isinstance(k, Array):
            if k._st.backend is not be:
                raise IndexError(f"the index array is on {k.device}, the array on {x.device}")
            if INFO[k._t.dtype].kind not in (BOOL, SIGNED, UNSIGNED):
                raise IndexError(f"arrays used as indices must be of integer or boolean dtype, "
                                 f"not {k.dtype.name}")
            out.append(k._values())
        elif isinstance(k, (list, np.ndarray)) or (hasattr(k, "__array__") and not
                                                      isinstance(k, (slice, type(Ellipsis)))):
            a = np.asarray(k)
            if a.dtype.kind not in "biu":
                raise IndexError(f"arrays used as indices must be of integer or boolean dtype, "
                                 f"not {a.dtype}")
            out.append(a if xp is np else xp.asarray(a))
        else:
            out.append(k)
    return tuple(out)


def _advanced_get(x: Array, items: tuple) -> Array:
    from ._creation import adopt
    be = x._st.backend
    with library_order(be):
        result = x._raw()[_library_key(x, items)]
        if getattr(result, "base", None) is not None:
            result = result.copy()   # a view of our memory (a bool scalar index): own it
    if not hasattr(result, "shape"):
        result = library(be).asarray(result)
    return adopt(result, x._t.dtype, be, shared=False)


def _value_array(value: object, dtype: DT, x: Array) -> Array:
    """The right-hand side of an assignment as an array on x's device."""
    if isinstance(value, Array):
        return value
    if isinstance(value, np.ndarray):
        from ._creation import asarray
        return asarray(value, device=x.device)
    if not is_scalar(value):
        raise TypeError(f"cannot assign a {type(value).__name__} to an array element; give an "
                        f"array or a Python scalar")
    v = python_value(value)
    kind = _SCALAR_KIND[type(v)]
    if INFO[dtype].kind in _TAKES[kind]:
        return scalar_array(v, scalar_dtype(v, dtype), x._st.backend)
    if kind == SIGNED and v > np.iinfo(np.int64).max:
        return scalar_array(v, DT.ACL_UINT64, x._st.backend)
    return scalar_array(v, _WIDEST[kind], x._st.backend)


def setitem(x: Array, key: object, value: object) -> None:
    check_writable(x, "the array")
    items = _key(key)
    src = _value_array(value, x._t.dtype, x)
    if all(_is_basic(k) for k in items):
        assign(x._view(*basic_view(*x._signed(), items)), src)
        return
    check_library_destination(x)
    if src._t.dtype != x._t.dtype:
        src = convert(src, x._t.dtype)
    be = x._st.backend
    with library_order(be):
        x._raw()[_library_key(x, items)] = src._raw()


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
    from ._creation import raw_result
    from ._manipulation import _array, _axis
    x = _array(x)
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for an array of {x.ndim} dimensions")
        axis = 0
    a = _axis(axis, x.ndim)
    idx = _index_array("take", x, indices)
    if idx.ndim != 1:
        raise ValueError(f"take: indices must be 1-D, not of shape {idx.shape}")
    with library_order(x._st.backend):
        out = library(x._st.backend).take(x._raw(), idx, axis=a)
    return raw_result(out, x._t.dtype, x._st.backend)


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """x's elements at `indices` along `axis` (indices of x's rank; the other axes
    broadcast): the library gathers x's bits."""
    from ._creation import raw_result
    from ._manipulation import _array, _axis
    x = _array(x)
    idx = _index_array("take_along_axis", x, indices)
    if idx.ndim != x.ndim:
        raise ValueError(f"take_along_axis: indices have {idx.ndim} dimensions and x "
                         f"{x.ndim}; they must have the same rank")
    a = _axis(axis, x.ndim)
    be = x._st.backend
    with library_order(be):
        out = library(be).take_along_axis(x._raw(), idx, axis=a)
    return raw_result(out, x._t.dtype, be)


__all__ = ["basic_view", "getitem", "setitem", "take", "take_along_axis"]
