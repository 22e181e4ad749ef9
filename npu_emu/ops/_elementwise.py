"""The plan every binary operator (Add, Mul) shares, CANN's flow with the copies fused away:

    self, other --(Cast to the promoted type, only when needed)--> compute kernel
        --> out's view directly when out has the promoted dtype, else a workspace
            temporary --(Cast)--> out's view

Inputs are read through their own (broadcast, non-contiguous) views; an input that overlaps
out without being the very same view is staged in the workspace first.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import INFO, aclDataType as DT
from ..kernels import elementwise
from ..runtime.base import Backend, Launch
from ..kernels.cast import plan_cast
from ..kernels.copy import pointer_arg
from ..kernels.indexing import broadcast_strides, coalesce, pack_params, tiled
from ..tensor import Tensor
from ._checks import overlaps
from ._core import Context, Plan, Touch, view_touch
from ._plans import WorkspaceLayout, tensor_view

def supported_compute(op: str, dtypes: tuple, ctx: "Context") -> DT | None:
    """The promoted type of a binary operator's two input dtypes when the SoC's list for
    `op` has both and it, and our kernels compute it; None otherwise (OpDef.supports)."""
    listed = ctx.soc.dtypes_for(op)
    if len(dtypes) != 2 or not all(d in listed for d in dtypes):
        return None
    compute = ctx.rules.promotion.get(tuple(dtypes))
    return compute if compute in listed and compute in elementwise.TYPES else None


def same_view(a: Tensor, b: Tensor) -> bool:
    return (a.data == b.data and a.storage_offset == b.storage_offset
            and a.view_shape == b.view_shape and a.view_strides == b.view_strides
            and a.itemsize == b.itemsize)


def scalar_as(value: object, dtype: DT) -> np.generic:
    """A Python/NumPy scalar converted to `dtype`, as the kernels' storage scalar."""
    from ..device import storage_array
    info = INFO[dtype]
    host = np.asarray(value).astype(info.host if info.host is not None else np.float32)
    return storage_array(host, dtype)[()]


def binary_touches(a: Tensor, b: Tensor, out: Tensor, out_name: str = "out",
                   a_name: str = "self") -> list[Touch]:
    return [view_touch(a, a_name), view_touch(b, "other"), view_touch(out, out_name)]


def plan_binary(be: Backend, op: str, a: Tensor, b: Tensor, out: Tensor, compute: DT,
                touches: list[Touch], alpha: np.generic | None = None,
                alpha_f: float = 0.0) -> Plan:
    """Launches computing out = a (op) b in `compute` (op: add, mul, muladd, axpy)."""
    module, name = elementwise.kernel(op, compute, "i32")   # ValueError when there is none
    ws = WorkspaceLayout()
    launches: list[Launch] = []
    inputs = []
    for t in (a, b):
        if t.dtype != compute:
            staged = ws.take(t.view_shape, INFO[compute].itemsize)
            launches += plan_cast(be, staged, tensor_view(t), t.dtype, compute)
            inputs.append(staged)
        elif overlaps(t, out) and not same_view(t, out):
            staged = ws.take(t.view_shape, INFO[compute].itemsize)
            launches += plan_cast(be, staged, tensor_view(t), compute, compute)
            inputs.append(staged)
        else:
            inputs.append(tensor_view(t))
    result = tensor_view(out) if out.dtype == compute else ws.take(out.view_shape, INFO[compute].itemsize)
    shape = out.view_shape
    space = tiled(coalesce(shape, [result.strides,
                                   broadcast_strides(shape, inputs[0].shape, inputs[0].strides),
                                   broadcast_strides(shape, inputs[1].shape, inputs[1].strides)]))
    item = INFO[compute].itemsize
    grid, block, run = be.space_geometry(space, item, pointers=(
        (0, result.ptr, item), (1, inputs[0].ptr, item), (2, inputs[1].ptr, item)))
    if not space.fits_32bit():
        module, name = elementwise.kernel(op, compute, "i64")
    kernel = be.function(module, name)
    alpha_arg = alpha if alpha is not None else scalar_as(0, compute)
    launches.append(Launch(kernel, (grid, 1, 1), (block, 1, 1),
                           (pack_params(space, run), pointer_arg(inputs[0].ptr),
                            pointer_arg(inputs[1].ptr), pointer_arg(result.ptr), alpha_arg,
                            np.float32(alpha_f))))
    if out.dtype != compute:
        launches += plan_cast(be, tensor_view(out), result, compute, out.dtype)
    return Plan(launches, ws.size, touches)
