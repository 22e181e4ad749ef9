"""The backend library's side of the linalg and fft extensions: the math runs on NumPy (cpu)
or CuPy (cuda) over the arrays' own memory, in stream order, and its results become our
arrays on the same device without a copy.

Computation types, as the NPU's vector unit computes: float16, bfloat16, the float8 types and
HiFloat8 are converted to float32 by our bit-exact cast kernels, computed in float32, and
rounded back to their own type by the same kernels. float32, float64, complex64 and
complex128 compute in their own type.
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np

from ..dtypes import COMPLEX, FLOATING, INFO, aclDataType as DT
from ..runtime.base import Backend
from . import _dtypes
from ._array import Array
from ._calls import convert
from ._device import library, library_order

# Floats narrower than float32: the library computes them in float32 (see the module's note).
VIA_FLOAT32 = frozenset(dt for dt, info in INFO.items()
                        if info.kind == FLOATING and info.bits < 32)
_REAL_OF = {DT.ACL_COMPLEX64: DT.ACL_FLOAT, DT.ACL_COMPLEX128: DT.ACL_DOUBLE}
# Note: there is no complex type narrower than complex64 in the namespace, so the complex
# results of the narrow floats (rfft of float16) are complex64, the type they compute in.
_COMPLEX_OF = {DT.ACL_DOUBLE: DT.ACL_COMPLEX128}


def real_of(dt: DT) -> DT:
    """The real floating dtype of dt's precision (complex64 -> float32; reals: themselves)."""
    return _REAL_OF.get(dt, dt)


def complex_of(dt: DT) -> DT:
    """The complex dtype of dt's precision (float64 -> complex128, other floats -> complex64)."""
    if INFO[dt].kind == COMPLEX:
        return dt
    return _COMPLEX_OF.get(dt, DT.ACL_COMPLEX64)


def compute_dtype(dt: DT) -> DT:
    """The dtype the library computes `dt` in."""
    return DT.ACL_FLOAT if dt in VIA_FLOAT32 else dt


def array_arg(fname: str, x: object, name: str = "x") -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{fname}: {name} is a {type(x).__name__}, not an array of "
                        f"npu_emu.array_api")
    return x


def check_kind(fname: str, category: str, x: Array | DT, name: str = "x") -> None:
    """x's dtype (or the dtype given) must be of the standard's `category` (a key of
    _dtypes.CATEGORIES, or "complex floating-point")."""
    dt = x if isinstance(x, DT) else x._t.dtype
    allowed = (_dtypes.KINDS["complex floating"] if category == "complex floating-point"
               else _dtypes.CATEGORIES[category])
    if INFO[dt].kind not in allowed:
        raise TypeError(f"{fname}: {name} must have a {category} dtype, not "
                        f"{_dtypes.BY_ACL[dt].name}")


def same_device(fname: str, *arrays: Array) -> Backend:
    be = arrays[0]._st.backend
    for a in arrays[1:]:
        if a._st.backend is not be:
            raise ValueError(f"{fname}: the arrays are on different devices ({arrays[0].device} "
                             f"and {a.device})")
    return be


def operand(x: Array, dtype: DT) -> Any:
    """The library's view of x's values in `dtype`: x's own memory, or (another dtype) a copy
    converted by our cast kernels. Call it before `computing`, which orders the library after
    the conversion."""
    if x._t.dtype != dtype:
        x = convert(x, dtype)
    return x._values()


@contextlib.contextmanager
def computing(be: Backend) -> Iterator[Any]:
    """Library calls in stream order with our kernels (see library_order); yields the library.
    NumPy's floating-point warnings are silenced: overflow and invalid results are values
    (inf, nan) in the standard, as on the device."""
    lib = library(be)
    with library_order(be):
        if lib is np:
            with np.errstate(all="ignore"):
                yield lib
        else:
            yield lib


def result(value: Any, dtype: DT, be: Backend) -> Array:
    """Our array over a library result, without a copy, in `dtype` (our cast kernels convert
    it when the library computed another type). `value` must be memory the library made
    (a new array or a view of one), never a view of an input."""
    from ._creation import _acl_of_numpy, adopt
    lib = library(be)
    value = lib.asarray(value)          # NumPy gives scalars for 0-d results
    got = _acl_of_numpy(value.dtype, "result")
    readonly = be.is_cpu and not value.flags.writeable
    out = adopt(value, got, be, readonly=readonly, shared=False)
    return out if got == dtype else convert(out, dtype)


__all__: list[str] = []
