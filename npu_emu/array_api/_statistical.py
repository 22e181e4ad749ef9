"""Statistical functions: sum, prod, mean, std, var, min, max, cumulative_sum,
cumulative_prod, each a row of a table naming the dtype category it takes, the backend
library's function and how its result dtype follows from the input's.

The reductions run on our reduce kernels (npu_emu/kernels/reduce.py: a fixed, documented
order, the same bits on both backends and at any thread count), in stream order, into a
result from the pool; the backend's array library (NumPy on cpu, CuPy on cuda) computes
only what those kernels lack (arrays of more dims than they take; docs/array-api.md):
- Accumulation dtype: sum, prod and the cumulative functions of a signed integer narrower than
  the default integer give int64, of an unsigned one uint64, of bool int64 (the standard);
  floats and complex keep their dtype. mean, std and var of integers give the default float.
  An explicit dtype= converts x to it first (our conversion kernels, as the NPU would cast)
  unless the library reads x's values in it exactly.
- The narrow floats (float16, bfloat16, the float8 types, HiFloat8) accumulate in float32,
  as the NPU's vector unit does, and the float32 result is rounded back to their type by our
  bit-exact conversion. min and max are exact in any type: they compare in x's own type where
  the library has it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..dtypes import BOOL, INFO, SIGNED, UNSIGNED, aclDataType as DT
from ._engine import dtypes as _dtypes
from ._engine.args import array_arg, axis_arg, flag, reduced_axes
from ._engine.array import Array, empty_array, library_dtype, result_array
from ._engine.dtypes import to_dtype
from ._engine import repeat
from ._engine.kernel import convert
from ._engine.library import compute_dtype, computing, cumulate_into, library_operand, reduce_into
from ._engine.scalars import check_kind, scalar_value


@dataclass(frozen=True)
class Statistic:
    """One statistical function. result: "accumulate" (integers widen to the default integer
    or uint64, a dtype= may be given), "float" (integers give the default float), "same".
    signature: "dtype" (axis, dtype, keepdims), "plain" (axis, keepdims), "correction"
    (axis, correction, keepdims) or "cumulative" (axis, dtype, include_initial).
    identity: the value of an empty reduction where the function has one (None: min and max,
    which refuse an empty axis)."""
    name: str
    category: str
    library: str
    result: str
    signature: str
    identity: float | None = None


STATISTICS = {s.name: s for s in [
    # Note: the standard's sums and products take numeric dtypes; bool is taken too (as
    # NumPy, PyTorch and CuPy do: counting a mask), accumulating in the default integer.
    Statistic("sum", "all", "sum", "accumulate", "dtype", 0),
    Statistic("prod", "all", "prod", "accumulate", "dtype", 1),
    Statistic("cumulative_sum", "all", "cumsum", "accumulate", "cumulative", 0),
    Statistic("cumulative_prod", "all", "cumprod", "accumulate", "cumulative", 1),
    # Note: the standard recommends floating inputs only and allows integers, with the
    # default float as the result; scikit-learn and SciPy pass integer data.
    Statistic("mean", "numeric", "mean", "float", "plain", math.nan),
    Statistic("std", "real numeric", "std", "float", "correction", math.nan),
    Statistic("var", "real numeric", "var", "float", "correction", math.nan),
    Statistic("min", "real numeric", "min", "same", "plain"),
    Statistic("max", "real numeric", "max", "same", "plain"),
]}

# The accumulation dtype of the narrower integers (and bool) when dtype=None (the standard).
_WIDENED = {SIGNED: _dtypes.DEFAULT_INT.acl_dtype, UNSIGNED: DT.ACL_UINT64,
            BOOL: _dtypes.DEFAULT_INT.acl_dtype}


def result_dtype(spec: Statistic, x: DT, dtype: object) -> DT:
    """The dtype of spec's result for an input of dtype x and the dtype= argument."""
    if dtype is not None:
        if spec.result != "accumulate":
            raise TypeError(f"{spec.name} takes no dtype")
        target = to_dtype(dtype).acl_dtype
        check_kind(f"{spec.name}: dtype", "numeric", target)
        if INFO[x].kind == "complex" and INFO[target].kind != "complex":
            raise TypeError(f"{spec.name}: dtype={_dtypes.BY_ACL[target].name} would drop the "
                            f"imaginary part of a {_dtypes.BY_ACL[x].name} array")
        return target
    kind = INFO[x].kind
    if spec.result == "accumulate" and kind in _WIDENED and INFO[x].bits < 64:
        return _WIDENED[kind]
    if spec.result == "float" and kind in (BOOL, SIGNED, UNSIGNED):
        return _dtypes.default_float().acl_dtype
    return x


def _source(x: Array, target: DT, ct: np.dtype) -> Array:
    """x ready for the library to compute in ct for a result of dtype target: x itself when
    the library reads its values in target exactly, else x converted to target by our
    kernels first (the standard: cast, then compute); then in a dtype the library has."""
    be = x._st.backend
    if x._t.dtype != target:
        have, want = library_dtype(x._t.dtype, be), library_dtype(target, be)
        if have is None or want is None or not np.can_cast(have, want, "safe"):
            x = convert(x, target)
    return library_operand(x, ct, be)


def reduce(name: str, x: object, axis: object = None, keepdims: bool = False,
           dtype: object = None, correction: float = 0.0) -> Array:
    params = (repeat.typed(axis), repeat.typed(keepdims), repeat.typed(dtype),
              repeat.typed(correction))
    out, key = repeat.short_way(name, x, params=params)
    if out is not None:
        return out
    return _reduce(name, x, axis, keepdims, dtype, correction, key)


def _reduce(name: str, x: object, axis: object, keepdims: bool, dtype: object,
            correction: float, key: tuple | None) -> Array:
    spec = STATISTICS[name]
    x = array_arg(name, x)
    check_kind(name, spec.category, x._t.dtype)
    axes = reduced_axes(axis, x.ndim)
    count = math.prod(x.shape[a] for a in axes)
    if count == 0 and spec.identity is None:
        raise ValueError(f"{name} of an empty axis: the reduction has no identity (shape "
                         f"{x.shape}, axis={axis})")
    result = result_dtype(spec, x._t.dtype, dtype)
    be = x._st.backend
    shape = tuple(1 if k in axes else n for k, n in enumerate(x.shape) if keepdims or k not in axes)
    extra: dict = {}
    if spec.result == "same":
        # Exact in any type: x's own type where the library has it (float32 otherwise).
        src = library_operand(x, None, be)
        held = src._t.dtype
        out = empty_array(shape, held, be)
        reduce_into(spec.library, src, out, axes, keepdims)
    else:
        ct = library_dtype(compute_dtype(result), be)
        held = compute_dtype(result)
        src = _source(x, result, ct)
        out = empty_array(shape, held, be)
        if count == 0 or (spec.signature == "correction" and count - correction <= 0):
            # An empty mean, and a variance with N - correction <= 0: NaN (the standard;
            # NumPy warns and divides by zero). An empty sum or product: its identity.
            with computing(be):
                out._values().fill(spec.identity if count == 0 else math.nan)
            return out if held == result else convert(out, result)
        extra = {"ddof": correction} if spec.signature == "correction" else {}
        reduce_into(spec.library, src, out, axes, keepdims, ct, **extra)
    if held != result:
        return convert(out, result)
    repeat.remember_reduction(key, spec.library, x, src, out, axes, keepdims, **extra)
    return out


def cumulative(name: str, x: object, axis: object = None, dtype: object = None,
               include_initial: bool = False) -> Array:
    spec = STATISTICS[name]
    x = array_arg(name, x)
    check_kind(name, spec.category, x._t.dtype)
    if x.ndim == 0:
        raise ValueError(f"{name} takes an array of at least one dimension, not 0-d")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name}: axis is required for an array of {x.ndim} dimensions")
        axis = 0
    a = axis_arg(axis, x.ndim, "axis")
    result = result_dtype(spec, x._t.dtype, dtype)
    be = x._st.backend
    ct = library_dtype(compute_dtype(result), be)
    held = compute_dtype(result)
    src = _source(x, result, ct)
    shape = list(x.shape)
    shape[a] += bool(include_initial)
    # In x's own order of axes where x has one (result_array; include_initial's result is one
    # longer along the axis): cumulative_sum(x.T, axis=0) then runs along memory in both.
    out = result_array(shape, held, be, [x], along=a)
    cumulate_into(spec.library, src, out, a, ct, include_initial, spec.identity)
    return out if held == result else convert(out, result)


# ------------------------------------------------------------ the functions


def _correction(value: object) -> float:
    value = scalar_value(value, "correction", "correction")
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"correction={value!r} is not an int or a float")
    if value < 0:
        raise ValueError(f"correction={value!r} must be >= 0")
    return float(value)


def sum(x: Array, /, *, axis: int | tuple[int, ...] | None = None,  # noqa: A001
        dtype: object = None, keepdims: bool = False) -> Array:
    """The sum over `axis` (None: all); integers accumulate in int64 or uint64, the narrow
    floats in float32 (rounded back by our conversion)."""
    return reduce("sum", x, axis, flag(keepdims, "keepdims"), dtype)


def prod(x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: object = None,
         keepdims: bool = False) -> Array:
    """The product over `axis` (None: all); integers accumulate in int64 or uint64, the
    narrow floats in float32 (rounded back by our conversion)."""
    return reduce("prod", x, axis, flag(keepdims, "keepdims"), dtype)


def mean(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
         keepdims: bool = False) -> Array:
    """The arithmetic mean over `axis` (None: all); integers give the default float; an empty
    mean is NaN."""
    return reduce("mean", x, axis, flag(keepdims, "keepdims"))


def std(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        correction: int | float = 0.0, keepdims: bool = False) -> Array:
    """The standard deviation over `axis` with N - correction degrees of freedom (NaN where
    that is <= 0); integers give the default float."""
    return reduce("std", x, axis, flag(keepdims, "keepdims"), correction=_correction(correction))


def var(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        correction: int | float = 0.0, keepdims: bool = False) -> Array:
    """The variance over `axis` with N - correction degrees of freedom (NaN where that is
    <= 0); integers give the default float."""
    return reduce("var", x, axis, flag(keepdims, "keepdims"), correction=_correction(correction))


def min(x: Array, /, *, axis: int | tuple[int, ...] | None = None,  # noqa: A001
        keepdims: bool = False) -> Array:
    """The minimum over `axis` (None: all), exact in any dtype; an empty axis is refused."""
    return reduce("min", x, axis, flag(keepdims, "keepdims"))


def max(x: Array, /, *, axis: int | tuple[int, ...] | None = None,  # noqa: A001
        keepdims: bool = False) -> Array:
    """The maximum over `axis` (None: all), exact in any dtype; an empty axis is refused."""
    return reduce("max", x, axis, flag(keepdims, "keepdims"))


def cumulative_sum(x: Array, /, *, axis: int | None = None, dtype: object = None,
                   include_initial: bool = False) -> Array:
    """The running sum along `axis` (needed unless x is 1-D), a leading 0 with
    include_initial; integers accumulate in int64 or uint64."""
    return cumulative("cumulative_sum", x, axis, dtype, flag(include_initial, "include_initial"))


def cumulative_prod(x: Array, /, *, axis: int | None = None, dtype: object = None,
                    include_initial: bool = False) -> Array:
    """The running product along `axis` (needed unless x is 1-D), a leading 1 with
    include_initial; integers accumulate in int64 or uint64."""
    return cumulative("cumulative_prod", x, axis, dtype,
                      flag(include_initial, "include_initial"))


__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum",
           "var"]
