"""How an operator module becomes aclnn functions: `phase_one` wraps a planner into
`aclnnXxxGetWorkspaceSize` (-> workspace_size, executor, ret) and `phase_two` is the body of
every `aclnnXxx(workspace, workspace_size, executor, stream)`. User errors become status
codes here, with the message kept for aclGetRecentErrMsg()."""
from __future__ import annotations

import functools
import logging
from typing import Any, Callable

from .. import status
from ..executor import Executor
from ..runtime.cpu import CompileError
from ..status import (AclnnError, ACLNN_ERR_INNER, ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                      ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_RUNTIME_ERROR, ACLNN_SUCCESS)

log = logging.getLogger("npu_emu")
# Kernel build/load failures (the cuda backend's NVRTC errors come from CuPy as other types).
KERNEL_ERRORS = (CompileError, OSError)


def fail(err: AclnnError) -> int:
    status.set_recent_error(err.message)
    return err.code


def check_executor(executor: object) -> Executor:
    if executor is None:
        raise status.nullptr("aclOpExecutor", "executor")
    if not isinstance(executor, Executor):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"executor is a {type(executor).__name__}, expected an aclOpExecutor "
                         f"from an aclnnXxxGetWorkspaceSize call")
    return executor


def phase_one(fn: Callable[..., Executor]) -> Callable[..., tuple[int, Executor | None, int]]:
    """Wrap a planner (which returns an Executor or raises AclnnError) into
    aclnnXxxGetWorkspaceSize: (workspace_size, executor, ret)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any):
        try:
            ex = fn(*args, **kwargs)
        except AclnnError as err:
            return 0, None, fail(err)
        except Exception as exc:  # never an exception out of the C-style layer
            return 0, None, fail(internal_error(fn.__name__, exc))
        return ex.workspace_size, ex, ACLNN_SUCCESS
    return wrapper


def internal_error(where: str, exc: Exception) -> AclnnError:
    """An unexpected failure inside the emulator, as the status CANN would give: a kernel
    that cannot be built or loaded is 561003, anything else 561000. The log keeps the trace."""
    log.error("%s failed inside npu_emu", where, exc_info=exc)
    code = ACLNN_ERR_INNER_FIND_KERNEL_ERROR if isinstance(exc, KERNEL_ERRORS) else ACLNN_ERR_INNER
    return AclnnError(code, f"{where}: internal error: {type(exc).__name__}: {exc}")


def _resolve_stream(stream: object):
    if stream is None:
        return None
    from ..acl.rt import resolve_stream  # the acl package imports the ops: resolve lazily
    return resolve_stream(stream)


def phase_two(workspace: object, workspace_size: object, executor: object, stream: object) -> int:
    """aclnnXxx(workspace, workspaceSize, executor, stream): check, then enqueue."""
    try:
        ex = check_executor(executor)
        ex.run(workspace, int(workspace_size or 0), _resolve_stream(stream))
    except AclnnError as err:
        return fail(err)
    except Exception as exc:  # a launch the runtime refused
        log.error("phase two failed inside npu_emu", exc_info=exc)
        return fail(AclnnError(ACLNN_ERR_RUNTIME_ERROR, f"launch failed: {type(exc).__name__}: {exc}"))
    return ACLNN_SUCCESS
