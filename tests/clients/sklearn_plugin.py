"""pytest plugin: scikit-learn's own array-API tests, unchanged, on npu_emu.array_api.

scikit-learn parametrizes those tests over yield_namespaces() and
yield_namespace_device_dtype_combinations() and imports each namespace by name in
_array_api_for_tests; this plugin makes both generators yield only the target namespace
(ours, or array_api_strict with NPU_EMU_CLIENT_XP=array_api_strict) before any test module
is imported, and deselects the tests that these generators do not parametrize.
Load with `-p sklearn_plugin`, SCIPY_ARRAY_API=1 set (tests/clients/run_clients.sh does).
"""
from __future__ import annotations

import functools
import os
import sys

import pytest

from _clients import OURS, pytest_runtest_logreport, target_namespace  # noqa: F401 (a hook)


def _namespaces(include_numpy_namespaces: bool = True):
    yield target_namespace()


def _namespace_device_dtype_combinations(include_numpy_namespaces: bool = True):
    name = target_namespace()
    if name == OURS:
        # scikit-learn yields both float widths for every namespace that has them.
        yield name, None, "float64"
        yield name, None, "float32"
    else:
        # The reference keeps scikit-learn's own parametrization of it.
        yield from _ORIGINAL["yield_namespace_device_dtype_combinations"]()


_ORIGINAL: dict = {}


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get("SCIPY_ARRAY_API"):
        raise pytest.UsageError("sklearn_plugin: set SCIPY_ARRAY_API=1 (scikit-learn's "
                                "array-API tests skip without it)")
    from sklearn.utils import _array_api

    _ORIGINAL["yield_namespaces"] = _array_api.yield_namespaces
    _ORIGINAL["yield_namespace_device_dtype_combinations"] = (
        _array_api.yield_namespace_device_dtype_combinations)
    ours = {"yield_namespaces": _namespaces,
            "yield_namespace_device_dtype_combinations": _namespace_device_dtype_combinations}
    # Modules imported so far (sklearn.utils.estimator_checks...) hold their own reference.
    for module in list(sys.modules.values()):
        if not (getattr(module, "__name__", "") or "").startswith("sklearn"):
            continue
        for name, replacement in ours.items():
            if getattr(module, name, None) is _ORIGINAL[name]:
                setattr(module, name, replacement)


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    """Keep only the tests parametrized with the target namespace's name: that is the
    array-API part of scikit-learn's suite, the same selection on ours and the reference."""
    name = target_namespace()
    keep, drop = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        (keep if _mentions(params.values(), name) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _mentions(values, name: str) -> bool:
    """Whether a test's parameters hold `name` as scikit-learn's generators give it: a plain
    string, in a plain tuple, or a keyword of an estimator check (a functools.partial). The
    NamespaceAndDevice pairs of its mixed-namespace tests do not count: those are written for
    named libraries (array_api_strict with torch, cupy...), not for a namespace we add."""
    for v in values:
        if isinstance(v, str):
            if v == name:
                return True
        elif isinstance(v, functools.partial):
            if _mentions(v.keywords.values(), name):
                return True
        elif type(v) is tuple and _mentions(v, name):
            return True
    return False
