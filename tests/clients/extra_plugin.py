"""pytest plugin: array-api-extra's own tests, unchanged, on npu_emu.array_api.

array-api-extra's conftest parametrizes its `library` fixture over a closed `Backend` enum
and its `xp` fixture imports `library.modname`. This plugin re-declares `library`, before
pytest parses that conftest, over one backend: ours (an object that answers like a Backend
member equal to none of them), or Backend.ARRAY_API_STRICT with
NPU_EMU_CLIENT_XP=array_api_strict, for the reference counts.
Load with `-p extra_plugin`, from a source tree of array-api-extra (its tests are not in its
wheel; tests/clients/run_clients.sh fetches the sdist of the installed version).
"""
from __future__ import annotations

import os

import pytest

from _clients import (OURS, REFERENCE, is_conftest, pytest_collectreport,  # noqa: F401 (hooks)
                      pytest_runtest_logreport, reparametrize_fixture, target_namespace)


class NpuEmuBackend:
    """Our namespace as array-api-extra's tests see a backend: `modname` is imported,
    `like()` compares module names, and it equals no `Backend` member, so every test takes
    the path of a generic array API library."""

    name = "NPU_EMU"
    value = modname = OURS

    def like(self, *others) -> bool:
        return any(self.modname == other.modname for other in others)

    def __str__(self) -> str:
        return self.modname

    __repr__ = __str__


@pytest.hookimpl(tryfirst=True)
def pytest_plugin_registered(plugin, plugin_name) -> None:
    if not is_conftest(plugin_name, os.path.join("tests", "main", "conftest.py")):
        return
    from array_api_extra._lib._backends import Backend

    if target_namespace() == REFERENCE:
        params = [Backend.ARRAY_API_STRICT.pytest_param()]
    else:
        params = [pytest.param(NpuEmuBackend(), id="npu_emu")]
    reparametrize_fixture(plugin, "library", params)


def pytest_configure(config: pytest.Config) -> None:
    # Set by Backend.pytest_param for Dask and JAX; pytest-run-parallel, which registers
    # it upstream, is not among our test dependencies.
    config.addinivalue_line("markers", "thread_unsafe: not run in parallel threads")


def agnostic_only(item: pytest.Item) -> str | None:
    """The reason of a skip on array_api_strict that is true of ours too: array-api-extra
    delegates to the libraries it knows, and takes its array-agnostic path for the others.
    It knows neither strict nor ours, so a test skipped on strict because strict takes that
    path (`TestNUnique.test_delegates`: "array-agnostic fallback") is skipped on ours."""
    from array_api_extra._lib._backends import Backend

    for mark in item.iter_markers("skip_xp_backend"):
        reason = mark.kwargs.get("reason") or ""
        if mark.args and mark.args[0] == Backend.ARRAY_API_STRICT and "array-agnostic" in reason:
            return reason
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or not isinstance(callspec.params.get("library"), NpuEmuBackend):
            continue
        reason = agnostic_only(item)
        if reason is not None:
            item.add_marker(pytest.mark.skip(
                reason=f"{reason} (as on array_api_strict: array-api-extra knows neither)"))
