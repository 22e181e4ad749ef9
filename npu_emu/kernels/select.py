"""Host side of the select family (`kernels_cuda/select.cuh`, built as `select.cu`):
where(condition, x1, x2) -> out, condition ? x1 : x2 elementwise, the three operands
broadcast to out. The branches are moved as bits, so one kernel per element width serves
every dtype of that width; the condition is bool (one byte holding 0 or 1).

The catalog (WIDTHS: element width -> the C type moved) is declared once here; `select.cu`
is generated from it (`python -m npu_emu.kernels.select`; tests/test_select.py fails when
it is stale).
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..runtime.base import Backend, Launch, kernels_dir
from .copy import View, pointer_arg
from .indexing import broadcast_strides, coalesce, pack_params

MODULE = "select.cu"
# element width in bytes -> the type select.cuh moves (16: complex128, as two 64-bit words)
WIDTHS = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t",
          16: "npu_emu::select_kernels::b16"}
WIDE_INDEX = 1   # IterParams::flags (select.cuh): take the 64-bit body


def kernel_name(width: int) -> str:
    """The exported name of the select kernel moving `width`-byte elements."""
    return f"select_b{width}"


def unit_source() -> str:
    """The text of kernels_cuda/select.cu: the template and one kernel per width."""
    lines = ["// Generated from WIDTHS in npu_emu/kernels/select.py by",
             "// `python -m npu_emu.kernels.select`; do not edit (tests/test_select.py checks it is fresh).",
             '#include "select.cuh"']
    lines += [f"NPU_EMU_SELECT_KERNEL({kernel_name(w)}, {ctype})" for w, ctype in WIDTHS.items()]
    return "\n".join(lines) + "\n"


def write_unit(folder: Path | None = None) -> Path:
    path = (kernels_dir() if folder is None else folder) / MODULE
    path.write_text(unit_source())
    return path


def plan(be: Backend, out: View, cond: View, x1: View, x2: View) -> list[Launch]:
    """Launches writing out = where(cond, x1, x2): views (address of element 0, strides in
    elements of any sign); cond of 1-byte bool elements, x1, x2 and out of one width, each
    input broadcasting to out's shape. An input may be out's very view; other overlaps are
    the caller's to stage."""
    width = out.itemsize
    if width not in WIDTHS:
        raise ValueError(f"out has {width}-byte elements; the select kernels move "
                         f"{', '.join(map(str, WIDTHS))}-byte elements")
    if cond.itemsize != 1:
        raise ValueError(f"cond has {cond.itemsize}-byte elements; it must be bool (1 byte)")
    for view, what in ((x1, "x1"), (x2, "x2")):
        if view.itemsize != width:
            raise ValueError(f"{what} has {view.itemsize}-byte elements, out {width}-byte ones")
    for view, what in ((cond, "cond"), (x1, "x1"), (x2, "x2")):
        if len(view.shape) > len(out.shape) or any(
                m not in (1, n) for m, n in zip(view.shape[::-1], out.shape[::-1])):
            raise ValueError(f"{what} of shape {list(view.shape)} does not broadcast to out's "
                             f"shape {list(out.shape)}")
    if out.numel == 0:
        return []
    shape = out.shape
    ins: Sequence[View] = (cond, x1, x2)
    space = coalesce(shape, [out.strides] + [broadcast_strides(shape, v.shape, v.strides)
                                             for v in ins])
    wide = not space.fits_32bit() or any(s < 0 for st in space.strides for s in st)
    pointers = [(0, out.ptr, width)] + [(k + 1, v.ptr, v.itemsize) for k, v in enumerate(ins)]
    grid, block, run = be.space_geometry(space, width, pointers=pointers)
    kernel = be.function(MODULE, kernel_name(width))
    params = pack_params(space, run, flags=WIDE_INDEX if wide else 0)
    args = (params, *(pointer_arg(v.ptr) for v in ins), pointer_arg(out.ptr))
    return [Launch(kernel, (grid, 1, 1), (block, 1, 1), args)]


if __name__ == "__main__":
    print(f"wrote {write_unit()}")
