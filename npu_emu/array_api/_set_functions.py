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

from ..dtypes import aclDataType as DT
from ._engine.args import array_arg, flag, same_device
from ._engine.array import Array
from ._engine.kernel import convert
from ._engine.library import computing, raw_result, result
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
    with computing(x._st.backend) as lib:
        flat = v.reshape(-1)
        found = lib.unique(flat, return_index=True, return_inverse=inverse,
                           return_counts=counts, equal_nan=False)
        first = found[1]
        # x's own bits at each value's first occurrence (no conversion back).
        bits = x._raw().reshape(-1)[first]
    out = {"values": raw_result(bits, x._t.dtype, x._st.backend)}
    if indices:
        out["indices"] = index_result(first, x)
    k = 2
    if inverse:
        out["inverse_indices"] = index_result(found[k].reshape(x.shape), x)
        k += 1
    if counts:
        out["counts"] = index_result(found[k], x)
    return out


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
    with computing(be) as lib:
        out = lib.isin(va, vb, invert=flag(invert, "invert"))
    return result(out, DT.ACL_BOOL, be)
