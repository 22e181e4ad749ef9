"""Planning steps operators share: a tensor's view as the kernels see it, and staging of a
source that overlaps the output through the workspace (so results are as if every input
were read before any output is written)."""
from __future__ import annotations

from ..runtime.base import Backend, Launch, Workspace
from ..runtime.copy import View, plan_copy
from ..tensor import Tensor, contiguous_strides
from ._checks import overlaps

WORKSPACE_ALIGN = 512


def tensor_view(t: Tensor) -> View:
    """The view of t: address of element (0, ..., 0), shape, strides in elements."""
    return View(t.data + t.storage_offset * t.itemsize, t.view_shape, t.view_strides, t.itemsize)


def align(nbytes: int) -> int:
    return (nbytes + WORKSPACE_ALIGN - 1) // WORKSPACE_ALIGN * WORKSPACE_ALIGN


def staged_source(be: Backend, src: Tensor, dst: Tensor, launches: list[Launch],
                  workspace_offset: int = 0) -> tuple[View, int]:
    """src's view, or -- when it overlaps dst -- a contiguous copy of it in the workspace
    (launches to make it are appended). Returns (view to read, workspace bytes used)."""
    view = tensor_view(src)
    if not overlaps(src, dst):
        return view, 0
    nbytes = src.numel * src.itemsize
    staged = View(Workspace(workspace_offset), src.view_shape, contiguous_strides(src.view_shape),
                  src.itemsize)
    launches.extend(plan_copy(be, staged, view))
    return staged, align(nbytes)
