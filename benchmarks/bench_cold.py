"""Cold-start figures (docs/backends.md "Cold start"): the build time of each kernel module
(g++ for the cpu backend, NVRTC for cuda; NVRTC needs no GPU), and the wall time of a first
call on an empty cache, run as a new process.

  python benchmarks/bench_cold.py [--modules ufunc_unary_basic.cu,...] [--no-gxx] [--no-nvrtc]
                                  [--first CASE,...] [--arch 90]

User CPU time is the figure that does not depend on the load of the machine; wall time is what
a user waits (modules of one call build in parallel). The first-call cases run
`python -c <snippet>` with NPU_EMU_CACHE_DIR set to a new empty folder and report the modules
its progress lines name.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIRST = {   # case -> the snippet a new user runs
    "add_f64": "import npu_emu.array_api as xp; "
               "print(xp.add(xp.asarray([1.0, 2.0]), xp.asarray([3.0, 4.0])))",
    "add_f32": "import npu_emu.array_api as xp; print(xp.add(xp.asarray([1.0, 2.0], dtype=xp.float32), "
               "xp.asarray([3.0, 4.0], dtype=xp.float32)))",
    "add_f16": "import npu_emu.array_api as xp; print(xp.add(xp.asarray([1.0, 2.0], dtype=xp.float16), "
               "xp.asarray([3.0, 4.0], dtype=xp.float16)))",
    "add_f16_f64": "import npu_emu.array_api as xp; "
                   "print(xp.add(xp.asarray([1.0, 2.0], dtype=xp.float16), xp.asarray([3.0, 4.0])))",
    "add_int": "import npu_emu.array_api as xp; print(xp.add(xp.asarray([1, 2]), 3))",
    "add_u16": "import npu_emu.array_api as xp; "
               "print(xp.add(xp.asarray([1, 2], dtype=xp.uint16), xp.asarray([3, 4], dtype=xp.uint16)))",
    "exp_f64": "import npu_emu.array_api as xp; print(xp.exp(xp.asarray([1.0, 2.0])))",
    "sin_f64": "import npu_emu.array_api as xp; print(xp.sin(xp.asarray([1.0, 2.0])))",
    "sum_f32": "import npu_emu.array_api as xp; print(xp.sum(xp.asarray([1.0, 2.0], dtype=xp.float32)))",
    "sum_f64": "import npu_emu.array_api as xp; print(xp.sum(xp.asarray([1.0, 2.0])))",
    "matmul_f32": "import npu_emu.array_api as xp; "
                  "print(xp.asarray([[1.0, 2.0]], dtype=xp.float32) @ xp.asarray([[3.0], [4.0]], dtype=xp.float32))",
    "demo": "import sys; from npu_emu.cli import main; sys.exit(main(['demo']))",
}
_BUILT = re.compile(r"\[\d+/\d+\] (\S+) \(([\d.]+) s\)")


def gxx_time(cache, module: str, folder: str) -> tuple[float, float]:
    """(user CPU s, wall s) of one g++ build of `module` into `folder`."""
    u0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    t0 = time.monotonic()
    cache._build(module, Path(folder) / f"{Path(module).stem}.so")
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - u0, time.monotonic() - t0


def nvrtc_time(module: str, arch: int) -> tuple[float, float]:
    """(user CPU s, wall s) of one NVRTC compile of `module` (in this process)."""
    from npu_emu.runtime.cuda import compile_module
    u0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    t0 = time.monotonic()
    compile_module(module, arch)
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime - u0, time.monotonic() - t0


def first_call(case: str) -> tuple[float, float, list[str], int]:
    """(wall s, user CPU s of the process and its compilers, modules built, exit status) of
    FIRST[case] on an empty cache."""
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, NPU_EMU_CACHE_DIR=folder, PYTHONPATH=str(ROOT))
        u0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
        t0 = time.monotonic()
        run = subprocess.run([sys.executable, "-c", FIRST[case]], env=env, capture_output=True,
                             text=True)
        wall = time.monotonic() - t0
        user = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - u0
    built = [f"{m} {s} s" for m, s in _BUILT.findall(run.stderr)]
    return wall, user, built, run.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modules", help="comma-separated kernel modules (default: every one)")
    ap.add_argument("--no-gxx", action="store_true")
    ap.add_argument("--no-nvrtc", action="store_true")
    ap.add_argument("--arch", type=int, default=90, help="NVRTC's sm (default 90)")
    ap.add_argument("--first", default="", help=f"first-call cases: {', '.join(FIRST)}")
    args = ap.parse_args()
    from npu_emu.runtime.base import kernel_sources
    modules = args.modules.split(",") if args.modules else kernel_sources()
    print(f"load average at start: {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores", flush=True)
    if not args.no_gxx or not args.no_nvrtc:
        from npu_emu.runtime.cpu import CpuModuleCache
        cache = CpuModuleCache()
        cache.path(modules[0])   # resolves the compiler and its flags
        print("\n| module | g++ user s | g++ wall s | NVRTC user s | NVRTC wall s |")
        print("|---|---|---|---|---|", flush=True)
        with tempfile.TemporaryDirectory() as folder:
            for m in modules:   # one at a time, each row as it is measured
                g = None if args.no_gxx else gxx_time(cache, m, folder)
                n = None if args.no_nvrtc else nvrtc_time(m, args.arch)
                cells = [f"{x:.1f}" for x in g] if g else ["-", "-"]
                cells += [f"{x:.1f}" for x in n] if n else ["-", "-"]
                print(f"| {m} | " + " | ".join(cells) + " |", flush=True)
    for case in filter(None, args.first.split(",")):
        wall, user, built, rc = first_call(case)
        print(f"\n{case}: wall {wall:.1f} s, user CPU {user:.1f} s, exit {rc}; built: "
              f"{', '.join(built) or 'nothing'}", flush=True)
    print(f"\nload average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
