"""Elementwise functions, generated from tables: each names the dtype category it takes,
the backend library's function, the kind of result, and our operator where there is one.

Which path a call takes (docs/array-api.md):
- add, subtract, multiply: aclnnAdd (subtract is Add with alpha -1) / aclnnMul when both
  input dtypes are in the current SoC's Add/Mul list (float16/32/64, bfloat16 where the SoC
  has it, int8/16/32/64, uint8, bool, complex64/128): our kernels, the NPU's rounding.
- everything else (uint16/32/64, float8, HiFloat8, bfloat16 without SoC support, and the
  functions that have no operator yet: divide, comparisons, bitwise, pow, ...) runs on the
  backend's array library (NumPy on cpu, CuPy on cuda) over the same memory, in stream order,
  without copies. Types the library has no arithmetic for (HiFloat8 everywhere, bfloat16 and
  float8 on cuda) compute in float32 through our bit-exact casts and round back, as the
  NPU's vector unit does.
Promotion and the result dtype follow the "array_api" rule set in every case.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..arch import current_soc
from ..device import storage_array
from ..dtypes import BOOL, COMPLEX, FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT
from ..ops import add as add_op, mul as mul_op
from ..ops._checks import broadcast_shapes
from ..ops._elementwise import KERNEL_TYPES
from ..runtime.base import Backend
from ..tensor import Scalar, make_scalar
from . import _dtypes
from ._array import Array, empty_array, is_scalar, library_dtype
from ._calls import (RULES, aligned, assign, call, call_new, check_library_destination,
                     check_writable, convert, copy)
from ._device import library, library_order

LOW_PRECISION = frozenset({DT.ACL_BF16, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN, DT.ACL_HIFLOAT8})
# Conversions of a Python scalar to these go through float32, as the cast kernels convert
# float64 and integers to them (npu_emu/runtime/cast.py).
VIA_FLOAT32 = LOW_PRECISION | {DT.ACL_FLOAT16}


@dataclass(frozen=True)
class Binary:
    """A binary elementwise function. result: "promoted" (the promoted dtype), "bool", or
    "float" (the promoted dtype, and the default float for integer and bool inputs)."""
    name: str
    category: str
    library: str
    result: str = "promoted"
    kernel: str | None = None     # "add", "subtract", "multiply": aclnnAdd / aclnnMul
    symbol: str = ""


@dataclass(frozen=True)
class Unary:
    """result: "same", or "real" (complex inputs give the real dtype of their precision)."""
    name: str
    category: str
    library: str
    result: str = "same"


BINARY = {f.name: f for f in [
    Binary("add", "numeric", "add", kernel="add", symbol="+"),
    Binary("subtract", "numeric", "subtract", kernel="subtract", symbol="-"),
    Binary("multiply", "numeric", "multiply", kernel="multiply", symbol="*"),
    Binary("divide", "numeric", "true_divide", "float", symbol="/"),
    Binary("floor_divide", "real numeric", "floor_divide", symbol="//"),
    Binary("remainder", "real numeric", "remainder", symbol="%"),
    Binary("pow", "numeric", "power", symbol="**"),
    Binary("equal", "all", "equal", "bool", symbol="=="),
    Binary("not_equal", "all", "not_equal", "bool", symbol="!="),
    Binary("less", "real numeric", "less", "bool", symbol="<"),
    Binary("less_equal", "real numeric", "less_equal", "bool", symbol="<="),
    Binary("greater", "real numeric", "greater", "bool", symbol=">"),
    Binary("greater_equal", "real numeric", "greater_equal", "bool", symbol=">="),
    Binary("bitwise_and", "integer or boolean", "bitwise_and", symbol="&"),
    Binary("bitwise_or", "integer or boolean", "bitwise_or", symbol="|"),
    Binary("bitwise_xor", "integer or boolean", "bitwise_xor", symbol="^"),
    Binary("bitwise_left_shift", "integer", "left_shift", symbol="<<"),
    Binary("bitwise_right_shift", "integer", "right_shift", symbol=">>"),
]}
UNARY = {f.name: f for f in [
    Unary("negative", "numeric", "negative"),
    Unary("positive", "numeric", "positive"),
    Unary("abs", "numeric", "absolute", "real"),
    Unary("bitwise_invert", "integer or boolean", "invert"),
]}
_REAL_OF = {DT.ACL_COMPLEX64: DT.ACL_FLOAT, DT.ACL_COMPLEX128: DT.ACL_DOUBLE}


# --------------------------------------------------------------------- operands

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


_SCALAR_KIND = {bool: BOOL, int: SIGNED, float: FLOATING, complex: COMPLEX}
# Which array kinds take a Python scalar of each kind as their own dtype (the standard).
_TAKES = {BOOL: {BOOL}, SIGNED: {SIGNED, UNSIGNED, FLOATING, COMPLEX},
          FLOATING: {FLOATING, COMPLEX}, COMPLEX: {COMPLEX}}


def scalar_dtype(value: bool | int | float | complex, against: DT) -> DT:
    """The dtype a Python scalar takes beside an array of dtype `against`: that dtype where
    the standard says so (an int with any numeric array, a float with a floating one, ...);
    otherwise the scalar's default dtype (bool, int64, float32, complex64), which then
    promotes with the array's by the rule set (int32 array + 1.5 -> float32, the NPU's answer).
    OverflowError for an int outside the range of an integer array's dtype."""
    kind = _SCALAR_KIND[type(value)]
    target = INFO[against].kind
    if target in _TAKES[kind]:
        if kind == SIGNED and target in (SIGNED, UNSIGNED):
            limits = np.iinfo(INFO[against].storage)
            if not limits.min <= value <= limits.max:
                raise OverflowError(f"the Python int {value} is outside the range of "
                                    f"{_dtypes.BY_ACL[against].name} [{limits.min}, "
                                    f"{limits.max}]")
        return against
    return _dtypes.DEFAULTS[kind].acl_dtype


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


def operands(name: str, x1: object, x2: object) -> tuple[Array | PyScalar, Array | PyScalar]:
    """Both operands as Arrays or typed Python scalars; at least one must be an array."""
    from ._creation import asarray
    ops = []
    for x in (x1, x2):
        if isinstance(x, np.ndarray):
            x = asarray(x)
        ops.append(x)
    a, b = ops
    if isinstance(a, Array) and isinstance(b, Array):
        if a._st.backend is not b._st.backend:
            raise ValueError(f"{name}: the arrays are on different devices ({a.device} and "
                             f"{b.device})")
        return a, b
    if isinstance(a, Array) and is_scalar(b):
        v = python_value(b)
        return a, PyScalar(v, scalar_dtype(v, a._t.dtype))
    if isinstance(b, Array) and is_scalar(a):
        v = python_value(a)
        return PyScalar(v, scalar_dtype(v, b._t.dtype)), b
    bad = a if not isinstance(a, Array) else b
    raise TypeError(f"{name}: expected arrays of npu_emu.array_api or Python scalars, got "
                    f"{type(bad).__name__}" + ("" if isinstance(a, Array) or isinstance(b, Array)
                                               else " (at least one operand must be an array)"))


def _dtype_of(x: Array | PyScalar) -> DT:
    return x._t.dtype if isinstance(x, Array) else x.dtype


def check_category(name: str, category: str, *dtypes: DT) -> None:
    """The dtype a function computes in must be of its category (the standard's wording).
    Note: a binary function checks the promoted dtype, so a bool operand beside a numeric one
    is taken (the NPU computes f32 + bool in f32); bool with bool is not numeric."""
    allowed = _dtypes.CATEGORIES[category]
    for dt in dtypes:
        if INFO[dt].kind not in allowed:
            raise TypeError(f"{name} takes {category} dtypes, not "
                            f"{_dtypes.BY_ACL[dt].name}")


def promote(name: str, a: DT, b: DT) -> DT:
    result = RULES.promotion.get((a, b))
    if result is None:
        raise TypeError(f"{name}: {_dtypes.BY_ACL[a].name} and {_dtypes.BY_ACL[b].name} have no "
                        f"promoted dtype in the array_api rule set (docs/array-api.md)")
    return result


def result_dtype(spec: Binary, compute: DT) -> DT:
    if spec.result == "bool":
        return DT.ACL_BOOL
    if spec.result == "float" and INFO[compute].kind in (BOOL, SIGNED, UNSIGNED):
        return _dtypes.DEFAULT_FLOAT.acl_dtype
    return compute


def _as_array(x: Array | PyScalar, be: Backend) -> Array:
    return x if isinstance(x, Array) else scalar_array(x.value, x.dtype, be)


def _backend(a: Array | PyScalar, b: Array | PyScalar) -> Backend:
    return (a if isinstance(a, Array) else b)._st.backend


# ------------------------------------------------------------- our operators

_ALPHA: dict[tuple[int, DT], Scalar] = {}


def alpha(value: int, dtype: DT) -> Scalar:
    """aclnnAdd's alpha in the computed dtype (so the rule set's cast check holds); -1 for an
    unsigned type is its modular equivalent, 2^bits - 1 (x + (2^bits - 1) y wraps to x - y)."""
    key = (value, dtype)
    found = _ALPHA.get(key)
    if found is None:
        v = value
        if value < 0 and INFO[dtype].kind == UNSIGNED:
            v = int(np.iinfo(INFO[dtype].storage).max) + 1 + value
        found = _ALPHA[key] = make_scalar(v, dtype)
    return found


def _kernel_op(spec: Binary, compute: DT, inplace: bool) -> tuple[Any, dict]:
    if spec.kernel == "multiply":
        return (mul_op.INPLACE_MUL if inplace else mul_op.MUL), {}
    op = add_op.INPLACE_ADD if inplace else add_op.ADD
    return op, {"alpha": alpha(1 if spec.kernel == "add" else -1, compute)}


def kernel_accepts(spec: Binary, dtypes: tuple[DT, ...], compute: DT) -> bool:
    """Whether our Add/Mul operator takes these dtypes on the current SoC."""
    if spec.kernel is None or compute not in KERNEL_TYPES:
        return False
    soc = current_soc()
    if (spec.kernel == "subtract" and INFO[compute].kind in (SIGNED, UNSIGNED)
            and compute in add_op.AXPY[add_op._is_950(soc)]):
        # Note: the NPU subtracts with aclnnSub (alpha 1), exact for integers; aclnnAdd with
        # alpha -1 takes its Axpy branch here, which computes int32 in float32 (inexact
        # beyond 2^24). The library subtracts int32 exactly instead.
        return False
    support = soc.dtypes_for("Mul" if spec.kernel == "multiply" else "Add")
    return compute in support and all(d in support for d in dtypes)


def _kernel_binary(spec: Binary, a: Array, b: Array, compute: DT) -> Array:
    op, attrs = _kernel_op(spec, compute, False)
    return call_new(op, [a, b], attrs)


# ------------------------------------------------------------- the library path

def _library_operand(x: Array | PyScalar, ct: np.dtype, be: Backend) -> Array | np.generic:
    """An operand ready for the library: an array in a dtype it computes with (converted by
    our kernels where it has none), or a NumPy scalar in ct. Call it before library_order:
    a conversion it enqueues must be done before the library reads."""
    if isinstance(x, PyScalar):
        from ..codecs import decode
        return decode(scalar_storage(x.value, x.dtype), x.dtype).astype(ct)[()]
    if library_dtype(x._t.dtype, be) is None:
        return convert(x, DT.ACL_FLOAT)       # exact: these types all fit in float32
    return x


def _view(x: Array | np.generic) -> Any:
    return x._values() if isinstance(x, Array) else x


def _ufunc(be: Backend, fname: str, inputs: list, out: Any, ct: np.dtype) -> None:
    xp = library(be)
    fn = getattr(xp, fname)
    if xp is np:
        with np.errstate(all="ignore"):
            fn(*inputs, out=out, signature=(ct,) * len(inputs) + (out.dtype,), casting="unsafe")
    else:
        fn(*(x.astype(ct, copy=False) if hasattr(x, "astype") else x for x in inputs), out=out,
           casting="unsafe")


def _compute_dtype(dtype: DT, be: Backend) -> tuple[np.dtype, DT]:
    """(the library dtype to compute in, the dtype of the library's result array)."""
    lib = library_dtype(dtype, be)
    if lib is None:
        return np.dtype(np.float32), DT.ACL_FLOAT
    return lib, dtype


def _library_binary(spec: Binary, a: Array | PyScalar, b: Array | PyScalar, compute: DT,
                    result: DT) -> Array:
    be = _backend(a, b)
    ct, _ = _compute_dtype(result if spec.result == "float" else compute, be)
    _, held = _compute_dtype(result, be) if result != DT.ACL_BOOL else (None, DT.ACL_BOOL)
    shape = broadcast_shapes(_shape(a), _shape(b), "x1", "x2")
    out = empty_array(shape, held, be)
    ops = [_library_operand(a, ct, be), _library_operand(b, ct, be)]
    with library_order(be):
        _ufunc(be, spec.library, [_view(o) for o in ops], out._values(), ct)
    return out if held == result else convert(out, result)


def _shape(x: Array | PyScalar) -> tuple[int, ...]:
    return x.shape if isinstance(x, Array) else ()


# --------------------------------------------------------------------- entries

def binary(name: str, x1: object, x2: object) -> Array:
    spec = BINARY[name]
    a, b = operands(name, x1, x2)
    da, db = _dtype_of(a), _dtype_of(b)
    compute = promote(name, da, db)
    check_category(name, spec.category, compute)
    result = result_dtype(spec, compute)
    if kernel_accepts(spec, (da, db), compute):
        be = _backend(a, b)
        return _kernel_binary(spec, _as_array(a, be), _as_array(b, be), compute)
    return _library_binary(spec, a, b, compute, result)


def unary(name: str, x: object) -> Array:
    spec = UNARY[name]
    if not isinstance(x, Array):
        raise TypeError(f"{name} takes an array of npu_emu.array_api, not {type(x).__name__}")
    check_category(name, spec.category, x._t.dtype)
    dt = x._t.dtype
    result = _REAL_OF.get(dt, dt) if spec.result == "real" else dt
    if spec.name == "positive":
        return copy(x)
    be = x._st.backend
    ct, _ = _compute_dtype(dt, be)
    held = result if library_dtype(result, be) is not None else DT.ACL_FLOAT
    out = empty_array(x.shape, held, be)
    op = _library_operand(x, ct, be)
    with library_order(be):
        _ufunc(be, spec.library, [_view(op)], out._values(), ct)
    return out if held == result else convert(out, result)


def inplace(name: str, x: Array, other: object) -> None:
    """x (op)= other: the result must keep x's dtype and shape (the standard's rule), and is
    written into x's memory."""
    check_writable(x, "x")
    if name == "matmul":
        from ._linalg import matmul
        result = matmul(x, other)
        if result.shape != x.shape:
            raise ValueError(f"x @= y would change x's shape {x.shape} to {result.shape}")
        assign(x, result)
        return
    spec = BINARY[name]
    a, b = operands(name, x, other)
    if not isinstance(a, Array):
        raise TypeError(f"{name}: the in-place target must be an array")
    da, db = _dtype_of(a), _dtype_of(b)
    compute = promote(name, da, db)
    check_category(name, spec.category, compute)
    result = result_dtype(spec, compute)
    if result != da:
        raise TypeError(f"x {spec.symbol}= y: the result would be "
                        f"{_dtypes.BY_ACL[result].name}, but an in-place operation keeps x's "
                        f"dtype {_dtypes.BY_ACL[da].name}; write x = x {spec.symbol} y")
    shape = broadcast_shapes(x.shape, _shape(b), "x", "y")
    if shape != x.shape:
        raise ValueError(f"x {spec.symbol}= y: y of shape {_shape(b)} broadcasts x of shape "
                         f"{x.shape} to {shape}; an in-place result keeps x's shape")
    be = x._st.backend
    if kernel_accepts(spec, (da, db), compute):
        bb = _as_array(b, be)
        d, s = aligned(x, bb)
        op, attrs = _kernel_op(spec, compute, True)
        call(op, (d._t, s._kernel_tensor()), (d,), attrs, be, (bb,))
        return
    if library_dtype(da, be) is not None and library_dtype(result, be) is not None:
        ct = library_dtype(compute, be)
        if ct is not None:
            check_library_destination(x)
            op = _library_operand(b, ct, be)
            with library_order(be):
                _ufunc(be, spec.library, [x._values(), _view(op)], x._values(), ct)
            return
    assign(x, binary(name, x, other))


def _make_binary(spec: Binary):
    def fn(x1: object, x2: object, /) -> Array:
        return binary(spec.name, x1, x2)
    fn.__name__ = fn.__qualname__ = spec.name
    fn.__doc__ = (f"{spec.name}(x1, x2): elementwise {spec.library}, broadcast; {spec.category} "
                  f"dtypes, promoted by the array_api rule set" +
                  (" (aclnnAdd/aclnnMul where the SoC's dtype list has both inputs)."
                   if spec.kernel else " (on the backend's array library)."))
    return fn


def _make_unary(spec: Unary):
    def fn(x: Array, /) -> Array:
        return unary(spec.name, x)
    fn.__name__ = fn.__qualname__ = spec.name
    fn.__doc__ = f"{spec.name}(x): elementwise {spec.library}; {spec.category} dtypes."
    return fn


FUNCTIONS = {**{n: _make_binary(s) for n, s in BINARY.items()},
             **{n: _make_unary(s) for n, s in UNARY.items()}}
globals().update(FUNCTIONS)

__all__ = sorted(FUNCTIONS)
