"""acl.rt: devices, streams, events, memory (pyACL's conventions: values first, ret last).

Streams and events are opaque handles (our Stream/Event objects); None or 0 is the default
stream. Device pointers are ints. Host buffers may be NumPy arrays or int addresses.
"""
from __future__ import annotations

import ctypes
import functools
from typing import Any, Callable

import numpy as np

from .. import runtime, status
from ..runtime.base import Event, Stream
from ..status import (AclnnError, ACL_ERROR_INTERNAL_ERROR,
                      ACL_ERROR_INVALID_DEVICE, ACL_ERROR_INVALID_PARAM, ACL_SUCCESS)

_HOST_TO_HOST, _HOST_TO_DEVICE, _DEVICE_TO_HOST, _DEVICE_TO_DEVICE, _DEFAULT = range(5)
_POLICIES = (0, 1, 2)  # HUGE_FIRST, HUGE_ONLY, NORMAL_ONLY: one pool serves all three
_device_id = 0


def _invalid(message: str) -> AclnnError:
    return AclnnError(ACL_ERROR_INVALID_PARAM, message)


def _acl_call(n_values: int) -> Callable:
    """Turn exceptions into aclError codes: AclnnError keeps its code, anything unexpected
    becomes ACL_ERROR_INTERNAL_ERROR. n_values: how many values precede ret."""
    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any):
            try:
                result = fn(*args, **kwargs)
                code = ACL_SUCCESS
            except AclnnError as err:
                status.set_recent_error(err.message)
                result, code = (None,) * n_values, err.code
            except Exception as exc:  # never let a runtime failure escape as an exception
                status.set_recent_error(f"{fn.__name__}: {exc}")
                result, code = (None,) * n_values, ACL_ERROR_INTERNAL_ERROR
            if n_values == 0:
                return code
            if n_values == 1:
                return (result if code == ACL_SUCCESS else None), code
            return (*result, code)
        return wrapper
    return deco


def _backend():
    try:
        return runtime.current()
    except Exception as exc:
        raise AclnnError(ACL_ERROR_INVALID_DEVICE, f"no device backend: {exc}") from exc


def resolve_stream(stream: object) -> Stream | None:
    """None or 0 -> the default stream; otherwise a handle from create_stream."""
    if stream is None or (isinstance(stream, int) and stream == 0):
        return None
    if not isinstance(stream, Stream):
        raise AclnnError(ACL_ERROR_INVALID_PARAM,
                         f"stream={stream!r} is not a stream from acl.rt.create_stream")
    return stream


# ------------------------------------------------------------------------------- devices

@_acl_call(0)
def set_device(device_id: int) -> None:
    global _device_id
    if not isinstance(device_id, int) or device_id != 0:
        raise AclnnError(ACL_ERROR_INVALID_DEVICE,
                         f"deviceId={device_id!r}: the emulator has one device, 0")
    _backend()
    _device_id = device_id


@_acl_call(0)
def reset_device(device_id: int) -> None:
    if device_id != 0:
        raise AclnnError(ACL_ERROR_INVALID_DEVICE, f"deviceId={device_id!r}: only device 0 exists")
    _backend().synchronize()


@_acl_call(1)
def get_device() -> int:
    return _device_id


@_acl_call(0)
def synchronize_device() -> None:
    _backend().synchronize()


# ------------------------------------------------------------------------------- streams

@_acl_call(1)
def create_stream() -> Stream:
    return _backend().create_stream()


@_acl_call(0)
def destroy_stream(stream: Stream) -> None:
    s = resolve_stream(stream)
    if s is None:
        raise _invalid("stream is null; destroy a stream from acl.rt.create_stream")
    s.destroy()


@_acl_call(0)
def synchronize_stream(stream: Stream | None) -> None:
    s = resolve_stream(stream)
    (s or _backend().default_stream).synchronize()


@_acl_call(1)
def create_event() -> Event:
    return _backend().create_event()


def _event(event: object) -> Event:
    if not isinstance(event, Event):
        raise _invalid(f"event={event!r} is not an event from acl.rt.create_event")
    return event


@_acl_call(0)
def record_event(event: Event, stream: Stream | None) -> None:
    _event(event).record(resolve_stream(stream) or _backend().default_stream)


@_acl_call(0)
def synchronize_event(event: Event) -> None:
    _event(event).synchronize()


@_acl_call(1)
def query_event_status(event: Event) -> bool:
    """True when the event has completed."""
    return _event(event).query()


@_acl_call(0)
def stream_wait_event(stream: Stream | None, event: Event) -> None:
    (resolve_stream(stream) or _backend().default_stream).wait_event(_event(event))


@_acl_call(0)
def destroy_event(event: Event) -> None:
    _event(event)


# -------------------------------------------------------------------------------- memory

@_acl_call(1)
def malloc(size: int, policy: int = 0) -> int:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size <= 0:
        raise _invalid(f"size={size!r}: aclrtMalloc needs a positive number of bytes")
    if policy not in _POLICIES:
        raise _invalid(f"policy={policy!r} is not an aclrtMemMallocPolicy (0, 1 or 2)")
    return _backend().malloc(int(size))


@_acl_call(0)
def free(dev_ptr: int) -> None:
    if dev_ptr is None or dev_ptr == 0:
        raise _invalid("devPtr is null")
    if not isinstance(dev_ptr, (int, np.integer)):
        raise _invalid(f"devPtr={dev_ptr!r} is not a device pointer")
    _backend().free(int(dev_ptr))


def _host_buffer(obj: object, need: int, name: str, writable: bool) -> tuple[int, np.ndarray | None]:
    """(address, array) of a host buffer: a NumPy array (checked) or an int address (trusted,
    as C trusts a pointer)."""
    if isinstance(obj, np.ndarray):
        if not obj.flags.c_contiguous:
            raise _invalid(f"{name} is a non-contiguous array; pass a C-contiguous one")
        if writable and not obj.flags.writeable:
            raise _invalid(f"{name} is a read-only array")
        if obj.nbytes < need:
            raise _invalid(f"{name} holds {obj.nbytes} bytes, fewer than the {need} to copy")
        return obj.ctypes.data, obj
    if isinstance(obj, (bytes, bytearray, memoryview)):
        arr = np.frombuffer(obj, dtype=np.uint8)
        return _host_buffer(arr, need, name, writable)
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool) and obj != 0:
        return int(obj), None
    raise _invalid(f"{name}={obj!r} is not a host buffer (a NumPy array or an address)")


def _device_range(be, ptr: object, count: int, name: str) -> int:
    if not isinstance(ptr, (int, np.integer)) or isinstance(ptr, bool) or ptr == 0:
        raise _invalid(f"{name}={ptr!r} is not a device pointer")
    if not be.allocator.contains(int(ptr), count):
        raise _invalid(f"{name}=0x{int(ptr):x}: {count} bytes from there are not inside one "
                       f"allocation from acl.rt.malloc")
    return int(ptr)


def _is_device(be, obj: object) -> bool:
    return isinstance(obj, (int, np.integer)) and be.allocator.contains(int(obj), 1)


@_acl_call(0)
def memcpy(dst: object, dest_max: int, src: object, count: int, kind: int) -> None:
    """aclrtMemcpy(dst, destMax, src, count, kind): synchronous with respect to the host."""
    _memcpy(dst, dest_max, src, count, kind, None)


@_acl_call(0)
def memcpy_async(dst: object, dest_max: int, src: object, count: int, kind: int,
                 stream: Stream | None) -> None:
    """aclrtMemcpyAsync: ordered on `stream`. A host buffer must stay alive until the
    stream is synchronized."""
    _memcpy(dst, dest_max, src, count, kind, resolve_stream(stream) or _backend().default_stream)


def _memcpy(dst, dest_max, src, count, kind, stream) -> None:
    for name, v in (("destMax", dest_max), ("count", count)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise _invalid(f"{name}={v!r} must be a non-negative int")
    if count > dest_max:
        raise _invalid(f"count={count} is larger than destMax={dest_max}")
    if kind not in range(5):
        raise _invalid(f"kind={kind!r} is not an aclrtMemcpyKind (0..4)")
    be = _backend()
    if kind == _DEFAULT:
        kind = {(False, True): _HOST_TO_DEVICE, (True, False): _DEVICE_TO_HOST,
                (True, True): _DEVICE_TO_DEVICE, (False, False): _HOST_TO_HOST}[
            (_is_device(be, src), _is_device(be, dst))]
    if count == 0:
        return
    if kind == _HOST_TO_DEVICE:
        d = _device_range(be, dst, count, "dst")
        s_addr, s_arr = _host_buffer(src, count, "src", False)
        view = (s_arr.reshape(-1).view(np.uint8)[:count] if s_arr is not None else
                np.ctypeslib.as_array((ctypes.c_uint8 * count).from_address(s_addr)))
        be.copy_from_host(d, view, stream)
    elif kind == _DEVICE_TO_HOST:
        s = _device_range(be, src, count, "src")
        d_addr, d_arr = _host_buffer(dst, count, "dst", True)
        view = (d_arr.reshape(-1).view(np.uint8)[:count] if d_arr is not None else
                np.ctypeslib.as_array((ctypes.c_uint8 * count).from_address(d_addr)))
        be.copy_to_host(view, s, stream)
    elif kind == _DEVICE_TO_DEVICE:
        be.copy_device(_device_range(be, dst, count, "dst"), _device_range(be, src, count, "src"),
                       count, stream)
    else:
        d_addr, _ = _host_buffer(dst, count, "dst", True)
        s_addr, _ = _host_buffer(src, count, "src", False)
        if stream is not None:
            stream.synchronize()
        ctypes.memmove(d_addr, s_addr, count)


@_acl_call(0)
def memset(dev_ptr: int, max_count: int, value: int, count: int) -> None:
    """aclrtMemset(devPtr, maxCount, value, count): bytes set to `value`."""
    if count > max_count:
        raise _invalid(f"count={count} is larger than maxCount={max_count}")
    if not 0 <= int(value) <= 255:
        raise _invalid(f"value={value!r} must be a byte (0..255)")
    be = _backend()
    if count:
        be.memset(_device_range(be, dev_ptr, count, "devPtr"), int(value), int(count))


@_acl_call(2)
def get_mem_info() -> tuple[int, int]:
    """(free, total): the device's capacity is not modelled; this returns the pool's
    (bytes cached, bytes cached + in use)."""
    stats = _backend().memory_stats()
    return (stats["bytes_cached"], stats["bytes_cached"] + stats["bytes_in_use"])
