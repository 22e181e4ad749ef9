"""Searching functions. argmax, argmin, nonzero, count_nonzero and searchsorted compare on the
backend's library (NumPy on cpu, CuPy on cuda) over the arrays' own memory, in stream order;
the narrow floats (float16, bfloat16, float8, HiFloat8) compare in float32, the NPU's
computation type, converted by our exact cast kernels. where is a selection: its two branches
are promoted by the array_api rule set and written into the result by InplaceCopy (broadcast
and conversion), then the library copies the chosen elements' bits over them. With a bool
condition and branches of one dtype there is nothing to convert: the library copies both
(the same bits, without the operator's launch).
"""
from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ..dtypes import BOOL, COMPLEX, INFO
from ..ops._checks import broadcast_shapes
from ._engine import dtypes as _dtypes
from ._engine.args import array_arg, axes_arg, axis_arg, same_device
from ._engine.array import Array, empty_array
from ._engine import parts, repeat
from ._engine.kernel import SELECT, context, convert, copy_into, select
from ._engine.library import (arg_reduce, compute_dtype, computing, in_parts, operand,
                              result)
from ._engine.scalars import PyScalar, promote, scalar_array, scalar_constant, scalar_dtype
from ._engine.ufunc import operands

INDEX = _dtypes.DEFAULT_INDEX.acl_dtype


def ordered_arg(fname: str, x: object, name: str = "x") -> Array:
    """An array whose values can be ordered: bool, integer or real floating. Note: complex
    numbers have no order in the standard, so they are refused rather than ordered as NumPy
    orders them (lexicographically)."""
    x = array_arg(fname, x, name)
    if INFO[x._t.dtype].kind == COMPLEX:
        raise TypeError(f"{fname}: {name} is {x.dtype.name}; complex numbers have no order "
                        f"(compare real(x) or abs(x))")
    return x


def values(x: Array) -> Any:
    """The library's view of x's values in the dtype it compares them in (call before
    `computing`: a conversion is enqueued on the stream)."""
    return operand(x, compute_dtype(x._t.dtype))


def index_result(value: Any, x: Array) -> Array:
    return result(value, INDEX, x._st.backend)


def _arg_reduce(fname: str, x: object, axis: int | None, keepdims: bool) -> Array:
    """argmax / argmin; a repeated call takes the short way (repeat) to our reduce kernel's
    plan."""
    out, key = repeat.short_way(fname, x, params=(repeat.typed(axis), repeat.typed(keepdims)))
    if out is not None:
        return out
    x = ordered_arg(fname, x)
    a = None if axis is None else axis_arg(axis, x.ndim)
    if (x.size if a is None else x.shape[a]) == 0:
        raise ValueError(f"{fname} of an empty {'array' if a is None else f'axis {axis}'} "
                         f"(shape {x.shape}) has no answer")
    keep = bool(keepdims)
    if a is None:
        shape = (1,) * x.ndim if keep else ()
    else:
        shape = tuple(1 if k == a else n for k, n in enumerate(x.shape) if keep or k != a)
    out = empty_array(shape, INDEX, x._st.backend)
    if out.size == 0:       # empty only along a kept axis: no index to find
        return out
    arg_reduce(fname, x, out, a, keep)
    repeat.remember_reduction(key, fname, x, x, out,
                              tuple(range(x.ndim)) if a is None else (a,), keep)
    return out


def argmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """The index of the first maximum along `axis` (of the flattened array when None), in
    the default index dtype (int64). NaN counts as the maximum (its first index)."""
    return _arg_reduce("argmax", x, axis, keepdims)


def argmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """The index of the first minimum along `axis` (of the flattened array when None), in
    the default index dtype (int64). NaN counts as the minimum (its first index)."""
    return _arg_reduce("argmin", x, axis, keepdims)


def count_nonzero(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
                  keepdims: bool = False) -> Array:
    """How many elements are not zero (True for bool; either part for complex; -0.0 is
    zero), over `axis` (all by default), in the default index dtype."""
    x = array_arg("count_nonzero", x)
    axes = None if axis is None else tuple(axes_arg(axis, x.ndim))
    v = values(x)
    with computing(x._st.backend) as lib:
        if lib is np:   # counts in place: no int64 array of the flags (20x at 1M float32)
            out = np.count_nonzero(v, axis=axes, keepdims=bool(keepdims))
        else:           # CuPy's count_nonzero has no keepdims
            out = lib.sum(v != 0, axis=axes, dtype=np.int64, keepdims=bool(keepdims))
    return index_result(out, x)


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """The indices of the non-zero elements, one int64 array per dimension, in row-major
    order."""
    x = array_arg("nonzero", x)
    if x.ndim == 0:
        raise ValueError("nonzero takes arrays of at least one dimension, not 0-d (use "
                         "nonzero(reshape(x, (1,))))")
    v = values(x)
    be = x._st.backend
    if be.is_cpu and v.ndim > 1 and v.nbytes >= NONZERO_FLAT_FROM:
        return _nonzero_flat(v, be)
    with computing(be) as lib:
        found = lib.nonzero(v)
    return tuple(index_result(i, x) for i in found)


# nonzero of 2 or more dims from this many bytes of x on the cpu backend: NumPy's flatnonzero
# and unravel_index (its nonzero of a (4096, 1024) bool, 38 % true, took 25.8 ms, flatnonzero
# and unravel_index 12.0), in parts along axis 0 from parts.SPLIT_FROM (9.1 ms at two
# threads). A 1-D x is NumPy's nonzero, which is its flatnonzero.
NONZERO_FLAT_FROM = 64 << 10


def _nonzero_flat(v: np.ndarray, be: Any) -> tuple[Array, ...]:
    """nonzero of the library view v (at least 1-D) into our new index arrays: per part of
    axis 0 (parts) its count, then its flat indices unravelled into their place (the first
    axis offset by the part's start): row-major order, as NumPy's nonzero."""
    n = v.shape[0]
    k = parts.count(be, v.nbytes, n)
    with computing(be):
        place, total = parts.placed(lambda s: int(np.count_nonzero(v[s])), n, k)
        outs = [empty_array((total,), INDEX, be) for _ in range(v.ndim)]
        raws = [o._raw() for o in outs]

        def part(s: slice) -> None:
            at, c = place[s.start]
            piece = v[s]
            idx = np.unravel_index(np.flatnonzero(piece), piece.shape)
            np.add(idx[0], s.start, out=raws[0][at:at + c])
            for d in range(1, v.ndim):
                raws[d][at:at + c] = idx[d]
        parts.run(part, n, k)
    return tuple(outs)


def searchsorted(x1: Array, x2: Array, /, *, side: Literal["left", "right"] = "left",
                 sorter: Array | None = None) -> Array:
    """Where x2's elements would go in the ascending 1-D x1 (x1[sorter] when given) to keep
    it sorted: side="left" the first such index, "right" the last. Both compare in their
    promoted dtype (array_api rule set), the narrow floats in float32."""
    x1 = ordered_arg("searchsorted", x1, "x1")
    if isinstance(x2, (bool, int, float)):
        x2 = scalar_array(x2, scalar_dtype(x2, x1._t.dtype), x1._st.backend)
    x2 = ordered_arg("searchsorted", x2, "x2")
    be = same_device("searchsorted", x1, x2)
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-D, not of shape {x1.shape}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side={side!r}; use 'left' or 'right'")
    ct = compute_dtype(promote("searchsorted", x1._t.dtype, x2._t.dtype))
    order = None
    if sorter is not None:
        sorter = array_arg("searchsorted", sorter, "sorter")
        same_device("searchsorted", x1, sorter)
        if INFO[sorter._t.dtype].kind not in ("signed", "unsigned"):
            raise TypeError(f"searchsorted: sorter must have an integer dtype, not "
                            f"{sorter.dtype.name}")
        if sorter.shape != x1.shape:
            raise ValueError(f"searchsorted: sorter has shape {sorter.shape}, x1 {x1.shape}")
        order = sorter._values()
    v1, v2 = operand(x1, ct), operand(x2, ct)
    n = v2.shape[0] if v2.ndim else 1
    k = parts.count(be, v2.size * INFO[INDEX].itemsize, n)
    if k > 1:   # x2's rows searched in parts on the cpu backend's threads, into our array
        return in_parts(v2.shape, INDEX, be, lambda s: np.searchsorted(
            v1, v2[s], side=side, sorter=order), n, k)
    with computing(be) as lib:
        found = lib.searchsorted(v1, v2, side=side, sorter=order)
    return index_result(found, x1)


_NO_BRANCH = object()


def where(condition: Array, x1: object = _NO_BRANCH, x2: object = _NO_BRANCH, /):
    """x1 where condition is true, x2 elsewhere (all three broadcast), in the promoted dtype
    of x1 and x2 (array_api rule set; a Python scalar takes the other branch's dtype where
    the standard says so). A bool condition and branches of the result's dtype go to our
    select kernel, which moves the chosen element's bits (a branch of another dtype is
    converted first, by our cast kernels). A non-bool condition means non-zero: then x2 is
    written by InplaceCopy (broadcast + conversion) and the library copies x1's bits where
    the condition holds.

    Note: `where(condition)` alone is NumPy's and CuPy's spelling of nonzero(condition);
    clients use it (scikit-learn's roc_curve), so it is accepted here too."""
    if x1 is _NO_BRANCH and x2 is _NO_BRANCH:
        return nonzero(condition)
    if x1 is _NO_BRANCH or x2 is _NO_BRANCH:
        raise TypeError("where takes condition and both x1 and x2 (or condition alone, as "
                        "nonzero)")
    out, key = repeat.short_way("where", condition, x1, x2)
    if out is not None:
        return out
    cond = array_arg("where", condition, "condition")
    a, b = operands("where", x1, x2)
    arrays = [cond] + [o for o in (a, b) if isinstance(o, Array)]
    be = same_device("where", *arrays)
    dt = promote("where", *(o._t.dtype if isinstance(o, Array) else o.dtype for o in (a, b)))
    shape = cond.shape
    for o, name in ((a, "x1"), (b, "x2")):
        if isinstance(o, Array):
            shape = broadcast_shapes(shape, o.shape, "condition", name)
    branches = []
    as_they_are = True      # no branch converted: one launch on the operands as they are
    for o in (a, b):
        if isinstance(o, PyScalar):
            o = scalar_constant(o.value, dt, be)   # read only: the shared one
        elif o._t.dtype != dt:
            o = convert(o, dt)
            as_they_are = False
        branches.append(o)
    if (INFO[cond._t.dtype].kind == BOOL and cond._layout is None
            and branches[0]._layout is None and branches[1]._layout is None):
        out = select(cond, branches[0], branches[1], shape)
        if out is None:                          # past the kernels' dims: the library's
            return _library_select(cond, branches[0], branches[1], shape)
        if key is not None and as_they_are and out.size:
            repeat.remember_family(key, context(be), SELECT, (cond, a, b), [cond, *branches],
                                   out, 0)
        return out
    out = empty_array(shape, dt, be)
    if out.size == 0:
        return out
    copy_into(out, branches[1])
    mask = values(cond)
    with computing(be) as lib:
        if INFO[cond._t.dtype].kind != BOOL:
            mask = mask != 0
        lib.copyto(out._raw(), branches[0]._raw(), where=mask)
    return out


def _library_select(cond: Array, x1: Array, x2: Array, shape: tuple[int, ...]) -> Array:
    """where() of a bool condition and two branches of one dtype by the library (past the
    kernels' dims): x2's bits broadcast, then x1's where cond holds."""
    out = empty_array(shape, x1._t.dtype, x1._st.backend)
    if out.size == 0:
        return out
    with computing(x1._st.backend) as lib:
        raw = out._raw()
        lib.copyto(raw, x2._raw())
        lib.copyto(raw, x1._raw(), where=cond._raw())
    return out


__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]
