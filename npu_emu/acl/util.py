"""acl.util: pyACL's conversions between host buffers and raw pointers.

`numpy_to_ptr(array)` / `bytes_to_ptr(data)` give the address of a buffer's memory (the
object must stay alive while the address is used); `ptr_to_numpy(ptr, shape, dtype)` views
memory at an address as an array and `ptr_to_bytes(ptr, size)` copies it. Addresses are
checked to be mapped host memory first, so a wrong one is refused (ValueError), not a crash.
"""
from __future__ import annotations

import ctypes
import math

import numpy as np

from .._params import as_int, as_pointer, int_sequence
from ._host import is_mapped


def numpy_to_ptr(array: np.ndarray) -> int:
    """The address of a C-contiguous array's first element."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"array is a {type(array).__name__}, expected a numpy.ndarray")
    if not array.flags.c_contiguous:
        raise ValueError("array is not C-contiguous; its memory is not one buffer")
    return int(array.ctypes.data)


def bytes_to_ptr(data: bytes | bytearray | memoryview) -> int:
    """The address of a bytes-like object's buffer (read-only for bytes)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data is a {type(data).__name__}, expected bytes, bytearray or memoryview")
    return int(np.frombuffer(data, dtype=np.uint8).ctypes.data) if len(data) else 0


def _npy_dtype(dtype: object) -> np.dtype:
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        for t in np.sctypeDict.values():   # pyACL passes NumPy type numbers (NPY_FLOAT = 11)
            if np.dtype(t).num == int(dtype):
                return np.dtype(t)
        raise ValueError(f"npy_type={dtype} is not a NumPy type number")
    return np.dtype(dtype)


def ptr_to_numpy(ptr: int, shape, dtype) -> np.ndarray:
    """An array viewing the memory at `ptr` (not a copy): `shape` and a NumPy dtype or
    type number, as pyACL's acl.util.ptr_to_numpy."""
    addr = as_pointer(ptr, "ptr", allow_null=False)
    dims = int_sequence(shape if not isinstance(shape, int) else (shape,), "shape")
    dt = _npy_dtype(dtype)
    nbytes = math.prod(dims) * dt.itemsize
    if addr == 0 or not is_mapped(addr, nbytes, False):
        raise ValueError(f"ptr=0x{addr:x}: {nbytes} bytes from there are not host memory of "
                         f"this process")
    buf = (ctypes.c_uint8 * nbytes).from_address(addr)
    return np.frombuffer(buf, dtype=dt).reshape(dims)


def ptr_to_bytes(ptr: int, size: int) -> bytes:
    """A copy of `size` bytes at `ptr`."""
    addr = as_pointer(ptr, "ptr", allow_null=False)
    n = as_int(size, "size", 0)
    if n and (addr == 0 or not is_mapped(addr, n, False)):
        raise ValueError(f"ptr=0x{addr:x}: {n} bytes from there are not host memory of this process")
    return ctypes.string_at(addr, n) if n else b""
