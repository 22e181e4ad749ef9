"""How the bench times work: medians over repeats after warm-up, short calls batched into
one sample; host clocks, stream synchronization on the cpu backend, CUDA events on the GPU."""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable

from .common import acl_api, ok


# --------------------------------------------------------------------------- timing

@dataclass
class Timing:
    samples_s: list[float]
    inner: int                  # calls per sample (short calls are batched)

    @property
    def median_s(self) -> float:
        return statistics.median(self.samples_s)

    def as_json(self, nbytes: int, flops: int | None = None) -> dict:
        d = {"samples_s": self.samples_s, "inner": self.inner, "median_s": self.median_s,
             "gbps": nbytes / self.median_s / 1e9}
        if flops:
            d["gflops"] = flops / self.median_s / 1e9
        return d


@dataclass(frozen=True)
class TimingPolicy:
    repeat: int = 7
    warmup: int = 2
    min_sample_s: float = 2e-3      # batch calls shorter than this into one sample
    budget_s: float = 20.0          # per measurement: fewer repeats for very slow peers


def measure(sample: Callable[[int], float], policy: TimingPolicy) -> Timing:
    """Medians after warm-up. sample(k) runs the work k times and returns the seconds."""
    first = sample(1)                                  # also the first warm-up
    inner = 1 if first >= policy.min_sample_s else \
        min(1000, math.ceil(policy.min_sample_s / max(first, 1e-7)))
    for _ in range(policy.warmup - 1):
        sample(inner)
    per = max(first * inner, 1e-9)
    n = policy.repeat if per * (policy.repeat + policy.warmup) <= policy.budget_s else \
        max(1, min(policy.repeat, int(policy.budget_s // per)))
    return Timing([sample(inner) / inner for _ in range(n)], inner)


def host_sampler(fn: Callable[[], Any]) -> Callable[[int], float]:
    def sample(k: int) -> float:
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        return time.perf_counter() - t0
    return sample


def stream_sampler(fn: Callable[[], None], stream: object, backend: str) -> Callable[[int], float]:
    """Time k enqueues on our stream: CUDA events on the GPU, enqueue + synchronize on the
    cpu backend (what a user waits for)."""
    acl = acl_api()
    if backend == "cuda":
        # The acl stream wraps a CuPy stream; the events are recorded on it.
        cuda_stream = stream.stream   # type: ignore[attr-defined]
        return _event_sampler(fn, lambda: cuda_stream)
    return _synced_sampler(fn, lambda: ok(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream"))


def _synced_sampler(fn: Callable[[], Any], sync: Callable[[], None]) -> Callable[[int], float]:
    """Host time of k calls between two synchronizations (what a user waits for)."""
    def sample(k: int) -> float:
        sync()
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        sync()
        return time.perf_counter() - t0
    return sample


def _event_sampler(fn: Callable[[], Any], stream: Callable[[], Any]) -> Callable[[int], float]:
    """Device time of k calls between two CUDA events recorded on `stream()`."""
    import cupy

    def sample(k: int) -> float:
        s = stream()
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record(s)
        for _ in range(k):
            fn()
        stop.record(s)
        stop.synchronize()
        return cupy.cuda.get_elapsed_time(start, stop) / 1e3
    return sample


def device_sampler(fn: Callable[[], Any]) -> Callable[[int], float]:
    """Time k calls that enqueue on streams of their own, up to acl.rt.synchronize_device."""
    acl = acl_api()
    return _synced_sampler(fn, lambda: ok(acl.rt.synchronize_device(), "aclrtSynchronizeDevice"))


def cupy_sampler(fn: Callable[[], Any]) -> Callable[[int], float]:
    import cupy
    return _event_sampler(fn, cupy.cuda.get_current_stream)


def torch_cuda_sampler(fn: Callable[[], Any]) -> Callable[[int], float]:
    import torch

    def sample(k: int) -> float:
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(k):
            fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) / 1e3
    return sample
