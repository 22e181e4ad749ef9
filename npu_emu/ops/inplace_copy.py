"""aclnnInplaceCopy (docs/operators.md#aclnninplacecopy): selfRef[...] = src, src broadcast to selfRef's shape and
converted to selfRef's dtype (any pair of the list: CANN's code has no cast check).

Checks in CANN's order (aclnn_copy.cpp): null -> 161001; dtype list (both), rank, broadcast
-> 161002; FRACTAL_NZ selfRef -> a warning. Plan: CANN's Contiguous + Cast + BroadcastTo +
ViewCopy become one launch: a converting (or plain) strided gather from src's view into
selfRef's view. A src that overlaps selfRef is staged in the workspace first.
"""
from __future__ import annotations

from ..dtypes import COMPLEX, INFO, aclDataType as DT
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID
from ..tensor import Tensor
from . import _checks as C
from ._core import IN, OUT, Context, OpDef, Param, Plan
from ._plans import plan_transfer

# One list for every SoC (aclnn_copy.cpp's DTYPE_SUPPORT_LIST).
DTYPES = frozenset({
    DT.ACL_INT8, DT.ACL_INT16, DT.ACL_INT32, DT.ACL_INT64, DT.ACL_UINT8, DT.ACL_UINT16,
    DT.ACL_UINT32, DT.ACL_UINT64, DT.ACL_FLOAT16, DT.ACL_FLOAT, DT.ACL_BOOL, DT.ACL_DOUBLE,
    DT.ACL_COMPLEX64, DT.ACL_COMPLEX128, DT.ACL_BF16, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN,
    DT.ACL_HIFLOAT8, DT.ACL_FLOAT8_E8M0})


def check(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> None:
    (src,), (self_ref,) = ins, outs
    C.check_not_null(self_ref, "selfRef")
    C.check_not_null(src, "src")
    C.check_type(self_ref, Tensor, "selfRef")
    C.check_type(src, Tensor, "src")
    C.check_dtype_in(self_ref, "selfRef", DTYPES)
    C.check_dtype_in(src, "src", DTYPES)
    C.check_max_dim(self_ref, "selfRef")
    C.check_max_dim(src, "src")
    shape = C.broadcast_shapes(self_ref.view_shape, src.view_shape, "selfRef", "src")
    if shape != self_ref.view_shape:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Shape of broadcast result should be {C.shape_str(shape)}, but self is "
                         f"{C.shape_str(self_ref.view_shape)}.")
    # Note: the documents restrict copies between complex types to a contiguous selfRef
    # (CANN's code does not check it); we refuse rather than emulate an unspecified result.
    if (INFO[self_ref.dtype].kind == COMPLEX and INFO[src.dtype].kind == COMPLEX
            and not self_ref.is_contiguous()):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         "Copies between complex types need a contiguous selfRef (docs/operators.md#aclnninplacecopy); "
                         f"selfRef has strides {C.shape_str(self_ref.view_strides)} for shape "
                         f"{C.shape_str(self_ref.view_shape)}.")
    C.warn_if_nz(self_ref, "selfRef")
    if self_ref.format != C.aclFormat.ACL_FORMAT_FRACTAL_NZ:
        C.check_nd_format(self_ref, "selfRef")
    C.check_nd_format(src, "src")


def plan(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> Plan:
    (src,), (self_ref,) = ins, outs
    if self_ref.is_empty() or src.is_empty():
        return Plan()
    return plan_transfer(ctx.backend, src, self_ref, "src", "selfRef")


# selfRef is written, not read: it is the output (rebinding output 0 moves it, input 0 is src).
INPLACE_COPY = OpDef("InplaceCopy", (Param("selfRef", OUT), Param("src", IN)), check, plan,
                     summary="Copy src into the view selfRef: broadcast, then converted to "
                     "selfRef's dtype (any pair of the dtype list).")
