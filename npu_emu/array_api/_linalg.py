"""Linear algebra functions of the main namespace: matmul, matrix_transpose, tensordot and
vecdot (the linalg extension re-exports them).

matmul runs on the cube emulation (aclnnMatmul: float16, float32 and bfloat16 where the SoC
has it, 1 to 6 dims, fp32 accumulation, operands in the SoC's fractal layouts); tensordot and
vecdot are matmuls of views (permuted, reshaped), so they take the same path. Other dtypes
(integers, float64, complex, and the float8 types and HiFloat8, computed in float32 and
rounded back) multiply on the backend's array library.
"""
from __future__ import annotations

import math
import operator
from typing import Sequence

from ..ops._checks import broadcast_shapes
from ._engine.args import array_arg
from ._engine.array import Array
from ._engine.matmul import matmul, matmul_arrays
from ._engine.scalars import check_kind, promote
from ._manipulation import permute_dims, reshape


def matrix_transpose(x: Array, /) -> Array:
    """The last two dimensions swapped (a view)."""
    return array_arg("", x).mT


def _axes_tuple(axes: object, ndim: int, name: str) -> tuple[int, ...]:
    try:
        out = tuple(operator.index(a) for a in axes)  # type: ignore[union-attr]
    except TypeError:
        raise TypeError(f"tensordot: {name}={axes!r} is not a sequence of ints") from None
    for a in out:
        if not -ndim <= a < ndim:
            raise ValueError(f"tensordot: axis {a} of {name} is out of range for {ndim} "
                             f"dimensions")
    out = tuple(a % ndim for a in out)
    if len(set(out)) != len(out):
        raise ValueError(f"tensordot: {name}={tuple(axes)} names a dimension twice")  # type: ignore[arg-type]
    return out


def tensordot(x1: Array, x2: Array, /, *,
              axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> Array:
    """The sum of products over `axes` (an int n: x1's last n with x2's first n; or a pair of
    sequences): x1's other axes moved first, the contracted ones last (x2: first) as views,
    then reshaped to two matrices for one matmul (the cube where it takes the dtypes)."""
    a, b = array_arg("tensordot", x1, "x1"), array_arg("tensordot", x2, "x2")
    if isinstance(axes, bool) or not isinstance(axes, (int, tuple, list)):
        raise TypeError(f"tensordot: axes={axes!r} is not an int or a pair of sequences")
    if isinstance(axes, int):
        if not 0 <= axes <= min(a.ndim, b.ndim):
            raise ValueError(f"tensordot: axes={axes} must be in [0, {min(a.ndim, b.ndim)}] "
                             f"for arrays of {a.ndim} and {b.ndim} dimensions")
        ax1, ax2 = tuple(range(a.ndim - axes, a.ndim)), tuple(range(axes))
    else:
        if len(axes) != 2:
            raise ValueError(f"tensordot: axes={axes!r} must be an int or a pair (x1's axes, "
                             f"x2's axes)")
        ax1, ax2 = _axes_tuple(axes[0], a.ndim, "axes[0]"), _axes_tuple(axes[1], b.ndim,
                                                                         "axes[1]")
        if len(ax1) != len(ax2):
            raise ValueError(f"tensordot: axes[0] and axes[1] must have the same length, not "
                             f"{len(ax1)} and {len(ax2)}")
    for i, j in zip(ax1, ax2):
        # Note: the standard allows no broadcasting of a contracted axis.
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"tensordot: x1's axis {i} (size {a.shape[i]}) and x2's axis {j} "
                             f"(size {b.shape[j]}) must have the same size")
    free1 = [k for k in range(a.ndim) if k not in ax1]
    free2 = [k for k in range(b.ndim) if k not in ax2]
    k = math.prod(a.shape[i] for i in ax1)
    left = reshape(permute_dims(a, free1 + list(ax1)),
                   (math.prod(a.shape[i] for i in free1), k))
    right = reshape(permute_dims(b, list(ax2) + free2),
                    (k, math.prod(b.shape[j] for j in free2)))
    out = matmul_arrays(left, right)
    return reshape(out, tuple(a.shape[i] for i in free1) + tuple(b.shape[j] for j in free2))


def vector_axis(fname: str, axis: object, *arrays: Array) -> int:
    """A vector axis of the standard (vecdot, cross): a negative int in [-N, -1], N the
    smallest rank, counted from the end before broadcasting."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{fname}: axis={axis!r} is not an int")
    n = min(x.ndim for x in arrays)
    if n == 0:
        raise ValueError(f"{fname} takes arrays of at least one dimension, not 0-d")
    if not -n <= axis <= -1:
        raise ValueError(f"{fname}: axis={axis} must be a negative int in [{-n}, -1] (counted "
                         f"from the last dimension, before broadcasting)")
    return axis


def to_last(x: Array, axis: int) -> Array:
    """x with its (negative) `axis` moved to the end, a view (x itself where it is last)."""
    a = axis % x.ndim
    if a == x.ndim - 1:
        return x
    return permute_dims(x, [k for k in range(x.ndim) if k != a] + [a])


def _vectors(x: Array, axis: int, row: bool) -> Array:
    """vecdot's operand as a matmul's: its (negative) `axis` moved to the end, with a new
    dimension of 1 before it (a row, x1's) or after it (a column, x2's); a view."""
    shape, strides, offset = x._signed()
    a = axis % x.ndim
    dims = [(n, s) for k, (n, s) in enumerate(zip(shape, strides)) if k != a]
    dims += [(1, 0), (shape[a], strides[a])] if row else [(shape[a], strides[a]), (1, 0)]
    return x._view([n for n, _ in dims], [s for _, s in dims], offset)


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """The dot product of the vectors along `axis`, x1 conjugated (complex), broadcast over
    the other dimensions: a matmul of a row by a column per vector pair."""
    a, b = array_arg("vecdot", x1, "x1"), array_arg("vecdot", x2, "x2")
    axis = vector_axis("vecdot", axis, a, b)
    if a.shape[axis] != b.shape[axis]:
        raise ValueError(f"vecdot: the vectors along axis {axis} have sizes {a.shape[axis]} "
                         f"and {b.shape[axis]}; they must be equal")
    compute = promote("vecdot", a._t.dtype, b._t.dtype)
    check_kind("vecdot", "numeric", compute)
    rows, cols = _vectors(a, axis, True), _vectors(b, axis, False)
    broadcast_shapes(rows.shape[:-2], cols.shape[:-2], "x1", "x2")
    out = matmul_arrays(rows, cols, conj=True)     # (..., 1, 1): its last two dims dropped
    shape, strides, offset = out._signed()
    return out._view(shape[:-2], strides[:-2], offset)


__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]
