"""The runtime's life, as pyACL has it: acl.init -> acl.rt.set_device -> ... ->
acl.rt.reset_device -> acl.finalize (docs/two-phase.md#lifetimes). reset_device and finalize
release what acl.rt made on the device (the releasers registered with `on_release`).

The C-style layer is strict about it: acl.rt calls before acl.init or after acl.finalize
return ACL_ERROR_UNINITIALIZE, memory/stream/event calls without a current device return
ACL_ERROR_RT_CONTEXT_NULL, aclnn operators then fail with 361001. The Python layers
(`npu_emu.device`, `npu_emu.format_cast`, the array API) start the runtime themselves, as
torch_npu does, and refuse to run after acl.finalize.
"""
from __future__ import annotations

import threading
from typing import Callable

from . import check
from .status import (AclnnError, ACL_ERROR_REPEAT_INITIALIZE, ACL_ERROR_RT_CONTEXT_NULL,
                     ACL_ERROR_UNINITIALIZE)

UNINITIALIZED, IMPLICIT, INITIALIZED, FINALIZED = "uninitialized", "implicit", "initialized", "finalized"
DEVICES = 1   # the emulator has one device, 0

_lock = threading.RLock()
_state = UNINITIALIZED
_device: int | None = None
_releasers: list[Callable[[], None]] = []


def on_release(release: Callable[[str], None]) -> None:
    """`release(at)` runs when acl.rt.reset_device or acl.finalize (`at`, that name)
    releases the device's resources (acl.rt registers the release of its memory, streams and
    events)."""
    _releasers.append(release)


def _release(at: str) -> None:
    if check.ON:
        check.hook.release(at)     # the sanitizer reports what the program left first
    for release in _releasers:
        release(at)


def state() -> str:
    return _state


def init() -> None:
    """acl.init: ACL_ERROR_REPEAT_INITIALIZE if acl.init already ran (and no finalize since)."""
    global _state
    with _lock:
        if _state == INITIALIZED:
            raise AclnnError(ACL_ERROR_REPEAT_INITIALIZE,
                             "acl.init was already called (call acl.finalize first to start over)")
        _state = INITIALIZED


def finalize() -> None:
    global _state, _device
    with _lock:
        if _state not in (INITIALIZED, IMPLICIT):
            raise AclnnError(ACL_ERROR_UNINITIALIZE,
                             f"acl.finalize: the runtime is {_state}; call acl.init first")
        _release("acl.finalize")
        _state = FINALIZED
        _device = None


def require_initialized(what: str, code: int = ACL_ERROR_UNINITIALIZE) -> None:
    """Refuse (with `code`: the aclnn layer's is 361001) unless the runtime is started."""
    if _state is not INITIALIZED and _state is not IMPLICIT:
        hint = "call acl.init() again" if _state == FINALIZED else "call acl.init() first"
        raise AclnnError(code, f"{what}: the runtime is {_state}; {hint}")


def set_device(device_id: int) -> None:
    global _device
    with _lock:
        require_initialized("acl.rt.set_device")
        _device = device_id


def reset_device(device_id: int) -> None:
    global _device
    with _lock:
        require_initialized("acl.rt.reset_device")
        if _device != device_id:
            raise AclnnError(ACL_ERROR_RT_CONTEXT_NULL,
                             f"acl.rt.reset_device({device_id}): device {device_id} is not set "
                             f"(acl.rt.set_device)")
        _release("acl.rt.reset_device")
        _device = None


def current_device() -> int | None:
    return _device


def require_device(what: str) -> None:
    """What acl.rt's memory, stream and event calls need: an initialized runtime and a
    current device (acl.rt.set_device or acl.rt.create_context)."""
    if _state is not INITIALIZED and _state is not IMPLICIT:
        require_initialized(what)
    if _device is None:
        raise AclnnError(ACL_ERROR_RT_CONTEXT_NULL,
                         f"{what}: no device is set; call acl.rt.set_device(0) first")


def ensure_started() -> None:
    """The Python layers' implicit start (device 0); after acl.finalize they refuse to run."""
    global _state, _device
    if _state in (INITIALIZED, IMPLICIT) and _device is not None:
        return
    with _lock:
        if _state == FINALIZED:
            raise AclnnError(ACL_ERROR_UNINITIALIZE,
                             "the runtime was finalized (acl.finalize); call acl.init() to use "
                             "the device again")
        if _state == UNINITIALIZED:
            _state = IMPLICIT
        if _device is None:
            _device = 0


def reset() -> None:
    """Back to the state of a fresh process (test isolation; not part of pyACL)."""
    global _state, _device
    with _lock:
        _state, _device = UNINITIALIZED, None
