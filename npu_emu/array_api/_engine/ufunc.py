"""The elementwise engine: the tables of the elementwise functions (each entry names the dtype
category it takes, the standard's, the backend library's function, the kind of result, our
operator where there is one, and its operator symbol) and the three entries every
elementwise function and Array operator goes through: binary, unary and inplace.

Which path a call takes (docs/array-api.md):
- add, subtract, multiply: aclnnAdd (subtract is Add with alpha -1) / aclnnMul when both
  input dtypes are in the current SoC's Add/Mul list (float16/32/64, bfloat16 where the SoC
  has it, int8/16/32/64, uint8, bool, complex64/128): our kernels, the NPU's rounding.
- everything else (and add / multiply / subtract off those lists) runs on our ufunc kernels
  (npu_emu/kernels/ufunc.py) wherever the catalog has the function and the computed dtype,
  on both backends: float16 / bfloat16 compute in float32 inside the kernel and round once,
  the float8 types and HiFloat8 are converted to float32 and back by our cast kernels
  (library.own_elementwise decides, in library.elementwise / elementwise_into).
- what the catalog lacks (nextafter of the float8 types, more than 8 dims) runs on the
  backend's array library (NumPy on cpu, CuPy on cuda) over the same memory, in stream order,
  in the NPU's computation type (the narrow floats in float32, rounded back by our bit-exact
  conversion). Its special cases are the library's IEEE results, corrected where NumPy/CuPy
  differ from the standard (complex expm1 and tanh at infinities, floor_divide with an
  infinite operand, all past 8 dims): `fix` below.
Promotion and the result dtype follow the "array_api" rule set in every case.
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ...arch import current_soc
from ...dtypes import BOOL, FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT
from ...kernels import clip as clip_family, ufunc as ufunc_family
from ...kernels.indexing import MAX_DIMS
from ...ops._checks import broadcast_shapes
from ...ops._core import Context
from ...runtime.base import Backend
from . import dtypes as _dtypes, library, repeat
from .array import Array, is_scalar, result_array
from .dtypes import VIA_FLOAT32, real_of
from .kernel import (assign, binary_operator, call, call_new, check_library_destination,
                     check_writable, context, convert, family_plan, kernel_view, launch)
from .matmul import matmul
from .scalars import (PyScalar, check_kind, dtype_of, promote, python_value,
                      scalar_constant, scalar_dtype)
from .views import aligned


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
    """A unary elementwise function. result: "same", "float" (the input's dtype; integer
    inputs compute in the default real floating dtype), "real" (complex inputs give the real
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
    from ...codecs import decode
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
    Binary("atan2", "real numeric", "arctan2", "float"),
    Binary("copysign", "real floating-point", "copysign"),
    Binary("hypot", "real numeric", "hypot", "float"),
    Binary("logaddexp", "real numeric", "logaddexp", "float"),
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
# divide of integers in float64 on the ufunc family's true_divide kernel (binary): divide's
# spec under that kernel's name (the library path never takes it).
_TRUE_DIVIDE = dataclasses.replace(BINARY["divide"], name="true_divide")
# Note: the standard's math functions (the "float" results here and above: sqrt, exp, sin,
# atan2, ...) take floating dtypes. Integer arrays compute in the default real floating
# dtype, as PyTorch does (NumPy and CuPy too, in their own float) and clients rely on
# (SciPy's softmax of an int array); CANN's Exp takes INT64 into a floating out. bool stays
# refused, as for divide: not numeric.
UNARY = {f.name: f for f in [
    Unary("abs", "numeric", "absolute", "real", dunder="abs"),
    Unary("negative", "numeric", "negative", dunder="neg"),
    Unary("positive", "numeric", "positive", identity=_dtypes.KINDS["numeric"], dunder="pos"),
    Unary("bitwise_invert", "integer or boolean", "invert", dunder="invert"),
    Unary("logical_not", "all", "logical_not", "bool"),
    Unary("acos", "numeric", "arccos", "float"),
    Unary("acosh", "numeric", "arccosh", "float"),
    Unary("asin", "numeric", "arcsin", "float"),
    Unary("asinh", "numeric", "arcsinh", "float"),
    Unary("atan", "numeric", "arctan", "float"),
    Unary("atanh", "numeric", "arctanh", "float"),
    Unary("cos", "numeric", "cos", "float"),
    Unary("cosh", "numeric", "cosh", "float"),
    Unary("sin", "numeric", "sin", "float"),
    Unary("sinh", "numeric", "sinh", "float"),
    Unary("tan", "numeric", "tan", "float"),
    Unary("tanh", "numeric", "tanh", "float", fix=_fix_tanh),
    Unary("exp", "numeric", "exp", "float"),
    Unary("expm1", "numeric", "expm1", "float", fix=_fix_expm1),
    Unary("log", "numeric", "log", "float"),
    Unary("log1p", "numeric", "log1p", "float"),
    Unary("log2", "numeric", "log2", "float"),
    Unary("log10", "numeric", "log10", "float"),
    Unary("sqrt", "numeric", "sqrt", "float"),
    Unary("square", "numeric", "square"),
    Unary("reciprocal", "numeric", "reciprocal", "float"),
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

def beside(value: object, like: Array | None) -> object:
    """An operator's NumPy array operand as ours on like's device (x + ndarray, x @ ndarray;
    like None: the default device); anything else as it is."""
    if isinstance(value, np.ndarray):
        from .asarray import asarray
        return asarray(value, device=None if like is None else like.device)
    return value


def operands(name: str, x1: object, x2: object) -> tuple[Array | PyScalar, Array | PyScalar]:
    """Both operands as Arrays or typed Python scalars; at least one must be an array."""
    if type(x1) is Array and type(x2) is Array:     # the common case, first
        if x1._st.backend is not x2._st.backend:
            raise ValueError(f"{name}: the arrays are on different devices ({x1.device} and "
                             f"{x2.device})")
        return x1, x2
    if isinstance(x1, np.ndarray) or isinstance(x2, np.ndarray):
        # a NumPy operand becomes ours on the other operand's device (both NumPy: the default)
        like = x1 if isinstance(x1, Array) else x2 if isinstance(x2, Array) else None
        x1, x2 = beside(x1, like), beside(x2, like)
    a, b = x1, x2
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


def float_of(dt: DT) -> DT:
    """The dtype a "float" result takes for an input (or promoted) dtype `dt`: dt itself for
    the floating dtypes, the default real floating dtype for integers and bool."""
    if INFO[dt].kind in (BOOL, SIGNED, UNSIGNED):
        return _dtypes.default_float().acl_dtype
    return dt


def result_dtype(spec: Binary, compute: DT) -> DT:
    if spec.result in ("bool", "logical"):
        return DT.ACL_BOOL
    if spec.result == "float":
        return float_of(compute)
    return compute


def _as_array(x: Array | PyScalar, be: Backend) -> Array:
    return x if isinstance(x, Array) else scalar_constant(x.value, x.dtype, be)


def _backend(a: Array | PyScalar, b: Array | PyScalar) -> Backend:
    return (a if isinstance(a, Array) else b)._st.backend


def _shape(x: Array | PyScalar) -> tuple[int, ...]:
    return x.shape if isinstance(x, Array) else ()


def _reversed(a: Array | PyScalar, b: Array | PyScalar) -> bool:
    """Whether an operand is a view with a reversed axis. Our operators (aclnnAdd, aclnnMul)
    take aclTensors, whose strides are never negative, so such an operand would be copied
    first; our ufunc kernel, which gives the same bits wherever the operator computes its
    plain formula (OpDef.plain: a correctly rounded + - x in the promoted dtype, complex by
    the textbook formulas; integers wrap), reads it in place."""
    return (a.__class__ is Array and a._flip is not None) or \
        (b.__class__ is Array and b._flip is not None)


def _ufunc_for_reversed(chosen: tuple | None, a: Array | PyScalar, b: Array | PyScalar,
                        dtypes: tuple[DT, DT], ctx: Context, name: str, compute: DT,
                        ndim: int) -> DT | None:
    """Where the operator `chosen` would copy a reversed operand (_reversed) and computes its
    plain formula (OpDef.plain): the dtype our ufunc kernel computes the call in
    (library.own_elementwise); else None: the operator runs."""
    if chosen is None or not _reversed(a, b) or not chosen[0].plain(dtypes, ctx, chosen[1]):
        return None
    return library.own_elementwise(name, compute, ndim)


# What a binary function decides from its operands' dtypes alone (the promoted dtype, its
# category checked, our operator or None), by the function, the dtypes and the context's id
# (the context kept with the answer: a reused id does not match). Refusals are not kept:
# they raise from the checks each time.
_DECISIONS: dict[tuple, tuple[Context, DT, tuple | None]] = {}


def _decision(name: str, spec: Binary, da: DT, db: DT,
              be: Backend) -> tuple[Context, DT, tuple | None]:
    ctx = context(be)
    key = (name, da, db, id(ctx))
    known = _DECISIONS.get(key)
    if known is not None and known[0] is ctx:
        return known
    compute = promote(name, da, db)
    check_kind(name, spec.category, compute)
    known = (ctx, compute, binary_operator(spec.kernel, (da, db), compute, be, ctx=ctx))
    if len(_DECISIONS) > 4096:      # contexts made on the fly: start over
        _DECISIONS.clear()
    _DECISIONS[key] = known
    return known


# --------------------------------------------------------------------- entries

def _remember_ufunc(key: tuple, ctx: Context, name: str, compute: DT,
                    ops: Sequence[Array | PyScalar], out: Array, be: Backend) -> None:
    """Remember a call that library.elementwise ran as one ufunc launch."""
    kdt = library.one_launch(name, compute, ops, out)
    if kdt is None:
        return
    arrays = [_as_array(o, be) for o in ops]
    repeat.remember_family(key, ctx, ("ufunc", name, kdt), ops, arrays, out, 0)


# x ** 2 with a Python 2 (or 2.0) exponent is x * x, as in NumPy: the correctly rounded
# square, which a pow within 1 ulp may miss, at the cost of a multiply (float64 pow: about
# 110 ns an element). The dtypes whose multiply is correctly rounded on every SoC.
_SQUARED = frozenset((DT.ACL_FLOAT, DT.ACL_DOUBLE, DT.ACL_FLOAT16))


def _is_square(name: str, x1: object, x2: object) -> bool:
    return (name == "pow" and x2.__class__ in (int, float) and x2 == 2
            and x1.__class__ is Array and x1._t.dtype in _SQUARED)


# x ** c with a Python exponent c, as CANN's aclnnPowTensorScalar computes it (aclnn_pow.cpp):
# on the SoCs with its Pows kernel, for float16, bfloat16 and float32, the exponents below
# are that kernel's composites (our kernels op_pows_* in ufunc.cuh and reciprocal's 1 / x:
# sqrt x, 1 / sqrt x, x (x x), 1 / x, 1 / (x x), in float, rounded once), with the standard's
# values where sqrt's differ ((-0) ** 0.5 is +0, (-inf) ** 0.5 is +inf). 2 is x x on every SoC
# (_is_square); the rest is our pow. The Pows SoCs and exponents: CANN's CheckSupportPows.
POWS_SOCS = frozenset({"Ascend310P", "Ascend910B", "Ascend910_93"})
_POWS = {0.5: "pows_sqrt", -0.5: "pows_rsqrt", 3: "pows_cube", -1: "reciprocal",
         -2: "pows_inv_square"}


def _no_library(lib: Any, inputs: list, out: Any, dtype: DT) -> None:
    raise RuntimeError("the Pows composites run on our kernels only")


_POWS_SPECS = {k: UNARY.get(k) or Unary(k, "floating-point", _no_library) for k in _POWS.values()}


def _pows(x1: object, x2: object) -> tuple[str, DT] | None:
    """(kernel, dtype) of x1 ** x2 where CANN's Pows composite computes it, else None."""
    if x1.__class__ is not Array or x2.__class__ not in (int, float):
        return None
    kernel = _POWS.get(x2)
    if kernel is None or current_soc().name not in POWS_SOCS:
        return None
    compute = promote("pow", x1._t.dtype, scalar_dtype(x2, x1._t.dtype))
    if compute not in ufunc_family.POWS or \
            library.own_elementwise(kernel, compute, x1.ndim) != compute:
        return None
    return kernel, compute


def binary(name: str, x1: object, x2: object) -> Array:
    if name == "pow":
        if _is_square(name, x1, x2):
            return binary("multiply", x1, x1)
        pows = _pows(x1, x2)
        if pows is not None:
            kernel, compute = pows
            return library.elementwise(_POWS_SPECS[kernel], [x1], x1.shape, compute, compute,
                                       x1._st.backend)
    out, key = repeat.short_way(name, x1, x2)
    if out is not None:
        return out
    spec = BINARY[name]
    a, b = operands(name, x1, x2)
    da, db = dtype_of(a), dtype_of(b)
    be = _backend(a, b)
    if spec.result == "logical":
        check_kind(name, spec.category, da, db)
        shape = broadcast_shapes(_shape(a), _shape(b), "x1", "x2")
        return library.elementwise(spec, [a, b], shape, DT.ACL_BOOL, DT.ACL_BOOL, be)
    ctx, compute, chosen = _decision(name, spec, da, db, be)
    if _ufunc_for_reversed(chosen, a, b, (da, db), ctx, name, compute,
                           max(len(_shape(a)), len(_shape(b)))) is not None:
        chosen = None   # our ufunc kernel reads the reversed axes in place (no copy first)
    if chosen is not None:
        arrays = [_as_array(a, be), _as_array(b, be)]
        out = call_new(chosen[0], arrays, chosen[1], ctx, elementwise=True)
        if key is not None:
            repeat.remember_operator(key, ctx, chosen, (a, b), arrays, out)
        return out
    result = result_dtype(spec, compute)
    shape = broadcast_shapes(_shape(a), _shape(b), "x1", "x2")
    computing = result if spec.result == "float" else compute
    if name == "divide" and result == DT.ACL_DOUBLE and library.own_elementwise(
            _TRUE_DIVIDE.name, compute, len(shape)) == compute:
        # Integers (compute: their promoted dtype) divided in float64 in one launch, the
        # conversions fused into it (the bits of converting first; 1M int32 1.1 -> 0.4 ms).
        spec, computing = _TRUE_DIVIDE, compute
    out = library.elementwise(spec, [a, b], shape, computing, result, be)
    if key is not None:
        _remember_ufunc(key, ctx, spec.name, computing, (a, b), out, be)
    return out


CLIP = "clip"   # the clip family's call (family_plan's key, with the dtype)


def clip(x: Array, lo: Array | int | float, hi: Array | int | float,
         shape: tuple[int, ...]) -> Array | None:
    """clip(x, lo, hi) broadcast to `shape`, in x's dtype, in one launch of our clip kernel
    (maximum, then minimum, fused: their bits), the bounds taken as maximum and minimum take
    them (an array converted to x's dtype, a Python int or float as a constant of x's
    dtype). None, having done nothing, where x's dtype has no clip kernel, past the kernels'
    dims, or with a private layout (the caller composes maximum and minimum). A repeated
    call takes the short way (repeat)."""
    out, key = repeat.short_way(CLIP, x, lo, hi)
    if out is not None:
        return out
    dt = x._t.dtype
    if dt not in clip_family.DTYPES or len(shape) > MAX_DIMS or any(
            isinstance(b, Array) and b._layout is not None for b in (x, lo, hi)):
        return None
    be = x._st.backend
    ops: list[Array | PyScalar] = [x]
    for b in (lo, hi):
        ops.append(b if isinstance(b, Array) else PyScalar(b, scalar_dtype(b, dt)))
    arrays = [library.kernel_operand(o, dt, be) for o in ops]
    out = result_array(shape, dt, be, arrays)
    if out.size == 0:
        return out
    call = (CLIP, dt)
    launches = family_plan(call, [out, *arrays], be, lambda: clip_family.plan(
        be, dt, kernel_view(out), *[kernel_view(a) for a in arrays]))
    launch(be, launches, [*arrays, out])
    if key is not None and out._flip is None and all(
            not isinstance(o, Array) or o._t.dtype == dt for o in ops):
        repeat.remember_family(key, context(be), call, ops, arrays, out, 0)
    return out


def unary(name: str, x: object) -> Array:
    out, key = repeat.short_way(name, x)
    if out is not None:
        return out
    spec = UNARY[name]
    if not isinstance(x, Array):
        raise TypeError(f"{name} takes an array of npu_emu.array_api, not {type(x).__name__}")
    dt = x._t.dtype
    check_kind(name, spec.category, dt)
    if INFO[dt].kind in spec.identity:
        return convert(x, dt, keep_order=True)     # a copy, laid out as any result of x
    result = {"same": dt, "real": real_of(dt), "bool": DT.ACL_BOOL,
              "float": float_of(dt)}[spec.result]
    be = x._st.backend
    computing = result if spec.result == "float" else dt
    out = library.elementwise(spec, [x], x.shape, computing, result, be)
    if key is not None:
        _remember_ufunc(key, context(be), name, computing, (x,), out, be)
    return out


def inplace(name: str, x: Array, other: object) -> None:
    """x (op)= other: the result must keep x's dtype and shape (the standard's rule), and is
    written into x's memory."""
    check_writable(x, "x")
    if _is_square(name, x, other):
        name, other = "multiply", x
    elif name == "pow" and _pows(x, other) is not None:
        result = binary(name, x, other)
        if result.dtype != x.dtype:
            raise TypeError(f"x **= y: the result would be {result.dtype.name}, but an in-place "
                            f"operation keeps x's dtype {x.dtype.name}; write x = x ** y")
        assign(x, result)
        return
    if name == "matmul":
        result = matmul(x, other)
        if result.shape != x.shape:
            raise ValueError(f"x @= y would change x's shape {x.shape} to {result.shape}")
        assign(x, result)
        return
    done, key = repeat.short_way_into(name, x, other)
    if done:
        return
    if other.__class__ is Array and other._st is x._st and other is not x:
        # y is x's memory seen another way: the kernel may get a copy of it (not remembered).
        # x itself (x *= x, x **= 2) is read and written element by element in place.
        key = None
    spec = BINARY[name]
    a, b = operands(name, x, other)
    if not isinstance(a, Array):
        raise TypeError(f"{name}: the in-place target must be an array")
    da, db = dtype_of(a), dtype_of(b)
    compute = promote(name, da, db)
    check_kind(name, spec.category, compute)
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
    chosen = binary_operator(spec.kernel, (da, db), compute, be, inplace=True)
    if _ufunc_for_reversed(chosen, x, b, (da, db), context(be), name, compute, x.ndim) == compute:
        chosen = None   # our ufunc kernel writes x in place, reversed axes and all (below)
    if chosen is not None:
        bb = _as_array(b, be)
        d, s = aligned(x, bb)
        call(chosen[0], (d._t, s._kernel_tensor()), (d,), chosen[1], be, (bb,))
        if key is not None:
            repeat.remember_operator(key, context(be), chosen, (a, b), [x, bb], x)
        return
    if da == compute and spec.fix is None and (
            da not in VIA_FLOAT32 or library.own_elementwise(name, compute, x.ndim) == compute):
        # Our ufunc kernel or the library writes x's memory directly: x's dtype is the one
        # computed in (a fix would read x1 after the function overwrote it). A narrow float
        # only through our kernel, which computes it in float32 and rounds once (the library
        # would compute in its own type; otherwise the result is made apart and rounded back
        # through our conversion, below).
        check_library_destination(x)
        library.elementwise_into(spec, x, b, compute)
        if key is not None:
            _remember_ufunc(key, context(be), name, compute, (a, b), x, be)
        return
    assign(x, binary(name, x, other))
