"""The sanitizer's state and checks (docs/sanitizer.md), fed by the call sites in the core
(`ops._core.execute`, `executor`, `aclnn`, `acl.rt`, `_state`) only when NPU_EMU_CHECK is set.

- race: vector clocks over the host and every stream; each device operation gets an epoch
  (stream, time). A shadow per acl.rt.malloc block keeps, per granule, the last writing
  operation and each stream's last reading one; an access conflicts with an earlier one on
  another stream when the accessing stream's clock has not reached it.
- init: one flag per granule, set by memset, copies into device memory and kernel writes.
- misuse and leak: records of executors, handles, streams, events and memory.
Granules are bytes up to FINE_LIMIT of them per allocation, then powers of two.
"""
from __future__ import annotations

import bisect
import itertools
import json
import os
import sys
import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import D2D, D2H, H2D
from ._sites import site

FINE_LIMIT = 1 << 18      # granules per allocation before its shadow coarsens
MAX_PRINTED = 200         # findings printed to stderr (all are counted and kept for the JSON)


@dataclass
class Finding:
    kind: str
    message: str
    sites: list[str]


class Cells:
    """One value per granule of an allocation: a single value while every access covered the
    whole block (the common case costs O(1)), an array once a part differs."""

    __slots__ = ("n", "value", "array", "dtype")

    def __init__(self, n: int, value: Any, dtype: Any) -> None:
        self.n, self.value, self.array, self.dtype = n, value, None, dtype

    def whole(self, sel: tuple) -> bool:
        return sel[0] == "s" and sel[1] == 0 and sel[2] == (self.n,) and sel[3] == (1,)

    def values(self, sel: tuple) -> tuple[np.ndarray, int]:
        """(values, granules each stands for) of the selected granules."""
        if self.array is None:
            return np.full(1, self.value, self.dtype), _count(sel)
        if sel[0] == "i":
            return self.array[sel[1]], 1
        return _strided(self.array, sel), 1

    def set(self, sel: tuple, value: Any) -> None:
        if self.whole(sel) and np.ndim(value) == 0:
            self.array, self.value = None, value
            return
        if self.array is None:
            if np.ndim(value) == 0 and value == self.value:
                return
            self.array = np.full(self.n, self.value, self.dtype)
        if sel[0] == "i":
            self.array[sel[1]] = value
        else:
            _strided(self.array, sel)[...] = value

    def is_all(self, value: Any) -> bool:
        return self.array is None and self.value == value


class Shadow:
    """The sanitizer's image of one acl.rt.malloc block."""

    serials = itertools.count(1)    # one finding per call site and allocation, not per call

    def __init__(self, base: int, size: int, where: str, init: bool, clocks: bool) -> None:
        g = 1
        while -(-size // g) > FINE_LIMIT:
            g *= 2
        n = -(-size // g)
        self.base, self.size, self.granule, self.n, self.site = base, size, g, n, where
        self.serial = next(Shadow.serials)
        self.init = Cells(n, False, bool) if init else None
        self.writes = Cells(n, -1, np.int32) if clocks else None    # last writing op
        self.reads: dict[int, Cells] = {}                            # agent -> last reading op

    def reader(self, agent: int) -> Cells:
        cells = self.reads.get(agent)
        if cells is None:
            cells = self.reads[agent] = Cells(self.n, -1, np.int32)
        return cells

    def describe(self) -> str:
        text = f"the {self.size}-byte block from acl.rt.malloc at {self.site}"
        if self.granule > 1:
            text += (f"; shadowed in {self.granule}-byte granules (a large allocation), so "
                     f"bytes are counted by granule")
        return text


class Agent:
    """The host or one stream, with its vector clock."""

    def __init__(self, index: int, name: str, ref: Any) -> None:
        self.index, self.name, self.ref = index, name, ref
        self.vc: dict[int, int] = {index: 0}
        self.last = -1          # time of its last operation (-1: none yet)


def _join(into: dict[int, int], other: dict[int, int]) -> None:
    for k, v in other.items():
        if into.get(k, -1) < v:
            into[k] = v


def _strided(arr: np.ndarray, sel: tuple) -> np.ndarray:
    _, start, shape, strides = sel
    if len(shape) == 1 and strides[0] == 1:
        return arr[start:start + shape[0]]
    item = arr.itemsize
    return np.lib.stride_tricks.as_strided(arr[start:], shape, tuple(s * item for s in strides))


def _select(sh: Shadow, ptr: int, nbytes: int, view: tuple | None) -> tuple | None:
    """The granules a touch covers: ("s", start, shape, strides) or ("i", indices). Exact
    for a view's elements (strided when the granule allows, else by index), the whole range
    [ptr, ptr + nbytes) for a touch without a view (or one with negative strides)."""
    off, g = ptr - sh.base, sh.granule
    end = min(off + nbytes, sh.size)
    if end <= off:
        return None
    if view is not None:
        shape, strides, item = view
        if 0 in shape:
            return None
        dims = [(int(n), int(s)) for n, s in zip(shape, strides) if n > 1 and s != 0]
        if all(s > 0 for _, s in dims):
            merged = _merge(dims + [(item, 1)])          # in bytes
            if len(merged) == 1 and merged[0][1] == 1:   # one contiguous run
                end = min(off + merged[0][0], sh.size)
            elif g == 1:
                return ("s", off, tuple(m[0] for m in merged), tuple(m[1] for m in merged))
            elif off % g == 0 and item <= g and all(s % g == 0 for _, s in dims):
                merged = _merge([(n, s // g) for n, s in dims])
                return ("s", off // g, tuple(m[0] for m in merged), tuple(m[1] for m in merged))
            else:                                        # each element's first and last granule
                offs = np.full(1, off, np.int64)
                for n, s in dims:
                    offs = (offs[:, None] + np.arange(n, dtype=np.int64) * s).reshape(-1)
                return ("i", np.unique(np.concatenate([offs // g, (offs + item - 1) // g])))
    lo, hi = off // g, -(-end // g)
    return ("s", lo, (hi - lo,), (1,))


def _merge(dims: list[tuple[int, int]]) -> list[list[int]]:
    """(size, stride) dims, outermost first, with contiguous neighbours folded into one."""
    merged: list[list[int]] = []
    for n, s in reversed(dims):
        if merged and s == merged[-1][0] * merged[-1][1]:
            merged[-1][0] *= n
        else:
            merged.append([n, s])
    merged.reverse()
    return merged or [[1, 1]]


def _count(sel: tuple) -> int:
    if sel[0] == "i":
        return int(sel[1].size)
    n = 1
    for s in sel[2]:
        n *= s
    return n


class Checker:
    """The hooks the call sites report to (under one lock: streams' callers may be threads),
    the state they keep, and the findings."""

    def __init__(self, tools: frozenset[str]) -> None:
        self.tools = tools
        self.race_on, self.init_on = "race" in tools, "init" in tools
        self.misuse_on, self.leak_on = "misuse" in tools, "leak" in tools
        self.clocks = self.race_on or self.misuse_on
        self.lock = threading.RLock()
        self.findings: list[Finding] = []
        self._seen: set = set()
        self.shadows: dict[int, Shadow] = {}
        self._bases: list[int] = []
        self.freed: dict[int, tuple[int, str]] = {}     # base -> (size, where it was freed)
        self.host = Agent(0, "the host", None)
        self.agents: list[Agent] = [self.host]
        self._by_stream: dict[int, Agent] = {}
        self.op_agent = np.zeros(1024, np.int32)
        self.op_time = np.zeros(1024, np.int64)
        self.op_site: list[str] = []       # per operation, interned (a loop repeats its sites)
        self.op_what: list[str] = []
        self._strings: dict[str, str] = {}
        self.event_vc: dict[Any, dict[int, int]] = {}
        self.streams: dict[int, tuple[Any, str]] = {}    # created by acl.rt.create_stream
        self.events: dict[int, tuple[Any, str]] = {}
        self.destroyed_at: dict[int, tuple[Any, str]] = {}
        self.handles: dict[int, tuple] = {}    # id -> (weakref, (what, destroyer), site)
        self.lost: list[tuple] = []            # collected without being destroyed
        self.calls = 0
        self.coarse = 0
        self.memory_epoch = 0      # bumped by every malloc and free (plans' cached accesses)

    # ------------------------------------------------------------------ findings
    def report(self, kind: str, message: str, sites: list[str], key: Any = None) -> None:
        key = (kind, message, tuple(sites)) if key is None else (kind, key)
        if key in self._seen:
            return
        self._seen.add(key)
        finding = Finding(kind, message, list(sites))
        self.findings.append(finding)
        if len(self.findings) <= MAX_PRINTED:
            lines = [f"npu_emu check: {kind}: {message}"] + [f"    at {s}" for s in sites]
            print("\n".join(lines), file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ streams and clocks
    def _agent(self, stream: Any, be: Any) -> Agent:
        s = stream if stream is not None else be.default_stream
        a = self._by_stream.get(id(s))
        if a is None or a.ref is not s:
            name = "the default stream" if getattr(s, "is_default", False) else \
                f"stream {len(self.agents)}"
            a = Agent(len(self.agents), name, s)
            self.agents.append(a)
            self._by_stream[id(s)] = a
        return a

    def stream_created(self, stream: Any, be: Any) -> None:
        with self.lock:
            a = self._agent(stream, be)
            where = site()
            a.name = f"stream {a.index} (acl.rt.create_stream at {where})"
            self.streams[id(stream)] = (stream, where)

    def stream_destroyed(self, stream: Any, be: Any) -> None:
        with self.lock:
            _join(self.host.vc, self._agent(stream, be).vc)      # destroy waits for its work
            self.destroyed_at[id(stream)] = (stream, f"acl.rt.destroy_stream at {site()}")
            self.streams.pop(id(stream), None)

    def event_created(self, event: Any) -> None:
        with self.lock:
            self.events[id(event)] = (event, site())

    def event_destroyed(self, event: Any) -> None:
        with self.lock:
            self.destroyed_at[id(event)] = (event, f"acl.rt.destroy_event at {site()}")
            self.events.pop(id(event), None)

    def record(self, event: Any, stream: Any, be: Any) -> None:
        with self.lock:
            a = self._agent(stream, be)
            _join(a.vc, self.host.vc)
            self.event_vc[event] = dict(a.vc)

    def wait(self, stream: Any, event: Any, be: Any) -> None:
        with self.lock:
            a = self._agent(stream, be)
            _join(a.vc, self.host.vc)
            _join(a.vc, self.event_vc.get(event, {}))

    def sync_stream(self, stream: Any, be: Any) -> None:
        with self.lock:
            _join(self.host.vc, self._agent(stream, be).vc)

    def sync_device(self) -> None:
        with self.lock:
            for a in self.agents:
                _join(self.host.vc, a.vc)

    def sync_event(self, event: Any) -> None:
        with self.lock:
            _join(self.host.vc, self.event_vc.get(event, {}))

    # ------------------------------------------------------------------ argument misuse
    def _destroyed_stream(self, stream: Any) -> bool:
        from ..runtime.base import Stream
        return isinstance(stream, Stream) and stream.destroyed

    def stream_arg(self, stream: Any, api: str) -> None:
        if not self.misuse_on or not self._destroyed_stream(stream):
            return
        with self.lock:
            _, how = self.destroyed_at.get(id(stream), (None, "destroyed"))
            where = site()
            self.report("misuse", f"{api} is given a stream that was destroyed ({how}); "
                                  f"CANN refuses it (or worse, the handle is reused)",
                        [where], key=("stream", where, id(stream)))

    def event_arg(self, event: Any, api: str) -> None:
        if not self.misuse_on or not getattr(event, "acl_destroyed", False):
            return
        with self.lock:
            _, how = self.destroyed_at.get(id(event), (None, "destroyed"))
            where = site()
            self.report("misuse", f"{api} is given an event that was destroyed ({how})",
                        [where], key=("event", where, id(event)))

    def _host_block(self, ptr: int) -> bool:
        from .. import runtime
        try:
            return runtime.current().is_host_block(ptr)
        except Exception:     # no backend: then no host block either
            return False

    def device_pointer(self, ptr: Any, name: str, api: str) -> None:
        """A pointer given where device memory belongs: report host memory."""
        if not self.misuse_on or isinstance(ptr, bool) or not isinstance(ptr, (int, np.integer)):
            return
        p = int(ptr)
        with self.lock:
            if p and self._shadow_of(p) is None and self._host_block(p):
                where = site()
                self.report("misuse", f"{api}: {name}=0x{p:x} is host memory (acl.rt.malloc_host) "
                                      f"where device memory (acl.rt.malloc) belongs",
                            [where], key=("host", where, name))

    # ------------------------------------------------------------------ memory
    def _shadow_of(self, ptr: int) -> Shadow | None:
        i = bisect.bisect_right(self._bases, ptr) - 1
        if i < 0:
            return None
        sh = self.shadows[self._bases[i]]
        return sh if ptr < sh.base + sh.size else None

    def malloc(self, ptr: int, size: int) -> None:
        with self.lock:
            self.memory_epoch += 1
            self._drop(ptr)
            sh = Shadow(ptr, size, site(), self.init_on, self.clocks)
            self.coarse += sh.granule > 1
            self.shadows[ptr] = sh
            bisect.insort(self._bases, ptr)
            self.freed.pop(ptr, None)

    def _drop(self, ptr: int) -> Shadow | None:
        self.memory_epoch += 1
        sh = self.shadows.pop(ptr, None)
        if sh is not None:
            del self._bases[bisect.bisect_left(self._bases, ptr)]
        return sh

    def free(self, ptr: int) -> None:
        with self.lock:
            sh = self._drop(ptr)
            if sh is not None:
                self.freed[ptr] = (sh.size, f"acl.rt.free at {site()}")
                if len(self.freed) > 4096:
                    self.freed.pop(next(iter(self.freed)))

    def _freed_site(self, ptr: int) -> str:
        for base, (size, how) in self.freed.items():
            if base <= ptr < base + size:
                return how
        return "freed"

    # ------------------------------------------------------------------ device operations
    def _new_op(self, agent: int, time: int, where: str, what: str) -> int:
        op = len(self.op_site)
        if op >= self.op_agent.size:
            self.op_agent = np.concatenate([self.op_agent, np.zeros_like(self.op_agent)])
            self.op_time = np.concatenate([self.op_time, np.zeros_like(self.op_time)])
        self.op_agent[op], self.op_time[op] = agent, time
        self.op_site.append(self._strings.setdefault(where, where))
        self.op_what.append(self._strings.setdefault(what, what))
        return op

    def _process(self, agent: Agent, accesses: list, what: str, where: str,
                 sync: bool = False, host_read: bool = False) -> None:
        """One device operation by `agent`: accesses are (shadow, selection, mode, label);
        mode "r" read, "R" read without the init check (a copy's source), "w" write, "rw",
        "ws" (a workspace: written and read, never init-checked)."""
        self.calls += 1
        t = 0
        if self.clocks:
            _join(agent.vc, self.host.vc)
            t = agent.vc.get(agent.index, 0)
        if self.init_on:
            for sh, sel, mode, label in accesses:
                if mode in ("r", "rw") and not sh.init.is_all(True):
                    v, weight = sh.init.values(sel)
                    if not v.all():
                        missing = (v.size - int(np.count_nonzero(v))) * weight * sh.granule
                        self.report("init", f"{what} reads {label}: {missing} of its bytes were "
                                            f"never written since acl.rt.malloc ({sh.describe()})",
                                    [where], key=("init", where, sh.serial))
        if self.clocks and (self.race_on or (host_read and self.misuse_on)):
            if not all(agent.vc.get(a.index, 0) > a.last for a in self.agents if a.last >= 0):
                self._conflicts(agent, accesses, what, where, host_read)
        if self.clocks:
            op = self._new_op(agent.index, t, where, what)
        for sh, sel, mode, label in accesses:
            if mode != "r" and mode != "R":
                if self.clocks:
                    sh.writes.set(sel, op)
                if self.init_on:
                    sh.init.set(sel, True)
            if mode in ("r", "R", "rw") and self.race_on:
                sh.reader(agent.index).set(sel, op)
        if self.clocks:
            agent.vc[agent.index] = t + 1
            agent.last = t
            if sync:
                _join(self.host.vc, agent.vc)

    def _conflicts(self, agent: Agent, accesses: list, what: str, where: str,
                   host_read: bool) -> None:
        V = np.array([agent.vc.get(i, 0) for i in range(len(self.agents))], np.int64)
        for sh, sel, mode, label in accesses:
            writes = mode not in ("r", "R")
            checks = [(None, sh.writes)]
            if writes and self.race_on:
                checks += [(a, cells) for a, cells in sh.reads.items()
                           if a != agent.index and V[a] <= self.agents[a].last]
            for reader, cells in checks:
                if cells.is_all(-1):
                    continue
                ids, weight = cells.values(sel)
                valid = ids >= 0
                bad = valid & (V[self.op_agent[ids]] <= self.op_time[ids])
                if not bad.any():
                    continue
                for other in np.unique(ids[bad])[:2]:
                    nbytes = int(np.count_nonzero(ids[bad] == other)) * weight * sh.granule
                    self._conflict(agent, int(other), reader is not None, writes, what, where,
                                   label, nbytes, sh, host_read)

    def _conflict(self, agent: Agent, other: int, other_read: bool, writes: bool, what: str,
                  where: str, label: str, nbytes: int, sh: Shadow, host_read: bool) -> None:
        o_agent = self.agents[int(self.op_agent[other])]
        o_site, o_what = self.op_site[other], self.op_what[other]
        if host_read and not writes and self.misuse_on:
            self.report("misuse", f"{what} reads {label} ({nbytes} bytes of {sh.describe()}) "
                                  f"that {o_what} on {o_agent.name} writes, before that stream "
                                  f"was synchronized (acl.rt.synchronize_stream, or an event "
                                  f"the host waited for)",
                        [where, o_site], key=("hostread", where, o_site, sh.serial))
            return
        if not self.race_on:
            return
        mine = "writes" if writes else "reads"
        theirs = "read" if other_read else "wrote"
        self.report("race", f"{what} on {agent.name} {mine} {label} ({nbytes} bytes of "
                            f"{sh.describe()}), which {o_what} on {o_agent.name} {theirs}; no "
                            f"event or synchronization orders the two",
                    [where, o_site], key=("race", where, o_site, sh.serial))

    def _touch_accesses(self, plan: Any) -> list:
        roles = {p.name: p.role for p in plan.op.params} if plan.op is not None else {}
        mode_of = {"in": "r", "out": "w", "inout": "rw"}
        out = []
        for touch in plan.touches:
            sh = self._shadow_of(touch.ptr)
            if sh is None:
                continue
            sel = _select(sh, touch.ptr, touch.nbytes, touch.view)
            if sel is not None:
                out.append((sh, sel, mode_of.get(roles.get(touch.name), "rw"),
                            f"tensor {touch.name}"))
        return out

    def launch(self, plan: Any, stream: Any, workspace: int, be: Any) -> None:
        with self.lock:
            cached = plan.checked       # a repeated run: the same shadows, nothing (re)allocated
            if cached is not None and cached[0] == (self.memory_epoch, workspace):
                accesses = cached[1]
            else:
                accesses = self._touch_accesses(plan)
                if workspace and plan.workspace_size:
                    sh = self._shadow_of(workspace)
                    sel = sh and _select(sh, workspace, plan.workspace_size, None)
                    if sel:
                        accesses.append((sh, sel, "ws", "its workspace"))
                plan.checked = ((self.memory_epoch, workspace), accesses)
            if not accesses:
                return
            what = f"aclnn{plan.op.name}" if plan.op is not None else "a kernel launch"
            self._process(self._agent(stream, be), accesses, what, site())

    def copy(self, kind: str, dst: int, src: int, nbytes: int, stream: Any, be: Any) -> None:
        with self.lock:
            accesses = []
            ds = self._shadow_of(dst) if kind != D2H else None
            ss = self._shadow_of(src) if kind != H2D else None
            ssel = dsel = None
            if ss is not None:
                ssel = _select(ss, src, nbytes, None)
                if ssel is not None:
                    accesses.append((ss, ssel, "r" if kind == D2H else "R", "its source"))
            if ds is not None:
                dsel = _select(ds, dst, nbytes, None)
                if dsel is not None:
                    accesses.append((ds, dsel, "w", "its destination"))
            if not accesses:
                return
            call = "acl.rt.memcpy" if stream is None else "acl.rt.memcpy_async"
            self._process(self._agent(stream, be), accesses, f"{call} ({kind})", site(),
                          sync=stream is None, host_read=kind == D2H and stream is None)
            if kind == D2D and self.init_on and dsel is not None and ssel is not None \
                    and ds.granule == ss.granule == 1:   # a copy carries the source's state
                state, _ = ss.init.values(ssel)
                ds.init.set(dsel, state if state.size == _count(dsel) else bool(state[0]))

    def memset(self, ptr: int, nbytes: int, stream: Any, be: Any) -> None:
        with self.lock:
            sh = self._shadow_of(ptr)
            sel = sh and _select(sh, ptr, nbytes, None)
            if not sel:
                return
            call = "acl.rt.memset" if stream is None else "acl.rt.memset_async"
            self._process(self._agent(stream, be), [(sh, sel, "w", "its destination")],
                          call, site(), sync=stream is None)

    # ------------------------------------------------------------------ executors
    def phase_two(self, aclnn_name: str, ex: Any, workspace: Any, size: Any, stream: Any) -> None:
        """aclnnXxx(workspace, workspaceSize, executor, stream), before the executor's checks."""
        if not self.misuse_on:
            return
        from ..executor import Executor
        self.stream_arg(stream, aclnn_name)
        if not isinstance(ex, Executor) or ex.destroyed:
            return
        with self.lock:
            made = f"aclnn{ex.op.name}"
            if made != aclnn_name:
                where = site()
                self.report("misuse", f"{aclnn_name} runs an executor made by "
                                      f"{made}GetWorkspaceSize: CANN runs it (the {made} "
                                      f"work, not {aclnn_name}'s) and returns 0",
                            [where], key=("wrongop", where))
            self._workspace(ex, workspace, size, aclnn_name)
            self._freed_tensors(ex, aclnn_name)

    def _workspace(self, ex: Any, workspace: Any, size: Any, api: str) -> None:
        need = ex.plan.workspace_size
        if need <= 0:
            return
        ws = int(workspace) if isinstance(workspace, (int, np.integer)) and \
            not isinstance(workspace, bool) else (0 if workspace is None else None)
        n = int(size) if isinstance(size, (int, np.integer)) and not isinstance(size, bool) else None
        asked = f"the {need} bytes aclnn{ex.op.name}GetWorkspaceSize asked for"
        problem = None
        if ws == 0:
            problem = f"the workspace is null, but it needs {asked}"
        elif n is not None and n < need:
            problem = f"workspaceSize={n} is smaller than {asked}"
        elif ws is not None:
            sh = self._shadow_of(ws)
            live = sh is not None or ex.ctx.backend.allocator.contains(ws, need)  # any device
            if not live:                  # memory will do (the Python layers', torch_npu's...)
                if self._host_block(ws):
                    problem = f"workspace=0x{ws:x} is host memory (acl.rt.malloc_host), not device memory"
                else:
                    problem = (f"workspace=0x{ws:x} is not live device memory from acl.rt.malloc "
                               f"({self._freed_site(ws)})")
            elif sh is not None and ws + need > sh.base + sh.size:
                problem = (f"the workspace block ({sh.describe()}) holds {sh.base + sh.size - ws} "
                           f"bytes from workspace=0x{ws:x}, fewer than {asked}")
            else:
                for touch in ex.plan.touches:
                    if touch.nbytes > 0 and touch.ptr < ws + need and ws < touch.ptr + touch.nbytes:
                        problem = (f"the workspace (0x{ws:x}, {need} bytes) overlaps tensor "
                                   f"{touch.name}'s memory; the kernels would overwrite it")
                        break
        if problem:
            where = site()
            self.report("misuse", f"{api}: {problem}", [where], key=("ws", where))

    def _freed_tensors(self, ex: Any, api: str) -> None:
        alloc = ex.ctx.backend.allocator
        if alloc.generation == ex.plan.generation:
            return
        for touch, serial in ex.plan.memory:
            if alloc.block_id(touch.ptr, touch.nbytes) != serial:
                where = site()
                kind = "a repeatable executor" if ex.repeatable else "an executor"
                self.report("misuse", f"{api} runs {kind} of aclnn{ex.op.name} after tensor "
                                      f"{touch.name}'s memory (0x{touch.ptr:x}) was freed "
                                      f"({self._freed_site(touch.ptr)}) since its phase one",
                            [where], key=("freed", where, touch.name))
                return

    # ------------------------------------------------------------------ leaks
    # Handles are held weakly (the sanitizer must not keep a program's memory alive): one
    # collected before it was destroyed is kept as lost, a leak of its C handle.
    def created(self, obj: Any) -> None:
        with self.lock:
            key = id(obj)
            self.handles[key] = (weakref.ref(obj, lambda _, k=key: self._collected(k)),
                                 self._what(obj), site())

    def _collected(self, key: int) -> None:
        with self.lock:
            entry = self.handles.pop(key, None)
            if entry is not None:
                self.lost.append(entry)

    def gone(self, obj: Any) -> None:
        """obj was destroyed, or (an executor that ran once) released by its phase two."""
        with self.lock:
            entry = self.handles.get(id(obj))
            if entry is not None and entry[0]() is obj:
                del self.handles[id(obj)]

    @staticmethod
    def _what(obj: Any) -> tuple[str, str]:
        kind = obj.KIND
        if kind == "aclOpExecutor":
            return f"an {kind} of aclnn{obj.op.name}", "aclDestroyAclOpExecutor"
        return f"an {kind}", f"aclDestroy{kind[3:]}"

    def _leaks(self, at: str, handles: bool) -> None:
        if not self.leak_on:
            return
        for sh in list(self.shadows.values()):
            self.report("leak", f"{sh.size} bytes of device memory from acl.rt.malloc were never "
                                f"freed (acl.rt.free) before {at}", [sh.site], key=("mem", sh.base, sh.site))
        for s, where in list(self.streams.values()):
            if not s.destroyed:
                self.report("leak", f"a stream from acl.rt.create_stream was never destroyed "
                                    f"(acl.rt.destroy_stream) before {at}", [where], key=("stream", id(s)))
        for e, where in list(self.events.values()):
            if not getattr(e, "acl_destroyed", False):
                self.report("leak", f"an event from acl.rt.create_event was never destroyed "
                                    f"(acl.rt.destroy_event) before {at}", [where], key=("event", id(e)))
        if handles:
            for ref, (what, destroy), where in list(self.handles.values()) + self.lost:
                self.report("leak", f"{what} was never destroyed ({destroy}) before {at}",
                            [where], key=("handle", id(ref)))

    def release(self, at: str) -> None:
        """acl.rt.reset_device / acl.finalize release the device's memory, streams and events
        (and at finalize, the handles are the program's last chance): report, then forget."""
        with self.lock:
            self.sync_device()
            self._leaks(at, handles=at == "acl.finalize")
            for base in list(self.shadows):
                sh = self._drop(base)
                self.freed[base] = (sh.size, f"released by {at}")
            for s, _ in self.streams.values():
                self.destroyed_at[id(s)] = (s, f"released by {at}")
            for e, _ in self.events.values():
                self.destroyed_at[id(e)] = (e, f"released by {at}")
            self.streams.clear()
            self.events.clear()
            if at == "acl.finalize":
                self.handles.clear()
                self.lost.clear()

    # ------------------------------------------------------------------ exit
    def summary(self) -> dict:
        by_kind = {k: 0 for k in ("race", "init", "misuse", "leak")}
        for f in self.findings:
            by_kind[f.kind] += 1
        return {"findings": len(self.findings), "by_kind": by_kind, "tools": sorted(self.tools),
                "operations_checked": self.calls, "coarse_allocations": self.coarse}

    def at_exit(self) -> None:
        from . import DEFAULT_EXITCODE, ENV_EXITCODE, ENV_JSON
        with self.lock:
            self._leaks("exit", handles=True)
            s = self.summary()
            kinds = ", ".join(f"{k} {v}" for k, v in s["by_kind"].items())
            print(f"npu_emu check: summary: {s['findings']} finding"
                  f"{'' if s['findings'] == 1 else 's'} ({kinds}); tools {','.join(s['tools'])}",
                  file=sys.stderr)
            path = os.environ.get(ENV_JSON)
            if path:
                with open(path, "w") as f:
                    json.dump({"findings": [{"kind": x.kind, "message": x.message, "sites": x.sites}
                                            for x in self.findings], "summary": s}, f, indent=1)
            try:
                code = int(os.environ.get(ENV_EXITCODE, DEFAULT_EXITCODE))
            except ValueError:
                code = DEFAULT_EXITCODE
        if self.findings:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
