"""aclnnAdd and aclnnInplaceAdd (SPEC §11): out = self + alpha * other.

Checks in CANN's order (aclnn_add.cpp): null (self, other, alpha, out) -> 161001; self and
other in the SoC's dtype list; promotion (SPEC §3, current rule set); alpha castable to the
promoted type (integral for bool); promoted type castable to out (SPEC §4); rank <= 8,
broadcast (SPEC §5) and out's shape -> 161002. Empty inputs: workspace 0, nothing runs.

How alpha is applied follows CANN's branches exactly, since each rounds differently:
alpha == 1 -> Add; the promoted type in the SoC's Axpy list -> Axpy (CANN's kernel golden:
f16/bf16 computed in f32, f32 in f64, s32 in f32); otherwise Mul(other, alpha) then Add,
each rounded in the promoted type.
"""
from __future__ import annotations

import numpy as np

from .. import runtime
from ..arch import current_soc
from ..dtypes import (BOOL, COMPLEX, INFO, SIGNED, UNSIGNED, aclDataType as DT,
                      can_cast, dt_name, promote_types)
from ..executor import Executor, Plan, make_executor
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID
from ..tensor import Scalar, Tensor
from . import _checks as C
from ._api import phase_one, phase_two
from ._elementwise import plan_binary, scalar_as

OP = "Add"
AXPY = {False: frozenset({DT.ACL_FLOAT, DT.ACL_INT32, DT.ACL_FLOAT16}),       # before Ascend950
        True: frozenset({DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_BF16})}          # Ascend950


def _is_950() -> bool:
    return current_soc().name == "Ascend950"


def alpha_is_one(alpha: Scalar, compute: DT) -> bool:
    """CANN's IsEqualToOne: alpha compared as a float; on Ascend950 a complex alpha or type
    is never one and f64 compares as double."""
    value = alpha.to_python()
    if _is_950():
        if isinstance(value, complex) or INFO[compute].kind == COMPLEX:
            return False
        if compute == DT.ACL_DOUBLE:
            return float(value) == 1.0
    return bool(_alpha_float(alpha) == 1)


def _alpha_float(alpha: Scalar) -> np.float32:
    value = alpha.to_python()
    if isinstance(value, complex):
        value = value.real  # aclScalar::ToFloat of a complex scalar takes the real part
    with np.errstate(all="ignore"):
        return np.float32(value)


def check_params(self: Tensor, other: Tensor, alpha: Scalar, out: Tensor, out_name: str = "out"):
    C.check_not_null(self, "self")
    C.check_not_null(other, "other")
    C.check_not_null(alpha, "alpha", "aclScalar")
    C.check_not_null(out, out_name)
    for t, name in ((self, "self"), (other, "other"), (out, out_name)):
        C.check_type(t, Tensor, name)
    C.check_type(alpha, Scalar, "alpha")
    support = current_soc().dtypes_for(OP)
    C.check_dtype_in(self, "self", support)
    C.check_dtype_in(other, "other", support)
    try:
        compute = promote_types(self.dtype, other.dtype)
    except AclnnError:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Self dtype {dt_name(self.dtype)} and other dtype {dt_name(other.dtype)} "
                         f"can not promote dtype.") from None
    alpha_ok = (INFO[alpha.dtype].kind in (BOOL, SIGNED, UNSIGNED) if compute == DT.ACL_BOOL
                else can_cast(alpha.dtype, compute))
    if not alpha_ok:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Alpha dtype {dt_name(alpha.dtype)} can't be cast to the promote dtype "
                         f"{dt_name(compute)}.")
    if not can_cast(compute, out.dtype):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Promote dtype {dt_name(compute)} can't be cast to the desired output "
                         f"type {dt_name(out.dtype)}.")
    C.check_max_dim(self, "self")
    C.check_max_dim(other, "other")
    shape = C.broadcast_shapes(self.view_shape, other.view_shape, "self", "other")
    if shape != out.view_shape:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Shape of {out_name} should be {C.shape_str(shape)}, but current is "
                         f"{C.shape_str(out.view_shape)}.")
    for t, name in ((self, "self"), (other, "other"), (out, out_name)):
        C.check_nd_format(t, name)
    return compute


def plan(self: Tensor, other: Tensor, alpha: Scalar, out: Tensor, out_name: str = "out") -> Plan:
    compute = check_params(self, other, alpha, out, out_name)
    if self.is_empty() or other.is_empty():
        return Plan()
    for t, name in ((self, "self"), (other, "other"), (out, out_name)):
        C.check_memory(t, name)
    be = runtime.current()
    if alpha_is_one(alpha, compute):
        return plan_binary(be, "add", self, other, out, compute)
    if compute in AXPY[_is_950()]:
        return plan_binary(be, "axpy", self, other, out, compute, alpha_f=float(_alpha_float(alpha)))
    value = alpha.to_python()
    if INFO[compute].kind != COMPLEX and isinstance(value, complex):
        value = value.real
    return plan_binary(be, "muladd", self, other, out, compute, alpha=scalar_as(value, compute))


@phase_one
def aclnnAddGetWorkspaceSize(self: Tensor, other: Tensor, alpha: Scalar, out: Tensor) -> Executor:
    return make_executor("aclnnAdd", plan(self, other, alpha, out), [self, other], [out],
                         replan=lambda ins, outs: plan(ins[0], ins[1], alpha, outs[0]))


def aclnnAdd(workspace, workspace_size, executor, stream) -> int:
    return phase_two(workspace, workspace_size, executor, stream)


@phase_one
def aclnnInplaceAddGetWorkspaceSize(selfRef: Tensor, other: Tensor, alpha: Scalar) -> Executor:
    C.check_not_null(selfRef, "selfRef")
    return make_executor("aclnnInplaceAdd", plan(selfRef, other, alpha, selfRef, "selfRef"),
                         [selfRef, other], [selfRef],
                         replan=lambda ins, outs: plan(outs[0], ins[1], alpha, outs[0], "selfRef"))


def aclnnInplaceAdd(workspace, workspace_size, executor, stream) -> int:
    return phase_two(workspace, workspace_size, executor, stream)
