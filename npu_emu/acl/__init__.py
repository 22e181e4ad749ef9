"""pyACL-style runtime facade (docs/c-api.md): `acl.init`, `acl.finalize`, `acl.rt.*`,
`acl.util.*`, and the constants pyACL users spell `acl.ACL_FLOAT`, `acl.ACL_FORMAT_ND`,
`acl.ACL_MEMCPY_HOST_TO_DEVICE`.

Every function returns its aclError code last and never raises; the message of a failure is
kept for `acl.get_recent_err_msg()`.
"""
from __future__ import annotations

from .. import _state, runtime, status
from .._capi import c_function, resolve_stream
from ..arch import current_soc
from ..dtypes import aclDataType
from ..formats import aclFormat
from ..status import (ACL, ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR,  # noqa: F401 (re-exported)
                      ACL_ERROR_INVALID_DEVICE, ACL_ERROR_INVALID_PARAM, ACL_ERROR_REPEAT_INITIALIZE,
                      ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_UNINITIALIZE, ACL_SUCCESS)
from . import rt, util
from .rt import aclrtMemcpyKind, aclrtMemMallocPolicy

# pyACL exports the enums' members at module level.
globals().update({m.name: m for enum in (aclrtMemcpyKind, aclrtMemMallocPolicy, aclDataType,
                                          aclFormat) for m in enum})


@c_function(ACL, n_values=0)
def init(config_path=None):
    """aclInit. A second call without acl.finalize in between returns
    ACL_ERROR_REPEAT_INITIALIZE (100002), as in CANN; the runtime stays initialized."""
    if config_path is not None and not isinstance(config_path, str):
        raise status.AclnnError(ACL_ERROR_INVALID_PARAM,
                                f"configPath={config_path!r} is not a path (a str) or None", TypeError)
    _state.init()


@c_function(ACL, n_values=0)
def finalize():
    """aclFinalize: waits for all streams; acl calls then return ACL_ERROR_UNINITIALIZE
    until acl.init is called again."""
    _state.require_initialized("acl.finalize")
    runtime.current().synchronize()
    _state.finalize()


def get_recent_err_msg() -> str:
    """The messages of the failed calls on this thread since the last read, latest first."""
    return status.recent_error()


def get_soc_name() -> str:
    """The name of the SoC whose rules apply (npu_emu.set_soc / NPU_EMU_SOC), as pyACL's
    acl.get_soc_name() names the chip it runs on."""
    return current_soc().name


__all__ = ["init", "finalize", "rt", "util", "get_recent_err_msg", "get_soc_name",
           "resolve_stream", "aclrtMemcpyKind", "aclrtMemMallocPolicy"]
