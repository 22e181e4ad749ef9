"""Python scalars beside arrays, and promotion: the dtype a scalar takes beside an array (the
standard's rule), its storage bits in that dtype (converted as the cast kernels convert), the
promoted dtype of two dtypes (the "array_api" rule set), and the dtype-category checks.
"""
from __future__ import annotations

import struct

from dataclasses import dataclass

import numpy as np

from ...device import storage_array
from ...dtypes import BOOL, COMPLEX, FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT
from ...runtime.base import Backend
from . import dtypes as _dtypes
from .array import Array, empty_array
from .dtypes import VIA_FLOAT32
from .kernel import RULES


@dataclass(frozen=True)
class PyScalar:
    """A Python scalar operand with the dtype it takes beside the other operand."""
    value: bool | int | float | complex
    dtype: DT


def python_value(value: object) -> bool | int | float | complex:
    """A Python bool/int/float/complex from a Python or NumPy scalar."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, (complex, np.complexfloating)):
        return complex(value)
    raise TypeError(f"{value!r} ({type(value).__name__}) is not a bool, int, float or complex")


SCALAR_KIND = {bool: BOOL, int: SIGNED, float: FLOATING, complex: COMPLEX}


# Which array kinds take a Python scalar of each kind as their own dtype (the standard).
TAKES = {BOOL: {BOOL}, SIGNED: {SIGNED, UNSIGNED, FLOATING, COMPLEX},
          FLOATING: {FLOATING, COMPLEX}, COMPLEX: {COMPLEX}}


def scalar_value(value: object, fname: str, name: str) -> object:
    """A Python-scalar argument as given, or the value of a 0-d array in its place (the
    standard lets a 0-d array stand wherever a signature takes a Python scalar): a Python
    bool / int / float / complex, exactly (every dtype's values are Python numbers)."""
    if not isinstance(value, Array):
        return value
    if value.ndim != 0:
        raise TypeError(f"{fname}: {name} must be a number or a 0-d array, not an array of "
                        f"shape {value.shape}")
    v = value._scalar(f"{fname}: {name}")
    kind = INFO[value._t.dtype].kind     # ml_dtypes' scalars are no np.floating: by our kind
    return {BOOL: bool, SIGNED: int, UNSIGNED: int, FLOATING: float, COMPLEX: complex}[kind](v)


def scalar_dtype(value: bool | int | float | complex, against: DT) -> DT:
    """The dtype a Python scalar takes beside an array of dtype `against`: that dtype where
    the standard says so (an int with any numeric array, a float with a floating one, ...);
    a complex scalar beside a real floating array, the complex dtype of the array's precision;
    otherwise the scalar's default dtype (bool, int64, the default float and complex), which
    then promotes with the array's by the rule set (int32 array + 1.5 -> the default float).
    OverflowError for an int outside the range of an integer array's dtype."""
    kind = SCALAR_KIND[type(value)]
    target = INFO[against].kind
    if target in TAKES[kind]:
        if kind == SIGNED and target in (SIGNED, UNSIGNED):
            limits = np.iinfo(INFO[against].storage)
            if not limits.min <= value <= limits.max:
                raise OverflowError(f"the Python int {value} is outside the range of "
                                    f"{_dtypes.BY_ACL[against].name} [{limits.min}, "
                                    f"{limits.max}]")
        return against
    if kind == COMPLEX and target == FLOATING:
        # The standard (2024.12): a complex scalar beside a real floating array takes the
        # complex dtype of the array's precision (float32 array * 1j -> complex64), not the
        # default complex dtype.
        return _dtypes.complex_of(against)
    return _dtypes.default_of_kind(kind).acl_dtype


def scalar_storage(value: bool | int | float | complex, dtype: DT) -> np.ndarray:
    """A 0-d host array of the device storage of `value` in `dtype`, converted as the cast
    kernels convert (low-precision floats through float32)."""
    info = INFO[dtype]
    if info.kind in (SIGNED, UNSIGNED):
        if isinstance(value, (float, complex)):
            raise TypeError(f"a {type(value).__name__} scalar cannot become "
                            f"{_dtypes.BY_ACL[dtype].name} implicitly")
        return np.asarray(int(value)).astype(info.storage)
    with np.errstate(over="ignore", invalid="ignore"):
        if info.kind == BOOL:
            return np.asarray(bool(value))
        if info.kind == COMPLEX:
            return np.asarray(complex(value)).astype(info.storage)
        if isinstance(value, complex):
            raise TypeError(f"a complex scalar cannot become {_dtypes.BY_ACL[dtype].name}")
        host = np.float32(value) if dtype in VIA_FLOAT32 else np.asarray(value).astype(info.host)
        return storage_array(np.asarray(host), dtype)


def scalar_array(value: bool | int | float | complex, dtype: DT, be: Backend) -> Array:
    """A 0-d device array holding `value` in `dtype` (uploaded in stream order)."""
    raw = scalar_storage(value, dtype)
    out = empty_array((), dtype, be)
    be.copy_from_host(out._st.ptr, raw.reshape(1), be.default_stream)
    return out


# Read-only 0-d arrays of the Python scalars operations read (x / 2.0, x - 1), by dtype, bits
# and backend: made and uploaded once, then shared (a new 0-d array per call, allocated and
# uploaded, was most of a scalar operation's host cost). The backend is kept with each: an
# id reused by another backend does not match.
_CONSTANTS: dict[tuple, tuple[Backend, Array]] = {}
CONSTANTS_KEPT = 1024


def bits_key(value: bool | int | float | complex) -> object:
    """A key equal for two scalars of one type only when they hold the same bits: -0.0
    apart from 0.0, a NaN equal to itself and apart from a NaN of another sign or payload
    (float.hex() gives "nan" for all of them)."""
    if type(value) is float:
        return _DOUBLE.pack(value)
    if type(value) is complex:
        return _COMPLEX.pack(value.real, value.imag)
    return value


_DOUBLE, _COMPLEX = struct.Struct("<d"), struct.Struct("<dd")


def scalar_constant(value: bool | int | float | complex, dtype: DT, be: Backend) -> Array:
    """The read-only 0-d device array holding `value` in `dtype` (as scalar_array), shared by
    every operation that reads the same scalar: for operands only, never a result."""
    key = (dtype, id(be), type(value), bits_key(value))
    found = _CONSTANTS.get(key)
    if found is not None and found[0] is be:
        return found[1]
    out = scalar_array(value, dtype, be)
    out._st.readonly = True
    if len(_CONSTANTS) >= CONSTANTS_KEPT:
        _CONSTANTS.clear()
    _CONSTANTS[key] = (be, out)
    return out


def dtype_of(x: Array | PyScalar) -> DT:
    return x._t.dtype if isinstance(x, Array) else x.dtype


def promote(name: str, a: DT, b: DT) -> DT:
    result = RULES.promotion.get((a, b))
    if result is None:
        raise TypeError(f"{name}: {_dtypes.BY_ACL[a].name} and {_dtypes.BY_ACL[b].name} have no "
                        f"promoted dtype in the array_api rule set (docs/array-api.md)")
    return result


# The standard's categories, plus the one only imag uses.


# The standard's categories, plus the one only imag and the fft use.
CATEGORIES = {**_dtypes.CATEGORIES, "complex floating-point": _dtypes.KINDS["complex floating"]}


def check_kind(fname: str, category: str, *dtypes: DT | Array, name: str | None = None) -> None:
    """Each dtype (or array's dtype) must be of the standard's `category` (a key of
    CATEGORIES). Note: a binary function checks the promoted dtype, so a bool operand beside
    a numeric one is taken (the NPU computes f32 + bool in f32); bool with bool is not
    numeric. `name`: the parameter, for the message."""
    allowed = CATEGORIES[category]
    for d in dtypes:
        dt = d if isinstance(d, DT) else d._t.dtype
        if INFO[dt].kind not in allowed:
            what = _dtypes.BY_ACL[dt].name
            if name is None:
                raise TypeError(f"{fname} takes {category} dtypes, not {what}")
            raise TypeError(f"{fname}: {name} must have a {category} dtype, not {what}")
