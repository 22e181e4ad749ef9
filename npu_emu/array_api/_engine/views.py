"""Views: new aclTensor views of an array's storage (no kernel runs): reversed axes, one-way
broadcasting by the NPU's rule, the view a basic index selects, and pairing a destination's
reversed axes with its source.
"""
from __future__ import annotations

import operator
from typing import Sequence

from ...ops._checks import broadcast_shapes
from .array import Array


def flip_axes(x: Array, axes: Sequence[int]) -> Array:
    """x with the given axes reversed (a view)."""
    shape, strides, offset = x._signed()
    strides = list(strides)
    for k in axes:
        offset += (shape[k] - 1) * strides[k]
        strides[k] = -strides[k]
    return x._view(shape, strides, offset)


def broadcast_view(x: Array, shape: Sequence[int]) -> Array:
    """x broadcast to `shape` as a view (stride 0 on the stretched dims), one direction, by
    the NPU's rule (docs/views.md#broadcasting): ValueError when x does not broadcast."""
    shape = tuple(shape)
    if broadcast_shapes(shape, x.shape, "shape", "x") != shape:
        raise ValueError(f"an array of shape {x.shape} cannot be broadcast to {shape}")
    xs, strides, offset = x._signed()
    lead = len(shape) - len(xs)
    out = [0] * lead + [s if n == m else 0 for n, m, s in zip(xs, shape[lead:], strides)]
    return x._view(shape, out, offset)


def aligned(dst: Array, src: Array) -> tuple[Array, Array]:
    """(dst, src) with dst's reversed axes moved onto src (broadcast to dst's shape): the
    same elements pair up, and dst becomes a tensor a kernel can write."""
    if dst._flip is None:
        return dst, src
    axes = [k for k, f in enumerate(dst._flip) if f]
    return flip_axes(dst, axes), flip_axes(broadcast_view(src, dst.shape), axes)


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
