"""Manipulation functions that are views of the same memory (no kernel runs): broadcast_to,
broadcast_arrays, reshape (a copy only when no view exists), permute_dims, squeeze,
expand_dims. CANN's materializing Expand is `expand` in _npu.py.
"""
from __future__ import annotations

import math
import operator
from typing import Sequence

from ..ops._checks import broadcast_shapes
from ._array import Array
from ._calls import broadcast_view, copy as copy_array


def _array(x: object, name: str = "x") -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{name} is a {type(x).__name__}, not an array of npu_emu.array_api")
    return x


def _axis(axis: object, ndim: int, name: str = "axis") -> int:
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{name}={axis!r} is not an int") from None
    if not -ndim <= a < ndim:
        raise IndexError(f"{name}={a} is out of range for {ndim} dimensions")
    return a % ndim


def _shape_arg(shape: object, name: str = "shape") -> tuple[int, ...]:
    if isinstance(shape, int):
        shape = (shape,)
    try:
        return tuple(operator.index(n) for n in shape)  # type: ignore[union-attr]
    except TypeError:
        raise TypeError(f"{name}={shape!r} is not a sequence of ints") from None


def broadcast_to(x: Array, /, shape: Sequence[int]) -> Array:
    """x broadcast to `shape` as a view (stride 0 on the stretched dims; docs/views.md#broadcasting).
    Write into a copy of it, not into it: its elements share memory."""
    return broadcast_view(_array(x), _shape_arg(shape))


def broadcast_arrays(*arrays: Array) -> list[Array]:
    """The arrays broadcast to their common shape, as views."""
    for i, a in enumerate(arrays):
        _array(a, f"arrays[{i}]")
    shape: tuple[int, ...] = ()
    for i, a in enumerate(arrays):
        shape = broadcast_shapes(shape, a.shape, "the broadcast shape", f"arrays[{i}]")
    return [broadcast_view(a, shape) for a in arrays]


def permute_dims(x: Array, /, axes: Sequence[int]) -> Array:
    x = _array(x)
    perm = [_axis(a, x.ndim, "axes") for a in _shape_arg(axes, "axes")] if x.ndim else []
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"axes={tuple(axes)} is not a permutation of the {x.ndim} dimensions")
    return x._permuted(perm)


def expand_dims(x: Array, /, axis: int = 0) -> Array:
    """x with a new dimension of size 1 at `axis` (in [-ndim - 1, ndim])."""
    x = _array(x)
    a = _axis(axis, x.ndim + 1)
    shape, strides, offset = x._signed()
    return x._view(shape[:a] + (1,) + shape[a:], strides[:a] + (0,) + strides[a:], offset)


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """x without the given dimensions, each of which must have size 1."""
    x = _array(x)
    axes = (axis,) if not isinstance(axis, tuple) else axis
    drop = {_axis(a, x.ndim) for a in axes}
    if len(drop) != len(axes):
        raise ValueError(f"axis={axis} names a dimension twice")
    for a in drop:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: dimension {a} has size {x.shape[a]}, not 1")
    shape, strides, offset = x._signed()
    keep = [k for k in range(x.ndim) if k not in drop]
    return x._view([shape[k] for k in keep], [strides[k] for k in keep], offset)


def _resolve_shape(shape: tuple[int, ...], size: int) -> tuple[int, ...]:
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1 or any(n < -1 for n in shape):
        raise ValueError(f"shape={shape}: sizes must be >= 0, with at most one -1")
    if unknown:
        known = math.prod(n for n in shape if n != -1)
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape an array of size {size} into {shape}")
        shape = shape[:unknown[0]] + (size // known,) + shape[unknown[0] + 1:]
    if math.prod(shape) != size:
        raise ValueError(f"cannot reshape an array of size {size} into shape {shape}")
    return shape


def view_strides(old_shape: Sequence[int], old_strides: Sequence[int],
                 new_shape: Sequence[int]) -> list[int] | None:
    """Strides that show the same elements in row-major order as `new_shape`, or None when
    no view can (NumPy's _attempt_nocopy_reshape; any stride signs)."""
    old = [(n, s) for n, s in zip(old_shape, old_strides) if n != 1]
    dims, strides = [n for n, _ in old], [s for _, s in old]
    new = list(new_shape)
    out = [0] * len(new)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new) and oi < len(dims):
        np_, op = new[ni], dims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= new[nj]
                nj += 1
            else:
                op *= dims[oj]
                oj += 1
        for k in range(oi, oj - 1):
            if strides[k] != dims[k + 1] * strides[k + 1]:
                return None
        out[nj - 1] = strides[oj - 1]
        for k in range(nj - 1, ni, -1):
            out[k - 1] = out[k] * new[k]
        ni, nj, oi, oj = nj, nj + 1, oj, oj + 1
    last = out[ni - 1] if ni >= 1 else 1
    for k in range(ni, len(new)):
        out[k] = last
    return out


def reshape(x: Array, /, shape: Sequence[int], *, copy: bool | None = None) -> Array:
    """x in `shape` (one -1 allowed): a view when the memory allows, else a copy (copy=False
    refuses that, copy=True always copies)."""
    x = _array(x)
    new = _resolve_shape(_shape_arg(shape), x.size)
    if copy:
        x = copy_array(x)
    old, strides, offset = x._signed()
    if x.size == 0:
        from ._array import empty_array
        return empty_array(new, x._t.dtype, x._st.backend)
    found = view_strides(old, strides, new)
    if found is None:
        if copy is False:
            raise ValueError(f"reshape(copy=False): the view (shape {x.shape}, strides "
                             f"{strides}) cannot be shown as {new} without a copy")
        x = copy_array(x)
        old, strides, offset = x._signed()
        found = view_strides(old, strides, new)
    return x._view(new, found, offset)


__all__ = ["broadcast_arrays", "broadcast_to", "expand_dims", "permute_dims", "reshape",
           "squeeze"]
