"""Data type functions: astype (our bit-exact conversion kernels), can_cast and result_type
(the "array_api" rule set), finfo / iinfo (the NPU's types included), isdtype.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..arch import current_soc
from ..dtypes import COMPLEX, INFO, aclDataType as DT
from ..ops.cast import CAST
from ._engine import dtypes as _dtypes, repeat
from ._engine.array import Array, is_scalar, to_device
from ._engine.dtypes import DType, real_of, to_dtype
from ._engine.kernel import RULES, call_new, context, convert, copy as copy_array
from ._engine.scalars import promote, python_value, scalar_dtype


def astype(x: Array, dtype: object, /, *, copy: bool = True, device: object = None) -> Array:
    """x converted to `dtype` by the NPU's conversion (round to nearest even for the floats,
    HiFloat8's half away from zero, float -> integer truncating, ...): aclnnCast where the
    SoC's Cast list has both dtypes, else InplaceCopy's conversion (every pair of its list).
    copy=False returns x itself when nothing changes. Complex to real is refused (take the
    real part explicitly)."""
    if not isinstance(x, Array):
        raise TypeError(f"astype: x is a {type(x).__name__}, not an array of npu_emu.array_api")
    dt = to_dtype(dtype)
    if device is not None:
        x = to_device(x, device)
    if dt == x.dtype:
        return copy_array(x, keep_order=True) if copy else x
    if x.dtype.kind == COMPLEX and dt.kind != COMPLEX:
        raise TypeError(f"astype: {x.dtype.name} to {dt.name} would drop the imaginary part; "
                        f"the standard leaves it out (take real(x) first)")
    # A repeated call (a client's loop) takes the short way to the cached plan of aclnnCast.
    out, key = repeat.short_way("astype", x, params=(dt.acl_dtype,))
    if out is not None:
        return out
    # The result keeps x's own order of axes, as an elementwise result does (result_array):
    # astype(x.T, float64) reads and writes in stride, as NumPy's astype (order="K") does.
    cast = current_soc().dtypes_for("Cast")
    if x._t.dtype in cast and dt.acl_dtype in cast:
        attrs = {"dtype": dt.acl_dtype}
        be = x._st.backend
        out = call_new(CAST, [x], attrs, elementwise=True)
        if key is not None:
            repeat.remember_operator(key, context(be), (CAST, attrs), (x,), [x], out)
        return out
    return convert(x, dt.acl_dtype, keep_order=True)


def _dtype_arg(value: object, name: str) -> DT:
    if isinstance(value, Array):
        return value._t.dtype
    if isinstance(value, DType):
        return value.acl_dtype
    raise TypeError(f"{name}={value!r} is not an array or a dtype of npu_emu.array_api")


def can_cast(from_: object, to: object, /) -> bool:
    """Whether from_ (an array or a dtype) converts to `to` by promotion: promoting the two
    gives `to` (the array_api rule set)."""
    src = _dtype_arg(from_, "from_")
    if not isinstance(to, DType):
        raise TypeError(f"to={to!r} is not a dtype of npu_emu.array_api")
    return RULES.can_cast(src, to.acl_dtype)


def result_type(*arrays_and_dtypes: object) -> DType:
    """The dtype the operators promote arrays, dtypes and Python scalars to (a scalar takes
    the others' dtype where the standard says so, else its default dtype)."""
    dts, scalars = [], []
    for i, v in enumerate(arrays_and_dtypes):
        if isinstance(v, (Array, DType)):
            dts.append(_dtype_arg(v, f"arrays_and_dtypes[{i}]"))
        elif is_scalar(v):
            scalars.append(python_value(v))
        else:
            raise TypeError(f"arrays_and_dtypes[{i}]={v!r} is not an array, a dtype or a Python "
                            f"scalar")
    if not dts:
        raise ValueError("result_type needs at least one array or dtype")
    out = dts[0]
    for d in dts[1:]:
        out = promote("result_type", out, d)
    for s in scalars:
        out = promote("result_type", out, scalar_dtype(s, out))
    return _dtypes.BY_ACL[out]


def isdtype(dtype: object, kind: object) -> bool:
    """Whether `dtype` is of `kind`: a dtype, a kind name ("bool", "signed integer",
    "unsigned integer", "integral", "real floating", "complex floating", "numeric"), or a
    tuple of those. The NPU's float16, bfloat16, float8 and hifloat8 are "real floating".
    Like every dtype argument, `dtype` (and a dtype as `kind`) may also be a NumPy, ml_dtypes
    or PyTorch dtype or a name (TypeError for what is none)."""
    if not isinstance(dtype, DType):
        dtype = to_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, DType):
        return dtype == kind
    if isinstance(kind, str):
        if kind not in _dtypes.KINDS:
            raise ValueError(f"kind={kind!r} is not a dtype kind; use one of "
                             f"{', '.join(repr(k) for k in _dtypes.KINDS)}")
        return dtype.kind in _dtypes.KINDS[kind]
    if isinstance(kind, (int, np.integer)):
        raise TypeError(f"kind={kind!r} is not a dtype, a kind name or a tuple of them")
    return dtype == to_dtype(kind, "kind")


@dataclass(frozen=True)
class finfo_object:
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType


@dataclass(frozen=True)
class iinfo_object:
    bits: int
    max: int
    min: int
    dtype: DType




@functools.cache
def _hifloat8_info() -> tuple[float, float, float]:
    """(eps, max, smallest normal) of HiFloat8, read from its code table (docs/conversions.md#hifloat8): codes
    with prefix 0000 are its denormals."""
    from ..codecs import hif8_to_float32
    codes = np.arange(256, dtype=np.uint8)
    values = hif8_to_float32(codes).astype(np.float64)
    finite = np.isfinite(values)
    normal = finite & ((codes & 0x78) != 0) & (values > 0)
    return (float(values[finite & (values > 1)].min() - 1), float(values[finite].max()),
            float(values[normal].min()))


def finfo(type: object, /) -> finfo_object:  # noqa: A002 (the standard's name)
    """Machine limits of a floating dtype (or an array's): complex gives its real type's.
    The NPU's float16, bfloat16, float8_e5m2, float8_e4m3fn and hifloat8 included."""
    acl = _dtype_arg(type, "type")
    real = real_of(acl)
    if INFO[real].kind != "floating":
        raise TypeError(f"finfo takes a floating dtype, not {_dtypes.BY_ACL[acl].name}")
    return _finfo(real)


@functools.cache
def _finfo(real: DT) -> finfo_object:
    """finfo of a real floating dtype, made once (the object is frozen; scikit-learn asks on
    every fit)."""
    dt = _dtypes.BY_ACL[real]
    if real == DT.ACL_HIFLOAT8:
        eps, big, tiny = _hifloat8_info()
        return finfo_object(8, eps, big, -big, tiny, dt)
    host = INFO[real].host
    if host.isbuiltin != 1:                 # bfloat16, FP8: ml_dtypes' finfo (its own import)
        import ml_dtypes
        f = ml_dtypes.finfo(host)
    else:
        f = np.finfo(host)
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min),
                        float(f.smallest_normal), dt)


def iinfo(type: object, /) -> iinfo_object:  # noqa: A002
    acl = _dtype_arg(type, "type")
    if INFO[acl].kind not in ("signed", "unsigned"):
        raise TypeError(f"iinfo takes an integer dtype, not {_dtypes.BY_ACL[acl].name}")
    return _iinfo(acl)


@functools.cache
def _iinfo(acl: DT) -> iinfo_object:
    i = np.iinfo(INFO[acl].storage)
    return iinfo_object(int(i.bits), int(i.max), int(i.min), _dtypes.BY_ACL[acl])


__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]
