"""pytest plugin: scikit-learn's own array-API tests, unchanged, on npu_emu.array_api.

scikit-learn parametrizes those tests over yield_namespaces() and
yield_namespace_device_dtype_combinations() and imports each namespace by name in
_array_api_for_tests; this plugin makes both generators yield only the target namespace
(ours, or array_api_strict with NPU_EMU_CLIENT_XP=array_api_strict) before any test module
is imported, and deselects the tests that these generators do not parametrize (tests that
name a library themselves, as some do array_api_strict, are not ours to count).
Load with `-p sklearn_plugin`, SCIPY_ARRAY_API=1 set (tests/clients/run_clients.sh does).
"""
from __future__ import annotations

import functools
import os
import sys

import pytest

from _clients import (OURS, pytest_collectreport, pytest_runtest_logreport,  # noqa: F401 (hooks)
                      target_namespace)


class Yielded(str):
    """A namespace name as our generators yield it. It equals the plain name, so scikit-learn
    imports the module as before, and it marks the tests that those generators parametrize:
    tests that spell "array_api_strict" out themselves are left out of both counts."""


def _namespaces(include_numpy_namespaces: bool = True):
    yield Yielded(target_namespace())


def _namespace_device_dtype_combinations(include_numpy_namespaces: bool = True):
    name = target_namespace()
    if name == OURS:
        # scikit-learn yields both float widths for every namespace that has them.
        yield Yielded(name), None, "float64"
        yield Yielded(name), None, "float32"
    else:
        # The reference keeps scikit-learn's own parametrization of it.
        for namespace, device, dtype in _ORIGINAL["yield_namespace_device_dtype_combinations"]():
            if namespace == name:
                yield Yielded(namespace), device, dtype


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
    """Keep only the tests that our generators parametrize: the array-API part of
    scikit-learn's suite, the same selection on ours and on the reference."""
    keep, drop = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        (keep if _yielded_in(params.values()) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _yielded_in(values) -> bool:
    """Whether a test's parameters hold a name from our generators: as a parameter, in a
    plain tuple, or as a keyword of an estimator check (a functools.partial)."""
    for v in values:
        if isinstance(v, Yielded):
            return True
        if isinstance(v, functools.partial) and _yielded_in(v.keywords.values()):
            return True
        if type(v) is tuple and _yielded_in(v):
            return True
    return False
