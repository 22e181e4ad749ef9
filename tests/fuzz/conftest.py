"""Session fixtures of the fuzz suite: one worker process for every case of the session, and
the report (printed at the end, visible with -s, and written as JSON under pytest's base
temporary directory)."""
from __future__ import annotations

import json

import pytest

from .runner import Runner


@pytest.fixture(scope="session")
def fuzz_runner(tmp_path_factory):
    runner = Runner()
    yield runner
    runner.close()
    path = tmp_path_factory.getbasetemp() / "fuzz_report.json"
    path.write_text(json.dumps(runner.report.to_json(), indent=1, default=str))
    print(f"\n{runner.report.table()}\nfuzz report: {path}")
