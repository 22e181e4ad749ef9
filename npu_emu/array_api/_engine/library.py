"""The library path: the backend's array library (NumPy on cpu, CuPy on cuda) computing over
our arrays' own memory, in stream order, its results becoming our arrays on the same device
without a copy.

Computation types, as the NPU's vector unit computes: float16, bfloat16, the float8 types and
HiFloat8 are converted to float32 by our bit-exact cast kernels (or read exactly where the
library has the type), computed in float32, and rounded back to their own type by the same
kernels. float32, float64, complex64 and complex128 compute in their own type.

One function per kind of call (`elementwise`, `elementwise_into`, `reduce_into`,
`cumulate_into`, `arg_reduce`), and each is also where our own kernels take over: a call
whose function and dtype our ufunc family (npu_emu/kernels/ufunc.py) or reduce family
(npu_emu/kernels/reduce.py) has runs on those kernels, on either backend, with the same bits;
the library computes only what they lack (`own_elementwise`, `own_reduction` decide).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...dtypes import INFO, aclDataType as DT, as_dtype
from ...kernels import reduce as reduce_family, ufunc as ufunc_family
from ...kernels.indexing import MAX_DIMS
from ...runtime.base import Backend
from ...status import AclnnError
from . import dtypes as _dtypes, parts
from .array import Array, empty_array, external_array, library_dtype, result_array
from .device import library, library_memory, library_order, numpy_quiet, synchronize
from .dtypes import VIA_FLOAT32
from .kernel import convert, copy, family_plan, kernel_view, launch
from .scalars import PyScalar, scalar_constant, scalar_storage


def compute_dtype(dt: DT) -> DT:
    """The dtype the library computes `dt` in, and writes a result of dtype `dt` in: float32
    for the narrow floats, the dtype itself otherwise."""
    return DT.ACL_FLOAT if dt in VIA_FLOAT32 else dt


def operand(x: Array, dtype: DT) -> Any:
    """The library's view of x's values in `dtype`: x's own memory, or (another dtype) a copy
    converted by our cast kernels. Call it before `computing`, which orders the library after
    the conversion."""
    if x._t.dtype != dtype:
        x = convert(x, dtype)
    return x._values()


def library_operand(x: Array | PyScalar, ct: np.dtype | None, be: Backend) -> Array | np.generic:
    """An operand ready for the library: an array in a dtype it reads (converted by our
    kernels where it has none: HiFloat8, and bfloat16/float8 on cuda; exactly, they all fit
    in float32), or a NumPy scalar in ct (converted to its dtype first, as the NPU would).
    Call it before library_order: a conversion it enqueues must be done before the library
    reads."""
    if isinstance(x, PyScalar):
        from ...codecs import decode
        return decode(scalar_storage(x.value, x.dtype), x.dtype).astype(ct)[()]
    if library_dtype(x._t.dtype, be) is None:
        return convert(x, DT.ACL_FLOAT)
    return x


class computing:
    """Library calls in stream order with our kernels (see library_order); `with` gives the
    library. NumPy's floating-point warnings are silenced: overflow and invalid results are
    values (inf, nan) in the standard, as on the device. (A class, as library_order.)"""

    __slots__ = ("_be", "_inner")

    def __init__(self, be: Backend) -> None:
        self._be, self._inner = be, None

    def __enter__(self) -> Any:
        be = self._be
        if be.is_cpu:
            synchronize(be)           # and the results that died since released (library_order)
            self._inner = numpy_quiet()
            self._inner.__enter__()
            return np
        self._inner = library_order(be)
        self._inner.__enter__()
        return library(be)

    def __exit__(self, *exc: object) -> bool:
        self._inner.__exit__(*exc)
        return False


def acl_of_numpy(dtype: np.dtype, param: str = "obj") -> DT:
    """Our dtype of a NumPy dtype (TypeError where the namespace has none)."""
    try:
        acl = as_dtype(dtype, f"{param}.dtype")
    except AclnnError as err:
        raise TypeError(f"cannot make an array of npu_emu.array_api from NumPy dtype {dtype}: "
                        f"{err.message}") from None
    if acl not in _dtypes.BY_ACL:
        raise TypeError(f"NumPy dtype {dtype} is {acl.name}, which npu_emu.array_api has no "
                        f"dtype for")
    return acl


def shareable(a: np.ndarray, ptr0: int) -> bool:
    """Whether a kernel can address a NumPy array's elements in place (`ptr0`: the address
    of its element 0): element-aligned, strides whole elements, native byte order."""
    item = a.dtype.itemsize
    if a.size == 0 or not a.dtype.isnative:
        return False
    if ptr0 % min(item, 8):
        return False
    return all(s % item == 0 for s in a.strides)


# The library's own results up to this size are copied into the pool (adopt).
COPY_RESULTS_UP_TO = 64 << 10


def adopt(lib_array: Any, dtype: DT, be: Backend, readonly: bool = False,
          shared: bool = True, ptr0: int | None = None) -> Array:
    """An Array over a NumPy (cpu) or CuPy (cuda) array's memory, without a copy; the array
    is kept alive and its memory registered with the allocator while the Array lives.
    shared=False for the library's own results (nobody else holds them): on the cpu backend
    those up to COPY_RESULTS_UP_TO bytes are copied into a new pool array instead (writable,
    whatever `readonly` says: nobody else sees it). `ptr0`: the address of its element 0,
    when the caller has read it already (NumPy builds a dict to tell it)."""
    if lib_array.size == 0:
        return empty_array(lib_array.shape, dtype, be)
    if not shared and be.is_cpu and lib_array.nbytes <= COPY_RESULTS_UP_TO:
        # A small result of the library's own: copied into the pool, which costs about 13 us
        # less than registering its memory and releasing it again (a sort of 300 float64:
        # 36 -> 22 us). Nobody else holds it, so nobody sees the copy.
        out = empty_array(lib_array.shape, dtype, be)
        be.copy_from_host(out._st.ptr, lib_array)
        return out
    lo, nbytes, ptr0 = library_memory(lib_array, ptr0)
    item = INFO[dtype].itemsize
    return external_array(lo, nbytes, ptr0, lib_array.shape,
                          [s // item for s in lib_array.strides], dtype, be, lib_array,
                          readonly, shared)


def compressed(mask: np.ndarray, values: np.ndarray, count: int,
               out: np.ndarray | None = None) -> np.ndarray:
    """values[mask] for 1-D NumPy arrays (`count`: how many of the mask are set), into `out`
    when given: NumPy's compress where between 5 % and 90 % of the mask is set, its boolean
    indexing where nearly none or nearly all is. Boolean indexing branches on each element:
    1M float32 at 38 % took 4.3 ms, compress 1.3; but compress makes an index array first:
    at 100 % 2.2 ms, boolean indexing 0.66 (2026-12-07)."""
    if 0.05 * mask.size <= count <= 0.9 * mask.size:
        return np.compress(mask, values, out=out)
    if out is None:
        return values[mask]
    out[...] = values[mask]
    return out


def in_parts(shape: Sequence[int], dtype: DT, be: Backend, piece: Any, n: int, k: int,
             axis: int = 0) -> Array:
    """A new array of `shape` and `dtype` made by a library call on each of k parts of its
    `axis` (n long) at once (parts.run, inside `computing`): the part at slice s is
    piece(s), a NumPy array of that part's shape holding `dtype`'s storage bits."""
    out = empty_array(shape, dtype, be)
    lead = (slice(None),) * axis
    with computing(be):
        o = out._raw()
        parts.run(lambda s: o.__setitem__(lead + (s,), piece(s)), n, k)
    return out


def raw_result(value: Any, dtype: DT, be: Backend) -> Array:
    """Our array over a new library array (never a view of an input) holding `dtype`'s
    storage bits, as a gather over raw storage gives: no copy, no conversion."""
    return adopt(library(be).asarray(value), dtype, be, shared=False)


def result(value: Any, dtype: DT, be: Backend) -> Array:
    """Our array over a library result, without a copy, in `dtype` (our cast kernels convert
    it when the library computed another type). `value` must be memory the library made
    (a new array or a view of one), never a view of an input."""
    lib = library(be)
    value = lib.asarray(value)          # NumPy gives scalars for 0-d results
    got = acl_of_numpy(value.dtype, "result")
    readonly = be.is_cpu and not value.flags.writeable
    out = adopt(value, got, be, readonly=readonly, shared=False)
    return out if got == dtype else convert(out, dtype)


# ------------------------------------------------------------- the kinds of call

def _view(x: Array | np.generic) -> Any:
    return x._values() if isinstance(x, Array) else x


def apply(be: Backend, spec: Any, inputs: list, out: Any, ct: np.dtype, dtype: DT) -> None:
    """The library function of an elementwise `spec` (its `library`: a ufunc name or a
    writer, and its special-case `fix`) on `inputs` (computing in ct) into `out`. Call
    inside library_order."""
    lib = library(be)
    with numpy_quiet():
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


# Functions whose narrow-float results are not float32's rounded back (nextafter steps in the
# type's own precision): no float32 kernel for the float8 types and HiFloat8.
_OWN_PRECISION = frozenset({"nextafter"})
SIGNED_INTS = ufunc_family.SIGNED


def own_elementwise(name: str, compute: DT, ndim: int) -> DT | None:
    """The dtype our ufunc kernel of `name` runs in for a call computed in `compute`: compute
    itself where the family has it (float16 / bfloat16 compute in float32 inside the kernel
    and round once), float32 for the float8 types and HiFloat8 (converted exactly, rounded
    back by our conversion); None: the library computes it."""
    u = ufunc_family.BY_NAME.get(name)
    if u is None or ndim > MAX_DIMS:
        return None
    have = u.dtypes | u.copy
    if compute in have:
        return compute
    if compute in VIA_FLOAT32 and DT.ACL_FLOAT in have and name not in _OWN_PRECISION:
        return DT.ACL_FLOAT
    return None


def kernel_operand(x: Array | PyScalar, dtype: DT, be: Backend) -> Array:
    """An operand of a ufunc kernel: an array of `dtype` (a Python scalar becomes a 0-d
    array of its own dtype first, then is converted, as the NPU would)."""
    if isinstance(x, PyScalar):
        x = scalar_constant(x.value, x.dtype, be)
    if x._t.dtype == dtype:
        return x
    # a reversed view stays one (the kernel reads it in place): no copy of x first
    return convert(x, dtype, keep_order=x._flip is not None)


def _refuse_negative_exponent(exponent: Array | PyScalar) -> None:
    """Integer pow: a negative exponent is refused, as NumPy refuses it (the standard leaves
    the result undefined; the kernel would give 1 / x^|n| truncated)."""
    if isinstance(exponent, PyScalar):
        lowest = exponent.value
    elif exponent.size == 0:
        return
    else:   # the smallest exponent, by our min kernel
        out = empty_array((), exponent._t.dtype, exponent._st.backend)
        reduce_into("min", exponent, out, tuple(range(exponent.ndim)), False)
        lowest = int(out)
    if lowest < 0:
        raise ValueError("pow: x2 has a negative value; integers to negative integer powers "
                         "are not allowed")


def _checks_values(name: str, kdt: DT) -> bool:
    """Whether our kernel's call of `name` in kdt reads its operands' values first."""
    return name == "pow" and kdt in SIGNED_INTS


def _ufunc(name: str, kdt: DT, ins: list[Array], out: Array, be: Backend) -> None:
    if _checks_values(name, kdt):
        _refuse_negative_exponent(ins[1])
    launches = family_plan(("ufunc", name, kdt), [out, *ins], be, lambda: ufunc_family.plan(
        be, name, kernel_view(out), [kernel_view(x) for x in ins], kdt))
    launch(be, launches, [*ins, out])


def elementwise(spec: Any, ops: list[Array | PyScalar], shape: tuple[int, ...], compute: DT,
                result: DT, be: Backend) -> Array:
    """An elementwise function: operands computed in `compute`'s computation type, broadcast
    to `shape`, into a new array of dtype `result`; on our ufunc kernel where there is one."""
    kdt = own_elementwise(spec.name, compute, len(shape))
    if kdt is not None:
        ins = [kernel_operand(o, kdt, be) for o in ops]
        got = ufunc_family.result_dtype(spec.name, kdt)
        out = result_array(shape, got, be, ops)
        _ufunc(spec.name, kdt, ins, out, be)
        return out if got == result else convert(out, result)
    ct = library_dtype(compute_dtype(compute), be)
    held = compute_dtype(result)
    out = result_array(shape, held, be, ops)
    prepared = [library_operand(o, ct, be) for o in ops]
    with library_order(be):
        apply(be, spec, [_view(o) for o in prepared], out._values(), ct, result)
    return out if held == result else convert(out, result)


def one_launch(name: str, compute: DT, ops: Sequence[Array | PyScalar], out: Array) -> DT | None:
    """The dtype our ufunc kernel ran in when elementwise(name, ops, ..., compute, ...) gave
    `out` in one launch on the operands as they are (none converted before it, the result
    not converted after, no values read first), else None."""
    kdt = own_elementwise(name, compute, out.ndim)
    if kdt is None or out._flip is not None or _checks_values(name, kdt) \
            or ufunc_family.result_dtype(name, kdt) != out._t.dtype:
        return None
    for o in ops:
        if (o._t.dtype if isinstance(o, Array) else o.dtype) != kdt:
            return None
    return kdt


def elementwise_into(spec: Any, x: Array, other: Array | PyScalar, compute: DT) -> None:
    """x = spec(x, other) written into x's memory (x's dtype is `compute`, the result's),
    by our ufunc kernel where there is one for that dtype, else by the library (then
    `compute` must be one the library computes in: not a narrow float)."""
    be = x._st.backend
    if own_elementwise(spec.name, compute, x.ndim) == compute:
        y = kernel_operand(other, compute, be)
        if y._st is x._st and kernel_view(y) != kernel_view(x):
            y = copy(y)     # the kernel may read only out's very view while writing it
        _ufunc(spec.name, compute, [x, y], x, be)
        return
    ct = library_dtype(compute_dtype(compute), be)
    op = library_operand(other, ct, be)
    with library_order(be):
        apply(be, spec, [x._values(), _view(op)], x._values(), ct, compute)


# ------------------------------------------------------------------ reductions

# The library's reduction name -> the reduce family's function (and sum_of_squares, which
# the library lacks: our kernels only, sum_of_squares below).
_REDUCTIONS = {"sum": "sum", "prod": "prod", "mean": "mean", "std": "std", "var": "var",
               "sum_of_squares": "sum_of_squares",
               "min": "min", "max": "max", "all": "all", "any": "any", "argmin": "argmin",
               "argmax": "argmax", "cumsum": "cumulative_sum", "cumprod": "cumulative_prod"}


def own_reduction(fname: str, src: DT, out: DT, ndim: int) -> DT | None:
    """The input dtype our reduce kernel of the library's `fname` runs on for a src of dtype
    `src` into a result of dtype `out`: src itself where the family has the pair, else `out`
    (src converted first: the engine converts whatever is not exact in `out`), float32 for the
    float8 types and HiFloat8 (exact), bool as uint8 for argmin / argmax (the same order);
    None: the library computes it."""
    name = _REDUCTIONS.get(fname)
    if name is None or ndim > reduce_family.MAX_DIMS:
        return None
    pairs = reduce_family.supported(name)
    arg = name in ("argmin", "argmax")
    for candidate in (src, None if arg else out, DT.ACL_FLOAT if src in VIA_FLOAT32 else None,
                      DT.ACL_UINT8 if arg and src == DT.ACL_BOOL else None):
        if candidate is not None and (candidate, out) in pairs:
            return candidate
    return None


def _reduce(fname: str, src: Array, kdt: DT, out: Array, drop: tuple[int, ...],
            axes: tuple[int, ...], **kw: Any) -> None:
    be = src._st.backend
    x = src if src._t.dtype == kdt else convert(src, kdt)
    p = family_plan(reduce_call(fname, kdt, drop, axes, kw), [x, out], be,
                    lambda: reduce_family.plan(be, _REDUCTIONS[fname], kernel_view(x), kdt,
                                               kernel_view(out, drop), out._t.dtype, axes, **kw))
    launch(be, p.launches, [x, out], p.workspace_size)


def reduce_call(fname: str, kdt: DT, drop: tuple[int, ...], axes: tuple[int, ...],
                kw: dict[str, Any]) -> tuple:
    """The reduce family's call (kernel.family_plan's `call`) of one reduction."""
    return ("reduce", fname, kdt, drop, axes, tuple(sorted(kw.items())))


def own_reduce(fname: str, src: Array, out: Array, axes: tuple[int, ...], keepdims: bool,
               **extra: Any) -> tuple[DT, dict[str, Any]] | None:
    """(the dtype our reduce kernel runs on, its parameters) when reduce_into's reduction
    runs on it, else None (the library's)."""
    kdt = own_reduction(fname, src._t.dtype, out._t.dtype, src.ndim)
    if kdt is None:
        return None
    return kdt, ({"correction": float(extra.get("ddof", 0.0))} if fname in ("std", "var") else {})


def reduce_into(fname: str, src: Array, out: Array, axes: tuple[int, ...], keepdims: bool,
                ct: np.dtype | None = None, **extra: Any) -> None:
    """out = the reduction `fname` (sum, prod, mean, std, var, min, max, all, any) of src over
    `axes`, accumulating in ct (None: src's own type): our reduce kernel where it has src's
    and out's dtypes (std / var: extra's ddof is its correction), else the library."""
    own = own_reduce(fname, src, out, axes, keepdims, **extra)
    if own is not None:
        _reduce(fname, src, own[0], out, axes if keepdims else (), axes, **own[1])
        return
    be = src._st.backend
    kw = {} if ct is None else {"dtype": ct}
    with computing(be) as lib:
        getattr(lib, fname)(src._values(), axis=axes, out=out._values(), keepdims=keepdims,
                            **kw, **extra)


def sum_of_squares(x: Array, dtype: DT, axes: tuple[int, ...], keepdims: bool) -> Array | None:
    """The sum of x * x over `axes` in `dtype` (x real, in dtype or exact in it), in one pass
    of our reduce kernel: the bits of multiply then sum in dtype, with no array of the squares.
    None where the family has no kernel for x's dtype (the caller composes the two)."""
    if own_reduction("sum_of_squares", x._t.dtype, dtype, x.ndim) != x._t.dtype:
        return None
    shape = tuple(1 if k in axes else n for k, n in enumerate(x.shape) if keepdims or k not in axes)
    out = empty_array(shape, dtype, x._st.backend)
    _reduce("sum_of_squares", x, x._t.dtype, out, axes if keepdims else (), axes)
    return out


def arg_reduce(fname: str, src: Array, out: Array, axis: int | None, keepdims: bool) -> None:
    """out (the index dtype) = argmin / argmax of src along axis (None: the C-order
    flattening), the first index of the extremum: our reduce kernel, else the library."""
    kdt = own_reduction(fname, src._t.dtype, out._t.dtype, src.ndim)
    if kdt is not None:
        axes = tuple(range(src.ndim)) if axis is None else (axis,)
        _reduce(fname, src, kdt, out, axes if keepdims else (), axes)
        return
    v = operand(src, compute_dtype(src._t.dtype))
    with computing(src._st.backend) as lib:
        value = getattr(lib, fname)(v, axis=axis, keepdims=keepdims)
        out._values()[...] = value


def cumulate_into(fname: str, src: Array, out: Array, axis: int, ct: np.dtype,
                  include_initial: bool, identity: float) -> None:
    """out = the cumulative `fname` (cumsum, cumprod) of src along axis, accumulating in ct,
    after a leading `identity` where include_initial: our reduce kernel where it has src's
    and out's dtypes, else the library."""
    kdt = own_reduction(fname, src._t.dtype, out._t.dtype, src.ndim)
    if kdt is not None:
        _reduce(fname, src, kdt, out, (), (axis,), include_initial=include_initial)
        return
    with computing(src._st.backend) as lib:
        view = out._values()
        lead = (slice(None),) * axis
        if include_initial:
            view[lead + (slice(0, 1),)] = identity
            view = view[lead + (slice(1, None),)]
        if view.size:
            getattr(lib, fname)(src._values(), axis=axis, dtype=ct, out=view)
