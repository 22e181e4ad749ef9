"""The fuzz suite's own machinery: every oracle fires on the defect it is for, the runner
records a crash (SIGSEGV, abort) and a hang and goes on with a fresh worker, and a
reproducer line replays its case."""
from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from .runner import Runner, TESTS, reproducer

# what each misbehaving case must give: (status, defect kind or None)
EXPECTED = {
    "segfault": ("crash", None), "abort": ("crash", None), "hang": ("hang", None),
    "escape": ("done", "escaped_exception"), "no_msg": ("done", "no_err_msg"),
    "bad_family": ("done", "wrong_code"), "internal": ("done", "wrong_code"),
    "leak": ("done", "leak"), "guard_write": ("done", "out_of_view_write"),
    "view_write": ("done", "wrong_result"), "clean": ("done", None),
}


def case(do: str) -> dict:
    return {"entry": "_selftest", "soc": "Ascend910B", "seed": 1, "args": {"do": do}, "mut": None}


@pytest.fixture(scope="module")
def runner():
    r = Runner(timeout=3, max_repeats=100)
    yield r
    r.close()


@pytest.mark.parametrize("do", list(EXPECTED))
def test_each_oracle_fires(runner, do):
    status, kind = EXPECTED[do]
    outcome = runner.run(case(do))
    assert outcome["status"] == status, outcome
    if status == "crash":
        assert "SIGSEGV" in outcome["detail"] or "SIGABRT" in outcome["detail"], outcome["detail"]
    if status == "done":
        kinds = [d["kind"] for d in outcome["result"]["defects"]]
        assert kinds == ([kind] if kind else []), outcome["result"]["defects"]
    # the worker is alive (or restarted) for the next case
    after = runner.run(case("clean"))
    assert after["status"] == "done" and not after["result"]["defects"]


def test_report_counts_and_groups(runner):
    before = runner.report.stats["_selftest"]["cases"]
    for _ in range(3):
        runner.run(case("escape"))
    st = runner.report.stats["_selftest"]
    assert st["cases"] == before + 3
    group = [d for d in runner.report.entry_defects("_selftest") if d["kind"] == "escaped_exception"]
    assert len(group) == 1 and group[0]["count"] >= 3
    assert "python tests/fuzz/worker.py --case" in runner.report.failure_text("_selftest")
    json.dumps(runner.report.to_json())                     # the JSON report is serializable


def test_reproducer_line_replays_the_case():
    line = reproducer(case("escape"))
    env_part, cmd = line.split(" ", 1)
    args = shlex.split(cmd)
    args[0] = sys.executable
    out = subprocess.run(args, cwd=TESTS.parent, capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, env_part.split("=")[0]: env_part.split("=")[1]})
    assert out.returncode == 1, out.stdout + out.stderr
    assert "escaped_exception: selftest.raises" in out.stdout


@pytest.mark.parametrize("storage", [[82], [44]], ids=["fits", "past_the_storage"])
def test_none_strides_are_contiguous_and_must_still_fit(runner, storage):
    """aclCreateTensor with stride=None takes the contiguous strides: the oracle accepts the
    descriptor where that view fits the storage and expects it refused where it does not
    (found by seed 20261207: the case's own strides reached less of a 44-element storage than
    the contiguous ones, which reach element 81 past offset 1)."""
    c = {"entry": "aclCreateTensor", "soc": "Ascend910B", "seed": 1,
         "args": {"view_dims": [3, 3, 3, 3], "data_type": 11, "stride": [6, 6, 1, 7],
                  "offset": 1, "format": 2, "storage_dims": storage, "data": "none",
                  "guard": 64},
         "mut": {"kind": "list", "param": "stride", "value": None}}
    outcome = runner.run(c)
    assert outcome["status"] == "done" and not outcome["result"]["defects"], outcome
    assert outcome["result"]["calls"]["aclCreateTensor"] == 1
