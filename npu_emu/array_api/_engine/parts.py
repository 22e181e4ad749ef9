"""NumPy calls of the library path run part by part on the cpu backend's threads.

NumPy runs each call on one thread. Its sorts, takes, compresses and copies release the GIL,
so a call whose result splits into independent parts along an axis runs the same call on
each part at once: the calling thread takes the first part, and a pool of Python threads
takes the others, one part per thread of the backend (`parallelism`, as its kernels use).
Each part is the same NumPy call on a slice, so the bits are those of one whole call. A
result below SPLIT_FROM bytes stays one call: handing a part to another thread costs tens of
microseconds.
"""
from __future__ import annotations

import concurrent.futures
import contextvars
import os
import threading
from typing import Callable

from ...runtime.base import Backend

SPLIT_FROM = 1 << 20   # bytes of result

_pool: concurrent.futures.ThreadPoolExecutor | None = None
_pool_workers = 0
_pool_lock = threading.Lock()


def _forget_pool() -> None:
    """After fork: the child has none of the parent's threads."""
    global _pool, _pool_workers
    _pool, _pool_workers = None, 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _workers(n: int) -> concurrent.futures.ThreadPoolExecutor:
    global _pool, _pool_workers
    with _pool_lock:
        if _pool is None or _pool_workers < n:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = concurrent.futures.ThreadPoolExecutor(n, thread_name_prefix="npu_emu-parts")
            _pool_workers = n
        return _pool


def count(be: Backend, nbytes: int, n: int, split_from: int | None = None) -> int:
    """How many parts a library call with a result of `nbytes` bytes, splittable into `n`
    pieces, runs as: 1 on cuda, below `split_from` bytes (default SPLIT_FROM), or with one
    thread."""
    if not be.is_cpu or nbytes < (SPLIT_FROM if split_from is None else split_from) or n < 2:
        return 1
    return max(1, min(be.parallelism, n))


def run(fn: Callable[[slice], None], n: int, k: int) -> None:
    """fn(part) for k consecutive slices covering range(n), at once (k = 1: fn(slice(0, n))
    here). The NumPy error state and other context variables of the caller hold in every
    part; the first exception of any part is raised after every part has finished."""
    if k <= 1:
        fn(slice(0, n))
        return
    bounds = [n * i // k for i in range(k + 1)]
    slices = [slice(bounds[i], bounds[i + 1]) for i in range(k)]
    pool = _workers(k - 1)
    futures = [pool.submit(contextvars.copy_context().run, fn, s) for s in slices[1:]]
    error: BaseException | None = None
    try:
        fn(slices[0])
    except BaseException as exc:   # noqa: BLE001 (re-raised once the other parts are done)
        error = exc
    for f in futures:
        try:
            f.result()
        except BaseException as exc:   # noqa: BLE001
            error = error or exc
    if error is not None:
        raise error


def placed(count: Callable[[slice], int], n: int, k: int) -> tuple[dict[int, tuple[int, int]], int]:
    """For a result that concatenates k parts of range(n) in order, each of a size known only
    once it is counted (a compress, a nonzero): count(part) for every part at once (run), and
    ({each part's start: (where it goes in the result, its count)}, the total)."""
    counts: dict[int, int] = {}
    run(lambda s: counts.__setitem__(s.start, count(s)), n, k)
    place, total = {}, 0
    for start in sorted(counts):
        place[start] = (total, counts[start])
        total += counts[start]
    return place, total
