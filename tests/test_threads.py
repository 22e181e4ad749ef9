"""Thread safety (issue 9): many Python threads issuing operators through the public API, on
their own streams and on one shared stream, creating and freeing tensors and handles as they
go, get the results NumPy gives and leave the pool balanced; each thread keeps its own recent
error message; a backend's first kernel loads may race.

Every thread runs under a deadline (a deadlock fails the test instead of hanging it), and
failures inside threads are collected and reported with the thread that saw them.
"""
from __future__ import annotations

import gc
import threading
import traceback
from typing import Callable

import numpy as np
import pytest

import npu_emu
import npu_emu.acl as acl
from npu_emu import aclnn, device, runtime
from npu_emu.dtypes import aclDataType as DT
from npu_emu.formats import aclFormat as F

THREADS = 8
ROUNDS = 12
DEADLINE = 120.0      # seconds for all threads together


def run_threads(target: Callable[[int], None], n: int = THREADS) -> None:
    """Run target(i) on n threads started together; re-raise the first failure with its
    thread index, and fail if any thread does not finish by the deadline."""
    errors: list[str] = []
    barrier = threading.Barrier(n)

    def body(i: int) -> None:
        try:
            barrier.wait(timeout=DEADLINE)
            target(i)
        except BaseException:  # noqa: BLE001 -- reported below
            errors.append(f"thread {i}:\n{traceback.format_exc()}")

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=DEADLINE)
    stuck = [i for i, t in enumerate(threads) if t.is_alive()]
    assert not stuck, f"threads {stuck} still running after {DEADLINE:.0f} s (deadlock?)"
    assert not errors, "\n".join(errors[:3])


def pool_balance(backend) -> tuple[int, int]:
    gc.collect()
    backend.synchronize()
    stats = npu_emu.memory_stats()
    return stats["bytes_in_use"], stats["allocations"]


@pytest.fixture
def pool(backend):
    """The pool's (bytes_in_use, allocations) before the test must be back after it (checked
    only when the test itself passed: a failure's traceback keeps its tensors alive)."""
    assert acl.init() in (0, 100002)
    assert acl.rt.set_device(0) == 0
    before = pool_balance(backend)
    outcome = {"ok": False}
    yield outcome
    if outcome["ok"]:
        assert pool_balance(backend) == before, "the pool is not back to its balance before the test"


def two_phase(get: Callable, run: Callable, args: tuple, stream) -> None:
    """Both phases on `stream`, the workspace (if any) freed once the stream is done."""
    ws, ex, ret = get(*args)
    assert ret == 0, aclnn.aclGetRecentErrMsg()
    buf = device.DeviceBuffer(ws) if ws else None
    assert run(buf.ptr if buf else None, ws, ex, stream) == 0, aclnn.aclGetRecentErrMsg()
    if buf is not None:
        assert acl.rt.synchronize_stream(stream) == 0
        del buf


def operator_round(rng: np.random.Generator, stream) -> list[tuple]:
    """Enqueue one of each operator on `stream`; returns (device tensor, NumPy expectation)
    pairs to check once the stream is synchronized."""
    m, k, n = (int(v) for v in rng.integers(1, 24, 3))
    a = rng.integers(-8, 9, (m, k)).astype(np.float32)
    b = rng.integers(-8, 9, (1, k)).astype(np.float16)
    c = rng.integers(-4, 5, (k, n)).astype(np.float32)
    ta, tb, tc = device.from_numpy(a), device.from_numpy(b), device.from_numpy(c)
    alpha = aclnn.aclCreateScalar(2.0, DT.ACL_FLOAT)
    checks = []
    out_add = device.empty((m, k), DT.ACL_FLOAT)
    two_phase(aclnn.aclnnAddGetWorkspaceSize, aclnn.aclnnAdd, (ta, tb, alpha, out_add), stream)
    checks.append((out_add, a + 2 * b.astype(np.float32)))
    out_mul = device.empty((m, k), DT.ACL_FLOAT)
    two_phase(aclnn.aclnnMulGetWorkspaceSize, aclnn.aclnnMul, (ta, tb, out_mul), stream)
    checks.append((out_mul, a * b.astype(np.float32)))
    out_cast = device.empty((m, k), DT.ACL_INT32)
    two_phase(aclnn.aclnnCastGetWorkspaceSize, aclnn.aclnnCast, (ta, DT.ACL_INT32, out_cast), stream)
    checks.append((out_cast, a.astype(np.int32)))
    out_exp = device.empty((3, m, k), DT.ACL_FLOAT)
    size = aclnn.aclCreateIntArray([3, m, k])
    two_phase(aclnn.aclnnExpandGetWorkspaceSize, aclnn.aclnnExpand, (ta, size, out_exp), stream)
    checks.append((out_exp, np.broadcast_to(a, (3, m, k))))
    out_mm = device.empty((m, n), DT.ACL_FLOAT)
    two_phase(aclnn.aclnnMatmulGetWorkspaceSize, aclnn.aclnnMatmul, (ta, tc, out_mm, 0), stream)
    checks.append((out_mm, a.astype(np.float64) @ c.astype(np.float64)))
    # a strided destination: every other column of a wider buffer
    wide = device.from_numpy(np.full((m, 2 * k), -1, np.float32))
    view = device.view(wide, (m, k), (2 * k, 2), 1)
    two_phase(aclnn.aclnnInplaceCopyGetWorkspaceSize, aclnn.aclnnInplaceCopy, (view, tb), stream)
    want = np.full((m, 2 * k), -1, np.float32)
    want[:, 1::2] = b.astype(np.float32)
    checks.append((wide, want))
    for h, fn in ((alpha, aclnn.aclDestroyScalar), (size, aclnn.aclDestroyIntArray)):
        assert fn(h) == 0
    return checks


def check_round(checks: list[tuple], stream) -> None:
    assert acl.rt.synchronize_stream(stream) == 0
    for t, want in checks:
        np.testing.assert_array_equal(device.to_numpy(t), want)


def test_threads_on_their_own_streams(pool):
    done = threading.Barrier(THREADS)      # streams are destroyed once every thread is done

    def work(i: int) -> None:
        rng = np.random.default_rng(100 + i)
        stream, ret = acl.rt.create_stream()
        assert ret == 0
        try:
            for _ in range(ROUNDS):
                check_round(operator_round(rng, stream), stream)
        finally:
            done.wait(timeout=DEADLINE)
            assert acl.rt.destroy_stream(stream) == 0
    run_threads(work)
    pool["ok"] = True


def test_destroying_a_stream_while_other_threads_synchronize(pool):
    """Half the threads create, use and destroy streams in a loop; the other half wait for the
    whole device (acl.rt.synchronize_device, device.to_numpy): a stream destroyed under a
    device-wide wait is simply no longer waited for."""
    holder = [device.from_numpy(np.arange(64, dtype=np.float32))]

    def work(i: int) -> None:
        t = holder[0]
        for _ in range(150):
            if i % 2:
                stream, ret = acl.rt.create_stream()
                assert ret == 0
                host = np.arange(64, dtype=np.float32)
                assert acl.rt.memcpy_async(t.data, 256, host, 256, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream) == 0
                assert acl.rt.destroy_stream(stream) == 0
            else:
                assert acl.rt.synchronize_device() == 0, acl.get_recent_err_msg()
                np.testing.assert_array_equal(device.to_numpy(t), np.arange(64, dtype=np.float32))
    try:
        run_threads(work)
    finally:
        holder.clear()
    pool["ok"] = True


def test_threads_on_one_shared_stream(pool):
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    pending: list[list[tuple]] = [[] for _ in range(THREADS)]

    def work(i: int) -> None:
        rng = np.random.default_rng(200 + i)
        for r in range(ROUNDS):
            checks = operator_round(rng, stream)
            if r % 3 == 2:
                check_round(checks, stream)     # synchronizing while others enqueue
            else:
                pending[i].append(checks)
    try:
        run_threads(work)
        for per_thread in pending:
            for checks in per_thread:
                check_round(checks, stream)
    finally:
        pending.clear()
        assert acl.rt.destroy_stream(stream) == 0
    pool["ok"] = True


def test_order_on_a_shared_stream_is_each_threads_program_order(pool):
    """A chain of in-place updates from one thread on a stream other threads also use ends
    with the value of the whole chain."""
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    one = aclnn.aclCreateScalar(1.0, DT.ACL_FLOAT)

    def work(i: int) -> None:
        x = device.from_numpy(np.zeros((4, 33), np.float32))
        inc = device.from_numpy(np.full((1, 33), float(i + 1), np.float32))
        for _ in range(25):
            two_phase(aclnn.aclnnInplaceAddGetWorkspaceSize, aclnn.aclnnInplaceAdd, (x, inc, one), stream)
        assert acl.rt.synchronize_stream(stream) == 0
        np.testing.assert_array_equal(device.to_numpy(x), np.full((4, 33), 25.0 * (i + 1), np.float32))
    try:
        run_threads(work)
    finally:
        assert aclnn.aclDestroyScalar(one) == 0
        assert acl.rt.destroy_stream(stream) == 0
    pool["ok"] = True


def test_memory_and_handles_created_and_freed_concurrently(pool):
    """malloc/free, memcpy, tensor/scalar/array handles, created and destroyed by many
    threads at once: every call succeeds, every thread reads back its own data and its own
    descriptors, and the pool is balanced afterwards (the fixture)."""
    def work(i: int) -> None:
        rng = np.random.default_rng(300 + i)
        for r in range(40):
            n = int(rng.integers(1, 5000))
            host = rng.integers(0, 256, n, dtype=np.uint8)
            ptr, ret = acl.rt.malloc(n, acl.ACL_MEM_MALLOC_HUGE_FIRST)
            assert ret == 0
            assert acl.rt.memcpy(ptr, n, host, n, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
            shape = [1, n]
            t = aclnn.aclCreateTensor(shape, DT.ACL_UINT8, None, 0, F.ACL_FORMAT_ND, shape, ptr)
            assert t is not None, aclnn.aclGetRecentErrMsg()
            s = aclnn.aclCreateScalar(i * 1000 + r, DT.ACL_INT32)
            arr = aclnn.aclCreateIntArray([i, r, n])
            assert aclnn.aclGetViewShape(t) == (shape, 0)
            assert list(arr) == [i, r, n]
            back = np.zeros(n, np.uint8)
            assert acl.rt.memcpy(back, n, ptr, n, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
            np.testing.assert_array_equal(back, host)
            kept = device.from_numpy(host.reshape(1, n))      # freed by refcount, any thread
            assert aclnn.aclDestroyTensor(t) == 0
            assert aclnn.aclDestroyScalar(s) == 0
            assert aclnn.aclDestroyIntArray(arr) == 0
            assert acl.rt.free(ptr) == 0
            np.testing.assert_array_equal(device.to_numpy(kept).reshape(-1), host)
            del kept
    run_threads(work)
    pool["ok"] = True


def test_recent_error_message_is_per_thread(pool):
    """Each thread fails its own call and reads back its own message, not another's."""
    def work(i: int) -> None:
        t = device.empty((i + 2, 3), DT.ACL_FLOAT)
        for _ in range(20):
            bad = device.empty((i + 5, 7), DT.ACL_FLOAT)        # shapes that cannot broadcast
            ws, ex, ret = aclnn.aclnnMulGetWorkspaceSize(t, bad, t)
            assert ret == 161002
            msg = aclnn.aclGetRecentErrMsg()
            assert f"[{i + 5},7]" in msg and f"[{i + 2},3]" in msg, msg
            assert aclnn.aclGetRecentErrMsg() == ""              # obtained and cleared
    run_threads(work)
    pool["ok"] = True


def test_first_kernel_loads_race(cpu_backend, monkeypatch):
    """A fresh cpu backend whose kernels every thread needs at once: each module is built
    or loaded while others wait for it, and every result is right."""
    from npu_emu.runtime.cpu import CpuBackend
    fresh = CpuBackend()
    monkeypatch.setattr(runtime, "_current", fresh)
    assert acl.init() in (0, 100002)
    assert acl.rt.set_device(0) == 0

    done = threading.Barrier(THREADS)

    def work(i: int) -> None:
        rng = np.random.default_rng(400 + i)
        stream, ret = acl.rt.create_stream()
        assert ret == 0
        try:
            check_round(operator_round(rng, stream), stream)
        finally:
            done.wait(timeout=DEADLINE)
            assert acl.rt.destroy_stream(stream) == 0
    run_threads(work)
    gc.collect()
    fresh.synchronize()
    assert npu_emu.memory_stats()["allocations"] == 0
