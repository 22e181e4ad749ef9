"""The Python side of the C ABI (libascendcl.so, docs/c-api.md#the-c-abi): one function per
exported C function, named as in C, called by npu_emu_capi.c with raw integers (addresses,
handle tokens, enum values). Each converts them into what the C-style facade takes
(npu_emu.acl, npu_emu.aclnn), calls it and returns its status code first: `code` or
`(code, values...)`. The semantics, checks and messages are the facade's; this module only
maps handles and reads the C arrays the caller passed.

Handles: C gets a token (an integer that is no address) for every object the facade returns;
the token maps to the object in `HANDLES`. Tokens are never reused, so a destroyed or stale
token is recognized: destroyed objects stay mapped (the most recent MAX_DEAD of them) so that
using one again gets the facade's own "already destroyed" status and message.
"""
from __future__ import annotations

import ctypes
import functools
import itertools
import struct
import sys
from collections import deque
from typing import Any, Callable

import numpy as np

from .. import _capi, acl, aclnn, check, status
from ..acl import rt
from ..dtypes import INFO, aclDataType
from ..status import ACL, ACLNN, AclnnError

MAX_DEAD = 1024          # destroyed handles still recognized as such (older: StaleHandle)
MAX_ARRAY = 1 << 20      # a longer C array is refused (an uninitialized count, not a shape)
TOKEN_BASE, TOKEN_STEP = 0x5EED0000, 16


class StaleHandle:
    """What an unknown token maps to: the facade refuses it with its own type message."""

    def __init__(self, token: int) -> None:
        self.token = token

    def __repr__(self) -> str:
        return f"<0x{self.token:x}: not a live handle of npu_emu's C ABI>"


class Handles:
    """token <-> object. Thread-safe under the GIL without a lock: every step is one dict
    operation or next() on a count, each atomic; two threads retiring one token cannot both
    pop it."""

    def __init__(self) -> None:
        self.live: dict[int, object] = {}
        self.token_of: dict[int, int] = {}           # id(object) -> token, live objects only
        self.dead: dict[int, object] = {}
        self.dead_order: deque[int] = deque()        # the oldest first (a dict is no queue)
        self.tokens = itertools.count(TOKEN_BASE, TOKEN_STEP)

    def new(self, obj: object) -> int:
        if obj is None:
            return 0
        token = self.token_of.get(id(obj))
        if token is None:
            token = next(self.tokens)
            self.live[token] = obj
            self.token_of[id(obj)] = token
        return token

    def get(self, token: int) -> object:
        if not token:
            return None
        obj = self.live.get(token)
        if obj is None:
            obj = self.dead.get(token)
            if obj is None:
                return StaleHandle(token)
        return obj

    def retire(self, token: int) -> None:
        """The object was destroyed: keep it as a tombstone (its own checks refuse it)."""
        obj = self.live.pop(token, None)
        if obj is None:
            return
        self.token_of.pop(id(obj), None)
        self.dead[token] = obj
        self.dead_order.append(token)
        if len(self.dead_order) > MAX_DEAD:
            try:
                self.dead.pop(self.dead_order.popleft(), None)
            except IndexError:       # another thread trimmed it
                pass

    def clear(self) -> None:
        self.live.clear()
        self.token_of.clear()
        self.dead.clear()
        self.dead_order.clear()

    def __len__(self) -> int:
        return len(self.live)


HANDLES = Handles()
H = HANDLES.get


def _guard(family: str) -> Callable[[Callable], Callable]:
    """A failure in the conversions here is a status code of `family` with its message kept,
    as the facade's own failures are (the facade never raises)."""
    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any) -> Any:
            try:
                if check.ON:        # the sanitizer names the C function the program called
                    with check.c_call(_c_symbol(fn.__name__, args)):
                        return fn(*args)
                return fn(*args)
            except AclnnError as err:
                status.set_recent_error(err.message)
                return status.in_family(err.code, family)
            except Exception as exc:
                err = _capi.internal_error(fn.__name__, exc, family, None)
                status.set_recent_error(err.message)
                return status.in_family(err.code, family)
        return wrapper
    return deco


def _c_symbol(name: str, args: tuple) -> str:
    """The C function a bridge call serves (phase_one/phase_two: the operator's own)."""
    if name in ("phase_one", "phase_two") and args and 0 <= args[0] < len(OPS):
        return OPS[args[0]][0] + ("GetWorkspaceSize" if name == "phase_one" else "")
    return name


def _invalid(message: str) -> AclnnError:
    return AclnnError(status.ACLNN_ERR_PARAM_INVALID, message)


def _c_array(addr: int, count: int, fmt: str, name: str) -> list | None:
    """The `count` elements (struct format `fmt`) of the C array at `addr`; None for a null
    pointer with a non-zero count (the facade reports it), [] for a count of 0."""
    if count == 0:
        return []
    if not addr:
        return None
    if count > MAX_ARRAY:
        raise _invalid(f"{name}: {count} elements is beyond the {MAX_ARRAY} an array of the "
                       f"C ABI may hold (an uninitialized count?)")
    size = struct.calcsize(fmt)
    return list(struct.unpack(f"{count}{fmt}", ctypes.string_at(addr, size * count)))


# ------------------------------------------------------------------------ the C library

# By the C side's index: (name, phase one, phase two, which parameters are handles, or None
# when all are).
OPS: list[tuple[str, Callable, Callable, tuple[bool, ...] | None]] = []
EMBEDDED = False


def _start(op_names: tuple[str, ...], embedded: bool) -> None:
    """Called once by the library: its operator list (checked against the facade's)."""
    global EMBEDDED
    EMBEDDED = bool(embedded)
    missing = [n for n in op_names if n not in aclnn.OPERATORS]
    if missing:
        raise RuntimeError(f"the C library was built for operators npu_emu lacks: {missing} "
                           f"(rebuild it: npu-emu build-capi)")
    ops = []
    for n in op_names:
        handles = tuple(p.ctype in ("aclTensor", "aclIntArray", "aclScalar")
                        for p in aclnn.OPERATORS[n].params)
        ops.append((n, getattr(aclnn, n + "GetWorkspaceSize"), getattr(aclnn, n),
                    None if all(handles) else handles))
    OPS[:] = ops


def null_output(fname: str, ctype: str, param: str) -> int:
    """A C output pointer that is null (Python has no output parameters)."""
    err = status.nullptr(ctype, param)
    status.set_recent_error(f"{fname}: {err.message}")
    family = ACLNN if fname.startswith("aclnn") or fname in ACLNN_BASE else ACL
    return status.in_family(err.code, family)


def at_exit() -> None:
    """The C program exits (embedded interpreter only): Python's exit handlers and buffered
    output, nothing that touches the device (its work ends with the process, as on an NPU)."""
    import atexit
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def aclGetRecentErrMsg() -> str:
    return aclnn.aclGetRecentErrMsg()


def aclrtGetSocName() -> str:
    return acl.get_soc_name()


# ------------------------------------------------------------------------------ aclnn ops

@_guard(ACLNN)
def phase_one(op: int, *args: int):
    _, get_ws, _, is_handle = OPS[op]
    if is_handle is None:
        ws, ex, ret = get_ws(*map(H, args))
    else:
        ws, ex, ret = get_ws(*[H(a) if h else a for a, h in zip(args, is_handle)])
    return ret, ws, HANDLES.new(ex)


@_guard(ACLNN)
def phase_two(op: int, workspace: int, workspace_size: int, executor: int, stream: int):
    ex = H(executor)
    ret = OPS[op][2](workspace or None, workspace_size, ex, H(stream))
    if ret == 0 and not ex.repeatable:
        HANDLES.retire(executor)     # a one-shot executor ends with its run, as in CANN
    return ret


@_guard(ACLNN)
def aclnnNpuFormatCastCalculateSizeAndFormat(src: int, dst_format: int, additional_dtype: int):
    shape, actual, ret = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(H(src), dst_format,
                                                                        additional_dtype)
    return ret, shape, None if actual is None else int(actual)


# ------------------------------------------------------------------- tensors and friends

@_guard(ACLNN)
def aclCreateTensor(view_dims, n_view, dtype, strides, offset, fmt, storage_dims, n_storage, data):
    shape = _c_array(view_dims, n_view, "q", "viewDims")
    stride = None if not strides else _c_array(strides, n_view, "q", "stride")
    storage = _c_array(storage_dims, n_storage, "q", "storageDims")
    return 0, HANDLES.new(aclnn.aclCreateTensor(shape, dtype, stride, offset, fmt, storage,
                                                data or None))


def _scalar_value(addr: int, dtype: int) -> object:
    """The element at `addr` in `dtype`'s storage (its host type where one of the same size
    exists: bf16, fp16, the 8-bit floats), as a 0-d array (the facade's `&value`)."""
    if not addr:
        return None
    try:
        info = INFO[aclDataType(dtype)]
    except (ValueError, KeyError):
        return 0        # the facade refuses the dtype, with its own message
    if info.storage is None:
        return 0
    raw = np.frombuffer(ctypes.string_at(addr, info.itemsize), dtype=info.storage)
    if info.host is not None and info.host.itemsize == info.storage.itemsize:
        raw = raw.view(info.host)
    return raw.reshape(())


@_guard(ACLNN)
def aclCreateScalar(value: int, dtype: int):
    return 0, HANDLES.new(aclnn.aclCreateScalar(_scalar_value(value, dtype), dtype))


@_guard(ACLNN)
def aclCreateIntArray(value: int, size: int):
    return 0, HANDLES.new(aclnn.aclCreateIntArray(_c_array(value, size, "q", "value")))


@_guard(ACLNN)
def aclCreateFloatArray(value: int, size: int):
    return 0, HANDLES.new(aclnn.aclCreateFloatArray(_c_array(value, size, "f", "value")))


@_guard(ACLNN)
def aclCreateBoolArray(value: int, size: int):
    return 0, HANDLES.new(aclnn.aclCreateBoolArray(_c_array(value, size, "?", "value")))


@_guard(ACLNN)
def aclCreateTensorList(value: int, size: int):
    tokens = _c_array(value, size, "Q", "value")
    items = None if tokens is None else [H(t) for t in tokens]
    return 0, HANDLES.new(aclnn.aclCreateTensorList(items))


def _destroy(facade: Callable) -> Callable:
    def destroy(token: int) -> int:
        ret = facade(H(token))
        if ret == 0 and token:
            HANDLES.retire(token)
        return ret
    destroy.__name__ = facade.__name__
    return _guard(ACLNN)(destroy)


aclDestroyTensor = _destroy(aclnn.aclDestroyTensor)
aclDestroyScalar = _destroy(aclnn.aclDestroyScalar)
aclDestroyIntArray = _destroy(aclnn.aclDestroyIntArray)
aclDestroyFloatArray = _destroy(aclnn.aclDestroyFloatArray)
aclDestroyBoolArray = _destroy(aclnn.aclDestroyBoolArray)
aclDestroyTensorList = _destroy(aclnn.aclDestroyTensorList)


def _get(facade: Callable) -> Callable:
    def get(token: int):
        value, ret = facade(H(token))
        return ret, (int(value) if isinstance(value, int) else value)
    get.__name__ = facade.__name__
    return _guard(ACLNN)(get)


aclGetViewShape = _get(aclnn.aclGetViewShape)
aclGetViewStrides = _get(aclnn.aclGetViewStrides)
aclGetViewOffset = _get(aclnn.aclGetViewOffset)
aclGetStorageShape = _get(aclnn.aclGetStorageShape)
aclGetFormat = _get(aclnn.aclGetFormat)
aclGetDataType = _get(aclnn.aclGetDataType)


@_guard(ACLNN)
def aclSetAclOpExecutorRepeatable(executor: int):
    return aclnn.aclSetAclOpExecutorRepeatable(H(executor))


@_guard(ACLNN)
def aclDestroyAclOpExecutor(executor: int):
    ret = aclnn.aclDestroyAclOpExecutor(H(executor))
    if ret == 0:
        HANDLES.retire(executor)
    return ret


@_guard(ACLNN)
def aclSetInputTensorAddr(executor: int, index: int, tensor: int, addr: int):
    return aclnn.aclSetInputTensorAddr(H(executor), index, H(tensor), addr)


@_guard(ACLNN)
def aclSetOutputTensorAddr(executor: int, index: int, tensor: int, addr: int):
    return aclnn.aclSetOutputTensorAddr(H(executor), index, H(tensor), addr)


# The functions above that return aclnn codes besides the operators (for null_output).
ACLNN_BASE = frozenset(n for n in dir() if n.startswith(("aclCreate", "aclDestroy", "aclGet", "aclSet"))
                       and n != "aclGetRecentErrMsg")

# --------------------------------------------------------------------------- the runtime

@_guard(ACL)
def aclInit(config_path: bytes | None):
    return acl.init(None if config_path is None else config_path.decode(errors="replace"))


@_guard(ACL)
def aclFinalize():
    ret = acl.finalize()
    if ret == 0:
        HANDLES.clear()              # nothing of this runtime outlives it
    return ret


@_guard(ACL)
def aclrtSetDevice(device_id: int):
    return rt.set_device(device_id)


@_guard(ACL)
def aclrtResetDevice(device_id: int):
    return rt.reset_device(device_id)


@_guard(ACL)
def aclrtGetDevice():
    return rt.get_device()[::-1]


@_guard(ACL)
def aclrtGetDeviceCount():
    return rt.get_device_count()[::-1]


@_guard(ACL)
def aclrtSynchronizeDevice():
    return rt.synchronize_device()


@_guard(ACL)
def aclrtCreateContext(device_id: int):
    ctx, ret = rt.create_context(device_id)
    return ret, HANDLES.new(ctx)


@_guard(ACL)
def aclrtDestroyContext(context: int):
    ret = rt.destroy_context(H(context))
    if ret == 0:
        HANDLES.retire(context)
    return ret


@_guard(ACL)
def aclrtSetCurrentContext(context: int):
    return rt.set_context(H(context))


@_guard(ACL)
def aclrtGetCurrentContext():
    ctx, ret = rt.get_context()
    return ret, HANDLES.new(ctx)


@_guard(ACL)
def aclrtCreateStream():
    stream, ret = rt.create_stream()
    return ret, HANDLES.new(stream)


@_guard(ACL)
def aclrtDestroyStream(stream: int):
    ret = rt.destroy_stream(H(stream))
    if ret == 0:
        HANDLES.retire(stream)
    return ret


@_guard(ACL)
def aclrtSynchronizeStream(stream: int):
    return rt.synchronize_stream(H(stream))


@_guard(ACL)
def aclrtCreateEvent():
    event, ret = rt.create_event()
    return ret, HANDLES.new(event)


@_guard(ACL)
def aclrtDestroyEvent(event: int):
    ret = rt.destroy_event(H(event))
    if ret == 0:
        HANDLES.retire(event)
    return ret


@_guard(ACL)
def aclrtRecordEvent(event: int, stream: int):
    return rt.record_event(H(event), H(stream))


@_guard(ACL)
def aclrtSynchronizeEvent(event: int):
    return rt.synchronize_event(H(event))


@_guard(ACL)
def aclrtQueryEventStatus(event: int):
    done, ret = rt.query_event_status(H(event))
    return ret, 1 if done else 0


@_guard(ACL)
def aclrtStreamWaitEvent(stream: int, event: int):
    return rt.stream_wait_event(H(stream), H(event))


@_guard(ACL)
def aclrtEventElapsedTime(start: int, end: int):
    ms, ret = rt.event_elapsed_time(H(start), H(end))
    return ret, ms


@_guard(ACL)
def aclrtMalloc(size: int, policy: int):
    ptr, ret = rt.malloc(size, policy)
    return ret, ptr


@_guard(ACL)
def aclrtFree(ptr: int):
    return rt.free(ptr)


@_guard(ACL)
def aclrtMallocHost(size: int):
    ptr, ret = rt.malloc_host(size)
    return ret, ptr


@_guard(ACL)
def aclrtFreeHost(ptr: int):
    return rt.free_host(ptr)


@_guard(ACL)
def aclrtMemcpy(dst: int, dest_max: int, src: int, count: int, kind: int):
    return rt.memcpy(dst or None, dest_max, src or None, count, kind)


@_guard(ACL)
def aclrtMemcpyAsync(dst: int, dest_max: int, src: int, count: int, kind: int, stream: int):
    return rt.memcpy_async(dst or None, dest_max, src or None, count, kind, H(stream))


@_guard(ACL)
def aclrtMemset(ptr: int, max_count: int, value: int, count: int):
    return rt.memset(ptr, max_count, value, count)


@_guard(ACL)
def aclrtMemsetAsync(ptr: int, max_count: int, value: int, count: int, stream: int):
    return rt.memset_async(ptr, max_count, value, count, H(stream))


@_guard(ACL)
def aclrtGetMemInfo(attr: int):
    free, total, ret = rt.get_mem_info(attr)
    return ret, free, total
