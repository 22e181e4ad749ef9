"""The address of a NumPy array's element 0, read from its C-level array interface.

`a.__array_interface__["data"][0]` and `a.ctypes.data` build a dict or a ctypes object for
every call: about 2 us each, paid by every import of a NumPy array into the array API and by
every host copy. NumPy's `__array_struct__` (the documented C-level array interface: a
capsule holding a PyArrayInterface) gives the same pointer in about 0.6 us; `array_address`
reads it there.
"""
from __future__ import annotations

import ctypes

import numpy as np


class _ArrayInterface(ctypes.Structure):
    """NumPy's PyArrayInterface (numpy/ndarraytypes.h), in its field order."""

    _fields_ = [("two", ctypes.c_int), ("nd", ctypes.c_int), ("typekind", ctypes.c_char),
                ("itemsize", ctypes.c_int), ("flags", ctypes.c_int),
                ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("data", ctypes.c_void_p), ("descr", ctypes.c_void_p)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = (ctypes.py_object, ctypes.c_char_p)
_DATA = _ArrayInterface.data.offset
_read_pointer = ctypes.c_void_p.from_address


def array_address(a: np.ndarray) -> int:
    """The address of element (0, ..., 0) of a NumPy array (what
    `a.__array_interface__["data"][0]` says); 0 for NULL."""
    capsule = a.__array_struct__     # held while its struct is read: it frees the struct
    return _read_pointer(_capsule_pointer(capsule, None) + _DATA).value or 0
