"""Status codes of the aclnn API and the acl runtime (docs/status-codes.md), and the one
exception type.

Inside the package every user error raises :class:`AclnnError`; the C-style facades
(`npu_emu.aclnn`, `npu_emu.acl`) turn it into a return code of their own family and keep the
message for `aclGetRecentErrMsg()`. The Python layers (the array API, `npu_emu.format_cast`)
let it through: it is also a TypeError, ValueError, RuntimeError or MemoryError, as a Python
user expects.
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
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_RT_CONTEXT_NULL = 107002
ACL_ERROR_BAD_ALLOC = 200000
ACL_ERROR_INVALID_DEVICE = 200002
ACL_ERROR_INTERNAL_ERROR = 500000

STATUS_NAMES = {
    value: name
    for name, value in dict(globals()).items()
    if name.startswith(("ACLNN_", "ACL_")) and isinstance(value, int)
}

ACLNN, ACL = "aclnn", "acl"
FAMILY = {code: (ACLNN if name.startswith("ACLNN_") else ACL)
          for code, name in STATUS_NAMES.items() if code}

# How a code of one family reads in the other: the C-style wrapper returns only codes of the
# function's own family (an aclnn function never returns an aclError, and the reverse).
TRANSLATE = {
    (ACL, ACLNN_ERR_PARAM_NULLPTR): ACL_ERROR_INVALID_PARAM,
    (ACL, ACLNN_ERR_PARAM_INVALID): ACL_ERROR_INVALID_PARAM,
    (ACL, ACLNN_ERR_RUNTIME_ERROR): ACL_ERROR_INTERNAL_ERROR,
    (ACL, ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR): ACL_ERROR_INVALID_PARAM,
    (ACLNN, ACL_ERROR_INVALID_PARAM): ACLNN_ERR_PARAM_INVALID,
    (ACLNN, ACL_ERROR_INVALID_DEVICE): ACLNN_ERR_PARAM_INVALID,
    (ACLNN, ACL_ERROR_UNINITIALIZE): ACLNN_ERR_RUNTIME_ERROR,
    (ACLNN, ACL_ERROR_REPEAT_INITIALIZE): ACLNN_ERR_RUNTIME_ERROR,
    (ACLNN, ACL_ERROR_RT_CONTEXT_NULL): ACLNN_ERR_RUNTIME_ERROR,
    (ACLNN, ACL_ERROR_BAD_ALLOC): ACLNN_ERR_RUNTIME_ERROR,
}
# Anything else from the other family: its internal error.
INTERNAL = {ACLNN: ACLNN_ERR_INNER, ACL: ACL_ERROR_INTERNAL_ERROR}


def in_family(code: int, family: str) -> int:
    """`code` as a function of `family` returns it."""
    if code == 0 or FAMILY.get(code) == family:
        return code
    return TRANSLATE.get((family, code), INTERNAL[family])


# The Python exception kind of each code, for the layers that raise (a check may choose
# another, e.g. TypeError for a dtype that is not supported).
_KIND_OF_CODE = {
    ACLNN_ERR_PARAM_NULLPTR: TypeError,
    ACLNN_ERR_PARAM_INVALID: ValueError,
    ACL_ERROR_INVALID_PARAM: ValueError,
    ACL_ERROR_INVALID_DEVICE: ValueError,
    ACL_ERROR_BAD_ALLOC: MemoryError,
}


class AclnnError(Exception):
    """A failed aclnn/acl call: ``code`` is the status it returns, ``message`` says why.

    ``AclnnError(code, message)`` makes an instance of a subclass that is also the Python
    exception a user of the array API expects: TypeError (a None or a wrong type, an
    unsupported dtype), ValueError (a bad value or shape), MemoryError (allocation),
    RuntimeError (runtime and internal failures). ``kind`` overrides the default of the code.
    """

    def __new__(cls, code: int, message: str = "", kind: type | None = None):
        if cls is AclnnError:
            default = _KIND_OF_CODE.get(int(code), RuntimeError)
            # A kind a check chose is added to the code's own, never put in its place: an
            # unsupported dtype (161002 as a TypeError) is still the ValueError the code's
            # row in docs/status-codes.md promises.
            cls = _SUBCLASSES[kind or default] if kind in (None, default) else _both(kind, default)
        return _KIND_OF_CLASS.get(cls, Exception).__new__(cls)

    def __init__(self, code: int, message: str = "", kind: type | None = None):
        super().__init__(f"[{code}] {message}")
        self.code = int(code)
        self.message = message

    def __reduce__(self):
        return (_rebuild, (self.code, self.message, _KIND_OF_CLASS[type(self)]))

    @property
    def name(self) -> str:
        return STATUS_NAMES.get(self.code, str(self.code))


def _rebuild(code: int, message: str, kind: type) -> AclnnError:
    return AclnnError(code, message, kind)


_SUBCLASSES: dict[type, type] = {}
for _kind in (TypeError, ValueError, RuntimeError, MemoryError):
    # The builtin kind first: it gives the instance layout (MemoryError's __new__ refuses a
    # subclass whose first base is another exception class).
    _SUBCLASSES[_kind] = type(f"Aclnn{_kind.__name__}", (_kind, AclnnError),
                              {"__module__": __name__, "__init__": AclnnError.__init__,
                               "__reduce__": AclnnError.__reduce__, "__str__": Exception.__str__})
    globals()[f"Aclnn{_kind.__name__}"] = _SUBCLASSES[_kind]
_KIND_OF_CLASS = {sub: kind for kind, sub in _SUBCLASSES.items()}


def _both(kind: type, default: type) -> type:
    """The subclass that is both `kind` (what the check chose) and `default` (the code's)."""
    key = (kind, default)
    sub = _SUBCLASSES.get(key)
    if sub is None:
        sub = _SUBCLASSES[key] = type(
            f"Aclnn{kind.__name__}", (_SUBCLASSES[kind], _SUBCLASSES[default]),
            {"__module__": __name__})
        _KIND_OF_CLASS[sub] = kind
    return sub


# Where a check may raise a code as another kind too (the other kind is added, see __new__).
ALSO_RAISED_AS = {ACLNN_ERR_PARAM_INVALID: (TypeError, "for a dtype it does not support")}


def param_invalid(message: str, kind: type | None = None) -> AclnnError:
    return AclnnError(ACLNN_ERR_PARAM_INVALID, message, kind)


def nullptr(kind: str, name: str) -> AclnnError:
    # CANN's template (OP_CHECK_NULL)
    return AclnnError(
        ACLNN_ERR_PARAM_NULLPTR,
        f"Expected a value of type [{kind}] for argument [{name}] but instead found nullptr.",
    )


# The recent error messages are per host thread, as in CANN: aclGetRecentErrMsg() returns
# those since the last read, latest first, and clears them.
_recent = threading.local()
MAX_RECENT = 16


def set_recent_error(message: str) -> None:
    """Keep `message` for the next aclGetRecentErrMsg() on this thread ("" clears)."""
    if not message:
        _recent.messages = []
        return
    messages = getattr(_recent, "messages", None)
    if messages is None:
        messages = _recent.messages = []
    messages.append(message)
    del messages[:-MAX_RECENT]


def recent_error() -> str:
    """The messages kept on this thread since the last call, latest first ("" if none);
    reading clears them."""
    messages = getattr(_recent, "messages", None) or []
    _recent.messages = []
    return "\n".join(reversed(messages))
