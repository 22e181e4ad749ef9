"""How the bench times work: medians over repeats after warm-up, short calls batched into
one sample; host clocks, stream synchronization on the cpu backend, CUDA events on the GPU."""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

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
    return measure_turns([sample], policy)[0]


def measure_turns(samples: Sequence[Callable[[int], float]], policy: TimingPolicy) -> list[Timing]:
    """Several works measured in turns (a, b, a, b, ...), each with its own batching: on a
    shared machine a burst of load then falls on all of them alike, so their ratio holds
    where back-to-back medians can swing 2x. The budget is per round of all of them."""
    firsts = [s(1) for s in samples]                   # also the first warm-up
    inners = [1 if f >= policy.min_sample_s else
              min(1000, math.ceil(policy.min_sample_s / max(f, 1e-7))) for f in firsts]
    for _ in range(policy.warmup - 1):
        for s, k in zip(samples, inners):
            s(k)
    per = sum(max(f * k, 1e-9) for f, k in zip(firsts, inners))
    n = policy.repeat if per * (policy.repeat + policy.warmup) <= policy.budget_s else \
        max(1, min(policy.repeat, int(policy.budget_s // per)))
    times: list[list[float]] = [[] for _ in samples]
    for _ in range(n):
        for t, s, k in zip(times, samples, inners):
            t.append(s(k) / k)
    return [Timing(t, k) for t, k in zip(times, inners)]


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
