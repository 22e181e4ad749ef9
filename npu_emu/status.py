"""Status codes of the aclnn API and the acl runtime (SPEC §8), and the one exception type.

Inside the package every user error raises :class:`AclnnError`; the C-style facades
(`npu_emu.aclnn`, `npu_emu.acl`) turn it into a return code and keep the message for
`aclGetRecentErrMsg()`.
"""
from __future__ import annotations

import threading

# aclnn status codes (aclnnStatus)
ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001
ACLNN_ERR_INNER = 561000
ACLNN_ERR_INNER_INFERSHAPE_ERROR = 561001
ACLNN_ERR_INNER_TILING_ERROR = 561002
ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003
ACLNN_ERR_INNER_CREATE_EXECUTOR = 561101
ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR = 561102
ACLNN_ERR_INNER_NULLPTR = 561103

# acl runtime codes (aclError)
ACL_SUCCESS = 0
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_UNINITIALIZE = 100001
ACL_ERROR_BAD_ALLOC = 200000
ACL_ERROR_INVALID_DEVICE = 200002
ACL_ERROR_INTERNAL_ERROR = 500000

STATUS_NAMES = {
    value: name
    for name, value in dict(globals()).items()
    if name.startswith(("ACLNN_", "ACL_")) and isinstance(value, int)
}


class AclnnError(Exception):
    """A failed aclnn/acl call: ``code`` is the status it returns, ``message`` says why."""

    def __init__(self, code: int, message: str):
        super().__init__(f"[{code}] {message}")
        self.code = int(code)
        self.message = message

    @property
    def name(self) -> str:
        return STATUS_NAMES.get(self.code, str(self.code))


def param_invalid(message: str) -> AclnnError:
    return AclnnError(ACLNN_ERR_PARAM_INVALID, message)


def nullptr(kind: str, name: str) -> AclnnError:
    # CANN's template (OP_CHECK_NULL)
    return AclnnError(
        ACLNN_ERR_PARAM_NULLPTR,
        f"Expected a value of type [{kind}] for argument [{name}] but instead found nullptr.",
    )


# The recent error message is per host thread, as in CANN.
_recent = threading.local()


def set_recent_error(message: str) -> None:
    _recent.message = message


def recent_error() -> str:
    return getattr(_recent, "message", "")
