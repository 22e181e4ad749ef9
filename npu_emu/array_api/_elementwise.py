"""Elementwise functions, generated from tables: each entry names the dtype category it
takes (the standard's), the backend library's function, the kind of result, our operator
where there is one, and its operator dunder. The Array's operators are installed from the
same tables.

Which path a call takes (docs/array-api.md):
- add, subtract, multiply: aclnnAdd (subtract is Add with alpha -1) / aclnnMul when both
  input dtypes are in the current SoC's Add/Mul list (float16/32/64, bfloat16 where the SoC
  has it, int8/16/32/64, uint8, bool, complex64/128): our kernels, the NPU's rounding.
- everything else runs on the backend's array library (NumPy on cpu, CuPy on cuda) over the
  same memory, in stream order, without copies, in the NPU's computation type: float16,
  bfloat16, the float8 types and HiFloat8 compute in float32 (read exactly, or converted by
  our cast kernels where the library has no such type) and the float32 result is rounded
  back to the result dtype by our bit-exact conversion, as the NPU's vector unit does.
- The standard's special cases (signed zeros, infinities, NaNs) are the library's IEEE
  results, corrected where NumPy/CuPy differ from the standard (floor_divide with an
  infinite operand, complex expm1 and tanh at infinities): `fix` below.
Promotion and the result dtype follow the "array_api" rule set in every case.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..arch import current_soc
from ..device import storage_array
from ..dtypes import BOOL, COMPLEX, FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT
from ..ops import add as add_op, mul as mul_op
from ..ops._checks import broadcast_shapes
from ..ops._elementwise import KERNEL_TYPES
from ..runtime.base import Backend
from ..tensor import Scalar, make_scalar
from . import _array, _dtypes
from ._array import Array, empty_array, is_scalar, library_dtype
from ._calls import (RULES, aligned, assign, call, call_new, check_library_destination,
                     check_writable, convert, copy)
from ._device import library, library_order
from ._library import VIA_FLOAT32 as _NARROW

# Floats narrower than float32 (float16, bfloat16, the float8 types, HiFloat8): the NPU
# computes them in float32. Conversions of a Python scalar to them also go through float32,
# as the cast kernels convert float64 and integers to them (npu_emu/runtime/cast.py).
VIA_FLOAT32 = _NARROW
LOW_PRECISION = VIA_FLOAT32 - {DT.ACL_FLOAT16}

# A function of the library that is not a NumPy/CuPy ufunc of that name: it writes the
# result into `out` itself. (lib, inputs, out, dtype): the library module, the operands as
# library arrays or NumPy scalars, the output array, and the result dtype.
Writer = Callable[[Any, list, Any, DT], None]
# A correction of the library's result where it differs from the standard's special cases:
# (lib, inputs, out), run after the library function, on the same operands.
Fix = Callable[[Any, list, Any], None]


@dataclass(frozen=True)
class Binary:
    """A binary elementwise function. result: "promoted" (the promoted dtype), "bool",
    "float" (the promoted dtype, and the default float for integer and bool inputs), or
    "logical" (bool, each operand taken by its truth: no promotion).
    dunder: the operator ("add": __add__, __radd__, __iadd__), "cmp:<name>" for a
    comparison (no reflected or in-place form)."""
    name: str
    category: str
    library: str | Writer
    result: str = "promoted"
    kernel: str | None = None     # "add", "subtract", "multiply": aclnnAdd / aclnnMul
    symbol: str = ""
    dunder: str | None = None
    fix: Fix | None = None


@dataclass(frozen=True)
class Unary:
    """A unary elementwise function. result: "same", "real" (complex inputs give the real
    dtype of their precision) or "bool". identity: the dtype kinds on which the function
    returns its input's values (ceil of an integer, conj of a real), as a copy."""
    name: str
    category: str
    library: str | Writer
    result: str = "same"
    identity: frozenset[str] = frozenset()
    dunder: str | None = None
    fix: Fix | None = None


_INTEGERS = frozenset({SIGNED, UNSIGNED})
_REALS = frozenset({SIGNED, UNSIGNED, FLOATING})
_REAL_OF = {DT.ACL_COMPLEX64: DT.ACL_FLOAT, DT.ACL_COMPLEX128: DT.ACL_DOUBLE}
# The standard's categories, plus the one only imag uses.
CATEGORIES = {**_dtypes.CATEGORIES, "complex floating-point": _dtypes.KINDS["complex floating"]}


# ------------------------------------------------------------ special-case fixes

def _fix_floor_divide(lib: Any, inputs: list, out: Any) -> None:
    """An infinite operand: floor(x1 / x2), the standard's cases (+inf // 2 is +inf,
    -1 // +inf is -0). NumPy and CuPy follow Python there (NaN, -1). Integers: nothing."""
    x1, x2 = inputs
    if out.dtype.kind != "f":
        return
    special = lib.isinf(x1) | lib.isinf(x2)
    lib.copyto(out, lib.floor(lib.true_divide(x1, x2)), where=special)


def _fix_expm1(lib: Any, inputs: list, out: Any) -> None:
    """Complex expm1 at zero, infinities and NaNs: exp(z) - 1 there, whose special cases
    are the standard's (the library's complex expm1 gives NaN + NaN j at infinities and
    keeps -0)."""
    (z,) = inputs
    if out.dtype.kind != "c":
        return
    special = ~lib.isfinite(z) | (z == 0)
    lib.copyto(out, lib.exp(z) - 1, where=special)


def _fix_tanh(lib: Any, inputs: list, out: Any) -> None:
    """Complex tanh(±inf + bj), b finite: ±1 with an imaginary zero of b's sign (the
    standard: 1 + 0j for b > 0; the library takes the sign of sin(2b))."""
    (z,) = inputs
    if out.dtype.kind != "c":
        return
    re, im = lib.real(z), lib.imag(z)
    special = lib.isinf(re) & lib.isfinite(im)
    lib.copyto(out.real, lib.sign(re), where=special)
    lib.copyto(out.imag, lib.copysign(lib.zeros_like(im), im), where=special)


# ------------------------------------------------------------------ writers

def _write_real(lib: Any, inputs: list, out: Any, dtype: DT) -> None:
    out[...] = lib.real(inputs[0])


def _write_imag(lib: Any, inputs: list, out: Any, dtype: DT) -> None:
    out[...] = lib.imag(inputs[0])


@functools.cache
def _grid(dtype: DT) -> np.ndarray:
    """The values of a narrow float dtype in ascending order, as float32: every finite code
    (and the infinities where it has them), -0 folded into +0."""
    from ..codecs import decode
    bits = INFO[dtype].bits
    codes = np.arange(2 ** bits, dtype=np.uint16 if bits == 16 else np.uint8)
    values = decode(codes.view(INFO[dtype].storage), dtype).astype(np.float32)
    values = values[~np.isnan(values)]
    return np.unique(np.where(values == 0, np.float32(0), values))


def _write_nextafter(lib: Any, inputs: list, out: Any, dtype: DT) -> None:
    """nextafter in the result dtype's own precision. The narrow floats (computed in
    float32 here) step along their table of values: the neighbour of x1 towards x2 (past
    the largest finite value of a type without infinity: inf, which the conversion back
    makes what the NPU's cast makes of it)."""
    x1, x2 = inputs
    if dtype not in VIA_FLOAT32:
        lib.nextafter(x1, x2, out=out)
        return
    grid = lib.asarray(_grid(dtype))
    x1, x2 = lib.asarray(x1, dtype=np.float32), lib.asarray(x2, dtype=np.float32)
    i = lib.searchsorted(grid, x1)
    up = lib.concatenate([grid[1:], lib.asarray([np.inf], dtype=np.float32)])
    down = lib.concatenate([lib.asarray([-np.inf], dtype=np.float32), grid[:-1]])
    last = len(grid) - 1
    i = lib.minimum(i, last)
    step = lib.where(x2 > x1, up[i], down[i])
    result = lib.where(x1 == x2, x2, step)
    out[...] = lib.where(lib.isnan(x1) | lib.isnan(x2), np.float32(np.nan), result)


# ------------------------------------------------------------------- the tables

_CMP = "cmp:"
BINARY = {f.name: f for f in [
    Binary("add", "numeric", "add", kernel="add", symbol="+", dunder="add"),
    Binary("subtract", "numeric", "subtract", kernel="subtract", symbol="-", dunder="sub"),
    Binary("multiply", "numeric", "multiply", kernel="multiply", symbol="*", dunder="mul"),
    # Note: the standard's divide takes floating dtypes; integers divide in the default
    # float, as PyTorch and CuPy do and clients rely on (int / int).
    Binary("divide", "numeric", "true_divide", "float", symbol="/", dunder="truediv"),
    Binary("floor_divide", "real numeric", "floor_divide", symbol="//", dunder="floordiv",
           fix=_fix_floor_divide),
    Binary("remainder", "real numeric", "remainder", symbol="%", dunder="mod"),
    Binary("pow", "numeric", "power", symbol="**", dunder="pow"),
    Binary("atan2", "real floating-point", "arctan2"),
    Binary("copysign", "real floating-point", "copysign"),
    Binary("hypot", "real floating-point", "hypot"),
    Binary("logaddexp", "real floating-point", "logaddexp"),
    Binary("nextafter", "real floating-point", _write_nextafter),
    Binary("maximum", "real numeric", "maximum"),
    Binary("minimum", "real numeric", "minimum"),
    Binary("equal", "all", "equal", "bool", symbol="==", dunder=_CMP + "eq"),
    Binary("not_equal", "all", "not_equal", "bool", symbol="!=", dunder=_CMP + "ne"),
    Binary("less", "real numeric", "less", "bool", symbol="<", dunder=_CMP + "lt"),
    Binary("less_equal", "real numeric", "less_equal", "bool", symbol="<=", dunder=_CMP + "le"),
    Binary("greater", "real numeric", "greater", "bool", symbol=">", dunder=_CMP + "gt"),
    Binary("greater_equal", "real numeric", "greater_equal", "bool", symbol=">=",
           dunder=_CMP + "ge"),
    # Note: the standard's logical functions take bool; any dtype is taken by its truth
    # (non-zero, NaN included), as NumPy, PyTorch and CuPy do and clients rely on
    # (scikit-learn's roc_curve: logical_or of float differences). No promotion: each
    # operand becomes bool.
    Binary("logical_and", "all", "logical_and", "logical"),
    Binary("logical_or", "all", "logical_or", "logical"),
    Binary("logical_xor", "all", "logical_xor", "logical"),
    Binary("bitwise_and", "integer or boolean", "bitwise_and", symbol="&", dunder="and"),
    Binary("bitwise_or", "integer or boolean", "bitwise_or", symbol="|", dunder="or"),
    Binary("bitwise_xor", "integer or boolean", "bitwise_xor", symbol="^", dunder="xor"),
    Binary("bitwise_left_shift", "integer", "left_shift", symbol="<<", dunder="lshift"),
    Binary("bitwise_right_shift", "integer", "right_shift", symbol=">>", dunder="rshift"),
]}
UNARY = {f.name: f for f in [
    Unary("abs", "numeric", "absolute", "real", dunder="abs"),
    Unary("negative", "numeric", "negative", dunder="neg"),
    Unary("positive", "numeric", "positive", identity=_dtypes.KINDS["numeric"], dunder="pos"),
    Unary("bitwise_invert", "integer or boolean", "invert", dunder="invert"),
    Unary("logical_not", "all", "logical_not", "bool"),
    Unary("acos", "floating-point", "arccos"),
    Unary("acosh", "floating-point", "arccosh"),
    Unary("asin", "floating-point", "arcsin"),
    Unary("asinh", "floating-point", "arcsinh"),
    Unary("atan", "floating-point", "arctan"),
    Unary("atanh", "floating-point", "arctanh"),
    Unary("cos", "floating-point", "cos"),
    Unary("cosh", "floating-point", "cosh"),
    Unary("sin", "floating-point", "sin"),
    Unary("sinh", "floating-point", "sinh"),
    Unary("tan", "floating-point", "tan"),
    Unary("tanh", "floating-point", "tanh", fix=_fix_tanh),
    Unary("exp", "floating-point", "exp"),
    Unary("expm1", "floating-point", "expm1", fix=_fix_expm1),
    Unary("log", "floating-point", "log"),
    Unary("log1p", "floating-point", "log1p"),
    Unary("log2", "floating-point", "log2"),
    Unary("log10", "floating-point", "log10"),
    Unary("sqrt", "floating-point", "sqrt"),
    Unary("square", "numeric", "square"),
    Unary("reciprocal", "floating-point", "reciprocal"),
    Unary("sign", "numeric", "sign"),
    Unary("ceil", "real numeric", "ceil", identity=_INTEGERS),
    Unary("floor", "real numeric", "floor", identity=_INTEGERS),
    Unary("trunc", "real numeric", "trunc", identity=_INTEGERS),
    # rint: round half to even, real and imaginary parts independently (the standard)
    Unary("round", "numeric", "rint", identity=_INTEGERS),
    Unary("conj", "numeric", "conjugate", identity=_REALS),
    Unary("real", "numeric", _write_real, "real", identity=_REALS),
    Unary("imag", "complex floating-point", _write_imag, "real"),
    Unary("isfinite", "numeric", "isfinite", "bool"),
    Unary("isinf", "numeric", "isinf", "bool"),
    Unary("isnan", "numeric", "isnan", "bool"),
    Unary("signbit", "real floating-point", "signbit", "bool"),
]}


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
    allowed = CATEGORIES[category]
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
    if spec.result in ("bool", "logical"):
        return DT.ACL_BOOL
    if spec.result == "float" and INFO[compute].kind in (BOOL, SIGNED, UNSIGNED):
        return _dtypes.DEFAULT_FLOAT.acl_dtype
    return compute


def _as_array(x: Array | PyScalar, be: Backend) -> Array:
    return x if isinstance(x, Array) else scalar_array(x.value, x.dtype, be)


def _backend(a: Array | PyScalar, b: Array | PyScalar) -> Backend:
    return (a if isinstance(a, Array) else b)._st.backend


def _shape(x: Array | PyScalar) -> tuple[int, ...]:
    return x.shape if isinstance(x, Array) else ()


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

def compute_in(dtype: DT, be: Backend) -> tuple[np.dtype, DT]:
    """(the library dtype computing `dtype` happens in, the dtype of the array the library
    writes): float32 for the narrow floats (the NPU's computation type), else the dtype
    itself."""
    if dtype in VIA_FLOAT32:
        return np.dtype(np.float32), DT.ACL_FLOAT
    lib = library_dtype(dtype, be)
    assert lib is not None, dtype     # every other dtype has a library type on both backends
    return lib, dtype


def _library_operand(x: Array | PyScalar, ct: np.dtype, be: Backend) -> Array | np.generic:
    """An operand ready for the library: an array in a dtype it reads (converted by our
    kernels where it has none: HiFloat8, and bfloat16/float8 on cuda; exactly, they all fit
    in float32), or a NumPy scalar in ct (converted to its dtype first, as the NPU would).
    Call it before library_order: a conversion it enqueues must be done before the library
    reads."""
    if isinstance(x, PyScalar):
        from ..codecs import decode
        return decode(scalar_storage(x.value, x.dtype), x.dtype).astype(ct)[()]
    if library_dtype(x._t.dtype, be) is None:
        return convert(x, DT.ACL_FLOAT)
    return x


def _view(x: Array | np.generic) -> Any:
    return x._values() if isinstance(x, Array) else x


def _apply(be: Backend, spec: Binary | Unary, inputs: list, out: Any, ct: np.dtype,
           dtype: DT) -> None:
    """The library function of `spec` on `inputs` (computing in ct) into `out`, then its
    special-case fix. Call inside library_order."""
    lib = library(be)
    with np.errstate(all="ignore"):
        if callable(spec.library):
            spec.library(lib, inputs, out, dtype)
        elif lib is np:
            getattr(np, spec.library)(*inputs, out=out,
                                      signature=(ct,) * len(inputs) + (out.dtype,),
                                      casting="unsafe")
        else:
            getattr(lib, spec.library)(*(x.astype(ct, copy=False) if hasattr(x, "astype")
                                         else x for x in inputs), out=out, casting="unsafe")
        if spec.fix is not None:
            spec.fix(lib, inputs, out)


def _held(result: DT) -> DT:
    """The dtype the library writes a result of dtype `result` in."""
    return DT.ACL_FLOAT if result in VIA_FLOAT32 else result


def _library_call(spec: Binary | Unary, ops: list[Array | PyScalar], shape: tuple[int, ...],
                  compute: DT, result: DT, be: Backend) -> Array:
    ct, _ = compute_in(compute, be)
    held = _held(result)
    out = empty_array(shape, held, be)
    prepared = [_library_operand(o, ct, be) for o in ops]
    with library_order(be):
        _apply(be, spec, [_view(o) for o in prepared], out._values(), ct, result)
    return out if held == result else convert(out, result)


# --------------------------------------------------------------------- entries

def binary(name: str, x1: object, x2: object) -> Array:
    spec = BINARY[name]
    a, b = operands(name, x1, x2)
    da, db = _dtype_of(a), _dtype_of(b)
    be = _backend(a, b)
    if spec.result == "logical":
        check_category(name, spec.category, da, db)
        shape = broadcast_shapes(_shape(a), _shape(b), "x1", "x2")
        return _library_call(spec, [a, b], shape, DT.ACL_BOOL, DT.ACL_BOOL, be)
    compute = promote(name, da, db)
    check_category(name, spec.category, compute)
    result = result_dtype(spec, compute)
    if kernel_accepts(spec, (da, db), compute):
        return _kernel_binary(spec, _as_array(a, be), _as_array(b, be), compute)
    shape = broadcast_shapes(_shape(a), _shape(b), "x1", "x2")
    return _library_call(spec, [a, b], shape, result if spec.result == "float" else compute,
                         result, be)


def unary(name: str, x: object) -> Array:
    spec = UNARY[name]
    if not isinstance(x, Array):
        raise TypeError(f"{name} takes an array of npu_emu.array_api, not {type(x).__name__}")
    dt = x._t.dtype
    check_category(name, spec.category, dt)
    if INFO[dt].kind in spec.identity:
        return copy(x)
    result = {"same": dt, "real": _REAL_OF.get(dt, dt), "bool": DT.ACL_BOOL}[spec.result]
    return _library_call(spec, [x], x.shape, dt, result, x._st.backend)


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
    if da == compute and da not in VIA_FLOAT32 and spec.fix is None:
        # The library writes x's memory directly: x's dtype is the one computed in (a fix
        # would read x1 after the function overwrote it; the narrow floats round back through
        # our conversion).
        check_library_destination(x)
        ct, _ = compute_in(compute, be)
        op = _library_operand(b, ct, be)
        with library_order(be):
            _apply(be, spec, [x._values(), _view(op)], x._values(), ct, da)
        return
    assign(x, binary(name, x, other))


# ------------------------------------------------------------ the functions

def _make_binary(spec: Binary) -> Callable[[object, object], Array]:
    def fn(x1: object, x2: object, /) -> Array:
        return binary(spec.name, x1, x2)
    fn.__name__ = fn.__qualname__ = spec.name
    lib = spec.library if isinstance(spec.library, str) else spec.name
    fn.__doc__ = (f"{spec.name}(x1, x2): elementwise {lib}, broadcast; {spec.category} "
                  f"dtypes, promoted by the array_api rule set" +
                  (" (aclnnAdd/aclnnMul where the SoC's dtype list has both inputs)."
                   if spec.kernel else " (on the backend's array library; narrow floats "
                   "in float32, rounded back by our conversion).")
                  + (f" The operator {spec.symbol}." if spec.symbol else ""))
    return fn


def _make_unary(spec: Unary) -> Callable[[Array], Array]:
    def fn(x: Array, /) -> Array:
        return unary(spec.name, x)
    fn.__name__ = fn.__qualname__ = spec.name
    lib = spec.library if isinstance(spec.library, str) else spec.name
    fn.__doc__ = (f"{spec.name}(x): elementwise {lib}; {spec.category} dtypes (narrow floats "
                  f"in float32, rounded back by our conversion).")
    return fn


FUNCTIONS = {**{n: _make_binary(s) for n, s in BINARY.items()},
             **{n: _make_unary(s) for n, s in UNARY.items()}}
globals().update(FUNCTIONS)

# The Array's operators, from the same tables.
_array.install_operators(
    binary={s.dunder: s.name for s in BINARY.values()
            if s.dunder and not s.dunder.startswith(_CMP)},
    comparison={s.dunder[len(_CMP):]: s.name for s in BINARY.values()
                if s.dunder and s.dunder.startswith(_CMP)},
    unary={s.dunder: s.name for s in UNARY.values() if s.dunder})

__all__ = sorted(FUNCTIONS)
