"""What one call through the C ABI costs: a tiny aclnnExpand pair ([1, 8] -> [4, 8] float32)
plus aclrtSynchronizeStream, timed from C and from the Python facade in turns in one process
(the best of `reps` runs of `n` iterations each), and from a C program of its own. The goal:
C within 1.5x of Python (both do the same Python work; C adds the GIL hand-over and the
argument passing).

    python -m npu_emu.capi.bench [--n 500] [--reps 5]

`measure()` returns the figures for `npu-emu bench` to report.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL = 1.5

# The C side: the loop as a function (called through ctypes, interleaved with the Python
# loop in one process, so both see the same machine load) and as a program (main: the
# embedded interpreter's figure, in a process of its own).
TIMING_CPP = r"""
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include "acl/acl.h"
#include "aclnnop/aclnn_expand.h"
static aclrtStream s;
static aclTensor *x, *y;
static aclIntArray* size;
static int once() {
  uint64_t ws; aclOpExecutor* ex;
  return aclnnExpandGetWorkspaceSize(x, size, y, &ws, &ex) + aclnnExpand(nullptr, ws, ex, s) +
         aclrtSynchronizeStream(s);
}
static double cpu_us() {   // the process's CPU time, all threads (robust on a loaded machine)
  timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
// Microseconds per iteration of n iterations, wall clock (and process CPU time in *cpu) after
// 100 warm-up ones at the first call; aclInit may have been called by the host process
// (ACL_ERROR_REPEAT_INITIALIZE is fine).
extern "C" double npu_emu_bench_expand(int n, double* cpu) {
  if (x == nullptr) {
    aclInit(nullptr); aclrtSetDevice(0); aclrtCreateStream(&s);
    void *a, *b; aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST); aclrtMalloc(&b, 256, ACL_MEM_MALLOC_HUGE_FIRST);
    int64_t rs[2] = {1, 8}, os[2] = {4, 8}, st[2] = {8, 1};
    x = aclCreateTensor(rs, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, rs, 2, a);
    y = aclCreateTensor(os, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, os, 2, b);
    size = aclCreateIntArray(os, 2);
    for (int i = 0; i < 100; i++) if (once()) { printf("failed: %s\n", aclGetRecentErrMsg()); return -1; }
  }
  double c0 = cpu_us();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; i++) once();
  double wall = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
  if (cpu) *cpu = (cpu_us() - c0) / n;
  return wall;
}
#ifndef NPU_EMU_BENCH_LIBRARY
int main(int argc, char** argv) {
  int n = atoi(argv[1]), reps = atoi(argv[2]);
  double best = 1e30;
  for (int r = 0; r < reps; r++) { double us = npu_emu_bench_expand(n, nullptr); if (us < 0) return 1; if (us < best) best = us; }
  printf("%.3f\n", best);
  return aclFinalize();
}
#endif
"""


class PythonLoop:
    """The same loop through the Python facade (the runtime started here, once)."""

    def __init__(self) -> None:
        import npu_emu.acl as acl
        from npu_emu import aclnn
        from npu_emu.dtypes import aclDataType as DT
        from npu_emu.formats import aclFormat as F
        acl.init()
        acl.rt.set_device(0)
        self.stream, _ = acl.rt.create_stream()
        a, _ = acl.rt.malloc(64, 0)
        b, _ = acl.rt.malloc(256, 0)
        self.x = aclnn.aclCreateTensor([1, 8], DT.ACL_FLOAT, [8, 1], 0, F.ACL_FORMAT_ND, [1, 8], a)
        self.y = aclnn.aclCreateTensor([4, 8], DT.ACL_FLOAT, [8, 1], 0, F.ACL_FORMAT_ND, [4, 8], b)
        self.size = aclnn.aclCreateIntArray([4, 8])
        for _ in range(100):
            if self.once():
                raise RuntimeError(aclnn.aclGetRecentErrMsg())

    def once(self) -> int:
        import npu_emu.acl as acl
        from npu_emu import aclnn
        ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(self.x, self.size, self.y)
        return ret + aclnn.aclnnExpand(None, ws, ex, self.stream) + acl.rt.synchronize_stream(self.stream)

    def __call__(self, n: int) -> tuple[float, float]:
        """(wall, process CPU) microseconds per iteration."""
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(n):
            self.once()
        return (time.perf_counter() - t0) / n * 1e6, (time.process_time() - c0) / n * 1e6


def measure(n: int = 500, reps: int = 7) -> dict[str, float]:
    """Microseconds per Expand pair + sync: "c_us" (the C loop through ctypes) and
    "python_us", the best of `reps` interleaved runs each, and their "ratio"; the same in
    process CPU time ("c_cpu_us", "python_cpu_us", "cpu_ratio": what a loaded machine
    disturbs least); "embedded_c_us", the C program with its embedded interpreter (a process
    of its own)."""
    import ctypes

    from . import build, compile_example
    build()
    with tempfile.TemporaryDirectory(prefix="npu_emu_capi_bench_") as tmp:
        src = Path(tmp) / "bench_expand.cpp"
        src.write_text(TIMING_CPP)
        exe = compile_example(src, Path(tmp), ["-O2"])
        embedded = float(subprocess.run([str(exe), str(n), str(reps)], capture_output=True, text=True,
                                        check=True).stdout.split()[-1])
        lib_path = compile_example(src, Path(tmp), ["-O2", "-shared", "-fPIC", "-DNPU_EMU_BENCH_LIBRARY"],
                                   "libbench_expand.so")
        c_loop = ctypes.CDLL(str(lib_path)).npu_emu_bench_expand
        c_loop.restype = ctypes.c_double
        c_loop.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
        py_loop = PythonLoop()
        inf = float("inf")
        c_best, c_cpu, py_best, py_cpu = inf, inf, inf, inf
        for _ in range(reps):
            cpu = ctypes.c_double()
            c_best = min(c_best, c_loop(n, ctypes.byref(cpu)))
            c_cpu = min(c_cpu, cpu.value)
            wall, cpu_py = py_loop(n)
            py_best, py_cpu = min(py_best, wall), min(py_cpu, cpu_py)
    return {"c_us": c_best, "python_us": py_best, "ratio": c_best / py_best,
            "c_cpu_us": c_cpu, "python_cpu_us": py_cpu, "cpu_ratio": c_cpu / py_cpu,
            "embedded_c_us": embedded, "goal": GOAL}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m npu_emu.capi.bench", description=__doc__)
    parser.add_argument("--n", type=int, default=500, help="iterations per run")
    parser.add_argument("--reps", type=int, default=7, help="runs (the best is kept)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    r = measure(args.n, args.reps)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"Expand pair + aclrtSynchronizeStream: C {r['c_us']:.1f} us, Python facade "
              f"{r['python_us']:.1f} us, ratio {r['ratio']:.2f} (goal <= {GOAL}); a C program "
              f"with its embedded interpreter: {r['embedded_c_us']:.1f} us\n"
              f"  process CPU time: C {r['c_cpu_us']:.1f} us, Python {r['python_cpu_us']:.1f} us, "
              f"ratio {r['cpu_ratio']:.2f}")
    return 0 if r["ratio"] <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
