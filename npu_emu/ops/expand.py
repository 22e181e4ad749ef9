"""aclnnExpand (docs/operators.md#aclnnexpand): broadcast self to `size`, like torch.Tensor.expand.

Checks in CANN's order (aclnn_expand.cpp): null -> 161001; self/out dtype, SoC dtype list,
shape, rank -> 161002. Plan: one strided-gather launch from self's view (stride 0 on the
broadcast dims) straight into out's view, contiguous or not: CANN's Contiguous + Expand +
ViewCopy fused into one pass.
"""
from __future__ import annotations

from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID
from ..tensor import IntArray, Tensor
from . import _checks as C
from ._core import ATTR, IN, OUT, Context, OpDef, Param, Plan
from ._plans import plan_transfer

OP = "Expand"


def infer_shape(self_shape: tuple[int, ...], size: tuple[int, ...]) -> tuple[int, ...]:
    """The expanded shape (docs/operators.md#aclnnexpand's shape rule); AclnnError(161002) when size does not fit."""
    if len(size) < len(self_shape):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"the number of size {len(size)} must be greater or equal to the number "
                         f"of dimensions in the self {len(self_shape)}.")
    lead = len(size) - len(self_shape)
    out = []
    for i, n in enumerate(size[:lead]):
        if n < 0:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"size[{i}]={n}: a new leading dimension needs a size >= 0 "
                             f"(-1 only keeps an existing dimension of self).")
        out.append(n)
    for m, n in zip(self_shape, size[lead:]):
        # Note: CANN's code compares m with -1 (so every -1 fails); its documents and PyTorch
        # say -1 keeps the dimension, and we follow them (docs/operators.md#aclnnexpand).
        if n == -1:
            out.append(m)
        elif n >= 0 and (m == n or m == 1):
            out.append(n)
        else:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"the self shape {C.shape_str(self_shape)} is not match size "
                             f"{C.shape_str(size)}.")
    return tuple(out)


def infer(ins: tuple, attrs: dict, ctx: Context) -> tuple[tuple[int, ...], object]:
    (self,) = ins
    return infer_shape(self.view_shape, attrs["size"].values), self.dtype


def check(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> None:
    (self,), (out,), size = ins, outs, attrs["size"]
    C.check_not_null(self, "self")
    C.check_not_null(size, "size", "aclIntArray")
    C.check_not_null(out, "out")
    C.check_type(self, Tensor, "self")
    C.check_type(size, IntArray, "size")
    C.check_type(out, Tensor, "out")
    C.check_soc_supports(OP, ctx.soc)
    C.check_same_dtype(self, out, "self", "out")
    C.check_dtype_in(self, "self", ctx.soc.dtypes_for(OP))
    shape, _ = infer(ins, attrs, ctx)
    if out.view_shape != shape:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"expect out shape to be same as expectShape, but got out shape "
                         f"{C.shape_str(out.view_shape)}, expect shape {C.shape_str(shape)}")
    C.check_max_dim(self, "self")
    C.check_max_dim(out, "out")
    C.warn_if_nz(self, "self")
    if self.format != C.aclFormat.ACL_FORMAT_FRACTAL_NZ:
        C.check_nd_format(self, "self")
    C.check_nd_format(out, "out")


def plan(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> Plan:
    (self,), (out,) = ins, outs
    if self.is_empty() or out.is_empty():
        return Plan()
    return plan_transfer(ctx.backend, self, out, "self", "out")


EXPAND = OpDef(OP, (Param("self", IN), Param("size", ATTR, "aclIntArray"), Param("out", OUT)),
               check, plan, infer, summary="Broadcast self to `size` into out, like "
               "torch.Tensor.expand (-1 keeps a dim).")
