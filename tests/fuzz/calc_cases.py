"""aclnnNpuFormatCastCalculateSizeAndFormat cases (worker side): the destination's storage
shape and format against the reference layout's shape (tests/test_fractal.ref_to_layout),
and hostile dstFormat / additionalDtype / srcTensor values (docs/formats.md#private-layouts: 161001 for a null
source, 161002 for bad values, 361001 on a SoC without the operator)."""
from __future__ import annotations

from typing import Any

import numpy as np

import npu_emu
from npu_emu import aclnn

from test_fractal import ref_to_layout

from . import spec as S
from .harness import ESCAPED, Block, Ctx
from .values import decode, describe

NAME = "aclnnNpuFormatCastCalculateSizeAndFormat"


def private_storage(sp: dict) -> list[int]:
    """The storage shape of a private-layout tensor spec, from the reference layout."""
    return list(ref_to_layout(np.zeros(sp["shape"], np.uint8), sp["layout"], sp["c0"], sp.get("origin")).shape)


def expected(args: dict) -> tuple[list[int], int]:
    fc, t = args["fc"], args["tensors"]
    src = t["srcTensor"]
    if fc["to_private"]:
        return private_storage(t["dstTensor"]), fc["actual"]
    return list(src["shape"]), fc["actual"]


def source_descriptor(ctx: Ctx, args: dict) -> Any:
    """The source tensor (its memory is not read by this call)."""
    src = args["tensors"]["srcTensor"]
    storage = private_storage(src) if src.get("layout") else src["storage"]
    blk = Block(ctx, 0, 0, "calc source")
    h = ctx.call("aclCreateTensor", aclnn.aclCreateTensor, list(src["shape"]), src["dtype"], None, 0,
                 src["format"], list(storage), blk.ptr, result="object")
    if h is ESCAPED or h is None:
        ctx.defect("wrong_code", "aclCreateTensor", f"{ctx.mut_kind}: refused a valid source descriptor",
                   ctx.recent_message("aclnn"))
        return None
    ctx.destroy_later("aclDestroyTensor", aclnn.aclDestroyTensor, h)
    return h


def check(ctx: Ctx, out: Any, want: tuple[list[int], int]) -> None:
    if not isinstance(out, tuple) or len(out) != 3 or out[2] != 0:
        return
    ctx.values_compared = True
    got = (list(out[0]) if out[0] is not None else None, out[1])
    if got != (want[0], want[1]):
        ctx.defect("wrong_result", NAME, f"{ctx.mut_kind}: storage shape/format differ from the reference layout",
                   f"got {got}, want {want}")


def calc_case(ctx: Ctx) -> None:
    a, m = ctx.case["args"], ctx.case.get("mut") or {}
    npu_emu.set_soc(ctx.case["soc"])
    fc = a["fc"]
    src = source_descriptor(ctx, a)
    if src is None:
        return
    dst_format: Any = fc["dst_format"]
    additional: Any = fc["additional"]
    allowed, why, values_checked = {0}, "a valid call", True
    kind = m.get("kind")
    if kind in ("dst_format", "additional"):
        value = decode(m["value"])
        if kind == "dst_format":
            dst_format = value
        else:
            additional = value
        cls = m["class"]
        allowed = {"equiv": {0}, "hostile": {S.INVALID}, "any": {0, S.INVALID}}[cls]
        values_checked = cls != "hostile"
        why = f"{kind}={describe(m['value'])}"
    elif kind == "src":
        src = decode(m["value"], lambda name: aclnn.aclCreateIntArray([1]))
        allowed = {S.NULLPTR} if m["value"] is None else {S.INVALID}
        why = f"srcTensor={describe(m['value'])}"
    elif kind == "destroyed_src":
        ctx.expect("aclDestroyTensor", ctx.call("aclDestroyTensor", aclnn.aclDestroyTensor, src), {0}, "destroy")
        ctx.forget(src)
        allowed, why = {S.INVALID}, "a destroyed srcTensor"
    elif kind == "other_soc":
        npu_emu.set_soc(m["soc"])
        allowed, why = {S.RUNTIME}, f"on {m['soc']} (no aclnnNpuFormatCast there)"
    args = [src, dst_format, additional]
    if kind == "arg_count":
        args = args[:-1] if m["delta"] < 0 else args + [None]
        allowed, why = {S.INVALID}, f"{len(args)} arguments"
    out = ctx.call(NAME, getattr(aclnn, NAME), *args, result="values2")
    if out is ESCAPED:
        return
    if ctx.expect(NAME, ctx.last_code, allowed, why) and values_checked:
        check(ctx, out, expected(a))
