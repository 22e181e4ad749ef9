"""The `npu-emu` command line itself: a bare `npu-emu` / `python -m npu_emu` prints the help,
and `npu-emu demo --only` that matches no example fails, naming the examples there are."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
