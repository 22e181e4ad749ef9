"""Manipulation functions.

Views of the same memory (no kernel runs): broadcast_to, broadcast_arrays, reshape (a copy
only when no view exists), permute_dims, moveaxis, squeeze, expand_dims, flip (reversed
axes, as NumPy's flip), unstack. CANN's materializing Expand is `expand` in _npu.py.

Data movement through our strided-copy kernels (InplaceCopy into views of a new output, one
launch per piece, promotion and conversion included): concat and stack (a piece per input),
roll (a piece per combination of the two halves of each rolled axis), tile and repeat with
an int (one launch: the output seen as (repetition, element) pairs, the input broadcast
over the repetitions). repeat with an array of counts is index math on the backend's library.

clip (the standard lists it with the elementwise functions) selects between x and its bounds
on the backend's library, in the NPU's computation type.
"""
from __future__ import annotations

import itertools
import math
import operator
from typing import Sequence

import numpy as np

from ..dtypes import FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT
from ..ops._checks import broadcast_shapes as _broadcast_two
from ..status import AclnnError
from ._engine.args import array_arg, axes_arg, axis_arg, shape_arg
from ._engine.array import Array, empty_array, is_scalar, standard_sequence
from ._engine.kernel import along, convert, copy as copy_array, copy_into
from ._engine.library import computing, raw_result
from ._engine.scalars import promote
from ._engine.ufunc import binary, clip as fused_clip
from ._engine.views import broadcast_view, flip_axes


def _arrays(arrays: object, fname: str) -> list[Array]:
    """A non-empty tuple or list of arrays on one device."""
    if isinstance(arrays, Array) or not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{fname} takes a tuple or list of arrays, not "
                        f"{type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{fname} needs at least one array")
    xs = [array_arg("", a, f"arrays[{i}]") for i, a in enumerate(arrays)]
    for i, a in enumerate(xs[1:], 1):
        if a._st.backend is not xs[0]._st.backend:
            raise ValueError(f"{fname}: arrays[{i}] is on {a.device}, arrays[0] on "
                             f"{xs[0].device}")
    return xs


def _common_dtype(fname: str, xs: Sequence[Array]) -> DT:
    dt = xs[0]._t.dtype
    for x in xs[1:]:
        dt = promote(fname, dt, x._t.dtype)
    return dt


# ----------------------------------------------------------------- copies


def broadcast_to(x: Array, /, shape: Sequence[int]) -> Array:
    """x broadcast to `shape` as a view (stride 0 on the stretched dims; docs/views.md#broadcasting).
    Write into a copy of it, not into it: its elements share memory."""
    return broadcast_view(array_arg("", x), shape_arg(shape))


def broadcast_arrays(*arrays: Array) -> list[Array] | tuple[Array, ...]:
    """The arrays broadcast to their common shape, as views (a list; a tuple under the
    2025.12 standard)."""
    for i, a in enumerate(arrays):
        array_arg("", a, f"arrays[{i}]")
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return standard_sequence([broadcast_view(a, shape) for a in arrays])


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape the given shapes broadcast to (the standard's rule: right-aligned, a 1
    stretches); ValueError when two do not broadcast. (2025.12)"""
    out: tuple[int, ...] = ()
    for i, s in enumerate(shapes):
        try:
            out = _broadcast_two(out, shape_arg(s, f"shapes[{i}]"), "the broadcast shape",
                                 f"shapes[{i}]")
        except AclnnError as err:   # say it the way array libraries do, then CANN's words
            raise AclnnError(err.code, f"shapes {tuple(tuple(x) for x in shapes)} cannot be "
                                       f"broadcast together: {err.message}", ValueError) from None
    return out


def permute_dims(x: Array, /, axes: Sequence[int]) -> Array:
    x = array_arg("", x)
    perm = [axis_arg(a, x.ndim, "axes") for a in shape_arg(axes, "axes")] if x.ndim else []
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"axes={tuple(axes)} is not a permutation of the {x.ndim} dimensions")
    return x._permuted(perm)


def expand_dims(x: Array, /, axis: int | tuple[int, ...] = 0) -> Array:
    """x with a new dimension of size 1 at `axis` (in [-ndim - 1, ndim]); a tuple of axes
    (the next standard's form) names positions in the result."""
    x = array_arg("", x)
    new = set(axes_arg(axis, x.ndim + (len(axis) if isinstance(axis, tuple) else 1)))
    shape, strides, offset = x._signed()
    rest = iter(zip(shape, strides))
    dims = [(1, 0) if k in new else next(rest) for k in range(x.ndim + len(new))]
    return x._view([n for n, _ in dims], [s for _, s in dims], offset)


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """x without the given dimensions, each of which must have size 1."""
    x = array_arg("", x)
    axes = (axis,) if not isinstance(axis, tuple) else axis
    drop = {axis_arg(a, x.ndim) for a in axes}
    if len(drop) != len(axes):
        raise ValueError(f"axis={axis} names a dimension twice")
    for a in drop:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: dimension {a} has size {x.shape[a]}, not 1")
    shape, strides, offset = x._signed()
    keep = [k for k in range(x.ndim) if k not in drop]
    return x._view([shape[k] for k in keep], [strides[k] for k in keep], offset)


def _resolve_shape(shape: tuple[int, ...], size: int) -> tuple[int, ...]:
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1 or any(n < -1 for n in shape):
        raise ValueError(f"shape={shape}: sizes must be >= 0, with at most one -1")
    if unknown:
        known = math.prod(n for n in shape if n != -1)
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape an array of size {size} into {shape}")
        shape = shape[:unknown[0]] + (size // known,) + shape[unknown[0] + 1:]
    if math.prod(shape) != size:
        raise ValueError(f"cannot reshape an array of size {size} into shape {shape}")
    return shape


def view_strides(old_shape: Sequence[int], old_strides: Sequence[int],
                 new_shape: Sequence[int]) -> list[int] | None:
    """Strides that show the same elements in row-major order as `new_shape`, or None when
    no view can (NumPy's _attempt_nocopy_reshape; any stride signs)."""
    old = [(n, s) for n, s in zip(old_shape, old_strides) if n != 1]
    dims, strides = [n for n, _ in old], [s for _, s in old]
    new = list(new_shape)
    out = [0] * len(new)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new) and oi < len(dims):
        np_, op = new[ni], dims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= new[nj]
                nj += 1
            else:
                op *= dims[oj]
                oj += 1
        for k in range(oi, oj - 1):
            if strides[k] != dims[k + 1] * strides[k + 1]:
                return None
        out[nj - 1] = strides[oj - 1]
        for k in range(nj - 1, ni, -1):
            out[k - 1] = out[k] * new[k]
        ni, nj, oi, oj = nj, nj + 1, oj, oj + 1
    last = out[ni - 1] if ni >= 1 else 1
    for k in range(ni, len(new)):
        out[k] = last
    return out


def reshape(x: Array, /, shape: Sequence[int], *, copy: bool | None = None) -> Array:
    """x in `shape` (one -1 allowed): a view when the memory allows, else a copy (copy=False
    refuses that, copy=True always copies)."""
    x = array_arg("", x)
    new = _resolve_shape(shape_arg(shape), x.size)
    if copy:
        x = copy_array(x)
    old, strides, offset = x._signed()
    if x.size == 0:
        return empty_array(new, x._t.dtype, x._st.backend)
    found = view_strides(old, strides, new)
    if found is None:
        if copy is False:
            raise ValueError(f"reshape(copy=False): the view (shape {x.shape}, strides "
                             f"{strides}) cannot be shown as {new} without a copy")
        x = copy_array(x)
        old, strides, offset = x._signed()
        found = view_strides(old, strides, new)
    return x._view(new, found, offset)


def moveaxis(x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...],
             /) -> Array:
    """x with the axes `source` moved to the positions `destination` (a view)."""
    x = array_arg("", x)
    src = axes_arg(source, x.ndim, "source")
    dst = axes_arg(destination, x.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source={source!r} and destination={destination!r} name "
                         f"different numbers of axes")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x._permuted(order)


def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """x with the given axes (all by default) reversed: a view, as NumPy's flip (kernels that
    read it get a contiguous copy; see docs/array-api.md#arrays)."""
    x = array_arg("", x)
    axes = list(range(x.ndim)) if axis is None else axes_arg(axis, x.ndim)
    return flip_axes(x, axes)


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """The slices of x along `axis`, as views."""
    x = array_arg("", x)
    if x.ndim == 0:
        raise ValueError("unstack: a 0-dimensional array has no axis to split")
    a = axis_arg(axis, x.ndim)
    return tuple(along(x, a, i) for i in range(x.shape[a]))


def concat(arrays: tuple[Array, ...] | list[Array], /, *,
           axis: int | None = 0) -> Array:
    """The arrays joined along `axis` (flattened first when axis is None), promoted by the
    array_api rule set: one InplaceCopy per array into its part of the result."""
    xs = _arrays(arrays, "concat")
    dt = _common_dtype("concat", xs)
    be = xs[0]._st.backend
    if axis is None:
        out = empty_array((sum(x.size for x in xs),), dt, be)
        start = 0
        for x in xs:
            # The flat part of the (contiguous) result, seen in x's shape: a view, one copy.
            part = along(out, 0, slice(start, start + x.size))
            copy_into(reshape(part, x.shape), x)
            start += x.size
        return out
    ndim = xs[0].ndim
    if ndim == 0:
        raise ValueError("concat: 0-dimensional arrays have no axis to join along; use "
                         "axis=None or stack")
    a = axis_arg(axis, ndim)
    for i, x in enumerate(xs):
        others = x.shape[:a] + x.shape[a + 1:]
        if x.ndim != ndim or others != xs[0].shape[:a] + xs[0].shape[a + 1:]:
            raise ValueError(f"concat: arrays[{i}] has shape {x.shape}, arrays[0] {xs[0].shape}; "
                             f"they must match except along axis {a}")
    shape = list(xs[0].shape)
    shape[a] = sum(x.shape[a] for x in xs)
    out = empty_array(shape, dt, be)
    start = 0
    for x in xs:
        n = x.shape[a]
        copy_into(along(out, a, slice(start, start + n)), x)
        start += n
    return out


def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: int = 0) -> Array:
    """The arrays (all of one shape) joined along a new axis, promoted by the array_api rule
    set: one InplaceCopy per array."""
    xs = _arrays(arrays, "stack")
    for i, x in enumerate(xs):
        if x.shape != xs[0].shape:
            raise ValueError(f"stack: arrays[{i}] has shape {x.shape}, arrays[0] "
                             f"{xs[0].shape}; stacked arrays have one shape")
    dt = _common_dtype("stack", xs)
    a = axis_arg(axis, xs[0].ndim + 1)
    shape = xs[0].shape[:a] + (len(xs),) + xs[0].shape[a:]
    out = empty_array(shape, dt, xs[0]._st.backend)
    for i, x in enumerate(xs):
        copy_into(along(out, a, i), x)
    return out


def roll(x: Array, /, shift: int | tuple[int, ...], *,
         axis: int | tuple[int, ...] | None = None) -> Array:
    """x rolled by `shift` along `axis` (the flattened array when None): for each rolled axis
    its two halves swap places, one InplaceCopy per combination of halves."""
    x = array_arg("", x)
    if axis is None:
        if isinstance(shift, (tuple, list)):
            raise ValueError(f"roll: shift={shift!r} is a tuple, so axis must be a tuple of "
                             f"as many axes (not None)")
        return reshape(roll(reshape(x, (-1,)), shift, axis=0), x.shape)
    axes = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    shifts = list(shift) if isinstance(shift, (tuple, list)) else [shift] * len(axes)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: shift={shift!r} and axis={axis!r} have different lengths")
    total: dict[int, int] = {}
    for a, s in zip(axes, shifts):
        k = axis_arg(a, x.ndim)
        try:
            total[k] = total.get(k, 0) + operator.index(s)
        except TypeError:
            raise TypeError(f"roll: shift={shift!r} is not an int or a tuple of ints") from None
    out = empty_array(x.shape, x._t.dtype, x._st.backend)
    if out.size == 0:
        return out
    # Per axis: (source range, destination range) of each non-empty half.
    halves = []
    for k, s in sorted(total.items()):
        n = x.shape[k]
        s %= n
        halves.append([(k, slice(0, n - s), slice(s, n)), (k, slice(n - s, n), slice(0, s))]
                      if s else [(k, slice(None), slice(None))])
    for combo in itertools.product(*halves):
        src_key = [slice(None)] * x.ndim
        dst_key = [slice(None)] * x.ndim
        for k, src, dst in combo:
            src_key[k], dst_key[k] = src, dst
        copy_into(out[tuple(dst_key)], x[tuple(src_key)])
    return out


def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    """x repeated `repetitions` times along each axis: one InplaceCopy of x, broadcast over
    the repetitions, into the result seen as (repetition, element) pairs of dims."""
    x = array_arg("", x)
    reps = shape_arg(repetitions, "repetitions")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: repetitions={reps} has a negative count")
    n = max(x.ndim, len(reps))
    reps = (1,) * (n - len(reps)) + reps
    shape, strides, offset = x._signed()
    shape = (1,) * (n - x.ndim) + tuple(shape)
    strides = (0,) * (n - x.ndim) + tuple(strides)
    out = empty_array(tuple(s * r for s, r in zip(shape, reps)), x._t.dtype, x._st.backend)
    if out.size == 0:
        return out
    pairs, dst_strides, src_strides = [], [], []
    for s, r, c, xs in zip(shape, reps, out._t.view_strides, strides):
        pairs += [r, s]
        dst_strides += [s * c, c]
        src_strides += [0, xs]
    copy_into(out._view(pairs, dst_strides, 0), x._view(pairs, src_strides, offset))
    return out


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """Each element of x repeated `repeats` times along `axis` (x flattened when None). An
    int (or a one-element array): one InplaceCopy, x broadcast over the repetitions; an array
    of counts: the backend library's repeat (its values decide the shape, so they are read
    on the host)."""
    x = array_arg("", x)
    if axis is None:
        x, a = reshape(x, (-1,)), 0
    else:
        if x.ndim == 0:
            raise ValueError("repeat: a 0-dimensional array has no axis; use axis=None")
        a = axis_arg(axis, x.ndim)
    n = x.shape[a]
    if isinstance(repeats, Array):
        if INFO[repeats._t.dtype].kind not in (SIGNED, UNSIGNED):
            raise TypeError(f"repeat: repeats must have an integer dtype, not "
                            f"{repeats.dtype.name}")
        if repeats.ndim > 1 or repeats.shape not in ((), (1,), (n,)):
            raise ValueError(f"repeat: repeats of shape {repeats.shape} does not broadcast to "
                             f"({n},), the length of the axis")
        counts = repeats._host().reshape(-1)
        if counts.size and counts.min() < 0:
            raise ValueError("repeat: repeats has a negative count")
        if counts.size != 1 or n == 1:
            return _repeat_counts(x, counts, a)
        r = int(counts[0])
    else:
        try:
            r = operator.index(repeats)
        except TypeError:
            raise TypeError(f"repeat: repeats={repeats!r} is not an int or an array") from None
        if r < 0:
            raise ValueError(f"repeat: repeats={r} is negative")
    shape, strides, offset = x._signed()
    out = empty_array(shape[:a] + (n * r,) + shape[a + 1:], x._t.dtype, x._st.backend)
    if out.size == 0:
        return out
    c = out._t.view_strides
    pairs = shape[:a] + (n, r) + shape[a + 1:]
    copy_into(out._view(pairs, c[:a] + (r * c[a], c[a]) + c[a + 1:], 0),
              x._view(pairs, strides[:a] + (strides[a], 0) + strides[a + 1:], offset))
    return out


def _repeat_counts(x: Array, counts: np.ndarray, axis: int) -> Array:
    be = x._st.backend
    with computing(be) as lib:
        # Raw storage: the bits move unchanged for every dtype. CuPy takes the counts as a
        # Python sequence.
        value = lib.repeat(x._raw(), counts if lib is np else counts.tolist(), axis=axis)
    return raw_result(value, x._t.dtype, be)


# ------------------------------------------------------------------------ clip

def _bound(fname: str, name: str, b: object, x: Array) -> Array | int | float | None:
    """A bound of clip: an array (same device, real numeric), or a Python int / float the
    standard lets meet x's dtype; None where it cannot bind (an int beyond x's range on the
    side it limits)."""
    if isinstance(b, Array):
        if b._st.backend is not x._st.backend:
            raise ValueError(f"{fname}: {name} is on {b.device}, x on {x.device}")
        if INFO[b._t.dtype].kind not in (SIGNED, UNSIGNED, FLOATING):
            raise TypeError(f"{fname}: {name} must have a real numeric dtype, not "
                            f"{b.dtype.name}")
        return b
    if not is_scalar(b) or isinstance(b, (bool, np.bool_, complex, np.complexfloating)):
        raise TypeError(f"{fname}: {name}={b!r} must be None, an int, a float or an array")
    kind = INFO[x._t.dtype].kind
    if isinstance(b, (float, np.floating)):
        if kind != FLOATING:
            raise TypeError(f"{fname}: {name}={b!r} is a float and x is {x.dtype.name}; an "
                            f"integer array takes integer bounds")
        return float(b)
    v = int(b)
    if kind == FLOATING:      # an int beyond the float dtype's range: its inf, as a float
        return float(v) if abs(v) < 2**1023 else math.copysign(math.inf, v)
    if kind in (SIGNED, UNSIGNED):
        limits = np.iinfo(INFO[x._t.dtype].storage)
        if (name == "min" and v <= limits.min) or (name == "max" and v >= limits.max):
            return None           # binds nothing
        v = min(max(v, int(limits.min)), int(limits.max))
    return v


def _saturated(b: Array | int | float | None, x: Array) -> Array | int | float | None:
    """An integer array bound of another integer dtype, saturated to x's range, so that its
    conversion to x's dtype is exact (a bound past x's range binds as x's extreme value, where
    converting it would wrap: -1 as uint8 is 255)."""
    if not isinstance(b, Array) or b._t.dtype == x._t.dtype or \
            INFO[b._t.dtype].kind not in (SIGNED, UNSIGNED) or \
            INFO[x._t.dtype].kind not in (SIGNED, UNSIGNED):
        return b
    ib, ix = np.iinfo(INFO[b._t.dtype].storage), np.iinfo(INFO[x._t.dtype].storage)
    lo = int(ix.min) if ix.min > ib.min else None
    hi = int(ix.max) if ix.max < ib.max else None
    return b if lo is None and hi is None else clip(b, lo, hi)


def clip(x: Array, /, min: int | float | Array | None = None,  # noqa: A002 (the standard's)
         max: int | float | Array | None = None) -> Array:  # noqa: A002
    """x clamped to [min, max] elementwise (broadcast), in x's dtype: maximum(x, min), then
    minimum with max, by our kernels (NaN in x or a bound gives NaN; maximum(-0, +0) is +0,
    minimum -0, on every backend and host), fused into one pass where both bounds are given
    and x's dtype has the clip kernel (the same bits). Bounds of another dtype are converted
    to x's by our kernels (an integer bound past an integer x's range first saturated to it),
    Python ones as a scalar of x's dtype (beyond a float dtype's range: inf)."""
    x = array_arg("", x)
    if INFO[x._t.dtype].kind not in (SIGNED, UNSIGNED, FLOATING):
        raise TypeError(f"clip takes real numeric dtypes, not {x.dtype.name}")
    lo = None if min is None else _saturated(_bound("clip", "min", min, x), x)
    hi = None if max is None else _saturated(_bound("clip", "max", max, x), x)
    shape = x.shape
    for b, name in ((lo, "min"), (hi, "max")):
        if isinstance(b, Array):
            shape = _broadcast_two(shape, b.shape, "x", name)
    if lo is not None and hi is not None:
        fused = fused_clip(x, lo, hi, shape)    # one pass, where x's dtype has the kernel
        if fused is not None:
            return fused
    out = x
    for b, name in ((lo, "maximum"), (hi, "minimum")):
        if b is not None:
            out = binary(name, out, b if not isinstance(b, Array) or b._t.dtype == x._t.dtype
                         else convert(b, x._t.dtype))
    return copy_array(broadcast_view(x, shape)) if out is x else out


__all__ = ["broadcast_arrays", "broadcast_to", "clip", "concat", "expand_dims",
           "flip", "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack",
           "tile", "unstack"]
