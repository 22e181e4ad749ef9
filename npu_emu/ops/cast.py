"""aclnnCast (SPEC §11): out = self converted to `dtype`.

Checks in CANN's order (aclnn_cast.cpp): null -> 161001; self dtype and the dtype parameter
in the SoC's list, out of that dtype, rank, out shape == self shape -> 161002; a private
format logs a warning. Plan: Contiguous + Cast + ViewCopy as one converting strided gather.
"""
from __future__ import annotations

from ..arch import current_soc
from ..dtypes import as_dtype, dt_name
from ..executor import Executor, Plan, make_executor
from ..formats import is_private
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID
from ..tensor import Tensor
from . import _checks as C
from ._api import phase_one, phase_two
from ._plans import plan_transfer

OP = "Cast"


def check_params(self: Tensor, dtype: object, out: Tensor):
    C.check_not_null(self, "self")
    C.check_not_null(out, "out")
    C.check_type(self, Tensor, "self")
    C.check_type(out, Tensor, "out")
    dt = as_dtype(dtype, "dtype")
    support = current_soc().dtypes_for(OP)
    C.check_dtype_in(self, "self", support)
    if dt not in support:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"The param dtype not implemented for {dt_name(dt)}, should be in dtype "
                         f"support list {C.dtype_list(support)}.")
    if out.dtype != dt:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"out has dtype {dt_name(out.dtype)} but the param dtype is {dt_name(dt)}; "
                         f"they must be the same.")
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
    return dt


def plan(self: Tensor, dtype: object, out: Tensor) -> Plan:
    check_params(self, dtype, out)
    if self.is_empty():
        return Plan()
    return plan_transfer(self, out, "self", "out")  # out's dtype is `dtype` (checked)


@phase_one
def aclnnCastGetWorkspaceSize(self: Tensor, dtype: object, out: Tensor) -> Executor:
    return make_executor("aclnnCast", plan(self, dtype, out), [self], [out],
                         replan=lambda ins, outs: plan(ins[0], dtype, outs[0]))


def aclnnCast(workspace, workspace_size, executor, stream) -> int:
    return phase_two(workspace, workspace_size, executor, stream)
