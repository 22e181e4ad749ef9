"""The array API clients' own test suites (scikit-learn's, SciPy's, array-api-extra's), run
unchanged on npu_emu.array_api through tests/clients/run_clients.sh, each in a subprocess.

By default a fixed slice of each runs (estimators and metrics, special functions, stats, fft,
SciPy's _lib helpers, array-api-extra's functions) and must pass whole. NPU_EMU_CLIENTS=1
runs every suite in full and holds it to array_api_strict's counts under the same harness
(reference_counts.json): at least its passes, at most its failures plus errors.
"""
from __future__ import annotations

import collections
import importlib.util
import json
import os
import pathlib
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent
RUNNER = HERE / "run_clients.sh"
REFERENCE = json.loads((HERE / "reference_counts.json").read_text())
FULL = os.environ.get("NPU_EMU_CLIENTS") == "1"
MISSING = [m for m in ("sklearn", "scipy", "array_api_strict", "array_api_extra",
                       "pytest_timeout") if importlib.util.find_spec(m) is None]
NEEDS_CLIENTS = pytest.mark.skipif(bool(MISSING), reason=f"not installed: {MISSING} "
                                   "(pip install -e '.[test]')")

# The default run's slice: test functions (all their parametrizations on our namespace).
# Chosen to cover estimators, preprocessing and metrics; special functions, stats, fft,
# cluster and SciPy's _lib helpers; array-api-extra's creation, elementwise, indexing,
# manipulation, set, sorting and statistical functions. Every entry must pass on ours.
SLICE = {
    "sklearn": [
        "sklearn/utils/tests/test_array_api.py::test_add_to_diagonal",
        "sklearn/utils/tests/test_array_api.py::test_median",
        "sklearn/utils/tests/test_array_api.py::test_logsumexp_like_scipy_logsumexp",
        "sklearn/utils/tests/test_array_api.py::test_expit_logit",
        "sklearn/utils/tests/test_stats.py::test_weighted_percentile_array_api_consistency",
        "sklearn/preprocessing/tests/test_data.py::test_standard_scaler_array_api_compliance",
        "sklearn/preprocessing/tests/test_label.py::test_label_encoder_array_api_compliance",
        "sklearn/linear_model/tests/test_ridge.py::test_ridge_per_target_alpha_array_api",
        "sklearn/linear_model/tests/test_logistic.py::"
        "test_logistic_regression_array_api_warm_start[npu_emu.array_api-None-float64-True]",
        "sklearn/tests/test_naive_bayes.py::test_gnb_array_api_compliance",
        "sklearn/metrics/tests/test_classification.py::test_confusion_matrix_array_api",
        "sklearn/metrics/cluster/tests/test_supervised.py::test_entropy_array_api",
        "sklearn/model_selection/tests/test_split.py::test_array_api_train_test_split",
    ],
    "scipy": [
        "scipy/special/tests/test_logsumexp.py::TestLogSumExp::test_logsumexp",
        "scipy/special/tests/test_logsumexp.py::TestLogSumExp::test_logsumexp_b",
        "scipy/special/tests/test_logsumexp.py::TestLogSumExp::test_logsumexp_sign",
        "scipy/special/tests/test_logsumexp.py::TestLogSoftmax::test_log_softmax_2d_axis1",
        # int arrays through exp and log (the math functions take them in the default float)
        "scipy/special/tests/test_logsumexp.py::TestSoftmax::test_softmax_int_array",
        "scipy/special/tests/test_logsumexp.py::TestLogSoftmax::test_log_softmax_int_array",
        *(f"scipy/special/tests/test_support_alternative_backends.py::"
          f"test_support_alternative_backends[npu_emu-{case}]"
          for case in ("erfcx-float64-shapes2", "j1-float64-shapes2", "logit-float32-shapes0",
                       "gammainccinv-float64-shapes2")),
        "scipy/stats/tests/test_entropy.py::TestEntropy::test_entropy_2d",
        "scipy/stats/tests/test_entropy.py::TestDifferentialEntropy::"
        "test_differential_entropy_vasicek",
        "scipy/stats/tests/test_correlation.py::TestSpearmanRho::test_special_cases",
        "scipy/stats/tests/test_hypotests.py::TestMannWhitneyU::test_auto",
        "scipy/stats/tests/test_hypotests.py::TestCvm::test_cdf_ref",
        "scipy/stats/tests/test_device_dtype.py::test_describe",
        "scipy/fft/tests/test_basic.py::TestFFT::test_fft",
        "scipy/fft/tests/test_basic.py::TestFFT::test_rfft",
        "scipy/fft/tests/test_basic.py::TestFFT::test_irfftn",
        "scipy/fft/tests/test_helper.py::TestFFTFreq::test_definition",
        "scipy/fft/tests/test_helper.py::TestFFTShift::test_axes_keyword",
        "scipy/fft/tests/test_fftlog.py::test_fht_exact",
        "scipy/cluster/tests/test_vq.py::TestWhiten::test_whiten",
        "scipy/cluster/tests/test_vq.py::TestKMeans::test_kmeans2_simple",
        "scipy/cluster/tests/test_hierarchy.py::TestFcluster::test_fcluster_monocrit",
        "scipy/cluster/tests/test_hierarchy.py::TestCopheneticDistance::"
        "test_linkage_cophenet_tdist_Z",
        "scipy/_lib/tests/test__util.py::TestContainsNaN::test_array_api",
    ],
    "extra": [
        "tests/main/test_at.py::test_copy_default",
        "tests/main/test_at.py::test_gh134",
        "tests/main/test_creation.py::TestOneHot",
        "tests/main/test_elementwise.py::TestSinc",
        "tests/main/test_indexing.py::TestUnravelIndex",
        "tests/main/test_linalg.py::TestKron",
        "tests/main/test_manipulation.py::TestPad",
        "tests/main/test_manipulation.py::TestAtLeastND",
        "tests/main/test_set.py::TestSetDiff1D",
        "tests/main/test_sorting.py::TestPartition",
        "tests/main/test_statistical.py::TestCov",
        "tests/main/test_statistical.py::TestNanMean",
        # SciPy's special.erf, a NumPy ufunc, on our array gives ours (our __array_ufunc__)
        "tests/main/test_testing.py::test_lazy_xp_function_cython_ufuncs",
    ],
}
# Tests the plugins skip on ours, as the client skips them on its own backends of our kind:
# SciPy's lazy-only test (every eager backend skipped by name; scipy_plugin.lazy_only) and
# array-api-extra's test of delegation, skipped on strict for its array-agnostic path
# (extra_plugin.agnostic_only). The slice runs them and they must be skipped, not pass or fail.
SLICE_SKIPPED = {
    "scipy": ["scipy/_lib/tests/test__util.py::TestContainsNaN::test_array_api_lazy"],
    "extra": ["tests/main/test_set.py::TestNUnique::test_delegates"],
}
SLICE_TIMEOUT_S = 240       # the whole slice takes ~30 s on a quiet 2-core machine
FULL_TIMEOUT_S = 3600
EXIT_NO_SOURCE = 97         # run_clients.sh: array-api-extra's sdist could not be fetched


def run_suite(suite: str, args: list[str], tmp_path: pathlib.Path, timeout_s: int,
              xp: str = "npu_emu") -> tuple[collections.Counter, list[str], str]:
    """Run one suite with run_clients.sh; return its outcome counts, its 'outcome nodeid'
    lines and the tail of its output."""
    outcomes = tmp_path / f"{suite}-{xp}.outcomes"
    env = {**os.environ, "NPU_EMU_CLIENT_XP": xp, "NPU_EMU_CLIENT_OUTCOMES": str(outcomes)}
    env.pop("SCIPY_ARRAY_API", None)     # the runner sets it per suite
    proc = subprocess.run(["bash", str(RUNNER), suite, *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=timeout_s)
    tail = (proc.stdout + proc.stderr)[-6000:]
    if proc.returncode == EXIT_NO_SOURCE:
        pytest.skip(f"{suite}: its test sources could not be fetched: {tail[-300:]}")
    # pytest exits 0 (all passed) or 1 (some failed); anything else is a broken harness.
    assert proc.returncode in (0, 1), f"{suite}: exit {proc.returncode}\n{tail}"
    lines = [line for line in outcomes.read_text().split("\n") if line]
    return collections.Counter(line.split(" ", 1)[0] for line in lines), lines, tail


def failures(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(("failed ", "error "))]


@NEEDS_CLIENTS
@pytest.mark.skipif(FULL, reason="NPU_EMU_CLIENTS=1 runs the whole suites instead")
@pytest.mark.parametrize("suite", sorted(SLICE))
def test_slice_passes(suite: str, tmp_path: pathlib.Path) -> None:
    ids, skipped = SLICE[suite], SLICE_SKIPPED.get(suite, [])
    # array-api-extra's classes also hold tests of fixed backends (dask, torch, jax).
    narrow = ["-k", "npu_emu"] if suite == "extra" else []
    counts, lines, tail = run_suite(suite, [*ids, *skipped, *narrow], tmp_path,
                                    SLICE_TIMEOUT_S)
    bad = failures(lines)
    assert not bad, f"{suite}: {len(bad)} failed in the slice:\n" + "\n".join(bad) + tail
    assert counts["passed"] >= len(ids), f"{suite}: only {dict(counts)} ran\n{tail}"
    for test in skipped:
        mine = [line for line in lines if line.partition(" ")[2].startswith(test + "[")]
        assert mine and all(line.startswith("skipped ") for line in mine), (test, lines)
    # Each test ran with our namespace as its parameter, none on the client's own backends.
    assert all("npu_emu" in line.partition("[")[2] for line in lines), "\n".join(lines)


@NEEDS_CLIENTS
@pytest.mark.skipif(not FULL, reason="the whole client suites run with NPU_EMU_CLIENTS=1")
@pytest.mark.parametrize("suite", sorted(REFERENCE["suites"]))
def test_whole_suite_matches_strict(suite: str, tmp_path: pathlib.Path) -> None:
    ref = REFERENCE["suites"][suite]
    counts, lines, _ = run_suite(suite, [], tmp_path, FULL_TIMEOUT_S)
    bad = failures(lines)
    # Tests the reference run passed with an optional package this environment lacks (its
    # "needs": package -> how many) skip here, on any namespace: not counted against ours.
    absent = {m: n for m, n in ref.get("needs", {}).items() if importlib.util.find_spec(m) is None}
    want = ref["passed"] - sum(absent.values())
    assert counts["passed"] >= want, (
        f"{suite}: {counts['passed']} passed, array_api_strict {ref['passed']}"
        + (f" ({want} without {', '.join(absent)})" if absent else "") + "\n"
        + "\n".join(bad))
    assert counts["skipped"] >= sum(absent.values()), (suite, dict(counts), absent)
    assert len(bad) <= ref["failed"] + ref["errors"], (
        f"{suite}: {len(bad)} failed or errored, array_api_strict "
        f"{ref['failed'] + ref['errors']}:\n" + "\n".join(bad))
