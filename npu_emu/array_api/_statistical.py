"""Statistical functions, generated from a table: sum, prod, mean, std, var, min, max,
cumulative_sum, cumulative_prod. Each names the dtype category it takes, the backend
library's function and how its result dtype follows from the input's.

The reductions run on the backend's array library (NumPy on cpu, CuPy on cuda) over the
array's own memory, in stream order, into a result from the pool:
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
from typing import Any, Callable

import numpy as np

from ..dtypes import BOOL, INFO, SIGNED, UNSIGNED, aclDataType as DT
from . import _dtypes
from ._array import Array, empty_array, library_dtype
from ._calls import convert
from ._device import library, library_order
from ._dtypes import to_dtype
from ._elementwise import _held, _library_operand, check_category, compute_in
from ._manipulation import _axes, _axis


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


def _check_array(name: str, x: object) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{name}: x is a {type(x).__name__}, not an array of npu_emu.array_api")
    return x


def reduced_axes(axis: object, ndim: int) -> tuple[int, ...]:
    """axis (None, an int or a tuple of ints) as sorted axes in [0, ndim); AxisError (a
    ValueError and an IndexError) out of range or for an axis named twice."""
    return tuple(range(ndim)) if axis is None else tuple(sorted(_axes(axis, ndim)))


def result_dtype(spec: Statistic, x: DT, dtype: object) -> DT:
    """The dtype of spec's result for an input of dtype x and the dtype= argument."""
    if dtype is not None:
        if spec.result != "accumulate":
            raise TypeError(f"{spec.name} takes no dtype")
        target = to_dtype(dtype).acl_dtype
        check_category(f"{spec.name}: dtype", "numeric", target)
        if INFO[x].kind == "complex" and INFO[target].kind != "complex":
            raise TypeError(f"{spec.name}: dtype={_dtypes.BY_ACL[target].name} would drop the "
                            f"imaginary part of a {_dtypes.BY_ACL[x].name} array")
        return target
    kind = INFO[x].kind
    if spec.result == "accumulate" and kind in _WIDENED and INFO[x].bits < 64:
        return _WIDENED[kind]
    if spec.result == "float" and kind in (BOOL, SIGNED, UNSIGNED):
        return _dtypes.DEFAULT_FLOAT.acl_dtype
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
    return _library_operand(x, ct, be)


def _run(be: Any, fn: Callable[[], None]) -> None:
    with library_order(be):
        if library(be) is np:
            with np.errstate(all="ignore"):
                fn()
        else:
            fn()


def reduce(name: str, x: object, axis: object = None, keepdims: bool = False,
           dtype: object = None, correction: float = 0.0) -> Array:
    spec = STATISTICS[name]
    x = _check_array(name, x)
    check_category(name, spec.category, x._t.dtype)
    axes = reduced_axes(axis, x.ndim)
    count = math.prod(x.shape[a] for a in axes)
    if count == 0 and spec.identity is None:
        raise ValueError(f"{name} of an empty axis: the reduction has no identity (shape "
                         f"{x.shape}, axis={axis})")
    result = result_dtype(spec, x._t.dtype, dtype)
    be = x._st.backend
    shape = tuple(1 if k in axes else n for k, n in enumerate(x.shape) if keepdims or k not in axes)
    lib = library(be)
    if spec.result == "same":
        # Exact in any type: x's own type where the library has it (float32 otherwise).
        src = _library_operand(x, None, be)
        held = src._t.dtype
        out = empty_array(shape, held, be)
        _run(be, lambda: getattr(lib, spec.library)(src._values(), axis=axes, out=out._values(),
                                                    keepdims=keepdims))
    else:
        ct, _ = compute_in(result, be)
        held = _held(result)
        src = _source(x, result, ct)
        out = empty_array(shape, held, be)
        extra = {"ddof": correction} if spec.signature == "correction" else {}
        view = out._values()
        if count == 0 or (spec.signature == "correction" and count - correction <= 0):
            # An empty mean, and a variance with N - correction <= 0: NaN (the standard;
            # NumPy warns and divides by zero). An empty sum or product: its identity.
            _run(be, lambda: view.fill(spec.identity if count == 0 else math.nan))
        else:
            _run(be, lambda: getattr(lib, spec.library)(src._values(), axis=axes, dtype=ct,
                                                        out=view, keepdims=keepdims, **extra))
    return out if held == result else convert(out, result)


def cumulative(name: str, x: object, axis: object = None, dtype: object = None,
               include_initial: bool = False) -> Array:
    spec = STATISTICS[name]
    x = _check_array(name, x)
    check_category(name, spec.category, x._t.dtype)
    if x.ndim == 0:
        raise ValueError(f"{name} takes an array of at least one dimension, not 0-d")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name}: axis is required for an array of {x.ndim} dimensions")
        axis = 0
    a = _axis(axis, x.ndim, "axis")
    result = result_dtype(spec, x._t.dtype, dtype)
    be = x._st.backend
    ct, _ = compute_in(result, be)
    held = _held(result)
    src = _source(x, result, ct)
    shape = list(x.shape)
    shape[a] += bool(include_initial)
    out = empty_array(shape, held, be)
    lib = library(be)

    def work() -> None:
        view = out._values()
        lead = (slice(None),) * a
        if include_initial:
            view[lead + (slice(0, 1),)] = spec.identity
            view = view[lead + (slice(1, None),)]
        if view.size:
            getattr(lib, spec.library)(src._values(), axis=a, dtype=ct, out=view)
    _run(be, work)
    return out if held == result else convert(out, result)


# ------------------------------------------------------------ the functions

def _flag(value: object, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={value!r} is not a bool")
    return bool(value)


def _correction(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"correction={value!r} is not an int or a float")
    if value < 0:
        raise ValueError(f"correction={value!r} must be >= 0")
    return float(value)


_RESULT_NOTES = {"accumulate": "integers accumulate in int64 or uint64",
                 "float": "integers give the default float", "same": "exact in any dtype"}


def _make(spec: Statistic) -> Callable[..., Array]:
    n = spec.name
    if spec.signature == "dtype":
        def fn(x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: object = None,
               keepdims: bool = False) -> Array:
            return reduce(n, x, axis, _flag(keepdims, "keepdims"), dtype)
    elif spec.signature == "plain":
        def fn(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
               keepdims: bool = False) -> Array:
            return reduce(n, x, axis, _flag(keepdims, "keepdims"))
    elif spec.signature == "correction":
        def fn(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
               correction: int | float = 0.0, keepdims: bool = False) -> Array:
            return reduce(n, x, axis, _flag(keepdims, "keepdims"),
                          correction=_correction(correction))
    else:
        def fn(x: Array, /, *, axis: int | None = None, dtype: object = None,
               include_initial: bool = False) -> Array:
            return cumulative(n, x, axis, dtype, _flag(include_initial, "include_initial"))
    fn.__name__ = fn.__qualname__ = n
    fn.__doc__ = (f"{n}(x, ...): {spec.library} on the backend's array library; "
                  f"{spec.category} dtypes ({_RESULT_NOTES[spec.result]}; narrow floats in "
                  f"float32, rounded back by our conversion).")
    return fn


FUNCTIONS = {name: _make(spec) for name, spec in STATISTICS.items()}
globals().update(FUNCTIONS)

__all__ = sorted(FUNCTIONS)
