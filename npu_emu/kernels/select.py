"""Host side of the select family (`kernels_cuda/select.cuh`, built as `select.cu`):
where(condition, x1, x2) -> out, condition ? x1 : x2 elementwise, the three operands
broadcast to out. The branches are moved as bits, so one kernel per element width serves
every dtype of that width; the condition is bool (one byte holding 0 or 1).

The catalog (WIDTHS: element width -> the C type moved) is declared once here; `select.cu`
is generated from it (`python -m npu_emu.kernels`; tests/test_kernel_catalog.py fails
when it is stale).
"""
from __future__ import annotations

from ..runtime.base import Backend, Launch
from .copy import BIT_TYPES, View, width_kernel_name, width_unit
from .ufunc import WIDE_INDEX, check_broadcast, row_launch   # noqa: F401 (WIDE_INDEX: select.cuh's flag too)

MODULE = "select.cu"
GENERATED = (MODULE,)   # the files generated from the catalog (npu_emu.kernels)
# element width in bytes -> the type select.cuh moves (copy.BIT_TYPES)
WIDTHS = BIT_TYPES


def kernel_name(width: int) -> str:
    """The exported name of the select kernel moving `width`-byte elements."""
    return width_kernel_name("select", width)


def generated() -> dict[str, str]:
    """kernels_cuda/select.cu: the template and one kernel per width."""
    return width_unit("select")


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
    check_broadcast(out, [(cond, "cond"), (x1, "x1"), (x2, "x2")])
    if out.numel == 0:
        return []
    return row_launch(be, MODULE, kernel_name(width), out, [cond, x1, x2], width)
