"""The fft extension of the array API standard (2024.12): `npu_emu.array_api.fft`.

The transforms run on the backend's array library (numpy.fft on cpu, cupy.fft on cuda) over
the arrays' memory, in stream order; the NPU has no FFT operator. Each is a row of TRANSFORMS
(the dtype category it takes, the kind of result, 1-D or n-D) and the functions are generated
from it. Results keep the precision of the input: complex64 / float32 stay single precision.
The narrow floats (float16, bfloat16, float8, HiFloat8) compute in float32 (converted by our
cast kernels) and give complex64, the namespace having no narrower complex type.
fftshift and ifftshift are the namespace's `roll` (every dtype: they only move elements).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Literal, Sequence

from . import _dtypes
from ._array import Array
from ._device import backend_for
from ._library import (array_arg, check_kind, complex_of, compute_dtype, computing, operand,
                       real_of, result)
from ._manipulation import _axis

NORMS = ("backward", "ortho", "forward")


@dataclass(frozen=True)
class Transform:
    """takes: the standard's input category; gives: "same" (x's dtype), "complex" (the
    complex dtype of x's precision) or "real" (the real dtype of x's precision)."""
    name: str
    takes: str
    gives: str
    nd: bool
    doc: str


TRANSFORMS = {t.name: t for t in [
    Transform("fft", "complex floating-point", "same", False, "the discrete Fourier transform"),
    Transform("ifft", "complex floating-point", "same", False, "the inverse DFT"),
    Transform("fftn", "complex floating-point", "same", True, "the n-dimensional DFT"),
    Transform("ifftn", "complex floating-point", "same", True, "the n-dimensional inverse DFT"),
    Transform("rfft", "real floating-point", "complex", False,
              "the DFT of real input (the n//2 + 1 non-negative frequencies)"),
    Transform("irfft", "complex floating-point", "real", False, "the inverse of rfft"),
    Transform("rfftn", "real floating-point", "complex", True, "the n-dimensional rfft"),
    Transform("irfftn", "complex floating-point", "real", True, "the inverse of rfftn"),
    Transform("hfft", "complex floating-point", "real", False,
              "the DFT of a signal with Hermitian symmetry (real spectrum)"),
    Transform("ihfft", "real floating-point", "complex", False, "the inverse of hfft"),
]}
_GIVES = {"same": lambda dt: dt, "complex": complex_of, "real": real_of}


def _input(spec: Transform, x: object, norm: object) -> Array:
    a = array_arg(spec.name, x)
    check_kind(spec.name, spec.takes, a)
    if a.ndim == 0:
        raise ValueError(f"{spec.name}: x must have at least one dimension, not 0-d")
    if norm not in NORMS:
        raise ValueError(f"{spec.name}: norm={norm!r} must be one of "
                         f"{', '.join(repr(n) for n in NORMS)}")
    return a


def _points(fname: str, n: object, name: str, allow_default: bool = False) -> int:
    """A number of points: an int >= 1 (or -1, "the axis's own size", where allowed)."""
    if isinstance(n, bool):
        raise TypeError(f"{fname}: {name} must be an int, not a bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"{fname}: {name}={n!r} is not an int") from None
    if n < 1 and not (allow_default and n == -1):
        raise ValueError(f"{fname}: {name}={n} must be at least 1" +
                         (" (or -1: the axis's size)" if allow_default else ""))
    return n


def _run(spec: Transform, a: Array, **keywords: Any) -> Array:
    be = a._st.backend
    values = operand(a, compute_dtype(a._t.dtype))
    with computing(be) as lib:
        out = getattr(lib.fft, spec.name)(values, **keywords)
    return result(out, _GIVES[spec.gives](a._t.dtype), be)


def _sizes(spec: Transform, a: Array, s: object, axes: object) -> tuple[Any, Any]:
    """(s, axes) for the library: axes normalized; s's -1 entries replaced by the default
    size of their axis (the input's size; for the last axis of irfftn, 2 * (size - 1))."""
    if axes is None:
        if s is not None:
            raise ValueError(f"{spec.name}: s needs axes (the standard: if s is given, axes "
                             f"must be too)")
        return None, None
    try:
        ax = [_axis(k, a.ndim, "axes") for k in axes]  # type: ignore[union-attr]
    except TypeError:
        raise TypeError(f"{spec.name}: axes={axes!r} is not a sequence of ints") from None
    if s is None:
        return None, ax
    try:
        sizes = list(s)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{spec.name}: s={s!r} is not a sequence of ints") from None
    if len(sizes) != len(ax):
        raise ValueError(f"{spec.name}: s has {len(sizes)} sizes for {len(ax)} axes")
    out = []
    for i, (n, k) in enumerate(zip(sizes, ax)):
        n = _points(spec.name, n, f"s[{i}]", allow_default=True)
        if n == -1:
            last_real = spec.gives == "real" and i == len(ax) - 1
            n = 2 * (a.shape[k] - 1) if last_real else a.shape[k]
        out.append(n)
    return out, ax


def _make_1d(spec: Transform):
    def fn(x: Array, /, *, n: int | None = None, axis: int = -1,
           norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
        a = _input(spec, x, norm)
        return _run(spec, a, n=None if n is None else _points(spec.name, n, "n"),
                    axis=_axis(axis, a.ndim), norm=norm)
    fn.__doc__ = (f"{spec.name}(x, /, *, n=None, axis=-1, norm='backward'): {spec.doc} along "
                  f"`axis`, x trimmed or zero-padded to n points; {spec.takes} input.")
    return fn


def _make_nd(spec: Transform):
    def fn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
        a = _input(spec, x, norm)
        sizes, ax = _sizes(spec, a, s, axes)
        return _run(spec, a, s=sizes, axes=ax, norm=norm)
    fn.__doc__ = (f"{spec.name}(x, /, *, s=None, axes=None, norm='backward'): {spec.doc} over "
                  f"`axes` (None: all), sized by s (-1: the axis's own size); {spec.takes} "
                  f"input.")
    return fn


FUNCTIONS = {}
for _spec in TRANSFORMS.values():
    _fn = (_make_nd if _spec.nd else _make_1d)(_spec)
    _fn.__name__ = _fn.__qualname__ = _spec.name
    _fn.__module__ = __name__
    FUNCTIONS[_spec.name] = _fn
globals().update(FUNCTIONS)


# ----------------------------------------------------------------- frequencies, shifts

def _frequencies(fname: str, n: int, d: float, dtype: object, device: object) -> Array:
    from ._dtypes import to_dtype
    n = _points(fname, n, "n")
    if isinstance(d, bool) or not isinstance(d, (int, float)):
        raise TypeError(f"{fname}: d={d!r} is not a float")
    dt = _dtypes.DEFAULT_FLOAT if dtype is None else to_dtype(dtype)
    if dt.kind != "floating":
        raise ValueError(f"{fname}: dtype={dt.name} must be a real floating dtype")
    be = backend_for(device)
    with computing(be) as lib:
        # float64 on the library, then our cast kernels round to the dtype.
        out = getattr(lib.fft, fname)(n, d=float(d))
    return result(out, dt.acl_dtype, be)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: object = None, device: object = None) -> Array:
    """The sample frequencies of an n-point DFT, [0, 1, ..., -1] / (d * n); the default real
    floating dtype (float32) unless `dtype` says otherwise."""
    return _frequencies("fftfreq", n, d, dtype, device)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: object = None,
             device: object = None) -> Array:
    """The n // 2 + 1 non-negative sample frequencies of an n-point rfft."""
    return _frequencies("rfftfreq", n, d, dtype, device)


def _shift(fname: str, x: object, axes: object, sign: int) -> Array:
    from . import roll
    a = array_arg(fname, x)
    if axes is None:
        ax = list(range(a.ndim))
    elif isinstance(axes, int):
        ax = [_axis(axes, a.ndim, "axes")]
    else:
        ax = [_axis(k, a.ndim, "axes") for k in axes]  # type: ignore[union-attr]
    if not ax:
        return roll(a, 0)
    return roll(a, tuple(sign * (a.shape[k] // 2) for k in ax), axis=tuple(ax))


def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """The zero frequency moved to the middle of `axes` (None: all): a roll by size // 2."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """The inverse of fftshift: a roll by -(size // 2)."""
    return _shift("ifftshift", x, axes, -1)


__all__ = [*TRANSFORMS, "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
