"""Repeated calls: the short way of an eager function called again on operands of the same
geometry (a client's loop).

An elementwise function or a reduction decides everything before its plan -- the operands'
checks, the promotion, our operator or kernel, the result's shape and dtype, the plan's key
-- from its operands' geometry (dtype included), its parameters and the context. When the
full path ran one launch of our operator or of one of our kernel families on the operands as
they are, it remembers (`remember_operator`, `remember_family`) what it decided, by those
values; a later call with the same ones (`short_way`) goes from here to the result's
allocation and the cached plan (ops._core.run_bound, kernel.launch_cached), the plan moved
to the call's memory. On a plan miss (the plan cache was cleared, or the plan was kept for
its exact addresses only) it takes the full path, which remembers again. matmul on the
backend's library (float64, integers, complex) remembers its library call the same way
(`remember_library`): a later call makes the same call into a new result.

A Python bool, int or float operand is keyed by its type and bits (`scalars.bits_key`): the
shared 0-d constant that stood for it is kept with the entry. The context (backend, SoC, rule
set) is kept with the entry: a reused id does not match. Refusals are never remembered; they
raise from the full path every time.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

from ... import check
from ...ops._core import Context, also_clear, canonical, owned_key, run_bound
from ...runtime.base import Backend
from .array import Array, Fresh
from .device import synchronize
from .dtypes import ON_SWITCH
from .kernel import context, family_key, launch_cached
from .library import own_reduce, reduce_call
from .scalars import PyScalar, bits_key

_CALLS: dict[tuple, tuple] = {}
CALLS_KEPT = 4096
# Launches kept per call, by their arrays' addresses (_Known.bound): a loop may make the same
# call at several places a round (scikit-learn's logistic loss: five `where`s of one
# geometry), each at its own addresses.
BOUND_KEPT = 16
also_clear(_CALLS.clear)     # with the plans they lead to
ON_SWITCH.append(_CALLS.clear)   # and when the default dtypes change (a call's result dtype)
_FAST_SCALARS = (bool, int, float)
_INTO = "="     # the key's name of an in-place call (x op= y): its result is x, not a new array
# An array's base address and whether its memory is shared, read in C (no Python frame).
_DATA, _SHARED = operator.attrgetter("_t.data"), operator.attrgetter("_st.shared")


def typed(value: object) -> object:
    """A parameter's value for a call's key (`params`), with its type at every level: True
    apart from 1, 1 from 1.0."""
    if value.__class__ is tuple:
        return tuple([typed(v) for v in value])
    return (value.__class__, value)


def short_way(name: str, *xs: object, params: tuple = (), into: Array | None = None
              ) -> tuple[Array | None, tuple | None]:
    """(the result of a repeated call, or None; the call's key for remember_*, or None when
    it has none). A call has a key when its operands are arrays of one backend with no
    reversed axis and no private layout, or such arrays and Python bools, ints or floats (at
    least one array); `params`: its other parameters, hashable. `into`: an in-place call's x
    (its result; short_way_into)."""
    parts: list[Any] = [name, params]
    array = None
    for x in xs:
        cls = x.__class__
        if cls is Array:
            if x._flip is not None or x._layout is not None or (
                    array is not None and x._st.backend is not array._st.backend):
                return None, None
            array = x
            parts.append(x._t.geometry_id)
        elif cls in _FAST_SCALARS:
            parts.append((cls, bits_key(x)))
        else:
            return None, None
    if array is None:
        return None, None
    be = array._st.backend
    ctx = context(be)
    parts.append(id(ctx))
    key = tuple(parts)
    try:
        known = _CALLS.get(key)
    except TypeError:                # a parameter that is not hashable: no short way
        return None, None
    if known is None or known.ctx is not ctx:
        return None, key
    return _repeat(known, xs, be, ctx, into), key


def short_way_into(name: str, x: Array, other: object) -> tuple[bool, tuple | None]:
    """x (name)= other by the short way: (whether it ran, the call's key for remember_*, or
    None when it has none). The caller has checked that x is writable."""
    out, key = short_way(_INTO + name, x, other, into=x)
    return out is not None, key


class _Known:
    """What the full path decided for a call: its context, where the result goes among the
    arrays of a kernel family's plan (`at`; None: our operator's plan), the plan's key
    (None for a call of the backend's library: `library`, which makes it into a new out),
    the result's shape and dtype (`fresh`), the shared constants of its scalar operands
    (None: no scalar operand); and `bound`: the launches it ran, by the addresses of its
    arrays in the plan's order, in up to BOUND_KEPT of its calls at other addresses that
    needed no workspace (one more set of addresses starts the collection over). A call whose arrays are at the same addresses as one of those runs its
    launches again as they are: a client's loop, whose results the pool hands out at the
    same few addresses each round (a result kept alive moves the next one elsewhere:
    scikit-learn's LogisticRegression alternates between two or three)."""

    __slots__ = ("ctx", "at", "plan_key", "fresh", "constants", "bound", "library")

    def __init__(self, ctx: Context, at: int | None, plan_key: tuple | None, out: Array,
                 constants: tuple | None,
                 library: Callable[[list[Array], Array], None] | None = None) -> None:
        self.ctx, self.at, self.plan_key, self.constants = ctx, at, plan_key, constants
        self.fresh = Fresh(out)
        self.bound: dict[tuple, list] = {}
        self.library = library


def _keep(key: tuple, entry: _Known) -> None:
    if len(_CALLS) >= CALLS_KEPT:      # contexts made on the fly: start over
        _CALLS.clear()
    _CALLS[key] = entry


def _constants(ops: Sequence[Array | PyScalar], arrays: Sequence[Array]) -> tuple | None:
    """For each operand, the 0-d constant that stood for it (None for an array); None when
    every operand is an array."""
    constants = tuple(x if not isinstance(o, Array) else None for o, x in zip(ops, arrays))
    return None if constants.count(None) == len(constants) else constants


def remember_operator(key: tuple, ctx: Context, chosen: tuple, ops: Sequence[Array | PyScalar],
                      arrays: Sequence[Array], out: Array) -> None:
    """The full path ran our operator chosen = (op, attrs) on `arrays` (the operands as
    arrays) into out."""
    op, attrs = chosen
    if op.arity != (len(arrays), 1):
        return
    args = canonical(op, tuple(x._t for x in arrays), (out._t,), attrs)
    plan_key = None if args is None else owned_key(op, args, len(arrays) + 1, ctx)
    if plan_key is not None:
        _keep(key, _Known(ctx, None, plan_key, out, _constants(ops, arrays)))


def remember_family(key: tuple, ctx: Context, call: tuple, ops: Sequence[Array | PyScalar],
                    arrays: Sequence[Array], out: Array, at: int) -> None:
    """The full path ran one plan of a kernel family's `call` on `arrays` as they are, with
    out at position `at` among its arrays (kernel.family_plan's order)."""
    if out._flip is not None:
        return
    order = [*arrays]
    order.insert(at, out)
    _keep(key, _Known(ctx, at, family_key(call, order, out._st.backend), out,
                      _constants(ops, arrays)))


def remember_reduction(key: tuple | None, fname: str, x: Array, src: Array, out: Array,
                       axes: tuple[int, ...], keepdims: bool, **extra: object) -> None:
    """The full path reduced `src` (x, or x converted) into out by library.reduce_into(fname,
    ...): when that was one launch of our reduce kernel on x as it is, remember it."""
    if key is None or src is not x:
        return
    own = own_reduce(fname, src, out, axes, keepdims, **extra)
    if own is not None and own[0] == x._t.dtype:
        remember_family(key, context(x._st.backend), reduce_call(
            fname, own[0], axes if keepdims else (), axes, own[1]), [x], [x], out, 1)


def remember_library(key: tuple, ctx: Context, out: Array,
                     library: Callable[[list[Array], Array], None]) -> None:
    """The full path made `out` by one call of the backend's library on the operands (all
    arrays) as they are: `library(operands, out)` makes the same call into another out."""
    _keep(key, _Known(ctx, None, None, out, None, library))


def _repeat(known: _Known, xs: Sequence[object], be: Backend, ctx: Context,
            out: Array | None = None) -> Array | None:
    """A call of the entry `known` again (into `out`, an in-place call's x, else into a new
    array), or None when its plan is no longer cached."""
    constants = known.constants
    arrays = list(xs) if constants is None else [x if c is None else c
                                                   for x, c in zip(xs, constants)]
    if out is None:
        out = known.fresh.new(be)
    if known.library is not None:
        known.library(arrays, out)
        return out
    at = known.at
    if at is None:
        arrays.append(out)
    else:
        arrays.insert(at, out)
    bases = tuple(map(_DATA, arrays))
    launches = known.bound.get(bases)
    if launches is not None and not check.ON:
        be.enqueue(launches, None, 0)            # an earlier call's launches, bound here
    else:
        if at is None:                           # our operator
            plan = run_bound(known.plan_key, [x._t for x in arrays], ctx)
            ran = None if plan is None else (plan.launches, plan.workspace_size)
        else:
            ran = launch_cached(known.plan_key, arrays, be)
        if ran is None:
            return None
        if ran[0] and not ran[1]:                # no workspace: kept to run again as they are
            bound = known.bound
            if len(bound) >= BOUND_KEPT:         # more sets than that: start over (clear()
                bound.clear()                    # is one step, safe beside another thread)
            bound[bases] = ran[0]
    if be.is_cpu and any(map(_SHARED, arrays)):
        synchronize(be)
    return out
