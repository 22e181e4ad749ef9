"""The sanitizer (npu_emu.check, docs/sanitizer.md): a seeded corpus of buggy programs
(tests/check/corpus.py) run in subprocesses under NPU_EMU_CHECK, each giving its one finding
and no other; correct programs (the corpus's ok_ ones, the examples of `npu-emu demo`) give
none; the JSON, the exit status, the tool selection; no hook runs when it is off; the
shadow's element sets against a brute-force reference; CANN's lifecycle (reset_device and
finalize release acl.rt's memory, streams and events)."""
from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import npu_emu.acl as acl
from npu_emu import aclnn, check
from npu_emu.check import _checker, cli as check_cli
from npu_emu.status import ACL_ERROR_INVALID_PARAM

from . import corpus

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(corpus.__file__)

# Each buggy program: (the kind of its one finding, words its message must contain).
EXPECTED = {
    "race_kernels_on_two_streams": ("race", "aclnnMul on stream"),
    "race_copy_and_kernel": ("race", "acl.rt.memcpy_async (host-to-device)"),
    "race_event_on_the_wrong_stream": ("race", "acl.rt.memset_async on stream"),
    "init_kernel_reads_unwritten_memory": ("init", "aclnnMul reads tensor other: 256 of its bytes"),
    "init_half_written_view": ("init", "aclnnMul reads tensor self: 64 of its bytes"),
    "init_copy_back_unwritten": ("init", "(device-to-host) reads its source: 128 of its bytes"),
    "misuse_executor_of_another_operator": ("misuse", "aclnnMul runs an executor made by aclnnAddGetWorkspaceSize"),
    "misuse_workspace_too_small": ("misuse", "is smaller than the 1024 bytes aclnnMulGetWorkspaceSize asked for"),
    "misuse_workspace_freed": ("misuse", "is not live device memory from acl.rt.malloc (acl.rt.free at"),
    "misuse_workspace_overlaps_output": ("misuse", "overlaps tensor out's memory"),
    "misuse_repeatable_after_free": ("misuse", "runs a repeatable executor of aclnnAdd after tensor out's memory"),
    "misuse_host_pointer_as_device_memory": ("misuse", "aclCreateTensor: tensorData="),
    "misuse_destroyed_stream": ("misuse", "acl.rt.memset_async is given a stream that was destroyed"),
    "misuse_destroyed_event": ("misuse", "given an event that was destroyed (acl.rt.destroy_event at"),
    "misuse_host_read_before_sync": ("misuse", "before that stream was synchronized"),
    "leak_device_memory": ("leak", "100 bytes of device memory from acl.rt.malloc were never freed"),
    "leak_handles": ("leak", "was never destroyed"),
    "leak_stream_and_event": ("leak", "never destroyed"),
}
OK_PROGRAMS = [n for n in corpus.PROGRAMS if n.startswith("ok_")]
KIND_LINE = re.compile(r"^npu_emu check: (race|init|misuse|leak): ", re.M)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NPU_EMU_CHECK")}
    env.update(NPU_EMU_DEVICE="cpu", PYTHONPATH=str(ROOT), **extra)
    return env


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT,
                          env=_env(**env), timeout=600)


def _corpus(names: list[str], **env: str) -> tuple[subprocess.CompletedProcess, dict]:
    proc = _run([str(CORPUS), *names], **env)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("CORPUS ")]
    assert lines, proc.stdout + proc.stderr
    return proc, json.loads(lines[-1][len("CORPUS "):])


@pytest.fixture(scope="module")
def buggy():
    return _corpus(sorted(EXPECTED), NPU_EMU_CHECK="all")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_buggy_program_gives_its_finding_and_no_other(buggy, name):
    proc, out = buggy
    kind, words = EXPECTED[name]
    found = out["results"][name]
    assert found, f"{name}: no finding\n{proc.stderr}"
    assert {f["kind"] for f in found} == {kind}, found
    assert any(words in f["message"] for f in found), found
    for f in found:   # every site is the user's code, not npu_emu's
        assert f["sites"] and all("corpus.py:" in s for s in f["sites"]), f
    leaks = {"leak_handles": 3, "leak_stream_and_event": 2}
    assert len(found) == leaks.get(name, 1), found


def test_the_buggy_run_exits_86_and_prints_one_block_per_finding(buggy):
    proc, out = buggy
    assert proc.returncode == 86, proc.stderr
    total = sum(len(v) for v in out["results"].values())
    assert len(KIND_LINE.findall(proc.stderr)) == total
    assert f"npu_emu check: summary: {total} findings" in proc.stderr


def test_a_race_names_both_call_sites(buggy):
    _, out = buggy
    (race,) = out["results"]["race_kernels_on_two_streams"]
    lines = inspect.getsource(corpus.Vectors).splitlines()
    first = inspect.getsourcelines(corpus.Vectors)[1]
    mul = first + next(i for i, ln in enumerate(lines) if "aclnn.aclnnMul(None" in ln)
    add = first + next(i for i, ln in enumerate(lines) if "aclnn.aclnnAdd(None" in ln)
    assert race["sites"] == [f"tests/check/corpus.py:{mul} (mul)", f"tests/check/corpus.py:{add} (add)"]


def test_correct_programs_give_none():
    proc, out = _corpus(OK_PROGRAMS, NPU_EMU_CHECK="all")
    assert out["on"] and out["results"] == {n: [] for n in OK_PROGRAMS}
    assert proc.returncode == 0, proc.stderr
    assert "npu_emu check: summary: 0 findings" in proc.stderr


def test_the_examples_give_none():
    proc = _run(["-m", "npu_emu", "demo"], NPU_EMU_CHECK="all")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert not KIND_LINE.findall(proc.stderr), proc.stderr
    counts = re.findall(r"npu_emu check: summary: (\d+) findings", proc.stderr)
    assert len(counts) >= 7 and set(counts) == {"0"}, proc.stderr   # core_model.py never loads it


def test_the_check_command_json_and_exit_code(tmp_path):
    report = tmp_path / "report.json"
    proc = _run(["-m", "npu_emu", "check", "--tools", "init,leak", "--error-exitcode", "3",
                 "--json", str(report), "--", str(CORPUS), "init_copy_back_unwritten",
                 "race_kernels_on_two_streams"])
    assert proc.returncode == 3, proc.stderr
    data = json.loads(report.read_text())
    assert [f["kind"] for f in data["findings"]] == ["init"]     # race is not selected
    assert set(data["findings"][0]) == {"kind", "message", "sites"}
    assert data["summary"]["by_kind"] == {"race": 0, "init": 1, "misuse": 0, "leak": 0}
    assert data["summary"]["tools"] == ["init", "leak"]
    assert proc.stderr.startswith("npu_emu check: init: acl.rt.memcpy (device-to-host)")


def test_off_no_hook_runs_and_the_checker_is_not_imported():
    code = (f"import sys, runpy; sys.argv = ['corpus', 'race_kernels_on_two_streams', "
            f"'init_copy_back_unwritten']; runpy.run_path({str(CORPUS)!r}, run_name='__main__'); "
            f"print('LOADED', 'npu_emu.check._checker' in sys.modules)")
    proc = _run(["-c", code])
    assert proc.returncode == 0, proc.stderr
    assert '"on": false' in proc.stdout and "LOADED False" in proc.stdout
    assert "npu_emu check" not in proc.stderr


class _Counter:
    """Stands in for the checker: counts every hook a call site looks up."""

    def __init__(self) -> None:
        self.calls = 0

    def __getattr__(self, name):
        self.calls += 1
        return lambda *a, **k: None


def test_off_the_call_sites_do_not_touch_the_hook(monkeypatch):
    assert not check.ON          # the test process runs without NPU_EMU_CHECK
    counter = _Counter()
    monkeypatch.setattr(check, "hook", counter)
    corpus.ok_two_streams_with_event()
    corpus.misuse_executor_of_another_operator()
    assert counter.calls == 0


def test_tools_are_parsed_with_named_errors():
    assert check.parse_tools("all") == frozenset(check.TOOL_NAMES)
    assert check.parse_tools(" race , init") == {"race", "init"}
    assert check.parse_tools("") == frozenset() == check.parse_tools("off")
    with pytest.raises(ValueError, match="NPU_EMU_CHECK='race,heap': unknown tool 'heap'"):
        check.parse_tools("race,heap")
    assert check_cli.command_line(["--", "prog.py", "a"]) == [sys.executable, "prog.py", "a"]
    assert check_cli.command_line(["-m", "pkg.mod"]) == [sys.executable, "-m", "pkg.mod"]
    assert check_cli.command_line(["./a.out", "x"]) == ["./a.out", "x"]


@pytest.mark.parametrize("words", [["--", "./no-such-program"], ["./no-such-program", "x"]])
def test_a_program_that_cannot_start_is_named(words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert check_cli.main(words) == 127
    assert capsys.readouterr().err == ("npu-emu check: cannot run ./no-such-program: "
                                       "No such file or directory\n")


def test_sites_are_the_users_line_or_the_c_symbol():
    from npu_emu.check._sites import site
    here = inspect.currentframe().f_lineno + 1
    assert site().endswith(f"test_check.py:{here} (test_sites_are_the_users_line_or_the_c_symbol)")
    with check.c_call("aclnnAdd"):
        assert site() == "aclnnAdd (C ABI)"
    assert site("aclrtMemcpy") == "aclrtMemcpy (C ABI)" and check.current_c_symbol() is None


# ------------------------------------------------------------------ the shadow's element sets

def _bytes_of_view(shape, strides, item, offset):
    """Brute force: every byte offset an element of the view covers."""
    out = set()
    for idx in np.ndindex(*shape):
        start = offset + sum(i * s for i, s in zip(idx, strides))
        out.update(range(start, start + item))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_select_marks_exactly_the_views_bytes(seed):
    rng = np.random.default_rng(seed)
    item = int(rng.choice([1, 2, 4, 8]))
    rank = int(rng.integers(1, 4))
    shape = tuple(int(n) for n in rng.integers(1, 5, rank))
    strides = tuple(int(s) * item for s in rng.integers(0, 7, rank))
    offset = int(rng.integers(0, 5)) * item
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + item + 16
    sh = _checker.Shadow(0, size, "here", init=True, clocks=False)
    sh.init.set(_checker._select(sh, offset, size - offset, (shape, strides, item)), True)
    assert set(np.flatnonzero(sh.init.array)) == _bytes_of_view(shape, strides, item, offset)


@pytest.mark.parametrize("seed", range(4))
def test_coarse_granules_hold_exactly_the_granules_of_the_views_elements(seed):
    rng = np.random.default_rng(100 + seed)
    size = 4 << 20                                   # 4 MiB: 2^18 granules of 16 bytes
    sh = _checker.Shadow(0, size, "here", init=True, clocks=False)
    g = sh.granule
    assert g == size >> 18 == 16 and "16-byte granules" in sh.describe()
    item = int(rng.choice([2, 4, 8, 32]))
    shape = tuple(int(n) for n in rng.integers(1, 6, 2))
    strides = tuple(int(s) * item for s in rng.integers(1, 9, 2))
    offset = int(rng.integers(0, 9)) * item
    sel = _checker._select(sh, offset, size - offset, (shape, strides, item))
    sh.init.set(sel, True)
    want = {b // g for b in _bytes_of_view(shape, strides, item, offset)}
    assert set(np.flatnonzero(sh.init.array)) == want


def test_whole_block_accesses_keep_one_value():
    sh = _checker.Shadow(0, 1024, "here", init=True, clocks=True)
    whole = _checker._select(sh, 0, 1024, None)
    sh.writes.set(whole, 7)
    assert sh.writes.array is None and sh.writes.value == 7       # O(1), no array
    sh.writes.set(_checker._select(sh, 8, 8, None), 9)
    ids, weight = sh.writes.values(_checker._select(sh, 0, 32, None))
    assert weight == 1 and list(ids) == [7] * 8 + [9] * 8 + [7] * 16


# ------------------------------------------------------------------ CANN's lifecycle

def test_reset_device_releases_memory_streams_and_events():
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    p, _ = acl.rt.malloc(64, 0)
    s, _ = acl.rt.create_stream()
    ev, _ = acl.rt.create_event()
    host = np.arange(16, dtype=np.float32)
    assert acl.rt.memcpy(p, 64, host, 64, 1) == 0
    assert acl.rt.reset_device(0) == 0
    assert acl.rt.set_device(0) == 0
    back = np.zeros(16, np.float32)
    assert acl.rt.memcpy(back, 64, p, 64, 2) == ACL_ERROR_INVALID_PARAM
    assert "not inside one live allocation" in acl.get_recent_err_msg()
    assert acl.rt.free(p) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.synchronize_stream(s) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.record_event(ev, None) == ACL_ERROR_INVALID_PARAM
    t = aclnn.aclCreateTensor([16], 0, None, 0, 2, [16], p)
    assert aclnn.aclnnMulGetWorkspaceSize(t, t, t)[2] == 161002   # its memory is gone
    assert acl.rt.reset_device(0) == 0 and acl.finalize() == 0


def test_finalize_releases_what_reset_device_did_not():
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    p, _ = acl.rt.malloc(64, 0)
    q, _ = acl.rt.malloc(64, 0)
    assert acl.rt.free(q) == 0
    assert acl.finalize() == 0
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    assert acl.rt.memset(p, 64, 0, 64) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.reset_device(0) == 0 and acl.finalize() == 0
