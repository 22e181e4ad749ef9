"""Operator cases (worker side): build the tensors of a valid call in guarded blocks, apply
the case's mutation, run both phases, and check codes, bytes and values.

Expected codes follow docs/two-phase.md#the-two-phase-interface and the lead's decisions for issue 9: null handles 161001;
wrong types, wrong argument counts, destroyed handles, aliasing outputs (a stride 0 on a dim
> 1), sizes past int64, memory that is not (or no longer) a live allocation, private formats
with an offset: 161002; a second run of a non-repeatable executor 561102.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

import npu_emu
import npu_emu.acl as acl
from npu_emu import aclnn
from npu_emu.fractal import layout_spec, make_layout_tensor

from helpers import contiguous, convertible_values, host_view, reference_convert
from test_fractal import ref_to_layout

from . import calc_cases, spec as S
from .harness import (ESCAPED, Block, Ctx, contiguous_strides, decode, dt, encode, nan_mask,
                      raw_values, small_values, storage_dtype, touched_indices, view_indices)
from .values import decode as decode_value, describe

USER_ERRORS = {S.NULLPTR, S.INVALID}
HUGE, OVERFLOW = 2**20, 2**32
K_OVERFLOW = 2**62
MAX_WORKSPACE = 1 << 28
FREED_SIZE = (3 << 20) + 4096         # freed blocks: a size class no other block of a case uses
BIG_TAIL = 40 << 20      # past glibc's largest mmap threshold: a freed block is unmapped


@dataclass
class TS:
    """One tensor of a case."""
    name: str
    spec: dict
    out: bool
    dtype: int = 0
    item: int = 1
    private: bool = False
    block: Block | None = None
    data: Any = 0
    data_off: int = 0
    handle: Any = None
    numel_storage: int = 0
    logical: np.ndarray | None = None    # stored elements of the view (inputs), C order
    idx: np.ndarray | None = None        # flat storage indices of the view (ND)
    refused: bool = False                # aclCreateTensor returned None (a mutation's doing)
    destroyed: bool = False

    @property
    def shape(self) -> list[int]:
        return self.spec["shape"]

    @property
    def empty(self) -> bool:
        return math.prod(self.shape) == 0


class OpCase:
    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.case = ctx.case
        self.op = self.case["entry"][len("aclnn"):]
        self.args = self.case["args"]
        self.mut = dict(self.case.get("mut") or {})
        self.kind = self.mut.get("kind") or "valid"
        self.values_checked = True
        self.e1: set[int] = {0}
        self.e2: set[int] = {0}
        self.create_may_refuse: set[str] = set()
        self.tensors: dict[str, TS] = {}
        self.other: dict[str, Any] = {}      # size, alpha, dtype, math
        self.extra_refs: list = []           # objects kept alive for the case

    # ------------------------------------------------------------------ expectations
    def plan_expectations(self) -> None:
        k, m = self.kind, self.mut
        kinds = dict(S.OPS[self.op])
        if k == "valid":
            return
        self.values_checked = False
        if k == "null":
            self.e1 = {S.NULLPTR} if kinds[m["arg"]] in ("tensor", "out", "scalar", "intarray") else USER_ERRORS
        elif k == "wrong_type":
            slot = kinds[m["arg"]]
            rep = m["value"].get("v") if isinstance(m["value"], dict) else None
            same = (slot == "scalar" and rep == "scalar") or (slot == "intarray" and rep == "intarray")
            if slot in ("dtype", "int"):
                self.e1 = {0} | USER_ERRORS          # an int there may well be a valid value
            else:
                self.e1 = ({0} | USER_ERRORS) if same else USER_ERRORS
        elif k in ("arg_count", "destroyed", "alias_out", "alias_out_huge", "numel_overflow",
                   "k_overflow"):
            self.e1 = {S.INVALID}
        elif k == "private_offset":
            self.e1 = {S.INVALID}
            self.create_may_refuse.add(m["arg"])   # the offset may push the view past its storage
        elif k == "short_alloc":
            self.e1 = {S.INVALID}
        elif k in ("foreign_ptr", "neg_ptr"):
            self.e1 = USER_ERRORS
            self.create_may_refuse.add(m["arg"])
        elif k == "null_data":
            self.e1 = USER_ERRORS
        elif k == "misaligned":
            self.e1 = {0, S.INVALID}
            self.values_checked = True           # if accepted, the values must be right
        elif k == "int_param":
            cls = m["class"]
            self.values_checked = cls != "hostile"
            if cls == "hostile":
                self.e1 = USER_ERRORS
            elif cls == "any":
                self.e1 = {0} | USER_ERRORS
            if m["param"] == "size":
                self.create_may_refuse.add("size")
        elif k == "alpha_value":
            self.e1 = {0} | USER_ERRORS
            self.create_may_refuse.add("alpha")
        elif k in ("free", "destroy_executor", "stream", "p2_arg_count"):
            self.e2 = {S.INVALID}
        elif k == "executor":
            self.e2 = {S.NULLPTR} if m["value"] is None else {S.INVALID}
        elif k == "run_twice":
            self.values_checked = True
        # ws / ws_size expectations depend on the workspace size: set in phase_two

    # ------------------------------------------------------------------ shapes
    def apply_shape_mutations(self) -> None:
        k, t = self.kind, self.args["tensors"]
        out = S.out_arg(self.op)
        if k == "alias_out":
            o = t[out]
            dims = [i for i, n in enumerate(o["shape"]) if n > 1]
            if o.get("layout") or not dims or any(n == 0 for n in o["shape"]):
                self.mark_not_applicable()
                return
            strides = list(o["strides"] if o["strides"] is not None else contiguous_strides(o["shape"]))
            strides[dims[-1]] = 0
            o["strides"] = strides
        elif k in ("alias_out_huge", "numel_overflow"):
            n = HUGE if k == "alias_out_huge" else OVERFLOW
            if self.op in ("NpuFormatCast", "CubeMatmul"):
                self.mark_not_applicable()
                return
            big = {"shape": [n, n], "strides": [0, 0], "offset": 0, "storage": [1], "format": S.ND, "guard": 64}
            one = {"shape": [1], "strides": None, "offset": 0, "storage": [1], "format": S.ND, "guard": 64}
            if self.op == "Matmul":
                specs = {"self": {**big, "shape": [n, 1]}, "mat2": {**big, "shape": [1, n]}, "out": big}
            elif self.op == "Expand":
                specs = {"self": one, "out": big}
                self.args["size"] = [n, n]
            else:
                specs = {name: (big if kind == "out" or name == "self" else one)
                         for name, kind in S.OPS[self.op] if kind in ("tensor", "out")}
            for name, sp in specs.items():
                t[name] = {**sp, "dtype": t[name]["dtype"]}
        elif k == "k_overflow":
            d = t["self"]["dtype"]
            t["self"] = {"dtype": d, "shape": [1, K_OVERFLOW], "strides": [0, 0], "offset": 0, "storage": [1],
                         "format": S.ND, "guard": 64}
            t["mat2"] = {"dtype": t["mat2"]["dtype"], "shape": [K_OVERFLOW, 1], "strides": [0, 0], "offset": 0,
                         "storage": [1], "format": S.ND, "guard": 64}
            t["out"] = {"dtype": t["out"]["dtype"], "shape": [1, 1], "strides": None, "offset": 0,
                        "storage": [1, 1], "format": S.ND, "guard": 64}
        elif k in ("short_alloc", "null_data", "free", "foreign_ptr"):
            # An empty operand's memory is never touched, and nothing at all runs when any
            # operand of these operators is empty: accepting is as right as refusing.
            ts = t[self.mut["arg"]]
            if k == "short_alloc" and math.prod(ts["shape"]) == 0:
                self.mark_not_applicable()
            elif any(math.prod(sp["shape"]) == 0 for sp in t.values()):
                if k == "free":
                    self.e2 = {0, S.INVALID}
                else:
                    self.e1 = self.e1 | {0}
        elif k == "misaligned":
            ts = t[self.mut["arg"]]
            if S.ITEMSIZE[ts["dtype"]] == 1:
                self.mark_not_applicable()

    def mark_not_applicable(self) -> None:
        """The mutation cannot apply to these shapes: the case runs as a valid one."""
        self.kind = self.ctx.mut_kind = "valid"
        self.mut = {}
        self.values_checked, self.e1, self.e2 = True, {0}, {0}

    # ------------------------------------------------------------------ values
    def input_values(self, ts: TS, n: int) -> np.ndarray:
        rng, d, op = self.ctx.rng, ts.dtype, self.op
        t = self.args["tensors"]
        if op in ("Expand", "NpuFormatCast"):
            return raw_values(rng, d, n)
        if op in ("InplaceCopy", "Cast"):
            dst = t["selfRef" if op == "InplaceCopy" else "out"]["dtype"]
            return encode(convertible_values(rng, dt(d), dt(dst), n), d)
        if op in ("Matmul", "CubeMatmul"):
            if d == S.S8:
                return rng.integers(-128, 128, n).astype(np.int8)
            return small_values(rng, d, n, False, False, -3, 3)
        nonneg = any(sp["dtype"] in S.UNSIGNED for sp in t.values())
        return small_values(rng, d, n, nonneg, self.args.get("values") == "special")

    # ------------------------------------------------------------------ tensors
    def materialize(self) -> None:
        for name, sp in self.args["tensors"].items():
            kind = dict(S.OPS[self.op])[name]
            self.tensors[name] = self.make_tensor(name, sp, kind == "out")

    def make_tensor(self, name: str, sp: dict, out: bool) -> TS:
        ctx, m = self.ctx, self.mut
        ts = TS(name, sp, out, dtype=sp["dtype"], item=S.ITEMSIZE[sp["dtype"]], private=bool(sp.get("layout")))
        target = m.get("arg") == name
        offset = sp.get("offset", 0)
        if ts.private:
            sp["storage"] = calc_cases.private_storage(sp)
            if target and self.kind == "private_offset":
                offset = m["offset"]
        ts.numel_storage = math.prod(sp["storage"])
        payload = ts.numel_storage * ts.item
        if target and self.kind == "private_offset":
            payload += offset * ts.item              # the memory is there; the offset is the error
        extra = 1 if target and self.kind == "misaligned" else 0
        alloc = payload
        if target and self.kind == "short_alloc":
            need = self.extent_bytes(ts, offset) if not ts.private else payload
            alloc = max(need - ts.item, 0)
        guard = sp.get("guard", 64)
        short = target and self.kind == "short_alloc"
        # short_alloc: nothing after the payload, so the view runs off the allocation's end;
        # free + empty_cache: a block big enough that its memory really goes back to the OS
        unmapped = target and self.kind == "free" and m.get("then") == "empty_cache"
        blk = Block(ctx, alloc, guard, name, extra=extra,
                    tail=0 if short else (BIG_TAIL if unmapped else None))
        ts.block = blk
        ts.data_off = guard + extra
        ts.data = blk.ptr + ts.data_off
        # contents
        if ts.private:
            logical_n = math.prod(sp["shape"])
            if not out and not short:
                logical = self.input_values(ts, logical_n).reshape(sp["shape"])
                ts.logical = logical
                stored = ref_to_layout(logical, sp["layout"], sp["c0"], sp.get("origin"))
                blk.write_payload(ts.data_off + offset * ts.item, stored.reshape(-1))
        elif (not out or name == "selfRef") and not short:
            if ts.numel_storage:
                blk.write_payload(ts.data_off, self.input_values(ts, ts.numel_storage))
            if math.prod(sp["shape"]) <= 1 << 16:
                strides = sp["strides"] if sp["strides"] is not None else contiguous_strides(sp["shape"])
                st_vals = blk.image[ts.data_off:ts.data_off + ts.numel_storage * ts.item].view(storage_dtype(ts.dtype))
                ts.logical = contiguous(host_view(st_vals, sp["shape"], strides, offset))
        blk.upload()
        # the pointer the descriptor gets
        data: Any = ts.data
        if target:
            data = self.mutated_pointer(ts, data)
        ts.data = data
        ts.handle = self.create(ts, sp, offset, data)
        return ts

    def extent_bytes(self, ts: TS, offset: int) -> int:
        sp = ts.spec
        strides = sp["strides"] if sp["strides"] is not None else contiguous_strides(sp["shape"])
        if math.prod(sp["shape"]) == 0:
            return 0
        return (offset + sum((n - 1) * s for n, s in zip(sp["shape"], strides)) + 1) * ts.item

    def mutated_pointer(self, ts: TS, data: int) -> Any:
        k = self.kind
        if k == "null_data":
            return None
        if k == "neg_ptr":
            return -4096
        if k == "misaligned":
            return data                              # data_off already includes the 1 byte
        if k == "foreign_ptr":
            where = self.mut["where"]
            if where == "host_array":
                arr = self.ctx.rng.integers(0, 256, ts.numel_storage * ts.item + 256, dtype=np.uint8)
                self.ctx.host_buffers.append((arr, arr.copy(), f"{ts.name}'s host array"))
                return arr.ctypes.data
            if where == "unmapped":
                return 0x10000
            if where == "huge":
                return 2**63 - 4096
            # a size no other block of the case has, so the pool cannot hand it out again
            blk = Block(self.ctx, FREED_SIZE, 0, "freed block")
            blk.free()
            return blk.ptr
        return data

    def create(self, ts: TS, sp: dict, offset: int, data: Any) -> Any:
        ctx = self.ctx
        if sp.get("layout") in ("Zz", "Zn"):
            # Zz / Zn have no aclFormat: the cube's operands are built as npu_emu builds them
            spec = layout_spec(sp["layout"], sp["shape"], dt(sp["dtype"]), c0=sp["c0"])
            return make_layout_tensor(spec, dt(sp["dtype"]), int(data or 0), storage_offset=offset)
        strides = None if ts.private else sp["strides"]
        h = ctx.call("aclCreateTensor", aclnn.aclCreateTensor, list(sp["shape"]), sp["dtype"], strides,
                     offset, sp["format"], list(sp["storage"]), data, result="object")
        if h is ESCAPED:
            h = None
        if h is None:
            ts.refused = True
            if ts.name not in self.create_may_refuse:
                ctx.defect("wrong_code", "aclCreateTensor", f"{self.kind}: refused the descriptor of "
                           f"{ts.name}", ctx.recent_message("aclnn"))
        else:
            ctx.destroy_later("aclDestroyTensor", aclnn.aclDestroyTensor, h)
        return h

    # ------------------------------------------------------------------ other args
    def make_others(self) -> None:
        ctx, a = self.ctx, self.args
        if "size" in a:
            values = list(a["size"])
            if self.kind == "int_param" and self.mut["param"] == "size":
                values[0] = decode_value(self.mut["value"], self.resolve)
            arr = ctx.call("aclCreateIntArray", aclnn.aclCreateIntArray, values, result="object")
            arr = None if arr is ESCAPED else arr
            if arr is None and "size" not in self.create_may_refuse:
                ctx.defect("wrong_code", "aclCreateIntArray", f"{self.kind}: refused {values}")
            if arr is not None:
                ctx.destroy_later("aclDestroyIntArray", aclnn.aclDestroyIntArray, arr)
            self.other["size"] = arr
        if "alpha" in a:
            value = decode_value(a["alpha"]["value"])
            if self.kind == "alpha_value":
                value = decode_value(self.mut["value"])
            s = ctx.call("aclCreateScalar", aclnn.aclCreateScalar, value, a["alpha"]["dtype"], result="object")
            s = None if s is ESCAPED else s
            if s is None and "alpha" not in self.create_may_refuse:
                ctx.defect("wrong_code", "aclCreateScalar", f"{self.kind}: refused alpha {value!r}")
            if s is not None:
                ctx.destroy_later("aclDestroyScalar", aclnn.aclDestroyScalar, s)
            self.other["alpha"] = s
        if "dtype" in a:
            self.other["dtype"] = a["dtype"]
        if "math" in a:
            self.other["cubeMathType"] = a["math"]
        if self.kind == "int_param" and self.mut["param"] in ("dtype", "math"):
            key = "dtype" if self.mut["param"] == "dtype" else "cubeMathType"
            self.other[key] = decode_value(self.mut["value"], self.resolve)

    def resolve(self, name: str) -> Any:
        """The objects a tagged value may name."""
        ctx = self.ctx
        if name == "intarray":
            arr = aclnn.aclCreateIntArray([1])
            self.extra_refs.append(arr)
            return arr
        if name == "scalar":
            s = aclnn.aclCreateScalar(1.0, S.F32)
            self.extra_refs.append(s)
            return s
        if name == "stream":
            return ctx.new_stream()
        if name == "destroyed_stream":
            s, _ = acl.rt.create_stream()
            acl.rt.destroy_stream(s)
            return s
        if name == "event":
            ev, _ = acl.rt.create_event()
            self.extra_refs.append(ev)
            return ev
        if name in ("executor", "destroyed_executor"):
            blk = Block(ctx, 4, 64, "spare")
            blk.upload()
            t = aclnn.aclCreateTensor([1], S.F32, None, 0, S.ND, [1], blk.data)
            _, ex, _ = aclnn.aclnnMulGetWorkspaceSize(t, t, t)
            if name == "destroyed_executor":
                aclnn.aclDestroyAclOpExecutor(ex)
            self.extra_refs += [t, ex]
            return ex
        if name == "tensor":
            blk = Block(ctx, 4, 64, "spare")
            blk.upload()
            t = aclnn.aclCreateTensor([1], S.F32, None, 0, S.ND, [1], blk.data)
            self.extra_refs.append(t)
            return t
        if name == "foreign":
            return 0x10000
        if name == "freed":
            blk = Block(ctx, max(self.ws_need, FREED_SIZE), 0, "freed block")
            blk.free()
            return blk.ptr
        if name == "short":
            blk = Block(ctx, max(self.ws_need // 2, 1), 0, "short workspace")
            blk.free_to_change[:] = True
            blk.upload()
            return blk.ptr
        raise KeyError(name)

    # ------------------------------------------------------------------ phase one
    def phase_one_args(self) -> list:
        out = []
        for name, kind in S.OPS[self.op]:
            if kind in ("tensor", "out"):
                out.append(self.tensors[name].handle)
            else:
                out.append(self.other.get(name))
        return out

    def pre_phase_one(self, args: list) -> list:
        k, m = self.kind, self.mut
        names = [n for n, _ in S.OPS[self.op]]
        if k == "null":
            args[names.index(m["arg"])] = None
        elif k == "wrong_type":
            args[names.index(m["arg"])] = decode_value(m["value"], self.resolve)
        elif k == "arg_count":
            args = args[:m["delta"]] if m["delta"] < 0 else args + [None] * m["delta"]
        elif k == "destroyed":
            handle = args[names.index(m["arg"])]
            fn = {"tensor": aclnn.aclDestroyTensor, "out": aclnn.aclDestroyTensor,
                  "scalar": aclnn.aclDestroyScalar, "intarray": aclnn.aclDestroyIntArray}[dict(S.OPS[self.op])[m["arg"]]]
            if handle is None:
                self.e1 = {S.NULLPTR} | self.e1
            else:
                code = self.ctx.call(fn.__name__, fn, handle)
                self.ctx.expect(fn.__name__, code, {0}, "destroying a live handle")
                self.ctx.forget(handle)
        return args

    def phase_one(self, args: list) -> tuple[int, Any, int | None]:
        name = f"aclnn{self.op}GetWorkspaceSize"
        out = self.ctx.call(name, getattr(aclnn, name), *args, result="triple")
        if out is ESCAPED:
            return 0, None, None
        if isinstance(out, tuple) and len(out) == 3:
            return out[0], out[1], self.ctx.last_code
        return 0, None, self.ctx.last_code

    # ------------------------------------------------------------------ run
    def run(self) -> None:
        ctx = self.ctx
        npu_emu.set_soc(self.case["soc"])
        self.ws_need = 0
        self.plan_expectations()
        self.apply_shape_mutations()
        if self.op == "NpuFormatCast":
            self.calculate_size()
        self.materialize()
        self.make_others()
        if any(t.refused for t in self.tensors.values()) or (
                self.create_may_refuse & {k for k, v in self.other.items() if v is None}):
            self.e1 = self.e1 | {S.NULLPTR}        # a refused descriptor reaches the op as null
        args = self.pre_phase_one(self.phase_one_args())
        ws, ex, code = self.phase_one(args)
        p1_name = f"aclnn{self.op}GetWorkspaceSize"
        as_expected = ctx.expect(p1_name, code, self.e1, self.describe_mut())
        ran = False
        if code == 0 and ex is not None:
            if isinstance(ws, bool) or not isinstance(ws, int) or ws < 0:
                ctx.defect("bad_return", p1_name, f"{self.kind}: workspace size {ws!r}")
                ws = 0
            if ws > MAX_WORKSPACE:                 # only a call accepted by mistake asks for that
                if as_expected:
                    ctx.defect("bad_return", p1_name, f"{self.kind}: workspace of {ws} bytes for a small call")
                ctx.synchronize()
                ctx.check_blocks()
                return
            self.ws_need = ws
            if not as_expected:
                self.values_checked = False      # accepted by mistake: only memory is checked
            ran = self.phase_two(ws, ex)
        ctx.synchronize()
        self.set_expected_images(ran)
        ctx.check_blocks()

    def stream_arg(self) -> Any:
        how = self.args.get("stream", "none")
        self.own_stream = None if how != "new" else self.ctx.new_stream()
        return None if how == "none" else 0 if how == "zero" else self.own_stream

    def workspace(self, ws: int) -> Any:
        if ws <= 0:
            return None
        blk = Block(self.ctx, ws, 64, "workspace")
        blk.free_to_change[blk.guard:blk.guard + ws] = True
        blk.upload()
        return blk.data

    def phase_two(self, ws: int, ex: Any) -> bool:
        """Returns True when the executor ran (so outputs hold results)."""
        ctx, k, m = self.ctx, self.kind, self.mut
        name = f"aclnn{self.op}"
        fn = getattr(aclnn, name)
        stream = self.stream_arg()
        wsp = self.workspace(ws)
        size: Any = ws
        if k == "free":
            self.free_between_phases()
        elif k == "destroy_executor":
            code = ctx.call("aclDestroyAclOpExecutor", aclnn.aclDestroyAclOpExecutor, ex)
            ctx.expect("aclDestroyAclOpExecutor", code, {0, S.INVALID}, "destroying an executor before its run")
        elif k == "ws":
            wsp, self.e2 = self.hostile_workspace(ws, m["value"])
            self.values_checked = self.e2 == {0}
        elif k == "ws_size":
            size, self.e2, wsp = self.hostile_workspace_size(ws, m["value"], wsp)
            self.values_checked = self.e2 == {0}     # a larger size or a NumPy int: a valid call
        elif k == "stream":
            stream = decode_value(m["value"], self.resolve)
        elif k == "executor":
            ex = decode_value(m["value"], self.resolve)
        elif k == "run_twice" and m["repeatable"]:
            code = ctx.call("aclSetAclOpExecutorRepeatable", aclnn.aclSetAclOpExecutorRepeatable, ex)
            ctx.expect("aclSetAclOpExecutorRepeatable", code, {0}, "a fresh executor")
            ctx.destroy_later("aclDestroyAclOpExecutor", aclnn.aclDestroyAclOpExecutor, ex)
        call_args = [wsp, size, ex, stream]
        if k == "p2_arg_count":
            call_args = call_args[:m["delta"]] if m["delta"] < 0 else call_args + [None] * m["delta"]
        code = ctx.call(name, fn, *call_args)
        if code is ESCAPED:
            return True
        ctx.expect(name, code, self.e2, self.describe_mut())
        runs = 1 if code == 0 else 0
        if k == "run_twice":
            ctx.synchronize()
            code2 = ctx.call(name, fn, wsp, size, ex, stream)
            want = {0} if m["repeatable"] else {S.NOT_TRANS_EXECUTOR}
            ctx.expect(name, code2, want, "a second run of a " + ("repeatable" if m["repeatable"] else "non-repeatable") + " executor")
            runs += 1 if code2 == 0 else 0
        if self.own_stream is not None and k != "stream":
            c = ctx.call("acl.rt.synchronize_stream", acl.rt.synchronize_stream, stream, family="acl")
            ctx.expect("acl.rt.synchronize_stream", c, {0}, "a live stream")
        self.runs = runs
        return runs > 0

    def free_between_phases(self) -> None:
        ctx, m = self.ctx, self.mut
        ts = self.tensors[m["arg"]]
        if ts.block is None:
            return
        nbytes = ts.block.total
        ts.block.free()
        then = m["then"]
        if then in ("victim", "realloc"):
            victim = Block(ctx, nbytes, 0, "victim block (another user's allocation)")
            if then == "realloc":
                victim.image[:] = ts.block.image
            victim.upload()
        elif then == "empty_cache":
            npu_emu.empty_cache()

    def hostile_workspace(self, need: int, tag: Any) -> tuple[Any, set[int]]:
        value = decode_value(tag, self.resolve)
        if tag is None:
            return None, ({S.NULLPTR} if need > 0 else {0})
        if isinstance(tag, dict) and tag.get("v") in ("foreign", "freed", "short"):
            return value, ({S.INVALID} if need > 0 else {0, S.INVALID})
        return value, {S.INVALID}

    def hostile_workspace_size(self, need: int, tag: Any, wsp: Any) -> tuple[Any, set[int], Any]:
        name = tag.get("v") if isinstance(tag, dict) and tag.get("$") == "obj" else None
        if name == "smaller":
            return need - 1, {S.INVALID}, wsp
        if name == "larger":
            blk = Block(self.ctx, need + 512, 64, "workspace")
            blk.free_to_change[blk.guard:blk.guard + need + 512] = True
            blk.upload()
            return need + 512, {0}, blk.data
        if name == "np":
            return np.int64(need), {0}, wsp
        return decode_value(tag), {S.INVALID}, wsp

    # ------------------------------------------------------------------ oracles
    def describe_mut(self) -> str:
        if self.kind == "valid":
            return "valid call"
        m = {k: (describe(v) if k == "value" else v) for k, v in self.mut.items() if k != "kind"}
        return self.kind + ("(" + ", ".join(f"{k}={v}" for k, v in m.items()) + ")" if m else "")

    def set_expected_images(self, ran: bool) -> None:
        """Destination blocks: view bytes get the reference values (when the call was valid and
        ran) or stay as they were; inputs and everything outside the views stay as they were."""
        out = self.tensors[S.out_arg(self.op)]
        blk = out.block
        if blk is None or blk.freed:
            return
        mask_elems = self.out_elements(out)
        if mask_elems is None:                   # cannot enumerate: the whole storage may change
            blk.view_mask[out.data_off:out.data_off + out.numel_storage * out.item] = True
            if ran:
                blk.free_to_change |= blk.view_mask
            return
        byte_idx = (out.data_off + mask_elems[:, None] * out.item + np.arange(out.item)).reshape(-1)
        byte_idx = byte_idx[(byte_idx >= 0) & (byte_idx < blk.total)]
        blk.view_mask[byte_idx] = True
        if not ran:
            return
        want = self.reference() if (self.values_checked and self.kind != "alpha_value") else None
        if want is None:
            blk.free_to_change |= blk.view_mask
            return
        expect = blk.image.copy()
        st = storage_dtype(out.dtype)
        region = expect[out.data_off:out.data_off + out.numel_storage * out.item].view(st)
        if out.private:
            region[:] = want.reshape(-1)
        else:
            region[out.idx] = want.reshape(-1)
        blk.expect = expect
        self.ctx.values_compared = True
        # NaN payloads may differ: a NaN where a NaN is expected is right
        got_region = None
        nan_elems = nan_mask(want.reshape(-1), out.dtype)
        if nan_elems.any():
            got_region = blk.read()[out.data_off:out.data_off + out.numel_storage * out.item].view(st)
            pos = out.idx[nan_elems] if not out.private else np.flatnonzero(nan_elems)
            ok = nan_mask(got_region[pos], out.dtype)
            for p in pos[ok]:
                lo = out.data_off + int(p) * out.item
                blk.free_to_change[lo:lo + out.item] = True

    def out_elements(self, out: TS) -> np.ndarray | None:
        sp = out.spec
        if out.private:
            return np.arange(out.numel_storage, dtype=np.int64)
        strides = sp["strides"] if sp["strides"] is not None else contiguous_strides(sp["shape"])
        offset = sp.get("offset", 0)
        if math.prod(sp["shape"]) <= 1 << 16:
            out.idx = view_indices(sp["shape"], strides, offset)
            return np.unique(out.idx)
        try:
            return touched_indices(sp["shape"], strides, offset)
        except OverflowError:
            return None

    # ------------------------------------------------------------------ references
    def reference(self) -> np.ndarray | None:
        """The stored elements the destination view must hold (C order), from NumPy."""
        t, a = self.tensors, self.args
        op = self.op
        if any(ts.logical is None and (not ts.out or ts.name == "selfRef") for ts in t.values()):
            return None
        out = t[S.out_arg(op)]
        runs = getattr(self, "runs", 1)
        if op == "Expand":
            return np.broadcast_to(t["self"].logical, out.shape).copy()
        if op in ("InplaceCopy", "Cast"):
            src = t["src" if op == "InplaceCopy" else "self"]
            host = np.asarray(_host_values(src.logical, src.dtype))
            host = np.broadcast_to(host, out.shape).copy()
            return np.asarray(reference_convert(host, dt(src.dtype), dt(out.dtype))).view(storage_dtype(out.dtype)).reshape(out.shape)
        if op in ("Add", "Mul", "InplaceAdd", "InplaceMul"):
            return self.binary_reference(runs)
        if op == "NpuFormatCast":
            src = t["srcTensor"]
            if a["fc"]["to_private"]:
                sp = out.spec
                return ref_to_layout(src.logical, sp["layout"], sp["c0"], sp.get("origin"))
            return src.logical
        if op in ("Matmul", "CubeMatmul"):
            x, y = decode(t["self"].logical, t["self"].dtype), decode(t["mat2"].logical, t["mat2"].dtype)
            r = np.matmul(x.astype(np.float64), y.astype(np.float64)) if t["self"].dtype != S.S8 else \
                np.matmul(x.astype(np.int64), y.astype(np.int64))
            src_dt = S.S64 if t["self"].dtype == S.S8 else S.F64
            raw = np.asarray(reference_convert(np.asarray(r).reshape(np.shape(r)), dt(src_dt), dt(out.dtype)))
            raw = raw.view(storage_dtype(out.dtype)).reshape(np.shape(r))
            if op == "CubeMatmul":
                return ref_to_layout(raw, "FRACTAL_NZ", 16)
            return raw
        return None

    def binary_reference(self, runs: int) -> np.ndarray:
        t, op = self.tensors, self.op
        inplace = op.startswith("Inplace")
        first = t["selfRef" if inplace else "self"]
        other = t["other"]
        out = t[S.out_arg(op)]
        compute = S.promote(first.dtype, other.dtype)
        a = np.broadcast_to(decode(first.logical, first.dtype), out.shape)
        b = np.broadcast_to(decode(other.logical, other.dtype), out.shape)
        alpha = None
        one = False
        if op.endswith("Add"):
            alpha = decode_value(self.args["alpha"]["value"])
            # CANN's branch for alpha == 1 is a plain Add (so complex inf + 0j stays finite in
            # its imaginary part); on Ascend950 a complex alpha or type never takes it.
            one = alpha == 1 and not (self.case["soc"] == "Ascend950" and
                                      (isinstance(alpha, complex) or compute in S.COMPLEX))
        for _ in range(max(runs, 1)):
            r = _binary(op, a, b, None if one else alpha, compute)
            if inplace and runs > 1:
                a = decode(np.asarray(reference_convert(r, dt(_domain(compute)), dt(out.dtype))).view(
                    storage_dtype(out.dtype)).reshape(out.shape), out.dtype)
        raw = np.asarray(reference_convert(np.ascontiguousarray(r), dt(_domain(compute)), dt(out.dtype)))
        return raw.view(storage_dtype(out.dtype)).reshape(out.shape)

    # ------------------------------------------------------------------ format cast
    def calculate_size(self) -> None:
        """The destination's storage shape and format, checked against the reference layout
        (the destination is then built from the expectation, not from the answer)."""
        ctx = self.ctx
        h = calc_cases.source_descriptor(ctx, self.args)
        if h is None:
            return
        fc = self.args["fc"]
        out = ctx.call(calc_cases.NAME, getattr(aclnn, calc_cases.NAME), h, fc["dst_format"], fc["additional"],
                       result="values2")
        if out is not ESCAPED and ctx.expect(calc_cases.NAME, ctx.last_code, {0}, "a valid call"):
            calc_cases.check(ctx, out, calc_cases.expected(self.args))
            ctx.values_compared = False          # the operator's own values are what counts here


def _host_values(raw: np.ndarray, d: int) -> np.ndarray:
    """Stored elements -> the host values helpers.reference_convert takes."""
    from helpers import decode as _dec
    return np.asarray(_dec(np.asarray(raw), dt(d)))


def _domain(compute: int) -> int:
    if compute in S.COMPLEX:
        return S.C128
    if compute == S.BOOL:
        return S.BOOL
    if compute in S.INTS:
        return S.S64
    return S.F64


def _binary(op: str, a: np.ndarray, b: np.ndarray, alpha: Any, compute: int) -> np.ndarray:
    """Exact arithmetic on small integers (and IEEE specials), in the compute type's domain
    (alpha None: a plain add)."""
    if compute == S.BOOL:
        a, b = a.astype(bool), b.astype(bool)
        return (a | b) if op.endswith("Add") else (a & b)
    kind = {S.C128: np.complex128, S.S64: np.int64, S.F64: np.float64}[_domain(compute)]
    a, b = a.astype(kind), b.astype(kind)
    with np.errstate(all="ignore"):
        if op.endswith("Mul"):
            return a * b
        return a + b if alpha is None else a + kind(alpha) * b


def run(ctx: Ctx) -> None:
    OpCase(ctx).run()
