"""The NPU operations users come to npu_emu for, eager and raising: CANN's Expand, ViewCopy,
as_strided views, the private layouts (format_cast), and the SoC switch.

Each computing one is one call into the operator core with CANN's checks, so the NPU's
dtype lists and SoC support apply (expand of float64 raises as aclnnExpand refuses it).
"""
from __future__ import annotations

from typing import Sequence

from .. import runtime
from ..arch import set_soc, soc
from ..dtypes import aclDataType as DT
from ..fractal import L, parse_layout
from ..ops.expand import EXPAND
from ..ops.format_cast import format_cast as _format_cast
from ..tensor import contiguous_strides, make_int_array, make_tensor
from ._engine.args import array_arg, shape_arg
from ._engine.array import ND, Array, trusted_tensor, wrap_tensor
from ._engine.device import Storage, synchronize
from ._engine.kernel import assign, call_new, check_writable

# ViewCopy's dtype list (docs/operators.md#aclnninplacecopy).
VIEW_COPY_DTYPES = frozenset({
    DT.ACL_BF16, DT.ACL_FLOAT16, DT.ACL_FLOAT, DT.ACL_UINT8, DT.ACL_INT8, DT.ACL_UINT16,
    DT.ACL_INT16, DT.ACL_UINT32, DT.ACL_INT32, DT.ACL_UINT64, DT.ACL_INT64, DT.ACL_BOOL,
    DT.ACL_HIFLOAT8, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN})


def expand(x: Array, /, size: Sequence[int]) -> Array:
    """aclnnExpand: x broadcast to `size` (PyTorch's expand rules; -1 keeps a dim) into a new
    array, with CANN's checks (its dtype list, no Expand on Ascend310B, at most 8 dims)."""
    x = array_arg("", x)
    return call_new(EXPAND, [x], {"size": make_int_array(shape_arg(size, "size"), "size")})


def view_copy(dst: Array, src: Array, /) -> Array:
    """ViewCopy: copy src into the view dst (same shape, same dtype, ViewCopy's dtype list),
    one strided copy between two views of any strides. Returns dst."""
    dst, src = array_arg("", dst, "dst"), array_arg("", src, "src")
    if dst.shape != src.shape:
        raise ValueError(f"view_copy: dst has shape {dst.shape} and src {src.shape}; ViewCopy "
                         f"copies equal shapes (use dst[...] = src to broadcast)")
    if dst.dtype != src.dtype:
        raise TypeError(f"view_copy: dst is {dst.dtype.name} and src {src.dtype.name}; ViewCopy "
                        f"does not convert (use dst[...] = src)")
    if dst._t.dtype not in VIEW_COPY_DTYPES:
        raise TypeError(f"view_copy: ViewCopy does not take {dst.dtype.name}")
    check_writable(dst, "dst")
    assign(dst, src)
    return dst


def as_strided(x: Array, /, shape: Sequence[int], strides: Sequence[int],
               offset: int | None = None) -> Array:
    """A view of x's storage (torch.as_strided): `strides` and `offset` in elements, both
    >= 0 as an aclTensor's, offset from the start of the storage (default: where x's view
    starts). Raises when the view reaches outside the storage."""
    x = array_arg("", x)
    base = x._t
    off = base.storage_offset if offset is None else offset
    t = make_tensor(list(shape_arg(shape)), base.dtype, list(shape_arg(strides, "strides")),
                    off, ND, list(base.storage_shape), base.data, owner=x._st)
    return wrap_tensor(t, x._st)


def format_cast(x: Array, fmt: object, /, c0: int | None = None) -> Array:
    """x in layout `fmt` ("NZ", "Zz", "Zn", "DN", "NC1HWC0", "FRACTAL_Z", an aclFormat, a
    npu_emu.fractal.Layout, or "ND" to convert back). A private layout is an array of its
    storage (shape = the storage shape, `format` = the layout); converting it back to ND
    gives the logical shape again. c0 overrides C0 (torch_npu's convention)."""
    x = array_arg("", x)
    be = x._st.backend
    if be is not runtime.current():
        raise ValueError(f"format_cast runs on the current backend ({runtime.current().name}); "
                         f"x is on {x.device}")
    target, _ = parse_layout(fmt, "fmt")
    if x._layout is not None and target is not L.ND and x.format is not target:
        x = format_cast(x, "ND")         # one private layout to another goes through ND
    src = x._layout if x._layout is not None else x._kernel_tensor()
    out = _format_cast(src, fmt, c0=c0)
    if be.is_cpu and x._st.shared:
        synchronize(be)       # the user may change or free the source at once
    buf = out.owner
    st = Storage(buf.ptr, buf.nbytes, be, buf)
    if target is L.ND:
        return wrap_tensor(out.with_data(out.data, st), st)
    storage = tuple(out.storage_shape)
    t = trusted_tensor(storage, out.dtype, contiguous_strides(storage), 0, storage, out.data, st)
    return wrap_tensor(t, st, layout=out.with_data(out.data, st))


__all__ = ["as_strided", "expand", "format_cast", "set_soc", "soc", "view_copy"]
