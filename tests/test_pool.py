"""The stream-ordered pool (runtime/base.py Allocator), one contract on both backends: a free
never waits; a freed block is reused at once by work on the stream it was freed to, and by
another stream or the host only after the work queued when it was freed has passed;
empty_cache never releases a block that queued work may still use.

The rules are checked three ways: on the cpu backend with real streams and a gated (slow)
task in the queue, on the Allocator itself with streams whose fences the test controls, and
(tests/test_cuda_backend.py) on the cuda pool's fences with CuPy stand-ins."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from npu_emu.runtime.base import ALIGN, Allocator, Stream, size_class
from npu_emu.kernels.copy import View, plan_copy
from npu_emu.status import ACL_ERROR_BAD_ALLOC, ACL_ERROR_INVALID_PARAM, AclnnError

N = 1 << 16


def _copy(be, dst: int, src: int, stream, n: int = N) -> None:
    be.enqueue(plan_copy(be, View(dst, (n,), (1,), 1), View(src, (n,), (1,), 1)), stream)


def _download(be, ptr: int, n: int = N) -> np.ndarray:
    out = np.empty(n, np.uint8)
    be.copy_to_host(out, ptr)
    return out


@pytest.fixture
def gated(cpu_backend):
    """A fresh cpu stream held busy until gate.set() (a slow kernel at its head)."""
    stream = cpu_backend.create_stream()
    gate = threading.Event()
    stream.submit(gate.wait)
    # A pool that waited in free (the old contract) fails the timing checks instead of hanging.
    safety = threading.Timer(3.0, gate.set)
    safety.start()
    yield cpu_backend, stream, gate
    safety.cancel()
    gate.set()
    stream.destroy()


def test_free_does_not_wait_and_queued_work_reads_the_old_block(gated):
    be, stream, gate = gated
    a = np.arange(N, dtype=np.uint32).astype(np.uint8)
    src, dst = be.malloc(N), be.malloc(N)
    be.copy_from_host(src, a)
    _copy(be, dst, src, stream)                 # queued behind the gate: it reads src later
    t0 = time.monotonic()
    be.free(src)                                # stream None: fenced on every busy stream
    assert time.monotonic() - t0 < 0.5 and not gate.is_set() and not stream.idle
    fresh = be.malloc(N)                        # the host may write it at once ...
    assert fresh != src                         # ... so it must not be src
    be.copy_from_host(fresh, np.full(N, 0xEE, np.uint8))
    gate.set()
    stream.synchronize()
    np.testing.assert_array_equal(_download(be, dst), a)   # read before anyone reused src
    again = be.malloc(N)                        # the fence has passed: src comes back
    assert again == src
    for p in (dst, fresh, again):
        be.free(p)


def test_a_block_freed_to_a_stream_is_reused_on_it_at_once(gated):
    be, stream, gate = gated
    other = be.create_stream()
    try:
        p = be.malloc(N, stream)
        be.free(p, stream)                      # work queued on `stream` may still use it
        q = be.malloc(N, other)                 # another stream: not before the fence
        r = be.malloc(N)                        # the host: not either
        s = be.malloc(N, stream)                # its own stream: stream order protects it
        assert p not in (q, r) and s == p
        for x in (q, r):
            be.free(x)
        be.free(s, stream)
        gate.set()
        stream.synchronize()
        assert be.malloc(N, other) == p         # fence passed: anyone may have it
        be.free(p)
    finally:
        other.destroy()


def test_empty_cache_keeps_blocks_queued_work_may_use(gated):
    be, stream, gate = gated
    be.empty_cache()
    base = be.memory_stats()["bytes_cached"]
    p = be.malloc(N)
    be.memset(p, 0, N, stream)                  # queued behind the gate
    be.free(p)
    be.empty_cache()                            # the fence has not passed: p stays cached
    assert be.memory_stats()["bytes_cached"] == base + size_class(N)
    gate.set()
    stream.synchronize()
    be.empty_cache()
    assert be.memory_stats()["bytes_cached"] == 0


def test_pool_statistics_and_block_identity(cpu_backend):
    be = cpu_backend
    be.synchronize()
    before = be.memory_stats()
    assert set(before) == {"bytes_in_use", "bytes_cached", "peak_bytes_in_use", "allocations",
                           "total_allocations"}
    p = be.malloc(1000)
    serial, gen = be.allocator.block_id(p, 1000), be.allocator.generation
    s = be.memory_stats()
    assert s["bytes_in_use"] == before["bytes_in_use"] + 1024
    assert s["allocations"] == before["allocations"] + 1
    assert s["total_allocations"] == before["total_allocations"] + 1
    assert s["peak_bytes_in_use"] >= s["bytes_in_use"]
    be.free(p)
    assert be.allocator.generation == gen + 1
    assert be.allocator.block_id(p, 1) is None
    q = be.malloc(1000)
    assert q == p and be.allocator.block_id(q, 1000) not in (None, serial)   # a new serial
    be.free(q)


def test_destroyed_streams_take_no_allocations(cpu_backend):
    be = cpu_backend
    stream = be.create_stream()
    p = be.malloc(64, stream)
    stream.destroy()
    for call in (lambda: be.malloc(64, stream), lambda: be.free(p, stream)):
        with pytest.raises(AclnnError) as err:
            call()
        assert err.value.code == ACL_ERROR_INVALID_PARAM and "stream was destroyed" in err.value.message
    be.free(p)   # the block is still live and can be freed for the host


# ----------------------------------------------------------------- the Allocator's rules

class FencedStream(Stream):
    """A stream whose queued work the test completes by hand: busy until finish()."""

    def __init__(self) -> None:
        self.queued = 0
        self.completed = 0

    def work(self) -> None:
        self.queued += 1

    def finish(self) -> None:
        self.completed = self.queued

    def synchronize(self) -> None:
        self.finish()

    def wait_event(self, event) -> None: ...

    def destroy(self) -> None:
        self._destroyed = True

    def _fence(self):
        return None if self.completed == self.queued else self.queued

    def _fence_passed(self, token) -> bool:
        return self.completed >= token


class ArenaPool(Allocator):
    """Raw memory from a fixed budget of host bytes, so out-of-memory is reachable."""

    def __init__(self, streams, budget: int) -> None:
        super().__init__(streams)
        self.budget, self.used, self.released = budget, 0, []

    def _raw_alloc(self, nbytes: int):
        if self.used + nbytes > self.budget:
            raise MemoryError
        self.used += nbytes
        buf = np.empty(nbytes + ALIGN, np.uint8)
        return (buf.ctypes.data + ALIGN - 1) // ALIGN * ALIGN, buf

    def _raw_release(self, ptr: int, handle) -> None:
        self.used -= handle.nbytes - ALIGN
        self.released.append(ptr)


@pytest.fixture
def arena():
    streams = [FencedStream(), FencedStream(), FencedStream()]
    return ArenaPool(lambda: streams, budget=8 * 4096), streams


def test_a_host_free_fences_every_busy_stream(arena):
    pool, (s1, s2, idle) = arena
    s1.work()
    s2.work()
    p = pool.malloc(4096)
    pool.free(p)                          # stream None: fences on s1 and s2, not on idle
    assert pool.malloc(4096, s1) != p     # s2's fence is still pending
    s2.finish()
    assert pool.malloc(4096, idle) != p   # s1's is
    assert pool.malloc(4096, s1) == p     # only its own fence left: reuse in stream order


def test_free_to_an_idle_stream_needs_no_fence(arena):
    pool, (s1, _, _) = arena
    p = pool.malloc(4096, s1)
    pool.free(p, s1)
    assert pool.malloc(4096) == p


def test_out_of_memory_waits_for_fences_then_reports(arena):
    pool, (s1, _, _) = arena
    s1.work()
    blocks = [pool.malloc(4096) for _ in range(8)]    # the whole budget
    for p in blocks:
        pool.free(p)                                  # all fenced on s1
    q = pool.malloc(8192)                             # a new class: needs room
    assert s1.completed == s1.queued                  # the pool waited for s1 to make room
    assert sorted(pool.released) == sorted(blocks)   # ... then released what it cached
    rest = [pool.malloc(8192) for _ in range(2)]
    with pytest.raises(AclnnError) as err:
        pool.malloc(1 << 20)
    assert err.value.code == ACL_ERROR_BAD_ALLOC and "out of memory" in err.value.message
    for p in [q, *rest]:
        pool.free(p)


def test_foreign_and_double_frees_are_refused(arena):
    pool, _ = arena
    p = pool.malloc(100)
    pool.free(p)
    for bad in (p, p + 8, 12345):
        with pytest.raises(AclnnError) as err:
            pool.free(bad)
        assert err.value.code == ACL_ERROR_INVALID_PARAM and "was not allocated" in err.value.message
    assert pool.stats()["bytes_cached"] == size_class(100)


def test_a_host_far_ahead_of_the_device_waits_instead_of_growing(arena):
    """Past pending_limit bytes waiting for fences, a malloc lets the device catch up (its
    fences pass) and reuses, instead of taking fresh memory without bound."""
    pool, (s1, _, _) = arena
    pool.pending_limit = 2 * 4096
    s1.work()
    first = [pool.malloc(4096) for _ in range(2)]
    for p in first:
        pool.free(p)                      # 8 KiB pending: at the limit, not past it
    fresh = pool.malloc(4096)
    assert fresh not in first and s1.completed < s1.queued   # under the limit: no wait
    pool.free(fresh)                      # 12 KiB pending: past it
    again = pool.malloc(4096)
    assert s1.completed == s1.queued and again in first + [fresh]
    assert pool.used == 3 * 4096          # no fourth block was taken


def test_a_malloc_takes_the_lowest_free_block_whatever_the_order_of_the_frees(arena):
    pool, _ = arena
    blocks = sorted(pool.malloc(4096) for _ in range(4))
    for order in ([0, 1, 2, 3], [3, 1, 0, 2], [2, 3, 1, 0]):
        for i in order:
            pool.free(blocks[i])
        assert [pool.malloc(4096) for _ in range(4)] == blocks


def test_a_loop_that_allocates_alike_gets_the_same_addresses_each_round(arena):
    # Results kept across a step and freed out of order (as a client's temporaries are):
    # with the freed-last block first, the addresses rotated from round to round, and the
    # plans kept by address (ops._bindings) missed on every call.
    pool, _ = arena
    rounds = []
    for _ in range(5):
        a, b, c = pool.malloc(4096), pool.malloc(4096), pool.malloc(4096)
        pool.free(a)
        d = pool.malloc(4096)
        for p in (b, c, d):               # freed in the order they were taken
            pool.free(p)
        rounds.append((a, b, c, d))
    assert len(set(rounds[1:])) == 1      # the first round took fresh memory


def test_a_malloc_takes_the_lowest_free_block_among_many_freed_at_random():
    """Hundreds of blocks of one size class freed in a random order (the free's short scan
    from the lowest end and its binary search past that both used): every malloc still gets
    the lowest free block. Reference: the sorted addresses of the free blocks."""
    import random
    streams: list = []
    pool = ArenaPool(lambda: streams, budget=600 * 4096)
    rng = random.Random(7)
    live = [pool.malloc(4096) for _ in range(500)]
    free: set[int] = set()
    for _ in range(3000):
        if live and rng.random() < 0.55:
            p = live.pop(rng.randrange(len(live)))
            pool.free(p)
            free.add(p)
        elif free:
            want = min(free)
            assert pool.malloc(4096) == want
            free.discard(want)
            live.append(want)
    assert sorted(free) == sorted(b.ptr for b in pool._free[size_class(4096)])
