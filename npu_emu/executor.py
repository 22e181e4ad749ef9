"""aclOpExecutor: the plan an operator's first phase builds (docs/two-phase.md).

Phase one (`aclnnXxxGetWorkspaceSize`) validates, infers shapes, coalesces dims, chooses
kernels and sizes the workspace: all host work, in `npu_emu.ops._core.prepare`. Phase two
(`aclnnXxx`) checks the workspace and that the memory the plan touches is still live, then
enqueues the launches (`_core.execute`). An executor runs once unless made repeatable;
a repeatable one can have its tensors' addresses rebound and is ended by
aclDestroyAclOpExecutor.
"""
from __future__ import annotations

from typing import Any

from . import check
from ._params import as_int, as_pointer, as_size
from .ops._core import Context, OpDef, Plan, execute, prepare
from .runtime.base import Stream
from .status import (AclnnError, ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR, ACLNN_ERR_PARAM_INVALID,
                     ACLNN_ERR_PARAM_NULLPTR)
from .tensor import Handle, Tensor, check_live

WORKSPACE_ALIGN = 16   # the kernels' widest access; the pool hands out 256-byte-aligned blocks


class Executor(Handle):
    """The plan of one phase-one call, with the tensors and attributes it was made from."""

    KIND = "aclOpExecutor"
    DESTROY = "aclDestroyAclOpExecutor"

    def __init__(self, op: OpDef, args: tuple, ctx: Context, plan: Plan) -> None:
        self.op = op
        self.args = args      # the inputs, the outputs, the attributes (ops._core.canonical)
        self.ctx = ctx
        self.plan = plan
        self.repeatable = False
        self.runs = 0
        self._destroyed = False   # Handle.mark_destroyed sets it; read here without the property

    @property
    def tensors(self) -> dict[str, Tensor]:
        """The tensors by parameter name (an in-place tensor once)."""
        n_in, n_out = self.op.arity
        return {**dict(zip(self.op.input_names, self.args[:n_in])),
                **dict(zip(self.op.output_names, self.args[n_in:n_in + n_out]))}

    @property
    def attrs(self) -> dict[str, Any]:
        """The attributes by parameter name."""
        return dict(zip(self.op.attr_names, self.args[sum(self.op.arity):]))

    @property
    def workspace_size(self) -> int:
        return self.plan.workspace_size

    @property
    def inputs(self) -> list[Tensor]:
        return list(self.args[:self.op.arity[0]])

    @property
    def outputs(self) -> list[Tensor]:
        n_in, n_out = self.op.arity
        return list(self.args[n_in:n_in + n_out])

    def __repr__(self) -> str:
        state = "destroyed" if self.destroyed else ("repeatable" if self.repeatable else "one-shot")
        return (f"aclOpExecutor(aclnn{self.op.name}, {len(self.plan.launches)} launches, "
                f"workspace {self.plan.workspace_size} B, {state}, runs {self.runs}, "
                f"{self.ctx.backend.name} backend, {self.ctx.soc.name})")

    def check_usable(self) -> None:
        check_live(self, "executor")
        if self.runs and not self.repeatable:
            raise AclnnError(
                ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR,
                f"the executor of aclnn{self.op.name} has already run; phase two may not be "
                f"called twice with the same executor unless aclSetAclOpExecutorRepeatable was "
                f"called on it")

    def run(self, workspace: object, workspace_size: object, stream: Stream | None) -> None:
        """Phase two: check the workspace, then enqueue on `stream` (None: default)."""
        if self._destroyed or self.runs and not self.repeatable:
            self.check_usable()
        # None / 0 (no workspace, the common tiny call) skip the general checks.
        ws = 0 if workspace is None else as_pointer(workspace, "workspace")
        size = 0 if workspace_size is None or workspace_size.__class__ is int and workspace_size == 0 \
            else as_size(workspace_size, "workspaceSize")
        need = self.plan.workspace_size
        if need > 0:
            if ws == 0:
                raise AclnnError(ACLNN_ERR_PARAM_NULLPTR,
                                 f"workspace is null but aclnn{self.op.name} needs {need} bytes "
                                 f"of workspace")
            if size < need:
                raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                                 f"workspaceSize={size} is smaller than the {need} bytes "
                                 f"aclnn{self.op.name}GetWorkspaceSize asked for")
            if ws % WORKSPACE_ALIGN:
                raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                                 f"workspace=0x{ws:x} is not aligned to {WORKSPACE_ALIGN} bytes "
                                 f"(acl.rt.malloc returns aligned blocks)")
            if not self.ctx.backend.allocator.contains(ws, need):
                raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                                 f"workspace=0x{ws:x} is not device memory of at least {need} "
                                 f"bytes from acl.rt.malloc")
        execute(self.plan, self.ctx, stream, ws)
        self.runs += 1
        if check.ON and not self.repeatable:
            check.hook.gone(self)       # released by its phase two

    def rebind(self, which: str, index: object, tensor: object, address: object) -> None:
        """aclSetInputTensorAddr / aclSetOutputTensorAddr: the same tensor at a new address.
        The plan is made again (with every check of phase one); a refused address leaves the
        executor as it was."""
        check_live(self, "executor")
        if not self.repeatable:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"rebinding an {which} address needs a repeatable executor "
                             f"(aclSetAclOpExecutorRepeatable)")
        names = self.op.input_names if which == "input" else self.op.output_names
        if not names:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"aclnn{self.op.name} has no {which} tensors")
        i = as_int(index, "index", 0, len(names) - 1,
                   f"the index of one of aclnn{self.op.name}'s {len(names)} {which} tensors")
        addr = as_pointer(address, "addr")
        current = self.tensors[names[i]]
        if tensor is not None:
            if not isinstance(tensor, Tensor):
                raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                                 f"tensor is a {type(tensor).__name__}, expected the aclTensor "
                                 f"of {which} {i}", TypeError)
            check_live(tensor, "tensor")
            if _geometry(tensor) != _geometry(current):
                raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                                 f"tensor is not {which} {i} ({names[i]}) of this executor: its "
                                 f"shape, strides, offset, dtype or format differ")
        tensors = self.tensors
        tensors[names[i]] = current.with_data(addr)
        ins, outs, attrs = self.op.split({**tensors, **self.attrs})
        plan = prepare(self.op, ins, outs, attrs, self.ctx)
        self.args, self.plan = (*ins, *outs, *attrs.values()), plan

    def destroy(self) -> None:
        check_live(self, "executor")
        self.mark_destroyed()
        self.plan = Plan()


def _geometry(t: Tensor) -> tuple:
    return (t.view_shape, t.view_strides, t.storage_offset, t.dtype, t.format, t.storage_shape)
