"""pytest plugin for run_conformance.sh: after the array-api-tests suite loads its hypothesis
profile, derive one with shrinking off (a failing test stays at its first example, so runs
are comparable and short) and a fresh example database (no state from earlier runs)."""
from __future__ import annotations

import os
import tempfile

import pytest
from hypothesis import Phase, settings
from hypothesis.database import DirectoryBasedExampleDatabase


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    folder = os.environ.get("NPU_EMU_HYPOTHESIS_DIR") or tempfile.mkdtemp(prefix="npu-emu-hypothesis-")
    settings.register_profile(
        "npu-emu-conformance", parent=settings.get_profile("array-api-tests"),
        phases=[p for p in Phase if p is not Phase.shrink],
        database=DirectoryBasedExampleDatabase(folder))
    settings.load_profile("npu-emu-conformance")
