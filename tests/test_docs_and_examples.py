"""The README's Python snippet and every example keep working (`npu-emu demo` runs them)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_readme_starts_with_the_two_setup_commands():
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks[0].strip() == "pip install -e . && npu-emu demo"
    assert blocks[1].strip() == "pip install -e '.[test]' && pytest"
    assert "pytest -q" in (ROOT / ".ci" / "run").read_text()


def test_readme_python_snippet_runs(cpu_backend):
    code = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)[0]
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["ret"] == 0


@pytest.mark.parametrize("example", sorted(p.name for p in (ROOT / "examples").glob("*.py")))
def test_example_runs(example):
    r = subprocess.run([sys.executable, str(ROOT / "examples" / example)], capture_output=True,
                       text=True, env=dict(os.environ, NPU_EMU_DEVICE="cpu"), timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip()


def test_demo_lists_every_example():
    from npu_emu.cli import DEMO_ORDER
    assert sorted(DEMO_ORDER) == sorted(p.name for p in (ROOT / "examples").glob("*.py"))


def test_npu_emu_demo_runs_every_example_to_the_end():
    """The main job, as the README's first command runs it (the CANN samples finalize the
    runtime: each example must still start clean)."""
    r = subprocess.run([sys.executable, "-m", "npu_emu", "demo"], capture_output=True, text=True,
                       env=dict(os.environ, NPU_EMU_DEVICE="cpu"), timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    from npu_emu.cli import DEMO_ORDER
    assert f"npu-emu demo: {len(DEMO_ORDER)}/{len(DEMO_ORDER)} examples ran" in r.stdout
