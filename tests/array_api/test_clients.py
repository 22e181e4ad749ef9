"""Real clients of the standard on npu_emu.array_api arrays: scikit-learn with
array_api_dispatch=True and SciPy with SCIPY_ARRAY_API=1, each call compared with the same
call on NumPy arrays (within 1e-6 unless a check says otherwise) and its array results
checked to be our arrays, on our device, of NumPy's dtype.

SciPy reads SCIPY_ARRAY_API once, when it is first imported, and scikit-learn's dispatch
requires it; another test may have imported SciPy already, so the checks run in a fresh
interpreter: this file is also a script that runs the checks named on its command line and
prints their outcomes as one JSON line, and each test reads its own outcome from that run.
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import traceback
from typing import Any, Callable

import numpy as np
import pytest

MARK = "npu-emu-client-outcomes: "
CHILD_TIMEOUT_S = 900
# Found without importing them: importing SciPy here would fix its array API switch off.
HAVE_SKLEARN = importlib.util.find_spec("sklearn") is not None
HAVE_SCIPY = importlib.util.find_spec("scipy") is not None


# ------------------------------------------------------------- the checks (child side)

def _xp():
    import npu_emu.array_api as xp
    return xp


def same(label: str, ref: Any, got: Any, tol: float = 1e-6) -> None:
    """`got` (from our arrays) equals `ref` (from NumPy's) within tol, elementwise; an array
    result must be ours, on our default device, with NumPy's dtype and shape."""
    xp = _xp()
    if isinstance(ref, tuple):
        assert isinstance(got, tuple) and len(got) == len(ref), f"{label}: {got!r}"
        for k, (r, g) in enumerate(zip(ref, got)):
            same(f"{label}[{k}]", r, g, tol)
        return
    if isinstance(ref, np.ndarray):
        assert isinstance(got, xp.Array), (f"{label}: a {type(got).__name__}, not an "
                                           f"npu_emu.array_api array")
        assert got.device == xp.__array_namespace_info__().default_device(), label
        assert got.shape == ref.shape, f"{label}: shape {got.shape}, NumPy's {ref.shape}"
        assert got.dtype.name == ref.dtype.name, f"{label}: {got.dtype}, NumPy's {ref.dtype}"
        np.testing.assert_allclose(np.asarray(got), ref, rtol=tol, atol=tol, err_msg=label)
        return
    assert abs(float(got) - float(ref)) <= tol * max(1.0, abs(float(ref))), (
        f"{label}: {got!r}, NumPy's {ref!r}")


def on_both(f: Callable[..., Any], *args: Any, dispatch: bool = False) -> tuple[Any, Any]:
    """(f on the NumPy arguments, f on the same values as our arrays); dispatch: inside
    scikit-learn's config_context(array_api_dispatch=True)."""
    xp = _xp()
    ref = f(*args)
    ours = [xp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    ctx = contextlib.nullcontext()
    if dispatch:
        from sklearn import config_context
        ctx = config_context(array_api_dispatch=True)
    with ctx:
        got = f(*ours)
    return ref, got


def sk(label: str, f: Callable[..., Any], *args: Any, tol: float = 1e-6) -> None:
    same(label, *on_both(f, *args, dispatch=True), tol=tol)


def _data(dtype: Any = np.float64) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((80, 6)).astype(dtype)
    return {
        "X": x,
        "y2": (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int64),               # two classes
        "y3": np.digitize(x[:, 0] - x[:, 2], [-0.5, 0.5]).astype(np.int64),  # three
        "yr": (x @ np.arange(1.0, 7.0) + 0.25).astype(dtype),                # regression
    }


def _pca(**kw: Any) -> Callable[[Any], tuple]:
    def fit(X):
        from sklearn.decomposition import PCA
        p = PCA(n_components=3, **kw).fit(X)
        t = p.transform(X)
        return (p.components_, p.explained_variance_, p.explained_variance_ratio_,
                p.singular_values_, p.mean_, t, p.inverse_transform(t))
    return fit


def check_pca_full() -> None:
    sk("PCA(svd_solver='full')", _pca(svd_solver="full"), _data()["X"])


def check_pca_randomized() -> None:
    # Note: the QR normalizer on both sides (NumPy's default would be LU, which the
    # standard has no function for; scikit-learn then falls back to QR and warns).
    sk("PCA(svd_solver='randomized')", _pca(svd_solver="randomized", random_state=0,
                                            power_iteration_normalizer="QR"), _data()["X"])


def check_pca_covariance_eigh() -> None:
    sk("PCA(svd_solver='covariance_eigh')", _pca(svd_solver="covariance_eigh"), _data()["X"])


def check_pca_float32() -> None:
    # float32 data: the products run on the cube emulation (fp32 accumulation in the cube's
    # order, not BLAS's), so the results agree to float32's precision, not to 1e-6.
    sk("PCA(svd_solver='full'), float32", _pca(svd_solver="full"), _data(np.float32)["X"],
       tol=2e-5)


def check_lda() -> None:
    def fit(X, y):
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
        m = LinearDiscriminantAnalysis().fit(X, y)
        return (m.coef_, m.intercept_, m.means_, m.explained_variance_ratio_, m.predict(X),
                m.predict_proba(X), m.transform(X))
    d = _data()
    sk("LinearDiscriminantAnalysis", fit, d["X"], d["y3"])


def check_ridge_svd() -> None:
    def fit(X, y):
        from sklearn.linear_model import Ridge
        m = Ridge(alpha=0.5, solver="svd").fit(X, y)
        return m.coef_, m.intercept_, m.predict(X)
    d = _data()
    sk("Ridge(solver='svd')", fit, d["X"], d["yr"])
    sk("Ridge(solver='svd'), two targets", fit, d["X"], np.stack([d["yr"], -d["yr"]], axis=1))


def check_logistic_regression() -> None:
    # lbfgs: the solver scikit-learn dispatches (LogisticRegression's array_api_support tag
    # is solver == "lbfgs" in 1.9).
    def fit(X, y):
        from sklearn.linear_model import LogisticRegression
        m = LogisticRegression(solver="lbfgs").fit(X, y)
        return m.coef_, m.intercept_, m.predict(X), m.predict_proba(X)
    d = _data()
    sk("LogisticRegression, two classes", fit, d["X"], d["y2"])
    sk("LogisticRegression, three classes", fit, d["X"], d["y3"])


def check_standard_scaler() -> None:
    def fit(X):
        from sklearn.preprocessing import StandardScaler
        m = StandardScaler().fit(X)
        t = m.transform(X)
        return m.mean_, m.var_, m.scale_, t, m.inverse_transform(t)
    sk("StandardScaler", fit, _data()["X"])


def check_fitted_scaler_pickles() -> None:
    """A fitted StandardScaler on our arrays through pickle, copy.deepcopy and joblib's
    dump/load: the copies transform as the original does and keep our arrays."""
    import copy
    import pickle
    import tempfile

    import joblib
    from sklearn import config_context
    from sklearn.preprocessing import StandardScaler
    xp = _xp()
    x = _data()["X"]
    with config_context(array_api_dispatch=True):
        fitted = StandardScaler().fit(xp.asarray(x))
        want = np.asarray(fitted.transform(xp.asarray(x)))
        with tempfile.TemporaryDirectory() as d:
            joblib.dump(fitted, f"{d}/scaler.joblib")
            from_joblib = joblib.load(f"{d}/scaler.joblib")
        for label, m in (("pickle", pickle.loads(pickle.dumps(fitted))),
                         ("deepcopy", copy.deepcopy(fitted)), ("joblib", from_joblib)):
            assert isinstance(m.mean_, xp.Array) and m.mean_.dtype == xp.float64, label
            np.testing.assert_array_equal(np.asarray(m.mean_), np.asarray(fitted.mean_))
            got = m.transform(xp.asarray(x))
            assert isinstance(got, xp.Array), label
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=label)


def check_cross_val_score_two_jobs() -> None:
    """cross_val_score(n_jobs=2) sends our arrays to two worker processes (pickled by
    joblib); the scores are NumPy's on the same data, within 1e-6."""
    from sklearn import config_context
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import cross_val_score
    xp = _xp()
    d = _data()
    ref = cross_val_score(Ridge(alpha=0.5, solver="svd"), d["X"], d["yr"], cv=3)
    with config_context(array_api_dispatch=True):
        got = cross_val_score(Ridge(alpha=0.5, solver="svd"), xp.asarray(d["X"]),
                              xp.asarray(d["yr"]), cv=3, n_jobs=2)
    np.testing.assert_allclose(np.asarray([float(s) for s in got]), ref, rtol=1e-6, atol=1e-6)


def check_classification_metrics() -> None:
    from sklearn import metrics
    d = _data()
    y, guess = d["y2"], (d["X"][:, 0] > 0.1).astype(np.int64)
    proba = np.clip(0.5 + 0.3 * d["X"][:, 0], 0.01, 0.99)
    for f in (metrics.accuracy_score, metrics.zero_one_loss, metrics.f1_score,
              metrics.precision_score, metrics.recall_score, metrics.confusion_matrix):
        sk(f.__name__, f, y, guess)
    sk("log_loss", metrics.log_loss, y, proba)


def check_roc_auc() -> None:
    from sklearn import metrics
    d = _data()
    sk("roc_auc_score", metrics.roc_auc_score, d["y2"], d["X"][:, 0] + d["X"][:, 1])


def check_regression_metrics() -> None:
    from sklearn import metrics
    d = _data()
    pred = d["yr"] + 0.3 * d["X"][:, 3]
    for f in (metrics.r2_score, metrics.mean_squared_error, metrics.mean_absolute_error,
              metrics.explained_variance_score):
        sk(f.__name__, f, d["yr"], pred)


def check_pairwise_metrics() -> None:
    from sklearn.metrics import pairwise
    x = _data()["X"]
    for f in (pairwise.euclidean_distances, pairwise.cosine_similarity, pairwise.rbf_kernel,
              pairwise.linear_kernel):
        sk(f.__name__, f, x[:10], x[10:25])


def _scipy_inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {"x": rng.standard_normal(64), "y": rng.standard_normal(64) + 0.3,
            "p": rng.uniform(0.05, 0.95, 64), "m": rng.standard_normal((6, 8))}


def check_scipy_special() -> None:
    import scipy.special as sp
    d = _scipy_inputs()
    x, p, m = d["x"], d["p"], d["m"]
    for f, args in ((sp.erf, (x,)), (sp.erfc, (x,)), (sp.gammaln, (np.abs(x) + 0.5,)),
                    (sp.expit, (x,)), (sp.logit, (p,)), (sp.ndtr, (x,)), (sp.ndtri, (p,)),
                    (sp.xlogy, (p, p + 1)), (sp.entr, (p,))):
        same(f"scipy.special.{f.__name__}", *on_both(f, *args))
    same("scipy.special.logsumexp", *on_both(lambda a: sp.logsumexp(a, axis=1), m))
    same("scipy.special.softmax", *on_both(lambda a: sp.softmax(a, axis=0), m))


def check_scipy_stats() -> None:
    import scipy.stats as st
    d = _scipy_inputs()
    x, y, m = d["x"], d["y"], d["m"]
    same("scipy.stats.zscore", *on_both(lambda a: st.zscore(a, axis=1), m))
    for f in (st.skew, st.kurtosis, st.sem, st.variation):
        same(f"scipy.stats.{f.__name__}", *on_both(f, x + 3.0))
    same("scipy.stats.moment", *on_both(lambda a: st.moment(a, order=3), x))
    same("scipy.stats.gmean", *on_both(st.gmean, np.abs(x) + 0.1))
    same("scipy.stats.ttest_ind", *on_both(lambda a, b: tuple(st.ttest_ind(a, b)), x, y))
    same("scipy.stats.pearsonr", *on_both(lambda a, b: tuple(st.pearsonr(a, b)), x, y))


def check_scipy_fft() -> None:
    # scipy.fft calls the namespace's fft extension on arrays that are not NumPy's.
    import scipy.fft as sf
    d = _scipy_inputs()
    x, m = d["x"], d["m"]
    same("scipy.fft.fft", *on_both(sf.fft, x.astype(np.complex128)))
    same("scipy.fft.rfft", *on_both(sf.rfft, x))
    same("scipy.fft.irfft", *on_both(lambda a: sf.irfft(a, n=64), np.fft.rfft(x)))
    same("scipy.fft.fftn", *on_both(sf.fftn, m.astype(np.complex128)))
    same("scipy.fft.fftshift", *on_both(sf.fftshift, m))


SKLEARN_CHECKS = {f.__name__[len("check_"):]: f for f in [
    check_pca_full, check_pca_randomized, check_pca_covariance_eigh, check_pca_float32,
    check_lda, check_ridge_svd, check_logistic_regression, check_standard_scaler,
    check_fitted_scaler_pickles, check_cross_val_score_two_jobs,
    check_classification_metrics, check_roc_auc, check_regression_metrics,
    check_pairwise_metrics]}
SCIPY_CHECKS = {f.__name__[len("check_"):]: f for f in [
    check_scipy_special, check_scipy_stats, check_scipy_fft]}
CHECKS = {**SKLEARN_CHECKS, **SCIPY_CHECKS}


def main(names: list[str]) -> None:
    """Run the named checks; print {name: "ok" or the traceback} as one marked JSON line."""
    assert os.environ.get("SCIPY_ARRAY_API") == "1", "run with SCIPY_ARRAY_API=1"
    import faulthandler
    import warnings
    # A hang shows where it is (on stderr, which the parent reports) before its timeout.
    faulthandler.dump_traceback_later(CHILD_TIMEOUT_S - 60, exit=True)
    outcomes = {}
    for name in names:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                CHECKS[name]()
            outcomes[name] = "ok"
        except Exception:
            outcomes[name] = traceback.format_exc()
    print(MARK + json.dumps(outcomes), flush=True)


# ------------------------------------------------------------------- the tests (pytest)

@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    """One fresh interpreter with SCIPY_ARRAY_API=1 runs every check whose library is
    installed."""
    names = [n for n in CHECKS if (n in SKLEARN_CHECKS and HAVE_SKLEARN)
             or (n in SCIPY_CHECKS and HAVE_SCIPY)]
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}
    done = subprocess.run([sys.executable, __file__, *names], env=env, capture_output=True,
                          text=True, timeout=CHILD_TIMEOUT_S)
    for line in done.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    pytest.fail(f"the client checks did not finish (exit {done.returncode}):\n"
                f"{done.stdout[-3000:]}\n{done.stderr[-6000:]}")


def _verdict(outcomes: dict[str, str], name: str) -> None:
    if outcomes[name] != "ok":
        pytest.fail(outcomes[name], pytrace=False)


@pytest.mark.skipif(not HAVE_SKLEARN, reason="scikit-learn is not installed (the test extra)")
@pytest.mark.parametrize("name", list(SKLEARN_CHECKS))
def test_sklearn(outcomes: dict[str, str], name: str) -> None:
    _verdict(outcomes, name)


@pytest.mark.skipif(not HAVE_SCIPY, reason="SciPy is not installed (the test extra)")
@pytest.mark.parametrize("name", list(SCIPY_CHECKS))
def test_scipy(outcomes: dict[str, str], name: str) -> None:
    _verdict(outcomes, name)


if __name__ == "__main__":
    main(sys.argv[1:])
