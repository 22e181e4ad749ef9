"""Shared test set-up: the backends to run kernel tests on, hypothesis profiles.

Kernel tests take the `backend` fixture: they run on the cpu backend always, and on the cuda
backend where CuPy and a GPU answer (skipped elsewhere, saying why). NPU_EMU_FUZZ=1 turns on
long fuzz runs.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from npu_emu import _state, runtime, status
from npu_emu.ops._core import clear_plan_cache

settings.register_profile("default", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("fuzz", deadline=None, max_examples=5000,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("fuzz" if os.environ.get("NPU_EMU_FUZZ") == "1" else "default")

FUZZ = os.environ.get("NPU_EMU_FUZZ") == "1"


def _cuda_reason() -> str:
    ok, why = runtime.cuda_available()
    return "" if ok else why


def pytest_collection_modifyitems(config, items):
    why = None
    for item in items:
        if "cuda" in item.keywords:
            if why is None:
                why = _cuda_reason()
            if why:
                item.add_marker(pytest.mark.skip(reason=f"cuda backend unavailable: {why}"))
        if "slow" in item.keywords and not FUZZ:
            item.add_marker(pytest.mark.skip(reason="long fuzz run: set NPU_EMU_FUZZ=1"))


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def backend(request):
    """Each backend in turn, made current for the test (the previous one comes back after)."""
    previous = runtime._current
    be = runtime.use(request.param)
    yield be
    be.synchronize()
    runtime._current = previous


@pytest.fixture
def cpu_backend():
    previous = runtime._current
    be = runtime.use("cpu")
    yield be
    runtime._current = previous


@pytest.fixture(autouse=True)
def _fresh_runtime_state():
    """Each test starts as a fresh process does: acl.init not called yet (the Python helpers
    start the runtime themselves), no error messages kept, no plans cached, so one test's
    state never leaks into another."""
    _state.reset()
    status.set_recent_error("")
    clear_plan_cache()
    yield
    _state.reset()


def pytest_collection_finish(session):
    """A run over many test files (the README's whole-suite command) builds every cpu kernel
    module first, in parallel: on a cold cache the tests would otherwise build them one at a
    time as each is first called (minutes of g++ on 2 cores, one core busy). A module that
    fails to build is left for its own tests to report, with the compiler's message. The
    cuda backend's NVRTC builds that the machine-code checks read come next. Under
    pytest-xdist (the README's command) every worker collects the whole run: the first to
    take the cache folder's lock builds, the others wait and find the modules built."""
    if len({item.path for item in session.items}) < 20:
        return
    import fcntl
    from npu_emu.runtime.base import KernelBuildError, cache_dir
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / "prebuild.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            runtime.backend("cpu")._modules.build_all()
        except KernelBuildError:
            pass
        try:      # what the machine-code checks read (two test files, maybe two workers)
            from npu_emu.runtime import cuda
            cuda.import_cupy()
            cuda.nvrtc_version()
        except Exception:     # no CuPy or NVRTC: those tests skip, saying why
            return
        from helpers import nvrtc_builds
        try:
            nvrtc_builds()
        except KernelBuildError:
            pass
