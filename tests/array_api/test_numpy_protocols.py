"""NumPy's protocols as CuPy answers them: NumPy ufuncs and functions called on our arrays
run the namespace's function of that name and return our arrays; calls the namespace has no
function (or no argument) for run on NumPy over host copies (a ufunc's result then ours, a
function's NumPy's). And no NumPy warning escapes a namespace call. The reference is NumPy 2's own result on the same values."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import npu_emu.array_api as xp


@pytest.fixture(autouse=True)
def _cpu(cpu_backend):
    yield cpu_backend


H = np.array([[0.5, -2.0, 3.0], [4.0, 0.25, -1.5]])


def _ours(got, want) -> None:
    assert isinstance(got, xp.Array), type(got)
    assert got.dtype.name == np.asarray(want).dtype.name and got.shape == np.shape(want)
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("ufunc", [np.exp, np.negative, np.absolute, np.sqrt, np.isnan,
                                   np.floor, np.sin, np.arctan, np.rint, np.conjugate])
def test_unary_ufuncs_dispatch_to_the_namespace(ufunc):
    with np.errstate(all="ignore"):
        _ours(ufunc(xp.asarray(H)), ufunc(H))


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.true_divide,
                                   np.power, np.maximum, np.arctan2, np.greater, np.equal,
                                   np.logaddexp, np.hypot, np.copysign])
def test_binary_ufuncs_take_numpy_arrays_and_scalars(ufunc):
    x = xp.asarray(H)
    with np.errstate(all="ignore"):                 # NumPy's own reference warns
        _ours(ufunc(x, H[::-1]), ufunc(H, H[::-1]))
        _ours(ufunc(H[::-1], x), ufunc(H[::-1], H))     # a NumPy array first: still ours
        _ours(ufunc(x, 2.0), ufunc(H, 2.0))


def test_operators_with_numpy_arrays_on_the_left_give_ours():
    x = xp.asarray(H)
    _ours(H + x, H + H)
    _ours(np.float64(2.0) * x, 2.0 * H)
    _ours(H >= x, H >= H)


def test_numpys_matmul_and_vecdot_run_ours():
    """NumPy 2's generalized ufuncs of the namespace's linear algebra: our matmul (its order
    of sums, not BLAS's: exact on these small integers) and vecdot, our arrays out, from
    either side."""
    x = xp.asarray(H)
    _ours(np.matmul(x, H.T), H @ H.T)
    _ours(H @ x.T, H @ H.T)                     # ndarray.__matmul__ is np.matmul
    _ours(np.vecdot(x, H), np.vecdot(H, H))


def test_ufunc_out_and_the_numpy_fallback():
    x = xp.asarray(H)
    out = xp.zeros((2, 3))
    assert np.multiply(x, 3.0, out=(out,)) is out
    np.testing.assert_array_equal(np.asarray(out), H * 3.0)
    host = np.empty((2, 3))
    assert np.multiply(x, 3.0, out=host) is host                     # out= NumPy's: NumPy
    np.testing.assert_array_equal(host, H * 3.0)
    host = np.empty(2)
    assert np.add.reduce(x, axis=1, out=host) is host                # a method into NumPy's
    np.testing.assert_array_equal(host, np.add.reduce(H, axis=1))


def test_ufuncs_the_namespace_lacks_run_on_numpy_and_give_ours():
    """A ufunc the namespace has no function for (SciPy's special functions, np.cbrt) or a
    ufunc's method runs on NumPy over host copies; its result is ours, as CuPy, Dask and
    sparse return theirs (array-api-extra's test_lazy_xp_function_cython_ufuncs asks it)."""
    special = pytest.importorskip("scipy.special")
    x = xp.asarray(H)
    _ours(special.erf(x), special.erf(H))
    _ours(np.cbrt(xp.asarray(H, dtype=xp.float32)), np.cbrt(H.astype(np.float32)))
    _ours(np.add.reduce(x, axis=1), np.add.reduce(H, axis=1))
    _ours(np.add.reduce(x, axis=None), np.asarray(np.add.reduce(H, axis=None)))  # 0-d
    _ours(np.multiply.outer(x[0, :], H[1, :]), np.multiply.outer(H[0], H[1]))
    frac, whole = np.modf(x)                                         # two results: both ours
    _ours(frac, np.modf(H)[0])
    _ours(whole, np.modf(H)[1])
    y = xp.asarray(H[0], copy=True)                                  # not H itself
    assert np.add.at(y, [0, 0, 2], 1.0) is None                      # in place, on cpu
    np.testing.assert_array_equal(np.asarray(y), H[0] + [2.0, 0.0, 1.0])
    objects = np.frompyfunc(lambda v: v, 1, 1)(x)                    # object dtype: NumPy's
    assert isinstance(objects, np.ndarray) and objects.dtype == object
    assert objects.tolist() == H.tolist()


def test_functions_dispatch_with_numpys_argument_forms():
    x = xp.asarray(H)
    _ours(np.sum(x), np.sum(H))
    _ours(np.sum(x, 0), np.sum(H, 0))                                # axis by position
    _ours(np.mean(x, axis=1, keepdims=True), np.mean(H, axis=1, keepdims=True))
    _ours(np.std(x, ddof=1), np.std(H, ddof=1))
    _ours(np.max(x, axis=0), np.max(H, axis=0))
    _ours(np.concatenate([x, H]), np.concatenate([H, H]))
    _ours(np.where(x > 0, x, 0.0), np.where(H > 0, H, 0.0))
    _ours(np.reshape(x, (3, 2)), np.reshape(H, (3, 2)))
    _ours(np.clip(x, -1.0, 1.0), np.clip(H, -1.0, 1.0))
    _ours(np.transpose(x, (1, 0)), np.transpose(H, (1, 0)))
    _ours(np.linalg.inv(xp.asarray(H[:, :2])), np.linalg.inv(H[:, :2]))
    c = H.astype(np.complex128)
    _ours(np.fft.fft(xp.asarray(c)), np.fft.fft(c))


def test_functions_the_namespace_lacks_or_refuses_run_on_numpy():
    x = xp.asarray(H)
    for got, want in ((np.percentile(x, 50), np.percentile(H, 50)),
                      (np.linalg.norm(x), np.linalg.norm(H)),
                      (np.fft.fft(x), np.fft.fft(H)),            # real input: NumPy's fft
                      (np.sum(x, where=H > 0), np.sum(H, where=H > 0)),
                      (np.transpose(x), np.transpose(H))):
        assert not isinstance(got, xp.Array)
        np.testing.assert_array_equal(got, want)
    assert np.allclose(x, H) and np.array_equal(x, H)
    np.testing.assert_allclose(x, H)


CALLS = {
    "asarray of a float beyond float32": lambda: xp.asarray(1.79e308, dtype=xp.float32),
    "asarray of a list beyond float16": lambda: xp.asarray([1e10, -1e10], dtype=xp.float16),
    "asarray beyond bfloat16": lambda: xp.asarray([1e39], dtype=xp.bfloat16),
    "asarray beyond hifloat8": lambda: xp.asarray([1e10], dtype=xp.hifloat8),
    "full beyond float16": lambda: xp.full(2, 1e300, dtype=xp.float16),
    "clip bounds beyond float32": lambda: xp.clip(xp.ones(2, dtype=xp.float32), -1e300, 1e300),
    "x + a large scalar": lambda: xp.ones(2, dtype=xp.float32) + 1e300,
    "division by zero": lambda: xp.ones(2) / 0,
    "log of zero": lambda: xp.log(xp.zeros(2)),
    "sqrt of -1": lambda: xp.sqrt(xp.asarray([-1.0])),
    "an empty mean": lambda: xp.mean(xp.zeros((0,))),
    "variance with no degrees of freedom": lambda: xp.var(xp.ones(1), correction=1),
    "NaN to int": lambda: xp.astype(xp.asarray([np.nan]), xp.int32),
    "a sum that overflows": lambda: xp.sum(xp.full(3, 3e38, dtype=xp.float32)),
    "a power that overflows": lambda: xp.asarray([10.0]) ** 1000,
    "det of a singular matrix": lambda: xp.linalg.det(xp.zeros((2, 2))),
    "np.exp overflow on ours": lambda: np.exp(xp.asarray([1000.0])),
}


@pytest.mark.parametrize("default", ["float64", "float32"])
@pytest.mark.parametrize("name", list(CALLS))
def test_no_numpy_warning_escapes(name, default):
    before = xp.set_default_dtypes(real_floating=default)
    state = np.geterr()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            CALLS[name]()
            xp.asarray(1.79e308)              # float32 default: an overflow to inf
    finally:
        xp.set_default_dtypes(real_floating=before["real floating"])
    assert np.geterr() == state               # the caller's NumPy error state, as it was
    with pytest.warns(RuntimeWarning):        # ... still NumPy's own outside our calls
        np.float64(1e308) * 10


@pytest.mark.parametrize("fallback", [False, True], ids=["this NumPy's way", "np.errstate"])
def test_numpy_quiet_silences_and_restores(fallback, monkeypatch):
    """The engine's quiet NumPy section, the way this NumPy takes (NumPy 2: its context
    variable) and by np.errstate (NumPy 1, or the variable gone): no warning inside, the
    caller's state after, an exception passing through included."""
    from npu_emu.array_api._engine import device
    if fallback:
        monkeypatch.setattr(device, "_extobj_contextvar", None)
    state = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with device.numpy_quiet():
            assert np.isinf(np.float64(1e308) * 10) and np.geterr()["over"] == "ignore"
        with pytest.raises(KeyError), device.numpy_quiet():
            raise KeyError("through")
    assert np.geterr() == state


def test_an_explicit_none_keeps_numpys_meaning():
    """axis=None where NumPy's default is another axis means "flattened": passed on to ours
    (concat flattens), or run on NumPy where ours refuses it (sort, argsort); None where
    NumPy's default is None changes nothing."""
    h = np.array([[3., 1.], [0., 2.]])
    x = xp.asarray(h)
    cat = np.concatenate([x, x], axis=None)
    assert isinstance(cat, xp.Array)
    np.testing.assert_array_equal(np.asarray(cat), np.concatenate([h, h], axis=None))
    np.testing.assert_array_equal(np.asarray(np.sort(x, axis=None)), np.sort(h, axis=None))
    np.testing.assert_array_equal(np.asarray(np.argsort(x, axis=None)), np.argsort(h, axis=None))
    np.testing.assert_array_equal(np.asarray(np.sort(x)), np.sort(h))          # axis left out
    np.testing.assert_array_equal(np.asarray(np.cumsum(x, axis=None)), np.cumsum(h, axis=None))
    assert float(np.sum(x, axis=None)) == 6.0
    np.testing.assert_array_equal(np.asarray(np.clip(x, 1, None)), np.clip(h, 1, None))


def test_matmul_takes_a_numpy_operand_on_either_side():
    """x @ ndarray, ndarray @ x and x @= ndarray, as x + ndarray: our arrays out."""
    h, m = np.array([[3., 1.], [0., 2.]]), np.array([[1., 2.], [3., 4.]])
    x = xp.asarray(h)
    for got in (x @ m, m @ x):
        assert isinstance(got, xp.Array)
    np.testing.assert_array_equal(np.asarray(x @ m), h @ m)
    np.testing.assert_array_equal(np.asarray(m @ x), m @ h)
    np.testing.assert_array_equal(np.asarray(x @ np.ones(2)), h @ np.ones(2))
    y = xp.asarray(h.copy())
    y @= m
    np.testing.assert_array_equal(np.asarray(y), h @ m)
