"""acl.rt: devices, contexts, streams, events, memory (pyACL's conventions: values first,
ret last). Every function goes through the one C-style wrapper (`npu_emu._capi`): it returns
an aclError code and never raises.

Streams, events and contexts are opaque handles; None or 0 is the default stream. Device
pointers are ints. Host buffers are NumPy arrays (or bytes-like objects), or int addresses
with an explicit memcpy kind (checked to be mapped memory before they are touched).

Lifetimes are tracked (docs/c-api.md#lifetimes): reset_device and finalize release the memory,
streams and events made here; calls before acl.init or after acl.finalize
return ACL_ERROR_UNINITIALIZE (100001); memory, stream and event calls without a current
device (acl.rt.set_device or create_context) ACL_ERROR_RT_CONTEXT_NULL (107002); a destroyed
stream, event or context used again ACL_ERROR_INVALID_PARAM (100000).
"""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .. import _state, check, runtime
from .._capi import c_function, resolve_stream
from .._params import INT64_MAX, as_int, as_pointer, as_size
from ..dtypes import NamedIntEnum
from ..runtime.base import Event, Stream
from ..status import (ACL, AclnnError, ACL_ERROR_BAD_ALLOC, ACL_ERROR_INVALID_DEVICE,
                      ACL_ERROR_INVALID_PARAM)
from ._host import is_mapped


class aclrtMemcpyKind(NamedIntEnum):
    ACL_MEMCPY_HOST_TO_HOST = 0
    ACL_MEMCPY_HOST_TO_DEVICE = 1
    ACL_MEMCPY_DEVICE_TO_HOST = 2
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3
    ACL_MEMCPY_DEFAULT = 4


class aclrtMemMallocPolicy(NamedIntEnum):
    ACL_MEM_MALLOC_HUGE_FIRST = 0     # one pool serves all three
    ACL_MEM_MALLOC_HUGE_ONLY = 1
    ACL_MEM_MALLOC_NORMAL_ONLY = 2


K = aclrtMemcpyKind


def _invalid(message: str, kind: type | None = None) -> AclnnError:
    return AclnnError(ACL_ERROR_INVALID_PARAM, message, kind)


def _backend(what: str):
    _state.require_device(what)
    try:
        return runtime.current()
    except Exception as exc:
        raise AclnnError(ACL_ERROR_INVALID_DEVICE, f"no device backend: {exc}") from exc


def acl_call(n_values: int = 0, failure: Any = None):
    return c_function(ACL, n_values=n_values, failure=failure)


# ------------------------------------------------------------------------------- devices

def _device_id(device_id: object) -> int:
    d = as_int(device_id, "deviceId", what="a device id")
    if d != 0:
        raise AclnnError(ACL_ERROR_INVALID_DEVICE,
                         f"deviceId={d}: the emulator has one device, 0")
    return d


@acl_call()
def set_device(device_id):
    """aclrtSetDevice: make device 0 current (needed before memory, stream and event calls)."""
    d = _device_id(device_id)
    _state.require_initialized("acl.rt.set_device")
    runtime.current()
    _state.set_device(d)


@acl_call()
def reset_device(device_id):
    """aclrtResetDevice: wait for the device's work, release what acl.rt made on it (memory,
    streams, events: later use is refused) and release it as the current device."""
    d = _device_id(device_id)
    _state.require_initialized("acl.rt.reset_device")
    runtime.current().synchronize()
    _state.reset_device(d)    # releases the device's memory, streams and events (_release_device)


@acl_call(1)
def get_device():
    """(deviceId, ret) of the current device."""
    _state.require_device("acl.rt.get_device")
    return _state.current_device()


@acl_call(1)
def get_device_count():
    """(count, ret): the emulator has one device."""
    _state.require_initialized("acl.rt.get_device_count")
    return _state.DEVICES


@acl_call()
def synchronize_device():
    _backend("acl.rt.synchronize_device").synchronize()
    if check.ON:
        check.hook.sync_device()


# What acl.rt made that reset_device and finalize release, as CANN does: blocks from malloc
# (with their backend), streams from create_stream, events from create_event.
_acl_blocks: dict[int, Any] = {}
_acl_streams: dict[int, Stream] = {}
_acl_events: dict[int, Event] = {}


def _release_device(at: str) -> None:
    """Free what acl.rt made on the device when `at` (acl.rt.reset_device or acl.finalize)
    releases it: later use of those pointers, streams and events is refused
    (ACL_ERROR_INVALID_PARAM, the message naming `at`), as after aclrtResetDevice."""
    for ptr, be in list(_acl_blocks.items()):
        try:
            be.free(ptr)
        except AclnnError:
            pass                   # already gone with its pool
    for s in list(_acl_streams.values()):
        if not s.destroyed:
            s.released_by = f"{at} released it"
            s.destroy()
    for ev in _acl_events.values():
        ev.acl_destroyed = f"{at} released it"    # type: ignore[attr-defined]
    _acl_blocks.clear()
    _acl_streams.clear()
    _acl_events.clear()


_state.on_release(_release_device)


class Context:
    """aclrtContext: a device context (the emulator's one device)."""

    def __init__(self, device_id: int) -> None:
        self.device_id = device_id
        self.destroyed = False

    def __repr__(self) -> str:
        return f"aclrtContext(device {self.device_id}{', destroyed' if self.destroyed else ''})"


_current_context: Context | None = None


def _context(ctx: object) -> Context:
    if not isinstance(ctx, Context):
        raise _invalid(f"context={ctx!r} is not a context from acl.rt.create_context", TypeError)
    if ctx.destroyed:
        raise _invalid("context was destroyed (acl.rt.destroy_context)")
    return ctx


@acl_call(1)
def create_context(device_id):
    """(context, ret): a context on device 0, made current."""
    global _current_context
    d = _device_id(device_id)
    _state.require_initialized("acl.rt.create_context")
    _state.set_device(d)
    _current_context = Context(d)
    return _current_context


@acl_call()
def destroy_context(context):
    global _current_context
    ctx = _context(context)
    ctx.destroyed = True
    if _current_context is ctx:
        _current_context = None


@acl_call()
def set_context(context):
    global _current_context
    ctx = _context(context)
    _state.require_initialized("acl.rt.set_context")
    _state.set_device(ctx.device_id)
    _current_context = ctx


@acl_call(1)
def get_context():
    """(context, ret): the current context (None when only set_device was called)."""
    _state.require_device("acl.rt.get_context")
    return _current_context


# ------------------------------------------------------------------------------- streams

def _stream(stream: object, what: str) -> Stream:
    _state.require_device(what)
    if check.ON:
        check.hook.stream_arg(stream, what)
    if stream is not None:
        s = resolve_stream(stream)
        if s is not None:
            return s                 # made by a backend already: no need to ask for one
    return _backend(what).default_stream


@acl_call(1)
def create_stream():
    """(stream, ret): a new stream (launches on it run in order, asynchronously)."""
    be = _backend("acl.rt.create_stream")
    s = be.create_stream()
    _acl_streams[id(s)] = s
    if check.ON:
        check.hook.stream_created(s, be)
    return s


@acl_call()
def destroy_stream(stream):
    """Wait for the stream's work, then end it; later use is refused."""
    be = _backend("acl.rt.destroy_stream")
    if check.ON:
        check.hook.stream_arg(stream, "acl.rt.destroy_stream")
    s = resolve_stream(stream)
    if s is None:
        raise _invalid("stream is null; destroy a stream from acl.rt.create_stream")
    s.destroy()
    _acl_streams.pop(id(s), None)
    if check.ON:
        check.hook.stream_destroyed(s, be)


@acl_call()
def synchronize_stream(stream):
    s = _stream(stream, "acl.rt.synchronize_stream")
    s.synchronize()
    if check.ON:
        check.hook.sync_stream(s, runtime.current())


def _event(event: object) -> Event:
    if check.ON:
        check.hook.event_arg(event, "an acl.rt event call")
    if not isinstance(event, Event):
        raise _invalid(f"event={event!r} is not an event from acl.rt.create_event", TypeError)
    released = getattr(event, "acl_destroyed", False)
    if released:
        raise _invalid(f"event was destroyed ({released})")
    return event


@acl_call(1)
def create_event():
    """(event, ret): an event that can also time work (event_elapsed_time)."""
    ev = _backend("acl.rt.create_event").create_event(timing=True)
    _acl_events[id(ev)] = ev
    if check.ON:
        check.hook.event_created(ev)
    return ev


@acl_call(1)
def event_elapsed_time(start, end):
    """(ms, ret): aclrtEventElapsedTime, between two completed events."""
    _backend("acl.rt.event_elapsed_time")
    return _event(start).elapsed_ms(_event(end))


@acl_call()
def record_event(event, stream):
    ev = _event(event)
    s = _stream(stream, "acl.rt.record_event")
    ev.record(s)
    if check.ON:
        check.hook.record(ev, s, runtime.current())


@acl_call()
def synchronize_event(event):
    _backend("acl.rt.synchronize_event")
    ev = _event(event)
    ev.synchronize()
    if check.ON:
        check.hook.sync_event(ev)


@acl_call(1)
def query_event_status(event):
    """(done, ret): True when the event has completed."""
    _backend("acl.rt.query_event_status")
    ev = _event(event)
    done = ev.query()
    if check.ON and done:
        check.hook.sync_event(ev)   # the host saw it complete
    return done


@acl_call()
def stream_wait_event(stream, event):
    ev = _event(event)
    s = _stream(stream, "acl.rt.stream_wait_event")
    s.wait_event(ev)
    if check.ON:
        check.hook.wait(s, ev, runtime.current())


@acl_call()
def destroy_event(event):
    _backend("acl.rt.destroy_event")
    ev = _event(event)
    ev.acl_destroyed = "acl.rt.destroy_event"   # type: ignore[attr-defined]
    _acl_events.pop(id(ev), None)
    if check.ON:
        check.hook.event_destroyed(ev)


# -------------------------------------------------------------------------------- memory

@acl_call(1)
def malloc(size, policy=0):
    """(devPtr, ret): `size` bytes of device memory from the pool (256-byte aligned)."""
    n = as_int(size, "size", 1, INT64_MAX, "a positive number of bytes")
    p = as_int(policy, "policy", what="an aclrtMemMallocPolicy")
    if p not in aclrtMemMallocPolicy._value2member_map_:
        raise _invalid(f"policy={p} is not an aclrtMemMallocPolicy (0, 1 or 2)")
    be = _backend("acl.rt.malloc")
    try:
        ptr = be.malloc(n)
    except AclnnError:
        raise
    except (MemoryError, ValueError, OverflowError) as exc:
        raise AclnnError(ACL_ERROR_BAD_ALLOC, f"cannot allocate {n} bytes: {exc}") from None
    _acl_blocks[ptr] = be
    if check.ON:
        check.hook.malloc(ptr, n)
    return ptr


@acl_call()
def free(dev_ptr):
    """aclrtFree: give a block from acl.rt.malloc back to the pool."""
    p = as_pointer(dev_ptr, "devPtr", allow_null=False)
    if p == 0:
        raise _invalid("devPtr is null")
    be = _backend("acl.rt.free")
    if check.ON:
        check.hook.device_pointer(p, "devPtr", "acl.rt.free")
    be.free(p)
    _acl_blocks.pop(p, None)
    if check.ON:
        check.hook.free(p)


@acl_call(1)
def malloc_host(size):
    """(hostPtr, ret): `size` bytes of host memory (256-byte aligned), for memcpy; page-locked
    on the cuda backend (aclrtMallocHost), so memcpy_async from it does not wait."""
    n = as_int(size, "size", 1, INT64_MAX, "a positive number of bytes")
    be = _backend("acl.rt.malloc_host")
    try:
        return be.malloc_host(n)
    except (MemoryError, ValueError) as exc:
        raise AclnnError(ACL_ERROR_BAD_ALLOC, f"cannot allocate {n} bytes of host memory: {exc}") from None


@acl_call()
def free_host(host_ptr):
    """aclrtFreeHost: the copies from the block must be done (synchronize their stream)."""
    p = as_pointer(host_ptr, "hostPtr", allow_null=False)
    if not _backend("acl.rt.free_host").free_host(p):
        raise _invalid(f"hostPtr=0x{p:x} was not allocated by acl.rt.malloc_host (or was "
                       f"already freed)")


def _host_buffer(obj: object, need: int, name: str, writable: bool) -> tuple[int, np.ndarray | None]:
    """(address, array) of a host buffer: a NumPy array or bytes-like object (checked), or an
    int address (checked to be mapped, as C cannot)."""
    if isinstance(obj, (bytes, bytearray, memoryview)):
        obj = np.frombuffer(obj, dtype=np.uint8)
    if isinstance(obj, np.ndarray):
        if not obj.flags.c_contiguous:
            raise _invalid(f"{name} is a non-contiguous array; pass a C-contiguous one")
        if writable and not obj.flags.writeable:
            raise _invalid(f"{name} is a read-only buffer")
        if obj.nbytes < need:
            raise _invalid(f"{name} holds {obj.nbytes} bytes, fewer than the {need} to copy")
        return obj.ctypes.data, obj
    if obj is None:
        raise _invalid(f"{name} is null")
    addr = as_pointer(obj, name)
    if addr == 0:
        raise _invalid(f"{name} is null")
    if not is_mapped(addr, need, writable):
        raise _invalid(f"{name}=0x{addr:x}: {need} bytes from there are not "
                       f"{'writable' if writable else 'readable'} host memory of this process")
    return addr, None


def _host_bytes(obj: object, need: int, name: str, writable: bool) -> np.ndarray:
    """The first `need` bytes of a host buffer (checked by _host_buffer) as a uint8 array."""
    addr, arr = _host_buffer(obj, need, name, writable)
    if arr is not None:
        return arr.reshape(-1).view(np.uint8)[:need]
    return np.ctypeslib.as_array((ctypes.c_uint8 * max(need, 1)).from_address(addr))[:need]


def _device_range(be, ptr: object, count: int, name: str) -> int:
    p = as_pointer(ptr, name)
    if check.ON:
        check.hook.device_pointer(p, name, "acl.rt.memcpy/memset")
    if p == 0 or not be.allocator.contains(p, count):
        raise _invalid(f"{name}={ptr!r}: {count} bytes from there are not inside one live "
                       f"allocation from acl.rt.malloc")
    return p


def _is_device(be, obj: object) -> bool:
    if isinstance(obj, (bool, np.bool_)) or not isinstance(obj, (int, np.integer)):
        return False
    return be.allocator.contains(int(obj), 1)


def _memcpy(dst, dest_max, src, count, kind, stream) -> None:
    limit = as_size(dest_max, "destMax")
    n = as_size(count, "count")
    if n > limit:
        raise _invalid(f"count={n} is larger than destMax={limit}")
    k = as_int(kind, "kind", what="an aclrtMemcpyKind")
    if k not in aclrtMemcpyKind._value2member_map_:
        raise _invalid(f"kind={k} is not an aclrtMemcpyKind (0..4)")
    be = _backend("acl.rt.memcpy")
    if k == K.ACL_MEMCPY_DEFAULT:
        # Note: on the cpu backend host and device share one address space, so an int is
        # read as a device pointer here; a host buffer must be an array (a stale device
        # pointer is refused, not written as if it were host memory).
        for name, obj in (("dst", dst), ("src", src)):
            if isinstance(obj, (int, np.integer)) and not isinstance(obj, (bool, np.bool_)) \
                    and not _is_device(be, obj):
                raise _invalid(f"{name}={obj!r}: with ACL_MEMCPY_DEFAULT an int must be a live "
                               f"device pointer (freed memory?); give a host buffer as a NumPy "
                               f"array or name the direction")
        k = {(False, True): K.ACL_MEMCPY_HOST_TO_DEVICE, (True, False): K.ACL_MEMCPY_DEVICE_TO_HOST,
             (True, True): K.ACL_MEMCPY_DEVICE_TO_DEVICE, (False, False): K.ACL_MEMCPY_HOST_TO_HOST}[
            (_is_device(be, src), _is_device(be, dst))]
    if k == K.ACL_MEMCPY_HOST_TO_DEVICE:
        d = _device_range(be, dst, n, "dst")
        view = _host_bytes(src, n, "src", False)
        if n:
            if check.ON:
                check.hook.copy(check.H2D, d, 0, n, stream, be)
            be.copy_from_host(d, view, stream)
    elif k == K.ACL_MEMCPY_DEVICE_TO_HOST:
        s = _device_range(be, src, n, "src")
        view = _host_bytes(dst, n, "dst", True)
        if n:
            if check.ON:
                check.hook.copy(check.D2H, 0, s, n, stream, be)
            be.copy_to_host(view, s, stream)
    elif k == K.ACL_MEMCPY_DEVICE_TO_DEVICE:
        d, s = _device_range(be, dst, n, "dst"), _device_range(be, src, n, "src")
        if n:
            if check.ON:
                check.hook.copy(check.D2D, d, s, n, stream, be)
            be.copy_device(d, s, n, stream)
    else:
        d_addr, _ = _host_buffer(dst, n, "dst", True)
        s_addr, _ = _host_buffer(src, n, "src", False)
        if stream is not None:
            stream.synchronize()
        if n:
            ctypes.memmove(d_addr, s_addr, n)


@acl_call()
def memcpy(dst, destMax, src, count, kind):
    """aclrtMemcpy(dst, destMax, src, count, kind): synchronous with respect to the host."""
    _memcpy(dst, destMax, src, count, kind, None)


@acl_call()
def memcpy_async(dst, destMax, src, count, kind, stream):
    """aclrtMemcpyAsync: ordered on `stream`. A host buffer must stay alive until the
    stream is synchronized."""
    _memcpy(dst, destMax, src, count, kind, _stream(stream, "acl.rt.memcpy_async"))


def _memset(dev_ptr, max_count, value, count, stream) -> None:
    limit = as_size(max_count, "maxCount")
    n = as_size(count, "count")
    if n > limit:
        raise _invalid(f"count={n} is larger than maxCount={limit}")
    byte = as_int(value, "value", 0, 255, "a byte value")
    be = _backend("acl.rt.memset")
    p = _device_range(be, dev_ptr, max(n, 1), "devPtr")
    if n:
        if check.ON:
            check.hook.memset(p, n, stream, be)
        be.memset(p, byte, n, stream)


@acl_call()
def memset(dev_ptr, maxCount, value, count):
    """aclrtMemset(devPtr, maxCount, value, count): `count` bytes set to `value`."""
    _memset(dev_ptr, maxCount, value, count, None)


@acl_call()
def memset_async(dev_ptr, maxCount, value, count, stream):
    """aclrtMemsetAsync: ordered on `stream`."""
    _memset(dev_ptr, maxCount, value, count, _stream(stream, "acl.rt.memset_async"))


@acl_call(2)
def get_mem_info(attr=0):
    """(free, total, ret): the device's capacity is not modelled; this returns the pool's
    (bytes cached, bytes cached + in use)."""
    as_int(attr, "attr", 0, 16, "an aclrtMemAttr")
    stats = _backend("acl.rt.get_mem_info").memory_stats()
    return stats["bytes_cached"], stats["bytes_cached"] + stats["bytes_in_use"]
