"""The one wrapper of the C-style layer (`npu_emu.aclnn`, `npu_emu.acl`): whatever a user
passes, a wrapped function returns a status code of its own family (and its values, or None
where C returns a null pointer) and never raises.

- Arguments are bound to the function's C signature first: a wrong number or name of
  arguments is the family's invalid-parameter code, with the signature in the message.
- AclnnError keeps its code, read in the function's family (status.in_family).
- Anything else is an internal failure: 561003 for a kernel that cannot be built or loaded,
  else the function's internal code (561000; 361001 in phase two; 500000 for acl.rt). It is
  logged once on the "npu_emu" logger, with its traceback only when NPU_EMU_LOG=debug.
- The message of every failure is kept for aclGetRecentErrMsg() / acl.get_recent_err_msg().
"""
from __future__ import annotations

import functools
import inspect
import logging
import os
import threading
from typing import Any, Callable

import numpy as np

from . import status
from .runtime.base import KernelBuildError, Stream
from .status import ACL, ACLNN, AclnnError

log = logging.getLogger("npu_emu")


class _Depth(threading.local):
    """Whether this thread is inside a call of the layer (0 at the outermost level)."""
    n = 0


_depth = _Depth()

INTERNAL_CODE = {ACLNN: status.ACLNN_ERR_INNER, ACL: status.ACL_ERROR_INTERNAL_ERROR}
INVALID_CODE = {ACLNN: status.ACLNN_ERR_PARAM_INVALID, ACL: status.ACL_ERROR_INVALID_PARAM}


def _debug() -> bool:
    return os.environ.get("NPU_EMU_LOG", "").strip().lower() == "debug"


def internal_error(where: str, exc: BaseException, family: str, code: int | None) -> AclnnError:
    """An unexpected failure inside the emulator, as the status CANN would give."""
    if isinstance(exc, KernelBuildError):
        code = status.ACLNN_ERR_INNER_FIND_KERNEL_ERROR if family == ACLNN else INTERNAL_CODE[ACL]
    elif isinstance(exc, MemoryError) and family == ACL:
        code = status.ACL_ERROR_BAD_ALLOC
    elif code is None:
        code = INTERNAL_CODE[family]
    log.error("%s: internal error in npu_emu: %s: %s%s", where, type(exc).__name__, exc,
              "" if _debug() else " (NPU_EMU_LOG=debug shows the traceback)",
              exc_info=exc if _debug() else None)
    return AclnnError(code, f"{where}: internal error: {type(exc).__name__}: {exc}")


def c_function(family: str, failure: Any = None, n_values: int | None = None,
               internal: int | None = None, name: str | None = None,
               signature: inspect.Signature | None = None) -> Callable[[Callable], Callable]:
    """Wrap `fn` (which returns its values or raises AclnnError) into a C-style function.

    n_values: how many values precede the status code in the result (None: the function is a
    constructor that returns its object, or None on failure, and no code; 0: only the code).
    failure: the values returned with a failing code (default None for each).
    internal: the code of an unexpected failure (default the family's internal error).
    """
    def deco(fn: Callable) -> Callable:
        where = name or fn.__name__
        sig = signature or inspect.signature(fn)
        fail_values = failure if failure is not None else (None,) * (n_values or 0)
        # Positional calls with a plain signature skip inspect's binding (the hot path).
        plain = all(p.kind == p.POSITIONAL_OR_KEYWORD for p in sig.parameters.values())
        n_max = len(sig.parameters)
        n_min = sum(p.default is p.empty for p in sig.parameters.values())

        def result_of(code: int, values: Any) -> Any:
            if n_values is None:
                return values if code == 0 else None
            if n_values == 0:
                return code
            if code:
                values = fail_values
            elif n_values == 1:
                values = (values,)
            return (*values, code)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            depth = _depth
            if depth.n:                    # an inner call of the layer: the outer one reports
                return fn(*args, **kwargs)
            depth.n = 1
            try:
                if kwargs or not plain or not n_min <= len(args) <= n_max:
                    try:
                        bound = sig.bind(*args, **kwargs)
                    except TypeError as exc:
                        raise AclnnError(INVALID_CODE[family],
                                         f"{where}{sig}: {exc}", TypeError) from None
                    args, kwargs = bound.args, bound.kwargs
                values = fn(*args, **kwargs)
                # result_of(0, values), inlined: this is every successful call's path
                if n_values is None:
                    return values
                if n_values == 0:
                    return 0
                return (values, 0) if n_values == 1 else (*values, 0)
            except AclnnError as err:
                status.set_recent_error(err.message)
                return result_of(status.in_family(err.code, family), None)
            except Exception as exc:   # never an exception out of the C-style layer
                err = internal_error(where, exc, family, internal)
                status.set_recent_error(err.message)
                return result_of(status.in_family(err.code, family), None)
            finally:
                depth.n = 0

        wrapper.__signature__ = sig  # type: ignore[attr-defined]
        wrapper.__wrapped_c__ = fn   # type: ignore[attr-defined]
        return wrapper
    return deco


def resolve_stream(stream: object):
    """None or 0 -> the default stream (None); otherwise a live stream from
    acl.rt.create_stream. Both families refuse anything else (161002, read as 100000 by
    acl.rt)."""
    if stream is None:
        return None
    if stream.__class__ in Stream.classes or isinstance(stream, Stream):
        if stream.destroyed:
            raise AclnnError(status.ACLNN_ERR_PARAM_INVALID,
                             f"stream was destroyed ({stream.released_by}); create a new one")
        return stream
    if isinstance(stream, (int, np.integer)) and not isinstance(stream, bool) and int(stream) == 0:
        return None
    raise AclnnError(status.ACLNN_ERR_PARAM_INVALID,
                     f"stream={stream!r} is not a stream from acl.rt.create_stream (or None "
                     f"for the default stream)", TypeError)
