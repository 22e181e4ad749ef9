"""aclOpExecutor: the plan an operator's first phase builds (SPEC §8).

Phase one (`aclnnXxxGetWorkspaceSize`) validates, infers shapes, coalesces dims, chooses
kernels and sizes the workspace: all host work. Phase two (`aclnnXxx`) only checks the
workspace, then enqueues the launches. An executor runs once unless made repeatable.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Sequence

from . import runtime
from .runtime.base import Backend, Stream
from .status import (AclnnError, ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR, ACLNN_ERR_PARAM_INVALID,
                     ACLNN_ERR_PARAM_NULLPTR)
from .tensor import Tensor

log = logging.getLogger("npu_emu")


@dataclass
class Plan:
    """What phase one produces: kernel launches in order and the workspace bytes they need."""
    launches: list = field(default_factory=list)
    workspace_size: int = 0


@dataclass(eq=False)
class Executor:
    op: str
    plan: Plan
    backend: Backend
    inputs: list[Tensor]
    outputs: list[Tensor]
    replan: Callable[[list[Tensor], list[Tensor]], Plan] | None = None
    repeatable: bool = False
    runs: int = 0
    destroyed: bool = False

    @property
    def workspace_size(self) -> int:
        return self.plan.workspace_size

    def run(self, workspace: int | None, workspace_size: int, stream: Stream | None) -> None:
        if self.destroyed:
            raise AclnnError(ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR,
                             f"the executor of {self.op} was destroyed")
        if self.runs and not self.repeatable:
            raise AclnnError(
                ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR,
                f"the executor of {self.op} has already run; phase two may not be called twice "
                f"with the same executor unless aclSetAclOpExecutorRepeatable was called on it")
        need = self.plan.workspace_size
        if need > 0:
            if workspace is None or workspace == 0:
                raise AclnnError(ACLNN_ERR_PARAM_NULLPTR,
                                 f"workspace is null but {self.op} needs {need} bytes of workspace")
            if workspace_size < need:
                raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                                 f"workspaceSize={workspace_size} is smaller than the {need} "
                                 f"bytes {self.op}GetWorkspaceSize asked for")
            if not self.backend.allocator.contains(int(workspace), need):
                raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                                 f"workspace=0x{int(workspace):x} is not device memory of at "
                                 f"least {need} bytes from acl.rt.malloc")
        if self.plan.launches:
            self.backend.enqueue(self.plan.launches, stream, int(workspace or 0))
        self.runs += 1

    def rebind(self, which: str, index: int, address: int) -> None:
        """aclSetInputTensorAddr / aclSetOutputTensorAddr: new address, same geometry."""
        tensors = self.inputs if which == "input" else self.outputs
        if not 0 <= index < len(tensors):
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"index={index} is out of range: {self.op} has {len(tensors)} "
                             f"{which} tensors")
        if self.replan is None:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"{self.op} cannot rebind addresses")
        tensors[index] = tensors[index].with_data(address)
        self.plan = self.replan(self.inputs, self.outputs)


def make_executor(op: str, plan: Plan, inputs: Sequence[Tensor], outputs: Sequence[Tensor],
                  replan: Callable[[list[Tensor], list[Tensor]], Plan] | None = None) -> Executor:
    return Executor(op, plan, runtime.current(), list(inputs), list(outputs), replan)
