"""Interchange without copies: NumPy's __array__ / __array_interface__ on the cpu backend,
__cuda_array_interface__ on cuda, and DLPack both ways (the capsule codec is _dlpack.py).

Stream order: on cpu the stream's queued work is finished before another library sees the
memory (it reads at once); on cuda the consumer's stream waits on an event recorded on ours
(DLPack), or is told our stream (__cuda_array_interface__'s "stream"). Memory handed out or
taken in is marked shared, so later operations on the cpu backend finish before returning.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import runtime
from ..._address import array_address
from ...dtypes import INFO
from . import dlpack as _dlpack
from .array import Array, empty_array, external_array, library_dtype, to_device
from .kernel import copy as copy_array
from .library import acl_of_numpy, adopt, shareable
from .device import DL_CPU, DL_CUDA, backend_for, device_of as dev_of, library_order, synchronize


def _native(x: Array) -> bool:
    info = INFO[x._t.dtype]
    return info.host is not None and info.host == info.storage


def to_numpy(x: Array, dtype: object = None, copy: bool | None = None) -> np.ndarray:
    """np.asarray(x): on cpu a view of the memory (ml_dtypes' types for bf16/fp8); a host
    copy otherwise (cuda, and HiFloat8, which NumPy has no type for)."""
    be = x._st.backend
    if be.is_cpu and copy is not True and library_dtype(x._t.dtype, be) is not None:
        with library_order(be):
            out = x._values().view()     # the user's own view object, not the array's
        x._st.shared = True
    else:
        if copy is False:
            raise ValueError(f"np.asarray(x, copy=False): a {x.dtype.name} array on {x.device} "
                             f"has no host view" + (" (NumPy has no HiFloat8 type)"
                                                    if be.is_cpu else ""))
        out = x._host()
    if dtype is not None and np.dtype(dtype) != out.dtype:
        if copy is False:
            raise ValueError(f"np.asarray(x, dtype={dtype}, copy=False) would convert")
        out = out.astype(dtype)
    elif copy and out.base is not None:
        out = out.copy()
    return out


def array_interface(x: Array) -> dict:
    be = x._st.backend
    if not be.is_cpu or not _native(x):
        raise AttributeError("__array_interface__ exists for NumPy's own dtypes on the cpu "
                             "backend; use np.asarray(x) (__array__) or DLPack")
    synchronize(be)
    x._st.shared = True
    return _interface(x)


def cuda_array_interface(x: Array) -> dict:
    be = x._st.backend
    if be.is_cpu or not _native(x):
        raise AttributeError("__cuda_array_interface__ exists for NumPy's own dtypes on the "
                             "cuda backend; use DLPack for bfloat16 and float8")
    x._st.shared = True
    out = _interface(x)
    out["stream"] = be.default_stream.ptr   # the consumer orders its work after ours (CAI v3)
    be.hand_over()                          # and for a consumer that ignores "stream"
    return out


def _interface(x: Array) -> dict:
    shape, strides, _ = x._signed()
    item = x._t.itemsize
    contiguous = x._flip is None and x._t.is_contiguous()
    return {"version": 3, "shape": shape, "typestr": INFO[x._t.dtype].storage.str,
            "data": (x._ptr0() if x.size else 0, x._st.readonly),
            "strides": None if contiguous else tuple(s * item for s in strides)}


# ------------------------------------------------------------------------- DLPack

def _wait_for_us(be: Any, stream: object) -> None:
    """The standard's handshake: make the consumer's stream wait for our queued work."""
    if be.is_cpu:
        if stream is not None:
            raise ValueError(f"__dlpack__(stream={stream!r}): on the cpu device stream must be "
                             f"None")
        synchronize(be)
        return
    if stream == -1:
        return                                   # the consumer orders the work itself
    if stream == 0:
        raise ValueError("__dlpack__(stream=0) is ambiguous on CUDA; pass 1 (legacy default "
                         "stream), 2 (per-thread default) or a stream handle")
    be.order_for(1 if stream is None else int(stream))


def dlpack(x: Array, stream: object, max_version: tuple[int, int] | None,
           dl_device: tuple[int, int] | None, copy: bool | None) -> object:
    be = x._st.backend
    ours = x.device.dlpack
    versioned = _dlpack.wants_versioned(max_version)
    if dl_device is not None and tuple(dl_device) != ours:
        if tuple(dl_device) != (DL_CPU, 0):
            raise BufferError(f"__dlpack__(dl_device={dl_device}): an array on {x.device} "
                              f"exports to {ours} or, as a copy, to the host (1, 0)")
        if copy is False:
            raise BufferError("__dlpack__(dl_device=(1, 0), copy=False): this array is on "
                              f"{x.device}; the host needs a copy")
        with library_order(be):
            host = np.ascontiguousarray(x._raw().get())
        return _dlpack.export_checked(array_address(host), host.shape,
                                      tuple(s // host.itemsize for s in host.strides),
                                      x._t.dtype, (DL_CPU, 0), host, versioned,
                                      x._st.readonly and versioned, copied=versioned)
    src, copied = x, False
    if copy or x._flip is not None:
        # Reversed axes: many consumers (PyTorch) take no negative strides, so they are copied.
        if copy is False:
            raise BufferError("__dlpack__(copy=False): this view has reversed axes (negative "
                              "strides); export a copy (copy=None)")
        src, copied = copy_array(x), True
    _wait_for_us(be, stream)
    src._st.shared = True
    shape, strides, _ = src._signed()
    return _dlpack.export_checked(src._ptr0() if src.size else 0, shape, strides, src._t.dtype,
                                  ours, src, versioned, src._st.readonly and versioned,
                                  copied=copied and versioned)


def _backend_of_dl(device: tuple[int, int]) -> Any:
    kind, index = int(device[0]), int(device[1])
    if kind == DL_CPU:
        return runtime.backend("cpu")
    if kind == DL_CUDA and index == 0:
        return runtime.backend("cuda")
    raise BufferError(f"from_dlpack: memory on DLPack device {tuple(device)}; npu_emu arrays "
                      f"live on kDLCPU (1, 0) or kDLCUDA device 0 (2, 0)")


# The NumPy dtypes NumPy's __dlpack__ exports (native byte order: a swapped dtype is another
# dtype here): an ndarray of these is shared directly (import_dlpack).
_NUMPY_DLPACK = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128))


def import_dlpack(obj: object, device: object, copy: bool | None) -> Array:
    """from_dlpack: share the producer's memory (registered with the allocator while used)."""
    if isinstance(obj, Array):
        x = obj if device is None else to_device(obj, device)
        return copy_array(x) if copy and x is obj else x
    want = None if device is None else backend_for(device)
    if obj.__class__ is np.ndarray and copy is not True and (want is None or want.is_cpu) \
            and obj.dtype in _NUMPY_DLPACK and obj.size:
        # A NumPy array on the host: what its capsule would describe, read from the array
        # itself (a third of the time: no capsule to make, parse and release). The same
        # Array: the memory shared and registered, read-only where the array is, kept alive
        # by it. What NumPy's capsule would refuse or this cannot address in place goes the
        # capsule's way below.
        ptr0 = array_address(obj)
        if shareable(obj, ptr0):
            return adopt(obj, acl_of_numpy(obj.dtype), runtime.backend("cpu"),
                         readonly=not obj.flags.writeable, ptr0=ptr0)
    dl_device = None if want is None else dev_of(want).dlpack
    stream = None
    if want is not None and not want.is_cpu:
        stream = want.default_stream.ptr
    elif want is None and getattr(obj, "__dlpack_device__", None) is not None:
        kind = int(obj.__dlpack_device__()[0])
        if kind == DL_CUDA:
            stream = runtime.backend("cuda").default_stream.ptr
    imp = _dlpack.import_capsule(obj, dl_device, copy, stream=stream)
    be = _backend_of_dl(imp.device)
    x = _wrap_imported(imp, be)
    if copy and not imp.copied:
        x = copy_array(x)           # a legacy producer could not copy for us
    return x


def _wrap_imported(imp: Any, be: Any) -> Array:
    if any(n == 0 for n in imp.shape):
        imp.keepalive.release()
        return empty_array(imp.shape, imp.dtype, be)
    lo_off, hi = _dlpack.byte_bounds(imp.shape, imp.strides, INFO[imp.dtype].itemsize)
    return external_array(imp.ptr + lo_off, hi - lo_off, imp.ptr, imp.shape, imp.strides,
                          imp.dtype, be, imp.keepalive, imp.readonly, shared=True)


__all__ = ["array_interface", "cuda_array_interface", "dlpack", "import_dlpack", "to_numpy"]
