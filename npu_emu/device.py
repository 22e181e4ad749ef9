"""Moving NumPy data to and from device tensors in one call: what tests, examples and
users write instead of malloc + memcpy + aclCreateTensor by hand.

A tensor made here owns its memory (a DeviceBuffer in `Tensor.owner`); the block goes back to
the pool when the last reference goes.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from . import dtypes as _dt
from . import runtime
from ._state import ensure_started
from .dtypes import aclDataType
from .formats import aclFormat
from .tensor import Tensor, make_tensor, view_extent

__all__ = ["DeviceBuffer", "empty", "ensure_started", "from_numpy", "storage_array",
           "storage_to_numpy", "to_numpy", "view"]


class DeviceBuffer:
    """A block of device memory from the current backend's pool, freed with the object."""

    def __init__(self, nbytes: int, backend=None) -> None:
        ensure_started()
        self.backend = backend or runtime.current()
        self.nbytes = max(int(nbytes), 1)
        self.ptr = self.backend.malloc(self.nbytes)

    def __del__(self) -> None:
        ptr, self.ptr = getattr(self, "ptr", 0), 0
        if ptr:
            try:
                self.backend.free(ptr)
            except Exception:
                pass  # interpreter shutdown: the pool is going away too


def storage_array(array: np.ndarray, dtype: aclDataType) -> np.ndarray:
    """The raw elements of `array` as stored on the device for `dtype` (bf16/fp8 bits...).
    Values are converted with NumPy/ml_dtypes when the array's dtype differs."""
    info = _dt.INFO[dtype]
    if info.storage is None:
        raise ValueError(f"{_dt.dt_name(dtype)} has no per-element storage")
    array = np.asarray(array)
    if array.dtype == info.storage:
        return array
    if info.host is not None:
        if array.dtype != info.host:
            array = array.astype(info.host)
        return array.view(info.storage) if info.host != info.storage else array
    from . import codecs  # HiFloat8, complex32: our own encoders
    return codecs.encode(array, dtype)


def empty(shape: Sequence[int], dtype: object, format: object = aclFormat.ACL_FORMAT_ND,
          storage_shape: Sequence[int] | None = None) -> Tensor:
    """A contiguous device tensor (uninitialized) that owns its memory."""
    dt = _dt.as_dtype(dtype)
    storage = tuple(storage_shape) if storage_shape is not None else tuple(shape)
    buf = DeviceBuffer(math.prod(storage) * _dt.INFO[dt].itemsize)
    return make_tensor(list(shape), dt, None, 0, format, list(storage), buf.ptr, owner=buf)


def from_numpy(array: np.ndarray, dtype: object = None,
               format: object = aclFormat.ACL_FORMAT_ND) -> Tensor:
    """Copy `array` to the device as a contiguous tensor of `dtype` (default: the array's).
    Use `view` for other views of its storage."""
    array = np.asarray(array)
    dt = _dt.as_dtype(array.dtype if dtype is None else dtype)
    raw = np.ascontiguousarray(storage_array(array, dt)).reshape(array.shape)  # keeps 0-d
    buf = DeviceBuffer(raw.nbytes)
    buf.backend.copy_from_host(buf.ptr, raw)
    return make_tensor(list(raw.shape), dt, None, 0, format, list(raw.shape), buf.ptr, owner=buf)


def view(base: Tensor, shape: Sequence[int], strides: Sequence[int], offset: int = 0,
         dtype: object = None) -> Tensor:
    """Another view (shape, strides, offset in elements) of base's storage."""
    dt = base.dtype if dtype is None else _dt.as_dtype(dtype)
    return make_tensor(list(shape), dt, list(strides), offset, base.format,
                       list(base.storage_shape), base.data, owner=base.owner)


def storage_to_numpy(t: Tensor) -> np.ndarray:
    """The whole storage of `t` (raw storage dtype, flat), synchronously."""
    be = runtime.current()
    be.synchronize()
    out = np.empty(t.storage_numel, dtype=_dt.INFO[t.dtype].storage)
    if out.nbytes:
        be.copy_to_host(out, t.data)
    return out


def to_numpy(t: Tensor, raw: bool = False) -> np.ndarray:
    """The view `t` as a NumPy array (a copy), after all queued work has finished. A tensor
    in a private layout (FRACTAL_NZ, NC1HWC0, ...) is decoded back to its logical shape.

    raw=False gives the host dtype (ml_dtypes.bfloat16, float8_*); raw=True (and HiFloat8,
    complex32, which have no host type) gives the stored bits."""
    from .fractal import L, tensor_layout
    if tensor_layout(t)[0] is not L.ND:
        from .ops.format_cast import format_cast
        t = format_cast(t, "ND")
    info = _dt.INFO[t.dtype]
    extent = view_extent(t.view_shape, t.view_strides, t.storage_offset)
    be = runtime.current()
    be.synchronize()
    flat = np.zeros(max(extent, 1), dtype=info.storage)
    if extent:
        be.copy_to_host(flat[:extent], t.data)
    item = info.storage.itemsize
    out = np.lib.stride_tricks.as_strided(
        flat[t.storage_offset:] if extent else flat, shape=t.view_shape,
        strides=[s * item for s in t.view_strides]).copy()
    if not raw and info.host is not None and info.host != info.storage:
        out = out.view(info.host)
    return out
