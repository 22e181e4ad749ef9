"""Plans kept by geometry, bound to addresses per call: the plan cache of the eager layers.

A plan's launches depend on its tensors' geometry, their dtypes and formats, and of their
addresses only on (a) where each pointer argument points and (b) what the planner read of the
addresses: alignment (never more than `base.ALIGN` bytes: vector runs of 16 bytes, element
alignment), null or not, which tensors share memory and whether views overlap. So a plan made
for one call serves any later call whose tensors have the same geometry and the same of (b),
its pointer arguments (`base.Pointer`, made only by `kernels.copy.pointer_arg`) moved by the
difference of the bases. A client's loop allocates new results each round: keyed by address,
as the C-style layer's plan cache is, nearly every call of it missed.

Where a plan cannot be moved -- a pointer argument outside every tensor's memory, or tensors
of different bases whose memory overlaps -- it is kept for its exact addresses only. A call
with tensors of different bases whose memory overlaps is never served a moved plan: the
planner's staging decisions read such overlaps.

Used by the eager layers only (`ops._core.run(owned=True)` and the array API's kernel
families), with the sanitizer off: their tensors are views into memory their arrays own, so
the live-memory checks of the C-style layer's cache are not needed (see run). The C-style
layer keeps its address-keyed cache: its pointers are the user's.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Sequence

from ..runtime.base import ALIGN, Launch, Pointer
from ..tensor import Tensor

KEPT = 512            # geometries kept, least recently used out first
BINDINGS_KEPT = 256   # addresses kept per geometry (a loop cycles through its results')
BOUND_KEPT = 4096     # addresses kept in all

# moves[k] = ((argument position, tensor index, byte offset from its base), ...) of launch k
Moves = tuple[tuple[tuple[int, int, int], ...], ...]


def signature(bases: tuple) -> tuple:
    """What a planner may read of the addresses `bases`: each one's offset in an ALIGN block
    (or -1 for null), and which earlier tensor, if any, has the same base."""
    return (tuple([b % ALIGN if b else -1 for b in bases]),
            tuple([bases.index(b) for b in bases]))


def spans(tensors: Sequence[Tensor | None]) -> list[tuple[int, int]] | None:
    """Each tensor's storage as (first byte, one past its last byte); (0, 0) for a slot
    without a tensor; None when a dtype has no per-element storage (such a plan is kept for
    its exact addresses)."""
    try:
        return [(0, 0) if t is None else (t.data, t.data + t.storage_nbytes) for t in tensors]
    except Exception:
        return None


def disjoint(ranges: Sequence[tuple[int, int]], bases: tuple) -> bool:
    """Whether the storages of tensors with different bases share no byte."""
    distinct = sorted({r for r, b in zip(ranges, bases) if b and r[1] > r[0]})
    for k in range(1, len(distinct)):
        if distinct[k - 1][1] > distinct[k][0]:
            return False
    return True


def moves_of(launches: Sequence[Launch], ranges: Sequence[tuple[int, int]]) -> Moves | None:
    """Where each pointer argument of `launches` points, as (tensor, offset), or None when
    one points outside every tensor's storage (its end included: an empty tail's address)."""
    out = []
    for launch in launches:
        moves = []
        for pos, a in enumerate(launch.args):
            if a.__class__ is Pointer:
                p = int(a)
                for i, (lo, hi) in enumerate(ranges):
                    if lo <= p <= hi and hi > lo:
                        moves.append((pos, i, p - lo))
                        break
                else:
                    return None
        out.append(tuple(moves))
    return tuple(out)


def moved(launches: Sequence[Launch], moves: Moves, bases: tuple) -> list[Launch]:
    """`launches` with their pointer arguments at `bases` (a launch with none: itself, its
    packed form shared)."""
    out = []
    for launch, m in zip(launches, moves):
        if not m:
            out.append(launch)
            continue
        args = list(launch.args)
        for pos, i, offset in m:
            args[pos] = Pointer(bases[i] + offset)
        out.append(Launch(launch.kernel, launch.grid, launch.block, tuple(args),
                          origin=launch.origin or launch))
    return out


class _Form:
    """One signature's plan and how to move it (None: kept for its exact addresses)."""
    __slots__ = ("plan", "moves")

    def __init__(self, plan: Any, moves: Moves | None) -> None:
        self.plan, self.moves = plan, moves


class _Entry:
    __slots__ = ("bound", "forms")

    def __init__(self) -> None:
        self.bound: dict[tuple, Any] = {}     # bases -> plan bound there
        self.forms: dict[tuple, _Form] = {}   # signature -> the plan to move


class BoundPlans:
    """Plans by a geometry key (the caller's: everything the plan depends on but the
    addresses) and by the bases of the call's tensors. `launches_of(plan)` and
    `with_launches(plan, launches)` (a plan like `plan` with those launches) let it move
    plans of any kind."""

    def __init__(self, launches_of: Callable[[Any], Sequence[Launch]],
                 with_launches: Callable[[Any, list[Launch]], Any]) -> None:
        self._entries: "OrderedDict[tuple, _Entry]" = OrderedDict()
        self._bound = 0                   # addresses kept in all
        self._lock = threading.Lock()
        self._launches_of, self._with_launches = launches_of, with_launches

    def get(self, key: tuple, tensors: Sequence[Tensor | None], bases: tuple) -> Any:
        """The plan for these tensors at `bases` (their data pointers), moved from another
        call of the same geometry if need be, or None (plan it, then `put`)."""
        try:
            entry = self._entries.get(key)
        except TypeError:                 # an attribute that is not hashable: no cache
            return None
        if entry is None:
            return None
        try:
            self._entries.move_to_end(key)
        except KeyError:                  # evicted meanwhile by another thread
            pass
        plan = entry.bound.get(bases)
        if plan is not None:
            return plan
        form = entry.forms.get(signature(bases))
        if form is None or form.moves is None:
            return None
        ranges = spans(tensors)
        if ranges is None or not disjoint(ranges, bases):
            return None
        plan = self._with_launches(form.plan, moved(self._launches_of(form.plan), form.moves,
                                                    bases))
        self._bind(entry, bases, plan)
        return plan

    def put(self, key: tuple, tensors: Sequence[Tensor | None], bases: tuple, plan: Any) -> None:
        """Keep `plan`, made for these tensors at `bases`."""
        ranges = spans(tensors)
        moves = None
        if ranges is not None and disjoint(ranges, bases):
            moves = moves_of(self._launches_of(plan), ranges)
        with self._lock:
            try:
                entry = self._entries.get(key)
            except TypeError:
                return
            if entry is None:
                entry = self._entries[key] = _Entry()
            sig = signature(bases)
            if moves is not None or sig not in entry.forms:
                entry.forms[sig] = _Form(plan, moves)
            self._bind(entry, bases, plan)

    def _bind(self, entry: _Entry, bases: tuple, plan: Any) -> None:
        """Keep `plan` for `bases` in `entry`, within BINDINGS_KEPT there, and within KEPT
        geometries and BOUND_KEPT addresses in all (the least recently used out first).
        The count is approximate under threads: it only bounds memory."""
        bound = entry.bound
        if bases not in bound:
            self._bound += 1
        bound[bases] = plan
        while len(bound) > BINDINGS_KEPT:
            try:
                del bound[next(iter(bound))]
                self._bound -= 1
            except (KeyError, StopIteration, RuntimeError):   # another thread trimmed it
                break
        entries = self._entries
        while (len(entries) > KEPT or self._bound > BOUND_KEPT) and len(entries) > 1:
            try:
                _, old = entries.popitem(last=False)
            except KeyError:
                break
            self._bound -= len(old.bound)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bound = 0

    def __len__(self) -> int:
        return len(self._entries)
