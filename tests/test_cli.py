"""The `npu-emu` command line itself: a bare `npu-emu` / `python -m npu_emu` prints the help,
`npu-emu demo --only` that matches no example fails, naming the examples there are, and the
demo's examples, run side by side, print whole and in order."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from npu_emu._ordered import run_in_order
from npu_emu.cli import DEMO_ORDER, main

ROOT = Path(__file__).resolve().parent.parent


def test_python_dash_m_without_arguments_prints_the_help():
    r = subprocess.run([sys.executable, "-m", "npu_emu"], capture_output=True, text=True,
                       timeout=120, cwd=ROOT, env=dict(os.environ, NPU_EMU_DEVICE="cpu"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: npu-emu")
    for command in ("demo", "info", "bench"):
        assert command in r.stdout
    assert "error" not in r.stdout + r.stderr


def test_main_without_arguments_is_the_help(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: npu-emu") and "positional arguments" in out


def test_demo_only_matching_nothing_fails_naming_the_examples(capsys):
    assert main(["demo", "--only", "nothing"]) == 2
    captured = capsys.readouterr()
    assert "--only 'nothing' matches no example" in captured.err
    for name in DEMO_ORDER:
        assert name.removesuffix(".py") in captured.err
    assert "examples ran" not in captured.out     # nothing ran, nothing reported as run


def _program(text: str, delay: float, rc: int = 0) -> list[str]:
    return [sys.executable, "-c",
            f"import sys, time; time.sleep({delay}); print({text!r}); "
            f"print({text!r} + ' on stderr', file=sys.stderr); sys.exit({rc})"]


def test_a_python_programs_lines_keep_their_order_without_a_flush(monkeypatch):
    # Piped, Python buffers stdout and not stderr: the children run unbuffered, and their
    # pieces are replayed in the order they came, so with 2>&1 the lines interleave as live.
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)
    code = ("import sys; from npu_emu._ordered import run_in_order; "
            f"run_in_order([{_program('out', 0.0)!r}, {_program('next', 0.0)!r}], "
            "lambda i: f'== {i}', jobs=2)")
    r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stdout
    assert r.stdout.splitlines() == ["== 0", "out", "out on stderr",
                                     "== 1", "next", "next on stderr"]


def test_a_line_is_replayed_whole_when_the_other_stream_writes_in_its_middle():
    # Half a stdout line, a whole stderr line, then the rest: with 2>&1 the stderr line comes
    # first and never lands inside the stdout line; output without a final newline gets one
    # before the next header.
    child = ("import sys, time; sys.stdout.write('half'); sys.stdout.flush(); time.sleep(0.2); "
             "sys.stderr.write('err\\n'); sys.stderr.flush(); time.sleep(0.2); "
             "sys.stdout.write(' whole\\n'); sys.stdout.write('tail')")
    argv = [sys.executable, "-c", child]
    code = ("from npu_emu._ordered import run_in_order; "
            f"run_in_order([{argv!r}, {argv!r}], lambda i: f'== {{i}}', jobs=2)")
    r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stdout
    assert r.stdout.splitlines() == ["== 0", "err", "half whole", "tail",
                                     "== 1", "err", "half whole", "tail"]


def test_programs_run_side_by_side_print_whole_and_in_order(capfd):
    # The first one finishes last: its output still comes first, and each one's lines stay
    # together under its header; its stderr stays on stderr (NPU_EMU_CHECK's reports, 2>file).
    commands = [_program("first", 1.0), _program("second", 0.0, rc=3), _program("third", 0.2)]
    codes = run_in_order(commands, lambda i: f"== {i}", jobs=3)
    assert codes == [0, 3, 0]
    out = capfd.readouterr()
    assert out.out.splitlines() == ["== 0", "first", "== 1", "second", "== 2", "third"]
    assert out.err.splitlines() == ["first on stderr", "second on stderr", "third on stderr"]


def test_one_job_runs_them_one_after_another(capfd):
    codes = run_in_order([_program("a", 0.0), _program("b", 0.0, rc=1)], lambda i: f"-- {i}",
                         jobs=1)
    assert codes == [0, 1]
    out = capfd.readouterr()
    assert out.out.splitlines() == ["-- 0", "a", "-- 1", "b"]     # live: stderr its own
    assert out.err.splitlines() == ["a on stderr", "b on stderr"]
