"""Indexing as Array's [] runs it. Basic indexing (integers, slices with any step, `...`,
`None`) gives a view of the same memory, no copy; integer-array and boolean-mask indexing
gather with the backend's array library into a new array. Assignment to a basic index is one
InplaceCopy (the value broadcast, then converted to the array's dtype, as the NPU converts);
to an advanced index, the value is converted by our kernels first and the library scatters
its bits.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import BOOL, COMPLEX, FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT
from .array import Array, is_scalar
from .asarray import asarray
from .device import library, library_order
from .kernel import assign, check_library_destination, check_writable, convert
from .library import adopt
from .scalars import SCALAR_KIND, TAKES, python_value, scalar_constant, scalar_dtype
from .views import basic_view


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
    be = x._st.backend
    with library_order(be):
        result = x._raw()[_library_key(x, items)]
        if getattr(result, "base", None) is not None:
            result = result.copy()   # a view of our memory (a bool scalar index): own it
    if not hasattr(result, "shape"):
        result = library(be).asarray(result)
    return adopt(result, x._t.dtype, be, shared=False)


def _value_array(value: object, dtype: DT, x: Array) -> Array:
    """The right-hand side of an assignment as an array on x's device (only read: a Python
    scalar is the shared read-only constant of its value, uploaded once)."""
    if isinstance(value, Array):
        return value
    if isinstance(value, np.ndarray):
        return asarray(value, device=x.device)
    if not is_scalar(value):
        raise TypeError(f"cannot assign a {type(value).__name__} to an array element; give an "
                        f"array or a Python scalar")
    v = python_value(value)
    kind = SCALAR_KIND[type(v)]
    if INFO[dtype].kind in TAKES[kind]:
        return scalar_constant(v, scalar_dtype(v, dtype), x._st.backend)
    if kind == SIGNED and v > np.iinfo(np.int64).max:
        return scalar_constant(v, DT.ACL_UINT64, x._st.backend)
    return scalar_constant(v, _WIDEST[kind], x._st.backend)


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
