"""NPU_EMU_SANITIZE=address: the cpu backend's kernels built with AddressSanitizer (their own
cache entries: the flags are in the key), run in a process that loads the ASan runtime first
(LD_PRELOAD). The pool poisons the slack past each block's requested size, so a kernel that
writes past its buffer is caught even inside the rounded allocation."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from npu_emu.runtime import cpu

ROOT = Path(__file__).resolve().parent.parent
LIBASAN = cpu.asan_runtime()
pytestmark = pytest.mark.skipif(not LIBASAN, reason="the C++ compiler has no AddressSanitizer "
                                                    "runtime (libasan)")


def _asan_env(**extra: str) -> dict[str, str]:
    return dict(os.environ, NPU_EMU_SANITIZE="address", NPU_EMU_DEVICE="cpu", LD_PRELOAD=LIBASAN,
                ASAN_OPTIONS="detect_leaks=0:abort_on_error=0", PYTHONPATH=str(ROOT), **extra)


def _python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=600)


def test_the_flags_are_in_the_cache_key(monkeypatch):
    plain = cpu.CpuModuleCache().path("strided_copy.cu")
    monkeypatch.setenv("NPU_EMU_SANITIZE", "address")
    sanitized = cpu.CpuModuleCache()
    assert sanitized.path("strided_copy.cu") != plain and "-fsanitize=address" in sanitized.flags
    monkeypatch.setenv("NPU_EMU_SANITIZE", "thread-of-doom")
    with pytest.raises(ValueError, match="NPU_EMU_SANITIZE='thread-of-doom'; choose one of address"):
        cpu.CpuModuleCache().path("strided_copy.cu")


def test_kernel_tests_pass_under_asan():
    """A subset of the kernel tests (strided copies of every shape hypothesis draws, the
    pool) with every kernel launch checked by ASan."""
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                        "tests/test_strided_copy.py", "tests/test_pool.py", "-k", "not 64bit"],
                       capture_output=True, text=True, env=_asan_env(), cwd=ROOT, timeout=900)
    assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-3000:])
    assert " passed" in r.stdout and "AddressSanitizer" not in r.stderr


BAD_LAUNCH = """
    import numpy as np
    from npu_emu import runtime
    from npu_emu.kernels.copy import View, plan_copy
    be = runtime.backend("cpu")
    n = 4096
    src, dst = be.malloc(2 * n), be.malloc(n)
    be.copy_from_host(src, np.arange(2 * n, dtype=np.uint32).astype(np.uint8))
    count = {count}
    be.enqueue(plan_copy(be, View(dst, (count,), (1,), 1), View(src, (count,), (1,), 1)), None)
    be.synchronize()
    print("finished")
"""


def test_asan_catches_an_out_of_bounds_write_from_a_bad_launch():
    ok = _python(BAD_LAUNCH.format(count=4096), _asan_env())
    assert ok.returncode == 0 and "finished" in ok.stdout, ok.stderr[-3000:]
    bad = _python(BAD_LAUNCH.format(count=4096 + 64), _asan_env())   # 64 bytes past the block
    assert bad.returncode != 0 and "finished" not in bad.stdout
    assert "ERROR: AddressSanitizer" in bad.stderr and "WRITE of size" in bad.stderr, bad.stderr[-3000:]
    assert "strided_copy" in bad.stderr   # the kernel library's frame


def test_a_sanitized_build_without_the_runtime_says_what_to_do():
    env = _asan_env()
    del env["LD_PRELOAD"]
    r = _python("from npu_emu import runtime; runtime.backend('cpu').function('strided_copy.cu', "
                "'strided_copy_b1_i32')", env)
    assert r.returncode != 0
    assert "NPU_EMU_SANITIZE=address needs the ASan runtime loaded first: LD_PRELOAD=" in r.stderr
