"""aclnnMul and aclnnInplaceMul (docs/operators.md): out = self * other.

Checks in CANN's order (aclnn_mul.cpp): null (self, other, out) -> 161001; self, other and
out in the SoC's dtype list; promotion (docs/dtypes.md#type-promotion); promoted type castable to out (docs/dtypes.md#result-conversion);
rank <= 8, broadcast (docs/views.md#broadcasting), out's shape -> 161002. Empty inputs: nothing runs.
Note: CANN's code skips the cast check on Ascend950; the documents do not, and we follow them.
"""
from __future__ import annotations

from ..dtypes import dt_name
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID
from ..tensor import Tensor
from . import _checks as C
from ._core import IN, INOUT, OUT, Context, OpDef, Param, Plan
from ._elementwise import binary_touches, plan_binary, supported_compute

OP = "Mul"


def promoted(self: Tensor, other: Tensor, ctx: Context, op: str = "aclnnMul",
             self_name: str = "self"):
    try:
        return ctx.rules.promote(self.dtype, other.dtype)
    except AclnnError:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Expected {op} {self_name} dtype [{dt_name(self.dtype)}] and other dtype "
                         f"[{dt_name(other.dtype)}] to be promotable but check failed.",
                         TypeError) from None


def infer(ins: tuple, attrs: dict, ctx: Context):
    self, other = ins
    return C.broadcast_shapes(self.view_shape, other.view_shape, "self", "other"), promoted(self, other, ctx)


def _check(self: Tensor, other: Tensor, out: Tensor, ctx: Context, op: str, self_name: str,
           out_name: str) -> None:
    C.check_not_null(self, self_name)
    C.check_not_null(other, "other")
    C.check_not_null(out, out_name)
    for t, name in ((self, self_name), (other, "other"), (out, out_name)):
        C.check_type(t, Tensor, name)
    support = ctx.soc.dtypes_for(OP)
    C.check_dtype_in(self, self_name, support)
    C.check_dtype_in(other, "other", support)
    C.check_dtype_in(out, out_name, support)
    compute = promoted(self, other, ctx, op, self_name)
    if not ctx.rules.can_cast(compute, out.dtype):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Result type {dt_name(compute)} can't be cast to the desired output type "
                         f"{dt_name(out.dtype)}.", TypeError)
    C.check_max_dim(self, self_name)
    C.check_max_dim(other, "other")
    shape = C.broadcast_shapes(self.view_shape, other.view_shape, self_name, "other")
    if shape != out.view_shape:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Expected tensor for {out_name} to have the broadcast shape "
                         f"{C.shape_str(shape)}, but got {C.shape_str(out.view_shape)}.")
    for t, name in ((self, self_name), (other, "other"), (out, out_name)):
        C.check_nd_format(t, name)


def _plan(self: Tensor, other: Tensor, out: Tensor, ctx: Context, self_name: str,
          out_name: str) -> Plan:
    if self.is_empty() or other.is_empty():
        return Plan()
    compute = ctx.rules.promote(self.dtype, other.dtype)
    return plan_binary(ctx.backend, "mul", self, other, out, compute,
                       binary_touches(self, other, out, out_name, self_name))


def check(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> None:
    _check(ins[0], ins[1], outs[0], ctx, "aclnnMul", "self", "out")


def plan(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> Plan:
    return _plan(ins[0], ins[1], outs[0], ctx, "self", "out")


def check_inplace(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> None:
    C.check_not_null(outs[0], "selfRef")
    _check(ins[0], ins[1], outs[0], ctx, "aclnnInplaceMul", "selfRef", "selfRef")


def plan_inplace(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> Plan:
    return _plan(ins[0], ins[1], outs[0], ctx, "selfRef", "selfRef")


def supports(dtypes: tuple, attrs: dict, ctx: Context) -> bool:
    """Both inputs and their promoted type in the SoC's Mul list."""
    return supported_compute(OP, dtypes, ctx) is not None


MUL = OpDef(OP, (Param("self", IN), Param("other", IN), Param("out", OUT)), check, plan, infer,
            summary="out = self * other, broadcast, computed in the promoted type.",
            accepts=supports, plain_rule=supports)
INPLACE_MUL = OpDef("InplaceMul", (Param("selfRef", INOUT), Param("other", IN)), check_inplace,
                    plan_inplace, summary="selfRef *= other, computed in the promoted type.",
                    accepts=supports, plain_rule=supports)
