"""Creation functions: asarray (host data, other libraries' arrays, without a copy where the
memory can be shared), empty / zeros / ones / full and their *_like forms, from_dlpack,
and moving an array between devices.

Sharing: on the cpu backend device memory is host memory, so asarray of a NumPy array (or
any buffer-protocol object) views its memory, registered with the allocator so operators
accept it (copy=True copies). On cuda, host data is uploaded (copy=False refuses).
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ..dtypes import BOOL, COMPLEX, FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT
from ..kernels import triangle as triangle_family
from ..runtime.base import Backend
from ._engine import dtypes as _dtypes
from ._engine.args import array_arg, shape_arg
from ._engine.array import Array, empty_array, is_scalar, standard_sequence
from ._engine.asarray import asarray, from_dlpack, upload
from ._engine.device import backend_for
from ._engine.dtypes import DType, to_dtype
from ._engine.kernel import along, assign, convert, copy_into, family_plan, launch
from ._engine.library import compute_dtype, computing, raw_result, result
from ._engine.scalars import TAKES, python_value, scalar_constant, scalar_value


def _dtype_or(dtype: object, default: DType) -> DType:
    return default if dtype is None else to_dtype(dtype)


# ------------------------------------------------------------------ adopting memory


# --------------------------------------------------------------- empty, zeros, full

def empty(shape: object, *, dtype: object = None, device: object = None) -> Array:
    """An uninitialized array from the pool."""
    return empty_array(shape_arg(shape, sizes=True), _dtype_or(dtype, _dtypes.default_float()).acl_dtype,
                       backend_for(device))


# From this many bytes zeros fills by the copy kernel (its threads; a memset is one call on
# the host's thread): 1024 x 1024 float64 0.33 -> 0.20 ms on two threads, where a short one
# costs more that way (16 elements 8 -> 14 us).
ZEROS_BY_KERNEL = 1 << 20


def zeros(shape: object, *, dtype: object = None, device: object = None) -> Array:
    """Zeros: the pool block cleared in stream order (zero bits are 0 in every dtype); a
    large one of a standard dtype (bool, integers, floats, complex, whose 0 is all zero
    bits) by one InplaceCopy of a 0-d zero, as full."""
    out = empty(shape, dtype=dtype, device=device)
    if out.size:
        be = out._st.backend
        nbytes = out.size * out._t.itemsize
        if nbytes >= ZEROS_BY_KERNEL and out._t.dtype in _ZERO_IS_ZERO_BITS:
            assign(out, scalar_constant(False if out._t.dtype == DT.ACL_BOOL else 0,
                                        out._t.dtype, be))
        else:
            be.memset(out._st.ptr, 0, nbytes, be.default_stream)
    return out


_ZERO_IS_ZERO_BITS = frozenset({
    DT.ACL_BOOL, DT.ACL_INT8, DT.ACL_INT16, DT.ACL_INT32, DT.ACL_INT64, DT.ACL_UINT8,
    DT.ACL_UINT16, DT.ACL_UINT32, DT.ACL_UINT64, DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT,
    DT.ACL_DOUBLE, DT.ACL_COMPLEX64, DT.ACL_COMPLEX128})


def _fill_dtype(fill_value: object, dtype: object) -> DType:
    value = python_value(fill_value)
    kind = {bool: BOOL, int: SIGNED, float: FLOATING, complex: COMPLEX}[type(value)]
    if dtype is None:
        return _dtypes.default_of_kind(kind)
    dt = to_dtype(dtype)
    if dt.kind not in TAKES[kind]:
        raise TypeError(f"full: fill_value {fill_value!r} ({type(value).__name__}) does not fit "
                        f"dtype {dt.name}")
    return dt


def full(shape: object, fill_value: object, *, dtype: object = None,
         device: object = None) -> Array:
    """An array filled with `fill_value` (one InplaceCopy of a 0-d source: broadcast + copy).
    A 0-d array as fill_value gives its value, and its dtype when dtype is None."""
    if isinstance(fill_value, Array) and dtype is None:
        dtype = fill_value.dtype
    fill_value = scalar_value(fill_value, "full", "fill_value")
    dt = _fill_dtype(fill_value, dtype)
    value = python_value(fill_value)
    if dt.kind in (SIGNED, UNSIGNED):
        limits = np.iinfo(INFO[dt.acl_dtype].storage)
        if not limits.min <= value <= limits.max:
            raise OverflowError(f"full: fill_value {value} is outside the range of {dt.name}")
    out = empty(shape, dtype=dt, device=device)
    if out.size:
        assign(out, scalar_constant(value, dt.acl_dtype, out._st.backend))
    return out


def ones(shape: object, *, dtype: object = None, device: object = None) -> Array:
    dt = _dtype_or(dtype, _dtypes.default_float())
    return full(shape, True if dt.kind == BOOL else 1, dtype=dt, device=device)


def _like(x: Array, dtype: object, device: object) -> tuple[tuple[int, ...], DType, object]:
    array_arg("", x)
    return x.shape, x.dtype if dtype is None else to_dtype(dtype), \
        x.device if device is None else device


def empty_like(x: Array, /, *, dtype: object = None, device: object = None) -> Array:
    shape, dt, dev = _like(x, dtype, device)
    return empty(shape, dtype=dt, device=dev)


def zeros_like(x: Array, /, *, dtype: object = None, device: object = None) -> Array:
    shape, dt, dev = _like(x, dtype, device)
    return zeros(shape, dtype=dt, device=dev)


def ones_like(x: Array, /, *, dtype: object = None, device: object = None) -> Array:
    shape, dt, dev = _like(x, dtype, device)
    return ones(shape, dtype=dt, device=dev)


def full_like(x: Array, /, fill_value: object, *, dtype: object = None,
              device: object = None) -> Array:
    shape, dt, dev = _like(x, dtype, device)
    return full(shape, fill_value, dtype=dt, device=dev)


# ------------------------------------------------------------- ranges and grids

def _int(value: object, name: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={value!r} is a bool, not an int")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name}={value!r} is not an int") from None


def _size(value: object, name: str) -> int:
    n = _int(value, name)
    if n < 0:
        raise ValueError(f"{name}={n} is negative")
    return n


def _real_number(value: object, fname: str, name: str) -> int | float:
    value = scalar_value(value, fname, name)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise TypeError(f"{fname}: {name}={value!r} is not an int or a float")
    return python_value(value)  # type: ignore[return-value]


def _computed(dt: DType, be: Backend, compute: Any) -> Array:
    """Our array of `dt` from compute(lib, library dtype): the narrow floats are computed in
    float32 (the NPU's computation type) and rounded by our cast kernels."""
    ct = compute_dtype(dt.acl_dtype)
    with computing(be) as lib:
        value = compute(lib, INFO[ct].host)
    return result(value, dt.acl_dtype, be)


# The floating progressions (arange and linspace of a floating or complex dtype) are computed
# on the host by NumPy's elementwise operations, each rounding once, in the formulas of
# NumPy's own arange and linspace (no fused multiply-add), then placed on the device: the
# same bits on every host and on both backends. (CuPy's own arange and linspace compute
# `start + i * step` in a kernel its compiler fuses, and NumPy's fill loop may be fused where
# the host's baseline ISA has FMA.) Integer progressions are exact: the library's.

# Elements of a progression computed at a time (_filled): 512 KiB of float64, in L2.
_CHUNK = 1 << 16


def _filled(n: int, t: type, be: Backend, fill: Any) -> Array:
    """A new 1-D array of n values of host float type t (float32 or float64) that
    `fill(y, i0)` writes, chunk by chunk, into y = elements [i0, i0 + len(y)): on the cpu
    backend y is the array's own memory (no host array, no upload), else a host array,
    uploaded. A chunk stays in cache and no array of n temporaries is made (each fresh one
    costs its page faults: a 1M float32 arange took 2.0 ms through them, NumPy's 0.6)."""
    dt = {np.float32: DT.ACL_FLOAT, np.float64: DT.ACL_DOUBLE}[t]
    out = empty_array((n,), dt, be)
    with computing(be):
        y = out._raw() if be.is_cpu else np.empty(n, t)
        _fill_chunks(y, fill)
    if not be.is_cpu and n:
        be.copy_from_host(out._st.ptr, y, be.default_stream)
    return out


def _fill_chunks(y: np.ndarray, fill: Any) -> None:
    """fill(y[i0:i0 + _CHUNK], i0) over the whole of the 1-D y."""
    for i0 in range(0, y.size, _CHUNK):
        fill(y[i0:i0 + _CHUNK], i0)


def _index_chunk(y: np.ndarray, i0: int) -> np.ndarray:
    """y = i0, i0 + 1, ... in y's type, each rounded to nearest where the type cannot hold
    it (the sum of two exact values, i0 a multiple of 2^16: one correct rounding)."""
    base = _BASES.get(y.dtype.type)
    if base is None:
        base = _BASES[y.dtype.type] = np.arange(_CHUNK, dtype=y.dtype)   # exact: below 2^24
    return np.add(base[:y.size], y.dtype.type(i0), out=y)


_BASES: dict[type, np.ndarray] = {}


def _arange_into(start: float, stop: float, step: float, t: type) -> tuple[int, Any]:
    """NumPy's float arange in type t: n = ceil((stop - start) / step) values (at least one
    where that quotient underflows to 0 on the way to stop), the first two start and start +
    step (each rounded to t), then start + i * delta with delta the difference of those two
    in t, each operation rounded once. (n, the chunk fill for _filled.)"""
    q = (stop - start) / step
    if not math.isfinite(q):
        raise ValueError(f"arange: start={start!r}, stop={stop!r}, step={step!r} give no finite "
                         f"number of values ((stop - start) / step = {q!r})")
    n = max(0, math.ceil(q))
    if n == 0 and stop != start and (stop > start) == (step > 0):
        n = 1                      # a step so long that the quotient rounds to 0: start alone
    first, second = t(start), t(start + step)
    with np.errstate(all="ignore"):
        delta = second - first

    def fill(y: np.ndarray, i0: int) -> None:
        _index_chunk(y, i0)
        np.multiply(y, delta, out=y)
        np.add(y, first, out=y)
        if i0 == 0:
            y[:2] = (first, second)[:y.size]
    return n, fill


def _linspace_into(start: float, stop: float, num: int, endpoint: bool) -> Any:
    """NumPy's linspace of Python floats, in float64: i * step + start with step = (stop -
    start) / div (div = num - 1 with the endpoint, else num), or (i / div) * delta where that
    step underflows to 0; the endpoint stop itself. (The chunk fill for _filled.)"""
    div = num - 1 if endpoint else num
    with np.errstate(all="ignore"):
        delta = stop - start
        step = delta / div if div > 0 else 0.0

    def fill(y: np.ndarray, i0: int) -> None:
        _index_chunk(y, i0)
        if div > 0 and step == 0:
            np.divide(y, div, out=y)
            np.multiply(y, delta, out=y)
        else:                                   # num <= 1: i * delta, start alone
            np.multiply(y, step if div > 0 else delta, out=y)
        np.add(y, start, out=y)
        if endpoint and num > 1 and i0 + y.size == num:
            y[-1] = stop
    return fill


def arange(start: int | float, /, stop: int | float | None = None, step: int | float = 1, *,
           dtype: object = None, device: object = None) -> Array:
    """start, start + step, ... up to stop (not included): ceil((stop - start) / step)
    values. The default dtype: the default float when any argument is a float, else the
    default integer (int64)."""
    if stop is None:
        start, stop = 0, start
    args = [_real_number(v, "arange", n) for v, n in ((start, "start"), (stop, "stop"),
                                                       (step, "step"))]
    if args[2] == 0:
        raise ValueError("arange: step=0 gives no progression")
    if dtype is None:
        dt = _dtypes.default_float() if any(isinstance(v, float) for v in args) \
            else _dtypes.DEFAULT_INT
    else:
        dt = to_dtype(dtype)
    if dt.kind not in (SIGNED, UNSIGNED, FLOATING):
        raise TypeError(f"arange: dtype={dt.name}; arange makes real numeric arrays")
    be = backend_for(device)
    if dt.kind == FLOATING:   # computed in float32 (narrow floats) or float64, our rounding
        t = INFO[compute_dtype(dt.acl_dtype)].host.type
        n, fill = _arange_into(*map(float, args), t)
        x = _filled(n, t, be, fill)
        return x if x._t.dtype == dt.acl_dtype else convert(x, dt.acl_dtype)
    return _computed(dt, be, lambda lib, ct: lib.arange(*args, dtype=ct))


def linspace(start: int | float | complex, stop: int | float | complex, /, num: int, *,
             dtype: object = None, device: object = None, endpoint: bool = True) -> Array:
    """num evenly spaced values from start to stop (included when endpoint). The default
    dtype: the default complex when start or stop is complex, else the default float."""
    start, stop = (scalar_value(start, "linspace", "start"),
                   scalar_value(stop, "linspace", "stop"))
    for v, n in ((start, "start"), (stop, "stop")):
        if isinstance(v, (bool, np.bool_)) or not is_scalar(v):
            raise TypeError(f"linspace: {n}={v!r} is not a number")
    num = _size(num, "num")
    is_complex = any(isinstance(v, (complex, np.complexfloating)) for v in (start, stop))
    if dtype is None:
        dt = _dtypes.default_complex() if is_complex else _dtypes.default_float()
    else:
        dt = to_dtype(dtype)
    if dt.kind == BOOL or (is_complex and dt.kind != COMPLEX):
        raise TypeError(f"linspace: dtype={dt.name} cannot hold the values from {start!r} to "
                        f"{stop!r}")
    lo, hi = python_value(start), python_value(stop)
    be = backend_for(device)
    if dt.kind == COMPLEX:     # the parts apart, on the host
        lo, hi = complex(lo), complex(hi)
        values = np.empty(num, np.complex128)
        for part, a, b in ((values.real, lo.real, hi.real), (values.imag, lo.imag, hi.imag)):
            _fill_chunks(part, _linspace_into(a, b, num, bool(endpoint)))
        return upload(values, dt.acl_dtype, be)    # rounded as our casts round
    x = _filled(num, np.float64, be, _linspace_into(float(lo), float(hi), num, bool(endpoint)))
    return x if x._t.dtype == dt.acl_dtype else convert(x, dt.acl_dtype)


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: object = None,
        device: object = None) -> Array:
    """Ones on the k-th diagonal, zeros elsewhere: the zeroed block, then one InplaceCopy of
    a 0-d one into the diagonal's strided view."""
    rows = _size(n_rows, "n_rows")
    cols = rows if n_cols is None else _size(n_cols, "n_cols")
    k = _int(k, "k")
    out = zeros((rows, cols), dtype=dtype, device=device)
    row0, col0 = (0, k) if k >= 0 else (-k, 0)
    length = max(0, min(rows - row0, cols - col0))
    if length:
        be = out._st.backend
        diagonal = out._view((length,), (cols + 1,), row0 * cols + col0)
        assign(diagonal, scalar_constant(True if out.dtype.kind == BOOL else 1, out._t.dtype, be))
    return out


def meshgrid(*arrays: Array, indexing: str = "xy") -> list[Array]:
    """Coordinate grids from 1-D arrays of one dtype: "xy" (Cartesian: the first two axes
    swapped) or "ij" (matrix) indexing. Each grid is a new array, one InplaceCopy of its
    array broadcast over the others' axes."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing={indexing!r}; use 'xy' or 'ij'")
    xs = []
    for i, a in enumerate(arrays):
        if not isinstance(a, Array):
            raise TypeError(f"meshgrid: arrays[{i}] is a {type(a).__name__}, not an array of "
                            f"npu_emu.array_api")
        if a.ndim != 1:
            raise ValueError(f"meshgrid: arrays[{i}] has shape {a.shape}; meshgrid takes 1-D "
                             f"arrays")
        if a.dtype != arrays[0].dtype:
            raise TypeError(f"meshgrid: arrays[{i}] is {a.dtype.name} and arrays[0] "
                            f"{arrays[0].dtype.name}; the arrays must have one dtype")
        if a._st.backend is not arrays[0]._st.backend:
            raise ValueError(f"meshgrid: arrays[{i}] is on {a.device}, arrays[0] on "
                             f"{arrays[0].device}")
        xs.append(a)
    dims = list(range(len(xs)))
    if indexing == "xy" and len(xs) > 1:
        dims[0], dims[1] = 1, 0
    shape = [0] * len(xs)
    for a, d in zip(xs, dims):
        shape[d] = a.shape[0]
    grids = []
    for a, d in zip(xs, dims):
        (n,), (s,), offset = a._signed()
        strides = [0] * len(xs)
        strides[d] = s
        out = empty_array(shape, a._t.dtype, a._st.backend)
        copy_into(out, a._view(shape, strides, offset))
        grids.append(out)
    return standard_sequence(grids)


def _triangle(fname: str, x: object, k: int) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{fname}: x is a {type(x).__name__}, not an array of "
                        f"npu_emu.array_api")
    if x.ndim < 2:
        raise ValueError(f"{fname} takes arrays of at least 2 dimensions, not shape {x.shape}")
    k = _int(k, "k")
    be, dt = x._st.backend, x._t.dtype
    if be.is_cpu and x._layout is None and INFO[dt].itemsize in triangle_family.WIDTHS:
        # Our triangle kernel, on the backend's threads: each row a run of x's elements and a
        # run of zero bits, reading only what it keeps; one launch, sooner than NumPy's tril
        # from 32 x 32 on (12 vs 20 us; 2048 x 2048 float32 0.6 ms, NumPy's 2.35). On cuda
        # the library's tril is one launch on the device already.
        out = empty_array(x.shape, dt, be)
        _triangle_into(fname == "tril", k, x, out)
        return out
    with computing(be) as lib:
        # Raw storage: zero bits are 0 in every dtype.
        value = getattr(lib, fname)(x._raw(), k=k)
    return raw_result(value, dt, be)


def _triangle_into(lower: bool, k: int, x: Array, out: Array) -> None:
    """out (contiguous, x's shape) = tril (`lower`) or triu of x by the triangle kernel: x's
    leading axes merged into one where its strides allow, else one launch per index of the
    first."""
    shape, strides, _ = x._signed()
    lead = [(n, s) for n, s in zip(shape[:-2], strides[:-2]) if n != 1]
    merged: list[tuple[int, int]] = []
    for n, st in lead:
        if merged and merged[-1][1] == st * n:
            merged[-1] = (merged[-1][0] * n, st)
        else:
            merged.append((n, st))
    if len(merged) > 1:
        for i in range(shape[0]):
            _triangle_into(lower, k, along(x, 0, i), along(out, 0, i))
        return
    batch, xb = merged[0] if merged else (1, 0)
    rows, cols = shape[-2:]
    be = x._st.backend
    launches = family_plan(("triangle", lower, k), [out, x], be, lambda: triangle_family.plan(
        be, lower, k, INFO[x._t.dtype].itemsize, out._ptr0(), x._ptr0(), (batch, rows, cols),
        (xb, *strides[-2:])))
    launch(be, launches, [x, out])


def tril(x: Array, /, *, k: int = 0) -> Array:
    """x with the elements above the k-th diagonal zeroed (the last two axes; a new array)."""
    return _triangle("tril", x, k)


def triu(x: Array, /, *, k: int = 0) -> Array:
    """x with the elements below the k-th diagonal zeroed (the last two axes; a new array)."""
    return _triangle("triu", x, k)


__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
           "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like"]
