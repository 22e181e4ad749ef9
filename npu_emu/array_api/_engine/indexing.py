"""Indexing as Array's [] runs it. Basic indexing (integers, slices with any step, `...`,
`None`) gives a view of the same memory, no copy; integer-array and boolean-mask indexing
gather with the backend's array library into a new array (on the cpu backend a large one in
parts, on its threads). Assignment to a basic index is one InplaceCopy (the value broadcast,
then converted to the array's dtype, as the NPU converts); to an advanced index, the value
is converted by our kernels first, then x[mask] = one value is our select kernel in x's
memory and the library scatters the other values' bits.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import BOOL, COMPLEX, FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT
from . import parts
from .array import Array, empty_array, is_scalar
from .asarray import asarray
from .device import library, library_order
from .kernel import assign, check_library_destination, check_writable, convert, select
from .library import adopt, compressed, raw_result
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


# A gather moves memory and computes little: in parts from this many bytes of result (on the
# 2-core Xeon of 2026-12-07, float32 rows by 1024 int64 indices: 4 MiB 0.36 ms whole against
# 0.37 in two parts, 8 MiB 0.68 against 0.53, 32 MiB 4.2 against 1.4; NumPy 0.24, 0.52, 4.3).
GATHER_SPLIT_FROM = 8 << 20


def gather(x: Array, idx: object, axis: int) -> Array:
    """x's elements at the 1-D integer indices `idx` (the library's array; negative ones count
    from the end) along `axis`, x's bits unchanged: the library's take. A large result on the
    cpu backend is taken in parts (parts) into our own new array: its rows along axis 0 (the
    indices' parts when axis is 0), once the indices are known to be in range."""
    be = x._st.backend
    with library_order(be):
        raw = x._raw()
        shape = raw.shape[:axis] + (idx.shape[0],) + raw.shape[axis + 1:]
        n = shape[0]
        nbytes = int(np.prod(shape)) * raw.dtype.itemsize
        k = parts.count(be, nbytes, n, GATHER_SPLIT_FROM)
        if k == 1:
            return raw_result(library(be).take(raw, idx, axis=axis), x._t.dtype, be)
        size = raw.shape[axis]
        lo, hi = int(idx.min()), int(idx.max())
        if hi >= size or lo < -size:
            raise IndexError(f"index {hi if hi >= size else lo} is out of bounds for axis "
                             f"{axis} with size {size}")
    out = empty_array(shape, x._t.dtype, be)
    with library_order(be):
        o = out._raw()
        if axis == 0:      # in range: "wrap" only turns the negative ones around, unbuffered
            parts.run(lambda s: np.take(raw, idx[s], axis=0, out=o[s], mode="wrap"), n, k)
        else:
            parts.run(lambda s: np.take(raw[s], idx, axis=axis, out=o[s], mode="wrap"), n, k)
    return out


# x[mask] is compressed into our new array (compressed) from this many bytes of x:
# NumPy's boolean indexing of a random mask is 1.5-4x slower than its compress from 4K
# elements on (float32, 2026-12-07: 64K 273 -> 64 us, 200K 860 -> 245 us); below 16K
# elements our array's own costs (a few microseconds) ate that (x[mask] of 8192: 31 us,
# NumPy's 23).
MASK_COMPRESS_FROM = 64 << 10


def masked_gather(x: Array, mask: np.ndarray) -> Array | None:
    """x[mask] for a bool NumPy mask of x's shape on the cpu backend, in parts along axis 0
    (parts): each part's count first, then each part's elements compressed into its place in
    our new array (compressed), in order: the bits of one call (4M float32, 38 % kept:
    19.9 -> 3.1 ms at two threads). None (nothing done) below MASK_COMPRESS_FROM bytes. (A
    mask over fewer axes, picking whole rows, stays NumPy's one call: compressing rows in
    parts was 2.5x slower than its row copy.) Call in library order."""
    be = x._st.backend
    raw = x._raw()
    if raw.nbytes < MASK_COMPRESS_FROM:
        return None
    n = raw.shape[0]
    k = parts.count(be, raw.nbytes, n)
    place, total = parts.placed(lambda s: int(np.count_nonzero(mask[s])), n, k)
    out = empty_array((total,), x._t.dtype, be)
    o = out._raw()

    def part(s: slice) -> None:
        at, c = place[s.start]
        compressed(mask[s].reshape(-1), raw[s].reshape(-1), c, o[at:at + c])
    parts.run(part, n, k)
    return out


def _advanced_get(x: Array, items: tuple) -> Array:
    be = x._st.backend
    with library_order(be):
        key = _library_key(x, items)
        k0 = key[0] if len(key) == 1 else None
        if (be.is_cpu and isinstance(k0, np.ndarray) and k0.dtype == np.bool_
                and k0.ndim >= 1 and k0.shape == x.shape):
            out = masked_gather(x, k0)           # x[mask]: in parts where it is large
            if out is not None:
                return out
        if be.is_cpu and len(key) == 1 and x.ndim >= 1 and getattr(key[0], "ndim", 0) == 1 \
                and key[0].dtype.kind in "iu":    # x[indices]: one 1-D integer array
            result = None
        else:
            result = x._raw()[key]
            if getattr(result, "base", None) is not None:
                result = result.copy()   # a view of our memory (a bool scalar index): own it
    if result is None:
        return gather(x, key[0], 0)
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
    if kind == COMPLEX:
        # as NumPy, PyTorch and astype: the imaginary part would be dropped
        raise TypeError(f"cannot assign the Python complex {value!r} to an array of "
                        f"{x.dtype.name}: it would drop the imaginary part; give "
                        f"{value!r}.real")
    if kind == FLOATING and INFO[dtype].kind in (SIGNED, UNSIGNED):
        # converted toward zero (as NumPy, PyTorch and the NPU's InplaceCopy), where the
        # integer dtype holds the result: a NaN, an infinity or a value past its range is
        # refused as PyTorch refuses it (an int past the range is an OverflowError too)
        if v != v:
            raise ValueError(f"cannot assign NaN to an array of {x.dtype.name}")
        limits = np.iinfo(INFO[dtype].storage)
        if not limits.min - 1 < v < limits.max + 1:
            raise OverflowError(f"cannot assign {value!r} to an array of {x.dtype.name}: "
                                f"outside its range [{limits.min}, {limits.max}]")
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
    check_library_destination(x)          # for our select kernel too: one write an element
    if src._t.dtype != x._t.dtype:
        src = convert(src, x._t.dtype)
    if _masked_fill(x, items, src):
        return
    be = x._st.backend
    with library_order(be):
        key = _library_key(x, items)
        if not _masked_scatter(x, key, src):
            x._raw()[key] = src._raw()


def _masked_scatter(x: Array, key: tuple, src: Array) -> bool:
    """x[mask] = values (1-D, one for each true element, in order) for a bool NumPy mask of
    x's shape on the cpu backend, in parts along axis 0 (parts): each part's count, then its
    values written by NumPy's masked assignment from their place (4M float32, 38 % set: 17
    -> 10 ms at two threads). Whether it was done: not below parts.SPLIT_FROM bytes, for
    other keys and values, or values over x's own memory. Call in library order."""
    mask = key[0] if len(key) == 1 else None
    if not (x._st.backend.is_cpu and isinstance(mask, np.ndarray) and mask.dtype == np.bool_
            and mask.ndim >= 1 and mask.shape == x.shape and src.ndim == 1
            and src._st is not x._st):
        return False
    raw = x._raw()
    n = raw.shape[0]
    k = parts.count(x._st.backend, raw.nbytes, n)
    if k == 1:
        return False
    place, total = parts.placed(lambda s: int(np.count_nonzero(mask[s])), n, k)
    if total != src.shape[0]:
        return False                    # the library's error says what does not fit
    values = src._raw()

    def part(s: slice) -> None:
        at, c = place[s.start]
        raw[s][mask[s]] = values[at:at + c]
    parts.run(part, n, k)
    return True


def _masked_fill(x: Array, items: tuple, src: Array) -> bool:
    """x[mask] = v for a bool array of ours over x's leading axes and one value (0-d, in x's
    dtype), as x = where(mask, v, x) in x's own memory by our select kernel (it moves bits:
    a pass over x at the kernels' speed; NumPy's masked assignment took 17 ms for 4M float32
    on one thread). Whether it was done: not for other keys, private layouts, or a mask or
    value over x's own memory (other than x itself as the mask)."""
    mask = items[0] if len(items) == 1 else None
    if (mask.__class__ is not Array or INFO[mask._t.dtype].kind != BOOL or mask.ndim == 0
            or mask.shape != x.shape[:mask.ndim] or src.ndim != 0
            or mask._st.backend is not x._st.backend or src._st.backend is not x._st.backend
            or x._layout is not None or mask._layout is not None or src._layout is not None
            or (mask._st is x._st and mask is not x) or src._st is x._st):
        return False
    if mask.ndim < x.ndim:          # over the leading axes: broadcast along the others
        mask = getitem(mask, (Ellipsis,) + (None,) * (x.ndim - mask.ndim))
    return select(mask, src, x, x.shape, out=x) is not None
