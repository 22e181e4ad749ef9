"""The array API's elementwise functions on our own kernels (kernels_cuda/ufunc.cuh): the one
catalog of every function's name, arity and dtypes, the generator of the build units' sources
from it (kernels_cuda/ufunc_<unit>.cu), and the host side: plans over tensor views, and
`apply_numpy`, a function run eagerly on NumPy arrays.

Rules where the standard leaves a choice (NumPy 2's result unless said otherwise):
- integer floor_divide and remainder by zero give 0; MIN // -1 == MIN (wraps), MIN % -1 == 0;
- float floor_divide with an infinite operand is floor(x1 / x2), the standard's cases
  (+inf // 2 is +inf, -1 // +inf is -0; NumPy gives NaN and -1 there);
- shifts by a count outside [0, bits): left -> 0, right -> 0, or -1 for a negative signed value;
- integer abs, negative and square wrap (abs(MIN) == MIN);
- maximum / minimum propagate NaN; maximum(-0, +0) is +0 and minimum(-0, +0) is -0 in either
  order (NumPy's result there depends on its code path);
- sign(+-0) is +0; every NaN result is the canonical quiet NaN (docs/ufunc.md);
- functions that return their input unchanged (positive, conj / real of real inputs, rounding
  of integers, abs of unsigned) are copies: every bit kept.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .._address import array_address
from ..dtypes import BY_SHORT, INFO, aclDataType as DT, as_dtype
from ..runtime import backend as get_backend
from ..runtime.base import Backend, Launch
from . import unit_text
from .copy import View, plan_copy, pointer_arg
from .indexing import broadcast_strides, coalesce, pack_params, tiled

# ------------------------------------------------------------------------------ dtypes
BOOL = frozenset({DT.ACL_BOOL})
SIGNED = frozenset({DT.ACL_INT8, DT.ACL_INT16, DT.ACL_INT32, DT.ACL_INT64})
UNSIGNED = frozenset({DT.ACL_UINT8, DT.ACL_UINT16, DT.ACL_UINT32, DT.ACL_UINT64})
INTS = SIGNED | UNSIGNED
# f16 / bf16 compute in float32 and round back once (kernels_cuda/ufunc.cuh).
FLOATS = frozenset({DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT, DT.ACL_DOUBLE})
POWS = frozenset({DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT})   # CANN's Pows kernel's dtypes
COMPLEX = frozenset({DT.ACL_COMPLEX64, DT.ACL_COMPLEX128})
REAL = INTS | FLOATS
NUMERIC = REAL | COMPLEX

# The kernels' storage types: catalog tag -> C++ type.
C_TYPES = {
    "bool": "npu_emu::boolean", "s8": "int8_t", "s16": "int16_t", "s32": "int32_t", "s64": "int64_t",
    "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
    "f16": "npu_emu::f16", "bf16": "npu_emu::bf16", "f32": "float", "f64": "double",
    "c64": "npu_emu::c64", "c128": "npu_emu::c128",
}
_PART = {DT.ACL_COMPLEX64: DT.ACL_FLOAT, DT.ACL_COMPLEX128: DT.ACL_DOUBLE}
_WIDTH_TAG = {1: "u8", 2: "u16", 4: "u32", 8: "u64"}

SAME, TO_BOOL, TO_REAL, TO_F64 = "same", "bool", "real", "f64"   # result dtype rules
# The math library's headers, by the family name a catalog entry gives in `math`.
MATH_HEADERS = {"exp": "npu_emu_math_exp.cuh", "trig": "npu_emu_math_trig.cuh"}
# The complex functions and integer pow: overloads of the same names, built on both headers
# above (a unit with such a kernel includes this one instead).
COMPLEX_MATH_HEADER = "npu_emu_math_complex.cuh"
COMPLEX_BASIC = frozenset({"abs", "sign", "sqrt"})   # non-math functors with complex branches
# Storage type -> dtype group of the build units: a call builds the kernels of its own group
# only. Each float type apart (a float16 kernel costs g++ twice a float32 one: the
# conversions), the integers by width (the signed ones share the unsigned kernels where the
# bits agree; bool with the 8-bit ones), complex together.
INT_GROUPS = {"bool": "int8", "s8": "int8", "u8": "int8", "s16": "int16", "u16": "int16",
              "s32": "int32", "u32": "int32", "s64": "int64", "u64": "int64"}
GROUP_OF = {"f32": "f32", "f64": "f64", "f16": "f16", "bf16": "bf16", "c64": "complex",
            "c128": "complex", **INT_GROUPS}
WIDE_INDEX = 1   # IterParams::flags (ufunc.cuh): take the 64-bit body


@dataclass(frozen=True)
class Ufunc:
    """One elementwise function. `dtypes`: the input dtypes it has a kernel for (binary: both
    inputs of that dtype); `copy`: input dtypes for which it is the identity (planned as a
    copy); `by_width`: integers share the kernel of their width (the result's bits do not
    depend on signedness); `expr`: a C expression of x (a, b) to make the functor from,
    instead of op_<name> in ufunc.cuh; `math`: the family of MATH_HEADERS whose header has
    npu_emu::math::<name> (the functor, with its split form where it has one,
    npu_emu_math_split.cuh; an `expr` calling the library names its family too)."""
    name: str
    arity: int
    dtypes: frozenset
    result: str = SAME
    copy: frozenset = frozenset()
    by_width: bool = False
    expr: str = ""
    math: str = ""

    def kernel_tag(self, dtype: DT) -> str:
        if self.by_width and dtype in INTS:
            return _WIDTH_TAG[INFO[dtype].itemsize]
        return INFO[dtype].short

    def result_dtype(self, dtype: DT) -> DT:
        if self.result == TO_BOOL:
            return DT.ACL_BOOL
        if self.result == TO_REAL:
            return _PART.get(dtype, dtype)
        if self.result == TO_F64:
            return DT.ACL_DOUBLE
        return dtype

    @property
    def functor(self) -> str:
        return f"op_{self.name}"

    @property
    def family(self) -> str:
        """The family of build units its kernels go to: by arity, then by the math header it
        calls (so no unit compiles a header it does not call); binary functions with a bool
        or bitwise result apart from the arithmetic ones."""
        if self.arity == 2 and not self.math and (self.result == TO_BOOL or self.name.startswith("bitwise_")):
            return "compare"
        return f"{'unary' if self.arity == 1 else 'binary'}_{self.math or 'basic'}"

    def unit(self, dtype: DT) -> str:
        """The build unit of its kernel for `dtype`."""
        return unit_name(self.family, self.kernel_tag(dtype))

    def module(self, dtype: DT) -> str:
        return unit_module(self.unit(dtype))

    def kernel_tags(self) -> list[str]:
        """The storage types it has a kernel for, each once (by_width integers share theirs)."""
        return list(dict.fromkeys(self.kernel_tag(dt) for dt in sorted(self.dtypes)))


def kernel_name(name: str, tag: str) -> str:
    """The exported name of the kernel of function `name` on storage type `tag`."""
    return f"ufunc_{name}_{tag}"


# ----------------------------------------------------------------------------- catalog
# Every function, declared once. (A transcendental: Ufunc("exp", 1, FLOATS, math="exp"),
# npu_emu::math::exp of npu_emu_math_exp.cuh, which its unit includes.)
UFUNCS: tuple[Ufunc, ...] = (
    Ufunc("abs", 1, SIGNED | FLOATS | COMPLEX, TO_REAL, copy=UNSIGNED),
    Ufunc("negative", 1, INTS | FLOATS | COMPLEX, by_width=True),
    Ufunc("positive", 1, frozenset(), copy=NUMERIC),
    Ufunc("sign", 1, INTS | FLOATS | COMPLEX),
    Ufunc("square", 1, INTS | FLOATS | COMPLEX, by_width=True),
    Ufunc("sqrt", 1, FLOATS | COMPLEX),
    Ufunc("floor", 1, FLOATS, copy=INTS),
    Ufunc("ceil", 1, FLOATS, copy=INTS),
    Ufunc("trunc", 1, FLOATS, copy=INTS),
    Ufunc("round", 1, FLOATS | COMPLEX, copy=INTS),
    Ufunc("reciprocal", 1, FLOATS | COMPLEX),
    # x ** c by the composites of CANN's Pows kernel (ufunc.cuh op_pows_*; the array API's
    # pow with a Python exponent on the SoCs that have Pows), float16, bfloat16 and float32
    *(Ufunc(n, 1, POWS) for n in ("pows_sqrt", "pows_rsqrt", "pows_cube", "pows_inv_square")),
    Ufunc("signbit", 1, FLOATS, TO_BOOL),
    Ufunc("isnan", 1, NUMERIC, TO_BOOL, by_width=True),
    Ufunc("isinf", 1, NUMERIC, TO_BOOL, by_width=True),
    Ufunc("isfinite", 1, NUMERIC, TO_BOOL, by_width=True),
    Ufunc("conj", 1, COMPLEX, copy=REAL),
    Ufunc("real", 1, COMPLEX, TO_REAL, copy=REAL),
    Ufunc("imag", 1, COMPLEX, TO_REAL),
    Ufunc("logical_not", 1, BOOL),
    Ufunc("bitwise_invert", 1, INTS | BOOL, by_width=True),
    # add / multiply: what aclnnAdd / aclnnMul lack (the array API calls them first), and
    # complex with the operators' formulas (a reversed view, which the operators would copy).
    Ufunc("add", 2, INTS | FLOATS | COMPLEX, by_width=True),
    Ufunc("multiply", 2, INTS | FLOATS | COMPLEX, by_width=True),
    Ufunc("subtract", 2, INTS | FLOATS | COMPLEX, by_width=True),
    Ufunc("divide", 2, FLOATS | COMPLEX),
    # x1 / x2 of integers in float64: the operands converted (our casts' rule: exact below
    # 2^53, rounded to nearest beyond) and divided in one launch (the array API's divide of
    # integer arrays where the default float is float64).
    Ufunc("true_divide", 2, INTS, TO_F64),
    Ufunc("floor_divide", 2, INTS | FLOATS),
    Ufunc("remainder", 2, INTS | FLOATS),
    Ufunc("maximum", 2, INTS | FLOATS),
    Ufunc("minimum", 2, INTS | FLOATS),
    Ufunc("copysign", 2, FLOATS),
    Ufunc("nextafter", 2, FLOATS),
    Ufunc("equal", 2, NUMERIC | BOOL, TO_BOOL, by_width=True),
    Ufunc("not_equal", 2, NUMERIC | BOOL, TO_BOOL, by_width=True),
    Ufunc("less", 2, REAL, TO_BOOL),
    Ufunc("less_equal", 2, REAL, TO_BOOL),
    Ufunc("greater", 2, REAL, TO_BOOL),
    Ufunc("greater_equal", 2, REAL, TO_BOOL),
    Ufunc("logical_and", 2, BOOL, TO_BOOL),
    Ufunc("logical_or", 2, BOOL, TO_BOOL),
    Ufunc("logical_xor", 2, BOOL, TO_BOOL),
    Ufunc("bitwise_and", 2, INTS | BOOL, by_width=True),
    Ufunc("bitwise_or", 2, INTS | BOOL, by_width=True),
    Ufunc("bitwise_xor", 2, INTS | BOOL, by_width=True),
    Ufunc("bitwise_left_shift", 2, INTS, by_width=True),
    Ufunc("bitwise_right_shift", 2, INTS),
    # The transcendental functions: our math library (npu_emu_math_exp.cuh,
    # npu_emu_math_trig.cuh), float and double; f16 / bf16 through float; complex64 and
    # complex128 from the real ones (npu_emu_math_complex.cuh, which also has integer pow).
    *(Ufunc(n, 1, FLOATS | COMPLEX, math="exp") for n in (
        "exp", "expm1", "log", "log1p", "log2", "log10", "sinh", "cosh", "tanh", "asinh",
        "acosh", "atanh")),
    *(Ufunc(n, 1, FLOATS | COMPLEX, math="trig") for n in ("sin", "cos", "tan", "asin", "acos", "atan")),
    Ufunc("pow", 2, INTS | FLOATS | COMPLEX, math="exp"),
    Ufunc("logaddexp", 2, FLOATS, math="exp"),
    *(Ufunc(n, 2, FLOATS, math="trig") for n in ("atan2", "hypot")),
)
BY_NAME: dict[str, Ufunc] = {u.name: u for u in UFUNCS}


def unit_name(family: str, tag: str) -> str:
    """The build unit of a family's kernel on storage type `tag`: the family and the tag's group."""
    return f"{family}_{GROUP_OF[tag]}"


def unit_module(unit: str) -> str:
    return f"ufunc_{unit}.cu"


def units() -> dict[str, list[tuple[Ufunc, str]]]:
    """Build unit -> its (function, storage type) kernels, in catalog order."""
    made: dict[str, list[tuple[Ufunc, str]]] = {}
    for u in UFUNCS:
        for tag in u.kernel_tags():
            made.setdefault(unit_name(u.family, tag), []).append((u, tag))
    return made


# Build unit -> its module (a generated kernels_cuda/ufunc_<unit>.cu each).
MODULES: dict[str, str] = {unit: unit_module(unit) for unit in units()}
GENERATED = ("ufunc_*.cu",)   # the files generated from the catalog (npu_emu.kernels)


def lookup(name: str) -> Ufunc:
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"name={name!r} is not an elementwise function of the catalog; "
                         f"known: {', '.join(sorted(BY_NAME))}") from None


def supported_dtypes(name: str) -> frozenset:
    u = lookup(name)
    return u.dtypes | u.copy


def result_dtype(name: str, dtype: object) -> DT:
    """The output dtype of function `name` on inputs of `dtype` (comparisons -> bool, real /
    imag of complex -> the part's dtype, else the input's)."""
    u, dt = lookup(name), as_dtype(dtype)
    _check_dtype(u, dt)
    return u.result_dtype(dt)


def _check_dtype(u: Ufunc, dt: DT) -> None:
    if dt not in u.dtypes | u.copy:
        raise TypeError(f"{u.name} is not defined for {INFO[dt].short}; its dtypes: "
                        f"{', '.join(sorted(INFO[d].short for d in u.dtypes | u.copy))}")


# --------------------------------------------------------------------------- generator
def headers_of(u: Ufunc, tag: str) -> set[str]:
    """The math headers the kernel of `u` on storage type `tag` needs (ufunc.cuh aside)."""
    if (tag in ("c64", "c128") and (u.math or u.name in COMPLEX_BASIC)) or \
            (u.name == "pow" and tag in INT_GROUPS):
        return {COMPLEX_MATH_HEADER}
    return {MATH_HEADERS[u.math]} if u.math else set()


def unit_source(unit: str) -> str:
    """The text of kernels_cuda/ufunc_<unit>.cu: the templates (ufunc.cuh), the math header
    its functions call and no other, the functors its catalog entries make, then one kernel
    per (function, storage type) of the unit."""
    kernels = units()[unit]
    functions = list(dict.fromkeys(u for u, _ in kernels))
    lines = []
    for u in functions:
        if u.expr:
            lines.append(f"NPU_EMU_UFUNC_EXPR{u.arity}({u.functor}, {u.expr})")
        elif u.math:
            lines.append(f"NPU_EMU_UFUNC_MATH{u.arity}({u.functor}, {u.name})")
    for u, tag in kernels:
        out_tag = tag if u.result == SAME else INFO[u.result_dtype(BY_SHORT[tag])].short
        lines.append(f"NPU_EMU_UFUNC{u.arity}_KERNEL({kernel_name(u.name, tag)}, {u.functor}, "
                     f"{C_TYPES[tag]}, {C_TYPES[out_tag]})")
    headers = sorted({h for u, tag in kernels for h in headers_of(u, tag)})
    return unit_text("ufunc", "the catalog UFUNCS", lines,
                     about=[f"Build unit {unit}: {', '.join(u.name for u in functions)}."],
                     includes=["ufunc.cuh", *headers])


def generated() -> dict[str, str]:
    """Every build unit's kernels_cuda/ufunc_<unit>.cu."""
    return {module: unit_source(unit) for unit, module in MODULES.items()}


# ------------------------------------------------------------------------------- plans
def plan(be: Backend, name: str, out: View, ins: Sequence[View], dtype: object) -> list[Launch]:
    """Launches computing out = name(*ins), inputs of `dtype` broadcast to out.shape (views:
    address of element 0, strides in elements, any sign; out has result_dtype(name, dtype)).
    An input may be out's very view; other overlaps are the caller's to stage."""
    u, dt = lookup(name), as_dtype(dtype)
    _check_dtype(u, dt)
    if len(ins) != u.arity:
        raise ValueError(f"{name} takes {u.arity} input{'s' if u.arity > 1 else ''}, got {len(ins)}")
    out_dt = u.result_dtype(dt)
    for view, what, want in [(v, f"ins[{k}]", dt) for k, v in enumerate(ins)] + [(out, "out", out_dt)]:
        if view.itemsize != INFO[want].itemsize:
            raise ValueError(f"{what} has {view.itemsize}-byte elements; {INFO[want].short} has "
                             f"{INFO[want].itemsize}")
    check_broadcast(out, [(v, f"ins[{k}]") for k, v in enumerate(ins)])
    if out.numel == 0:
        return []
    if dt in u.copy:
        return [] if ins[0] == out else plan_copy(be, out, ins[0])
    return row_launch(be, u.module(dt), kernel_name(u.name, u.kernel_tag(dt)), out, ins,
                      max(out.itemsize, ins[0].itemsize))


def check_broadcast(out: View, ins: Sequence[tuple[View, str]]) -> None:
    """ValueError naming the first input (view, its name) that does not broadcast to out."""
    for v, what in ins:
        if len(v.shape) > len(out.shape) or any(
                m not in (1, n) for m, n in zip(v.shape[::-1], out.shape[::-1])):
            raise ValueError(f"{what} of shape {list(v.shape)} does not broadcast to out's "
                             f"shape {list(out.shape)}")


def row_launch(be: Backend, module: str, name: str, out: View, ins: Sequence[View],
               itemsize: int) -> list[Launch]:
    """The one launch of a row-walking elementwise kernel (the ufunc and select families:
    IterParams<1 + len(ins)>, then the inputs' pointers, then out's) over out's shape, the
    inputs broadcast (stride 0), dims ordered and merged by coalesce; the 64-bit body
    (WIDE_INDEX) for spaces past 2^31 elements or negative strides. `itemsize`: the widest
    operand's, for the launch geometry."""
    shape = out.shape
    space = tiled(coalesce(shape, [out.strides] + [broadcast_strides(shape, v.shape, v.strides)
                                                 for v in ins]))
    wide = not space.fits_32bit()
    pointers = [(0, out.ptr, out.itemsize)] + [(k + 1, v.ptr, v.itemsize) for k, v in enumerate(ins)]
    grid, block, run = be.space_geometry(space, itemsize, pointers=pointers)
    kernel = be.function(module, name)
    params = pack_params(space, run, flags=WIDE_INDEX if wide else 0)
    args = (params, *(pointer_arg(v.ptr) for v in ins), pointer_arg(out.ptr))
    return [Launch(kernel, (grid, 1, 1), (block, 1, 1), args)]



# ---------------------------------------------------------------------- eager helper
def _host_span(a: np.ndarray) -> tuple[np.ndarray, int]:
    """The bytes of memory a view of `a` spans, and the offset of its element 0 in them."""
    lo, hi = np.lib.array_utils.byte_bounds(a)
    span = np.frombuffer((ctypes.c_char * (hi - lo)).from_address(lo), np.uint8) if hi > lo \
        else np.zeros(0, np.uint8)
    return span, array_address(a) - lo


def apply_numpy(name: str, *arrays: np.ndarray, backend: str = "cpu", out_step: int = 1) -> np.ndarray:
    """name(*arrays) computed by our kernels on `backend`: the inputs (one dtype, any strides,
    broadcast together) copied into the runtime's pool as they lie in memory, one launch,
    the result copied back as a new C-contiguous array. `out_step` > 1 writes the result at
    that step in the last axis (the CPU's rows then compute element by element: no split
    form's lanes)."""
    u = lookup(name)
    if len(arrays) != u.arity:
        raise ValueError(f"{name} takes {u.arity} array{'s' if u.arity > 1 else ''}, got {len(arrays)}")
    arrays = tuple(np.asarray(a) for a in arrays)
    dts = {as_dtype(a.dtype, "arrays") for a in arrays}
    if len(dts) != 1:
        raise TypeError(f"{name}: the arrays must share one dtype (promote first), got "
                        f"{', '.join(str(a.dtype) for a in arrays)}")
    dt = dts.pop()
    out_dt = result_dtype(name, dt)
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    out_info = INFO[out_dt]
    be = get_backend(backend)
    wide = np.empty((*shape[:-1], shape[-1] * out_step) if shape else shape, out_info.storage)
    result = wide[..., ::out_step] if shape else wide
    blocks = []
    try:
        views = []
        for a in arrays:
            span, offset = _host_span(a)
            ptr = be.malloc(max(span.nbytes, 1))
            blocks.append(ptr)
            be.copy_from_host(ptr, span)
            views.append(View(ptr + offset, a.shape, tuple(s // a.itemsize for s in a.strides), a.itemsize))
        optr = be.malloc(max(wide.nbytes, 1))
        blocks.append(optr)
        out = View(optr, shape, tuple(s // result.itemsize for s in result.strides), result.itemsize)
        launches = plan(be, name, out, views, dt)
        stream = be.default_stream
        be.enqueue(launches, stream)
        stream.synchronize()
        be.copy_to_host(wide, optr)
    finally:
        for ptr in blocks:
            be.free(ptr)
    result = np.ascontiguousarray(result)
    return result.view(out_info.host) if out_info.host is not None else result
