"""Validation of the scalar parameters of the C-style layer, in one place: integers (Python
ints, NumPy integers, anything with `__index__`; never bools, floats or strings), sizes and
offsets within int64, pointers within 64 bits, and sequences of them.

Every rejection is AclnnError(161002) naming the parameter and the rule; the C-style wrapper
(`npu_emu._capi`) turns it into the calling function's own code (100000 for acl.rt).
"""
from __future__ import annotations

import operator
from typing import Sequence

import numpy as np

from .status import AclnnError, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR

INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


def _invalid(message: str, kind: type = ValueError) -> AclnnError:
    return AclnnError(ACLNN_ERR_PARAM_INVALID, message, kind)


def _describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_int(value: object, name: str, lo: int | None = None, hi: int | None = None,
           what: str = "an integer") -> int:
    """`value` as a Python int: an int, a NumPy integer, a 0-d integer array or any object
    with __index__ (operator.index), never a bool, float or string; within [lo, hi]."""
    if type(value) is int:   # the common case, first: no bool (a subclass), no conversion
        number = value
        if (lo is None or number >= lo) and (hi is None or number <= hi):
            return number
    if isinstance(value, (bool, np.bool_)):
        raise _invalid(f"{name}={value!r} is a bool, but {name} must be {what}", TypeError)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        value = value[()]
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise _invalid(f"{name}={_describe(value)} is a {type(value).__name__}, but {name} must "
                       f"be {what}", TypeError) from None
    if lo is not None and number < lo:
        below = "is negative" if lo == 0 else f"is below {lo}"
        raise _invalid(f"{name}={number} {below}: {name} must be {what} >= {lo}")
    if hi is not None and number > hi:
        raise _invalid(f"{name}={number} is above {hi}: {name} must be {what} <= {hi}")
    return number


def as_size(value: object, name: str, what: str = "a size") -> int:
    """A count of bytes or elements: an integer in [0, 2^63)."""
    return as_int(value, name, 0, INT64_MAX, what)


def as_pointer(value: object, name: str, allow_null: bool = True) -> int:
    """An address: an integer in [0, 2^64); None is the null pointer 0 when allowed."""
    if value is None:
        if allow_null:
            return 0
        raise AclnnError(ACLNN_ERR_PARAM_NULLPTR, f"{name} is null, expected an address")
    return as_int(value, name, 0, UINT64_MAX, "an address (an int in [0, 2^64))")


def int_sequence(values: object, name: str, lo: int | None = 0, hi: int = INT64_MAX,
                 what: str = "a sequence of ints") -> tuple[int, ...]:
    """A tuple of ints from a list, tuple, range or 1-d integer array (not a string, bytes,
    set or dict), each within [lo, hi]; None is the null pointer (161001)."""
    if values is None:
        raise AclnnError(ACLNN_ERR_PARAM_NULLPTR, f"{name} is None, expected {what}")
    if isinstance(values, np.ndarray):
        if values.ndim != 1 or values.dtype.kind not in "iu":
            raise _invalid(f"{name} is a {values.ndim}-d {values.dtype} array, expected {what} "
                           f"(a 1-d integer array will do)", TypeError)
        values = values.tolist()
    if isinstance(values, (str, bytes, bytearray, memoryview, set, frozenset, dict)) or \
            not isinstance(values, (Sequence, range)):
        raise _invalid(f"{name}={_describe(values)} is a {type(values).__name__}, expected {what}",
                       TypeError)
    return tuple(as_int(v, f"{name}[{i}]", lo, hi) for i, v in enumerate(values))


def check_count_fits(count: int, name: str, what: str) -> None:
    """A derived count (elements, bytes) must fit int64, as CANN's do."""
    if count > INT64_MAX:
        raise _invalid(f"{name} has {count} {what}; that does not fit in int64 (at most 2^63 - 1)")
