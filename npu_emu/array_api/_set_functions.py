"""Set functions: unique_all, unique_counts, unique_inverse, unique_values, on the backend's
library over the flattened array (its memory when x is contiguous), the narrow floats
compared in float32 (exact). Uniqueness is value equality, as the standard asks: every NaN
is distinct (a count of one each), -0.0 and 0.0 are one value. The values come sorted
ascending (NaNs last); each is x's own element at its first occurrence, bits included (the
sign of a zero).
"""
from __future__ import annotations

from typing import NamedTuple

from ._engine.args import array_arg
from ._engine.array import Array
from ._engine.library import computing, raw_result
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


def _unique(fname: str, x: object, inverse: bool, counts: bool) -> dict[str, Array]:
    x = array_arg(fname, x)
    v = values(x)
    with computing(x._st.backend) as lib:
        flat = v.reshape(-1)
        found = lib.unique(flat, return_index=True, return_inverse=inverse,
                           return_counts=counts, equal_nan=False)
        first = found[1]
        # x's own bits at each value's first occurrence (no conversion back).
        bits = x._raw().reshape(-1)[first]
    out = {"values": raw_result(bits, x._t.dtype, x._st.backend),
           "indices": index_result(first, x)}
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
    return UniqueAllResult(**_unique("unique_all", x, True, True))


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


__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values"]
