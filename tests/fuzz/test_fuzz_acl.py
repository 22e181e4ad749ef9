"""Fuzzing the acl runtime facade (issue 9): init/finalize, devices, malloc/free, memcpy
(sync and async), memset, streams and events. NPU_EMU_FUZZ_CASES cases per entry point (250;
3000 with NPU_EMU_FUZZ=1); see README.md in this folder for the oracles."""
from __future__ import annotations

import pytest

from .runner import fuzz_entry
from .strategies import ACL_ENTRIES


@pytest.mark.parametrize("entry", sorted(ACL_ENTRIES))
def test_acl_entry_point(entry, fuzz_runner):
    fuzz_entry(fuzz_runner, entry, ACL_ENTRIES[entry])
