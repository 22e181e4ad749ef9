"""A seeded random test of the namespace on views: random functions (elementwise, where,
clip, reductions, scans, conversions) of random views (steps of either sign, offsets,
transposes, broadcasts) of random arrays, each result compared byte for byte with the same
call on a contiguous copy of the same values. Our kernels promise the same bits whatever the
view (docs/array-api.md), so the copy is the reference; the integer and comparison results
are also checked against NumPy. Every function meets every dtype 3 times by default (about
1700 cases, a second or two); NPU_EMU_FUZZ=1 makes it 40 times, NPU_EMU_FUZZ_SEED=N another
seed. (Its first run found abs of an unsigned view with a reversed axis crashing the
process.)"""
from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import npu_emu.array_api as xp

FUZZ = os.environ.get("NPU_EMU_FUZZ") == "1"
SEED = int(os.environ.get("NPU_EMU_FUZZ_SEED", "20261207"))

DTYPES = ["float32", "float64", "float16", "int8", "uint8", "int32", "int64", "uint16",
          "bool", "complex64"]
UNARY = ["abs", "negative", "positive", "square", "sign", "floor", "round", "exp", "log1p",
         "sqrt", "tanh", "sin", "isnan", "isfinite", "logical_not", "bitwise_invert", "conj",
         "** c"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "less", "equal",
          "not_equal", "greater_equal", "logical_or", "bitwise_and", "atan2", "pow",
          "floor_divide", "remainder", "hypot", "copysign"]
REDUCE = ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all", "var",
          "cumulative_sum"]
# Functions whose result NumPy computes exactly as we do (no rounding of our own: integer
# wrap-around, comparisons, selections), checked against NumPy as well.
EXACT = {"abs", "negative", "positive", "square", "maximum", "minimum", "less", "equal",
         "not_equal", "greater_equal", "logical_or", "logical_not", "bitwise_and",
         "bitwise_invert", "isnan", "isfinite", "add", "subtract", "multiply"}


def _values(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape))
    if dtype == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        if rng.random() < 0.5:       # small values, and values that wrap
            lo, hi = max(int(info.min), -9), min(int(info.max), 9)
        else:
            lo, hi = int(info.min), int(info.max)
        return rng.integers(lo, hi, n, dtype=dtype, endpoint=True).reshape(shape)
    v = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
    special = rng.random(n) < 0.08
    v[special] = rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan], int(special.sum()))
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype.startswith("complex"):
            v = v + 1j * rng.permutation(v)
        return v.astype(dtype).reshape(shape)


def _view_of(rng: np.random.Generator, shape: tuple[int, ...]) -> tuple[tuple, list | None]:
    """A random basic view of an array of `shape`: per axis a start and a step of either
    sign (the index), perhaps a transpose (the axes' order)."""
    key = []
    for n in shape:
        step = int(rng.choice([1, 1, 2, 3, -1, -1, -2]))
        start = int(rng.integers(0, max(1, n // 3)))
        key.append(slice(start, None, step) if step > 0 else slice(n - 1 - start, None, step))
    perm = rng.permutation(len(shape)).tolist() if len(shape) >= 2 and rng.random() < 0.4 else None
    return tuple(key), perm


def _apply(a, key: tuple, perm: list | None):
    """The view (key, perm) of a NumPy array or of ours."""
    v = a[key]
    if perm is None:
        return v
    return v.transpose(perm) if isinstance(v, np.ndarray) else xp.permute_dims(v, tuple(perm))


def _view(rng: np.random.Generator, a: np.ndarray) -> np.ndarray:
    return _apply(a, *_view_of(rng, a.shape))


def _shape(rng: np.random.Generator) -> tuple[int, ...]:
    ndim = int(rng.integers(1, 4))
    return tuple(int(rng.integers(2, 9)) for _ in range(ndim))


def _ours(v: np.ndarray) -> xp.Array:
    """Our array over the same memory as the NumPy view (asarray shares it: reversed axes and
    all); the view is checked to be ours."""
    x = xp.asarray(v)
    assert x.shape == v.shape
    return x


def _copy(v: np.ndarray) -> xp.Array:
    return xp.asarray(np.array(v, order="C"))


def _bytes(x: object) -> tuple:
    if not isinstance(x, xp.Array):
        return ("scalar", repr(x))
    a = np.asarray(x)
    return (str(x.dtype), a.shape, np.ascontiguousarray(a).view(np.uint8).tobytes())


def _call(rng: np.random.Generator, kind: str, name: str, a: np.ndarray, b: object):
    """(ours on the views, ours on contiguous copies, NumPy's or None)."""
    if kind == "unary" and name == "** c":    # a Python exponent (CANN's Pows composites)
        c = [0.5, -0.5, 3, -1, -2, 2, 1.5][int(rng.integers(0, 7))]
        return lambda m: m(a) ** c, None
    if kind == "unary":
        f = getattr(xp, name)
        return lambda m: f(m(a)), None
    if kind == "binary":
        f = getattr(xp, name)
        return lambda m: f(m(a), m(b) if isinstance(b, np.ndarray) else b), None
    if kind == "where":
        cond = a.real > 0 if a.dtype.kind == "c" else a.astype(bool)
        return lambda m: xp.where(m(cond), m(a), m(b) if isinstance(b, np.ndarray) else b), None
    if kind == "clip":
        lo, hi = sorted(rng.integers(-3, 4, 2).tolist())
        return lambda m: xp.clip(m(a), lo, hi), None
    if kind == "astype":
        to = getattr(xp, str(rng.choice(["float32", "int16", "float64", "uint8", "bool"])))
        return lambda m: xp.astype(m(a), to), None
    axis = int(rng.integers(-1, a.ndim))
    axis = None if axis < 0 or (name == "cumulative_sum" and a.ndim > 1 and axis < 0) else axis
    if name == "cumulative_sum" and axis is None and a.ndim > 1:
        axis = 0
    f = getattr(xp, name)
    return lambda m: f(m(a), axis=axis), None


def _one_case(rng: np.random.Generator, kind: str, name: str, dt: str) -> str:
    base = _values(rng, dt, tuple(n + 3 for n in _shape(rng)))
    a = _view(rng, base)
    b: object = None
    if kind in ("binary", "where"):
        r = rng.random()
        dt2 = dt if rng.random() < 0.6 else str(rng.choice(DTYPES))
        if r < 0.5:     # another view of the same shape
            b = _view(rng, _values(rng, dt2, tuple(2 * n + 1 for n in a.shape)))
            b = b[tuple(slice(0, n) for n in a.shape)] if b.shape >= a.shape else None
            if b is None or b.shape != a.shape:
                b = _values(rng, dt2, a.shape)
        elif r < 0.8:   # a row that broadcasts, reversed or not
            row = _values(rng, dt2, (a.shape[-1],))
            b = row[::-1] if rng.random() < 0.5 else row
        else:           # a Python scalar of the array's kind
            b = (float(rng.standard_normal()) if a.dtype.kind in "fc"
                 else bool(rng.random() < 0.5) if a.dtype == bool else int(rng.integers(0, 5)))
    run, _ = _call(rng, kind, name, a, b)
    outcome = []
    for make in (_ours, _copy):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                outcome.append(_bytes(run(make)))
        except (TypeError, ValueError, OverflowError) as err:   # refusals: the same either way
            outcome.append(("refused", type(err).__name__, str(err)))
    what = f"{kind} {name} of {dt} {a.shape} strides {a.strides} with {type(b).__name__}"
    assert outcome[0] == outcome[1], what
    if outcome[0][0] != "refused" and name in EXACT and kind in ("unary", "binary") \
            and a.dtype.kind in "iub" and (not isinstance(b, np.ndarray) or b.dtype == a.dtype):
        with np.errstate(all="ignore"):
            want = getattr(np, {"bitwise_invert": "invert"}.get(name, name))(
                *([a] if kind == "unary" else [a, b]))
        got = np.asarray(run(_ours))
        if got.dtype == want.dtype:
            np.testing.assert_array_equal(got, want, err_msg=what)
    return outcome[0][0]


# Every function with every dtype, each with fresh random views: ROUNDS times over.
COMBOS = [(kind, name, dt) for kind, names in (("unary", UNARY), ("binary", BINARY),
                                               ("reduce", REDUCE), ("where", ["where"]),
                                               ("clip", ["clip"]), ("astype", ["astype"]))
          for name in names for dt in DTYPES]
ROUNDS = 40 if FUZZ else 3


@pytest.mark.parametrize("block", range(4))
def test_views_give_the_bits_of_contiguous_copies(block):
    rng = np.random.default_rng([SEED, block])
    kinds = [_one_case(rng, *combo) for _ in range(ROUNDS) for combo in COMBOS[block::4]]
    # the slice exercises more than refusals
    assert sum(k != "refused" for k in kinds) > len(kinds) // 2



# ---------------------------------------------------------------- in place, into views
INPLACE = {"__iadd__": "add", "__isub__": "subtract", "__imul__": "multiply",
           "__itruediv__": "divide", "__iand__": "bitwise_and", "__imod__": "remainder",
           "__setitem__": None}


def _inplace_case(rng: np.random.Generator, op: str, dt: str) -> str:
    """x_view op= y (and x_view[...] = y) with x_view a random view of a base array shared
    with NumPy: the view's elements become the out-of-place result's bytes, and no other
    byte of the base changes (the destination is written in place, reversed axes and all)."""
    base = _values(rng, dt, tuple(n + 3 for n in _shape(rng)))
    key, perm = _view_of(rng, base.shape)
    where = _apply(np.arange(base.size).reshape(base.shape), key, perm).reshape(-1)
    x = xp.asarray(base)                               # base's own memory
    xv = _apply(x, key, perm)
    y = _values(rng, dt if rng.random() < 0.7 else str(rng.choice(DTYPES)), xv.shape)
    if rng.random() < 0.3 and y.ndim:
        y = y[..., ::-1]
    before = base.copy()
    rows = base.reshape(-1).view(np.uint8).reshape(base.size, -1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            if op == "__setitem__":
                want = _bytes(xp.astype(xp.asarray(y), xv.dtype))
                xv[...] = xp.asarray(y)
            else:
                want = _bytes(getattr(xp, INPLACE[op])(_copy(np.asarray(xv)), xp.asarray(y)))
                getattr(xv, op)(xp.asarray(y))
    except (TypeError, ValueError, OverflowError):
        assert rows.tobytes() == before.tobytes(), f"a refused {op} wrote"
        return "refused"
    what = f"{op} {dt} view {xv.shape} of {base.shape} ({key}, {perm})"
    assert want[0] == str(xv.dtype), what               # in place keeps x's dtype
    assert rows[where].tobytes() == want[2], what
    outside = np.setdiff1d(np.arange(base.size), where)
    old = before.reshape(-1).view(np.uint8).reshape(base.size, -1)
    assert rows[outside].tobytes() == old[outside].tobytes(), f"{what}: wrote outside the view"
    return dt


@pytest.mark.parametrize("op", sorted(INPLACE))
def test_in_place_into_views_writes_the_view_alone(op):
    rng = np.random.default_rng([SEED, len(op), ord(op[3])])
    kinds = [_inplace_case(rng, op, dt) for _ in range(ROUNDS * 4) for dt in DTYPES]
    assert sum(k != "refused" for k in kinds) >= len(kinds) // 4


# --------------------------------------------------- the other chapters, on views
def _other_calls(rng: np.random.Generator, a: np.ndarray, b: np.ndarray) -> dict:
    """name -> a call on (our a, our b) made the same way for the views and the copies."""
    axis = int(rng.integers(0, a.ndim))
    shift = int(rng.integers(-3, 4))
    k = min(a.shape[-1], b.shape[0] if b.ndim else 1)
    return {
        # (float64 and complex matmuls are the library's BLAS, whose sums depend on the
        # layout: docs/array-api.md lists them with linalg)
        "matmul": lambda x, y: xp.matmul(x[..., :k], y[:k]) if y.ndim and x.dtype not in (
            xp.float64, xp.complex64) else None,
        "matrix_transpose": lambda x, y: xp.matrix_transpose(x) + 0 if x.ndim >= 2 else None,
        "concat": lambda x, y: xp.concat([x, x], axis=axis),
        "stack": lambda x, y: xp.stack([x, x], axis=axis),
        "sort": lambda x, y: xp.sort(x, axis=axis),
        "argsort": lambda x, y: xp.argsort(x, axis=axis, stable=True),
        "take": lambda x, y: xp.take(x, xp.asarray([0, x.shape[axis] - 1, 0]), axis=axis),
        "roll": lambda x, y: xp.roll(x, shift, axis=axis),
        "flip+1": lambda x, y: xp.flip(x, axis=axis) * 1,
        "reshape": lambda x, y: xp.reshape(x, (-1,)),
        "moveaxis": lambda x, y: xp.moveaxis(x, 0, -1) + 0,
        "std": lambda x, y: xp.std(x, axis=axis, correction=1),
        "cumulative_prod": lambda x, y: xp.cumulative_prod(x, axis=axis),
        "vector_norm": lambda x, y: xp.linalg.vector_norm(x, axis=axis),
        "count_nonzero": lambda x, y: xp.count_nonzero(x, axis=axis),
        "nonzero": lambda x, y: xp.stack(xp.nonzero(x)) if x.ndim else None,
        "unique_values": lambda x, y: xp.unique_values(x),
        "diff": lambda x, y: xp.diff(x, axis=axis),
        "tril": lambda x, y: xp.tril(x) if x.ndim >= 2 else None,
        "clip(array bounds)": lambda x, y: xp.clip(x, x[..., :1], None),
        "where(scalar)": lambda x, y: xp.where(x > 0, x, 0) if x.dtype != xp.bool else None,
    }


OTHERS = sorted(_other_calls(np.random.default_rng(0), np.zeros((2, 2)), np.zeros(2)))


def _other_case(rng: np.random.Generator, name: str, dt: str) -> str:
    a = _view(rng, _values(rng, dt, tuple(n + 3 for n in _shape(rng))))
    b = _view(rng, _values(rng, dt, (a.shape[-1] + 3, 4)))
    call = _other_calls(rng, a, b)[name]
    outcome = []
    for make in (_ours, _copy):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                got = call(make(a), make(b))
            outcome.append(_bytes(got) if got is not None else ("none",))
        except (TypeError, ValueError, OverflowError) as err:
            outcome.append(("refused", type(err).__name__, str(err)))
    assert outcome[0] == outcome[1], f"{name} of {dt} {a.shape} strides {a.strides}"
    return outcome[0][0]


@pytest.mark.parametrize("name", OTHERS)
def test_the_other_chapters_on_views_give_the_bits_of_copies(name):
    rng = np.random.default_rng([SEED, sum(map(ord, name))])
    kinds = [_other_case(rng, name, dt) for _ in range(ROUNDS * 2) for dt in DTYPES]
    assert sum(k not in ("refused", "none") for k in kinds) >= len(kinds) // 3


# ------------------------------------------------ indexing and searching, on views
def _index_calls(rng: np.random.Generator, a: np.ndarray) -> dict:
    """name -> a call on our a (the same for the view and the copy): advanced indexing,
    masks, assignment through them into a copy, searching and sorting helpers."""
    n0 = a.shape[0]
    rows = rng.integers(-n0, n0, int(rng.integers(1, 7))).tolist()
    mask = rng.random(a.shape) < 0.5
    axis = int(rng.integers(0, a.ndim))

    def set_mask(x):   # the selected elements get the first element's value (a 0-d array)
        y = xp.asarray(x, copy=True)
        y[xp.asarray(mask)] = x[(0,) * x.ndim]
        return y

    def set_rows(x):
        y = xp.asarray(x, copy=True)
        y[xp.asarray(rows[:1])] = x[-1:] if x.ndim else x
        return y

    return {
        "x[int array]": lambda x: x[xp.asarray(rows)],
        "x[mask]": lambda x: x[xp.asarray(mask)],
        "x[mask] = ...": set_mask,
        "x[rows] = ...": set_rows,
        "take_along_axis": lambda x: xp.take_along_axis(
            x, xp.argsort(x, axis=axis, stable=True), axis=axis),
        "argmin": lambda x: xp.argmin(x, axis=axis),
        "searchsorted": lambda x: xp.searchsorted(xp.sort(xp.reshape(x, (-1,))), x)
        if x.dtype != xp.bool else None,
        "unique_counts": lambda x: xp.stack(list(xp.unique_counts(x)[1:])),
        "unique_inverse": lambda x: xp.unique_inverse(x)[1],
        "count_nonzero(axis)": lambda x: xp.count_nonzero(x, axis=axis),
        "repeat": lambda x: xp.repeat(x, 2, axis=axis),
        "tile": lambda x: xp.tile(x, (2,) * x.ndim),
        "expand_dims+broadcast": lambda x: xp.broadcast_to(xp.expand_dims(x, axis=0),
                                                            (2, *x.shape)) * 1
        if x.dtype != xp.bool else None,
    }


INDEXING = sorted(_index_calls(np.random.default_rng(0), np.zeros((3, 3))))


def _index_case(rng: np.random.Generator, name: str, dt: str) -> str:
    a = _view(rng, _values(rng, dt, tuple(n + 3 for n in _shape(rng))))
    call = _index_calls(rng, a)[name]
    outcome = []
    for make in (_ours, _copy):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                got = call(make(a))
            outcome.append(_bytes(got) if got is not None else ("none",))
        except (TypeError, ValueError, OverflowError, IndexError) as err:
            outcome.append(("refused", type(err).__name__, str(err)))
    assert outcome[0] == outcome[1], f"{name} of {dt} {a.shape} strides {a.strides}"
    return outcome[0][0]


@pytest.mark.parametrize("name", INDEXING)
def test_indexing_and_searching_on_views_give_the_bits_of_copies(name):
    rng = np.random.default_rng([SEED, 7, sum(map(ord, name))])
    kinds = [_index_case(rng, name, dt) for _ in range(ROUNDS * 2) for dt in DTYPES]
    assert sum(k not in ("refused", "none") for k in kinds) >= len(kinds) // 4
