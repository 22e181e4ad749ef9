"""DLPack codec: an element view over memory <-> a DLPack capsule (legacy "dltensor" or
versioned "dltensor_versioned", DLPack 1.1), both ways without copies. The array API namespace
builds `Array.__dlpack__` on `export_capsule` and `from_dlpack` on `import_capsule`.

Lifetimes. A capsule's destructor and a tensor's deleter are called from C at any moment: while
an exception is propagating (a consumer that refuses the capsule drops it with its error set; a
temporary consumer array dies inside a failing expression), on a foreign thread, at shutdown.
A ctypes callback cannot keep an in-flight exception (CPython replaces it with SystemError), so
exports run no Python callback: the memory is described as a NumPy array whose base keeps
`owner` alive, NumPy's `__dlpack__` builds the DLManagedTensor(Versioned) with its own C
destructor and deleter (they only free the struct and release that array), and we rewrite the
fields they never read (dtype, device, data, version, flags). Imports need no callback either:
the producer's deleter is called from `__del__` of the keepalive, around which CPython saves
any in-flight exception.

Streams (the standard's `__dlpack__(stream=...)`), for the producer's `__dlpack__`: the
consumer names the stream it will use the memory on; before export_capsule, the producer makes
that stream wait for the work that writes the array, without blocking the host.
- kDLCPU: `stream` must be None. The consumer reads at once, so the producer first completes
  the work queued for the array (synchronizes its stream).
- kDLCUDA: None and 1 mean the legacy default stream; 2 is the per-thread default stream;
  -1 asks for no synchronization (the consumer orders the work itself); 0 is ambiguous and
  refused; any other int is a cudaStream_t. Unless it is -1 or the producer's own stream:
  record an event on the producer's stream and cudaStreamWaitEvent(consumer stream, event).
- As a consumer on cuda, call import_capsule(obj, stream=<the stream the memory will be used
  on>); on cpu leave stream None. Capsules carry no stream: ordering is settled before export.
"""
from __future__ import annotations

import ctypes
import enum
import threading
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..._params import as_int, as_pointer, int_sequence, INT64_MAX
from ...dtypes import INFO, aclDataType, as_dtype
# AclnnTypeError/AclnnValueError are made in a loop in status.py
from ...status import (ACLNN_ERR_PARAM_INVALID, AclnnTypeError,  # type: ignore[attr-defined]
                      AclnnValueError)

DT = aclDataType

DLPACK_VERSION = (1, 1)   # what versioned capsules made here say, and what we ask producers for
DLPACK_FLAG_BITMASK_READ_ONLY = 1 << 0
DLPACK_FLAG_BITMASK_IS_COPIED = 1 << 1


class DLDeviceType(enum.IntEnum):
    """dlpack.h's DLDeviceType."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
    kDLTrn = 18


class DLDataTypeCode(enum.IntEnum):
    """dlpack.h's DLDataTypeCode, DLPack 1.1."""
    kDLInt = 0
    kDLUInt = 1
    kDLFloat = 2
    kDLOpaqueHandle = 3
    kDLBfloat = 4
    kDLComplex = 5
    kDLBool = 6
    kDLFloat8_e3m4 = 7
    kDLFloat8_e4m3 = 8
    kDLFloat8_e4m3b11fnuz = 9
    kDLFloat8_e4m3fn = 10
    kDLFloat8_e4m3fnuz = 11
    kDLFloat8_e5m2 = 12
    kDLFloat8_e5m2fnuz = 13
    kDLFloat8_e8m0fnu = 14
    kDLFloat6_e2m3fn = 15
    kDLFloat6_e3m2fn = 16
    kDLFloat4_e2m1fn = 17


C = DLDataTypeCode

# aclDataType <-> DLPack (type code, bits); lanes is always 1.
DLPACK_DTYPES: dict[aclDataType, tuple[DLDataTypeCode, int]] = {
    DT.ACL_BOOL: (C.kDLBool, 8),
    DT.ACL_INT8: (C.kDLInt, 8),
    DT.ACL_INT16: (C.kDLInt, 16),
    DT.ACL_INT32: (C.kDLInt, 32),
    DT.ACL_INT64: (C.kDLInt, 64),
    DT.ACL_UINT8: (C.kDLUInt, 8),
    DT.ACL_UINT16: (C.kDLUInt, 16),
    DT.ACL_UINT32: (C.kDLUInt, 32),
    DT.ACL_UINT64: (C.kDLUInt, 64),
    DT.ACL_FLOAT16: (C.kDLFloat, 16),
    DT.ACL_FLOAT: (C.kDLFloat, 32),
    DT.ACL_DOUBLE: (C.kDLFloat, 64),
    DT.ACL_BF16: (C.kDLBfloat, 16),
    DT.ACL_COMPLEX64: (C.kDLComplex, 64),
    DT.ACL_COMPLEX128: (C.kDLComplex, 128),
    DT.ACL_FLOAT8_E4M3FN: (C.kDLFloat8_e4m3fn, 8),
    DT.ACL_FLOAT8_E5M2: (C.kDLFloat8_e5m2, 8),
    DT.ACL_FLOAT8_E8M0: (C.kDLFloat8_e8m0fnu, 8),
}
_FROM_DLPACK = {pair: dt for dt, pair in DLPACK_DTYPES.items()}

_SUB_BYTE = "a sub-byte type: npu_emu keeps no per-element storage for it"
# Why every other aclDataType crosses no DLPack boundary (the refusal names the dtype and this).
NO_DLPACK_REASON: dict[aclDataType, str] = {
    DT.ACL_HIFLOAT8: "DLPack 1.1 has no HiFloat8 type code",
    DT.ACL_COMPLEX32: "DLPack 1.1 names no complex type of two float16 halves",
    DT.ACL_INT4: _SUB_BYTE,
    DT.ACL_UINT1: _SUB_BYTE,
    DT.ACL_FLOAT6_E3M2: _SUB_BYTE,
    DT.ACL_FLOAT6_E2M3: _SUB_BYTE,
    DT.ACL_FLOAT4_E2M1: _SUB_BYTE,
    DT.ACL_FLOAT4_E1M2: _SUB_BYTE,
    DT.ACL_STRING: "not an element type",
    DT.ACL_DT_UNDEFINED: "not an element type",
}


class DLPackTypeError(AclnnTypeError, BufferError):
    """A dtype that DLPack cannot carry, either way: AclnnError 161002, a TypeError, and the
    BufferError that the array API standard names for what cannot be exported or imported."""

    def __reduce__(self):
        return (type(self), (self.code, self.message))


class DLPackValueError(AclnnValueError, BufferError):
    """A layout, device, version, flag or capsule that DLPack (or this codec) cannot carry."""

    def __reduce__(self):
        return (type(self), (self.code, self.message))


def _refuse(kind: type, message: str) -> Exception:
    return kind(ACLNN_ERR_PARAM_INVALID, message)


# --------------------------------------------------------------------------- dlpack.h structs

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


LEGACY, VERSIONED = b"dltensor", b"dltensor_versioned"


def _permanent_name(name: bytes) -> int:
    # PyCapsule_SetName keeps the pointer, not a copy: a renamed capsule may outlive this
    # module (interpreter teardown), so the name's buffer is never freed.
    buffer = ctypes.create_string_buffer(name)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(buffer))
    return ctypes.addressof(buffer)


_USED_NAME = {LEGACY: _permanent_name(b"used_dltensor"),
              VERSIONED: _permanent_name(b"used_dltensor_versioned")}


def _capsule_api(name: str, restype, *argtypes):
    function = getattr(ctypes.pythonapi, name)
    function.restype, function.argtypes = restype, list(argtypes)
    return function


_capsule_is_valid = _capsule_api("PyCapsule_IsValid", ctypes.c_int, ctypes.py_object,
                                 ctypes.c_char_p)
_capsule_get_pointer = _capsule_api("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object,
                                    ctypes.c_char_p)
_capsule_get_name = _capsule_api("PyCapsule_GetName", ctypes.c_char_p, ctypes.py_object)
_capsule_set_name = _capsule_api("PyCapsule_SetName", ctypes.c_int, ctypes.py_object,
                                 ctypes.c_void_p)
# A producer's deleter, called with the GIL held as C consumers do (some deleters assume it).
_DELETER = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)


# --------------------------------------------------------------------------- shared helpers

def dlpack_dtype(dtype: object, param: str = "dtype") -> tuple[DLDataTypeCode, int]:
    """(DLPack type code, bits) of an aclDataType; DLPackTypeError naming it when it has none."""
    dt = as_dtype(dtype, param)
    if dt in DLPACK_DTYPES:
        return DLPACK_DTYPES[dt]
    raise _refuse(DLPackTypeError, f"{param}={dt.name} has no DLPack type: {NO_DLPACK_REASON[dt]}"
                  f"; convert it first (astype) to a dtype DLPack carries")


def acl_dtype(code: int, bits: int, lanes: int = 1) -> aclDataType:
    """The aclDataType of a DLPack DLDataType; DLPackTypeError naming it when there is none."""
    name = DLDataTypeCode(code).name if code in DLDataTypeCode._value2member_map_ \
        else f"unknown type code {code}"
    described = f"DLPack dtype {name} (code={code}, bits={bits}, lanes={lanes})"
    if lanes != 1:
        raise _refuse(DLPackTypeError, f"{described} is a vector type: only lanes=1 is supported")
    found = _FROM_DLPACK.get((code, bits))
    if found is None:
        why = "sub-byte types are not supported" if bits % 8 else "it has no aclDataType"
        raise _refuse(DLPackTypeError, f"{described} cannot be imported: {why}")
    return found


def c_contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major element strides of `shape` (what a NULL DLTensor.strides means)."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def byte_bounds(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> tuple[int, int]:
    """(lo, hi): the bytes an element view touches, as offsets from its first element: lo <= 0
    is reached through negative strides, hi is one past the last byte; (0, 0) when empty."""
    if any(size == 0 for size in shape):
        return 0, 0
    lo = sum((size - 1) * step for size, step in zip(shape, strides) if step < 0)
    hi = sum((size - 1) * step for size, step in zip(shape, strides) if step > 0)
    return lo * itemsize, (hi + 1) * itemsize


def _int_tuple(values: object, param: str, lo: int) -> tuple[int, ...]:
    # The common case (a tuple of ints in range) first: the general validator costs more than
    # the export itself.
    if type(values) is tuple and all(type(v) is int and lo <= v <= INT64_MAX for v in values):
        return values
    what = "a sequence of ints" + (" >= 0" if lo == 0 else "")
    return int_sequence(values, param, lo, INT64_MAX, what)


def _device(device: object, param: str) -> tuple[int, int]:
    if type(device) is tuple and len(device) == 2 and type(device[0]) is int \
            and type(device[1]) is int and 1 <= device[0] < 2**31 and 0 <= device[1] < 2**31:
        kind, index = device
        return (DLDeviceType(kind) if kind in DLDeviceType._value2member_map_ else kind), index
    if not isinstance(device, (tuple, list)) or len(device) != 2:
        raise _refuse(AclnnTypeError if not isinstance(device, (tuple, list)) else AclnnValueError,
                      f"{param}={device!r} must be a (DLPack device type, device id) pair, e.g. "
                      f"(1, 0) for kDLCPU or (2, 0) for kDLCUDA device 0")
    kind = as_int(device[0], f"{param}[0]", 1, 2**31 - 1, "a DLPack device type")
    index = as_int(device[1], f"{param}[1]", 0, 2**31 - 1, "a device id")
    return (DLDeviceType(kind) if kind in DLDeviceType._value2member_map_ else kind), index


def _plain(device: tuple[int, int]) -> tuple[int, int]:
    return int(device[0]), int(device[1])


def wants_versioned(max_version: object) -> bool:
    """Whether a consumer's max_version asks for a versioned capsule (>= (1, 0)); refusals
    name the rule."""
    if max_version is None:
        return False
    if not isinstance(max_version, tuple) or len(max_version) != 2:
        raise _refuse(AclnnTypeError, f"max_version={max_version!r} must be None or a (major, "
                                      f"minor) tuple of ints")
    major = as_int(max_version[0], "max_version[0]", 0)
    minor = as_int(max_version[1], "max_version[1]", 0)
    return (major, minor) >= (1, 0)


# --------------------------------------------------------------------------- export

# The NumPy element type that gives NumPy's exporter the right item size; the DLPack dtype is
# written over what NumPy chose.
_VIEW_DTYPES = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
                8: np.dtype(np.uint64), 16: np.dtype(np.complex128)}


class _ExportedMemory:
    """The base of the NumPy array that an exported capsule's manager_ctx holds: keeps `owner`
    alive until the DLPack deleter releases that array (or the unconsumed capsule dies)."""

    __slots__ = ("owner", "__array_interface__")

    def __init__(self, owner: object, interface: dict) -> None:
        self.owner = owner
        self.__array_interface__ = interface


def _numpy_capsule(view: np.ndarray, versioned: bool, readonly: bool) -> object:
    if versioned:
        try:
            return view.__dlpack__(max_version=(1, 0))
        except TypeError:
            pass   # NumPy < 2.1 makes legacy capsules only, which the standard allows
    if readonly:
        raise _refuse(DLPackValueError, f"readonly=True needs a versioned capsule, which NumPy "
                                        f"{np.__version__} (it makes exported capsules) cannot "
                                        f"make")
    return view.__dlpack__()


def export_capsule(ptr: int, shape: Sequence[int], strides: Sequence[int], dtype: aclDataType,
                   device: tuple[int, int], owner: object,
                   max_version: tuple[int, int] | None = None, readonly: bool = False,
                   *, copied: bool = False) -> object:
    """A DLPack capsule viewing `shape` elements of `dtype` at `ptr` with `strides` (elements,
    may be negative), on `device` = (DLPack device type, id). `owner` stays alive until the
    consumer calls the deleter, or until the capsule dies unconsumed; it is released once.

    max_version None or < (1, 0): a legacy "dltensor" capsule; otherwise a "dltensor_versioned"
    one (version 1.1, READ_ONLY flag when `readonly`, IS_COPIED when `copied`). A legacy capsule
    cannot say read-only: readonly=True with it is refused. The memory is never touched here,
    so a device pointer is fine. Refusals are DLPackTypeError/DLPackValueError (BufferError).
    """
    dlpack_dtype(dtype)
    shape = _int_tuple(shape, "shape", 0)
    strides = _int_tuple(strides, "strides", -INT64_MAX)
    if len(shape) != len(strides):
        raise _refuse(AclnnValueError, f"strides={strides} has {len(strides)} entries but "
                                       f"shape={shape} has {len(shape)}: give one per dimension")
    ptr = as_pointer(ptr, "ptr")
    if ptr == 0 and 0 not in shape:
        raise _refuse(AclnnValueError, f"ptr=0 (NULL) for shape={shape}: only an empty tensor "
                                       f"may have a NULL data pointer")
    device = _plain(_device(device, "device"))
    versioned = wants_versioned(max_version)
    if readonly and not versioned:
        raise _refuse(DLPackValueError,
                      "readonly=True needs a versioned capsule (max_version >= (1, 0)): a legacy "
                      "DLPack capsule cannot mark memory read-only, and its consumer could write")
    return export_checked(ptr, shape, strides, as_dtype(dtype), device, owner, versioned,
                          readonly, copied)


# The aclDataTypes that NumPy dtypes of the same DLPack code and bits describe: a capsule of
# one of these on the host is NumPy's own, dtype and device written by NumPy.
_NUMPY_NATIVE = {dt: np.dtype(t) for dt, t in (
    (DT.ACL_BOOL, np.bool_), (DT.ACL_INT8, np.int8), (DT.ACL_INT16, np.int16),
    (DT.ACL_INT32, np.int32), (DT.ACL_INT64, np.int64), (DT.ACL_UINT8, np.uint8),
    (DT.ACL_UINT16, np.uint16), (DT.ACL_UINT32, np.uint32), (DT.ACL_UINT64, np.uint64),
    (DT.ACL_FLOAT16, np.float16), (DT.ACL_FLOAT, np.float32), (DT.ACL_DOUBLE, np.float64),
    (DT.ACL_COMPLEX64, np.complex64), (DT.ACL_COMPLEX128, np.complex128))}
_HOST = (int(DLDeviceType.kDLCPU), 0)
_VERSION_BYTES = bytes(DLPackVersion(*DLPACK_VERSION))
_COPIED_FLAG = ctypes.c_uint64(DLPACK_FLAG_BITMASK_IS_COPIED)
_FLAGS_AT = DLManagedTensorVersioned.flags.offset


def export_checked(ptr: int, shape: tuple[int, ...], strides: tuple[int, ...],
                   dtype: aclDataType, device: tuple[int, int], owner: object, versioned: bool,
                   readonly: bool = False, copied: bool = False) -> object:
    """export_capsule past its checks, for callers whose arguments are known good: `shape`
    and `strides` tuples of ints, `device` a plain (type, id) pair, `versioned` decided,
    readonly only with versioned."""
    if dtype not in DLPACK_DTYPES:
        dlpack_dtype(dtype)                  # refused, naming the dtype
    native = _NUMPY_NATIVE.get(dtype) if device == _HOST else None
    view_dtype = native if native is not None else _VIEW_DTYPES[INFO[dtype].itemsize]
    itemsize = view_dtype.itemsize
    interface = {"version": 3, "shape": shape, "typestr": view_dtype.str,
                 "strides": tuple(step * itemsize for step in strides) if shape else None,
                 # NumPy allocates a placeholder for a NULL empty view; `data` is set below
                 "data": (ptr, bool(readonly))}
    try:
        view = np.asarray(_ExportedMemory(owner, interface))
    except (ValueError, OverflowError) as exc:
        raise _refuse(DLPackValueError, f"shape={shape}, strides={strides}: NumPy, which manages "
                                        f"exported capsules, cannot describe them: {exc}") from exc

    capsule = _numpy_capsule(view, versioned, readonly)
    del view   # the capsule's manager_ctx holds it now
    versioned = bool(_capsule_is_valid(capsule, VERSIONED))

    address = _capsule_get_pointer(capsule, VERSIONED if versioned else LEGACY)
    if native is not None and ptr:
        # NumPy's capsule of NumPy's dtype on the host: its data (byte_offset 0), device and
        # dtype are what we would write, and its READ_ONLY flag follows the view's; our
        # version, and IS_COPIED, are written over its own.
        if versioned:
            ctypes.memmove(address, _VERSION_BYTES, len(_VERSION_BYTES))
            if copied:
                ctypes.memmove(address + _FLAGS_AT, ctypes.addressof(_COPIED_FLAG), 8)
        return capsule
    if versioned:
        managed = DLManagedTensorVersioned.from_address(address)
        managed.version.major, managed.version.minor = DLPACK_VERSION
        managed.flags = (DLPACK_FLAG_BITMASK_READ_ONLY if readonly else 0) | \
            (DLPACK_FLAG_BITMASK_IS_COPIED if copied else 0)
        tensor = managed.dl_tensor
    else:
        tensor = DLManagedTensor.from_address(address).dl_tensor
    code, bits = DLPACK_DTYPES[dtype]
    tensor.data = ptr or None
    tensor.byte_offset = 0
    tensor.device = DLDevice(device[0], device[1])
    tensor.dtype = DLDataType(int(code), bits, 1)
    return capsule


# --------------------------------------------------------------------------- import

class DLPackOwner:
    """Owns one imported DLManagedTensor(Versioned): calls the producer's deleter exactly once,
    on release() or when collected. Keep it alive as long as the memory is used."""

    __slots__ = ("_managed", "_deleter", "_lock", "__weakref__")
    # On the class: __del__ may run at shutdown, after the module's globals are cleared.
    _call_deleter = _DELETER

    def __init__(self, managed: int, deleter: int | None) -> None:
        self._managed = managed
        self._deleter = deleter
        self._lock = threading.Lock()

    @property
    def released(self) -> bool:
        return self._managed is None

    def release(self) -> None:
        """Hand the memory back to its producer (once; later calls do nothing)."""
        with self._lock:
            managed, self._managed = self._managed, None
        if managed is not None and self._deleter:
            self._call_deleter(self._deleter)(managed)

    def __del__(self) -> None:
        self.release()

    def __repr__(self) -> str:
        state = "released" if self._managed is None else f"managed tensor at {self._managed:#x}"
        return f"<DLPackOwner {state}>"


@dataclass(frozen=True, eq=False)
class Imported:
    """An imported DLPack tensor: `ptr` is data + byte_offset, `strides` are in elements (maybe
    negative), `nbytes_extent` counts the bytes from ptr to one past the last element reached
    with positive strides (byte_bounds gives those below ptr). `keepalive` owns the memory;
    `copied` says the producer made a copy for us (DLPACK_FLAG_BITMASK_IS_COPIED)."""

    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: aclDataType
    device: tuple[int, int]
    keepalive: DLPackOwner
    readonly: bool
    nbytes_extent: int
    copied: bool = False


def _request_capsule(obj: object, device: tuple[int, int] | None, copy: bool | None,
                     stream: object) -> object:
    """The producer's capsule, negotiated as the array API standard says: ask for DLPack 1.1
    and fall back to the legacy call when the producer does not know the keywords."""
    dlpack = getattr(obj, "__dlpack__", None)
    if dlpack is None:
        raise _refuse(AclnnTypeError, f"obj of type {type(obj).__name__} has no __dlpack__ "
                                      f"method: it does not speak DLPack")
    keywords: dict[str, object] = {"max_version": DLPACK_VERSION}
    if stream is not None:
        keywords["stream"] = stream
    if device is not None:
        keywords["dl_device"] = device
    if copy is not None:
        keywords["copy"] = copy
    try:
        return dlpack(**keywords)
    except TypeError:
        # A producer from before the 2023.12 standard knows only `stream`.
        return dlpack(**({"stream": stream} if stream is not None else {}))


def import_capsule(obj: object, device: tuple[int, int] | None = None, copy: bool | None = None,
                   *, stream: object = None) -> Imported:
    """Take the memory of `obj` (anything with __dlpack__: NumPy, PyTorch, CuPy, JAX, ours)
    without a copy. `device` (a (DLPack device type, id) pair) and `copy` are passed to the
    producer as dl_device and copy, `stream` as stream (see the module's note on streams).
    The capsule is renamed "used_..." and its deleter called when `keepalive` is released.

    A legacy producer cannot honour `copy`: the result then says copied=False and the caller
    copies if it asked for one. Refusals are DLPackTypeError/DLPackValueError (BufferError).
    """
    if device is not None:
        device = _device(device, "device")
    if copy is not None and not isinstance(copy, (bool, np.bool_)):
        raise _refuse(AclnnTypeError, f"copy={copy!r} must be None, True or False")
    imported = consume_capsule(_request_capsule(obj, device, copy, stream))
    if device is not None and tuple(imported.device) != device:
        imported.keepalive.release()
        raise _refuse(DLPackValueError, f"the producer ({type(obj).__name__}) returned memory on "
                                        f"device {_plain(imported.device)} but "
                                        f"dl_device={_plain(device)} was asked for")
    if copy is False and imported.copied:
        imported.keepalive.release()
        raise _refuse(DLPackValueError, f"copy=False but the producer ({type(obj).__name__}) "
                                        f"made a copy")
    return imported


def consume_capsule(capsule: object) -> Imported:
    """Take ownership of a DLPack capsule (rename it "used_...") and describe its tensor. Every
    refusal after the rename hands the tensor back to its producer first (the deleter runs)."""
    if type(capsule).__name__ != "PyCapsule":
        raise _refuse(AclnnTypeError, f"__dlpack__ returned a {type(capsule).__name__}, not a "
                                      f"DLPack capsule")
    if _capsule_is_valid(capsule, VERSIONED):
        name = VERSIONED
    elif _capsule_is_valid(capsule, LEGACY):
        name = LEGACY
    else:
        found = _capsule_get_name(capsule)
        if found in (b"used_dltensor", b"used_dltensor_versioned"):
            raise _refuse(DLPackValueError, "the DLPack capsule was already consumed: "
                                            "__dlpack__ must return a new capsule for each call")
        raise _refuse(AclnnTypeError, f"capsule named {found!r} is not a DLPack capsule "
                                      f"('dltensor' or 'dltensor_versioned')")
    address = _capsule_get_pointer(capsule, name)
    if name == VERSIONED:
        managed = DLManagedTensorVersioned.from_address(address)
    else:
        managed = DLManagedTensor.from_address(address)
    if _capsule_set_name(capsule, _USED_NAME[name]) != 0:
        raise RuntimeError("PyCapsule_SetName failed on a valid DLPack capsule")
    keepalive = DLPackOwner(address, managed.deleter)     # from here, the tensor is ours
    try:
        flags = 0
        if name == VERSIONED:
            # Only the fields up to `flags` are stable across major versions (dlpack.h).
            version = (managed.version.major, managed.version.minor)
            if version[0] != DLPACK_VERSION[0]:
                raise _refuse(DLPackValueError, f"DLPack version {version[0]}.{version[1]} cannot "
                                                f"be read: this codec speaks {DLPACK_VERSION[0]}.x")
            flags = managed.flags
        return _describe(managed.dl_tensor, flags, keepalive)
    except BaseException:
        keepalive.release()
        raise


def _describe(tensor: DLTensor, flags: int, keepalive: DLPackOwner) -> Imported:
    dtype = acl_dtype(tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes)
    ndim = tensor.ndim
    if ndim < 0:
        raise _refuse(DLPackValueError, f"DLTensor.ndim={ndim} is negative")
    if ndim and not tensor.shape:
        raise _refuse(DLPackValueError, f"DLTensor.shape is NULL with ndim={ndim}")
    shape = tuple(tensor.shape[:ndim]) if ndim else ()
    if any(size < 0 for size in shape):
        raise _refuse(DLPackValueError, f"DLTensor.shape={shape} has a negative extent")
    # NULL strides: C-contiguous (DLPack < 0.8 allowed it; 1.x producers should not send it).
    strides = tuple(tensor.strides[:ndim]) if ndim and tensor.strides else \
        c_contiguous_strides(shape)
    ptr = (tensor.data or 0) + tensor.byte_offset
    device_type = tensor.device.device_type
    device = (DLDeviceType(device_type) if device_type in DLDeviceType._value2member_map_
              else device_type, tensor.device.device_id)
    itemsize = tensor.dtype.bits // 8
    return Imported(ptr=ptr, shape=shape, strides=strides, dtype=dtype, device=device,
                    keepalive=keepalive, readonly=bool(flags & DLPACK_FLAG_BITMASK_READ_ONLY),
                    nbytes_extent=byte_bounds(shape, strides, itemsize)[1],
                    copied=bool(flags & DLPACK_FLAG_BITMASK_IS_COPIED))
