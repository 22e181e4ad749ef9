"""aclnnNpuFormatCast (docs/formats.md#private-layouts): a tensor between a public format (ND, NCHW, ...) and a
private layout (FRACTAL_NZ, NC1HWC0, FRACTAL_Z, ...), both ways, in one kernel pass.

CANN's API is three calls: `aclnnNpuFormatCastCalculateSizeAndFormat` (storage shape and
actual format of the destination), then the two phases. Checks follow CANN's ops-math
`aclnnNpuFormatCast.md`: null -> 161001; product not supported -> 361001; dtype, format,
additionalDtype, rank 2..6, empty source, non-contiguous tensors -> 161002; a pair of listed
formats with no conversion between them -> 361001. The per-SoC tables are below as data.

`format_cast(tensor, fmt, c0=None)` is the Python helper (npu_emu.format_cast): any SoC, every
layout of `npu_emu.fractal` (Zz, Zn, DN and NC1HWC0_C04 included), non-contiguous sources,
a C0 override; it returns a new device tensor.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import dtypes as _dt
from ..arch import SocInfo
from ..dtypes import aclDataType as DT
from ..formats import PUBLIC_FORMAT_RANKS, aclFormat, as_format, fmt_name
from ..fractal import (L, LayoutSpec, NZ_C0_FORMATS, NZ_FORMAT_FOR_C0, layout_spec,
                       make_layout_tensor, parse_layout, public_origin, tensor_layout, tensor_spec)
from ..kernels.copy import View
from ..kernels.layout import plan_layout
from ..runtime.base import Launch
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_RUNTIME_ERROR
from ..tensor import Tensor
from . import _checks as C
from ._core import ATTR, IN, OUT, Context, OpDef, Param, Plan, current_context, run, storage_touch, view_touch
from ._plans import WorkspaceLayout, staged, tensor_view, touches_meet

OP = "NpuFormatCast"
F = aclFormat

# ------------------------------------------------------------------------ CANN's tables

_A2_A3 = "Atlas A2/A3"
_950 = "Ascend950"
SOC_GROUP = {"Ascend910B": _A2_A3, "Ascend910_93": _A2_A3, "Ascend950": _950}

DTYPES = {
    _A2_A3: frozenset({DT.ACL_INT8, DT.ACL_UINT8, DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_BF16,
                       DT.ACL_INT32, DT.ACL_UINT32}),
    # FLOAT4_E2M1/E1M2 are listed by CANN but have no per-element storage here (docs/dtypes.md#data-types).
    _950: frozenset({DT.ACL_INT8, DT.ACL_UINT8, DT.ACL_INT32, DT.ACL_UINT32, DT.ACL_FLOAT,
                     DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT8_E4M3FN, DT.ACL_HIFLOAT8}),
}
ADDITIONAL_DTYPES = DTYPES

_NZ_SOURCES = (F.ACL_FORMAT_ND, F.ACL_FORMAT_NCL, F.ACL_FORMAT_NCHW, F.ACL_FORMAT_NCDHW)
CONVERSIONS = {
    _A2_A3: frozenset(
        [(s, F.ACL_FORMAT_FRACTAL_NZ) for s in _NZ_SOURCES]
        + [(F.ACL_FORMAT_FRACTAL_NZ, s) for s in _NZ_SOURCES]
        + [(F.ACL_FORMAT_NCDHW, F.ACL_FORMAT_NDC1HWC0), (F.ACL_FORMAT_NDHWC, F.ACL_FORMAT_NDC1HWC0),
           (F.ACL_FORMAT_NCDHW, F.ACL_FRACTAL_Z_3D),
           (F.ACL_FORMAT_NCHW, F.ACL_FORMAT_NC1HWC0), (F.ACL_FORMAT_NHWC, F.ACL_FORMAT_NC1HWC0),
           (F.ACL_FORMAT_NCHW, F.ACL_FORMAT_FRACTAL_Z), (F.ACL_FORMAT_HWCN, F.ACL_FORMAT_FRACTAL_Z)]
        + [(F.ACL_FORMAT_NDC1HWC0, F.ACL_FORMAT_NCDHW), (F.ACL_FORMAT_NDC1HWC0, F.ACL_FORMAT_NDHWC),
           (F.ACL_FRACTAL_Z_3D, F.ACL_FORMAT_NCDHW),
           (F.ACL_FORMAT_NC1HWC0, F.ACL_FORMAT_NCHW), (F.ACL_FORMAT_NC1HWC0, F.ACL_FORMAT_NHWC),
           (F.ACL_FORMAT_FRACTAL_Z, F.ACL_FORMAT_NCHW), (F.ACL_FORMAT_FRACTAL_Z, F.ACL_FORMAT_HWCN)]),
    _950: frozenset([(F.ACL_FORMAT_ND, F.ACL_FORMAT_FRACTAL_NZ)]
                    + [(f, F.ACL_FORMAT_ND) for f in (F.ACL_FORMAT_FRACTAL_NZ, *NZ_C0_FORMATS)]
                    + [(F.ACL_FORMAT_ND, f) for f in NZ_C0_FORMATS]),
}
FORMATS = {group: frozenset(f for pair in pairs for f in pair) for group, pairs in CONVERSIONS.items()}
SRC_RANKS = (2, 6)
PRIVATE_STORAGE_RANKS = (4, 8)


# ------------------------------------------------------------------------------- checks

def _soc_group(soc: SocInfo) -> str:
    group = SOC_GROUP.get(soc.name)
    if group is None:
        raise AclnnError(ACLNN_ERR_RUNTIME_ERROR,
                         f"aclnn{OP} is not supported on {soc.name} ({soc.products}); it runs on "
                         f"Atlas A2/A3 (Ascend910B, Ascend910_93) and Ascend950.")
    return group


def _is_default_dtype(dtype: object) -> bool:
    """additionalDtype -1 (ACL_DT_UNDEFINED): the source's dtype (any integer spelling)."""
    if isinstance(dtype, (bool, np.bool_)):
        return False
    try:
        return operator.index(dtype) == -1   # type: ignore[arg-type]
    except TypeError:
        return False


def _check_dtype(dtype: object, name: str, group: str, allow_default: bool = False) -> None:
    if allow_default and _is_default_dtype(dtype):
        return
    dt = _dt.as_dtype(dtype, name)
    if dt not in DTYPES[group]:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{name} {_dt.dt_name(dt)} is not supported, should be in dtype support "
                         f"list {C.dtype_list(DTYPES[group])}.")


def _check_format(fmt: object, name: str, group: str) -> aclFormat:
    f = as_format(fmt, name)   # an aclFormat or its integer value (never a float)
    if f not in FORMATS[group]:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{name} {fmt_name(f)} is not supported, should be in format support list "
                         f"[{', '.join(fmt_name(x) for x in sorted(FORMATS[group]))}].")
    return f


def _check_pair(src: aclFormat, dst: aclFormat, group: str, soc: SocInfo) -> None:
    if (src, dst) not in CONVERSIONS[group]:
        raise AclnnError(ACLNN_ERR_RUNTIME_ERROR,
                         f"aclnn{OP} does not convert {fmt_name(src)} to {fmt_name(dst)} on "
                         f"{soc.name}.")


def _check_rank(t: Tensor, name: str, private: bool) -> None:
    if private:
        lo, hi = PRIVATE_STORAGE_RANKS
        if not lo <= len(t.storage_shape) <= hi:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"{name}'s storage shape {C.shape_str(t.storage_shape)} has "
                             f"{len(t.storage_shape)} dims; it must have {lo} to {hi}.")
    lo, hi = SRC_RANKS
    if not lo <= t.dim <= hi:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{name}'s view shape {C.shape_str(t.view_shape)} has {t.dim} dims; it "
                         f"must have {lo} to {hi}.")


def _check_not_empty(t: Tensor, name: str) -> None:
    if t.is_empty():
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{name} is an empty tensor (view shape {C.shape_str(t.view_shape)}); "
                         f"aclnn{OP} needs at least one element.")


def _is_private(fmt: aclFormat) -> bool:
    return parse_layout(fmt)[0] is not L.ND


def _c0_for_additional(src: Tensor, additional_dtype: object, soc: SocInfo) -> int:
    dt = src.dtype if _is_default_dtype(additional_dtype) \
        else _dt.as_dtype(additional_dtype, "additionalDtype")
    return soc.c0(_dt.INFO[dt].bits)


# ------------------------------------------------------------- CalculateSizeAndFormat

def calculate_size_and_format(src: Tensor, dst_format: object, additional_dtype: object,
                              ctx: Context) -> tuple[list[int], aclFormat]:
    """(storage shape of the destination, its actual format); AclnnError on bad input.
    aclnnNpuFormatCastCalculateSizeAndFormat."""
    soc = ctx.soc
    C.check_not_null(src, "srcTensor")
    C.check_type(src, Tensor, "srcTensor")
    group = _soc_group(soc)
    _check_dtype(src.dtype, "srcTensor", group)
    src_fmt = _check_format(src.format, "srcTensor format", group)
    dst_fmt = _check_format(dst_format, "dstFormat", group)
    _check_dtype(additional_dtype, "additionalDtype", group, allow_default=True)
    _check_rank(src, "srcTensor", private=False)
    _check_not_empty(src, "srcTensor")
    _check_pair(src_fmt, dst_fmt, group, soc)
    if _is_private(src_fmt):               # back to a public format: the logical shape
        return list(src.view_shape), dst_fmt
    if src_fmt in PUBLIC_FORMAT_RANKS and PUBLIC_FORMAT_RANKS[src_fmt] not in (None, src.dim):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"srcTensor has format {fmt_name(src_fmt)} but {src.dim} dimensions; "
                         f"{fmt_name(src_fmt)} needs {PUBLIC_FORMAT_RANKS[src_fmt]}.")
    c0 = _c0_for_additional(src, additional_dtype, soc)
    lay, named_c0 = parse_layout(dst_fmt)
    if named_c0 is not None:
        c0 = named_c0
    spec = layout_spec(lay, src.view_shape, src.dtype, c0=c0, origin=public_origin(src_fmt))
    actual = dst_fmt
    if group == _950 and lay is L.FRACTAL_NZ and named_c0 is None \
            and c0 != soc.c0(_dt.INFO[src.dtype].bits):
        # Ascend950 names a C0 that differs from the source dtype's in the format (CANN's table:
        # FLOAT with additionalDtype FLOAT16 -> FRACTAL_NZ_C0_16).
        if c0 not in NZ_FORMAT_FOR_C0:
            raise AclnnError(ACLNN_ERR_RUNTIME_ERROR,
                             f"no FRACTAL_NZ_C0 format holds C0 = {c0} for {_dt.dt_name(src.dtype)}")
        actual = NZ_FORMAT_FOR_C0[c0]
    return list(spec.storage_shape), actual


# ---------------------------------------------------------------------------- the plan

def check_params(src: Tensor, dst: Tensor, soc: SocInfo) -> tuple[LayoutSpec, bool]:
    """(the private side's LayoutSpec, True when converting to it)."""
    C.check_not_null(src, "srcTensor")
    C.check_not_null(dst, "dstTensor")
    C.check_type(src, Tensor, "srcTensor")
    C.check_type(dst, Tensor, "dstTensor")
    group = _soc_group(soc)
    _check_dtype(src.dtype, "srcTensor", group)
    _check_dtype(dst.dtype, "dstTensor", group)
    C.check_same_dtype(src, dst, "srcTensor", "dstTensor")
    src_fmt = _check_format(src.format, "srcTensor format", group)
    dst_fmt = _check_format(dst.format, "dstTensor format", group)
    _check_pair(src_fmt, dst_fmt, group, soc)
    for t, name in ((src, "srcTensor"), (dst, "dstTensor")):
        if not t.is_contiguous():
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"{name} must be contiguous (view strides "
                             f"{C.shape_str(t.view_strides)} for shape {C.shape_str(t.view_shape)}).")
    to_layout = not _is_private(src_fmt)
    public, private = (src, dst) if to_layout else (dst, src)
    pub_name, priv_name = ("srcTensor", "dstTensor") if to_layout else ("dstTensor", "srcTensor")
    _check_rank(public, pub_name, private=False)
    _check_rank(private, priv_name, private=True)
    C.check_private_offset(private, priv_name)
    if public.format in PUBLIC_FORMAT_RANKS and PUBLIC_FORMAT_RANKS[public.format] not in (None, public.dim):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{pub_name} has format {fmt_name(public.format)} but {public.dim} "
                         f"dimensions; {fmt_name(public.format)} needs "
                         f"{PUBLIC_FORMAT_RANKS[public.format]}.")
    _check_not_empty(src, "srcTensor")
    if dst.view_shape != src.view_shape:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"dstTensor's view shape {C.shape_str(dst.view_shape)} must equal "
                         f"srcTensor's {C.shape_str(src.view_shape)}.")
    spec = tensor_spec(private, origin=public_origin(public.format))
    if group == _A2_A3 and spec.layout is not L.NC1HWC0_C04:
        allowed = sorted({soc.c0(_dt.INFO[d].bits) for d in ADDITIONAL_DTYPES[group]})
        if spec.c0 not in allowed:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"{priv_name}'s C0 is {spec.c0} (its storage shape "
                             f"{C.shape_str(private.storage_shape)}); C0 must be one of {allowed}.")
    return spec, to_layout


def check(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> None:
    check_params(ins[0], outs[0], ctx.soc)


def layout_plan(ctx: Context, spec: LayoutSpec, public: Tensor, private: Tensor,
                to_layout: bool, public_name: str, private_name: str) -> Plan:
    """One pass between a public tensor's view and a private tensor's whole storage; where
    the two meet, the source (the view, or the storage) is read from a copy in the
    workspace first."""
    view = tensor_view(public)
    touches = [view_touch(public, public_name),
               storage_touch(private, private_name, spec.storage_numel)]
    launches: list[Launch] = []
    ws = WorkspaceLayout()
    storage = private.data
    if touches_meet(*touches):
        if to_layout:
            view = staged(ctx.backend, view, launches, ws)
        else:
            storage = staged(ctx.backend, View(storage, (spec.storage_numel,), (1,), private.itemsize),
                             launches, ws).ptr
    launches += plan_layout(ctx.backend, spec.axes, view, storage, to_layout)
    return Plan(launches, ws.size, touches)


def plan(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> Plan:
    src, dst = ins[0], outs[0]
    spec, to_layout = check_params(src, dst, ctx.soc)
    if to_layout:
        return layout_plan(ctx, spec, src, dst, True, "srcTensor", "dstTensor")
    return layout_plan(ctx, spec, dst, src, False, "dstTensor", "srcTensor")


NPU_FORMAT_CAST = OpDef(OP, (Param("srcTensor", IN), Param("dstTensor", OUT)), check, plan,
                        summary="Convert between a public format and a private layout (both "
                        "ways) in one kernel pass; size dstTensor with "
                        "aclnnNpuFormatCastCalculateSizeAndFormat.")


# ------------------------------------------------------------------- the Python helper

def _check_layout_cast(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> None:
    for t, name in ((ins[0], "tensor"), (outs[0], "out")):
        C.check_not_null(t, name)
        C.check_type(t, Tensor, name)
    private = outs[0] if attrs["to_layout"] else ins[0]
    C.check_private_offset(private, "tensor" if private is ins[0] else "out")


def _plan_layout_cast(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> Plan:
    spec, to_layout = attrs["spec"], attrs["to_layout"]
    if to_layout:
        return layout_plan(ctx, spec, ins[0], outs[0], True, "tensor", "out")
    return layout_plan(ctx, spec, outs[0], ins[0], False, "out", "tensor")


# npu_emu.format_cast's step: every layout, any SoC, non-contiguous sources (no aclnn pair).
LAYOUT_CAST = OpDef("LayoutCast", (Param("tensor", IN), Param("out", OUT),
                                   Param("spec", ATTR, "LayoutSpec"), Param("to_layout", ATTR, "bool")),
                    _check_layout_cast, _plan_layout_cast)


def format_cast(tensor: Tensor, fmt: object, c0: int | None = None,
                origin: str | None = None) -> Tensor:
    """`tensor` converted to `fmt`, as a new device tensor (enqueued on the default stream).

    fmt: a `npu_emu.fractal.Layout`, an aclFormat or a name ("NZ", "Zz", "Zn", "DN",
    "NC1HWC0", "FRACTAL_Z", "ND", "NCHW", ...). To a private layout the result is a
    LayoutTensor (view shape = logical shape, storage shape = the layout's); back to ND or a
    public format it is a contiguous tensor. c0 overrides C0 (torch_npu's convention: 16 for
    every dtype in NC1HWC0/FRACTAL_Z, fp32 as 2-byte in FRACTAL_NZ); reading a private tensor
    takes C0 from its storage shape. origin names the axis order of a conv layout's view
    ("NCHW", "NHWC", "HWCN", "NCDHW", "NDHWC", "DHWCN") when the tensor's format does not.
    Works on every SoC and for non-contiguous sources; raises AclnnError on bad input."""
    from ..device import DeviceBuffer, ensure_started
    from ..tensor import make_tensor
    ensure_started()
    C.check_not_null(tensor, "tensor")
    C.check_type(tensor, Tensor, "tensor")
    target, named_c0 = parse_layout(fmt, "fmt")
    src_layout, src_origin = tensor_layout(tensor)
    target_origin = public_origin(fmt)
    if src_layout is not L.ND and target is not L.ND:     # private -> private: through ND
        return format_cast(format_cast(tensor, "ND", origin=origin), fmt, c0, origin)
    ctx = current_context()
    if src_layout is L.ND:                                # public -> layout (or a copy)
        org = origin or src_origin
        if target is not L.ND and target.is_matrix:
            org = None
        spec = layout_spec(target, tensor.view_shape, tensor.dtype,
                           c0=c0 if c0 is not None else named_c0, origin=org, soc=ctx.soc)
        buf = DeviceBuffer(spec.storage_numel * tensor.itemsize, ctx.backend)
        if target is L.ND:
            out_fmt = fmt if target_origin and len(target_origin) == tensor.dim else aclFormat.ACL_FORMAT_ND
            out = make_tensor(list(spec.view_shape), tensor.dtype, None, 0, as_format(out_fmt, "fmt"),
                              list(spec.view_shape), buf.ptr, owner=buf)
        else:
            out = make_layout_tensor(spec, tensor.dtype, buf.ptr, owner=buf)
        if tensor.numel:
            run(LAYOUT_CAST, (tensor,), (out,), {"spec": spec, "to_layout": True}, ctx)
        return out
    # layout -> public
    org = origin or src_origin or target_origin
    if src_origin and target_origin and src_origin != target_origin and not origin:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"the tensor's view is in {src_origin} order; converting it to "
                         f"{target_origin} would permute it: ask for {src_origin} or ND")
    spec = tensor_spec(tensor, origin=org, soc=ctx.soc)
    if c0 is not None and c0 != spec.c0:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"c0={c0}, but the tensor's storage shape {list(tensor.storage_shape)} "
                         f"holds C0 = {spec.c0}")
    buf = DeviceBuffer(max(math.prod(tensor.view_shape), 1) * tensor.itemsize, ctx.backend)
    out_fmt = aclFormat.ACL_FORMAT_ND
    if target_origin and len(target_origin) == tensor.dim:
        out_fmt = as_format(fmt, "fmt")
    out = make_tensor(list(tensor.view_shape), tensor.dtype, None, 0, out_fmt,
                      list(tensor.view_shape), buf.ptr, owner=buf)
    if out.numel:
        run(LAYOUT_CAST, (tensor,), (out,), {"spec": spec, "to_layout": False}, ctx)
    return out
