"""Utility functions: all and any (on the backend's array library, over the array's own
memory, into a bool result from the pool), and diff (our subtract on views of x, so the
differences take the same path as x[1:] - x[:-1]: aclnnAdd where the SoC has the dtype;
prepend / append joined by concat).
"""
from __future__ import annotations

import operator

from ..dtypes import aclDataType as DT
from ._engine.args import array_arg, axis_arg, flag, reduced_axes
from ._engine.array import Array, empty_array
from ._engine import repeat
from ._engine.library import library_operand, reduce_into
from ._engine.scalars import check_kind
from ._elementwise import subtract
from ._manipulation import concat


def _truth(name: str, x: object, axis: object, keepdims: object) -> Array:
    """all / any: NaN and every non-zero value are true (complex: either part non-zero). A
    repeated call takes the short way (repeat) to our reduce kernel's plan."""
    keep = flag(keepdims, "keepdims")
    out, key = repeat.short_way(name, x, params=(repeat.typed(axis), keep))
    if out is not None:
        return out
    x = array_arg(name, x)
    axes = reduced_axes(axis, x.ndim)
    be = x._st.backend
    shape = tuple(1 if k in axes else n for k, n in enumerate(x.shape) if keep or k not in axes)
    src = library_operand(x, None, be)   # exact: the narrow floats' values fit in float32
    out = empty_array(shape, DT.ACL_BOOL, be)
    reduce_into(name, src, out, axes, keep)
    repeat.remember_reduction(key, name, x, src, out, axes, keep)
    return out


def all(x: Array, /, *, axis: int | tuple[int, ...] | None = None,  # noqa: A001
        keepdims: bool = False) -> Array:
    """Whether every element along the axes is true (an empty reduction is true)."""
    return _truth("all", x, axis, keepdims)


def any(x: Array, /, *, axis: int | tuple[int, ...] | None = None,  # noqa: A001
        keepdims: bool = False) -> Array:
    """Whether any element along the axes is true (an empty reduction is false)."""
    return _truth("any", x, axis, keepdims)


def _along(axis: int, part: slice) -> tuple:
    return (slice(None),) * axis + (part,)


def diff(x: Array, /, n: int = 1, axis: int = -1, *, prepend: Array | None = None,
         append: Array | None = None) -> Array:
    """The n-th forward difference along `axis`: out[i] = x[i + 1] - x[i], n times, with
    prepend / append joined to x first (promoted to a common dtype). Each step is our
    subtract (aclnnAdd with alpha -1 where the SoC has the dtype, the library otherwise).
    Note: the standard makes axis and n keyword-only; they are also taken by position in
    NumPy's and PyTorch's order (n, axis), as clients write diff(x, 2) (scikit-learn)."""
    x = array_arg("diff", x)
    check_kind("diff", "numeric", x._t.dtype)
    if x.ndim == 0:
        raise ValueError("diff takes an array of at least one dimension, not 0-d")
    a = axis_arg(axis, x.ndim, "axis")
    try:
        steps = operator.index(n)
    except TypeError:
        raise TypeError(f"diff: n={n!r} is not an int") from None
    if steps < 0:
        raise ValueError(f"diff: n={steps} must be >= 0")
    if prepend is not None or append is not None:
        # Note: the standard leaves other dtypes implementation-defined; concat promotes.
        before, after = (None if p is None else array_arg("diff", p, name)
                         for p, name in ((prepend, "prepend"), (append, "append")))
        x = concat([p for p in (before, x, after) if p is not None], axis=a)
    for _ in range(steps):
        x = subtract(x[_along(a, slice(1, None))],
                     x[_along(a, slice(None, -1))])
    return x


__all__ = ["all", "any", "diff"]
