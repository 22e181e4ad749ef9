"""Planning steps operators share: a tensor's view as the kernels see it, the carving of an
executor's workspace into views, and staging of a source that overlaps the output (so
results are as if every input were read before any output is written)."""
from __future__ import annotations

import math
from typing import Sequence

from .._params import INT64_MAX
from ..runtime.base import Backend, Launch, Workspace
from ..kernels.cast import plan_cast
from ..kernels.copy import View, plan_copy
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID
from ..tensor import Tensor, contiguous_strides
from ._checks import overlaps, ranges_meet
from ._core import Plan, Touch, view_touch

WORKSPACE_ALIGN = 512


def tensor_view(t: Tensor) -> View:
    """The view of t: address of element (0, ..., 0), shape, strides in elements."""
    return View(t.data + t.storage_offset * t.itemsize, t.view_shape, t.view_strides, t.itemsize)


class WorkspaceLayout:
    """The workspace of one plan, carved at plan time into aligned contiguous views (their
    pointers are Workspace markers, resolved when phase two gets the real address)."""

    def __init__(self) -> None:
        self.size = 0

    def take(self, shape: Sequence[int], itemsize: int, what: str = "a temporary") -> View:
        view = View(Workspace(self.size), tuple(shape), contiguous_strides(shape), itemsize)
        nbytes = math.prod(shape) * itemsize
        self.size += (nbytes + WORKSPACE_ALIGN - 1) // WORKSPACE_ALIGN * WORKSPACE_ALIGN
        if self.size > INT64_MAX:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"{what} of shape {list(shape)} needs {nbytes} bytes of workspace; "
                             f"the workspace size must fit in int64.")
        return view


def staged(be: Backend, view: View, launches: list[Launch], ws: WorkspaceLayout) -> View:
    """A contiguous copy of `view` in the workspace (the launches making it are appended)."""
    copy = ws.take(view.shape, view.itemsize)
    launches.extend(plan_copy(be, copy, view))
    return copy


def staged_source(be: Backend, src: Tensor, dst: Tensor, launches: list[Launch],
                  ws: WorkspaceLayout) -> View:
    """src's view, or -- when it overlaps dst -- a contiguous copy of it in the workspace
    (the launches making it are appended)."""
    view = tensor_view(src)
    return staged(be, view, launches, ws) if overlaps(src, dst) else view


def touches_meet(a: Touch, b: Touch) -> bool:
    """Whether two touched byte ranges share a byte (conservative for views: their spans).
    An operator whose every output element reads many input elements (Matmul, the format
    casts) stages any input that meets its output, the very same view included."""
    return ranges_meet(a.ptr, a.nbytes, b.ptr, b.nbytes)


def plan_transfer(be: Backend, src: Tensor, dst: Tensor, src_name: str, dst_name: str) -> Plan:
    """src's view, broadcast to dst's shape and converted to dst's dtype, written into dst's
    view in one launch (staged through the workspace when the two overlap): CANN's
    Contiguous + Cast + BroadcastTo + ViewCopy chain, fused. Expand, InplaceCopy and Cast."""
    launches: list[Launch] = []
    ws = WorkspaceLayout()
    source = staged_source(be, src, dst, launches, ws)
    launches += plan_cast(be, tensor_view(dst), source, src.dtype, dst.dtype)
    return Plan(launches, ws.size, [view_touch(src, src_name), view_touch(dst, dst_name)])
