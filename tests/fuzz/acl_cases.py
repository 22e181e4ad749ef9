"""acl runtime cases (worker side): init/finalize, set/reset device, malloc/free, memcpy,
memcpy_async, memset, streams, events.

Expected codes (docs/two-phase.md#the-two-phase-interface, issue 9, the lead's decisions): success 0; any bad parameter,
destroyed handle or wrong argument count 100000; calls before acl.init or after
acl.finalize 100001; an allocation that cannot be satisfied 200000 (or 100000 for a size
past int64); never an aclnn code, never 500000 for a user error. Host int pointers are
trusted only with an explicit memcpy kind; with ACL_MEMCPY_DEFAULT an int must be a live
device pointer.
"""
from __future__ import annotations

from typing import Any

import numpy as np

import npu_emu
import npu_emu.acl as acl
from npu_emu import aclnn

from . import spec as S
from .harness import ESCAPED, Block, Ctx
from .values import decode, describe

INVALID = {S.ACL_INVALID_PARAM}
UNINIT = {S.ACL_UNINITIALIZE}
BAD_DEVICE = {S.ACL_INVALID_PARAM, S.ACL_INVALID_DEVICE}


def _rt(ctx: Ctx, name: str, *args: Any, result: str = "code") -> Any:
    fn = getattr(acl.rt, name) if name not in ("init", "finalize") else getattr(acl, name)
    full = f"acl.rt.{name}" if name not in ("init", "finalize") else f"acl.{name}"
    out = ctx.call(full, fn, *args, family="acl", result=result)
    return out, (None if out is ESCAPED else ctx.last_code), full


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _int_class(tag: Any) -> str:
    """equiv (a NumPy int), or hostile."""
    return "equiv" if isinstance(tag, dict) and tag.get("$") == "np" and tag.get("t", "").startswith(("int", "uint")) else "hostile"


# ------------------------------------------------------------------------ malloc / free

def malloc_case(ctx: Ctx) -> None:
    a, m = ctx.case["args"], ctx.case.get("mut") or {}
    kind = m.get("kind")
    size, policy = a["size"], a["policy"]
    want = {0}
    why = f"malloc({size}, {policy})"
    if kind == "size":
        size = decode(m["value"])
        plain = m["value"]
        want = {0} if _int_class(plain) == "equiv" else (
            {S.ACL_INVALID_PARAM, S.ACL_BAD_ALLOC} if _is_int(plain) and plain >= 2**63 else INVALID)
        why = f"malloc(size={describe(plain)})"
    elif kind == "policy":
        policy = decode(m["value"])
        want = {0} if _int_class(m["value"]) == "equiv" else INVALID
        why = f"malloc(policy={describe(m['value'])})"
    elif kind == "huge":
        size = m["value"]
        want = {0, S.ACL_BAD_ALLOC} if size < 2**62 else {S.ACL_BAD_ALLOC, S.ACL_INVALID_PARAM}
        why = f"malloc({size})"
    if kind == "arg_count":
        args = [] if m["delta"] < 0 else [size, policy, None]      # (policy has a default)
        out, code, name = _rt(ctx, "malloc", *args, result="pair")
        ctx.expect(name, code, INVALID, f"malloc with {len(args)} arguments")
        _free_if_given(ctx, out)
        return
    out, code, name = _rt(ctx, "malloc", size, policy, result="pair")
    if code is None:
        return
    ctx.expect(name, code, want, why)
    if code != 0 or not isinstance(out, tuple):
        _free_if_given(ctx, out)
        return
    ptr = out[0]
    if not _is_int(ptr) or not ptr:
        ctx.defect("bad_return", name, f"{kind or 'valid'}: pointer {ptr!r}")
        return
    if size in (a["size"],) and isinstance(size, int) and size <= 1 << 20:
        _check_usable(ctx, int(ptr), size)
    freed = False
    if kind == "free_ptr":
        tag = m["value"]
        name_ = tag.get("v") if isinstance(tag, dict) and tag.get("$") == "obj" else None
        if name_ == "np_ptr":
            arg, want_free = np.int64(ptr), {0}
        else:
            arg, want_free = _hostile_pointer(ctx, tag, int(ptr)), INVALID
        _, code, fname = _rt(ctx, "free", arg)
        ctx.expect(fname, code, want_free, f"free({describe(tag)})")
        freed = code == 0 and want_free == {0}
    elif kind == "double_free":
        _, code, fname = _rt(ctx, "free", ptr)
        ctx.expect(fname, code, {0}, "free of a live pointer")
        _, code, fname = _rt(ctx, "free", ptr)
        ctx.expect(fname, code, INVALID, "a second free of the same pointer")
        freed = True
    elif kind == "free_arg_count":
        args = [] if m["delta"] < 0 else [ptr, None]
        _, code, fname = _rt(ctx, "free", *args)
        ctx.expect(fname, code, INVALID, f"free with {len(args)} arguments")
    if not freed:
        _, code, fname = _rt(ctx, "free", ptr)
        ctx.expect(fname, code, {0}, "free of a live pointer")


def _free_if_given(ctx: Ctx, out: Any) -> None:
    """A malloc that should have failed but returned memory: give it back (no false leak)."""
    if isinstance(out, tuple) and out and _is_int(out[0]) and out[0] and out[-1] == 0:
        try:
            ctx.be.free(int(out[0]))
        except Exception:  # noqa: BLE001
            pass


def _check_usable(ctx: Ctx, ptr: int, size: int) -> None:
    """The block holds `size` bytes: write a pattern and read it back through the backend."""
    pattern = ctx.rng.integers(0, 256, size, dtype=np.uint8)
    ctx.be.copy_from_host(ptr, pattern)
    back = np.empty(size, np.uint8)
    ctx.be.copy_to_host(back, ptr)
    if not np.array_equal(back, pattern):
        ctx.defect("wrong_result", "acl.rt.malloc", "the block does not hold what was written")


def _hostile_pointer(ctx: Ctx, tag: Any, live: int) -> Any:
    def objects(name: str) -> Any:
        if name == "freed":
            blk = Block(ctx, (3 << 20) + 4096, 0, "freed block")   # a size class no one else uses
            blk.free()
            return blk.ptr
        if name == "interior":
            return live + 1
        if name == "host_array":
            arr = np.zeros(4096, np.uint8)
            ctx.host_buffers.append((arr, arr.copy(), "a host array passed as a device pointer"))
            return arr.ctypes.data
        if name == "stream":
            s = ctx.new_stream()
            return s
        raise KeyError(name)
    return decode(tag, objects)


# ------------------------------------------------------------------------------ memcpy

class HostBuf:
    """A host buffer with guard bands; the part handed to memcpy starts at `start`."""

    def __init__(self, ctx: Ctx, payload: int, guard: int, form: str) -> None:
        self.arr = ctx.rng.integers(0, 256, guard + payload + guard, dtype=np.uint8)
        self.expect = self.arr.copy()
        self.guard = guard
        self.form = form
        ctx.host_buffers.append((self.arr, self.expect, "host buffer"))

    def pointer(self, off: int, length: int, writable: bool) -> Any:
        lo = self.guard + off
        if self.form == "int":
            return self.arr.ctypes.data + lo
        if self.form == "bytes":
            # an immutable bytes object as the source, a bytearray copied back after the call
            return bytes(self.arr[lo:lo + length]) if not writable else bytearray(self.arr[lo:lo + length].tobytes())
        return self.arr[lo:lo + length]


def memcpy_case(ctx: Ctx) -> None:
    a, m = ctx.case["args"], ctx.case.get("mut") or {}
    mk = m.get("kind")
    asynchronous = ctx.case["entry"].endswith("_async")
    kind, size, count = a["kind"], a["size"], a["count"]
    direction = kind if kind != 4 else [0, 1, 2, 3][ctx.rng.integers(0, 4)]
    dst_dev, src_dev = direction in (1, 3), direction in (2, 3)
    payload = size + 32
    form = a["host_form"]
    dst = Block(ctx, payload, a["guard"], "dst device block") if dst_dev else HostBuf(ctx, payload, a["guard"], form)
    src = Block(ctx, payload, a["guard"], "src device block") if src_dev else HostBuf(ctx, payload, a["guard"], form)
    if isinstance(src, Block):
        src.upload()
    if isinstance(dst, Block):
        dst.upload()
    d_off, s_off = a["dst_off"], a["src_off"]
    dst_arg = dst.data + d_off if isinstance(dst, Block) else dst.pointer(d_off, size, True)
    src_arg = src.data + s_off if isinstance(src, Block) else src.pointer(s_off, size, False)
    dest_max: Any = count if a["dest_max"] == "count" else size
    count_arg: Any = count
    kind_arg: Any = kind
    want, why = {0}, f"memcpy kind {kind} (direction {direction}) of {count} bytes"
    if kind == 4 and form == "int" and not (dst_dev and src_dev):
        want, why = INVALID, "ACL_MEMCPY_DEFAULT with a host int pointer"
    valid = want == {0}
    if mk in ("count", "dest_max"):
        value = decode(m["value"])
        if mk == "count":
            count_arg = value
        else:
            dest_max = value
        cls = m["class"]
        if cls == "hostile":
            want, valid = INVALID, False
        elif cls == "any":
            want = want | INVALID
        why = f"{mk}={describe(m['value'])}"
    elif mk == "kind":
        kind_arg = decode(m["value"])
        if _int_class(m["value"]) != "equiv":
            want, valid, why = INVALID, False, f"kind={describe(m['value'])}"
    elif mk in ("dst", "src"):
        is_dev = dst_dev if mk == "dst" else src_dev
        tag = m["value"]
        trusted = not is_dev and _is_int(tag) and tag not in (0, -4096, 2**64)  # a host int, explicit kind
        interior = isinstance(tag, dict) and tag.get("v") in ("interior", "host_array", "freed") and not is_dev
        if not trusted and not interior and not (is_dev and isinstance(tag, dict) and tag.get("v") == "interior"):
            value = _hostile_pointer(ctx, tag, (dst if mk == "dst" else src).data if is_dev else 0)
            if mk == "dst":
                dst_arg = value
            else:
                src_arg = value
            want, valid, why = INVALID, False, f"{mk}={describe(tag)}"
    elif mk == "over_count":
        count_arg = (dest_max if _is_int(dest_max) else count) + 1
        want, valid, why = INVALID, False, "count > destMax"
    elif mk == "over_alloc" and (dst_dev or src_dev):
        blk = dst if dst_dev else src
        n = max(count, 2)
        ptr = blk.ptr + blk.total - n // 2
        count_arg, dest_max = n, n
        if dst_dev:
            dst_arg = ptr
        else:
            src_arg = ptr
        want, valid, why = INVALID, False, "a range past the end of the allocation"
    elif mk in ("freed_dst", "freed_src") and (dst_dev if mk == "freed_dst" else src_dev):
        blk = dst if mk == "freed_dst" else src
        blk.free()
        want, valid, why = INVALID, False, f"a freed {mk[6:]} device pointer"
    elif mk == "default_stale":
        blk = Block(ctx, 40 << 20, 0, "freed device block")   # unmapped once the cache is emptied
        blk.free()
        npu_emu.empty_cache()
        kind_arg, dst_arg, count_arg, dest_max = 4, blk.ptr, min(count, 1 << 16) or 1, 1 << 16
        src_arg = np.ones(1 << 16, np.uint8)
        dst_dev = False
        dst = None
        want, valid, why = INVALID, False, "ACL_MEMCPY_DEFAULT to a freed device pointer"
    elif mk == "host_small" and not (dst_dev and src_dev):
        count_arg = dest_max = max(count, 2)
        small = np.zeros(count_arg - 1, np.uint8)
        if not dst_dev:
            dst_arg = small
        else:
            src_arg = small
        want, valid, why = INVALID, False, "a host array smaller than count"
    elif mk == "readonly" and not dst_dev:
        ro = np.zeros(size + 32, np.uint8)
        ro.flags.writeable = False
        dst_arg, count_arg, dest_max = ro, max(count, 1), size
        want, valid, why = INVALID, False, "a read-only host destination"
    elif mk == "noncontig" and not (dst_dev and src_dev):
        nc = np.zeros(2 * (size + 32), np.uint8)[::2]
        if not dst_dev:
            dst_arg = nc
        else:
            src_arg = nc
        count_arg = max(count, 2)
        want, valid, why = INVALID, False, "a non-contiguous host array"
    stream: Any = None
    if asynchronous:
        how = a["stream"]
        stream = ctx.new_stream() if how == "new" else (None if how == "none" else 0)
        if mk == "stream":
            def objects(name: str) -> Any:
                if name == "destroyed_stream":
                    s, _ = acl.rt.create_stream()
                    acl.rt.destroy_stream(s)
                    return s
                if name == "event":
                    return acl.rt.create_event()[0]
                if name == "tensor":
                    return aclnn.aclCreateTensor([1], S.F32, None, 0, S.ND, [1], None)
                raise KeyError(name)
            stream = decode(m["value"], objects)
            want, valid, why = INVALID, False, f"stream={describe(m['value'])}"
    args = [dst_arg, dest_max, src_arg, count_arg, kind_arg] + ([stream] if asynchronous else [])
    if mk == "arg_count":
        args = args[:-1] if m["delta"] < 0 else args + [None]
        want, valid, why = INVALID, False, f"{len(args)} arguments"
    name = "memcpy_async" if asynchronous else "memcpy"
    _, code, full = _rt(ctx, name, *args)
    if code is None:
        return
    ctx.expect(full, code, want, why)
    if asynchronous and stream is not None and mk != "stream" and not isinstance(stream, int):
        ctx.expect("acl.rt.synchronize_stream", _rt(ctx, "synchronize_stream", stream)[1], {0}, "a live stream")
    ctx.synchronize()
    if isinstance(dst_arg, bytearray) and isinstance(dst, HostBuf):
        lo = dst.guard + d_off
        dst.arr[lo:lo + len(dst_arg)] = np.frombuffer(bytes(dst_arg), np.uint8)
    if code == 0 and valid and dst is not None and not (isinstance(dst, Block) and dst.freed):
        n = int(count_arg)
        src_bytes = (src.image[src.guard + s_off:src.guard + s_off + n] if isinstance(src, Block)
                     else src.arr[src.guard + s_off:src.guard + s_off + n])
        lo = dst.guard + d_off
        if isinstance(dst, Block):
            dst.expect = dst.image.copy()
            dst.expect[lo:lo + n] = src_bytes
            dst.view_mask[lo:lo + n] = True
        else:
            dst.expect[lo:lo + n] = src_bytes
        ctx.values_compared = True
    ctx.check_blocks()


# ------------------------------------------------------------------------------ memset

def memset_case(ctx: Ctx) -> None:
    a, m = ctx.case["args"], ctx.case.get("mut") or {}
    mk = m.get("kind")
    size, count, off, value = a["size"], a["count"], a["off"], a["value"]
    blk = Block(ctx, size + 8, a["guard"], "memset block")
    blk.upload()
    ptr: Any = blk.data + off
    max_count: Any = count if a["max"] == "count" else size
    count_arg: Any = count
    value_arg: Any = value
    want, valid, why = {0}, True, f"memset of {count} bytes"
    if mk in ("count", "max"):
        v = decode(m["value"])
        if mk == "count":
            count_arg = v
        else:
            max_count = v
        if m["class"] == "hostile":
            want, valid = INVALID, False
        elif m["class"] == "any":
            want = want | INVALID
        why = f"{mk}={describe(m['value'])}"
    elif mk == "value":
        value_arg = decode(m["value"])
        if _int_class(m["value"]) == "equiv":
            value = int(value_arg)
        else:
            want, valid, why = INVALID, False, f"value={describe(m['value'])}"
    elif mk == "ptr":
        tag = m["value"]
        if isinstance(tag, dict) and tag.get("v") == "interior":
            pass                                # inside the block: valid
        else:
            ptr = _hostile_pointer(ctx, tag, blk.data)
            want, valid, why = INVALID, False, f"devPtr={describe(tag)}"
    elif mk == "over_max":
        count_arg = (max_count if _is_int(max_count) else count) + 1
        want, valid, why = INVALID, False, "count > maxCount"
    elif mk == "over_alloc":
        n = max(count, 2)
        ptr, count_arg, max_count = blk.ptr + blk.total - n // 2, n, n
        want, valid, why = INVALID, False, "a range past the end of the allocation"
    elif mk == "negative_count":
        count_arg = -1
        want, valid, why = INVALID, False, "count -1"
    elif mk == "freed":
        other = Block(ctx, (3 << 20) + 4096, 0, "freed block")
        other.free()
        ptr = other.ptr
        want, valid, why = INVALID, False, "a freed pointer"
    args = [ptr, max_count, value_arg, count_arg]
    if mk == "arg_count":
        args = args[:-1] if m["delta"] < 0 else args + [None]
        want, valid, why = INVALID, False, f"{len(args)} arguments"
    _, code, full = _rt(ctx, "memset", *args)
    if code is None:
        return
    ctx.expect(full, code, want, why)
    ctx.synchronize()
    if code == 0 and valid:
        n = int(count_arg)
        lo = blk.guard + off
        blk.expect = blk.image.copy()
        blk.expect[lo:lo + n] = value
        blk.view_mask[lo:lo + n] = True
        ctx.values_compared = True
    ctx.check_blocks()


# ------------------------------------------------------------------------- streams

def _target(ctx: Ctx, how: str, live: Any) -> Any:
    return {"real": live, "none": None, "zero": 0, "str": "abc", "int": 5, "float": 1.5,
            "event": acl.rt.create_event()[0] if how == "event" else None, "stream": live}[how]


def stream_case(ctx: Ctx) -> None:
    a = ctx.case["args"]
    state: dict[int, str] = {}
    streams = []
    first = True
    created, code, name = _rt(ctx, "create_stream", result="pair")
    if code != 0:
        return
    live = created[0]
    streams.append(live)
    state[id(live)] = "live"
    target = _target(ctx, a["target"], live)
    default_ok = a["target"] in ("none", "zero")
    hostile = a["target"] in ("str", "int", "float", "event")
    ev, _ = acl.rt.create_event()
    blk = Block(ctx, 64, 64, "stream copy block")
    blk.upload()
    for action in a["actions"][1:]:
        if action == "create":
            out, code, name = _rt(ctx, "create_stream", result="pair")
            ctx.expect(name, code, {0}, "create_stream")
            if code == 0:
                streams.append(out[0])
                state[id(out[0])] = "live"
            continue
        gone = (not hostile and not default_ok and state.get(id(target)) == "destroyed")
        ctx.mut_kind = f"{action} on a {'destroyed' if gone else a['target']} stream"
        want = INVALID if (hostile or gone) else {0}
        if action == "destroy" and default_ok:
            want = INVALID                     # the default stream is not destroyed by users
        extra = a["arg_count"] if first else 0
        first = False
        if action == "synchronize":
            args: list = [target]
            fn = "synchronize_stream"
        elif action == "destroy":
            args, fn = [target], "destroy_stream"
        elif action == "memcpy_async":
            host = np.full(16, 7, np.uint8)
            ctx.host_buffers.append((host, host.copy(), "memcpy_async source"))
            args, fn = [blk.data, 16, host, 16, acl.ACL_MEMCPY_HOST_TO_DEVICE, target], "memcpy_async"
        elif action == "record_event":
            args, fn = [ev, target], "record_event"
        elif action == "wait_event":
            args, fn = [target, ev], "stream_wait_event"
        else:
            _stream_aclnn(ctx, target, hostile or gone, blk)
            continue
        if extra:
            args = args[:-1] if extra < 0 else args + [None]
            want = INVALID
        _, code, name = _rt(ctx, fn, *args)
        ctx.expect(name, code, want, f"{action} on a {'destroyed' if gone else a['target']} stream"
                   + (f" with {len(args)} arguments" if extra else ""))
        if code == 0 and action == "destroy" and not hostile:
            state[id(target)] = "destroyed"
        if code == 0 and action == "memcpy_async":
            ctx.synchronize()
            blk.image[64:80] = 7
            blk.view_mask[64:80] = True
    ctx.synchronize()
    for s in streams:
        if state.get(id(s)) == "live":
            _, code, name = _rt(ctx, "destroy_stream", s)
            ctx.expect(name, code, {0}, "destroying a live stream")
    acl.rt.destroy_event(ev)
    ctx.check_blocks()


def _stream_aclnn(ctx: Ctx, stream: Any, refused: bool, blk: Block) -> None:
    """An operator enqueued on the stream: aclnn's own code for a bad stream (161002)."""
    t = aclnn.aclCreateTensor([4], S.F32, None, 0, S.ND, [4], blk.data + 128 - 64)
    if t is None:
        return
    ws, ex, code = aclnn.aclnnMulGetWorkspaceSize(t, t, t)
    if code != 0:
        return
    c = ctx.call("aclnnMul", aclnn.aclnnMul, None, ws, ex, stream)
    ctx.expect("aclnnMul", c, {S.INVALID} if refused else {0}, "an operator on a "
               + ("bad" if refused else "live") + " stream")
    ctx.synchronize()
    blk.free_to_change[128:144] = True
    aclnn.aclDestroyTensor(t)


# -------------------------------------------------------------------------- events

def event_case(ctx: Ctx) -> None:
    a = ctx.case["args"]
    out, code, name = _rt(ctx, "create_event", result="pair")
    if code != 0:
        return
    ev = out[0]
    stream: Any = None
    stream_gone = False
    if a["stream"] in ("new", "destroyed"):
        stream = acl.rt.create_stream()[0]
        if a["stream"] == "destroyed":
            acl.rt.destroy_stream(stream)
            stream_gone = True
    target = {"real": ev, "none": None, "str": "abc", "stream": stream or acl.rt.create_stream()[0], "int": 3}[a["target"]]
    hostile = a["target"] != "real"
    destroyed = False
    first = True
    for action in a["actions"]:
        want = INVALID if hostile or destroyed else {0}
        ctx.mut_kind = f"{action} ({a['target']} event{', destroyed' if destroyed else ''})"
        if action == "record":
            args, fn, result = [target, stream], "record_event", "code"
            if stream_gone:
                want = INVALID
        elif action == "synchronize":
            args, fn, result = [target], "synchronize_event", "code"
        elif action == "query":
            args, fn, result = [target], "query_event_status", "pair"
        elif action == "wait":
            args, fn, result = [stream, target], "stream_wait_event", "code"
            if stream_gone:
                want = INVALID
        else:
            args, fn, result = [target], "destroy_event", "code"
        if first and a["arg_count"]:
            args = args[:-1] if a["arg_count"] < 0 else args + [None]
            want = INVALID
        first = False
        _, code, name = _rt(ctx, fn, *args, result=result)
        ctx.expect(name, code, want, f"{fn} ({a['target']} event{', destroyed' if destroyed else ''}"
                   f"{', destroyed stream' if stream_gone and fn in ('record_event', 'stream_wait_event') else ''})")
        if code == 0 and action == "destroy" and not hostile and len(args) == 1:
            destroyed = True
    ctx.synchronize()
    if not destroyed:
        _, code, name = _rt(ctx, "destroy_event", ev)
        ctx.expect(name, code, {0}, "destroying a live event")
    for s in {id(x): x for x in (stream, target if a["target"] == "stream" else None) if x is not None}.values():
        if not (s is stream and stream_gone):
            acl.rt.destroy_stream(s)


# ------------------------------------------------------------------- init / finalize

def lifecycle_case(ctx: Ctx) -> None:
    """init / finalize / set_device / reset_device in any order, and the calls between:
    100001 before init or after finalize; 107002 (no context) with no device set."""
    a = ctx.case["args"]
    initialized = device = True               # the worker starts every case so
    if a["start"] == "finalized":
        _, code, name = _rt(ctx, "finalize")
        ctx.expect(name, code, {0}, "finalize after init")
        initialized = device = False
    pending: list = []                          # handles to release once initialized again
    blk = Block(ctx, 64, 64, "memset block")
    blk.upload()
    for action in a["actions"]:
        if action == "init":
            _, code, name = _rt(ctx, "init")
            ctx.expect(name, code, {0, 100002} if initialized else {0}, "init" + (" again" if initialized else ""))
            initialized = initialized or code in (0, 100002)
            continue
        if action == "finalize":
            _, code, name = _rt(ctx, "finalize")
            ctx.expect(name, code, {0} if initialized else {0, S.ACL_UNINITIALIZE, 100037},
                       "finalize" + ("" if initialized else " twice"))
            initialized = device = False
            continue
        state = ("after init" if initialized else "before init / after finalize") + \
            ("" if device or not initialized else ", no device set")
        ctx.mut_kind = f"{action} {state}"
        want = {0} if initialized and device else UNINIT if not initialized else {S.ACL_CONTEXT_NULL}
        if action == "set_device":
            want = {0} if initialized else UNINIT
        elif action == "reset_device" and initialized and not device:
            want = {0, S.ACL_CONTEXT_NULL}
        if action == "malloc":
            out, code, name = _rt(ctx, "malloc", 64, 0, result="pair")
            if isinstance(out, tuple) and out[-1] == 0:
                pending.append(("free", out[0]))
        elif action == "create_stream":
            out, code, name = _rt(ctx, "create_stream", result="pair")
            if isinstance(out, tuple) and out[-1] == 0:
                pending.append(("destroy_stream", out[0]))
        elif action == "create_event":
            out, code, name = _rt(ctx, "create_event", result="pair")
            if isinstance(out, tuple) and out[-1] == 0:
                pending.append(("destroy_event", out[0]))
        elif action in ("set_device", "reset_device"):
            _, code, name = _rt(ctx, action, 0)
        elif action == "get_device":
            _, code, name = _rt(ctx, "get_device", result="pair")
        elif action == "get_mem_info":
            _, code, name = _rt(ctx, "get_mem_info", result="values2")
        elif action == "memset":
            _, code, name = _rt(ctx, "memset", blk.data, 64, 3, 16)
            if code == 0:
                blk.free_to_change[64:80] = True
        else:
            _, code, name = _rt(ctx, "synchronize_device")
        ctx.expect(name, code, want, f"{action} {state}")
        if code == 0 and action in ("set_device", "reset_device"):
            device = action == "set_device"
    acl.init()
    acl.rt.set_device(0)
    for fn, handle in pending:
        _rt(ctx, fn, handle)
    ctx.check_blocks()


def device_case(ctx: Ctx) -> None:
    a = ctx.case["args"]
    tag = a["id"]
    value = decode(tag)
    if tag == 0 or (isinstance(tag, dict) and tag.get("$") == "np"):
        want = {0}
    elif isinstance(tag, dict) and tag.get("$") == "a0":
        want = {0} | BAD_DEVICE
    else:
        want = BAD_DEVICE
    args = [value]
    ctx.mut_kind = f"{a['fn']}({describe(tag)})"
    if a["arg_count"]:
        args = [] if a["arg_count"] < 0 else [value, None]
        want = INVALID
    _, code, name = _rt(ctx, a["fn"], *args)
    ctx.expect(name, code, want, f"{a['fn']}({', '.join(describe(x) for x in ([tag] if len(args) else []))}"
               f"{', None' if len(args) == 2 else ''})")
    acl.rt.set_device(0)
