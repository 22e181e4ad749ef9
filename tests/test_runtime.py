"""The runtime contract on both backends: pooled memory and its statistics, streams (order,
asynchronous launch, synchronize), events, and the cpu compiler's cache."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import types

import numpy as np
import pytest

import npu_emu
from npu_emu import runtime
from npu_emu.runtime import cpu as cpu_mod
from npu_emu.runtime.base import ModuleCache
from npu_emu.kernels.copy import View, plan_copy
from npu_emu.status import AclnnError, ACL_ERROR_INVALID_PARAM


def _upload(be, array):
    ptr = be.malloc(array.nbytes)
    be.copy_from_host(ptr, array)
    return ptr


def _download(be, ptr, like):
    out = np.empty_like(like)
    be.copy_to_host(out, ptr)
    return out


def test_pool_reuses_blocks_and_counts(backend):
    be = backend
    be.synchronize()
    be.empty_cache()
    base = be.memory_stats()
    p1 = be.malloc(1000)
    s1 = be.memory_stats()
    assert s1["bytes_in_use"] >= base["bytes_in_use"] + 1000
    assert s1["allocations"] == base["allocations"] + 1
    assert s1["peak_bytes_in_use"] >= s1["bytes_in_use"]
    be.free(p1)
    s2 = be.memory_stats()
    assert s2["bytes_in_use"] == base["bytes_in_use"]
    assert s2["bytes_cached"] >= 1000
    p2 = be.malloc(900)  # same size class: the cached block comes back
    assert p2 == p1
    be.free(p2)
    be.empty_cache()
    assert be.memory_stats()["bytes_cached"] == 0
    assert be.memory_stats()["peak_bytes_in_use"] >= s1["bytes_in_use"]


def test_pointers_are_aligned_and_disjoint(backend):
    ptrs = [backend.malloc(n) for n in (1, 100, 513, 4096, 1 << 20)]
    try:
        assert all(p % 256 == 0 for p in ptrs)
        spans = sorted((p, p + n) for p, n in zip(ptrs, (1, 100, 513, 4096, 1 << 20)))
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    finally:
        for p in ptrs:
            backend.free(p)


def test_free_of_a_foreign_pointer_is_refused_and_harmless(backend):
    before = backend.memory_stats()
    with pytest.raises(AclnnError) as err:
        backend.free(12345)
    assert err.value.code == ACL_ERROR_INVALID_PARAM
    p = backend.malloc(64)
    backend.free(p)
    with pytest.raises(AclnnError):
        backend.free(p)  # double free
    assert backend.memory_stats()["bytes_in_use"] == before["bytes_in_use"]


def test_allocator_range_check(backend):
    p = backend.malloc(1000)
    try:
        assert backend.allocator.contains(p, 1000)
        assert backend.allocator.contains(p + 999, 1)
        assert not backend.allocator.contains(p + 999, 2)
        assert not backend.allocator.contains(p - 1, 1)
    finally:
        backend.free(p)


def test_launches_on_one_stream_run_in_order(backend):
    be = backend
    a = np.arange(4096, dtype=np.float32)
    b = -a
    pa, pb = _upload(be, a), _upload(be, b)
    pd = be.malloc(a.nbytes)
    stream = be.create_stream()
    try:
        dst = View(pd, (4096,), (1,), 4)
        for _ in range(3):
            be.enqueue(plan_copy(be, dst, View(pa, (4096,), (1,), 4)), stream)
            be.enqueue(plan_copy(be, dst, View(pb, (4096,), (1,), 4)), stream)
        stream.synchronize()
        np.testing.assert_array_equal(_download(be, pd, a), b)
    finally:
        stream.destroy()
        for p in (pa, pb, pd):
            be.free(p)


def test_a_queued_launch_keeps_its_arguments_after_its_plan_is_gone(cpu_backend):
    """A launch queued behind other work may run after every reference to its plan is
    dropped: the queued task keeps the packed argument cells alive itself (their memory
    reused meanwhile would send the kernel to other addresses)."""
    import ctypes
    import gc
    be = cpu_backend
    a = np.arange(1 << 16, dtype=np.int32)
    pa, pout = _upload(be, a), be.malloc(a.nbytes)
    s = be.create_stream()
    gate = threading.Event()
    try:
        s.submit(gate.wait)                  # the stream is busy: the copy is queued
        be.enqueue(plan_copy(be, View(pout, a.shape, (1,), 4), View(pa, a.shape, (1,), 4)), s)
        gc.collect()
        churn = [ctypes.c_uint64(0xDEAD0000 + i) for i in range(10000)]   # reuse freed cells
        gate.set()
        s.synchronize()
        del churn
        np.testing.assert_array_equal(_download(be, pout, a), a)
    finally:
        gate.set()
        s.destroy()
        be.free(pa)
        be.free(pout)


def test_events_order_two_streams(backend):
    be = backend
    a = np.arange(1 << 16, dtype=np.int32)
    pa = _upload(be, a)
    pmid, pout = be.malloc(a.nbytes), be.malloc(a.nbytes)
    s1, s2 = be.create_stream(), be.create_stream()
    ev = be.create_event()
    try:
        v = lambda p: View(p, a.shape, (1,), 4)
        be.enqueue(plan_copy(be, v(pmid), v(pa)), s1)
        ev.record(s1)
        s2.wait_event(ev)
        be.enqueue(plan_copy(be, v(pout), v(pmid)), s2)
        s2.synchronize()
        assert ev.query()
        np.testing.assert_array_equal(_download(be, pout, a), a)
    finally:
        s1.destroy()
        s2.destroy()
        for p in (pa, pmid, pout):
            be.free(p)


def test_cpu_launch_is_asynchronous(cpu_backend):
    """A launch returns while the stream is busy; synchronize waits for it."""
    be = cpu_backend
    a = np.arange(1024, dtype=np.uint8)
    pa = _upload(be, a)
    pd = be.malloc(1024)
    be.memset(pd, 0, 1024)
    stream = be.create_stream()
    gate = threading.Event()
    stream.submit(gate.wait)  # the stream is busy until the gate opens
    be.enqueue(plan_copy(be, View(pd, (1024,), (1,), 1), View(pa, (1024,), (1,), 1)), stream)
    ev = be.create_event()
    ev.record(stream)
    assert not ev.query()
    assert not _download(be, pd, a).any()  # not run yet
    gate.set()
    stream.synchronize()
    assert ev.query()
    np.testing.assert_array_equal(_download(be, pd, a), a)
    stream.destroy()
    be.free(pa)
    be.free(pd)


def test_cpu_free_does_not_wait_for_queued_work(cpu_backend):
    """The stream-ordered contract (tests/test_pool.py has the rest): free returns while the
    stream is still busy, and the block is not handed to the host before the work passed."""
    be = cpu_backend
    stream = be.create_stream()
    gate = threading.Event()
    safety = threading.Timer(3.0, gate.set)   # a free that waited fails below, not hangs
    safety.start()
    stream.submit(gate.wait)
    p = be.malloc(64, stream)
    t0 = time.monotonic()
    be.free(p)
    assert time.monotonic() - t0 < 0.5 and not gate.is_set()
    q = be.malloc(64)
    assert q != p
    gate.set()
    safety.cancel()
    stream.destroy()
    be.free(q)


def test_cpu_stream_reports_a_failed_task(cpu_backend):
    stream = cpu_backend.create_stream()
    stream.submit(lambda: 1 / 0)
    with pytest.raises(AclnnError) as err:
        stream.synchronize()
    assert "ZeroDivisionError" in err.value.message
    stream.synchronize()  # the error is reported once
    stream.destroy()


def test_size_classes():
    for n in [1, 511, 512, 513, 4096, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 << 22, 10**9]:
        c = cpu_mod.size_class(n)
        assert c >= n
        assert c - n <= max(511, n // 8)


def test_cpu_module_cache_rebuilds_when_a_header_changes(tmp_path, monkeypatch):
    src = runtime.kernels_dir()
    fake = tmp_path / "kernels"
    fake.mkdir()
    for f in src.iterdir():
        (fake / f.name).write_bytes(f.read_bytes())
    monkeypatch.setattr(cpu_mod, "kernels_dir", lambda: fake)
    import npu_emu.runtime.base as base
    monkeypatch.setattr(base, "kernels_dir", lambda: fake)
    monkeypatch.setenv("NPU_EMU_CACHE_DIR", str(tmp_path / "cache"))
    cache = cpu_mod.CpuModuleCache()
    first = cache.library_path("strided_copy.cu")
    assert first.parent == tmp_path / "cache"
    (fake / "npu_emu_index.cuh").write_text((fake / "npu_emu_index.cuh").read_text() + "\n// changed\n")
    assert cache.library_path("strided_copy.cu") != first


def test_missing_compiler_is_one_clear_message(tmp_path, monkeypatch):
    monkeypatch.setenv("CXX", "no-such-compiler-xyz")
    monkeypatch.setenv("NPU_EMU_CACHE_DIR", str(tmp_path))
    cache = cpu_mod.CpuModuleCache()
    with pytest.raises(cpu_mod.CompileError, match="no-such-compiler-xyz.*not found"):
        cache.load("strided_copy.cu")


def _run(code, **env):
    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full)


def test_device_selection_from_the_environment():
    r = _run("from npu_emu import runtime; print(runtime.current().name)", NPU_EMU_DEVICE="cpu")
    assert r.stdout.strip() == "cpu", r.stderr
    r = _run("from npu_emu import runtime; runtime.current()", NPU_EMU_DEVICE="tpu")
    assert r.returncode != 0 and "NPU_EMU_DEVICE='tpu'" in r.stderr
    ok, why = runtime.cuda_available()
    if not ok:  # here: asking for cuda says why it cannot
        r = _run("from npu_emu import runtime; runtime.current()", NPU_EMU_DEVICE="cuda")
        assert r.returncode != 0 and ("CuPy" in r.stderr or "GPU" in r.stderr)


def test_info_command_names_the_backend():
    r = subprocess.run([sys.executable, "-m", "npu_emu.cli", "info"], capture_output=True, text=True,
                       env=dict(os.environ, NPU_EMU_DEVICE="cpu"))
    assert r.returncode == 0, r.stderr
    for needle in ("backend          cpu", "cache_dir", "Ascend910B", "compiler"):
        assert needle in r.stdout


def test_memory_stats_api():
    stats = npu_emu.memory_stats()
    assert {"bytes_in_use", "bytes_cached", "peak_bytes_in_use", "allocations"} <= set(stats)
    npu_emu.empty_cache()
    assert npu_emu.memory_stats()["bytes_cached"] == 0


def test_cpu_event_marker_fires_on_a_failed_stream(cpu_backend):
    """After a task failed the stream skips work, but an event recorded on it still fires,
    so nobody waiting for it is stranded."""
    stream = cpu_backend.create_stream()
    stream.submit(lambda: 1 / 0)
    ev = cpu_backend.create_event()
    ev.record(stream)
    ev.synchronize()
    assert ev.query()
    with pytest.raises(AclnnError):
        stream.destroy()   # the failure is reported once, and the stream is gone all the same
    assert stream.destroyed


# ------------------------------------------------------------------------------- streams

def _stream_uses(be, stream, event):
    return {
        "enqueue": lambda: be.enqueue([], stream),
        "upload": lambda: be.copy_from_host(0, np.zeros(0, np.uint8), stream),
        "synchronize": stream.synchronize,
        "wait_event": lambda: stream.wait_event(event),
        "record": lambda: event.record(stream),
        "memset": lambda: be.memset(0, 0, 0, stream),
        "destroy": stream.destroy,
    }


def test_destroyed_stream_refuses_every_use(backend):
    be = backend
    stream = be.create_stream()
    event = be.create_event()
    assert not stream.destroyed
    stream.destroy()
    assert stream.destroyed
    assert stream not in be._live_streams()
    messages = set()
    for use, call in _stream_uses(be, stream, event).items():
        with pytest.raises(AclnnError) as err:
            call()
        assert err.value.code == ACL_ERROR_INVALID_PARAM, use
        assert "stream was destroyed" in err.value.message, use
        messages.add(err.value.message.split(":", 1)[1])
    assert len(messages) == 1   # one wording for every use (cpu and cuda share it)


def test_destroy_waits_for_queued_work_then_releases(cpu_backend):
    be = cpu_backend
    stream = be.create_stream()
    done = []
    stream.submit(lambda: (time.sleep(0.05), done.append(1)))
    worker = stream._worker
    stream.destroy()
    assert done == [1] and not worker.is_alive()


def test_the_default_stream_cannot_be_destroyed(backend):
    with pytest.raises(AclnnError) as err:
        backend.default_stream.destroy()
    assert err.value.code == ACL_ERROR_INVALID_PARAM and "default stream" in err.value.message
    assert not backend.default_stream.destroyed


# ------------------------------------------------------------------------------- copies

def test_synchronous_copies_are_ordered_after_default_stream_work(backend):
    """A stream-None memset/upload runs after what is queued on the default stream and has
    landed when it returns (the contract both backends follow; on a GPU the default stream is
    non-blocking, so a legacy-stream cudaMemset would not be ordered)."""
    be = backend
    n = 1 << 20
    a = np.arange(n, dtype=np.uint32).astype(np.uint8)
    src, dst = _upload(be, a), be.malloc(n)
    v = lambda p: View(p, (n,), (1,), 1)
    try:
        for _ in range(4):   # a queue of work on the default stream
            be.enqueue(plan_copy(be, v(dst), v(src)), None)
        be.memset(dst, 7, n)                           # after the copies, done at return
        np.testing.assert_array_equal(_download(be, dst, a), np.full(n, 7, np.uint8))
        be.enqueue(plan_copy(be, v(dst), v(src)), None)
        be.copy_from_host(dst, np.zeros(n, np.uint8))  # after that copy too
        np.testing.assert_array_equal(_download(be, dst, a), np.zeros(n, np.uint8))
    finally:
        be.free(src)
        be.free(dst)


def test_cpu_synchronous_copy_waits_for_a_busy_default_stream(cpu_backend):
    be = cpu_backend
    gate = threading.Event()
    threading.Timer(0.2, gate.set).start()
    be.default_stream.submit(gate.wait)
    p = be.malloc(64)
    t0 = time.monotonic()
    be.memset(p, 1, 64)
    assert time.monotonic() - t0 >= 0.15 and gate.is_set()
    be.free(p)


def test_copy_to_host_refuses_a_non_contiguous_array(backend):
    be = backend
    p = _upload(be, np.arange(64, dtype=np.uint8))
    try:
        host = np.zeros((8, 16), np.uint8)
        with pytest.raises(AclnnError) as err:
            be.copy_to_host(host[:, ::2], p)
        assert err.value.code == ACL_ERROR_INVALID_PARAM and "non-contiguous" in err.value.message
        assert not host.any()
        frozen = np.zeros(64, np.uint8)
        frozen.flags.writeable = False
        with pytest.raises(AclnnError, match="read-only"):
            be.copy_to_host(frozen, p)
    finally:
        be.free(p)


def test_async_upload_takes_the_source_at_the_call(cpu_backend):
    """An upload on a stream may be queued; the caller may reuse its array at once."""
    be = cpu_backend
    stream = be.create_stream()
    gate = threading.Event()
    stream.submit(gate.wait)
    host = np.full(64, 3, np.uint8)
    p = be.malloc(64)
    be.copy_from_host(p, host, stream)
    host[:] = 9
    gate.set()
    stream.synchronize()
    np.testing.assert_array_equal(_download(be, p, host), np.full(64, 3, np.uint8))
    stream.destroy()
    be.free(p)


# --------------------------------------------------------------------- the module cache

class CountingCache(ModuleCache):
    """A module cache whose "compiler" writes a marker file after a delay and counts."""

    backend_name = "test"

    def __init__(self, folder, delay=0.2, gate=None):
        super().__init__()
        self.folder, self.delay, self.gate = folder, delay, gate
        self.builds = []

    def path(self, module):
        return self.folder / (module + ".built")

    def _build(self, module, path):
        if self.gate is not None:
            self.gate.wait()
        time.sleep(self.delay)
        self.builds.append(module)
        path.write_text(module)

    def _open(self, module, path):
        return path.read_text()


def test_module_cache_builds_only_the_module_needed_once(tmp_path, capfd):
    """Cold start: a need compiles that module alone, once however many threads ask; the
    others are built when they are needed; a warm cache is silent."""
    cache = CountingCache(tmp_path)
    modules = runtime.base.kernel_sources()
    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.load("strided_copy.cu")))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == ["strided_copy.cu"] * 4
    assert cache.builds == ["strided_copy.cu"]                # once, and nothing else
    err = capfd.readouterr().err
    assert err.count("npu_emu: compiling") == 1
    assert f"compiling 1 kernel module for the test backend, once; cached in {tmp_path}" in err
    cache.delay = 0.0          # the rest, one at a time: no need to wait on each
    assert {cache.load(m) for m in modules} == set(modules)
    assert sorted(cache.builds) == sorted(modules)            # each once
    capfd.readouterr()
    fresh = CountingCache(tmp_path)                           # a warm cache is silent
    assert fresh.load("cast_float.cu") == "cast_float.cu" and fresh.builds == []
    assert capfd.readouterr().err == ""


def test_build_all_builds_the_missing_modules_in_parallel(tmp_path, capfd):
    delay = 0.1
    cache = CountingCache(tmp_path, delay=delay)
    modules = runtime.base.kernel_sources()
    cache.load("cast_float.cu")
    capfd.readouterr()
    t0 = time.monotonic()
    paths = cache.build_all()
    assert len(paths) == len(modules) and sorted(cache.builds) == sorted(modules)
    assert time.monotonic() - t0 < delay * (len(modules) - 1) - 0.1 or (os.cpu_count() or 1) < 2
    err = capfd.readouterr().err
    assert f"compiling {len(modules) - 1} kernel modules for the test backend" in err
    assert err.count("] ") == len(modules) - 1                # one progress line per module


def test_no_lock_of_the_streams_is_held_while_compiling(tmp_path, cpu_backend, monkeypatch):
    """A compile in one thread does not block the default stream, the pool or launches of
    modules already loaded in another."""
    be = cpu_backend
    be.default_stream                                    # noqa: B018  (created before)
    gate = threading.Event()
    slow = CountingCache(tmp_path, delay=0, gate=gate)
    # A loaded "module" with the setters every real one has, and no kernels.
    monkeypatch.setattr(slow, "_open", lambda module, path: types.SimpleNamespace(
        npu_emu_set_threads=lambda n: None, npu_emu_set_runner=lambda runner: None,
        npu_emu_pool_runner=lambda: None, npu_emu_pool_cpus=lambda cpus, n: None))
    monkeypatch.setattr(be, "_modules", slow)
    monkeypatch.setattr(be, "_kernels", {})
    monkeypatch.setattr(be, "_libs", {})       # nothing loaded yet: the compile must happen
    def compile_in_background():
        with pytest.raises(cpu_mod.CompileError, match="not exported"):   # the fake has no kernels
            be.function("cast_any.cu", "cast_any")
    worker = threading.Thread(target=compile_in_background, daemon=True)
    worker.start()
    time.sleep(0.05)
    t0 = time.monotonic()
    stream = be.create_stream()
    be.default_stream.synchronize()
    p = be.malloc(64)
    be.free(p)
    stream.destroy()
    assert time.monotonic() - t0 < 0.5 and worker.is_alive()
    gate.set()
    worker.join(5)


def test_cold_cpu_compile_says_so_once(tmp_path, monkeypatch, capfd):
    """The real cpu compiler on two tiny modules: the first need compiles that one, saying so
    on stderr with progress; a second cache over the same folder is silent for it."""
    src = runtime.kernels_dir()
    fake = tmp_path / "kernels"
    fake.mkdir()
    for f in src.iterdir():
        if f.suffix != ".cu":
            (fake / f.name).write_bytes(f.read_bytes())
    for name in ("one.cu", "two.cu"):
        (fake / name).write_text('#include "npu_emu_common.cuh"\n'
                                 'extern "C" __global__ void k(int* x) { x[0] = 1; }\nNPU_EMU_EXPORT(k)\n')
    import npu_emu.runtime.base as base
    monkeypatch.setattr(cpu_mod, "kernels_dir", lambda: fake)
    monkeypatch.setattr(base, "kernels_dir", lambda: fake)
    monkeypatch.setenv("NPU_EMU_CACHE_DIR", str(tmp_path / "cache"))
    cache = cpu_mod.CpuModuleCache()
    assert cache.load("two.cu").npu_emu_launch_k
    err = capfd.readouterr().err
    assert f"npu_emu: compiling 1 kernel module for the cpu backend, once; cached in {tmp_path / 'cache'}" in err
    assert "[1/1] two.cu (" in err and "one.cu" not in err
    again = cpu_mod.CpuModuleCache()
    again.load("two.cu")
    assert capfd.readouterr().err == ""


@pytest.mark.skipif(not cpu_mod._X86, reason="GATHER_TUNING is a flag of GCC for x86 targets")
def test_gathers_are_allowed_where_the_compiler_takes_the_tuning(tmp_path):
    """GCC 12 and later take GATHER_TUNING (its Zen tuning otherwise keeps table-reading loops
    scalar: 5x on float64 atan); a compiler that refuses it gets no such flag, and the flags
    of a module build say which."""
    cxx = cpu_mod._compiler()
    version = subprocess.run([cxx, "-dumpfullversion"], capture_output=True, text=True).stdout
    is_gcc12 = "clang" not in cpu_mod._compiler_version(cxx).lower() and \
        version.strip() and int(version.split(".")[0]) >= 12
    assert cpu_mod.gather_tuning(cxx) == (cpu_mod.GATHER_TUNING if is_gcc12 else ())
    refuses = tmp_path / "cxx"
    refuses.write_text("#!/bin/sh\necho 'error: unknown option' >&2\nexit 1\n")
    refuses.chmod(0o755)
    assert cpu_mod.gather_tuning(str(refuses)) == ()
    flags = cpu_mod.cxx_flags(cxx=cxx)
    assert set(cpu_mod.gather_tuning(cxx)) <= set(flags) and "-mno-fma" in flags
