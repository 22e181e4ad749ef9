"""pytest plugin: SciPy's own array-API tests (`-m array_api_backends`), unchanged, with
npu_emu.array_api as one more backend of SciPy's `xp` fixture, under the id "npu_emu".

SciPy's conftest builds its backend list when it is imported and filters it by the ids in
SCIPY_ARRAY_API (a JSON list); it knows no way to add a backend. So this plugin reads that
list itself (SCIPY_ARRAY_API='["npu_emu"]' runs ours alone, '["array_api_strict"]' the
reference), hands SciPy "1" (every backend it can import), and re-declares the conftest's
`xp` fixture over the chosen ids, ours included, before pytest parses that conftest.
Load with `-p scipy_plugin` (tests/clients/run_clients.sh does), before SciPy is imported.
"""
from __future__ import annotations

import importlib
import json
import os
import sys

import pytest

from _clients import (OURS, is_conftest, pytest_collectreport,  # noqa: F401 (hooks)
                      pytest_runtest_logreport, reparametrize_fixture)

OUR_ID = "npu_emu"


def _requested_ids() -> set[str] | None:
    """The backend ids SCIPY_ARRAY_API asks for; None for all of them ("1", "true", "all")."""
    raw = os.environ.get("SCIPY_ARRAY_API", "")
    if raw.lower() in ("1", "true", "all"):
        return None
    try:
        ids = json.loads(raw)
    except ValueError:
        ids = None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise pytest.UsageError(
            f'scipy_plugin: SCIPY_ARRAY_API must be 1 or a JSON list of backend ids such as '
            f'\'["{OUR_ID}"]\'; got {raw!r}')
    return None if ids == ["all"] else set(ids)


if "scipy" in sys.modules:
    # SciPy reads SCIPY_ARRAY_API once, at import: too late to hand it "1".
    raise pytest.UsageError("scipy_plugin must be loaded (-p scipy_plugin) before SciPy "
                            "is imported")
REQUESTED = _requested_ids()
os.environ["SCIPY_ARRAY_API"] = "1"


@pytest.hookimpl(tryfirst=True)
def pytest_plugin_registered(plugin, plugin_name) -> None:
    if not is_conftest(plugin_name, os.path.join("scipy", "conftest.py")):
        return
    if not hasattr(plugin, "xp_available_backends"):
        return
    xp = importlib.import_module(OURS)
    ours = pytest.param(xp, id=OUR_ID, marks=pytest.mark.array_api_backends)
    # SciPy's skip and xfail markers act on the known backends by module name: np_only=True
    # must skip ours too, and cpu_only=True when our arrays live on a GPU.
    plugin.xp_known_backends.add(OURS)
    if xp.__array_namespace_info__().default_device() != xp.Device("cpu"):
        plugin.xp_skip_cpu_only_backends.add(OURS)
    backends = [*plugin.xp_available_backends, ours]
    if REQUESTED is not None:
        unknown = REQUESTED - {p.id for p in backends}
        if unknown:
            raise pytest.UsageError(f"scipy_plugin: SCIPY_ARRAY_API names {sorted(unknown)}; "
                                    f"the backends are {[p.id for p in backends]}")
        backends = [p for p in backends if p.id in REQUESTED]
    reparametrize_fixture(plugin, "xp", backends)


# SciPy's eager backends. A test whose skip_xp_backends markers name every one of them is a
# test of lazy backends (SciPy has eager_only=True but no lazy_only: such a test lists the
# eager backends by name, as _lib's TestContainsNaN.test_array_api_lazy does). Ours is eager,
# so it is skipped on ours as upstream would, had it our name to list.
EAGER = frozenset({"numpy", "array_api_strict", "cupy", "torch"})


def lazy_only(item: pytest.Item) -> str | None:
    """The reason of a test that skips every eager backend by name, else None."""
    named = {m.args[0]: m.kwargs.get("reason") for m in item.iter_markers("skip_xp_backends")
             if m.args}
    if not EAGER <= named.keys():
        return None
    return named["numpy"] or "lazy backends only"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or callspec.params.get("xp") is None:
            continue
        if getattr(callspec.params["xp"], "__name__", None) != OURS:
            continue
        reason = lazy_only(item)
        if reason is not None:
            item.add_marker(pytest.mark.skip(
                reason=f"{reason} (SciPy skips every eager backend by name; ours is eager)"))
