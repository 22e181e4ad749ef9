"""Host side of the clip family (`kernels_cuda/clip.cuh`, built as `clip.cu`):
clip(x, lo, hi) -> out, minimum(maximum(x, lo), hi) elementwise in one pass, the bounds
broadcast to out, every operand of one dtype: the ufunc family's maximum and minimum, fused
(the same functors and intermediate store, so the same bits as the two of them).

The catalog (DTYPES: the dtypes with a kernel, those of maximum and minimum) is declared once
here; `clip.cu` is generated from it (`python -m npu_emu.kernels`; tests/test_kernel_catalog.py
fails when it is stale).
"""
from __future__ import annotations

from ..dtypes import INFO, aclDataType as DT
from ..runtime.base import Backend, Launch
from . import unit_text
from .copy import View
from .ufunc import BY_NAME, C_TYPES, check_broadcast, row_launch

MODULE = "clip.cu"
GENERATED = (MODULE,)   # the files generated from the catalog (npu_emu.kernels)
# The dtypes clip has a kernel for: maximum's and minimum's (the real integers and floats).
DTYPES = tuple(sorted(BY_NAME["maximum"].dtypes & BY_NAME["minimum"].dtypes,
                      key=lambda d: int(d)))


def kernel_name(dtype: DT) -> str:
    """The exported name of the clip kernel of `dtype`."""
    return f"clip_{INFO[dtype].short}"


def generated() -> dict[str, str]:
    """kernels_cuda/clip.cu: the template and one kernel per dtype."""
    return {MODULE: unit_text("clip", "DTYPES", [f"NPU_EMU_CLIP_KERNEL({kernel_name(d)}, "
                                                 f"{C_TYPES[INFO[d].short]})" for d in DTYPES],
                              includes=["clip.cuh"])}


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
