"""NumPy's protocols on our arrays, as CuPy answers them: a NumPy ufunc (`np.exp(x)`,
`np_array + x`) or function (`np.sum(x, axis=0)`, `np.concatenate([x, y])`) called with one
of our arrays runs the namespace's function of that name on our arrays (NumPy arrays among
the arguments become ours first) and returns our arrays. What the namespace has no function
for, takes with arguments it does not know (`out=` a NumPy array, `where=`, `order=`...) or
refuses with TypeError where NumPy does not (`np.fft.fft` of real input) runs on NumPy over
host copies. A ufunc's result then comes back as our arrays (`scipy.special.erf(x)`,
`np.add.reduce(x)`), as CuPy, Dask and sparse answer, unless `out=` names NumPy arrays; a
function's result is NumPy's, as without the protocols.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np

from .array import Array
from .asarray import asarray
from .kernel import assign
from .ufunc import BINARY, UNARY

# NumPy ufunc name -> the namespace's function (the elementwise tables name NumPy's ufuncs).
UFUNCS = {**{s.library: s.name for s in (*BINARY.values(), *UNARY.values())
             if isinstance(s.library, str)},
          **{name: name for name in (*BINARY, *UNARY)},
          # NumPy 2's generalized ufuncs of the namespace's linear algebra
          "matmul": "matmul", "vecdot": "vecdot"}
# NumPy function name -> the namespace's, where they differ.
FUNCTIONS = {"concatenate": "concat", "transpose": "permute_dims", "amax": "max",
             "amin": "min"}
# NumPy parameter names -> the namespace's, where they differ.
PARAMETERS = {"a_min": "min", "a_max": "max", "ddof": "correction", "newshape": "shape"}
_ABSENT = (None, np._NoValue)   # NumPy's marks of an argument left out


def _ours(value: Any, like: Array) -> Any:
    """NumPy arrays (also inside lists and tuples) as our arrays on like's device."""
    if isinstance(value, np.ndarray):
        return asarray(value, device=like.device)
    if isinstance(value, (list, tuple)) and any(isinstance(v, (Array, np.ndarray))
                                                for v in value):
        return type(value)(_ours(v, like) for v in value)
    return value


def _host(value: Any) -> Any:
    """Our arrays (also inside lists, tuples and dicts) as NumPy arrays (host copies)."""
    if isinstance(value, Array):
        return np.asarray(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_host(v) for v in value)
    if isinstance(value, dict):
        return {k: _host(v) for k, v in value.items()}
    return value


def _on_numpy(call: Any, args: tuple, kwargs: dict) -> Any:
    return call(*_host(args), **_host(kwargs))


def _back(value: Any, like: Array) -> Any:
    """NumPy's results (also in a tuple) as our arrays on like's device, where the namespace
    has their dtype (a string or object result stays NumPy's)."""
    if isinstance(value, tuple):
        return tuple(_back(v, like) for v in value)
    if isinstance(value, (np.ndarray, np.generic)):
        try:
            return asarray(value, device=like.device)
        except TypeError:
            return value
    return value


def array_ufunc(ns: Any, ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    name = UFUNCS.get(ufunc.__name__)
    fn = getattr(ns, name, None) if name else None
    out = kwargs.pop("out", None)
    like = next(x for x in (*inputs, *(out or ())) if isinstance(x, Array))
    outs_ours = out is None or all(isinstance(o, Array) for o in out)
    if fn is None or method != "__call__" or kwargs or not outs_ours or \
            len(inputs) != ufunc.nin:
        if out is not None:
            kwargs["out"] = out
            return _on_numpy(getattr(ufunc, method), inputs, kwargs)
        if method == "at" and not like._st.backend.is_cpu:
            # NumPy's ufunc.at works in place: on a host copy it would change nothing.
            raise TypeError(f"np.{ufunc.__name__}.at: our array on {like.device} has no host "
                            f"view to change in place; use the namespace's indexing "
                            f"(x[i] = ...)")
        # A ufunc the namespace lacks (scipy.special.erf, np.cbrt) or a method (reduce,
        # outer): NumPy's over host copies, our arrays out, as CuPy, Dask and sparse answer.
        return _back(_on_numpy(getattr(ufunc, method), inputs, kwargs), like)
    result = fn(*(_ours(x, like) for x in inputs))
    if out is None:
        return result
    assign(out[0], result)        # the result converted to out's dtype, as NumPy's casting
    return out[0]


@functools.cache
def _parameters(func: Any) -> list[inspect.Parameter] | None:
    try:
        return list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None


def _ours_for(ns: Any, func: Any) -> Any:
    module = getattr(func, "__module__", "") or ""
    place = ns
    for sub in ("linalg", "fft"):
        if module == f"numpy.{sub}":
            place = getattr(ns, sub)
    name = func.__name__
    return getattr(place, FUNCTIONS.get(name, name), None)


def _translate(func: Any, ours: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict] | None:
    """NumPy's call as a call of ours: positional-only parameters (and the first) by
    position, the others by their name (PARAMETERS renames); arguments left at NumPy's
    default mark (None, np._NoValue) dropped. None where ours does not take the call."""
    theirs, mine = _parameters(func), _parameters(ours)
    if theirs is None or mine is None:
        return None
    try:
        bound = inspect.Signature(theirs).bind(*args, **kwargs)
    except TypeError:
        return None
    pos, kw = [], {}
    for k, p in enumerate(theirs):
        if p.name not in bound.arguments:
            continue
        value = bound.arguments[p.name]
        if p.kind == p.VAR_KEYWORD:
            if value:
                return None
            continue
        if k == 0 or p.kind == p.POSITIONAL_ONLY:
            pos.append(value)
        elif not (value is p.default and any(value is v for v in _ABSENT)):
            # None given where NumPy's default is another (np.sort(x, axis=None): flatten)
            # keeps its meaning: passed on, or refused by ours and run on NumPy
            kw[PARAMETERS.get(p.name, p.name)] = value
    try:
        inspect.Signature(mine).bind(*pos, **kw)
    except TypeError:
        return None
    return tuple(pos), kw


def array_function(ns: Any, func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
    if not all(issubclass(t, (Array, np.ndarray)) for t in types):
        return NotImplemented
    ours = _ours_for(ns, func)
    call = _translate(func, ours, args, kwargs) if ours is not None else None
    if call is None:
        return _on_numpy(getattr(func, "_implementation", func), args, kwargs)
    like = next(_arrays((args, kwargs)))
    pos, kw = call
    try:
        return ours(*(_ours(a, like) for a in pos), **{k: _ours(v, like) for k, v in kw.items()})
    except TypeError:
        # The standard's function is stricter than NumPy's (np.fft.fft of real input, an
        # integer argument where it takes floats): a NumPy call keeps NumPy's meaning.
        return _on_numpy(getattr(func, "_implementation", func), args, kwargs)


def _arrays(value: Any):
    if isinstance(value, Array):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _arrays(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _arrays(v)
