"""The same bits whatever the host: the seeded battery of npu_emu.bitcheck (every kernel
family, through the public layers) gives the same digests under OMP_NUM_THREADS=1 and 2, and
with the cpu kernels built for two ISA levels of this machine; the kernel cache never serves
a build made for another CPU, compiler or flag set."""
from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys

from typing import Sequence

import pytest
from helpers import ALL_MODULES, BATTERY_SLICE

from npu_emu import bitcheck


# Runs the battery (the arguments of `npu-emu bitcheck` after the script), then names the
# kernel modules it loaded (on stderr).
TRACED = """
import sys
from npu_emu import bitcheck
from npu_emu.runtime import base
loaded, load = set(), base.ModuleCache.load
def traced(self, module):
    loaded.add(module)
    return load(self, module)
base.ModuleCache.load = traced
try:
    status = bitcheck.main(sys.argv[1:])
finally:
    print("modules loaded:", *sorted(loaded), file=sys.stderr)
sys.exit(status)
"""


def battery(only: Sequence[str] = (), **env: str) -> tuple[dict[str, str], list[str]]:
    """The battery's digests (of the cases named by `only`, default all) in a fresh
    interpreter (so the environment takes effect), and the modules it loaded."""
    args = [arg for o in only for arg in ("--only", o)]
    proc = subprocess.run([sys.executable, "-c", TRACED, *args], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "NPU_EMU_DEVICE": "cpu", **env})
    assert proc.returncode == 0, proc.stderr[-3000:]
    modules = re.findall(r"^modules loaded:(.*)$", proc.stderr, re.M)[-1].split()
    return json.loads(proc.stdout), modules


@pytest.fixture(scope="module")
def two_threads() -> dict[str, str]:
    return battery(OMP_NUM_THREADS="2")[0]


def test_battery_covers_every_kernel_family(two_threads):
    families = {name.split("/")[0] for name in two_threads}
    assert families == {"cast", "copy", "expand", "add_mul", "format_cast", "matmul", "array_api"}
    assert len([n for n in two_threads if n.startswith("cast/")]) == 20   # every source dtype


def test_same_bits_on_one_and_two_threads(two_threads):
    one = battery(OMP_NUM_THREADS="1")[0]
    assert bitcheck.compare(one, two_threads) == []


def _lower_isa_level() -> str | None:
    """A -march this machine runs that is below its own ISA (None when there is none we know)."""
    machine = platform.machine()
    flags = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    if machine in ("x86_64", "AMD64"):
        needs = ("sse4_2", "ssse3", "popcnt", "cx16")
        return "x86-64-v2" if all(f" {f}" in flags for f in needs) else "x86-64"
    if machine == "aarch64":
        return "armv8-a"
    return None


@pytest.mark.skipif(_lower_isa_level() is None, reason=f"no known lower ISA level for {platform.machine()}")
def test_same_bits_at_two_isa_levels(two_threads, monkeypatch):
    """The battery (by default its slice of every family, BATTERY_SLICE: each case builds
    modules at the lower level; NPU_EMU_ALL_MODULES=1 for all) at the lower level, against
    the same cases at this machine's."""
    from npu_emu.runtime.cpu import CpuModuleCache
    only = () if ALL_MODULES else BATTERY_SLICE
    native, modules = battery(only, OMP_NUM_THREADS="2")
    if not only:
        assert native == two_threads
    # The modules those cases load, built for the lower level first, in parallel (the
    # battery itself would build them one at a time as it reaches them).
    monkeypatch.setenv("NPU_EMU_CPU_MARCH", _lower_isa_level())
    CpuModuleCache().build_all(sorted(modules))
    monkeypatch.undo()
    lower, _ = battery(only, OMP_NUM_THREADS="2", NPU_EMU_CPU_MARCH=_lower_isa_level())
    assert sorted(lower) == sorted(native) and len(native) >= len(BATTERY_SLICE)
    assert bitcheck.compare(lower, native) == []


def test_the_battery_slice_has_every_family(two_threads):
    assert {n.split("/")[0] for n in two_threads} == \
        {n.split("/")[0] for n in two_threads if any(o in n for o in BATTERY_SLICE)}
    assert all(any(o in n for n in two_threads) for o in BATTERY_SLICE)


def test_a_selection_of_no_case_is_refused(capsys):
    """--only that matches nothing is an error (exit 2), not an empty digest file that would
    compare equal to any other."""
    assert bitcheck.main(["--only", "no-such-case"]) == 2
    err = capsys.readouterr().err
    assert "--only 'no-such-case' matches no case" in err and "cast, copy" in err


def test_compare_names_what_differs():
    a = {"cast/f32->*": "1", "copy/x": "2"}
    assert bitcheck.compare(a, {"cast/f32->*": "1", "copy/x": "3", "new": "4"}) == ["copy/x", "new"]


def test_cache_key_holds_cpu_compiler_and_flags(monkeypatch):
    from npu_emu.runtime import cpu

    def path(**patch) -> str:
        for name, value in patch.items():
            monkeypatch.setattr(cpu, name, value)
        return cpu.CpuModuleCache().path("strided_copy.cu").name

    base = path()
    assert path(_cpu_model=lambda: "model name : Another CPU\nflags : fpu sse2") != base
    monkeypatch.undo()
    assert path(_compiler_version=lambda cxx: "g++ (Other) 99.1") != base
    monkeypatch.undo()
    monkeypatch.setenv("NPU_EMU_CPU_MARCH", "x86-64")
    assert path() != base


def test_cpu_model_names_the_features():
    from npu_emu.runtime.cpu import _cpu_model
    text = _cpu_model()
    if os.path.exists("/proc/cpuinfo") and platform.machine() in ("x86_64", "AMD64"):
        assert "flags" in text and "sse2" in text
