"""Host side of the clip family (`kernels_cuda/clip.cuh`, built as `clip.cu`):
clip(x, lo, hi) -> out, minimum(maximum(x, lo), hi) elementwise in one pass, the bounds
broadcast to out, every operand of one dtype: the ufunc family's maximum and minimum, fused
(the same functors and intermediate store, so the same bits as the two of them).

The catalog (DTYPES: the dtypes with a kernel, those of maximum and minimum) is declared once
here; `clip.cu` is generated from it (`python -m npu_emu.kernels.clip`; tests/test_clip.py
fails when it is stale).
"""
from __future__ import annotations

from pathlib import Path

from ..dtypes import INFO, aclDataType as DT
from ..runtime.base import Backend, Launch, kernels_dir
from .copy import View
from .ufunc import BY_NAME, C_TYPES, check_broadcast, row_launch

MODULE = "clip.cu"
# The dtypes clip has a kernel for: maximum's and minimum's (the real integers and floats).
DTYPES = tuple(sorted(BY_NAME["maximum"].dtypes & BY_NAME["minimum"].dtypes,
                      key=lambda d: int(d)))


def kernel_name(dtype: DT) -> str:
    """The exported name of the clip kernel of `dtype`."""
    return f"clip_{INFO[dtype].short}"


def unit_source() -> str:
    """The text of kernels_cuda/clip.cu: the template and one kernel per dtype."""
    lines = ["// Generated from DTYPES in npu_emu/kernels/clip.py by",
             "// `python -m npu_emu.kernels.clip`; do not edit (tests/test_clip.py checks it is fresh).",
             '#include "clip.cuh"']
    lines += [f"NPU_EMU_CLIP_KERNEL({kernel_name(d)}, {C_TYPES[INFO[d].short]})" for d in DTYPES]
    return "\n".join(lines) + "\n"


def write_unit(folder: Path | None = None) -> Path:
    path = (kernels_dir() if folder is None else folder) / MODULE
    path.write_text(unit_source())
    return path


def plan(be: Backend, dtype: DT, out: View, x: View, lo: View, hi: View) -> list[Launch]:
    """Launches writing out = clip(x, lo, hi): views (address of element 0, strides in
    elements of any sign) of `dtype`, lo and hi broadcasting to out's shape. x may be out's
    very view; other overlaps are the caller's to stage."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype={dtype.name} has no clip kernel; the clip kernels take "
                         f"{', '.join(INFO[d].short for d in DTYPES)}")
    size = INFO[dtype].itemsize
    for view, what in ((out, "out"), (x, "x"), (lo, "lo"), (hi, "hi")):
        if view.itemsize != size:
            raise ValueError(f"{what} has {view.itemsize}-byte elements; {dtype.name} has "
                             f"{size}")
    check_broadcast(out, [(x, "x"), (lo, "lo"), (hi, "hi")])
    if out.numel == 0:
        return []
    return row_launch(be, MODULE, kernel_name(dtype), out, [x, lo, hi], size)


if __name__ == "__main__":
    print(f"wrote {write_unit()}")
