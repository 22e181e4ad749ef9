"""pyACL-style runtime facade (SPEC §1, §8): `acl.init`, `acl.finalize`, and `acl.rt.*`.

Every function returns its aclError code last and never raises for a user error; the message
of a failure is kept for `acl.get_recent_err_msg()`.
"""
from __future__ import annotations

from .. import status
from ..status import (ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR,  # noqa: F401 (re-exported)
                      ACL_ERROR_INVALID_DEVICE, ACL_ERROR_INVALID_PARAM, ACL_ERROR_UNINITIALIZE,
                      ACL_SUCCESS)
from . import rt
from .rt import resolve_stream

# aclrtMemcpyKind
ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_MEMCPY_DEFAULT = 4
# aclrtMemMallocPolicy
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEM_MALLOC_HUGE_ONLY = 1
ACL_MEM_MALLOC_NORMAL_ONLY = 2

_initialized = False


def init(config_path: str | None = None) -> int:
    """aclInit. Calling it again is harmless (returns success)."""
    global _initialized
    _initialized = True
    return ACL_SUCCESS


def finalize() -> int:
    """aclFinalize: waits for all streams."""
    global _initialized
    ret = rt.synchronize_device()
    _initialized = False
    return ret


def get_recent_err_msg() -> str:
    return status.recent_error()


__all__ = ["init", "finalize", "rt", "get_recent_err_msg", "resolve_stream"]
