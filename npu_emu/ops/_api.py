"""How an operator module becomes aclnn functions: `phase_one` wraps a planner into
`aclnnXxxGetWorkspaceSize` (-> workspace_size, executor, ret) and `phase_two` is the body of
every `aclnnXxx(workspace, workspace_size, executor, stream)`. User errors become status
codes here, with the message kept for aclGetRecentErrMsg()."""
from __future__ import annotations

import functools
from typing import Any, Callable

from .. import status
from ..executor import Executor
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS


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
        return ex.workspace_size, ex, ACLNN_SUCCESS
    return wrapper


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
    return ACLNN_SUCCESS
