"""aclnnCast (docs/operators.md): out = self converted to `dtype`.

Checks in CANN's order (aclnn_cast.cpp): null -> 161001; self dtype and the dtype parameter
in the SoC's list, out of that dtype, rank, out shape == self shape -> 161002; a private
format logs a warning. Plan: Contiguous + Cast + ViewCopy as one converting strided gather.
"""
from __future__ import annotations

from ..dtypes import as_dtype, dt_name
from ..formats import is_private
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID
from ..tensor import Tensor
from . import _checks as C
from ._core import ATTR, IN, OUT, Context, OpDef, Param, Plan
from ._plans import plan_transfer

OP = "Cast"


def infer(ins: tuple, attrs: dict, ctx: Context) -> tuple[tuple[int, ...], object]:
    (self,) = ins
    return self.view_shape, as_dtype(attrs["dtype"], "dtype")


def check(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> None:
    (self,), (out,), dtype = ins, outs, attrs["dtype"]
    C.check_not_null(self, "self")
    C.check_not_null(out, "out")
    C.check_type(self, Tensor, "self")
    C.check_type(out, Tensor, "out")
    dt = as_dtype(dtype, "dtype")
    support = ctx.soc.dtypes_for(OP)
    C.check_dtype_in(self, "self", support)
    if dt not in support:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"The param dtype not implemented for {dt_name(dt)}, should be in dtype "
                         f"support list {C.dtype_list(support)}.", TypeError)
    if out.dtype != dt:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"out has dtype {dt_name(out.dtype)} but the param dtype is {dt_name(dt)}; "
                         f"they must be the same.", TypeError)
    C.check_max_dim(self, "self")
    if out.view_shape != self.view_shape:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Expected tensor for out to have same size as tensor for self, but "
                         f"{C.shape_str(out.view_shape)} does not equal {C.shape_str(self.view_shape)}.")
    for t, name in ((self, "self"), (out, "out")):
        if is_private(t.format):
            C.warn_if_nz(t, name)
        else:
            C.check_nd_format(t, name)


def plan(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> Plan:
    (self,), (out,) = ins, outs
    if self.is_empty():
        return Plan()
    return plan_transfer(ctx.backend, self, out, "self", "out")  # out's dtype is `dtype` (checked)


CAST = OpDef(OP, (Param("self", IN), Param("dtype", ATTR, "aclDataType"), Param("out", OUT)),
             check, plan, infer, summary="Convert self to `dtype` into out (bit-exact "
             "conversions, the low-precision types included).")
