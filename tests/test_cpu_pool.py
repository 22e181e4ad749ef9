"""The cpu backend's worker pool (kernels_cuda/npu_emu_cpu_pool.h) and its packed launches.

A grid's blocks run on the calling thread and the pool's workers; the launch ends when its
blocks are done, never waiting for a worker the scheduler has parked (an OpenMP region did:
a time slice per launch beside a busy process). Results do not depend on the thread count,
launches from several threads at once share the pool, a forked child runs grids without the
parent's workers, and a launch with workspace cells reuses its packed form once the task
that held it has run.
"""
from __future__ import annotations

import multiprocessing
import os
import shutil
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu.dtypes import aclDataType as DT
from npu_emu.kernels import reduce
from npu_emu.kernels.copy import View
from npu_emu.runtime import cpu

CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


@pytest.fixture
def threads(cpu_backend):
    """set_threads(n) for the test; the count before comes back after."""
    before = cpu_backend.threads
    yield cpu_backend.set_threads
    cpu_backend.set_threads(before)


def _data(n: int, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(11).standard_normal(n).astype(dtype)


def test_more_threads_than_cpus_give_the_same_bytes(threads):
    a = _data(1 << 20)
    x = xp.asarray(a, copy=True)
    got = {}
    for n in (1, 3, 8):
        threads(n)
        got[n] = [np.asarray(f(x)).tobytes() for f in (xp.exp, xp.sum, xp.max, xp.cumulative_sum)]
    assert got[1] == got[3] == got[8]
    # and they are right: within 1 ulp each of ours and NumPy's exp, the max exactly
    np.testing.assert_array_max_ulp(np.frombuffer(got[8][0], np.float32), np.exp(a), maxulp=2)
    assert np.frombuffer(got[8][2], np.float32)[0] == a.max()


def test_launches_from_several_threads_at_once_share_the_pool(threads):
    threads(4)
    a = _data(1 << 19, np.float64)
    want_add, want_max = (a + a).tobytes(), a.max()
    errors: list[str] = []

    def body(i: int) -> None:
        try:
            x = xp.asarray(a, copy=True)
            for _ in range(30):
                if np.asarray(xp.add(x, x)).tobytes() != want_add or float(xp.max(x)) != want_max:
                    errors.append(f"thread {i}: wrong result")
                    return
        except BaseException as exc:  # noqa: BLE001 -- reported below
            errors.append(f"thread {i}: {exc!r}")

    workers = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(3)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in workers), "a launch did not return (deadlock?)"
    assert not errors, errors


def _forked_child(queue) -> None:
    import npu_emu.array_api as xp_child
    a = np.arange(1 << 20, dtype=np.float32)
    queue.put(bool(np.array_equal(np.asarray(xp_child.add(xp_child.asarray(a), 1.0)), a + 1)))


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
# The fork is the point of the test. Where another test of the same worker imported JAX
# (the clients' suites, interop), JAX warns that forking its threads may deadlock: its
# threads are not used in the child.
@pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")
def test_a_forked_child_runs_grids_without_the_parents_workers(threads):
    threads(2)
    x = xp.asarray(_data(1 << 20), copy=True)
    xp.add(x, x)                                   # the parent's workers exist now
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_forked_child, args=(queue,))
    child.start()
    child.join(timeout=120)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung in a launch")
    assert child.exitcode == 0 and queue.get(timeout=5) is True


_BESIDE_A_BUSY_PROCESS = textwrap.dedent("""
    import os, statistics, subprocess, sys, time
    import numpy as np
    cpus = [int(c) for c in sys.argv[1:3]]
    busy = subprocess.Popen([sys.executable, "-c",
                             f"import os; os.sched_setaffinity(0, {{{cpus[1]}}})\\nwhile True: pass"])
    try:
        os.sched_setaffinity(0, set(cpus))
        import npu_emu.array_api as xp
        from npu_emu import runtime
        be = runtime.current()
        x = xp.asarray(np.ones(1 << 20, np.float32), copy=True)
        def median_us(n):
            be.set_threads(n)
            for _ in range(3):
                xp.add(x, x)
            times = []
            for _ in range(30):
                t0 = time.perf_counter()
                xp.add(x, x)
                times.append(time.perf_counter() - t0)
            return statistics.median(times) * 1e6
        print(median_us(1), median_us(2))
    finally:
        busy.kill()
""")


@pytest.mark.skipif(len(CPUS) < 2, reason="needs two CPUs")
def test_a_launch_does_not_wait_for_a_worker_parked_beside_a_busy_process():
    """Two threads on two CPUs, one of them kept busy by another process: the worker that
    lands there is parked for a time slice at a time. An OpenMP loop's end waited for it
    (12 ms per 1M-element add against 0.4 ms on one thread); the pool's caller takes the
    blocks the worker does not, and returns."""
    r = subprocess.run([sys.executable, "-c", _BESIDE_A_BUSY_PROCESS, str(CPUS[0]), str(CPUS[1])],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    one, two = (float(v) for v in r.stdout.split())
    assert two < 3 * one + 1000, f"2 threads: {two:.0f} us a launch, 1 thread: {one:.0f} us"


def test_a_two_phase_reduction_reuses_its_packed_launches(threads, monkeypatch):
    threads(2)
    x = xp.asarray(_data(1 << 20), copy=True)
    want = float(xp.sum(x))
    packed = []
    real = cpu._prepare
    monkeypatch.setattr(cpu, "_prepare", lambda launch: packed.append(launch) or real(launch))
    for _ in range(5):
        assert float(xp.sum(x)) == want
    assert len(packed) <= 2, f"{len(packed)} launches packed anew"   # (a first pass of each)
    packed.clear()
    for _ in range(5):
        assert float(xp.sum(x)) == want
    assert not packed


def test_queued_launches_each_hold_their_own_packed_form(cpu_backend):
    """Launches queued behind other work keep the workspace they were enqueued with: a
    packed form is patched only while no task holds it, and given back when its task has
    run, for the next enqueue to reuse."""
    be = cpu_backend
    a = _data(1 << 16)
    xb, yb = be.malloc(a.nbytes), be.malloc(4)
    wss: list[int] = []
    try:
        be.copy_from_host(xb, a)
        p = reduce.plan(be, "max", View(xb, a.shape, (1,), 4), DT.ACL_FLOAT, View(yb, (), (), 4),
                        DT.ACL_FLOAT, geometry=lambda nout, nleaves: reduce.Geometry(1, 4))
        assert p.workspace_size                      # two phases: the partials in the workspace
        gate = threading.Event()
        be.default_stream.submit(lambda: gate.wait(60))   # the stream is busy from here
        wss = [be.malloc(p.workspace_size) for _ in range(3)]
        for ws in wss:
            be.enqueue(p.launches, be.default_stream, workspace=ws)   # queued
        gate.set()
        be.synchronize()
        out = np.empty(1, np.float32)
        be.copy_to_host(out, yb)
        assert out[0] == a.max()
        with_cells = [launch for launch in p.launches if launch.spares]
        assert with_cells
        for launch in with_cells:
            bases = {min(cell.value - offset for cell, offset in packed[4]) for packed in launch.spares}
            assert bases == set(wss)                 # three tasks, three packed forms
        be.enqueue(p.launches, be.default_stream, workspace=wss[0])   # idle: runs here
        assert all(len(launch.spares) == 3 for launch in with_cells)  # one reused, none made
    finally:
        be.synchronize()
        for ptr in (xb, yb, *wss):
            be.free(ptr)


_UNDER_PROC_BIND = textwrap.dedent("""
    import os, time
    import numpy as np
    process = sorted(os.sched_getaffinity(0))
    import npu_emu.array_api as xp
    from npu_emu import runtime
    be = runtime.current()
    be.set_threads(2)
    x = xp.asarray(np.ones(1 << 20, np.float32), copy=True)
    xp.negative(xp.asarray(np.ones(4, np.float32), copy=True))   # a module loaded (libgomp)
    before = set(os.listdir("/proc/self/task"))
    xp.add(x, x)                                                  # 8 blocks: the pool starts
    def allowed(tid):
        with open(f"/proc/self/task/{tid}/status") as f:
            line = next(l for l in f if l.startswith("Cpus_allowed_list"))
        out = set()
        for part in line.split(":")[1].strip().split(","):
            lo, _, hi = part.partition("-")
            out.update(range(int(lo), int(hi or lo) + 1))
        return sorted(out)
    workers = sorted(set(os.listdir("/proc/self/task")) - before)
    main = allowed(os.getpid())
    want = [c for c in process if c not in main] if set(main) < set(process) else process
    for _ in range(100):        # a worker sets its mask when it first runs: let it
        xp.add(x, x)
        if all(allowed(t) == want for t in workers):
            break
        time.sleep(0.02)
    print(repr((process, allowed(os.getpid()), [allowed(t) for t in workers])))
""")


@pytest.mark.skipif(len(CPUS) < 2 or not os.path.isdir("/proc/self/task"), reason="Linux, two CPUs")
def test_workers_run_on_the_process_cpus_when_openmp_pins_the_caller():
    """OMP_PROC_BIND (the bench sets it) makes libgomp pin the thread that loads it to one
    place; the pool's workers, started from that thread, take the process's other CPUs
    instead of inheriting that one CPU (where they would run no block in parallel with it),
    as OpenMP puts its team's other threads on the other places."""
    env = dict(os.environ, OMP_PROC_BIND="close", OMP_PLACES="cores")
    r = subprocess.run([sys.executable, "-c", _UNDER_PROC_BIND], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    process, main, workers = eval(r.stdout.strip().splitlines()[-1])   # noqa: S307 (our own print)
    assert workers, "no pool worker started"
    want = [c for c in process if c not in main] if set(main) < set(process) else process
    assert all(w == want for w in workers), (process, main, workers)


def test_set_threads_plans_the_next_calls_anew(threads, cpu_backend, monkeypatch):
    """A call planned at one thread count is planned again after set_threads: a 1M
    reduction planned for one thread is one launch of one block; at two it has two phases."""
    x = xp.asarray(_data(1 << 20), copy=True)
    launched = []
    real = cpu_backend.enqueue
    monkeypatch.setattr(cpu_backend, "enqueue",
                        lambda launches, *a, **k: launched.append(len(launches)) or real(launches, *a, **k))
    threads(1)
    want = float(xp.max(x))
    assert launched == [1]
    threads(2)
    launched.clear()
    assert float(xp.max(x)) == want
    assert launched == [2]                         # phase 1 on the threads, phase 2


# pthread_create interposed (LD_PRELOAD): it fails with EAGAIN, as under a thread limit,
# while `npu_emu_test_refuse_threads(1)` is in force.
_REFUSING_SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
static volatile int refuse;
void npu_emu_test_refuse_threads(int on) { refuse = on; }
int pthread_create(pthread_t* t, const pthread_attr_t* a, void* (*f)(void*), void* arg) {
    static int (*real)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
    if (!real) *(void**)&real = dlsym(RTLD_NEXT, "pthread_create");
    if (refuse) return EAGAIN;
    return real(t, a, f, arg);
}
"""

_WITHOUT_NEW_THREADS = textwrap.dedent("""
    import ctypes, os, sys
    import numpy as np
    import npu_emu.array_api as xp
    from npu_emu import runtime
    be = runtime.current()
    be.set_threads(1)
    a = np.random.default_rng(5).standard_normal(1 << 20).astype(np.float32)
    x = xp.asarray(a, copy=True)
    fns = (xp.exp, xp.sum, xp.cumulative_sum)
    one = [np.asarray(f(x)).tobytes() for f in fns]     # modules loaded, the stream's thread made
    threads = lambda: len(os.listdir("/proc/self/task"))
    refuse = ctypes.CDLL(None).npu_emu_test_refuse_threads
    refuse(1)
    before = threads()
    be.set_threads(4)                                   # no worker can be started now
    refused = [np.asarray(f(x)).tobytes() for f in fns]
    during = threads()
    refuse(0)
    later = [np.asarray(f(x)).tobytes() for f in fns]   # the workers start now
    print(before, during, threads())
    print(refused == one, later == one, bool(np.all(np.isfinite(np.frombuffer(one[0], np.float32)))))
""")


@pytest.mark.skipif(sys.platform != "linux" or not shutil.which("gcc"), reason="LD_PRELOAD, gcc")
def test_a_launch_runs_on_the_threads_there_are_when_no_worker_can_be_started(tmp_path):
    """Under a thread limit (pthread_create fails with EAGAIN; root, who runs the tests, is
    held to no RLIMIT_NPROC, so an interposed pthread_create refuses instead) a launch at four
    threads runs its blocks on the calling thread, and gives the bytes one thread gives;
    once threads can be made again the workers start and the bytes stay the same. An
    exception through the launch's C entry point would have ended the process."""
    shim = tmp_path / "refuse_threads.so"
    src = tmp_path / "refuse_threads.c"
    src.write_text(_REFUSING_SHIM)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", str(shim), str(src), "-ldl"],
                   check=True, capture_output=True)
    env = dict(os.environ, LD_PRELOAD=str(shim), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-c", _WITHOUT_NEW_THREADS], capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    counts, verdicts = r.stdout.strip().splitlines()[-2:]
    before, during, after = (int(v) for v in counts.split())
    assert during == before < after, counts      # none started while refused, then some
    assert verdicts.split() == ["True", "True", "True"], r.stdout


_SPIN_IN_FORCE = textwrap.dedent("""
    import numpy as np, npu_emu.array_api as xp
    from npu_emu import runtime
    be = runtime.current()
    float(xp.sum(xp.asarray(np.ones(8, np.float32))))      # a module loads: the pool exists
    print(be.pool_spin_us, be.info()["worker spin"])
""")


@pytest.mark.parametrize("policy, want", [(None, cpu.WORKER_SPIN_US), ("passive", 0),
                                          ("PASSIVE", 0), ("active", cpu.WORKER_SPIN_US)])
def test_idle_workers_spin_unless_openmp_wait_policy_is_passive(policy, want):
    """An idle worker spins WORKER_SPIN_US before it sleeps (a loop of launches finds it
    awake); OMP_WAIT_POLICY=passive, OpenMP's switch for it, makes it sleep at once. The
    value is the one the pool itself has in force, and `npu-emu info` says it."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    r = subprocess.run([sys.executable, "-c", _SPIN_IN_FORCE], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    spin, said = r.stdout.strip().splitlines()[-1].split(" ", 1)
    assert int(spin) == want
    assert said.startswith(f"{want} us before an idle worker sleeps")
    assert f"OMP_WAIT_POLICY={policy or '(unset)'}" in said
