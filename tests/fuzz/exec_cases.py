"""Executor cases (worker side): aclSetAclOpExecutorRepeatable / phase two / aclDestroyAclOpExecutor
sequences, and aclSetInputTensorAddr / aclSetOutputTensorAddr rebinding (docs/two-phase.md#the-two-phase-interface).

Rules checked: a repeatable executor runs as often as asked and is freed by its destroy; a
second run of a non-repeatable one is 561102; a destroyed executor (run, destroy, repeatable
again) is 161002 (the lead's decision); rebinding needs a repeatable executor (161002); a
refused rebind changes nothing, so a later valid rebind and run still work.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from npu_emu import aclnn

from . import spec as S
from .harness import ESCAPED, Block, Ctx, encode, small_values
from .values import decode, describe

USER_ERRORS = {S.NULLPTR, S.INVALID}


class Bound:
    """A f32 (or f16) tensor in a guarded block, its values and its handle."""

    def __init__(self, ctx: Ctx, shape: list[int], dtype: int, label: str, values: bool,
                 dest: bool = False) -> None:
        self.shape, self.dtype, self.ctx = shape, dtype, ctx
        n = int(np.prod(shape))
        item = S.ITEMSIZE[dtype]
        self.block = Block(ctx, n * item, 64, label)
        self.values = small_values(ctx.rng, dtype, n, False, False) if values else None
        if values:
            self.block.write_payload(64, self.values)
        self.block.upload()
        if dest:
            self.block.view_mask[64:64 + n * item] = True
        self.handle = ctx.call("aclCreateTensor", aclnn.aclCreateTensor, list(shape), dtype, None, 0,
                               S.ND, list(shape), self.block.data, result="object")
        if self.handle not in (None, ESCAPED):
            ctx.destroy_later("aclDestroyTensor", aclnn.aclDestroyTensor, self.handle)

    def expect_values(self, raw: np.ndarray) -> None:
        exp = self.block.image.copy()
        exp[64:64 + raw.nbytes] = np.ascontiguousarray(raw).view(np.uint8)
        self.block.expect = exp
        self.ctx.values_compared = True


OPS = {  # op -> (input dtype, output dtype)
    "Add": (S.F32, S.F32), "Mul": (S.F32, S.F32), "InplaceCopy": (S.F32, S.F32), "Cast": (S.F32, S.F16),
}


def _plan(ctx: Ctx, op: str, ins: list[Bound], out: Bound) -> tuple[Any, int]:
    name = f"aclnn{op}GetWorkspaceSize"
    if op == "Add":
        alpha = ctx.call("aclCreateScalar", aclnn.aclCreateScalar, 1.0, S.F32, result="object")
        ctx.destroy_later("aclDestroyScalar", aclnn.aclDestroyScalar, alpha)
        args = [ins[0].handle, ins[1].handle, alpha, out.handle]
    elif op == "Mul":
        args = [ins[0].handle, ins[1].handle, out.handle]
    elif op == "InplaceCopy":
        args = [out.handle, ins[0].handle]
    else:
        args = [ins[0].handle, out.dtype, out.handle]
    res = ctx.call(name, getattr(aclnn, name), *args, result="triple")
    if res is ESCAPED or not isinstance(res, tuple) or ctx.last_code != 0:
        ctx.defect("wrong_code", name, "a valid call refused", ctx.recent_message("aclnn"))
        return None, 0
    return res[1], res[0]


def _result(op: str, ins: list[Bound], out_dtype: int) -> np.ndarray:
    vals = [b.values.astype(np.float64) for b in ins]
    r = vals[0] + vals[1] if op == "Add" else vals[0] * vals[1] if op == "Mul" else vals[0]
    return encode(r.astype(np.float32).astype(np.float16 if out_dtype == S.F16 else np.float32), out_dtype)


def _workspace(ctx: Ctx, ws: int) -> Any:
    if not ws:
        return None
    blk = Block(ctx, ws, 64, "workspace")
    blk.free_to_change[64:64 + ws] = True
    blk.upload()
    return blk.data


def _n_inputs(op: str) -> int:
    return 2 if op in ("Add", "Mul") else 1


def executor_case(ctx: Ctx) -> None:
    a = ctx.case["args"]
    shape = a["shape"]
    ins = [Bound(ctx, shape, S.F32, f"input {i}", True) for i in range(2)]
    out = Bound(ctx, shape, S.F32, "out", False, dest=True)
    ex, ws = _plan(ctx, "Add", ins, out)
    if ex is None:
        return
    wsp = _workspace(ctx, ws)
    handle = {"real": ex, "none": None, "str": "abc", "int": 7}[a["handle"]]
    repeatable = destroyed = consumed = False
    runs = 0
    for action in a["actions"]:
        state = ("destroyed" if destroyed else "consumed (ran, not repeatable)" if consumed
                 else "repeatable" if repeatable else "fresh")
        ctx.mut_kind = f"{action} on a {state if handle is ex else a['handle']} executor"
        if handle is not ex:
            want = {S.NULLPTR} if handle is None else {S.INVALID}
        elif action == "repeatable":
            want = {S.INVALID} if destroyed else {S.INVALID, S.NOT_TRANS_EXECUTOR} if consumed else {0}
        elif action == "run":
            want = {S.INVALID} if destroyed else {S.NOT_TRANS_EXECUTOR} if consumed else {0}
        else:
            want = {S.INVALID} if destroyed else {0, S.INVALID, S.NOT_TRANS_EXECUTOR} if consumed else {0}
        if action == "repeatable":
            name, code = "aclSetAclOpExecutorRepeatable", ctx.call("aclSetAclOpExecutorRepeatable",
                                                                   aclnn.aclSetAclOpExecutorRepeatable, handle)
        elif action == "run":
            name, code = "aclnnAdd", ctx.call("aclnnAdd", aclnn.aclnnAdd, wsp, ws, handle, None)
        else:
            name, code = "aclDestroyAclOpExecutor", ctx.call("aclDestroyAclOpExecutor",
                                                             aclnn.aclDestroyAclOpExecutor, handle)
        if code is ESCAPED:
            continue
        ctx.expect(name, code, want, ctx.mut_kind)
        if handle is ex and code == 0:
            if action == "repeatable":
                repeatable = True
            elif action == "run":
                runs += 1
                consumed = not repeatable
            else:
                destroyed = True
    if handle is ex and repeatable and not destroyed:
        ctx.destroy_later("aclDestroyAclOpExecutor", aclnn.aclDestroyAclOpExecutor, ex)
    ctx.synchronize()
    if runs:
        out.expect_values(_result("Add", ins, S.F32))
    ctx.check_blocks()


def rebind_case(ctx: Ctx) -> None:
    a = ctx.case["args"]
    op, shape = a["op"], a["shape"]
    in_dt, out_dt = OPS[op]
    ins = [Bound(ctx, shape, in_dt, f"input {i}", True) for i in range(_n_inputs(op))]
    out = Bound(ctx, shape, out_dt, "out", op == "InplaceCopy", dest=True)
    ex, ws = _plan(ctx, op, ins, out)
    if ex is None:
        return
    wsp = _workspace(ctx, ws)
    run = getattr(aclnn, f"aclnn{op}")
    if a["repeatable"]:
        ctx.expect("aclSetAclOpExecutorRepeatable",
                   ctx.call("aclSetAclOpExecutorRepeatable", aclnn.aclSetAclOpExecutorRepeatable, ex),
                   {0}, "a fresh executor")
        ctx.destroy_later("aclDestroyAclOpExecutor", aclnn.aclDestroyAclOpExecutor, ex)
    code = ctx.call(f"aclnn{op}", run, wsp, ws, ex, None)
    ctx.expect(f"aclnn{op}", code, {0}, "the first run")
    ctx.synchronize()
    out.expect_values(_result(op, ins, out_dt))
    bound_in, bound_out = list(ins), out

    def objects(name: str) -> Any:
        if name == "freed":
            blk = Block(ctx, (3 << 20) + 4096, 0, "freed block")   # never handed out again here
            blk.free()
            return blk.ptr
        if name == "short":                     # one byte short of the tensor
            blk = Block(ctx, int(np.prod(shape)) * S.ITEMSIZE[out_dt] - 1, 0, "short block")
            blk.free_to_change[:] = True
            blk.upload()
            return blk.data
        raise KeyError(name)

    for i, step in enumerate(a["steps"]):
        which, kind = step["which"], step["kind"]
        fn_name = "aclSetInputTensorAddr" if which == "input" else "aclSetOutputTensorAddr"
        n = len(ins) if which == "input" else 1
        index: Any = (i % n)
        target = bound_in[index] if which == "input" else bound_out
        new = Bound(ctx, shape, target.dtype, f"rebound {which} {index}", which == "input" or op == "InplaceCopy",
                    dest=which == "output")
        addr: Any = new.block.data
        if kind == "index_equiv":
            index = np.int64(index)
        elif kind == "index":
            index = decode(step["value"])
        elif kind == "addr":
            addr = decode(step["value"], objects)
        good = kind in ("valid", "index_equiv")
        ctx.mut_kind = f"{kind} rebind" + ("" if a["repeatable"] else " (not repeatable)")
        want = ({0} if a["repeatable"] else {S.INVALID}) if good else USER_ERRORS
        code = ctx.call(fn_name, getattr(aclnn, fn_name), ex, index, target.handle, addr)
        if code is ESCAPED:
            continue
        ctx.expect(fn_name, code, want, f"{kind} rebind ({describe(step.get('value', 'ok'))}) of {which} "
                   f"{int(index) if good else '?'}" + ("" if a["repeatable"] else " on a non-repeatable executor"))
        if code == 0 and good:
            if which == "input":
                bound_in[int(index)] = new
            else:
                bound_out = new
    ctx.mut_kind = "run after the rebinds"
    code = ctx.call(f"aclnn{op}", run, wsp, ws, ex, None)
    ctx.expect(f"aclnn{op}", code, {0} if a["repeatable"] else {S.NOT_TRANS_EXECUTOR},
               "the run after rebinding" if a["repeatable"] else "a second run of a non-repeatable executor")
    ctx.synchronize()
    if code == 0:
        bound_out.expect_values(_result(op, bound_in, out_dt))
    ctx.check_blocks()

