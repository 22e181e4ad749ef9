"""The library path: the backend's array library (NumPy on cpu, CuPy on cuda) computing over
our arrays' own memory, in stream order, its results becoming our arrays on the same device
without a copy.

Computation types, as the NPU's vector unit computes: float16, bfloat16, the float8 types and
HiFloat8 are converted to float32 by our bit-exact cast kernels (or read exactly where the
library has the type), computed in float32, and rounded back to their own type by the same
kernels. float32, float64, complex64 and complex128 compute in their own type.

One function per kind of call (`elementwise`, `reduce_into`, `cumulate_into`): a kernel path
of our own replaces the library for a kind of call by taking over that one function.
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np

from ...dtypes import INFO, aclDataType as DT, as_dtype
from ...runtime.base import Backend
from ...status import AclnnError
from . import dtypes as _dtypes
from .array import Array, empty_array, external_array, library_dtype
from .device import library, library_memory, library_order
from .dtypes import VIA_FLOAT32
from .kernel import convert
from .scalars import PyScalar, scalar_storage


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


def adopt(lib_array: Any, dtype: DT, be: Backend, readonly: bool = False,
          shared: bool = True) -> Array:
    """An Array over a NumPy (cpu) or CuPy (cuda) array's memory, without a copy; the array
    is kept alive and its memory registered with the allocator while the Array lives.
    shared=False for the library's own results (nobody else holds them)."""
    if lib_array.size == 0:
        return empty_array(lib_array.shape, dtype, be)
    lo, nbytes, ptr0 = library_memory(lib_array)
    item = INFO[dtype].itemsize
    return external_array(lo, nbytes, ptr0, lib_array.shape,
                          [s // item for s in lib_array.strides], dtype, be, lib_array,
                          readonly, shared)


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


def elementwise(spec: Any, ops: list[Array | PyScalar], shape: tuple[int, ...], compute: DT,
                result: DT, be: Backend) -> Array:
    """An elementwise function on the library: operands computed in `compute`'s computation
    type, broadcast to `shape`, into a new array of dtype `result`."""
    ct = library_dtype(compute_dtype(compute), be)
    held = compute_dtype(result)
    out = empty_array(shape, held, be)
    prepared = [library_operand(o, ct, be) for o in ops]
    with library_order(be):
        apply(be, spec, [_view(o) for o in prepared], out._values(), ct, result)
    return out if held == result else convert(out, result)


def elementwise_into(spec: Any, x: Array, other: Array | PyScalar, compute: DT) -> None:
    """x = spec(x, other) written into x's memory by the library (x's dtype is `compute`,
    one the library computes in: not a narrow float)."""
    be = x._st.backend
    ct = library_dtype(compute_dtype(compute), be)
    op = library_operand(other, ct, be)
    with library_order(be):
        apply(be, spec, [x._values(), _view(op)], x._values(), ct, compute)


def reduce_into(fname: str, src: Array, out: Array, axes: tuple[int, ...], keepdims: bool,
                ct: np.dtype | None = None, **extra: Any) -> None:
    """out = the library's reduction `fname` (sum, prod, mean, std, var, min, max, all, any)
    of src over `axes`, accumulating in ct (None: src's own type)."""
    be = src._st.backend
    kw = {} if ct is None else {"dtype": ct}
    with computing(be) as lib:
        getattr(lib, fname)(src._values(), axis=axes, out=out._values(), keepdims=keepdims,
                            **kw, **extra)


def cumulate_into(fname: str, src: Array, out: Any, axis: int, ct: np.dtype) -> None:
    """out (a library view) = the library's cumulative `fname` (cumsum, cumprod) of src along
    axis, accumulating in ct. Call inside computing."""
    getattr(library(src._st.backend), fname)(src._values(), axis=axis, dtype=ct, out=out)
