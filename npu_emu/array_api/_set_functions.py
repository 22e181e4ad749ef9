"""Set functions: unique_all, unique_counts, unique_inverse, unique_values, on the backend's
library over the flattened array (its memory when x is contiguous), the narrow floats
compared in float32 (exact). Uniqueness is value equality, as the standard asks: every NaN
is distinct (a count of one each), -0.0 and 0.0 are one value. The values come sorted
ascending (NaNs last); each is x's own element at its first occurrence, bits included (the
sign of a zero). isin (2025.12) tests membership by value equality on the library, in the
promoted dtype.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..dtypes import aclDataType as DT
from ._engine import parts
from ._engine.args import array_arg, flag, same_device
from ._engine.array import Array
from ._engine.kernel import convert
from ._engine.library import compressed, computing, in_parts, raw_result, result
from ._engine.scalars import dtype_of, promote, scalar_array
from ._engine.ufunc import operands
from ._searching import index_result, values


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _unique(fname: str, x: object, inverse: bool, counts: bool,
            indices: bool = False) -> dict[str, Array]:
    """The results a unique_* function returns: values, and the indices, inverse_indices
    and counts asked for (each one an array made only when asked: a result costs several
    microseconds)."""
    x = array_arg(fname, x)
    v = values(x)
    be = x._st.backend
    with computing(be) as lib:
        flat, raw = v.reshape(-1), x._raw().reshape(-1)
        if lib is np:
            found = _unique_numpy(flat, raw, inverse or indices, counts)
        else:
            got = lib.unique(flat, return_index=True, return_inverse=inverse,
                             return_counts=counts, equal_nan=False)
            # x's own bits at each value's first occurrence (no conversion back)
            found = {"first": got[1], "bits": raw[got[1]]}
            if inverse:
                found["inverse"] = got[2]
            if counts:
                found["counts"] = got[-1]
    out = {"values": raw_result(found["bits"], x._t.dtype, be) if "bits" in found
           else _patched(found, x, be)}
    if indices:
        out["indices"] = index_result(found["first"], x)
    if inverse:
        out["inverse_indices"] = index_result(found["inverse"].reshape(x.shape), x)
    if counts:
        out["counts"] = index_result(found["counts"], x)
    return out


def _unique_numpy(flat: np.ndarray, raw: np.ndarray, positions: bool, counts: bool) -> dict:
    """np.unique's answers by NumPy's fast sort and argsort (np.unique's return_index takes
    the stable ones, 5-40x slower): the values sorted, each group of equal ones starting
    where the sorted value differs from the one before (NaN from everything: each NaN its
    own value). positions: also each value's first occurrence (`first`, the least index of
    its group, whatever order the sort left it in; the NaNs, which end the sorted order, in
    their order in x) and `inverse`, and x's bits there (`bits`). Without positions, the
    distinct values as sorted (`distinct`), whose zero and NaNs take x's own bits after
    (_patched)."""
    n = flat.size
    perm = np.argsort(flat) if positions else None
    ordered = flat[perm] if positions else np.sort(flat)
    starts = np.ones(n, bool)
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    found: dict = {"flat": flat, "raw": raw}
    if not positions:
        # By the mask: an index array of the starts (8 bytes an element) is made only for
        # counts and positions (16M float32 unique_values took 195 ms with one, NumPy 153).
        found["distinct"] = compressed(starts, ordered, int(np.count_nonzero(starts)))
    if counts or positions:
        begin = np.flatnonzero(starts)
    if counts:
        # Each group's length: the next start (n after the last) minus its own, in one pass.
        c = found["counts"] = np.empty(begin.size, np.intp)
        np.subtract(begin[1:], begin[:-1], out=c[:-1])
        if begin.size:
            c[-1] = n - begin[-1]
    if positions:
        if flat.dtype.kind in "fc":
            nans = np.flatnonzero(np.isnan(flat))
            perm[n - nans.size:] = nans
        found["first"] = np.minimum.reduceat(perm, begin) if n else perm
        found["bits"] = raw[found["first"]]
        group = np.cumsum(starts) - 1
        found["inverse"] = np.empty(n, np.intp)
        found["inverse"][perm] = group
    return found


def _patched(found: dict, x: Array, be: object) -> Array:
    """The unique values from the sorted ones (_unique_numpy without positions), in x's
    dtype, the zero (if any) as x's first zero and the NaNs as x's NaNs in x's order: the
    bits of x's first occurrences."""
    flat, raw, distinct = found["flat"], found["raw"], found["distinct"]
    if flat.dtype.kind not in "fc":
        return raw_result(distinct, x._t.dtype, be)     # a new array (a gather)
    # Sorted: the zero where 0 would go, the NaNs at the end.
    n = distinct.size
    # A zero of the values' own type: with a Python 0, NumPy 2.4 takes 0.5-2 ms at 1M
    # elements (the search itself takes a microsecond).
    zero = int(distinct.searchsorted(distinct.dtype.type(0))) if n else 0
    zero = zero if zero < n and distinct[zero] == 0 else None
    nan = n and distinct[-1] != distinct[-1]

    def patch(out: np.ndarray) -> None:
        if zero is not None:
            out[zero] = raw[(flat == 0).argmax()]
        if nan:
            out[np.isnan(distinct)] = raw[np.isnan(flat)]
    if flat.dtype == raw.dtype:               # the values are x's storage type: patch them
        patch(distinct)
        return raw_result(distinct, x._t.dtype, be)
    y = result(distinct, x._t.dtype, be)      # narrow floats, compared in float32
    if zero is not None or nan:
        with computing(be):
            patch(y._raw())
    return y


def unique_all(x: Array, /) -> UniqueAllResult:
    """(values, indices of their first occurrences in the flattened x, inverse_indices of
    x's shape that rebuild x from values, counts)."""
    return UniqueAllResult(**_unique("unique_all", x, True, True, indices=True))


def unique_counts(x: Array, /) -> UniqueCountsResult:
    """(values, how many times each occurs)."""
    r = _unique("unique_counts", x, False, True)
    return UniqueCountsResult(r["values"], r["counts"])


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """(values, inverse_indices of x's shape: values[inverse_indices] rebuilds x)."""
    r = _unique("unique_inverse", x, True, False)
    return UniqueInverseResult(r["values"], r["inverse_indices"])


def unique_values(x: Array, /) -> Array:
    """The distinct values of x, sorted ascending (each NaN its own value)."""
    return _unique("unique_values", x, False, False)["values"]


__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]


def isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False) -> Array:
    """Whether each element of x1 equals some element of x2 (invert=True: none), by value
    equality (NaN is in nothing), both in their promoted dtype; a bool array of x1's shape
    (0-d when x1 is a Python scalar). At least one of x1, x2 is an array. (2025.12)"""
    a, b = operands("isin", x1, x2)
    arrays = [o for o in (a, b) if isinstance(o, Array)]
    be = same_device("isin", *arrays)
    dt = promote("isin", dtype_of(a), dtype_of(b))
    ins = [o if isinstance(o, Array) else scalar_array(o.value, dt, be) for o in (a, b)]
    ins = [o if o._t.dtype == dt else convert(o, dt) for o in ins]
    va, vb = values(ins[0]), values(ins[1])
    inv = flag(invert, "invert")
    k = parts.count(be, va.size, va.shape[0]) if va.ndim else 1
    if k > 1:   # x1's rows in parts on the cpu backend's threads, into our new array
        return in_parts(va.shape, DT.ACL_BOOL, be, lambda s: np.isin(va[s], vb, invert=inv),
                        va.shape[0], k)
    with computing(be) as lib:
        found = lib.isin(va, vb, invert=inv)
    return result(found, DT.ACL_BOOL, be)
