"""The array API's calls into the operator core: each eager operation is one
`npu_emu.ops._core.run` in a Context of the array's backend, the current SoC and the
"array_api" rule set, its outputs allocated from the pool with the shape and dtype the
operator's `infer` gives. Errors of the core (AclnnError, also a TypeError / ValueError /
RuntimeError / MemoryError) pass through unchanged.

Also here, because several operations share it: writing a source into an array's view
(InplaceCopy: broadcast, then converted to the destination's dtype).
"""
from __future__ import annotations

from typing import Any, Sequence

from ..arch import current_soc
from ..dtypes import COMPLEX, INFO, RULE_SETS, aclDataType as DT
from ..ops._core import Context, OpDef, check_no_internal_overlap, run
from ..ops.inplace_copy import INPLACE_COPY
from ..runtime.base import Backend
from ..tensor import Tensor
from ._array import Array, empty_array
from ._device import library_order, synchronize

RULES = RULE_SETS["array_api"]


def context(be: Backend) -> Context:
    return Context(be, current_soc(), RULES)


def check_writable(x: Array, what: str = "the destination") -> None:
    if x._st.readonly:
        raise ValueError(f"{what} is read-only (imported read-only memory); copy it first "
                         f"(asarray(x, copy=True))")


def check_library_destination(x: Array, name: str = "x") -> None:
    """What the operator core checks of an output, for a write by the backend library: not
    read-only, and no two elements at one address (a broadcast view)."""
    check_writable(x, name)
    check_no_internal_overlap(x._t, name)


def call(op: OpDef, ins: Sequence[Tensor], outs: Sequence[Array], attrs: dict[str, Any],
         be: Backend, touched: Sequence[Array] = (), ctx: Context | None = None) -> None:
    """One run of `op` on the default stream. When a user can reach any of the memory
    (`touched` and `outs`: imported or exported storage) on the cpu backend, the work is
    finished before returning, since the other side may read or free it at once."""
    for o in outs:
        check_writable(o)
    run(op, ins, [o._t for o in outs], attrs, ctx or context(be))
    if be.is_cpu and any(x._st.shared for x in (*touched, *outs)):
        synchronize(be)


def call_new(op: OpDef, inputs: Sequence[Array], attrs: dict[str, Any]) -> Array:
    """Run `op` on `inputs` into a new array shaped and typed by the op's infer."""
    be = inputs[0]._st.backend
    ctx = context(be)
    ins = tuple(x._kernel_tensor() for x in inputs)
    shape, dtype = op.infer(ins, attrs, ctx)
    out = empty_array(shape, dtype, be)
    call(op, ins, (out,), attrs, be, inputs, ctx)
    return out


# ----------------------------------------------------------------- InplaceCopy

def flip_axes(x: Array, axes: Sequence[int]) -> Array:
    """x with the given axes reversed (a view)."""
    shape, strides, offset = x._signed()
    strides = list(strides)
    for k in axes:
        offset += (shape[k] - 1) * strides[k]
        strides[k] = -strides[k]
    return x._view(shape, strides, offset)


def broadcast_view(x: Array, shape: Sequence[int]) -> Array:
    """x broadcast to `shape` as a view (stride 0 on the stretched dims), one direction, by
    the NPU's rule (docs/views.md#broadcasting): ValueError when x does not broadcast."""
    from ..ops._checks import broadcast_shapes
    shape = tuple(shape)
    if broadcast_shapes(shape, x.shape, "shape", "x") != shape:
        raise ValueError(f"an array of shape {x.shape} cannot be broadcast to {shape}")
    xs, strides, offset = x._signed()
    lead = len(shape) - len(xs)
    out = [0] * lead + [s if n == m else 0 for n, m, s in zip(xs, shape[lead:], strides)]
    return x._view(shape, out, offset)


def aligned(dst: Array, src: Array) -> tuple[Array, Array]:
    """(dst, src) with dst's reversed axes moved onto src (broadcast to dst's shape): the
    same elements pair up, and dst becomes a tensor a kernel can write."""
    if dst._flip is None:
        return dst, src
    axes = [k for k, f in enumerate(dst._flip) if f]
    return flip_axes(dst, axes), flip_axes(broadcast_view(src, dst.shape), axes)


def assign(dst: Array, src: Array) -> None:
    """dst[...] = src through InplaceCopy: src broadcast to dst's shape, then converted to
    dst's dtype (any pair of InplaceCopy's list), written into dst's view in one launch."""
    check_writable(dst)
    if src._st.backend is not dst._st.backend:
        raise ValueError(f"the value is on {src.device}, the destination on {dst.device}")
    be = dst._st.backend
    if (INFO[dst._t.dtype].kind == COMPLEX and INFO[src._t.dtype].kind == COMPLEX
            and not dst._t.is_contiguous()):
        # Note: InplaceCopy refuses complex -> complex into a non-contiguous view
        # (docs/operators.md#aclnninplacecopy): convert first (contiguous), then the backend
        # library moves the bits.
        check_library_destination(dst, "dst")
        if src._t.dtype != dst._t.dtype:
            src = convert(src, dst._t.dtype)
        with library_order(be):
            dst._raw()[...] = src._raw()
        return
    d, s = aligned(dst, src)
    call(INPLACE_COPY, (s._kernel_tensor(),), (d,), {}, be, (src,))


def convert(x: Array, dtype: DT) -> Array:
    """x in `dtype`, a new contiguous array (InplaceCopy converts any pair of its list)."""
    out = empty_array(x.shape, dtype, x._st.backend)
    assign(out, x)
    return out


def copy(x: Array) -> Array:
    """A contiguous copy of x (one strided-copy launch; the library copies reversed views)."""
    if x._flip is not None:
        return x._materialized()
    return convert(x, x._t.dtype)

