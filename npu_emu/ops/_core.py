"""The operator core that both facades call: what an operator module exports, the context it
runs in, the checks every operator shares, and the one path that enqueues a plan.

An operator is an `OpDef`: its C signature (parameter names and roles, in CANN's order) and
three plain steps, none of which reads a global:

    infer(ins, attrs, ctx) -> (shape, dtype)   the output an eager caller must allocate
    check(ins, outs, attrs, ctx)               CANN's named checks, in CANN's order
    plan(ins, outs, attrs, ctx) -> Plan        kernel launches, workspace bytes, memory touched

`ins`/`outs` are tuples of tensors (an in-place tensor is in both), `attrs` a dict of the
other parameters by name, `ctx` a frozen Context (backend, SoC, rule set) that the facades fill
from the user's switches. `prepare` runs check, the shared checks and plan; `execute` is the
only place launches are enqueued (aclnn's phase two and the eager layers alike).
"""
from __future__ import annotations

import enum
import functools
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from .. import check, runtime
from .._params import INT64_MAX, UINT64_MAX
from ..arch import SocInfo, current_soc
from ..dtypes import RuleSet, current_rules
from ..runtime.base import GEOMETRY_CHANGED, Backend, Launch, Stream
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR
from ..fractal import LayoutSpec
from ..tensor import IntArray, Scalar, Tensor, check_geometry, contiguous_strides
from ._bindings import BoundPlans

IN, OUT, INOUT, ATTR = "in", "out", "inout", "attr"
EXACT_OVERLAP_LIMIT = 1 << 20   # outputs up to this many elements get an exact alias check


@dataclass(frozen=True)
class Context:
    """What a plan depends on besides its arguments: the backend that runs it, the SoC whose
    rules apply, and the promotion / conversion rule set. Captured once per call."""
    backend: Backend
    soc: SocInfo
    rules: RuleSet

    @functools.cached_property
    def plan_key(self) -> tuple:
        """The part of a plan-cache key this context gives (kept on the context: the eager
        layers and current_context reuse one object per switch setting)."""
        return (id(self.backend), self.soc.name, self.rules.name)


# One Context per (backend, SoC, rule set) in use, by identity: a frozen dataclass costs a
# microsecond to build, and a tiny operation is a few microseconds in all. Each entry keeps
# its three objects alive, so their ids are not reused while they key it.
_contexts: dict[tuple[int, int, int], Context] = {}
_CONTEXTS_KEPT = 64


def context_of(be: Backend, soc: SocInfo, rules: RuleSet) -> Context:
    """The Context of these three (the same object for the same three)."""
    key = (id(be), id(soc), id(rules))
    ctx = _contexts.get(key)
    if ctx is None:
        if len(_contexts) >= _CONTEXTS_KEPT:     # SoCs or rule sets made on the fly: start over
            _contexts.clear()
        ctx = _contexts[key] = Context(be, soc, rules)
    return ctx


def current_context() -> Context:
    """The context the user's switches select now (NPU_EMU_DEVICE, set_soc, set_promotion_rules)."""
    return context_of(runtime.current(), current_soc(), current_rules())


@dataclass(frozen=True)
class Param:
    """One parameter of an operator's first phase, as CANN names and orders it."""
    name: str
    role: str            # IN, OUT, INOUT (a tensor both read and written) or ATTR
    ctype: str = "aclTensor"
    doc: str = ""


@dataclass(frozen=True)
class OpDef:
    """An operator: `name` is CANN's without the aclnn prefix ("Expand", "InplaceAdd")."""
    name: str
    params: tuple[Param, ...]
    check: Callable[..., None]
    plan: Callable[..., "Plan"]
    infer: Callable[..., tuple] | None = None
    summary: str = ""
    # (dtypes, attrs, ctx) -> bool: the operator's own answer to `supports`.
    accepts: Callable[..., bool] | None = None
    # (dtypes, attrs, ctx) -> bool: the operator's own answer to `plain`; None: never plain.
    plain_rule: Callable[..., bool] | None = None

    def supports(self, dtypes: Sequence[Any], ctx: "Context",
                 attrs: dict[str, Any] | None = None) -> bool:
        """Whether this operator takes inputs of these dtypes (with these attrs) on ctx's SoC
        and rule set and computes them as its contract says, so that a front end may choose
        it over another path. An operator without a rule of its own answers False."""
        return self.accepts is not None and bool(self.accepts(tuple(dtypes), attrs or {}, ctx))

    def plain(self, dtypes: Sequence[Any], ctx: "Context",
              attrs: dict[str, Any] | None = None) -> bool:
        """Whether this elementwise operator computes, for these supported dtypes and attrs,
        its plain formula on the promoted operands: each result one correctly rounded
        operation of the promoted type (complex: the textbook formulas part by part), so that
        a front end's own kernel of that formula gives the operator's bits."""
        return self.plain_rule is not None and bool(self.plain_rule(tuple(dtypes), attrs or {}, ctx))

    @functools.cached_property
    def input_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.role in (IN, INOUT))

    @functools.cached_property
    def output_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.role in (OUT, INOUT))

    @functools.cached_property
    def attr_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.role == ATTR)

    @functools.cached_property
    def arity(self) -> tuple[int, int]:
        """(inputs, outputs)."""
        return len(self.input_names), len(self.output_names)

    def split(self, values: dict[str, Any]) -> tuple[tuple, tuple, dict[str, Any]]:
        """(ins, outs, attrs) from the parameters by name."""
        return (tuple(values[n] for n in self.input_names),
                tuple(values[n] for n in self.output_names),
                {n: values[n] for n in self.attr_names})


@dataclass(frozen=True)
class Touch:
    """Device memory a plan reads or writes: `nbytes` from `ptr`, the memory of tensor `name`
    (an operator parameter: its role says read, write or both). `view` is (shape, strides in
    bytes, itemsize) when the elements touched are a view's, not the whole range (the
    sanitizer's exact element sets); None: every byte of the range."""
    name: str
    ptr: int
    nbytes: int
    align: int
    view: tuple | None = None


def view_touch(t: Tensor, name: str) -> Touch:
    """The bytes of t's view, from its first element to the end of its last."""
    start = t.data + t.storage_offset * t.itemsize
    item = t.itemsize
    return Touch(name, start, (t.extent - t.storage_offset) * item, min(item, 8),
                 (t.view_shape, tuple(s * item for s in t.view_strides), item))


def storage_touch(t: Tensor, name: str, numel: int) -> Touch:
    """The first `numel` elements of t's storage (a private layout, read or written whole)."""
    return Touch(name, t.data, numel * t.itemsize, min(t.itemsize, 8))


@dataclass
class Plan:
    """What phase one produces: kernel launches in order, the workspace bytes they need, and
    the device memory they touch (checked live at phase one and again before every run)."""
    launches: list[Launch] = field(default_factory=list)
    workspace_size: int = 0
    touches: list[Touch] = field(default_factory=list)
    memory: list[tuple[Touch, int]] = field(default_factory=list)  # (touch, block serial)
    generation: int = -1
    op: "OpDef | None" = None        # set by prepare: whose parameters the touches name
    checked: Any = field(default=None, repr=False, compare=False)   # the sanitizer's cache
    # (touches of at least one byte, their (ptr, nbytes) ranges): made once from `touches`
    # and shared with the plans the cache hands out, which check those ranges on every call
    ranges: tuple | None = field(default=None, repr=False, compare=False)


# ------------------------------------------------------------------- shared checks

def check_no_internal_overlap(t: Tensor, name: str) -> None:
    """An output's elements may not share memory (PyTorch refuses the same): a stride 0 on a
    dim longer than 1 always aliases; other strides are proved disjoint (sorted strides each
    past the span of the smaller ones), else checked exactly up to EXACT_OVERLAP_LIMIT
    elements, else refused as possibly aliasing."""
    if t.is_empty() or t.view_strides == contiguous_strides(t.view_shape):
        return
    dims = [(n, s, d) for d, (n, s) in enumerate(zip(t.view_shape, t.view_strides)) if n > 1]
    for n, s, d in dims:
        if s == 0:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"Tensor {name} has stride 0 on dim {d} of size {n}: its elements "
                             f"would overlap, and an output's elements may not (view shape "
                             f"{list(t.view_shape)}, strides {list(t.view_strides)}).")
    span = 1
    for n, s, _ in sorted(dims, key=lambda x: x[1]):
        if s < span:
            break
        span += (n - 1) * s
    else:
        return
    if t.numel <= EXACT_OVERLAP_LIMIT:
        offsets = np.zeros(1, dtype=np.int64)
        for n, s, _ in dims:
            offsets = (offsets[:, None] + np.arange(n, dtype=np.int64) * s).reshape(-1)
        if np.unique(offsets).size == offsets.size:
            return
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Tensor {name}'s view (shape {list(t.view_shape)}, strides "
                         f"{list(t.view_strides)}) maps several elements to one address; an "
                         f"output's elements may not overlap.")
    raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                     f"Tensor {name}'s view (shape {list(t.view_shape)}, strides "
                     f"{list(t.view_strides)}) may map several elements to one address (its "
                     f"strides are not nested); an output's elements may not overlap.")


def check_pointer(t: Tensor, name: str) -> None:
    if not 0 <= t.data <= UINT64_MAX:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Tensor {name} has data pointer {t.data}, which is not an address "
                         f"(an int in [0, 2^64)).")


def resolve_memory(plan: Plan, ctx: Context) -> None:
    """Check every range the plan touches (null pointer -> 161001; misaligned, or not inside
    one live allocation -> 161002) and record the block serials for phase two."""
    for touch in plan.touches:
        if touch.nbytes <= 0:
            continue
        if touch.ptr == 0:
            raise AclnnError(ACLNN_ERR_PARAM_NULLPTR,
                             f"Tensor {touch.name} has a null data pointer but touches "
                             f"{touch.nbytes} bytes.")
        if touch.ptr % touch.align:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"Tensor {touch.name}'s first element at 0x{touch.ptr:x} is not "
                             f"aligned to {touch.align} bytes, as its elements must be.")
    _record_blocks(plan, ctx)


def _record_blocks(plan: Plan, ctx: Context) -> None:
    """The live block of every range the plan touches (161002 for one outside any), its
    pointers and alignment already checked (by resolve_memory, or for the cached plan whose
    touches these are)."""
    alloc = ctx.backend.allocator
    generation = alloc.generation
    if plan.ranges is None:
        touches = tuple(t for t in plan.touches if t.nbytes > 0)
        plan.ranges = (touches, tuple((t.ptr, t.nbytes) for t in touches))
    touches, ranges = plan.ranges
    serials = alloc.block_ids(ranges)
    if None in serials:
        touch = touches[serials.index(None)]
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Tensor {touch.name}'s memory ({touch.nbytes} bytes at "
                         f"0x{touch.ptr:x}) is not inside one live allocation from "
                         f"acl.rt.malloc on the {ctx.backend.name} backend.")
    plan.memory = list(zip(touches, serials))
    plan.generation = generation


def check_still_live(plan: Plan, ctx: Context) -> None:
    """Before a run: every block the plan checked at phase one is still the same live block
    (cheap when nothing was freed since: the allocator's generation is unchanged)."""
    alloc = ctx.backend.allocator
    generation = alloc.generation
    if generation == plan.generation:
        return
    serials = alloc.block_ids([(t.ptr, t.nbytes) for t, _ in plan.memory])
    for (touch, serial), now in zip(plan.memory, serials):
        if now != serial:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"Tensor {touch.name}'s memory ({touch.nbytes} bytes at "
                             f"0x{touch.ptr:x}) was freed after the first phase; the executor "
                             f"would write memory it no longer owns. Rebind it "
                             f"(aclSetInputTensorAddr/aclSetOutputTensorAddr) or plan again.")
    plan.generation = generation


# Plans by everything they depend on (the operator, the context, every tensor's geometry and
# address, the attributes' values): a call seen before skips the checks and the planning, as
# CANN's aclnn cache does. Only successful plans are kept; each caller gets its own Plan
# (the launches are shared), with its memory checked live again.
PLAN_CACHE_SIZE = 512
_plan_cache: "OrderedDict[tuple, Plan]" = OrderedDict()
_plan_cache_lock = threading.Lock()


# Other plan caches over the same planners (the array API's, of the kernel families), emptied
# with this one.
_other_plan_caches: list[Callable[[], None]] = []


def also_clear(clear: Callable[[], None]) -> None:
    """Have clear_plan_cache call `clear` too (another cache of plans)."""
    _other_plan_caches.append(clear)


def clear_plan_cache() -> None:
    """Forget every cached plan (tests that patch the planners, or after changing them)."""
    with _plan_cache_lock:
        _plan_cache.clear()
    for clear in _other_plan_caches:
        clear()


GEOMETRY_CHANGED.append(clear_plan_cache)     # a backend's set_threads: plans shaped anew


_PLAIN_ATTRS = (bool, int, str, type(None))
_KEPT = (Tensor, IntArray, Scalar)   # handles that keep their own key (immutable)
_KEPT_EXACT = frozenset(_KEPT)


def _attr_key(value: Any) -> Any:
    """The plan-cache key of one argument: a tensor's, aclIntArray's or aclScalar's own (kept
    on the handle), else the attribute's value with its type. TypeError: no key (a
    destroyed handle, or a value of no cacheable kind: the full checks then report it)."""
    cls = value.__class__
    if cls in _KEPT or isinstance(value, _KEPT):
        key = value.plan_key
        if key is None:
            raise TypeError("not a cacheable argument")
        return key
    if cls in _PLAIN_ATTRS or isinstance(value, enum.Enum):
        return (cls, value)
    if isinstance(value, (bool, int, str)):    # their subclasses (IntEnum is caught above)
        return (cls, value)
    if isinstance(value, LayoutSpec):
        return ("LayoutSpec", value)
    raise TypeError("not a cacheable argument")


def _plan_key(op: OpDef, args: Sequence, ctx: Context) -> tuple | None:
    """The cache key of a call whose arguments are `args` in the canonical order (the inputs,
    the outputs, then the attributes in op.attr_names' order: `canonical`), or None when one
    has no key. A tensor's key starts with its class and an attribute's with its kind, so
    no argument's key equals another kind's. Hashable unless an attribute holds something
    unhashable (the lookup says so)."""
    try:
        # A handle of these exact classes keeps its key (a tensor's, in __dict__): read
        # inline, the rest through _attr_key; a destroyed handle's key is None.
        key = (id(op), ctx.plan_key,
               *[a.plan_key if a.__class__ in _KEPT_EXACT else _attr_key(a) for a in args])
    except TypeError:
        return None
    return None if None in key else key


def canonical(op: OpDef, ins: Sequence, outs: Sequence, attrs: dict[str, Any]) -> tuple | None:
    """A call's arguments in the plan key's order, or None when `attrs` does not name
    op.attr_names in their order (no key: the checks report what is wrong)."""
    if (len(ins), len(outs)) != op.arity or tuple(attrs) != op.attr_names:
        return None
    return (*ins, *outs, *attrs.values())


def prepare(op: OpDef, ins: Sequence[Tensor], outs: Sequence[Tensor], attrs: dict[str, Any],
            ctx: Context) -> Plan:
    """Phase one's work for any operator: CANN's checks, the checks every operator shares,
    the plan, and the memory it touches (from the plan cache for a call seen before). Raises
    AclnnError. The caller owns the Plan (an executor keeps it)."""
    return _planned(op, ins, outs, attrs, ctx, False)


def _planned(op: OpDef, ins: Sequence[Tensor], outs: Sequence[Tensor], attrs: dict[str, Any],
             ctx: Context, shared: bool, owned: bool = False) -> Plan:
    """prepare's work; `shared`: a plan from the cache is returned itself, not a copy (for a
    caller that executes it at once and keeps nothing: run); `owned`: see run."""
    args = canonical(op, ins, outs, attrs)
    if owned and shared and args is not None:
        return _planned_owned(op, args, len(ins) + len(outs), ctx)
    key = None if args is None else _plan_key(op, args, ctx)
    if key is not None:
        cached = _lookup(key, ctx, shared, owned)
        if cached is not None:
            return cached
    plan = _prepare(op, ins, outs, attrs, ctx)
    plan.op = op
    if key is not None:
        try:
            with _plan_cache_lock:
                _plan_cache[key] = plan
                if len(_plan_cache) > PLAN_CACHE_SIZE:
                    _plan_cache.popitem(last=False)
        except TypeError:               # an attribute's value is unhashable: not kept
            pass
    return plan


def _moved_plan(plan: Plan, launches: list[Launch]) -> Plan:
    """`plan` with its launches moved to another call's memory (ops._bindings): for run's
    owned calls with the sanitizer off, which read no touches (a moved plan has none)."""
    moved = object.__new__(Plan)
    moved.launches, moved.workspace_size, moved.op = launches, plan.workspace_size, plan.op
    moved.touches, moved.memory, moved.generation, moved.checked, moved.ranges = \
        [], [], -1, None, None
    return moved


# The eager layers' plans (run with owned=True, the sanitizer off), by geometry and moved to
# each call's addresses: a client's loop allocates new results every round.
_owned_plans = BoundPlans(lambda plan: plan.launches, _moved_plan)
also_clear(_owned_plans.clear)


def owned_key(op: OpDef, args: tuple, n: int, ctx: Context) -> tuple | None:
    """The key of a run(owned=True) call in the geometry-keyed cache: `args` canonical,
    their first `n` the tensors; None when one argument has none."""
    try:
        key = (id(op), ctx.plan_key,
               *[t.geometry_key if t.__class__ is Tensor else _attr_key(t) for t in args[:n]],
               *[a.plan_key if a.__class__ in _KEPT_EXACT else _attr_key(a) for a in args[n:]])
    except TypeError:
        return None
    return None if None in key else key


def _planned_owned(op: OpDef, args: tuple, n: int, ctx: Context) -> Plan:
    """_planned's work for run(owned=True) with the sanitizer off: `args` canonical, their
    first `n` the tensors."""
    key = owned_key(op, args, n, ctx)
    if key is None:
        return _prepare_planned(op, args, n, ctx)
    slots = [t if t.__class__ is Tensor else None for t in args[:n]]
    bases = tuple([0 if t is None else t.data for t in slots])
    plan = _owned_plans.get(key, slots, bases)
    if plan is None:
        plan = _prepare_planned(op, args, n, ctx)
        _owned_plans.put(key, slots, bases, plan)
    return plan


def run_bound(key: tuple, tensors: Sequence[Tensor], ctx: Context) -> Plan | None:
    """Run on the default stream the owned call whose owned_key is `key` on these tensors
    (all plain Tensors, in the canonical order), if its plan is cached: a front end that
    remembers the key of a call it repeats (the array API's binary functions) skips
    everything between it and the plan. The plan it ran (bound to these tensors' memory),
    or None, having done nothing, on a miss or with the sanitizer on: then take run."""
    if check.ON:
        return None
    plan = _owned_plans.get(key, tensors, tuple([t.data for t in tensors]))
    if plan is None:
        return None
    _run_plan(plan, ctx, None, True)
    return plan


def _prepare_planned(op: OpDef, args: tuple, n: int, ctx: Context) -> Plan:
    n_in = op.arity[0]
    plan = _prepare(op, args[:n_in], args[n_in:n], dict(zip(op.attr_names, args[n:])), ctx)
    plan.op = op
    return plan


def cached_plan(op: OpDef, args: tuple, ctx: Context) -> Plan | None:
    """prepare's result for a call seen before, from its arguments in the canonical order
    (the facade picks them so in one step); None on a miss: then call prepare."""
    key = _plan_key(op, args, ctx)
    return None if key is None else _lookup(key, ctx, False, False)


def _lookup(key: tuple, ctx: Context, shared: bool, owned: bool) -> Plan | None:
    """The cached plan of a key, its memory checked live now (unless `owned`: see run), or
    None on a miss. `shared`: the cache's own Plan, else the caller's own copy."""
    try:
        cached = _plan_cache.get(key)
    except TypeError:                   # an attribute's value is unhashable: no key
        return None
    if cached is None:
        return None
    try:
        # One C call, atomic under the GIL like the read above: no lock (a plan evicted
        # meanwhile by another thread is simply not moved).
        _plan_cache.move_to_end(key)
    except KeyError:
        pass
    # Its memory checked live now: the serials stand while nothing was freed since they were
    # taken (a serial changes only through a free); else they are taken again (161002 for a
    # range no longer inside a live block). The cache keeps the fresh serials, so the next
    # call of a loop that frees and allocates between calls finds them current.
    if not owned and cached.launches and cached.generation != ctx.backend.allocator.generation:
        _record_blocks(cached, ctx)
    return cached if shared else _copy(cached, cached.op)


def _copy(cached: Plan, op: OpDef) -> Plan:
    """A caller's own Plan of a cached one (the launches, workspace, touches and checked
    memory shared; the sanitizer's cache not)."""
    plan = object.__new__(Plan)    # the dataclass's __init__ and default factories: too slow here
    plan.launches, plan.workspace_size, plan.touches = cached.launches, cached.workspace_size, \
        cached.touches
    plan.op, plan.checked, plan.ranges = op, None, cached.ranges
    plan.memory, plan.generation = cached.memory, cached.generation
    return plan


def _prepare(op: OpDef, ins: Sequence[Tensor], outs: Sequence[Tensor], attrs: dict[str, Any],
             ctx: Context) -> Plan:
    op.check(tuple(ins), tuple(outs), attrs, ctx)
    named = list(zip(ins, op.input_names)) + list(zip(outs, op.output_names))
    for t, name in named:
        check_pointer(t, name)
        check_geometry(t, name)
    for t, name in zip(outs, op.output_names):
        check_no_internal_overlap(t, name)
    plan = op.plan(tuple(ins), tuple(outs), attrs, ctx)
    if plan.workspace_size > INT64_MAX:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"aclnn{op.name} would need {plan.workspace_size} bytes of workspace, "
                         f"more than int64 holds.")
    if plan.launches:
        resolve_memory(plan, ctx)
    return plan


def execute(plan: Plan, ctx: Context, stream: Stream | None, workspace: int = 0) -> None:
    """Enqueue a prepared plan on `stream` (None: the default stream) with its workspace at
    `workspace`: the one path of phase two and of the eager layers."""
    if not plan.launches:
        return
    check_still_live(plan, ctx)
    _enqueue(plan, ctx, stream, workspace)


def _enqueue(plan: Plan, ctx: Context, stream: Stream | None, workspace: int) -> None:
    if check.ON:
        check.hook.launch(plan, stream, workspace, ctx.backend)
    ctx.backend.enqueue(plan.launches, stream, workspace)


def run(op: OpDef, ins: Sequence[Tensor], outs: Sequence[Tensor], attrs: dict[str, Any],
        ctx: Context | None = None, stream: Stream | None = None, owned: bool = False) -> None:
    """Prepare and execute in one call, the workspace taken from the pool and given back in
    stream order (the eager layers: npu_emu.format_cast, cube_matmul, the array API).

    `owned`: the caller holds the memory of every tensor alive for the call (the array API,
    whose arrays own their storage, and whose tensors are views inside it by construction),
    so a cached plan's memory is not looked up again. The first call's plan had every check;
    a block freed since cannot be one of these tensors'. The C-style layer never passes it:
    its pointers are the user's."""
    ctx = ctx or current_context()
    # The cached plan itself, nothing copied (run keeps no plan), unless the sanitizer is on:
    # it keeps a cache of its own on each plan it sees.
    _run_plan(_planned(op, ins, outs, attrs, ctx, not check.ON, owned), ctx, stream, owned)


def _run_plan(plan: Plan, ctx: Context, stream: Stream | None, owned: bool) -> None:
    if not plan.launches:
        return
    go = _enqueue if owned else execute
    size = plan.workspace_size
    if not size:
        go(plan, ctx, stream, 0)
        return
    be = ctx.backend
    workspace = be.malloc(size)
    try:
        go(plan, ctx, stream, workspace)
    finally:
        be.free(workspace)


__all__ = ["ATTR", "Context", "IN", "INOUT", "OUT", "OpDef", "Param", "Plan", "Touch",
           "cached_plan", "canonical", "check_no_internal_overlap", "check_still_live", "current_context", "execute",
           "owned_key", "prepare", "run", "run_bound", "storage_touch", "view_touch"]
