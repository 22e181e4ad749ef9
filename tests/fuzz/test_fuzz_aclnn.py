"""Fuzzing the aclnn C-style layer (issue 9): tensors, scalars, arrays and their destroys,
every operator's two phases, executors and address rebinding. Each entry point gets
NPU_EMU_FUZZ_CASES cases (250; 3000 with NPU_EMU_FUZZ=1), valid calls and hostile mutations of
them, run in the worker process; see README.md in this folder for the oracles."""
from __future__ import annotations

import pytest

from .runner import fuzz_entry
from .strategies import ACLNN_ENTRIES


@pytest.mark.parametrize("entry", sorted(ACLNN_ENTRIES))
def test_aclnn_entry_point(entry, fuzz_runner):
    fuzz_entry(fuzz_runner, entry, ACLNN_ENTRIES[entry])
