"""asarray: an array of host data or of another library's array, without a copy where the
memory can be shared; also from_dlpack.

Sharing: on the cpu backend device memory is host memory, so asarray of a NumPy array (or
any buffer-protocol object) views its memory, registered with the allocator so operators
accept it (copy=True copies). On cuda, host data is uploaded (copy=False refuses).
"""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ..._address import array_address
from ...device import storage_array
from ...dtypes import BOOL, COMPLEX, INFO, SIGNED, UNSIGNED, aclDataType as DT
from ...runtime.base import Backend
from . import dtypes as _dtypes
from .array import Array, empty_array, to_device
from .device import backend_for, device_of, numpy_quiet
from .dtypes import VIA_FLOAT32, DType, to_dtype
from .interop import import_dlpack
from .kernel import convert, copy as copy_array
from .library import acl_of_numpy, adopt, shareable


def upload(host: np.ndarray, dtype: DT, be: Backend) -> Array:
    """A new device array holding host's values (converted to `dtype` on the host as the
    cast kernels would: low-precision floats through float32)."""
    out = empty_array(host.shape, dtype, be)
    if host.size:
        with numpy_quiet():                  # overflow to inf is the conversion's answer
            raw = np.ascontiguousarray(storage_array(_host_in(host, dtype), dtype))
        be.copy_from_host(out._st.ptr, raw.reshape(-1), be.default_stream)
    return out


def _host_in(host: np.ndarray, dtype: DT) -> np.ndarray:
    info = INFO[dtype]
    if host.dtype == info.host:
        return host
    if dtype in VIA_FLOAT32 and host.dtype.kind in "biuf":
        with numpy_quiet():
            return host.astype(np.float32)
    return host


# NumPy's own dtypes whose bytes are our storage's (no NPU dtype, no conversion on the way).
_PLAIN = {np.dtype(t): acl_of_numpy(np.dtype(t))
          for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                    np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64,
                    np.complex128)}


def _scalar_bytes(value: np.generic, dtype: DT, be: Backend) -> Array:
    """A new 0-d array of the cpu backend holding a NumPy scalar's bytes (`dtype`: ours for
    its NumPy dtype, a _PLAIN one), written by the host: a block the pool hands the host has
    no work queued on it (what `upload` does, without the NumPy array and the stream's
    copy)."""
    out = empty_array((), dtype, be)
    ctypes.memmove(out._st.ptr, value.tobytes(), value.itemsize)
    return out


def _from_numpy(a: np.ndarray, dtype: DType | None, be: Backend, copy: bool | None) -> Array:
    acl = acl_of_numpy(a.dtype)
    want = acl if dtype is None else dtype.acl_dtype
    ptr0 = array_address(a) if a.size else 0
    if be.is_cpu and copy is not True and shareable(a, ptr0):
        x = adopt(a, acl, be, readonly=not a.flags.writeable, ptr0=ptr0)
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
    if big and exact_ints and dtype is None:
        # Note: NumPy would make float64 of [1, 2**63]; the standard's default integer
        # dtype cannot hold it, and nothing asked for a float.
        raise OverflowError("asarray: a Python int is outside the default integer dtype "
                            f"{_dtypes.DEFAULT_INT.name}'s range")
    storage = None
    if dtype is not None and dtype.kind in (SIGNED, UNSIGNED) and exact_ints:
        storage = INFO[dtype.acl_dtype].storage     # ints straight in, no float on the way
    elif big and dtype is not None:
        # a float or complex dtype asked for: the ints through float64 (correctly rounded,
        # then to the dtype by our conversion: NumPy's double rounding, through a double);
        # bool: nonzero is true, as NumPy
        storage = {COMPLEX: np.complex128, BOOL: np.bool_}.get(dtype.kind, np.float64)
    try:
        host = np.array(obj, dtype=storage)
    except OverflowError:
        if storage is not None and np.dtype(storage).kind in "fc":
            raise OverflowError(f"asarray: a Python int is beyond float64's range, so beyond "
                                f"{dtype.name}'s") from None
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
               "f": _dtypes.default_float(), "c": _dtypes.default_complex()}[kind]
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
            return convert(x, dt.acl_dtype, keep_order=True)
        # A copy keeps x's order of axes, as NumPy's np.array, CuPy's and PyTorch's do.
        return copy_array(x, keep_order=True) if copy else x
    be = backend_for(device)
    if isinstance(obj, np.ndarray):
        return _from_numpy(obj, dt, be, copy)
    if isinstance(obj, np.generic):
        # A NumPy scalar keeps its dtype. It is immutable and the 0-d array made of it is
        # ours alone: its value goes into our memory (pool memory, not an import to register
        # and release, which operations on the cpu backend would finish before they return),
        # but for copy=False, which shares that array as asked.
        if copy is not False and be.is_cpu:
            acl = _PLAIN.get(obj.dtype)
            if acl is not None and (dt is None or dt.acl_dtype == acl):
                return _scalar_bytes(obj, acl, be)
        return _from_numpy(np.asarray(obj), dt, be, None if copy is False else True)
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
    return import_dlpack(x, device, copy)
