"""The array layer's caches on the host path give what planning afresh gives: the kernel
families' plans by the views they run on, the shared read-only scalar constants, and the
memo of a binary function's dtype decision (refusals are raised every time). References:
NumPy 2.x's results for the same float64 inputs (add, divide, multiply are correctly
rounded in both)."""
from __future__ import annotations

import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu import check
from npu_emu.array_api._engine import kernel, scalars
from npu_emu.ops._core import clear_plan_cache

from helpers import canonical_nan, count_calls, sequential_matmul

# The short way to our operators' cached plans (ops._core.run_bound) is off while the
# sanitizer runs (NPU_EMU_CHECK): every call then takes the full path, which it checks.
operator_short_way = pytest.mark.skipif(check.ON, reason="NPU_EMU_CHECK sends every operator "
                                        "call down the full path, which the checker sees")


def _data(seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((30, 8))


def test_a_repeated_kernel_family_call_takes_its_plan_from_the_cache(cpu_backend):
    a, b = _data(1), _data(2) + 3.0
    x, y = xp.asarray(a), xp.asarray(b)
    clear_plan_cache()
    assert not kernel._family_plans
    first = np.asarray(x / y)
    kept = len(kernel._family_plans)
    assert kept >= 1
    for _ in range(3):                 # new results each call, at recycled addresses
        np.testing.assert_array_equal(np.asarray(x / y), a / b)
    np.testing.assert_array_equal(first, a / b)
    assert len(kernel._family_plans) <= kept + 2     # the same views: no new plans
    # Other views of the same memory are planned for themselves, not taken from the cache.
    np.testing.assert_array_equal(np.asarray(x[::2] / y[1::2]), a[::2] / b[1::2])
    np.testing.assert_array_equal(np.asarray(x[:, ::-1] / y), a[:, ::-1] / b)
    np.testing.assert_array_equal(np.asarray(xp.sum(x, axis=0)), np.asarray(xp.sum(x, axis=0)))
    clear_plan_cache()                 # emptied with the operators' cache
    assert not kernel._family_plans
    np.testing.assert_array_equal(np.asarray(x / y), a / b)


def test_a_reduction_plan_is_reused_only_for_the_same_call(cpu_backend):
    a = _data(4)
    x = xp.asarray(a)
    want0, want1 = np.asarray(xp.sum(x, axis=0)), np.asarray(xp.sum(x, axis=1))
    assert want0.shape == (8,) and want1.shape == (30,)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(xp.sum(x, axis=0)), want0)
        np.testing.assert_array_equal(np.asarray(xp.sum(x, axis=1)), want1)
        assert np.asarray(xp.max(x)) == a.max() and np.asarray(xp.min(x)) == a.min()
    np.testing.assert_allclose(want0, a.sum(axis=0), rtol=1e-15, atol=1e-13)


def test_scalar_operands_are_shared_read_only_constants(cpu_backend):
    a = _data(5)
    x = xp.asarray(a)
    np.testing.assert_array_equal(np.asarray(x / 2.0), a / 2.0)
    np.testing.assert_array_equal(np.asarray(x / 2.0), a / 2.0)
    c = scalars.scalar_constant(2.0, x._t.dtype, x._st.backend)
    assert c is scalars.scalar_constant(2.0, x._t.dtype, x._st.backend)
    assert c._st.readonly
    with pytest.raises(ValueError, match="read-only"):
        kernel.check_writable(c)
    r = x + 1.0
    assert not r._st.readonly           # results are never the constants
    r[0, 0] = 5.0
    assert float(r[0, 0]) == 5.0 and float(x[0, 0] + 1.0) == a[0, 0] + 1.0


def test_an_assigned_python_scalar_is_read_from_its_shared_constant(cpu_backend):
    """x[key] = scalar reads the scalar's shared read-only constant (one upload per value):
    the values land where NumPy's assignment puts them, signed zeros keep their sign, and the
    constant itself is never written (a later x + 1.0 still adds one). Reference: NumPy's
    assignment of the same values."""
    a = _data(6)
    x, want = xp.asarray(a, copy=True), a.copy()
    be = x._st.backend
    for key, v in (((0, 0), 5.0), ((slice(None), 1), -0.0), (a < 0, 1.0),
                   ((slice(1, 3), slice(None)), 2), (a > 1, -0.0)):
        x[xp.asarray(key) if isinstance(key, np.ndarray) else key] = v
        want[key] = v
        assert np.asarray(x).tobytes() == want.tobytes()
    c = scalars.scalar_constant(1.0, x._t.dtype, be)
    x[2, 2] = 1.0
    assert scalars.scalar_constant(1.0, x._t.dtype, be) is c and c._st.readonly
    x[2, 2] = 7.0                          # x's memory changes; the constant 1.0 does not
    assert float(c) == 1.0
    np.testing.assert_array_equal(np.asarray(xp.asarray(a, copy=True) + 1.0), a + 1.0)


def test_signed_zeros_and_nans_are_constants_of_their_own(cpu_backend):
    x = xp.asarray(np.array([1.0, -2.0, 0.0]))
    plus, minus = np.asarray(x * 0.0), np.asarray(x * -0.0)
    assert np.signbit(plus).tolist() == [False, True, False]
    assert np.signbit(minus).tolist() == [True, False, True]
    for _ in range(2):
        assert np.isnan(np.asarray(x + float("nan"))).all()
    be = x._st.backend
    assert scalars.scalar_constant(0.0, x._t.dtype, be) is not \
        scalars.scalar_constant(-0.0, x._t.dtype, be)
    assert scalars.scalar_constant(1, x._t.dtype, be) is not \
        scalars.scalar_constant(True, x._t.dtype, be)


def test_a_refused_binary_call_is_refused_every_time(cpu_backend):
    t = xp.asarray([True, False])
    for _ in range(3):                   # the decision memo keeps no refusal
        with pytest.raises(TypeError, match="numeric"):
            xp.add(t, t)
    i = xp.asarray([1, 2], dtype=xp.int32)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(xp.add(i, i)), [2, 4])
        with pytest.raises(ValueError):
            xp.add(i, xp.asarray([1, 2, 3], dtype=xp.int32))


def test_the_tiny_eager_path_gives_numpys_results(cpu_backend):
    a = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    b = np.array([0.5, 0.25, 2.0, 8.0], np.float32)
    x, y = xp.asarray(a), xp.asarray(b)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(xp.add(x, y)), a + b)
        np.testing.assert_array_equal(np.asarray(xp.multiply(x, y)), a * b)
        np.testing.assert_array_equal(np.asarray(x - y), a - b)


@pytest.fixture
def full_path(cpu_backend, monkeypatch):
    """A counter of the elementwise functions' full path (operands checked and promoted)."""
    from npu_emu.array_api._engine import ufunc
    calls = {"n": 0}

    def counted(fn):
        def wrapper(*a):
            calls["n"] += 1
            return fn(*a)
        return wrapper
    monkeypatch.setattr(ufunc, "operands", counted(ufunc.operands))
    monkeypatch.setattr(ufunc, "check_kind", counted(ufunc.check_kind))
    clear_plan_cache()
    return calls


@operator_short_way
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "float16"])
def test_a_repeated_binary_call_skips_to_its_plan_and_gives_the_full_paths_bits(full_path, dtype):
    """float32 adds run on our operator, float64 divides, int32 maximum and the unary
    functions on our ufunc kernel: each repeated call with the same geometry (arrays, or an
    array and the same Python scalar) goes straight to its cached plan, and gives what the
    full path gives."""
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((12, 5)) * 4).astype(dtype)
    b = (rng.standard_normal((1, 5)) * 4 + 9).astype(dtype)
    x, y = xp.asarray(a), xp.asarray(b)
    s = 3 if dtype == "int32" else 0.75
    calls = [lambda: xp.add(x, y), lambda: xp.divide(x, y) if dtype != "int32" else xp.maximum(x, y),
             lambda: x * s, lambda: s - x, lambda: xp.multiply(y, y),
             lambda: xp.abs(x), lambda: -x]
    first = [np.asarray(f()) for f in calls]
    seen = full_path["n"]
    assert seen >= len(calls)
    again = [np.asarray(f()) for f in calls for _ in range(3)][::3]
    assert full_path["n"] == seen                  # every repeat took the short way
    for f, g in zip(first, again):
        assert f.dtype == g.dtype and f.tobytes() == g.tobytes()
    np.testing.assert_array_equal(first[0], a + b)
    np.testing.assert_array_equal(first[2], a * np.asarray(s, dtype))
    clear_plan_cache()                             # no plan: the full path again
    np.testing.assert_array_equal(np.asarray(xp.add(x, y)), first[0])
    assert full_path["n"] > seen


def test_the_short_way_keeps_scalars_apart_by_their_bits(full_path):
    x = xp.asarray(np.array([1.0, -2.0, 3.0]))
    for _ in range(2):
        assert np.signbit(np.asarray(x * 0.0)).tolist() == [False, True, False]
        assert np.signbit(np.asarray(x * -0.0)).tolist() == [True, False, True]
        assert np.asarray(xp.copysign(x, float("nan"))).tolist() == [1.0, 2.0, 3.0]
        assert np.asarray(xp.copysign(x, -float("nan"))).tolist() == [-1.0, -2.0, -3.0]
        np.testing.assert_array_equal(np.asarray(x + True), [2.0, -1.0, 4.0])
        np.testing.assert_array_equal(np.asarray(x + 1), [2.0, -1.0, 4.0])


@operator_short_way
def test_the_short_way_follows_the_context(full_path):
    """Another SoC is another context: its calls take the full path once for themselves."""
    from npu_emu import arch
    a = np.array([1.5, 2.5], np.float32)
    x = xp.asarray(a)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(x + x), a + a)
    seen = full_path["n"]
    before = arch.current_soc().name
    arch.set_soc("Ascend310P" if before != "Ascend310P" else "Ascend910B")
    try:
        for _ in range(2):
            np.testing.assert_array_equal(np.asarray(x + x), a + a)
        after = full_path["n"]
        assert after > seen
        np.testing.assert_array_equal(np.asarray(x + x), a + a)
        assert full_path["n"] == after      # once for itself
    finally:
        arch.set_soc(before)


def test_a_repeated_reduction_skips_to_its_plan_and_refuses_what_it_refused(full_path):
    """Reductions take the short way too, keyed by their parameters with their types, and
    give the full path's bits; a refused parameter (correction=False, a bool) is still
    refused after the same call with correction=0 was remembered."""
    a = np.random.default_rng(9).standard_normal((40, 6))
    x = xp.asarray(a)
    calls = [lambda: xp.sum(x, axis=0), lambda: xp.mean(x, axis=1, keepdims=True),
             lambda: xp.std(x, axis=0, correction=1), lambda: xp.max(x), lambda: xp.var(x, correction=0)]
    first = [np.asarray(f()) for f in calls]
    seen = full_path["n"]
    again = [np.asarray(f()) for f in calls]
    assert full_path["n"] == seen
    for f, g in zip(first, again):
        assert f.tobytes() == g.tobytes()
    np.testing.assert_allclose(first[2], a.std(axis=0, ddof=1), rtol=1e-13)
    assert first[1].shape == (40, 1) and first[3] == a.max()
    with pytest.raises(TypeError, match="correction"):
        xp.var(x, correction=False)
    np.testing.assert_array_equal(np.asarray(xp.sum(x, axis=1)), np.asarray(xp.sum(x, axis=(1,))))


def test_repeated_all_and_any_skip_to_their_plan_and_read_the_new_values(cpu_backend,
                                                                         monkeypatch):
    """all and any take the short way too: a repeated call on an array of the same geometry
    runs its plan without the full path, on the values the array holds now. Reference:
    NumPy's all and any."""
    from npu_emu.array_api import _utility
    full = count_calls(monkeypatch, _utility, "reduce_into")
    clear_plan_cache()
    rng = np.random.default_rng(29)
    masks = [rng.random((12, 5)) < p for p in (0.0, 0.05, 0.5, 1.0)]
    calls = [(lambda m: xp.any(m), lambda a: a.any()),
             (lambda m: xp.all(m, axis=0), lambda a: a.all(axis=0)),
             (lambda m: xp.any(m, axis=1, keepdims=True), lambda a: a.any(axis=1, keepdims=True)),
             (lambda m: xp.all(m, axis=(0, 1)), lambda a: a.all())]
    _repeats_without_the_full_path(full, "reduce_into", calls, masks, np.bool_)
    with pytest.raises(TypeError):
        xp.any(xp.asarray(masks[0]), keepdims=1)   # refused every time, remembered or not


def test_a_repeated_vector_norm_skips_to_its_sum_of_squares_plan(cpu_backend, monkeypatch):
    """vector_norm (ord 2, real) takes the short way to its one-pass sum of squares: a
    repeated call on an array of the same geometry runs that plan without the full path, on
    the values the array holds now. Reference: NumPy's sqrt of the float64 sum of squares,
    within float32's rounding of the sum."""
    from npu_emu.array_api import linalg
    full = count_calls(monkeypatch, linalg, "sum_of_squares")
    clear_plan_cache()
    rng = np.random.default_rng(43)
    data = [rng.standard_normal((9, 13)).astype(np.float32) for _ in range(3)]
    calls = [(lambda m: xp.linalg.vector_norm(m), lambda a: np.linalg.norm(a.astype(np.float64))),
             (lambda m: xp.linalg.vector_norm(m, axis=0),
              lambda a: np.linalg.norm(a.astype(np.float64), axis=0)),
             (lambda m: xp.linalg.vector_norm(m, axis=1, keepdims=True),
              lambda a: np.linalg.norm(a.astype(np.float64), axis=1, keepdims=True))]
    _repeats_without_the_full_path(full, "sum_of_squares", calls, data, np.float32,
                                   lambda got, ref: np.testing.assert_allclose(got, ref, rtol=4e-6))


def _same_bytes(got: np.ndarray, want: np.ndarray) -> None:
    assert got.tobytes() == want.tobytes(), (got, want)


def _repeats_without_the_full_path(full: dict, counted: str, calls: list, data: list,
                                   dtype: type | None, check=None) -> None:
    """Each of `calls` (ours, NumPy's) on arrays of data[0]'s geometry, then on each of `data`
    in turn: NumPy's values and dtype (`dtype`; None: the reference's own), or what
    check(got, want) asserts, and no call of the full path's `counted` after the first round.
    Copies in the pool: imports of NumPy's memory sit at other offsets, which a plan may read
    (ops._bindings.signature), so each import is planned once for itself."""
    for ours, _ in calls:
        ours(xp.asarray(data[0], copy=True))
    planned = full[counted]
    for a in data:
        m = xp.asarray(a, copy=True)
        for ours, want in calls:
            got, ref = np.asarray(ours(m)), want(a)
            assert got.dtype == (ref.dtype if dtype is None else dtype) and got.shape == ref.shape
            if check is None:
                np.testing.assert_array_equal(got, ref)
            else:
                check(got, ref)
    assert full[counted] == planned


def test_repeated_argmax_and_argmin_skip_to_their_plan_and_read_the_new_values(cpu_backend,
                                                                             monkeypatch):
    """argmax and argmin take the short way: a repeated call on an array of the same geometry
    runs its plan without the full path, on the values the array holds now (NaNs and ties
    included: the first index). Reference: NumPy's argmax and argmin."""
    from npu_emu.array_api import _searching
    full = count_calls(monkeypatch, _searching, "arg_reduce")
    clear_plan_cache()
    rng = np.random.default_rng(31)
    data = [rng.integers(0, 4, (9, 13)).astype(np.float32) for _ in range(3)]
    data[1][2, 3] = data[1][5, 0] = np.nan
    calls = [(lambda m: xp.argmax(m), lambda a: np.argmax(a)),
             (lambda m: xp.argmin(m, axis=0), lambda a: np.argmin(a, axis=0)),
             (lambda m: xp.argmax(m, axis=1, keepdims=True),
              lambda a: np.argmax(a, axis=1, keepdims=True))]
    _repeats_without_the_full_path(full, "arg_reduce", calls, data, np.int64)
    with pytest.raises(ValueError):
        xp.argmax(xp.zeros((0,)))        # refused every time, remembered never


@operator_short_way
def test_a_repeated_astype_skips_to_its_plan_and_reads_the_new_values(cpu_backend, monkeypatch):
    """astype takes the short way where it is aclnnCast: a repeated call on an array of the
    same geometry (transposed and strided views too) runs the cached plan without the full
    path, on the values the array holds now. Reference: NumPy's astype (the conversions
    here are exact, or round to nearest even as NumPy does)."""
    from npu_emu.array_api import _data_type_functions as dtf
    full = count_calls(monkeypatch, dtf, "call_new")
    clear_plan_cache()
    rng = np.random.default_rng(41)
    data = [rng.standard_normal((7, 10)) * 3 for _ in range(3)]
    data[1][0, 0], data[1][2, 3] = -0.0, np.inf
    calls = [(lambda m: xp.astype(m, xp.float32), lambda a: a.astype(np.float32)),
             (lambda m: xp.astype(m > 0, xp.float64), lambda a: (a > 0).astype(np.float64)),
             (lambda m: xp.astype(m.T, xp.float16), lambda a: a.T.astype(np.float16)),
             (lambda m: xp.astype(m[::2, 1::3], xp.float32), lambda a: a[::2, 1::3].astype(np.float32))]
    _repeats_without_the_full_path(full, "call_new", calls, data, None, _same_bytes)
    with pytest.raises(TypeError, match="imaginary"):
        xp.astype(xp.asarray(data[0] + 1j), xp.float64)   # refused every time


@operator_short_way
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "float16"])
def test_a_repeated_in_place_call_skips_to_its_plan_and_gives_the_full_paths_bits(full_path, dtype):
    """x op= y takes the short way too where it is one launch (float32 += on our operator,
    float64 /= on our ufunc kernel, a Python scalar or an array operand), writing x's own
    memory; the bits are NumPy's, every round; a plan cache cleared sends it down the full
    path again. (An in-place call made of two steps, as float16 /= (in float32, then rounded
    into x) or //= (through the library, with its fix for infinite operands), takes the full path every time.)"""
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((12, 5)) * 4).astype(dtype)
    b = (rng.standard_normal((1, 5)) * 4 + 9).astype(dtype)
    y = xp.asarray(b)
    s = 3 if dtype == "int32" else 0.75

    def rounds():
        x = xp.asarray(a, copy=True)
        x += y
        x *= s
        if dtype == "float64":
            x /= y
        else:
            x *= y
        x -= s
        return x
    want = a + b
    want = want * np.asarray(s, dtype)
    want = want / b if dtype == "float64" else want * b
    want = want - np.asarray(s, dtype)
    first = np.asarray(rounds())
    seen = full_path["n"]
    for _ in range(3):
        x = rounds()
        assert np.asarray(x).tobytes() == first.tobytes()
    assert full_path["n"] == seen                  # every repeat took the short way
    np.testing.assert_array_equal(first, want)
    clear_plan_cache()
    assert np.asarray(rounds()).tobytes() == first.tobytes()
    assert full_path["n"] > seen


@operator_short_way
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_x_op_equals_x_itself_takes_the_short_way(full_path, dtype):
    """x op= x and, for the floats, x **= 2 (x times x) with x itself as the operand: each
    element read and written in place, remembered and repeated without the full path;
    NumPy's bits every round, NaN canonical (operator kernels for + and *, our ufunc kernel
    for float64 /=)."""
    rng = np.random.default_rng(13)
    data = [(rng.standard_normal((7, 9)) * 3).astype(dtype) for _ in range(4)]
    data[1][0, :3] = [0, 1, -2] if dtype == "int32" else [np.inf, np.nan, -0.0]

    def ours(a):
        x = xp.asarray(a, copy=True)
        x += x
        x *= x
        if dtype != "int32":
            x **= 2
        if dtype == "float64":
            x /= x
        return np.asarray(x)

    def numpy(a):
        x = a + a
        x = x * x
        if dtype != "int32":
            x = x * x
        return canonical_nan(x / x if dtype == "float64" else x)
    ours(data[0])
    seen = full_path["n"]
    with np.errstate(all="ignore"):
        for a in data:
            got, want = ours(a), numpy(a)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert full_path["n"] == seen                  # every repeat took the short way


def test_the_in_place_short_way_refuses_what_the_full_path_refuses(full_path):
    """A read-only x, and an operand that is x's own memory seen another way, never take the
    short way: the first is refused every time, the second gets the full path's copy (its
    result is the out-of-place one)."""
    a = np.arange(8.0)
    x = xp.asarray(a, copy=True)
    for _ in range(2):
        x += 1.0
    ro = np.arange(8.0)
    ro.flags.writeable = False
    r = xp.asarray(ro)
    for _ in range(2):
        with pytest.raises(ValueError, match="read-only"):
            r += 1.0
    for _ in range(3):
        z = xp.asarray(a, copy=True)
        want = np.asarray(z)[::-1] + np.asarray(z)
        z += xp.flip(z)
        np.testing.assert_array_equal(np.asarray(z), want)


def test_small_library_results_are_copied_into_the_pool_and_large_ones_adopted(cpu_backend):
    """The library's own results (a descending sort, unique, nonzero, ...) up to
    COPY_RESULTS_UP_TO bytes are copied into the pool; larger ones are kept where the library
    made them. An ascending sort of x's own values is written into a pool array at any size.
    Either way the values are NumPy's."""
    from npu_emu.array_api._engine.library import COPY_RESULTS_UP_TO
    rng = np.random.default_rng(5)
    for n in (300, COPY_RESULTS_UP_TO // 8, COPY_RESULTS_UP_TO // 8 + 1):
        a = rng.standard_normal(n)
        got = xp.sort(xp.asarray(a), descending=True)
        np.testing.assert_array_equal(np.asarray(got), np.sort(a)[::-1])
        pooled = got._st.owner is None          # a pool block the storage owns itself
        assert pooled == (8 * n <= COPY_RESULTS_UP_TO), n
        got = xp.sort(xp.asarray(a))
        np.testing.assert_array_equal(np.asarray(got), np.sort(a))
        assert got._st.owner is None, n
        idx = xp.nonzero(xp.asarray(a > 0))[0]
        np.testing.assert_array_equal(np.asarray(idx), np.nonzero(a > 0)[0])
    values = xp.unique_values(xp.asarray([3.0, -0.0, 1.0, 3.0, 0.0, np.nan, np.nan]))
    got = np.asarray(values)
    np.testing.assert_array_equal(got, [-0.0, 1.0, 3.0, np.nan, np.nan])
    assert np.signbit(got[0])                   # x's own bits at the first occurrence


@operator_short_way
def test_a_repeat_at_the_same_addresses_runs_the_last_launches_and_elsewhere_plans_again(full_path):
    """A repeated call whose arrays sit where the last call's did (the pool hands a loop's
    results out at the same addresses) runs the launches it ran then; operands elsewhere
    (another array of the same geometry) are planned at their own addresses, never given
    the last call's. References: NumPy's add and divide (correctly rounded in both)."""
    from npu_emu.array_api._engine import repeat
    rng = np.random.default_rng(21)
    a, b, c = (rng.standard_normal((6, 7)).astype(np.float32) for _ in range(3))
    # Copies in the pool (imports of NumPy's memory sit at other offsets in an alignment
    # block, which a plan may read: ops._bindings.signature; each is planned once for itself).
    x, y, z = (xp.asarray(v, copy=True) for v in (a, b, c))
    for _ in range(3):                             # operator (float32 add) and family (divide)
        np.testing.assert_array_equal(np.asarray(x + y), a + b)
        np.testing.assert_array_equal(np.asarray(x / y), a / b)
    seen = full_path["n"]
    kept = [k for k in repeat._CALLS.values() if k.bound]
    assert len(kept) >= 2                          # both calls keep their last launches
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(z + y), c + b)    # z: other addresses
        np.testing.assert_array_equal(np.asarray(x + y), a + b)
        np.testing.assert_array_equal(np.asarray(y / z), b / c)
        np.testing.assert_array_equal(np.asarray(x / y), a / b)
    kept_r = x + y                                 # a live result: the next one goes elsewhere
    np.testing.assert_array_equal(np.asarray(x + y), a + b)
    np.testing.assert_array_equal(np.asarray(kept_r), a + b)
    assert full_path["n"] == seen                  # all of it by the short way


@operator_short_way
def test_results_at_a_few_alternating_addresses_rerun_their_launches_without_planning(
        full_path, monkeypatch):
    """A loop that keeps one result alive while it makes the next (scikit-learn's
    LogisticRegression) has its results at two addresses in turn: the launches of each are
    kept (up to BOUND_KEPT sets a call) and run again without a plan lookup; one more set of
    addresses still plans afresh and gives the right values. References: NumPy's add and
    divide (correctly rounded in both)."""
    from npu_emu.array_api._engine import repeat
    counts = count_calls(monkeypatch, repeat, "run_bound", "launch_cached")

    def lookups() -> int:
        return counts["run_bound"] + counts["launch_cached"]
    rng = np.random.default_rng(23)
    a, b = (rng.standard_normal(300) for _ in range(2))
    x, y = (xp.asarray(v, copy=True) for v in (a, b))
    held = [x + y, x / y]
    for _ in range(8):     # each round's results live while the next are made; the pool's
        now = [x + y, x / y]   # lowest free blocks settle into two sets of addresses
        held = now
    planned = lookups()
    assert 2 <= planned <= 2 * repeat.BOUND_KEPT
    for _ in range(6):                         # two addresses each, in turn: all bound already
        now = [x + y, x / y]
        np.testing.assert_array_equal(np.asarray(now[0]), a + b)
        np.testing.assert_array_equal(np.asarray(now[1]), a / b)
        held = now
    assert lookups() == planned
    assert all(len(k.bound) <= repeat.BOUND_KEPT for k in repeat._CALLS.values())
    many = [x + y for _ in range(repeat.BOUND_KEPT + 2)]   # more live results than kept sets
    for r in many:
        np.testing.assert_array_equal(np.asarray(r), a + b)
    assert lookups() > planned


@operator_short_way
def test_one_call_made_at_several_places_a_round_reruns_each_places_launches(
        full_path, monkeypatch):
    """scikit-learn's logistic loss calls `where` of one geometry at five places a round,
    each place's result live until the round ends, and the round's results while the next is
    made: ten sets of addresses, each bound once and then run again without a plan lookup.
    Reference: NumPy's where."""
    from npu_emu.array_api._engine import repeat
    counts = count_calls(monkeypatch, repeat, "run_bound", "launch_cached")
    rng = np.random.default_rng(29)
    a, b = (rng.standard_normal(300) for _ in range(2))
    x, y = (xp.asarray(v, copy=True) for v in (a, b))
    masks = [xp.asarray(a <= t, copy=True) for t in (-1.0, -0.5, 0.0, 0.5, 1.0)]

    def round_() -> list:
        out, prev = [], x
        for m in masks:                     # each result feeds the next: all live at once
            prev = xp.where(m, prev, y)
            out.append(prev)
        return out
    got = round_()
    for _ in range(8):      # a round's results live while the next is made: two sets a place
        got = round_()      # (the pool's addresses settle within a few rounds)
    planned = counts["run_bound"] + counts["launch_cached"]
    assert planned >= 10
    for _ in range(4):
        got = round_()
    assert counts["run_bound"] + counts["launch_cached"] == planned
    want, prev = [], a
    for t in (-1.0, -0.5, 0.0, 0.5, 1.0):
        prev = np.where(a <= t, prev, b)
        want.append(prev)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_a_tensor_of_a_geometry_is_the_trusted_tensor_of_its_fields():
    """Tensor.of_geometry (the repeated calls' results) gives what Tensor.trusted gives
    from the same fields; equal geometry ids mean equal geometry keys."""
    from npu_emu.dtypes import aclDataType as DT
    from npu_emu.formats import aclFormat as F
    from npu_emu.tensor import Tensor
    t = Tensor.trusted((3, 4), DT.ACL_FLOAT, (4, 1), 0, F.ACL_FORMAT_ND, (3, 4), 4096)
    u = Tensor.of_geometry(t.geometry_key, t.geometry_id, 8192)
    fields = ("view_shape", "dtype", "view_strides", "storage_offset", "format", "storage_shape")
    assert [getattr(u, f) for f in fields] == [getattr(t, f) for f in fields]
    assert u.data == 8192 and u.plan_key == (*t.geometry_key, 8192)
    v = Tensor.trusted((3, 4), DT.ACL_FLOAT, (4, 1), 0, F.ACL_FORMAT_ND, (3, 4), 0)
    w = Tensor.trusted((4, 3), DT.ACL_FLOAT, (3, 1), 0, F.ACL_FORMAT_ND, (4, 3), 0)
    assert v.geometry_id == t.geometry_id == u.geometry_id != w.geometry_id


@operator_short_way
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "complex128"])
def test_a_repeated_matmul_takes_the_short_way_and_gives_the_full_paths_bits(cpu_backend,
                                                                             monkeypatch, dtype):
    """matmul repeated on operands of the same geometry goes straight to the operator's
    cached plan (float32: aclnnMatmul's cube emulation), to the gemm kernels' cached plan
    (float64, complex128) or to the same library call (int32), with the full path's bits,
    for other operands of that geometry too. References: the first call's bytes; the gemm
    kernels' order (sequential_matmul) and NumPy's exact integer matmul."""
    from npu_emu.array_api._engine import matmul as mm
    calls = {"n": 0}
    promote = mm.promote

    def counted(*a):
        calls["n"] += 1
        return promote(*a)
    monkeypatch.setattr(mm, "promote", counted)
    clear_plan_cache()
    rng = np.random.default_rng(5)

    def data(shape):
        v = rng.standard_normal(shape) * 3
        if dtype == "complex128":
            v = v + 1j * rng.standard_normal(shape)
        return v.astype(dtype)
    def reference(m, v):
        return m @ v if dtype == "int32" else sequential_matmul(m, v[:, None])[:, 0]
    a, b, c = data((7, 5)), data((5,)), data((7, 5))
    x, y, z = xp.asarray(a), xp.asarray(b), xp.asarray(c)
    first = np.asarray(x @ y)
    seen = calls["n"]
    for _ in range(3):
        assert np.asarray(x @ y).tobytes() == first.tobytes()
        r = np.asarray(z @ y)
        if dtype != "float32":
            assert r.tobytes() == reference(c, b).tobytes()
    if dtype != "float32":
        assert first.tobytes() == reference(a, b).tobytes()
    assert calls["n"] <= seen + 1          # z @ y: the same geometry as x @ y (or planned once)
    with pytest.raises(ValueError):        # refusals are not remembered
        xp.matmul(x, xp.asarray(data((4,))))


def test_a_transposed_view_reads_its_parents_library_view_transposed(cpu_backend):
    """x.T and x.mT of an array that has made its library view (an integer matmul, on the
    library, makes it) take that view transposed: the values NumPy gives, at every offset,
    and writes through one are seen through the other."""
    rng = np.random.default_rng(5)
    a = rng.integers(-100, 100, (6, 300, 8))
    g = rng.integers(-100, 100, 300)
    x = xp.asarray(a)
    for view, want in ((x[2], a[2]), (x[1:, 3:], a[1:, 3:]), (x[0, ::3], a[0, ::3])):
        v = xp.asarray(np.ones(view.shape[-1], np.int64))
        assert np.array_equal(np.asarray(view @ v), want @ np.ones(want.shape[-1], np.int64))
        assert view._rv is not None                      # made by that library call
        t = view.T if view.ndim == 2 else view.mT
        assert t._rv is not None                         # taken from it, transposed
        wt = want.T if want.ndim == 2 else np.swapaxes(want, -1, -2)
        assert np.array_equal(np.asarray(t), wt)
        if view.ndim == 2 and view.shape[0] == 300:
            assert np.array_equal(np.asarray(t @ xp.asarray(g)), wt @ g)
    y = xp.asarray(a.copy())
    y0 = y[0]
    y0 @ xp.asarray(np.ones(8, np.int64))
    yt = y0.T
    assert yt._rv is not None
    yt[1, 2] = 42                                        # through the transposed view
    assert int(y0[2, 1]) == 42 and int(y[0, 2, 1]) == 42
