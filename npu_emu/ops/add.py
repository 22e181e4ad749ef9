"""aclnnAdd and aclnnInplaceAdd (docs/operators.md): out = self + alpha * other.

Checks in CANN's order (aclnn_add.cpp): null (self, other, alpha, out) -> 161001; self and
other in the SoC's dtype list; promotion (docs/dtypes.md#type-promotion, current rule set); alpha castable to the
promoted type (integral for bool); promoted type castable to out (docs/dtypes.md#result-conversion); rank <= 8,
broadcast (docs/views.md#broadcasting) and out's shape -> 161002. Empty inputs: workspace 0, nothing runs.

How alpha is applied follows CANN's branches exactly, since each rounds differently:
alpha == 1 -> Add; the promoted type in the SoC's Axpy list -> Axpy (CANN's kernel golden:
f16/bf16 computed in f32, f32 in f64, s32 in f32); otherwise Mul(other, alpha) then Add,
each rounded in the promoted type.
"""
from __future__ import annotations

import numpy as np

from ..arch import SocInfo
from ..dtypes import BOOL, COMPLEX, INFO, SIGNED, UNSIGNED, aclDataType as DT, dt_name
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID
from ..tensor import Scalar, Tensor
from . import _checks as C
from ._core import ATTR, IN, INOUT, OUT, Context, OpDef, Param, Plan
from ._elementwise import binary_touches, plan_binary, scalar_as, supported_compute

OP = "Add"
AXPY = {False: frozenset({DT.ACL_FLOAT, DT.ACL_INT32, DT.ACL_FLOAT16}),       # before Ascend950
        True: frozenset({DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_BF16})}          # Ascend950


def _is_950(soc: SocInfo) -> bool:
    return soc.name == "Ascend950"


def alpha_is_one(alpha: Scalar, compute: DT, soc: SocInfo) -> bool:
    """CANN's IsEqualToOne: alpha compared as a float; on Ascend950 a complex alpha or type
    is never one and f64 compares as double."""
    value = alpha.to_python()
    if _is_950(soc):
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


def promoted(self: Tensor, other: Tensor, ctx: Context) -> DT:
    try:
        return ctx.rules.promote(self.dtype, other.dtype)
    except AclnnError:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Self dtype {dt_name(self.dtype)} and other dtype {dt_name(other.dtype)} "
                         f"can not promote dtype.", TypeError) from None


def infer(ins: tuple, attrs: dict, ctx: Context) -> tuple[tuple[int, ...], DT]:
    self, other = ins
    return C.broadcast_shapes(self.view_shape, other.view_shape, "self", "other"), promoted(self, other, ctx)


def _check(self: Tensor, other: Tensor, alpha: Scalar, out: Tensor, out_name: str,
           ctx: Context) -> DT:
    C.check_not_null(self, "self")
    C.check_not_null(other, "other")
    C.check_not_null(alpha, "alpha", "aclScalar")
    C.check_not_null(out, out_name)
    for t, name in ((self, "self"), (other, "other"), (out, out_name)):
        C.check_type(t, Tensor, name)
    C.check_type(alpha, Scalar, "alpha")
    support = ctx.soc.dtypes_for(OP)
    C.check_dtype_in(self, "self", support)
    C.check_dtype_in(other, "other", support)
    compute = promoted(self, other, ctx)
    alpha_ok = (INFO[alpha.dtype].kind in (BOOL, SIGNED, UNSIGNED) if compute == DT.ACL_BOOL
                else ctx.rules.can_cast(alpha.dtype, compute))
    if not alpha_ok:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Alpha dtype {dt_name(alpha.dtype)} can't be cast to the promote dtype "
                         f"{dt_name(compute)}.", TypeError)
    if not ctx.rules.can_cast(compute, out.dtype):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Promote dtype {dt_name(compute)} can't be cast to the desired output "
                         f"type {dt_name(out.dtype)}.", TypeError)
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


def _plan(self: Tensor, other: Tensor, alpha: Scalar, out: Tensor, out_name: str,
          ctx: Context) -> Plan:
    compute = ctx.rules.promote(self.dtype, other.dtype)
    if self.is_empty() or other.is_empty():
        return Plan()
    be = ctx.backend
    touches = binary_touches(self, other, out, out_name)
    if alpha_is_one(alpha, compute, ctx.soc):
        return plan_binary(be, "add", self, other, out, compute, touches)
    if compute in AXPY[_is_950(ctx.soc)]:
        return plan_binary(be, "axpy", self, other, out, compute, touches,
                           alpha_f=float(_alpha_float(alpha)))
    value = alpha.to_python()
    if INFO[compute].kind != COMPLEX and isinstance(value, complex):
        value = value.real
    return plan_binary(be, "muladd", self, other, out, compute, touches,
                       alpha=scalar_as(value, compute))


def check(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> None:
    _check(ins[0], ins[1], attrs["alpha"], outs[0], "out", ctx)


def plan(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> Plan:
    return _plan(ins[0], ins[1], attrs["alpha"], outs[0], "out", ctx)


def check_inplace(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> None:
    C.check_not_null(outs[0], "selfRef")
    _check(ins[0], ins[1], attrs["alpha"], outs[0], "selfRef", ctx)


def plan_inplace(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> Plan:
    return _plan(ins[0], ins[1], attrs["alpha"], outs[0], "selfRef", ctx)


def supports(dtypes: tuple, attrs: dict, ctx: Context) -> bool:
    """Both inputs and their promoted type in the SoC's Add list. An alpha other than one on
    an integer type that takes the Axpy branch computes in float32 (inexact beyond 2^24; the
    NPU subtracts integers with aclnnSub instead), so Add does not offer that case."""
    compute = supported_compute(OP, dtypes, ctx)
    if compute is None:
        return False
    alpha = attrs.get("alpha", 1)      # an aclScalar, or the Python number it will hold
    one = alpha_is_one(alpha, compute, ctx.soc) if isinstance(alpha, Scalar) else alpha == 1
    return one or not (INFO[compute].kind in (SIGNED, UNSIGNED)
                       and compute in AXPY[_is_950(ctx.soc)])


def plain(dtypes: tuple, attrs: dict, ctx: Context) -> bool:
    """self + alpha * other with alpha 1 or -1 is the plain sum or difference of the promoted
    operands (a real product by -1 is exact; Axpy's wider sum rounds once to the same value),
    but for complex where alpha is not one (Ascend950: never): there alpha multiplies other as
    a complex number, and inf * (1 + 0j) makes a NaN part that the sum has not."""
    compute = supported_compute(OP, dtypes, ctx)
    if compute is None:
        return False
    alpha = attrs.get("alpha", 1)
    one = alpha_is_one(alpha, compute, ctx.soc) if isinstance(alpha, Scalar) else alpha == 1
    return one or INFO[compute].kind != COMPLEX


ADD = OpDef(OP, (Param("self", IN), Param("other", IN), Param("alpha", ATTR, "aclScalar"),
                 Param("out", OUT)), check, plan, infer,
            summary="out = self + alpha * other, broadcast, computed in the promoted type.",
            accepts=supports, plain_rule=plain)
INPLACE_ADD = OpDef("InplaceAdd", (Param("selfRef", INOUT), Param("other", IN),
                                   Param("alpha", ATTR, "aclScalar")), check_inplace, plan_inplace,
                    summary="selfRef += alpha * other, computed in the promoted type.",
                    accepts=supports, plain_rule=plain)
