"""Plans for the strided gather/scatter kernels of `kernels_cuda/strided_copy.cu`:
dst[dst_view] = src[src_view], src broadcast to dst's shape (stride 0). Used by every
operator that moves data without converting it (Expand, InplaceCopy, contiguous copies).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..runtime.base import Backend, Launch, Pointer, Workspace
from . import unit_text
from .indexing import IterSpace, broadcast_strides, coalesce, pack_params

MODULE = "strided_copy.cu"
# The C type that moves an element of each width as bits, for the families that serve every
# dtype of a width with one kernel (select, triangle); 16: complex128 (npu_emu_common.cuh).
BIT_TYPES = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t", 16: "npu_emu::bits16"}
UNITS = {1: "b1", 2: "b2", 4: "b4", 8: "b8"}
TILE_MIN = 16   # both axes at least this long before a tile pays


def width_kernel_name(family: str, width: int) -> str:
    """The exported name of a by-width family's kernel moving `width`-byte elements
    (select_b4)."""
    return f"{family}_b{width}"


def width_unit(family: str) -> dict[str, str]:
    """The generated unit of a family that moves elements by width (select, triangle):
    kernels_cuda/<family>.cu, its template <family>.cuh and one NPU_EMU_<FAMILY>_KERNEL per
    BIT_TYPES width (npu_emu.kernels)."""
    macro = f"NPU_EMU_{family.upper()}_KERNEL"
    return {f"{family}.cu": unit_text(family, "WIDTHS",
                                      [f"{macro}({width_kernel_name(family, w)}, {ctype})"
                                       for w, ctype in BIT_TYPES.items()],
                                      includes=[f"{family}.cuh"])}


def pointer_arg(ptr: "int | Workspace") -> "Pointer | Workspace":
    """A pointer kernel argument: an address, or a Workspace marker resolved at enqueue."""
    return ptr if isinstance(ptr, Workspace) else Pointer(ptr)


@dataclass(frozen=True)
class View:
    """A strided view in device memory: `ptr` is the address of element (0, ..., 0), or a
    Workspace(offset) marker for a view inside the executor's workspace."""
    ptr: "int | Workspace"
    shape: tuple[int, ...]
    strides: tuple[int, ...]   # elements
    itemsize: int

    @property
    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def extent_bytes(self) -> int:
        """Bytes from ptr to the end of the last element (0 for an empty view)."""
        if any(s == 0 for s in self.shape):
            return 0
        return (sum((n - 1) * s for n, s in zip(self.shape, self.strides)) + 1) * self.itemsize


def split_wide_elements(shape: Sequence[int], strides: Sequence[Sequence[int]],
                        itemsize: int) -> tuple[tuple[int, ...], list[tuple[int, ...]], int]:
    """Elements wider than 8 bytes (complex128) become k 8-byte units on a new inner dim."""
    if itemsize in UNITS:
        return tuple(shape), [tuple(s) for s in strides], itemsize
    if itemsize % 8:
        raise ValueError(f"unsupported element size {itemsize}")
    k = itemsize // 8
    return (tuple(shape) + (k,), [tuple(x * k for x in s) + (1,) for s in strides], 8)


def tile_order(space: IterSpace, min_size: int = TILE_MIN) -> list[int] | None:
    """Dims [dst-fast, src-fast, rest...] when the source's fastest axis is not the
    destination's and both are at least min_size long (a tile pays); None otherwise."""
    if space.ndim < 2:
        return None
    src = space.strides[1]
    candidates = [d for d in range(1, space.ndim) if src[d] != 0]
    if not candidates:
        return None
    j = min(candidates, key=lambda d: src[d])
    if src[0] != 0 and src[j] < src[0] and space.sizes[0] >= min_size and space.sizes[j] >= min_size:
        return [0, j] + [d for d in range(1, space.ndim) if d != j]
    return None


def plan_copy(be: Backend, dst: View, src: View) -> list[Launch]:
    """Launches that copy src (broadcast to dst.shape) into dst. Empty views plan nothing.
    The views must not overlap (the operators stage overlapping sources in a workspace)."""
    if dst.itemsize != src.itemsize:
        raise ValueError("plan_copy moves bytes: both views need the same element size")
    if dst.numel == 0:
        return []
    # Part of the cache key: the geometry methods (a test may swap them for another device's)
    # and the pointers' offsets in a 16-byte vector (the GPU's vector runs need alignment).
    align = tuple((p.offset if isinstance(p, Workspace) else int(p)) % 16 for p in (dst.ptr, src.ptr))
    kernel, grid, block, params = _copy_geometry(be, (be.space_geometry, be.elementwise_geometry),
                                                 align, dst.shape, dst.strides, src.shape,
                                                 src.strides, dst.itemsize)
    return [Launch(kernel, grid, block, (params, pointer_arg(src.ptr), pointer_arg(dst.ptr)))]


@functools.lru_cache(maxsize=4096)
def _copy_geometry(be: Backend, geometry: tuple, align: tuple, dst_shape: tuple,
                   dst_strides: tuple, src_shape: tuple, src_strides: tuple, itemsize: int) -> tuple:
    """(kernel, grid, block, packed params) for a copy geometry: pure host work, cached, so
    a plan for a shape seen before costs a dictionary lookup."""
    bstrides = broadcast_strides(dst_shape, src_shape, src_strides)
    shape, (ds, ss), unit = split_wide_elements(dst_shape, [dst_strides, bstrides], itemsize)
    space = coalesce(shape, [ds, ss])
    index = "i32" if space.fits_32bit() else "i64"
    order = tile_order(space)
    if order is not None:
        space = space.permuted(order)
        span0, span1 = be.tile_span(UNITS[unit])
        tiles = -(-space.sizes[0] // span0) * -(-space.sizes[1] // span1)
        grid = tiles * (space.numel // (space.sizes[0] * space.sizes[1]))
        if grid < 2**31:
            bx, by = be.tile_block
            return (be.function(MODULE, f"tiled_copy_{UNITS[unit]}_{index}"), (grid, 1, 1),
                    (bx, by, 1), pack_params(space, 0))
    grid, block, run = be.space_geometry(space, unit, pointers=((0, align[0], unit), (1, align[1], unit)))
    return (be.function(MODULE, f"strided_copy_{UNITS[unit]}_{index}"), (grid, 1, 1),
            (block, 1, 1), pack_params(space, run))
