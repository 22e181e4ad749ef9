"""Arguments as the standard's signatures take them: arrays of this namespace, axes (AxisError
out of range), shapes, flags, and arrays that must share one device.
"""
from __future__ import annotations

import operator

import numpy as np

from ...runtime.base import Backend
from .array import Array


class AxisError(ValueError, IndexError):
    """An axis out of range (or named twice): both a ValueError and an IndexError, as NumPy's
    AxisError, since the standard asks for one or the other depending on the function."""


def array_arg(fname: str, x: object, name: str = "x") -> Array:
    """x, which must be an array of this namespace (fname: the function, for the message;
    "" for none)."""
    if not isinstance(x, Array):
        raise TypeError(f"{fname + ': ' if fname else ''}{name} is a {type(x).__name__}, not "
                        f"an array of npu_emu.array_api")
    return x


def axis_arg(axis: object, ndim: int, name: str = "axis") -> int:
    if isinstance(axis, (bool, np.bool_)):     # an int to operator.index; NumPy refuses it too
        raise TypeError(f"{name}={axis!r} is not an int (a bool names no axis)")
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{name}={axis!r} is not an int") from None
    if not -ndim <= a < ndim:
        raise AxisError(f"{name}={a} is out of range for {ndim} dimensions")
    return a % ndim


def axes_arg(axis: object, ndim: int, name: str = "axis") -> list[int]:
    """An int or a tuple of ints, as distinct axes in [0, ndim)."""
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = [axis_arg(a, ndim, name) for a in items]
    if len(set(out)) != len(out):
        raise AxisError(f"{name}={axis!r} names a dimension twice")
    return out


def shape_arg(shape: object, name: str = "shape", sizes: bool = False) -> tuple[int, ...]:
    """An int or a sequence of ints as a tuple; sizes=True: a shape of a new array, whose
    sizes must not be negative (ValueError)."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        out = tuple(operator.index(n) for n in shape)  # type: ignore[union-attr]
    except TypeError:
        raise TypeError(f"{name}={shape!r} is not an int or a sequence of ints") from None
    if sizes and any(n < 0 for n in out):
        raise ValueError(f"{name}={out} has a negative size")
    return out


def reduced_axes(axis: object, ndim: int) -> tuple[int, ...]:
    """axis (None, an int or a tuple of ints) as sorted axes in [0, ndim); AxisError (a
    ValueError and an IndexError) out of range or for an axis named twice."""
    return tuple(range(ndim)) if axis is None else tuple(sorted(axes_arg(axis, ndim)))


def flag(value: object, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={value!r} is not a bool")
    return bool(value)


def same_device(fname: str, *arrays: Array) -> Backend:
    """The one backend of `arrays` (ValueError when they are on different devices)."""
    be = arrays[0]._st.backend
    for a in arrays[1:]:
        if a._st.backend is not be:
            raise ValueError(f"{fname}: the arrays are on different devices ({arrays[0].device} "
                             f"and {a.device})")
    return be
