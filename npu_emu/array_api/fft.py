"""The fft extension of the array API standard (2024.12): `npu_emu.array_api.fft`.

The transforms run on the backend's array library (numpy.fft on cpu, cupy.fft on cuda) over
the arrays' memory, in stream order; the NPU has no FFT operator. Each is a row of TRANSFORMS
(the dtype category it takes, the kind of result, 1-D or n-D), run by its function's name.
Results keep the precision of the input: complex64 / float32 stay single precision.
The narrow floats (float16, bfloat16, float8, HiFloat8) compute in float32 (converted by our
cast kernels) and give complex64, the namespace having no narrower complex type.
fftshift and ifftshift are the namespace's `roll` (every dtype: they only move elements).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Literal, Sequence

from ._engine import dtypes as _dtypes
from ._engine.args import array_arg, axis_arg
from ._engine.array import Array
from ._engine.device import backend_for
from ._engine.dtypes import complex_of, real_of, to_dtype
from ._engine.library import compute_dtype, computing, operand, result
from ._engine.scalars import check_kind, scalar_value
from ._manipulation import roll

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
    check_kind(spec.name, spec.takes, a, name="x")
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
        ax = [axis_arg(k, a.ndim, "axes") for k in axes]  # type: ignore[union-attr]
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


def _transform_1d(name: str, x: object, n: object, axis: object, norm: object) -> Array:
    spec = TRANSFORMS[name]
    a = _input(spec, x, norm)
    return _run(spec, a, n=None if n is None else _points(name, n, "n"),
                axis=axis_arg(axis, a.ndim), norm=norm)


def _transform_nd(name: str, x: object, s: object, axes: object, norm: object) -> Array:
    spec = TRANSFORMS[name]
    a = _input(spec, x, norm)
    sizes, ax = _sizes(spec, a, s, axes)
    return _run(spec, a, s=sizes, axes=ax, norm=norm)


def fft(x: Array, /, *, n: int | None = None, axis: int = -1,
        norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    """The discrete Fourier transform along `axis`, x trimmed or zero-padded to n points;
    complex floating-point input."""
    return _transform_1d("fft", x, n, axis, norm)


def ifft(x: Array, /, *, n: int | None = None, axis: int = -1,
         norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    """The inverse DFT along `axis`, x trimmed or zero-padded to n points; complex floating-
    point input."""
    return _transform_1d("ifft", x, n, axis, norm)


def fftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    """The n-dimensional DFT over `axes` (None: all), sized by s (-1: the axis's own size);
    complex floating-point input."""
    return _transform_nd("fftn", x, s, axes, norm)


def ifftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    """The n-dimensional inverse DFT over `axes` (None: all), sized by s (-1: the axis's own
    size); complex floating-point input."""
    return _transform_nd("ifftn", x, s, axes, norm)


def rfft(x: Array, /, *, n: int | None = None, axis: int = -1,
         norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    """The DFT of real input (the n//2 + 1 non-negative frequencies) along `axis`, x trimmed
    or zero-padded to n points; real floating-point input."""
    return _transform_1d("rfft", x, n, axis, norm)


def irfft(x: Array, /, *, n: int | None = None, axis: int = -1,
          norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    """The inverse of rfft along `axis`, x trimmed or zero-padded to n points; complex
    floating-point input."""
    return _transform_1d("irfft", x, n, axis, norm)


def rfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    """The n-dimensional rfft over `axes` (None: all), sized by s (-1: the axis's own size);
    real floating-point input."""
    return _transform_nd("rfftn", x, s, axes, norm)


def irfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    """The inverse of rfftn over `axes` (None: all), sized by s (-1: the axis's own size);
    complex floating-point input."""
    return _transform_nd("irfftn", x, s, axes, norm)


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1,
         norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    """The DFT of a signal with Hermitian symmetry (real spectrum) along `axis`, x trimmed
    or zero-padded to n points; complex floating-point input."""
    return _transform_1d("hfft", x, n, axis, norm)


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1,
          norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    """The inverse of hfft along `axis`, x trimmed or zero-padded to n points; real
    floating-point input."""
    return _transform_1d("ihfft", x, n, axis, norm)


# ----------------------------------------------------------------- frequencies, shifts

def _frequencies(fname: str, n: int, d: float, dtype: object, device: object) -> Array:
    n = _points(fname, n, "n")
    d = scalar_value(d, fname, "d")
    if isinstance(d, bool) or not isinstance(d, (int, float)):
        raise TypeError(f"{fname}: d={d!r} is not a float")
    if d == 0:    # ZeroDivisionError, as NumPy's and array_api_strict's (1 / (d * n))
        raise ZeroDivisionError(f"{fname}: d={d!r}: the sample spacing divides (1 / (d n)), "
                                f"so it must not be 0")
    dt = _dtypes.default_float() if dtype is None else to_dtype(dtype)
    if dt.kind != "floating":
        raise ValueError(f"{fname}: dtype={dt.name} must be a real floating dtype")
    be = backend_for(device)
    with computing(be) as lib:
        # float64 on the library, then our cast kernels round to the dtype.
        out = getattr(lib.fft, fname)(n, d=float(d))
    return result(out, dt.acl_dtype, be)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: object = None, device: object = None) -> Array:
    """The sample frequencies of an n-point DFT, [0, 1, ..., -1] / (d * n); the default real
    floating dtype unless `dtype` says otherwise."""
    return _frequencies("fftfreq", n, d, dtype, device)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: object = None,
             device: object = None) -> Array:
    """The n // 2 + 1 non-negative sample frequencies of an n-point rfft."""
    return _frequencies("rfftfreq", n, d, dtype, device)


def _shift(fname: str, x: object, axes: object, sign: int) -> Array:
    a = array_arg(fname, x)
    if axes is None:
        ax = list(range(a.ndim))
    elif isinstance(axes, int):
        ax = [axis_arg(axes, a.ndim, "axes")]
    else:
        ax = [axis_arg(k, a.ndim, "axes") for k in axes]  # type: ignore[union-attr]
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
