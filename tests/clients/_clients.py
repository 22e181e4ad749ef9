"""What the three client plugins share: which namespace a run targets (ours, or
array_api_strict for the reference counts), re-declaring a client conftest's parametrized
fixture before pytest reads it, and a per-test outcome log that survives a killed run.
"""
from __future__ import annotations

import os
from types import ModuleType
from typing import Any, Sequence

import pytest

OURS = "npu_emu.array_api"
REFERENCE = "array_api_strict"
# NPU_EMU_CLIENT_XP picks the namespace the clients' tests run on: ours by default, or the
# reference implementation under the very same harness, for the counts to compare with.
_CHOICES = {"npu_emu": OURS, OURS: OURS, REFERENCE: REFERENCE}


def target_namespace() -> str:
    """The module name this run's client tests use (NPU_EMU_CLIENT_XP)."""
    raw = os.environ.get("NPU_EMU_CLIENT_XP", "npu_emu")
    if raw not in _CHOICES:
        raise pytest.UsageError(
            f"NPU_EMU_CLIENT_XP must be one of {sorted(_CHOICES)}; got {raw!r}")
    return _CHOICES[raw]


def reparametrize_fixture(module: ModuleType, name: str, params: Sequence[Any]) -> None:
    """Re-declare `module`'s function-scoped fixture `name` over `params`, keeping its body.

    Called from a tryfirst `pytest_plugin_registered`, before pytest's fixture manager
    parses the conftest, so the client's own fixture (its skips, xfails and setup) runs
    unchanged on the parameters we choose."""
    declared = getattr(module, name, None)
    body = getattr(declared, "__wrapped__", None)   # pytest >= 8.4: the undecorated function
    if body is None:
        raise pytest.UsageError(
            f"{module.__name__} has no fixture {name!r} to re-parametrize; the client's "
            f"conftest changed (this pytest is {pytest.__version__})")
    setattr(module, name, pytest.fixture(params=list(params))(body))


def is_conftest(plugin_name: str | None, path_tail: str) -> bool:
    """Whether a registered plugin is the conftest.py file ending in `path_tail`."""
    return bool(plugin_name) and os.path.normpath(plugin_name).endswith(
        os.path.normpath(path_tail))


def _log_outcome(outcome: str, nodeid: str) -> None:
    """Append 'OUTCOME nodeid' to $NPU_EMU_CLIENT_OUTCOMES, a line at a time, so the counts
    (and which tests failed) survive a run killed by a timeout."""
    path = os.environ.get("NPU_EMU_CLIENT_OUTCOMES")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{outcome} {nodeid}\n")


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """A module that fails to import is an error, one skipped whole a skip, as pytest counts."""
    if report.failed:
        _log_outcome("error", report.nodeid)
    elif report.skipped:
        _log_outcome("skipped", report.nodeid)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Log each test's outcome: its call's, or its setup's when that did not pass, and an
    error for a failed teardown."""
    if report.when == "call" or (report.when == "setup" and not report.passed):
        outcome = report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        elif report.when == "setup" and report.failed:
            outcome = "error"
    elif report.when == "teardown" and report.failed:
        outcome = "error"
    else:
        return
    _log_outcome(outcome, report.nodeid)
