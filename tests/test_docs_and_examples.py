"""The README's Python snippet and every example keep working (`npu-emu demo` runs them)."""
from __future__ import annotations

import functools
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
    assert blocks[1].strip() == "pip install -e '.[test]' && pytest -n auto"
    assert "pytest -q -n auto" in (ROOT / ".ci" / "run").read_text()


def test_readme_python_snippet_runs(cpu_backend):
    code = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)[0]
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["ret"] == 0


EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.py"))
# Runs an example as its own __main__, then prints the kernel modules it loaded.
TRACE = """
import runpy, sys
from npu_emu.runtime import base
loaded, load = [], base.ModuleCache.load
def traced(self, module):
    loaded.append(module)
    return load(self, module)
base.ModuleCache.load = traced
try:
    runpy.run_path(sys.argv[1], run_name="__main__")
finally:
    print("modules loaded:", *sorted(set(loaded)), file=sys.stderr)
"""


@functools.cache
def run_example(example: str) -> tuple[subprocess.CompletedProcess, frozenset]:
    """The example's run, and the kernel modules it loaded."""
    r = subprocess.run([sys.executable, "-c", TRACE, str(ROOT / "examples" / example)],
                       capture_output=True, text=True, env=dict(os.environ, NPU_EMU_DEVICE="cpu"),
                       timeout=300)
    found = re.findall(r"^modules loaded:(.*)$", r.stderr, re.M)
    return r, frozenset(found[-1].split() if found else ())


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_runs_on_the_modules_the_demo_prebuilds(example):
    from npu_emu.cli import demo_modules
    r, loaded = run_example(example)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip()
    assert loaded <= set(demo_modules()), f"{example} loads {sorted(loaded - set(demo_modules()))}, " \
        "which npu_emu.cli.demo_modules misses (a cold demo would build them one by one)"


def test_the_demo_prebuilds_only_modules_an_example_loads():
    """(The C++ examples' own modules are named apart: their loads are not traced here.)"""
    from npu_emu.cli import c_example_modules, demo_modules
    loaded = frozenset().union(*(run_example(e)[1] for e in EXAMPLES))   # cached runs
    unused = set(demo_modules()) - loaded - set(c_example_modules())
    assert not unused, f"no example loads {sorted(unused)}"


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
    # Run several at once, printed in the demo's order, each header once.
    at = [r.stdout.index(f"===== examples/{name} ") for name in DEMO_ORDER]
    assert at == sorted(at) and all(r.stdout.count(f"===== examples/{n} ") == 1 for n in DEMO_ORDER)
