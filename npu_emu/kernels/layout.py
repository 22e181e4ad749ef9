"""Plans for the layout kernels of `kernels_cuda/layout.cuh`: a strided view to a private
layout's storage (padding written as zeros) and back (padding dropped), each one pass.

A layout is given as its storage axes (see `npu_emu.fractal.LayoutSpec`): axis (dim, mult,
size) walks view dim `dim` in steps of `mult`. The storage is contiguous over the axes; the
view may have any strides. The iteration space is the axes over four operands (destination,
source, and the logical index of each padded dim, so merges never cross a padding boundary),
in the order `iteration_space` chooses, run by one of three kernels: tiled (a transposing
shared tile) when the fast axis changes, else planes (fractal rows moved whole; the cpu) or
gather (consecutive threads, consecutive runs; a GPU, and what planes cannot take).
"""
from __future__ import annotations

import functools
import math
from typing import Sequence

import numpy as np

from ..runtime.base import Backend, Launch, Workspace
from .copy import View, pointer_arg, tile_order
from .indexing import IterSpace, coalesce, pack_params, params_dtype

MODULES = {"i32": "layout.cu", "i64": "layout_i64.cu"}   # by index width (cold start: half each)
UNITS = {1: "b1", 2: "b2", 4: "b4", 8: "b8"}
TILE = 32              # the shared tile of layout_tiled_* (32 x 33)
TILE_MIN = 8           # both axes at least this long before a transposing tile pays
FILL_PADDING = 1       # flags: write padding as zero (view -> layout)
NO_BOUND = 2**62       # the bound of an unused padded-dim slot
MAX_PADDED_DIMS = 2

Axis = tuple[int, int, int]


@functools.lru_cache(maxsize=None)
def layout_params_dtype() -> np.dtype:
    """NumPy mirror of `LayoutParams` (IterParams<4> then two int64 bounds)."""
    return np.dtype([("it", params_dtype(4)), ("bound", np.int64, (2,))], align=True)


def padded_dims(axes: Sequence[Axis], view_shape: Sequence[int]) -> list[int]:
    """View dims whose extent over the axes passes the view's size (they hold padding)."""
    ext = [1] * len(view_shape)
    for d, mult, size in axes:
        ext[d] += (size - 1) * mult
    return [d for d, n in enumerate(view_shape) if ext[d] > n]


def _storage_strides(axes: Sequence[Axis]) -> list[int]:
    strides, step = [0] * len(axes), 1
    for i in range(len(axes) - 1, -1, -1):
        strides[i] = step
        step *= axes[i][2]
    return strides


def iteration_space(axes: Sequence[Axis], view: View, to_layout: bool) -> tuple[IterSpace, list[int], bool]:
    """The iteration space (operands: dst, src, padded dim 0, padded dim 1, innermost axis
    first), the bounds of the padded dims, and whether it is ordered for the tiled kernel.

    When the view's fastest axis is not the storage's innermost one (Zn, DN, NCHW ->
    NC1HWC0) the space is ordered by the destination's strides and the tiled kernel
    transposes through shared memory. Otherwise both directions walk a blocked order: the
    storage's two innermost axes (a fractal, a W x C0 block) form a plane, then the other
    axes follow by the view's strides, so a pass over one row of fractals touches a band of
    the view small enough to stay in cache (the view's lines are read or written whole).
    Measured on 2 cores, NZ -> ND at 256 MiB: ~18 GB/s this way, 0.5 GB/s walking the view in
    memory order (each view row touches every fractal column: TLB misses)."""
    pads = padded_dims(axes, view.shape)
    if len(pads) > MAX_PADDED_DIMS:
        raise ValueError(f"a layout pads at most {MAX_PADDED_DIMS} dims; these axes pad {pads}")
    storage = _storage_strides(axes)
    nd = [mult * view.strides[d] for d, mult, _ in axes]
    logical = [[mult if d == p else 0 for d, mult, _ in axes] for p in pads]
    while len(logical) < MAX_PADDED_DIMS:
        logical.append([0] * len(axes))
    shape = [size for _, _, size in axes]
    operands = [storage, nd] if to_layout else [nd, storage]
    bounds = [view.shape[p] for p in pads] + [NO_BOUND] * (MAX_PADDED_DIMS - len(pads))
    live = [i for i, n in enumerate(shape) if n != 1]
    if len(live) < 2:
        return coalesce(shape, operands + logical), bounds, False
    inner = live[-1]
    moving = [i for i in live if nd[i] != 0]
    fastest = min(moving, key=lambda i: (abs(nd[i]), -i)) if moving else inner
    if fastest != inner and abs(nd[fastest]) < abs(nd[inner]):
        return coalesce(shape, operands + logical), bounds, True
    block = live[-2:][::-1]                    # storage innermost, then the next
    rest = sorted(live[:-2], key=lambda i: (abs(nd[i]), -i))
    return coalesce(shape, operands + logical, order=block + rest), bounds, False


def _tile_order(space: IterSpace) -> list[int] | None:
    """copy.tile_order, and no padded dim moving along both tiled axes (the kernel's
    rectangle rule)."""
    order = tile_order(space, TILE_MIN)
    if order is None:
        return None
    j = order[1]
    if any(space.strides[k][0] and space.strides[k][j] for k in (2, 3)):
        return None
    return order


def plan_layout(be: Backend, axes: Sequence[Axis], view: View, storage: int | Workspace,
                to_layout: bool) -> list[Launch]:
    """Launches that convert between `view` and a contiguous storage at `storage` laid out
    by `axes` (outermost first): to_layout=True writes the storage (padding zero),
    False writes the view (padding dropped). Empty views plan nothing."""
    if view.itemsize not in UNITS:
        raise ValueError(f"layout kernels move elements of 1, 2, 4 or 8 bytes, not {view.itemsize}")
    if not axes and not view.shape:          # a 0-d view: one element
        axes, view = [(0, 1, 1)], View(view.ptr, (1,), (0,), view.itemsize)
    if view.numel == 0 or math.prod(a[2] for a in axes) == 0:
        return []
    space, bounds, transposed = iteration_space(axes, view, to_layout)
    if space.ndim > 8:
        raise ValueError(f"the layout's iteration space has {space.ndim} dims after coalescing; "
                         f"the kernels take at most 8")
    index = "i32" if space.fits_32bit() else "i64"
    flags = FILL_PADDING if to_layout else 0
    src_ptr, dst_ptr = (view.ptr, storage) if to_layout else (storage, view.ptr)
    tail = (pointer_arg(src_ptr), pointer_arg(dst_ptr))
    unit = UNITS[view.itemsize]
    order = _tile_order(space) if transposed else None
    if order is not None:
        tiled = space.permuted(order)
        tiles = (-(-tiled.sizes[0] // TILE) * -(-tiled.sizes[1] // TILE)
                 * (tiled.numel // (tiled.sizes[0] * tiled.sizes[1])))
        if tiles < 2**31:
            # cpu: a strip of tiles per block (a few blocks per worker); gpu: one tile each
            run = max(1, -(-tiles // (be.parallelism * 4))) if be.is_cpu else 1
            kernel = be.function(MODULES[index], f"layout_tiled_{unit}_{index}")
            bx, by = be.tile_block
            return [Launch(kernel, (-(-tiles // run), 1, 1), (bx, by, 1),
                           (_pack(tiled, run, flags, bounds),) + tail)]
    if not transposed and be.is_cpu and _planes_ok(space):
        grid, block, run = _planes_geometry(be, space, view.itemsize)
        kernel = be.function(MODULES[index], f"layout_planes_{unit}_{index}")
        return [Launch(kernel, (grid, 1, 1), block, (_pack(space, run, flags, bounds),) + tail)]
    grid, block, run = be.space_geometry(space, view.itemsize, operands=(0, 1),
                                         pointers=((0, dst_ptr, view.itemsize), (1, src_ptr, view.itemsize)))
    kernel = be.function(MODULES[index], f"layout_gather_{unit}_{index}")
    return [Launch(kernel, (grid, 1, 1), (block, 1, 1), (_pack(space, run, flags, bounds),) + tail)]


def _planes_ok(space: IterSpace) -> bool:
    """Whole planes (axes 0 x 1) per block: two axes, unit strides along axis 0, and the data
    of a plane a rectangle (no padded dim moving along both axes; adjacent blocks of one
    dim always merge, so the blocked order never breaks this)."""
    return (space.ndim >= 2 and space.strides[0][0] == 1 and space.strides[1][0] == 1
            and not any(space.strides[k][0] and space.strides[k][1] for k in (2, 3)))


def _planes_geometry(be: Backend, space: IterSpace, itemsize: int) -> tuple[int, tuple[int, int, int], int]:
    """(grid, block, planes per block) for the cpu: a few chunks per worker thread, at least
    16 KiB each."""
    plane = space.sizes[0] * space.sizes[1]
    planes = space.numel // plane
    run = max(-(-planes // (be.parallelism * 4)), -(-16384 // (plane * itemsize)), 1)
    return -(-planes // run), (1, 1, 1), run


def _pack(space: IterSpace, run: int, flags: int, bounds: Sequence[int]) -> np.void:
    p = np.zeros((), dtype=layout_params_dtype())
    p["it"] = pack_params(space, run, flags)
    p["bound"] = bounds
    return p[()]
