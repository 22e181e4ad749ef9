"""Sorting functions: sort and argsort, always stable (stable=False may take the same sort),
on the backend's library over the array's memory (an ascending sort by the library's fast
sort, equal elements with other bits put back in their order: _restore_runs), the narrow
floats compared in float32 (the NPU's computation type; exact, so the order is theirs).
NaNs sort after every number ascending, before them descending.

argsort descending and stable: the library's stable ascending sort of x reversed along the
axis, reversed back, gives equal elements in their original order; its indices count from
the other end. On NumPy, values of at most 32 bits sort as unique 64-bit keys instead
(_argsort_by_keys): the same indices, by NumPy's fast sort. On the cpu backend a large sort
or argsort runs in parts of its lanes at once, one per thread of the backend (parts).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import INFO
from ._engine import parts
from ._engine.args import axis_arg
from ._engine.array import Array, empty_array
from ._engine.kernel import copy
from ._engine.library import computing, result
from ._searching import INDEX, index_result, ordered_arg, values


def _sort_axis(x: Array, axis: int) -> int:
    # A 0-d array sorts as one element (axis -1 or 0 name it).
    return axis_arg(axis, max(x.ndim, 1))


def _stable(lib: Any) -> dict[str, str]:
    # CuPy's sorts are always stable (radix sort) and older CuPy takes no `kind`.
    return {"kind": "stable"} if lib is np else {}


def _restore_runs(lib: Any, out: Any, raw: Any, v: Any, ordered: Any, axis: int,
                  nans: bool) -> None:
    """After a sort of v (`ordered`, ascending or descending) into `out` (raw storage bits,
    as x's `raw`): the elements equal to others but with other bits, the signed zeros and the
    NaNs (payloads), form one run each per lane whatever the sort; fill those runs with x's
    own bits in x's order, lane by lane: a stable sort's bits, both ways (the other equal
    elements have the same bits). NumPy's fast sort (introsort, SIMD where the CPU has it:
    20x its stable timsort on 10M float32) may reorder them, a descending order read off an
    ascending sort reverses them, and a narrow float's NaN payload does not survive its
    float32 value. Each run is looked for only where it can differ: zeros where x holds a -0
    (all +0 have one bit pattern; -0's bits, the sign bit alone, are the least of the
    signed integers of the storage's width, so the integer view's min finds it in one pass
    with no temporary), NaNs where `nans` (the caller read the ends of the ascending lanes)."""
    def lanes(a: Any) -> Any:
        return lib.moveaxis(a, axis, -1)
    bits = raw.view(np.dtype(f"i{raw.dtype.itemsize}"))
    minus_zero = bool(bits.min() == np.iinfo(bits.dtype).min)
    for run, present in ((_zero, minus_zero), (lib.isnan, nans)):
        if present:
            had = run(v)
            lanes(out)[lanes(run(ordered))] = lanes(raw)[lanes(had)]


def _zero(a: Any) -> Any:
    return a == 0


def _lanes_axis(a: Any, axis: int) -> int | None:
    """The longest axis other than `axis` (the lanes a sort along `axis` keeps apart), or
    None when there is none of two or more."""
    others = [d for d in range(a.ndim) if d != axis and a.shape[d] >= 2]
    return max(others, key=lambda d: a.shape[d]) if others else None


def _in_lanes(a: Any, axis: int, be: Any, nbytes: int, step: Any) -> None:
    """step(at, one) over all of a's lanes along `axis` (at: an index of a's parts; one: the
    backend where `at` is a single lane, all of a, else None): one call with `...`, or, for a
    large result (`nbytes`), one per part of the lanes at once on the backend's threads
    (parts)."""
    other = _lanes_axis(a, axis)
    k = 1 if other is None else parts.count(be, nbytes, a.shape[other])
    if k == 1:
        step(..., be if other is None else None)
        return
    parts.run(lambda s: step((slice(None),) * other + (s,), None), a.shape[other], k)


def _sort_lanes(a: np.ndarray, axis: int, be: Any, source: np.ndarray | None = None) -> None:
    """a.sort(axis) in place (with `source`: a = source first), NumPy's fast sort, in parts
    of the lanes when it is large: each lane sorted as one sort sorts it."""
    def step(at: Any, one: Any) -> None:
        if source is not None:
            a[at] = source[at]
        a[at].sort(axis=axis)
    _in_lanes(a, axis, be, a.nbytes, step)


def _by_keys(v: Any, axis: int) -> bool:
    """Whether NumPy's argsort of v goes by unique 64-bit keys (_argsort_by_keys)."""
    return v.dtype.itemsize <= 4 and v.shape[axis] <= 2**32


def _argsort(lib: Any, v: Any, axis: int, descending: bool, be: Any) -> Any:
    if lib is np and _by_keys(v, axis):
        return _argsort_by_keys(v, axis, descending, be, np.empty(v.shape, np.uint64)).view(
            np.int64)
    if not descending:
        return lib.argsort(v, axis=axis, **_stable(lib))
    backwards = lib.argsort(lib.flip(v, axis=axis), axis=axis, **_stable(lib))
    return (v.shape[axis] - 1) - lib.flip(backwards, axis=axis)


def _argsort_by_keys(v: np.ndarray, axis: int, descending: bool, be: Any,
                     keys: np.ndarray) -> np.ndarray:
    """The stable argsort of values of at most 32 bits (bool, integers, float32: the narrow
    floats' values) by one sort of unique 64-bit keys: the value's rank as 32 bits (the
    order's complement descending) above its index along the axis. The keys are distinct,
    so any sort gives the one order a stable sort gives, and NumPy's fast one (SIMD where the
    CPU has it) does: 4-8x its stable argsort at 1M float32 (1024 x 1024 by rows 39 -> 8.6
    ms). Floats: -0 ranks as +0 and every NaN as one value past +inf (they compare equal).
    Into `keys` (uint64, v's shape), which it returns; a large one runs in parts of the lanes
    on the backend's threads (parts)."""
    _in_lanes(v, axis, be, keys.nbytes,
              lambda at, one: _sorted_keys(v[at], axis, descending, keys[at], one))
    return keys


def _sorted_keys(v: np.ndarray, axis: int, descending: bool, keys: np.ndarray,
                 one: Any = None) -> None:
    """_argsort_by_keys of v into `keys` (uint64, v's shape): the keys made, sorted along
    `axis`, and cut to their indices. `one`: the backend where v is a single lane: a large
    one makes and cuts its keys in parts of the lane on the backend's threads (elementwise:
    the same keys), around NumPy's one sort (1M float32: 15 -> 11 ms at two threads)."""
    if one is not None and keys.flags.c_contiguous:
        flat, lane, n = keys.reshape(-1), v.reshape(-1), keys.size
        k = parts.count(one, keys.nbytes, n)
        parts.run(lambda s: _make_keys(lane[s], 0, descending, flat[s], s.start), n, k)
        flat.sort()
        parts.run(lambda s: np.bitwise_and(flat[s], np.uint64(0xFFFFFFFF), out=flat[s]), n, k)
        return
    _make_keys(v, axis, descending, keys)
    keys.sort(axis=axis)
    np.bitwise_and(keys, np.uint64(0xFFFFFFFF), out=keys)


def _make_keys(v: np.ndarray, axis: int, descending: bool, keys: np.ndarray,
               start: int = 0) -> None:
    """The unique keys of v into `keys` (uint64, v's shape): each value's rank (32 bits)
    above its index along `axis` (counted from `start`: a part of a lane)."""
    kind = v.dtype.kind
    with np.errstate(invalid="ignore"):
        if kind == "f":
            rank = (v + np.float32(0)).view(np.uint32)            # a new array; -0 -> +0
            flip = rank >> np.uint32(31)                          # negative: all bits flip,
            np.multiply(flip, np.uint32(0x7FFFFFFF), out=flip)    # else the sign bit alone
            np.bitwise_or(flip, np.uint32(0x80000000), out=flip)
            np.bitwise_xor(rank, flip, out=rank)
            rank[np.isnan(v)] = np.uint32(0xFFC00000)             # above +inf's 0xFF800000
        elif kind == "i":
            rank = v.astype(np.int32).view(np.uint32) ^ np.uint32(0x80000000)
        else:                                                     # unsigned, bool
            rank = v.astype(np.uint32)
    if descending:                     # NaNs first, then the values' order reversed
        np.invert(rank, out=rank)
    n = v.shape[axis]
    keys[...] = rank
    np.left_shift(keys, np.uint64(32), out=keys)
    np.bitwise_or(keys, np.arange(start, start + n, dtype=np.uint64).reshape(
        [n if d == axis else 1 for d in range(v.ndim)]), out=keys)


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True) -> Array:
    """The indices that sort x along `axis` (ascending, or descending), stable: equal
    elements keep their order. Default index dtype (int64)."""
    x = ordered_arg("argsort", x)
    a = _sort_axis(x, axis)
    v = values(x)
    be = x._st.backend
    if be.is_cpu and x.ndim and _by_keys(v, a):     # the keys sorted in the result's memory
        out = empty_array(v.shape, INDEX, be)
        with computing(be):
            _argsort_by_keys(v, a, bool(descending), be, out._raw().view(np.uint64))
        return out
    with computing(be) as lib:
        if x.ndim == 0:
            v = v.reshape(1)
        out = _argsort(lib, v, a, bool(descending), be)
        if x.ndim == 0:
            out = out.reshape(())
    return index_result(out, x)


def sort(x: Array, /, *, axis: int = -1, descending: bool = False,
         stable: bool = True) -> Array:
    """x sorted along `axis` (ascending, or descending), stable, in x's dtype."""
    x = ordered_arg("sort", x)
    a = _sort_axis(x, axis)
    be = x._st.backend
    if x.ndim == 0:
        return copy(x)
    v = values(x)
    # An ascending sort of x's own values on NumPy writes straight into the result's memory
    # (the pool's, used again call after call; a new NumPy array is fresh pages each time).
    into = empty_array(v.shape, x._t.dtype, be) if be.is_cpu and not descending and \
        v.dtype == INFO[x._t.dtype].storage else None
    with computing(be) as lib:
        if lib is np:                          # NumPy's fast sort, in parts when large
            ordered = np.empty(v.shape, v.dtype) if into is None else into._raw()
            _sort_lanes(ordered, a, be, source=v)
        else:
            ordered = lib.sort(v, axis=a)      # CuPy's radix sort
        # NaNs sort last ascending: a lane holds one iff its last element is one
        nans = v.dtype.kind == "f" and v.size > 0 and \
            bool(lib.isnan(lib.take(ordered, -1, axis=a)).any())
        if descending:                         # the values' order, NaNs first
            ordered = lib.ascontiguousarray(lib.flip(ordered, axis=a))
    # a narrow float from float32: exact, but NaNs
    y = into if into is not None else result(ordered, x._t.dtype, be)
    if v.dtype.kind == "f" and v.size:
        with computing(be) as lib:
            _restore_runs(lib, y._raw(), x._raw(), v, ordered, a, nans)
    return y


__all__ = ["argsort", "sort"]
