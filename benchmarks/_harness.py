"""Shared timing for the benchmarks: medians of repeated runs, GB/s, a short table, JSON.

Device work is timed around enqueue + stream synchronize (cpu backend) or with CUDA events on
the stream (cuda backend), so every number includes what a user waits for.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from typing import Callable

# Pinned OpenMP threads: unpinned runs swung 2-3x on 2-core machines (DESIGN.md). Must be
# set before the first kernel library (and libgomp) loads.
os.environ.setdefault("OMP_PROC_BIND", "close")
os.environ.setdefault("OMP_PLACES", "cores")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def median_seconds(fn: Callable[[], None], repeat: int = 7, warmup: int = 2) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def median_device_seconds(be, stream, enqueue: Callable[[], None], repeat: int = 7,
                          warmup: int = 2, inner: int = 1) -> float:
    """Median time of `inner` enqueues, divided by inner; synchronized each repetition."""
    if be.name == "cuda":
        import cupy
        for _ in range(warmup):
            enqueue()
        stream.synchronize()
        times = []
        for _ in range(repeat):
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record(stream.stream)
            for _ in range(inner):
                enqueue()
            stop.record(stream.stream)
            stop.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3 / inner)
        return statistics.median(times)

    def once() -> None:
        for _ in range(inner):
            enqueue()
        stream.synchronize()
    return median_seconds(once, repeat, warmup) / inner


def median_cupy_seconds(fn: Callable[[], None], repeat: int = 7, warmup: int = 2, inner: int = 1) -> float:
    import cupy
    for _ in range(warmup):
        fn()
    cupy.cuda.get_current_stream().synchronize()
    times = []
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        for _ in range(inner):
            fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3 / inner)
    return statistics.median(times)


def gbps(nbytes: int, seconds: float) -> float:
    return nbytes / seconds / 1e9 if seconds > 0 else float("inf")


def environment(be) -> dict:
    info = {"python": platform.python_version(), "machine": platform.machine(),
            "OMP_PROC_BIND": os.environ.get("OMP_PROC_BIND"),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")}
    info.update(be.info())
    return info


def print_table(title: str, rows: list[dict], columns: list[tuple[str, str, str]]) -> None:
    """columns: (key, header, format spec)."""
    print(f"\n{title}")
    widths = [max(len(h), 10) for _, h, _ in columns]
    print("  ".join(h.rjust(w) if i else h.ljust(w + 14) for i, ((_, h, _), w) in enumerate(zip(columns, widths))))
    for row in rows:
        cells = []
        for i, ((key, _, fmt), w) in enumerate(zip(columns, widths)):
            v = row.get(key)
            text = "-" if v is None else format(v, fmt)
            cells.append(text.rjust(w) if i else text.ljust(w + 14))
        print("  ".join(cells))


def write_json(path: str | None, payload: dict) -> None:
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            json.dump(payload, f, indent=2, default=str)
