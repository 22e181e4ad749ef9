"""Host side of the triangle family (`kernels_cuda/triangle.cuh`, built as `triangle.cu`):
tril and triu, x's elements on one side of the k-th diagonal and zero bits on the other, into
a contiguous result; each row reads only the elements it keeps. The elements move as bits, so
one kernel per element width serves every dtype of that width.

The catalog (WIDTHS: element width -> the C type moved) is declared once here;
`triangle.cu` is generated from it (`python -m npu_emu.kernels`;
tests/test_kernel_catalog.py fails when it is stale).
"""
from __future__ import annotations

import numpy as np

from ..runtime.base import Backend, Launch
from .copy import BIT_TYPES, pointer_arg, width_kernel_name, width_unit

MODULE = "triangle.cu"
GENERATED = (MODULE,)   # the files generated from the catalog (npu_emu.kernels)
# element width in bytes -> the type triangle.cuh moves (copy.BIT_TYPES)
WIDTHS = BIT_TYPES
# Elements a CPU block writes at least (a block is handed out as one piece of work); a GPU
# block writes one row with its threads.
BLOCK_ELEMENTS = 1 << 15
GPU_BLOCK = 256


def kernel_name(width: int) -> str:
    """The exported name of the triangle kernel moving `width`-byte elements."""
    return width_kernel_name("triangle", width)


def generated() -> dict[str, str]:
    """kernels_cuda/triangle.cu: the template and one kernel per width."""
    return width_unit("triangle")


def params_dtype() -> np.dtype:
    """triangle.cuh's TriangleParams as the host packs it."""
    i64 = np.int64
    return np.dtype([("batch", i64), ("rows", i64), ("cols", i64), ("xb", i64), ("xr", i64),
                     ("xc", i64), ("k", i64), ("rows_per_block", i64), ("lower", np.int32)],
                    align=True)


def plan(be: Backend, lower: bool, k: int, width: int, out: int, x: int,
         shape: tuple[int, int, int], x_strides: tuple[int, int, int]) -> list[Launch]:
    """Launches writing out (contiguous, `shape` = (batch, rows, cols), at address `out`) =
    tril (`lower`) or triu of x (element 0 at address `x`, element strides of any sign),
    `width`-byte elements. out must not overlap x."""
    if width not in WIDTHS:
        raise ValueError(f"{width}-byte elements; the triangle kernels move "
                         f"{', '.join(map(str, WIDTHS))}-byte elements")
    batch, rows, cols = shape
    if min(shape) < 0:
        raise ValueError(f"shape {shape} has a negative extent")
    total = batch * rows
    if total == 0 or cols == 0:
        return []
    p = np.zeros((), dtype=params_dtype())
    p["batch"], p["rows"], p["cols"] = batch, rows, cols
    p["xb"], p["xr"], p["xc"] = x_strides
    p["k"] = min(max(k, -rows - 1), cols + 1)
    per = max(1, BLOCK_ELEMENTS // cols) if be.is_cpu else 1
    p["rows_per_block"], p["lower"] = per, int(bool(lower))
    grid = -(-total // per)
    if grid >= 2**31:
        raise ValueError(f"{grid} blocks: too many for one grid")
    kernel = be.function(MODULE, kernel_name(width))
    block = (1, 1, 1) if be.is_cpu else (GPU_BLOCK, 1, 1)
    return [Launch(kernel, (grid, 1, 1), block, (p[()], pointer_arg(x), pointer_arg(out)))]
