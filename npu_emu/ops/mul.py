"""aclnnMul and aclnnInplaceMul (SPEC §11): out = self * other.

Checks in CANN's order (aclnn_mul.cpp): null (self, other, out) -> 161001; self, other and
out in the SoC's dtype list; promotion (SPEC §3); promoted type castable to out (SPEC §4);
rank <= 8, broadcast (SPEC §5), out's shape -> 161002. Empty inputs: nothing runs.
Note: CANN's code skips the cast check on Ascend950; the documents do not, and we follow them.
"""
from __future__ import annotations

from .. import runtime
from ..arch import current_soc
from ..dtypes import can_cast, dt_name, promote_types
from ..executor import Executor, Plan, make_executor
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID
from ..tensor import Tensor
from . import _checks as C
from ._api import phase_one, phase_two
from ._elementwise import plan_binary

OP = "Mul"


def check_params(self: Tensor, other: Tensor, out: Tensor, op: str = "aclnnMul",
                 self_name: str = "self", out_name: str = "out"):
    C.check_not_null(self, self_name)
    C.check_not_null(other, "other")
    C.check_not_null(out, out_name)
    for t, name in ((self, self_name), (other, "other"), (out, out_name)):
        C.check_type(t, Tensor, name)
    support = current_soc().dtypes_for(OP)
    C.check_dtype_in(self, self_name, support)
    C.check_dtype_in(other, "other", support)
    C.check_dtype_in(out, out_name, support)
    try:
        compute = promote_types(self.dtype, other.dtype)
    except AclnnError:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Expected {op} {self_name} dtype [{dt_name(self.dtype)}] and other dtype "
                         f"[{dt_name(other.dtype)}] to be promotable but check failed.") from None
    if not can_cast(compute, out.dtype):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Result type {dt_name(compute)} can't be cast to the desired output type "
                         f"{dt_name(out.dtype)}.")
    C.check_max_dim(self, self_name)
    C.check_max_dim(other, "other")
    shape = C.broadcast_shapes(self.view_shape, other.view_shape, self_name, "other")
    if shape != out.view_shape:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Expected tensor for {out_name} to have the broadcast shape "
                         f"{C.shape_str(shape)}, but got {C.shape_str(out.view_shape)}.")
    for t, name in ((self, self_name), (other, "other"), (out, out_name)):
        C.check_nd_format(t, name)
    return compute


def plan(self: Tensor, other: Tensor, out: Tensor, op: str = "aclnnMul", self_name: str = "self",
         out_name: str = "out") -> Plan:
    compute = check_params(self, other, out, op, self_name, out_name)
    if self.is_empty() or other.is_empty():
        return Plan()
    for t, name in ((self, self_name), (other, "other"), (out, out_name)):
        C.check_memory(t, name)
    return plan_binary(runtime.current(), "mul", self, other, out, compute)


@phase_one
def aclnnMulGetWorkspaceSize(self: Tensor, other: Tensor, out: Tensor) -> Executor:
    return make_executor("aclnnMul", plan(self, other, out), [self, other], [out],
                         replan=lambda ins, outs: plan(ins[0], ins[1], outs[0]))


def aclnnMul(workspace, workspace_size, executor, stream) -> int:
    return phase_two(workspace, workspace_size, executor, stream)


@phase_one
def aclnnInplaceMulGetWorkspaceSize(selfRef: Tensor, other: Tensor) -> Executor:
    def make(ins, outs):
        return plan(outs[0], ins[1], outs[0], "aclnnInplaceMul", "selfRef", "selfRef")
    C.check_not_null(selfRef, "selfRef")
    return make_executor("aclnnInplaceMul", make([selfRef, other], [selfRef]), [selfRef, other],
                         [selfRef], replan=make)


def aclnnInplaceMul(workspace, workspace_size, executor, stream) -> int:
    return phase_two(workspace, workspace_size, executor, stream)
