"""Creation functions: asarray (host data, other libraries' arrays, without a copy where the
memory can be shared), empty / zeros / ones / full and their *_like forms, from_dlpack,
and moving an array between devices.

Sharing: on the cpu backend device memory is host memory, so asarray of a NumPy array (or
any buffer-protocol object) views its memory, registered with the allocator so operators
accept it (copy=True copies). On cuda, host data is uploaded (copy=False refuses).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..device import storage_array
from ..dtypes import BOOL, COMPLEX, FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT, as_dtype
from ..runtime.base import Backend
from ..status import AclnnError
from . import _dtypes
from ._array import Array, empty_array, external_array, is_scalar
from ._calls import assign, convert, copy as copy_array
from ._device import backend_for, device_of, library, library_memory, library_order
from ._dtypes import DType, to_dtype
from ._library import compute_dtype, computing, result
from ._elementwise import VIA_FLOAT32, _TAKES, python_value, scalar_array


def _shape_tuple(shape: object, param: str = "shape") -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        out = tuple(operator.index(n) for n in shape)  # type: ignore[union-attr]
    except TypeError:
        raise TypeError(f"{param}={shape!r} is not an int or a sequence of ints") from None
    if any(n < 0 for n in out):
        raise ValueError(f"{param}={out} has a negative size")
    return out


def _dtype_or(dtype: object, default: DType) -> DType:
    return default if dtype is None else to_dtype(dtype)


# ------------------------------------------------------------------ adopting memory

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


def shareable(a: np.ndarray) -> bool:
    """Whether a kernel can address a NumPy array's elements in place: element-aligned,
    strides whole elements, native byte order."""
    item = a.dtype.itemsize
    if a.size == 0 or not a.dtype.isnative:
        return False
    if a.__array_interface__["data"][0] % min(item, 8):
        return False
    return all(s % item == 0 for s in a.strides)


def _acl_of_numpy(dtype: np.dtype, param: str = "obj") -> DT:
    try:
        acl = as_dtype(dtype, f"{param}.dtype")
    except AclnnError as err:
        raise TypeError(f"cannot make an array of npu_emu.array_api from NumPy dtype {dtype}: "
                        f"{err.message}") from None
    if acl not in _dtypes.BY_ACL:
        raise TypeError(f"NumPy dtype {dtype} is {acl.name}, which npu_emu.array_api has no "
                        f"dtype for")
    return acl


def upload(host: np.ndarray, dtype: DT, be: Backend) -> Array:
    """A new device array holding host's values (converted to `dtype` on the host as the
    cast kernels would: low-precision floats through float32)."""
    out = empty_array(host.shape, dtype, be)
    if host.size:
        raw = np.ascontiguousarray(storage_array(_host_in(host, dtype), dtype))
        be.copy_from_host(out._st.ptr, raw.reshape(-1), be.default_stream)
    return out


def _host_in(host: np.ndarray, dtype: DT) -> np.ndarray:
    info = INFO[dtype]
    if host.dtype == info.host:
        return host
    if dtype in VIA_FLOAT32 and host.dtype.kind in "biuf":
        with np.errstate(all="ignore"):
            return host.astype(np.float32)
    return host


def _from_numpy(a: np.ndarray, dtype: DType | None, be: Backend, copy: bool | None) -> Array:
    acl = _acl_of_numpy(a.dtype)
    want = acl if dtype is None else dtype.acl_dtype
    if be.is_cpu and copy is not True and shareable(a):
        x = adopt(a, acl, be, readonly=not a.flags.writeable)
    elif copy is False and a.size:
        raise ValueError("asarray(copy=False): this NumPy array cannot be shared with the "
                         f"{be.name} backend " + ("(device memory is not host memory)"
                                                  if not be.is_cpu else
                                                  "(misaligned, byte-swapped or odd strides)"))
    else:
        x, copy = upload(a, acl, be), None
    if want != acl:
        if copy is False:
            raise ValueError(f"asarray(copy=False) cannot change the dtype from "
                             f"{_dtypes.BY_ACL[acl].name} to {_dtypes.BY_ACL[want].name}")
        return convert(x, want)   # our conversion kernels, as astype
    return x


def _from_python(obj: object, dtype: DType | None, be: Backend, copy: bool | None) -> Array:
    """Python scalars and nested sequences: the standard's default dtypes."""
    exact_ints = not _has(obj, lambda v: isinstance(v, (float, complex)))
    big = _has(obj, lambda v: isinstance(v, int) and not isinstance(v, bool)
               and not -2**63 <= v < 2**63)
    if big and exact_ints and (dtype is None or dtype.kind not in (SIGNED, UNSIGNED)):
        # Note: NumPy would make float64 of [1, 2**63]; the standard's default integer
        # dtype cannot hold it, and nothing asked for a float.
        raise OverflowError("asarray: a Python int is outside the default integer dtype "
                            f"{_dtypes.DEFAULT_INT.name}'s range")
    storage = None
    if dtype is not None and dtype.kind in (SIGNED, UNSIGNED) and exact_ints:
        storage = INFO[dtype.acl_dtype].storage     # ints straight in, no float on the way
    try:
        host = np.array(obj, dtype=storage)
    except OverflowError:
        limits = np.iinfo(storage)
        raise OverflowError(f"asarray: values outside the range of {dtype.name} "
                            f"[{limits.min}, {limits.max}]") from None
    except (ValueError, TypeError) as err:
        raise TypeError(f"asarray: {type(obj).__name__} {obj!r:.60} is not array-like "
                        f"({err})") from None
    kind = host.dtype.kind
    if kind == "O" or (kind == "u" and dtype is None):
        raise TypeError(f"asarray: {obj!r:.60} is not an array of numbers")
    if kind not in "biufc":
        raise TypeError(f"asarray: {obj!r:.60} holds {host.dtype} values, not numbers")
    natural = {"b": _dtypes.bool, "i": _dtypes.DEFAULT_INT, "u": _dtypes.DEFAULT_INT,
               "f": _dtypes.DEFAULT_FLOAT, "c": _dtypes.DEFAULT_COMPLEX}[kind]
    target = (dtype or natural).acl_dtype
    if kind == "c" and INFO[target].kind != COMPLEX:
        raise TypeError(f"asarray: complex values cannot become {_dtypes.BY_ACL[target].name}")
    return upload(host, target, be)


def _has(obj: object, test: Any) -> bool:
    """Whether a Python scalar or nested list/tuple holds a value passing `test`."""
    if isinstance(obj, (list, tuple)):
        return any(_has(o, test) for o in obj)
    return bool(test(obj))


def asarray(obj: object, /, *, dtype: object = None, device: object = None,
            copy: bool | None = None) -> Array:
    """An array of `obj`: an Array, a NumPy array (ml_dtypes' bfloat16 and float8 kept), a
    Python scalar or nested sequence, an object with __dlpack__ (PyTorch, CuPy, JAX) or the
    buffer protocol. copy=None shares memory where it can, copy=False must share (else
    ValueError), copy=True always copies."""
    if isinstance(obj, DType) or (isinstance(obj, type) and issubclass(obj, np.generic)):
        raise TypeError(f"asarray({obj!r}): a dtype is not array data; pass it as dtype=")
    dt = None if dtype is None else to_dtype(dtype)
    if isinstance(obj, Array):
        x = obj
        if device is not None and device_of(x._st.backend) != device:
            if copy is False:
                raise ValueError(f"asarray(copy=False) cannot move an array from {x.device} "
                                 f"to {device}")
            x, copy = to_device(x, device), False
        if dt is not None and dt != x.dtype:
            if copy is False:
                raise ValueError(f"asarray(copy=False) cannot change the dtype from "
                                 f"{x.dtype.name} to {dt.name}")
            return convert(x, dt.acl_dtype)
        return copy_array(x) if copy else x
    be = backend_for(device)
    if isinstance(obj, np.ndarray):
        return _from_numpy(obj, dt, be, copy)
    if isinstance(obj, np.generic):        # a NumPy scalar keeps its dtype
        return _from_numpy(np.asarray(obj), dt, be, None if copy is False else copy)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, (bytes, bytearray, memoryview)):
        return _from_foreign(obj, dt, be, copy)
    if not isinstance(obj, (list, tuple, bool, int, float, complex)):
        try:
            view = memoryview(obj)  # type: ignore[arg-type]
        except TypeError:
            pass
        else:
            return _from_numpy(np.asarray(view), dt, be, copy)
    if copy is False:
        raise ValueError("asarray(copy=False): Python scalars and sequences are always copied")
    return _from_python(obj, dt, be, copy)


def _from_foreign(obj: object, dtype: DType | None, be: Backend, copy: bool | None) -> Array:
    """An array of another library: DLPack without a copy where the devices agree, else a
    host copy through its __array__ (copy=False refuses that)."""
    try:
        x = from_dlpack(obj, device=device_of(be), copy=copy)
    except (BufferError, ValueError, TypeError, RuntimeError):
        if copy is False:
            raise
        if not hasattr(obj, "__array__"):
            raise
        x = _from_numpy(np.asarray(obj), None, be, True)
    if dtype is not None and dtype != x.dtype:
        if copy is False:
            raise ValueError(f"asarray(copy=False) cannot change the dtype from {x.dtype.name} "
                             f"to {dtype.name}")
        return convert(x, dtype.acl_dtype)
    return x


def from_dlpack(x: object, /, *, device: object = None, copy: bool | None = None) -> Array:
    """An Array sharing the memory of any object with __dlpack__ (NumPy, PyTorch, CuPy, JAX,
    ours); copy=True copies, device= moves it (copying)."""
    from ._interop import import_dlpack
    return import_dlpack(x, device, copy)


def to_device(x: Array, device: object, stream: object = None) -> Array:
    """x on `device`: itself when it is there already, else a copy of its bits through the
    host."""
    if stream is not None:
        raise ValueError(f"to_device(stream={stream!r}): npu_emu arrays use their backend's "
                         f"default stream; pass stream=None")
    be = backend_for(device)
    src = x._st.backend
    if be is src:
        return x
    with library_order(src):
        raw = x._raw()
        host = np.array(raw, copy=True) if src.is_cpu else raw.get()
    out = empty_array(x.shape, x._t.dtype, be)
    if host.size:
        be.copy_from_host(out._st.ptr, np.ascontiguousarray(host).reshape(-1), be.default_stream)
    return out


# --------------------------------------------------------------- empty, zeros, full

def empty(shape: object, *, dtype: object = None, device: object = None) -> Array:
    """An uninitialized array from the pool."""
    return empty_array(_shape_tuple(shape), _dtype_or(dtype, _dtypes.DEFAULT_FLOAT).acl_dtype,
                       backend_for(device))


def zeros(shape: object, *, dtype: object = None, device: object = None) -> Array:
    """Zeros: the pool block cleared in stream order (zero bits are 0 in every dtype)."""
    out = empty(shape, dtype=dtype, device=device)
    if out.size:
        be = out._st.backend
        be.memset(out._st.ptr, 0, out.size * out._t.itemsize, be.default_stream)
    return out


def _fill_dtype(fill_value: object, dtype: object) -> DType:
    value = python_value(fill_value)
    kind = {bool: BOOL, int: SIGNED, float: FLOATING, complex: COMPLEX}[type(value)]
    if dtype is None:
        return _dtypes.DEFAULTS[kind]
    dt = to_dtype(dtype)
    if dt.kind not in _TAKES[kind]:
        raise TypeError(f"full: fill_value {fill_value!r} ({type(value).__name__}) does not fit "
                        f"dtype {dt.name}")
    return dt


def full(shape: object, fill_value: object, *, dtype: object = None,
         device: object = None) -> Array:
    """An array filled with `fill_value` (one InplaceCopy of a 0-d source: broadcast + copy)."""
    dt = _fill_dtype(fill_value, dtype)
    value = python_value(fill_value)
    if dt.kind in (SIGNED, UNSIGNED):
        limits = np.iinfo(INFO[dt.acl_dtype].storage)
        if not limits.min <= value <= limits.max:
            raise OverflowError(f"full: fill_value {value} is outside the range of {dt.name}")
    out = empty(shape, dtype=dt, device=device)
    if out.size:
        assign(out, scalar_array(value, dt.acl_dtype, out._st.backend))
    return out


def ones(shape: object, *, dtype: object = None, device: object = None) -> Array:
    dt = _dtype_or(dtype, _dtypes.DEFAULT_FLOAT)
    return full(shape, True if dt.kind == BOOL else 1, dtype=dt, device=device)


def _like(x: Array, dtype: object, device: object) -> tuple[tuple[int, ...], DType, object]:
    if not isinstance(x, Array):
        raise TypeError(f"x is a {type(x).__name__}, not an array of npu_emu.array_api")
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
        dt = _dtypes.DEFAULT_FLOAT if any(isinstance(v, float) for v in args) \
            else _dtypes.DEFAULT_INT
    else:
        dt = to_dtype(dtype)
    if dt.kind not in (SIGNED, UNSIGNED, FLOATING):
        raise TypeError(f"arange: dtype={dt.name}; arange makes real numeric arrays")
    return _computed(dt, backend_for(device),
                     lambda lib, ct: lib.arange(*args, dtype=ct))


def linspace(start: int | float | complex, stop: int | float | complex, /, num: int, *,
             dtype: object = None, device: object = None, endpoint: bool = True) -> Array:
    """num evenly spaced values from start to stop (included when endpoint). The default
    dtype: the default complex when start or stop is complex, else the default float."""
    for v, n in ((start, "start"), (stop, "stop")):
        if isinstance(v, (bool, np.bool_)) or not is_scalar(v):
            raise TypeError(f"linspace: {n}={v!r} is not a number")
    num = _size(num, "num")
    is_complex = any(isinstance(v, (complex, np.complexfloating)) for v in (start, stop))
    if dtype is None:
        dt = _dtypes.DEFAULT_COMPLEX if is_complex else _dtypes.DEFAULT_FLOAT
    else:
        dt = to_dtype(dtype)
    if dt.kind == BOOL or (is_complex and dt.kind != COMPLEX):
        raise TypeError(f"linspace: dtype={dt.name} cannot hold the values from {start!r} to "
                        f"{stop!r}")
    lo, hi = python_value(start), python_value(stop)
    return _computed(dt, backend_for(device),
                     lambda lib, ct: lib.linspace(lo, hi, num, endpoint=bool(endpoint),
                                                  dtype=ct))


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
        assign(diagonal, scalar_array(True if out.dtype.kind == BOOL else 1, out._t.dtype, be))
    return out


def meshgrid(*arrays: Array, indexing: str = "xy") -> list[Array]:
    """Coordinate grids from 1-D arrays of one dtype: "xy" (Cartesian: the first two axes
    swapped) or "ij" (matrix) indexing. Each grid is a new array, one InplaceCopy of its
    array broadcast over the others' axes."""
    from ._manipulation import copy_into
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
    return grids


def _triangle(fname: str, x: object, k: int) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{fname}: x is a {type(x).__name__}, not an array of "
                        f"npu_emu.array_api")
    if x.ndim < 2:
        raise ValueError(f"{fname} takes arrays of at least 2 dimensions, not shape {x.shape}")
    k = _int(k, "k")
    with computing(x._st.backend) as lib:
        # Raw storage: zero bits are 0 in every dtype.
        value = getattr(lib, fname)(x._raw(), k=k)
    return raw_result(value, x._t.dtype, x._st.backend)


def tril(x: Array, /, *, k: int = 0) -> Array:
    """x with the elements above the k-th diagonal zeroed (the last two axes; a new array)."""
    return _triangle("tril", x, k)


def triu(x: Array, /, *, k: int = 0) -> Array:
    """x with the elements below the k-th diagonal zeroed (the last two axes; a new array)."""
    return _triangle("triu", x, k)


__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
           "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like"]
