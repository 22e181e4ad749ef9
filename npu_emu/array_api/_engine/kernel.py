"""The kernel path: the array API's calls into the operator core: each eager operation is one
`npu_emu.ops._core.run` in a Context of the array's backend, the current SoC and the
"array_api" rule set, its outputs allocated from the pool with the shape and dtype the
operator's `infer` gives. Errors of the core (AclnnError, also a TypeError / ValueError /
RuntimeError / MemoryError) pass through unchanged.

Also here, because several operations share it: writing a source into an array's view
(InplaceCopy: broadcast, then converted to the destination's dtype), and the choice of our
operator for an elementwise function, which the operator answers (OpDef.supports).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import numpy as np

from ...arch import current_soc
from ...dtypes import COMPLEX, INFO, RULE_SETS, UNSIGNED, aclDataType as DT
from ...ops._checks import MAX_DIMS
from ...ops._bindings import BoundPlans
from ...ops._core import (Context, OpDef, also_clear, check_no_internal_overlap, context_of,
                          run)
from ...ops.add import ADD, INPLACE_ADD
from ...ops.inplace_copy import INPLACE_COPY
from ...ops.mul import INPLACE_MUL, MUL
from ...kernels import select as select_family
from ...kernels.copy import View
from ...runtime.base import Backend, Launch
from ...tensor import Scalar, Tensor, make_scalar
from .array import Array, empty_array, result_array
from .device import library_order, synchronize
from .views import aligned, basic_view, broadcast_view, flip_axes

RULES = RULE_SETS["array_api"]


# The last context made, with its backend and SoC: a repeated call asks for the same one.
_last_context: tuple[Backend | None, object, Context | None] = (None, None, None)


def context(be: Backend) -> Context:
    """The array API's context on `be` (its rule set, the SoC selected now)."""
    global _last_context
    soc = current_soc()
    last = _last_context
    if last[0] is be and last[1] is soc:
        return last[2]
    ctx = context_of(be, soc, RULES)
    _last_context = (be, soc, ctx)
    return ctx


def check_writable(x: Array, what: str = "the destination") -> None:
    if x._st.readonly:
        raise ValueError(f"{what} is read-only (imported read-only memory); copy it first "
                         f"(asarray(x, copy=True))")


def check_library_destination(x: Array, name: str = "x") -> None:
    """What the operator core checks of an output, for a write by the backend library: not
    read-only, and no two elements at one address (a broadcast view)."""
    check_writable(x, name)
    check_no_internal_overlap(x._t, name)


def call(op: OpDef, ins: Sequence[Tensor], outs: Sequence[Array], attrs: dict[str, Any],
         be: Backend, touched: Sequence[Array] = (), ctx: Context | None = None) -> None:
    """One run of `op` on the default stream. When a user can reach any of the memory
    (`touched` and `outs`: imported or exported storage) on the cpu backend, the work is
    finished before returning, since the other side may read or free it at once."""
    for o in outs:
        if o._st.readonly:
            check_writable(o)
    # owned: our arrays hold their memory (the plan cache need not look it up again)
    run(op, ins, [o._t for o in outs], attrs, ctx or context(be), owned=True)
    if be.is_cpu and _any_shared(touched, outs):
        synchronize(be)


def _any_shared(*groups: Sequence[Array]) -> bool:
    for group in groups:
        for x in group:
            if x._st.shared:
                return True
    return False


def call_new(op: OpDef, inputs: Sequence[Array], attrs: dict[str, Any],
             ctx: Context | None = None, elementwise: bool = False) -> Array:
    """Run `op` on `inputs` into a new array shaped and typed by the op's infer (in `ctx`,
    default the context of the inputs' backend); `elementwise`: laid out in the inputs'
    order of their own (result_array), else row-major."""
    be = inputs[0]._st.backend
    ctx = ctx or context(be)
    ins = tuple(map(Array._kernel_tensor, inputs))
    shape, dtype = op.infer(ins, attrs, ctx)
    # our own block: writable, not shared
    out = result_array(shape, dtype, be, inputs) if elementwise else empty_array(shape, dtype, be)
    run(op, ins, (out._t,), attrs, ctx, owned=True)
    if be.is_cpu and _any_shared(inputs):
        synchronize(be)
    return out


def kernel_view(x: Array, drop: Sequence[int] = ()) -> View:
    """x's elements as a kernel family's plan takes them: the address of element 0 and the
    signed strides (reversed axes included), without the dims in `drop`."""
    shape, strides, _ = x._signed()
    keep = [k for k in range(len(shape)) if k not in drop]
    return View(x._ptr0(), tuple(shape[k] for k in keep), tuple(strides[k] for k in keep),
                x._t.itemsize)


# Plans of our kernel families (ufunc, reduce) by what they depend on: the family's call (its
# name and parameters), every array's view (geometry, dtype, reversed axes, and of its address
# what ops._bindings reads) and the backend with its thread count (the grids follow it), each
# plan moved to the call's addresses. A repeated call, as in a client's loop, skips the
# planning (a tiny call's largest host cost), as the operators' plan cache does for theirs.
def _launches_of(entry: tuple) -> Sequence[Launch]:
    plan = entry[1]
    return plan if isinstance(plan, list) else plan.launches


def _with_launches(entry: tuple, launches: list[Launch]) -> tuple:
    be, plan = entry
    return be, (launches if isinstance(plan, list) else dataclasses.replace(plan, launches=launches))


_family_plans = BoundPlans(_launches_of, _with_launches)


def family_key(call: tuple, arrays: Sequence[Array], be: Backend) -> tuple:
    """The cache key of a kernel family's plan of `call` on `arrays` (by geometry)."""
    return (call, id(be), be.parallelism, tuple([(x._t.geometry_key, x._flip) for x in arrays]))


def family_plan(call: tuple, arrays: Sequence[Array], be: Backend, make: Callable[[], Any]) -> Any:
    """make() (a kernel family's plan for `arrays`, of the family's `call`: a tuple of
    immutable values; a list of launches, or an object with `launches`), or the plan it gave
    for the same call on views of the same geometry before, moved to these arrays' memory."""
    key = family_key(call, arrays, be)
    plan = _cached_family_plan(key, arrays, be)
    if plan is None:
        plan = make()
        tensors = [x._t for x in arrays]
        _family_plans.put(key, tensors, tuple([t.data for t in tensors]), (be, plan))
    return plan


def _cached_family_plan(key: tuple, arrays: Sequence[Array], be: Backend) -> Any:
    tensors = [x._t for x in arrays]
    found = _family_plans.get(key, tensors, tuple([t.data for t in tensors]))
    # the backend is kept with the plan: its id stays its own
    return found[1] if found is not None and found[0] is be else None


def launch_cached(key: tuple, arrays: Sequence[Array], be: Backend) -> tuple[list, int] | None:
    """Launch the plan cached under family_key `key` for `arrays` (a front end that
    remembers the key of a call it repeats: array_api._engine.repeat): (its launches, bound
    to these arrays' memory, and its workspace size), or None, having done nothing, on a
    miss."""
    plan = _cached_family_plan(key, arrays, be)
    if plan is None:
        return None
    launches, size = (plan, 0) if isinstance(plan, list) else (plan.launches, plan.workspace_size)
    launch(be, launches, arrays, size)
    return launches, size


def clear_family_plans() -> None:
    """Forget the kernel families' cached plans (tests that patch the planners; also done
    by npu_emu.ops._core.clear_plan_cache)."""
    _family_plans.clear()


also_clear(clear_family_plans)


def launch(be: Backend, launches: Sequence[Launch], touched: Sequence[Array],
           workspace_size: int = 0) -> None:
    """Launches of our kernel families (ufunc, reduce) on the default stream, the workspace
    from the pool, given back in stream order; finished before returning where a user can
    reach the memory on the cpu backend (as `call`)."""
    if not launches:
        return
    workspace = be.malloc(workspace_size) if workspace_size else 0
    try:
        be.enqueue(list(launches), be.default_stream, workspace)
    finally:
        if workspace:
            be.free(workspace)
    if be.is_cpu and any(x._st.shared for x in touched):
        synchronize(be)


# ----------------------------------------------------------------- where

SELECT = ("select",)   # the select family's call (family_plan's key; one kernel per width)


def select(cond: Array, x1: Array, x2: Array, shape: tuple[int, ...],
           out: Array | None = None) -> Array | None:
    """where(cond, x1, x2) into a new array of x1's dtype and `shape` (the three broadcast
    together; laid out as result_array lays out an elementwise result), or into `out` (of
    that shape and dtype; an operand may be out's very view, no other overlap), by our select
    kernel: cond bool, x1 and x2 of one dtype, no private layout. None, having done
    nothing, past the kernels' MAX_DIMS (the caller takes the library)."""
    if len(shape) > MAX_DIMS:
        return None
    be = x1._st.backend
    if out is None:
        out = result_array(shape, x1._t.dtype, be, (cond, x1, x2))
    if out.size == 0:
        return out
    arrays = [out, cond, x1, x2]
    launches = family_plan(SELECT, arrays, be, lambda: select_family.plan(
        be, kernel_view(out), kernel_view(cond), kernel_view(x1), kernel_view(x2)))
    launch(be, launches, arrays)
    return out


# ----------------------------------------------------------------- InplaceCopy

def assign(dst: Array, src: Array) -> None:
    """dst[...] = src through InplaceCopy: src broadcast to dst's shape, then converted to
    dst's dtype (any pair of InplaceCopy's list), written into dst's view in one launch."""
    check_writable(dst)
    if src._st.backend is not dst._st.backend:
        raise ValueError(f"the value is on {src.device}, the destination on {dst.device}")
    be = dst._st.backend
    if (INFO[dst._t.dtype].kind == COMPLEX and INFO[src._t.dtype].kind == COMPLEX
            and not dst._t.is_contiguous()):
        # Note: InplaceCopy refuses complex -> complex into a non-contiguous view
        # (docs/operators.md#aclnninplacecopy): convert first (contiguous), then the backend
        # library moves the bits.
        check_library_destination(dst, "dst")
        if src._t.dtype != dst._t.dtype:
            src = convert(src, dst._t.dtype)
        with library_order(be):
            dst._raw()[...] = src._raw()
        return
    d, s = aligned(dst, src)
    call(INPLACE_COPY, (s._kernel_tensor(),), (d,), {}, be, (src,))


def convert(x: Array, dtype: DT, keep_order: bool = False) -> Array:
    """x in `dtype`, a new contiguous array (InplaceCopy converts any pair of its list):
    row-major, or with `keep_order` in x's own order of axes (result_array) and with its
    reversed axes kept as a view (the elements converted in their memory order: InplaceCopy
    takes no reversed view, which would be copied first)."""
    if keep_order and x._flip is not None:
        axes = [k for k, f in enumerate(x._flip) if f]
        return flip_axes(convert(flip_axes(x, axes), dtype, keep_order=True), axes)
    be = x._st.backend
    out = result_array(x.shape, dtype, be, (x,)) if keep_order else empty_array(x.shape, dtype, be)
    assign(out, x)
    return out


def copy(x: Array, keep_order: bool = False) -> Array:
    """A contiguous copy of x (one strided-copy launch; the library copies reversed views):
    row-major, or with `keep_order` in x's own order of axes (convert)."""
    if x._flip is not None:
        return x._materialized()
    return convert(x, x._t.dtype, keep_order)


def along(x: Array, axis: int, index: int | slice) -> Array:
    """x[:, ..., index] with `index` at `axis` (a view)."""
    return x._view(*basic_view(*x._signed(), (slice(None),) * axis + (index,)))


def _merged(dst: Array, src: Array) -> tuple[Array, Array]:
    """(dst, src) of one shape over the same elements with fewer dims: size-1 dims dropped,
    neighbours merged where both views continue one into the other."""
    shape, ds, doff = dst._signed()
    _, ss, soff = src._signed()
    sizes: list[int] = []
    dst_strides: list[int] = []
    src_strides: list[int] = []
    for n, a, b in zip(shape, ds, ss):
        if n == 1:
            continue
        if sizes and dst_strides[-1] == a * n and src_strides[-1] == b * n:
            sizes[-1] *= n
            dst_strides[-1], src_strides[-1] = a, b
            continue
        sizes.append(n)
        dst_strides.append(a)
        src_strides.append(b)
    return dst._view(sizes, dst_strides, doff), src._view(sizes, src_strides, soff)


def copy_into(dst: Array, src: Array) -> None:
    """dst[...] = src (broadcast, converted to dst's dtype) by InplaceCopy: one launch, or
    one per leading index where the views keep more dims than the operator takes (8)."""
    if dst.size == 0:
        return
    if src.shape != dst.shape:
        src = broadcast_view(src, dst.shape)
    if dst.ndim > MAX_DIMS:
        dst, src = _merged(dst, src)
    if dst.ndim > MAX_DIMS:
        for i in range(dst.shape[0]):
            copy_into(along(dst, 0, i), along(src, 0, i))
        return
    assign(dst, src)


# ------------------------------------------------- our operators for elementwise functions

_ALPHA: dict[tuple[int, DT], Scalar] = {}


def alpha(value: int, dtype: DT) -> Scalar:
    """aclnnAdd's alpha in the computed dtype (so the rule set's cast check holds); -1 for an
    unsigned type is its modular equivalent, 2^bits - 1 (x + (2^bits - 1) y wraps to x - y)."""
    key = (value, dtype)
    found = _ALPHA.get(key)
    if found is None:
        v = value
        if value < 0 and INFO[dtype].kind == UNSIGNED:
            v = int(np.iinfo(INFO[dtype].storage).max) + 1 + value
        found = _ALPHA[key] = make_scalar(v, dtype)
    return found


# kernel name of an elementwise function -> (operator, in-place operator, alpha or None);
# subtract is Add with alpha -1.
_BINARY_OPERATORS = {"add": (ADD, INPLACE_ADD, 1), "subtract": (ADD, INPLACE_ADD, -1),
                     "multiply": (MUL, INPLACE_MUL, None)}
# Where x + alpha * y is not x - y bit for bit: a complex alpha multiplies both parts of y
# (-1 * (c + dj) = (-c - 0 d) + (-d + 0 c) j), so an infinite part makes the other NaN and
# zeros lose their signs ((1 - 0j) - (5 + 0j) would be -4 + 0j). The standard's subtract is
# componentwise: those take our ufunc kernel.


# The answers of binary_operator, by everything they depend on (immutable: the function, the
# dtypes, in place or not, and the context, whose SoC and rule set decide `supports`): keyed
# by the context's id, the context kept with the answer (an id reused by a later context
# does not match it).
_CHOSEN: dict[tuple, tuple[Context, tuple[OpDef, dict[str, Any]] | None]] = {}


def binary_operator(kernel: str | None, dtypes: tuple[DT, DT], compute: DT, be: Backend,
                    inplace: bool = False,
                    ctx: Context | None = None) -> tuple[OpDef, dict[str, Any]] | None:
    """Our operator (and its attrs) for an elementwise binary function on inputs of `dtypes`
    computed in `compute`, when the operator supports them in `ctx` (default: `be`'s context
    now); None: the function takes the library path. The attrs dict is shared: callers only
    read it."""
    if kernel is None:
        return None
    ctx = ctx or context(be)
    key = (kernel, dtypes, compute, inplace, id(ctx))
    known = _CHOSEN.get(key)
    if known is not None and known[0] is ctx:
        return known[1]
    op, inplace_op, a = _BINARY_OPERATORS[kernel]
    chosen = inplace_op if inplace else op
    if a == -1 and INFO[compute].kind == COMPLEX or \
            not chosen.supports(dtypes, ctx, {} if a is None else {"alpha": a}):
        found = None
    else:
        found = chosen, ({} if a is None else {"alpha": alpha(a, compute)})
    if len(_CHOSEN) > 4096:          # contexts made on the fly: start over
        _CHOSEN.clear()
    _CHOSEN[key] = (ctx, found)
    return found
