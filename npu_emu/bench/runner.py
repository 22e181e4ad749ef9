"""One bench run: sets up the device and stream, runs every case (sizes ascending),
checks each result against its reference, times ours, the device copy and the peers, and
collects the JSON."""
from __future__ import annotations

import contextlib
import dataclasses
import math
import statistics
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

from .cases import OPS, Built, CaseSpec, Op, same_bits
from .common import (INT32_LIMIT, SCHEMA, BenchError, Device, DoesNotFit, GiB, Planned,
                     Refused, acl_api, aclnn_api, dtype_info, format_bytes, ok,
                     optional_import, short)
from .peers import find_peers
from .provenance import fits, load_average, memory_budget, provenance
from .report import evaluate_goals, scaling
from .timing import (Timing, TimingPolicy, device_sampler, host_sampler, measure, measure_turns,
                     stream_sampler)


# The host-time goals of the tiny calls (host_overhead), in microseconds of the process's
# CPU time per call with the plan cache warm: an aclnn two-phase pair plus synchronize, and
# an eager array-API operation plus synchronize.
TINY_GOALS_US = {"aclnn": 10.0, "array_api": 8.0}
# The client benchmark's goal (clients): at most this many times plain NumPy's CPU time.
CLIENT_GOAL = 2.0


# ------------------------------------------------------------------------- checking

def sample_positions(numel: int, chunk: int = 256, chunks: int = 16, seed: int = 0) -> np.ndarray:
    """Flat positions to check: runs of `chunk` at the start, the end, across 2^31 and 2^32
    (the 64-bit index path), and at random places."""
    chunk = min(chunk, numel)
    starts = {0, numel - chunk}
    for edge in (INT32_LIMIT, 2 * INT32_LIMIT):
        if numel > edge:
            starts.add(edge - chunk // 2)
    rng = np.random.default_rng(seed)
    starts.update(int(x) for x in rng.integers(0, numel - chunk + 1, chunks))
    return np.unique(np.concatenate([np.arange(s, s + chunk, dtype=np.int64) for s in starts]))


def check_result(built: Built, stream: object) -> dict:
    """Compare the result at sampled positions with the host reference."""
    acl = acl_api()
    ok(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream")
    ok(acl.rt.synchronize_device(), "aclrtSynchronizeDevice")   # and what ran elsewhere
    idx = sample_positions(built.out_elements)
    storage = dtype_info(built.out_dtype).storage
    # Read runs of consecutive positions with one copy each.
    breaks = np.flatnonzero(np.diff(idx) != 1) + 1
    got = np.concatenate([built.out.read(storage, int(run[0]), len(run))
                          for run in np.split(idx, breaks)])
    want = built.expected(idx)
    bad = built.compare(got, want, idx) if built.compare else same_bits(got, np.asarray(want, storage))
    result = {"positions": int(len(idx)), "mismatches": int(np.count_nonzero(bad)),
              "ok": not bool(np.any(bad))}
    if not result["ok"]:
        first = int(np.flatnonzero(bad)[0])
        result["first_mismatch"] = {"position": int(idx[first]), "got": repr(got[first]),
                                    "expected": repr(np.asarray(want)[first])}
    return result


# --------------------------------------------------------------------------- output

class Output:
    """Progress bar and messages (rich when importable, plain lines otherwise)."""

    def __init__(self, total: int, quiet: bool = False) -> None:
        self.total, self.done, self.quiet = total, 0, quiet
        self._progress = None
        self._stack = contextlib.ExitStack()
        rich = optional_import("rich.progress")
        if rich is not None and not quiet:
            from rich.console import Console
            self._progress = rich.Progress(
                rich.SpinnerColumn(), rich.TextColumn("{task.description:<44}"), rich.BarColumn(),
                rich.MofNCompleteColumn(), rich.TimeElapsedColumn(),
                console=Console(stderr=True), transient=False)
            self._stack.enter_context(self._progress)
            self._task = self._progress.add_task("bench", total=total)

    def set_total(self, total: int) -> None:
        self.total = total
        if self._progress is not None:
            self._progress.update(self._task, total=total)

    def start(self, label: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=label)
        elif not self.quiet:
            print(f"[{self.done + 1}/{self.total}] {label}", file=sys.stderr, flush=True)

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self._progress is not None:
            self._progress.advance(self._task, n)

    def message(self, text: str) -> None:
        if self._progress is not None:
            self._progress.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        self._stack.close()


# ---------------------------------------------------------------------------- runner

@dataclass
class Settings:
    ops: list[str]
    dtypes: dict[str, list[Any]]          # op -> aclDataTypes
    sizes: dict[str, list[int]]           # op -> element counts
    policy: TimingPolicy
    stress: bool = False
    quick: bool = False
    max_bytes: int | None = None          # --max-gib: device bytes one case may use
    command: str = "npu-emu bench"        # as typed, for the provenance
    note: str | None = None               # --note: what the numbers cannot say themselves
    threads: list[int] | None = None      # --threads: each case at each kernel thread count


class Bench:
    """One run: the stream, the peers, the settings; runs cases and collects JSON."""

    def __init__(self, settings: Settings, out: Output) -> None:
        import npu_emu
        from npu_emu import runtime
        from npu_emu import status
        acl = acl_api()
        ret = acl.init()
        if ret != getattr(status, "ACL_ERROR_REPEAT_INITIALIZE", None):   # already initialized
            ok(ret, "aclInit")
        ok(acl.rt.set_device(0), "aclrtSetDevice")
        self.stream, ret = acl.rt.create_stream()
        ok(ret, "aclrtCreateStream")
        self.backend = runtime.current().name
        self.settings, self.out = settings, out
        self.peers, self.peer_notes = find_peers(self.backend)
        self.budget = memory_budget(self.backend)
        self.load_at_start = load_average()
        self.cases: list[dict] = []
        self.skipped: list[dict] = []
        self.errors = 0
        self._socs: dict[tuple, str] = {}
        self._scope: list = []
        self._npu_emu = npu_emu

    # -- what builders allocate belongs to the case being built, closed with it
    def device(self, nbytes: int) -> Device:
        mem = Device(nbytes)
        self._scope.append(mem)
        return mem

    def planned(self, what: str, get_workspace: Callable[[], tuple], execute: Callable) -> Planned:
        op = Planned(what, get_workspace, execute, self.stream)
        self._scope.append(op)
        return op

    @contextlib.contextmanager
    def built(self, op: Op, spec: CaseSpec, soc: str) -> Iterator[Built]:
        """op.build(spec) on `soc`; everything it allocated is released on exit."""
        self._scope = scope = []
        try:
            with self._npu_emu.soc(soc):
                built = op.build(self, spec)
            yield built
        finally:
            for r in reversed(scope):
                r.close()
            self._scope = []
            self._npu_emu.empty_cache()

    def soc_for(self, op: Op, variant: str, dt) -> str:
        """The current SoC, or the first that accepts the case (HiFloat8 casts exist on
        Ascend950 only): probed once on a small size."""
        key = (op.name, variant, int(dt))
        if key not in self._socs:
            current = self._npu_emu.current_soc().name
            first_error: Refused | None = None
            for name in [current] + [n for n in self._npu_emu.SOCS if n != current]:
                try:
                    with self.built(op, op.spec(variant, dt, 4096), name):
                        pass
                except Refused as exc:
                    first_error = first_error or exc
                    continue
                self._socs[key] = name
                break
            else:
                assert first_error is not None
                raise first_error
        return self._socs[key]

    def run_case(self, op: Op, spec: CaseSpec) -> dict:
        npu_emu = self._npu_emu
        soc = self.soc_for(op, spec.variant, spec.dtype)
        largest = max(math.prod(v) for v in spec.shapes.values())
        case: dict[str, Any] = {
            "op": spec.op, "variant": spec.variant, "dtype": short(spec.dtype), "numel": spec.numel,
            "shapes": {k: list(v) for k, v in spec.shapes.items()}, "bytes": spec.traffic,
            "out_bytes": spec.out_bytes, "flops": spec.flops, "soc": soc,
            "index_path": "64-bit" if largest >= INT32_LIMIT else "32-bit"}
        with self.built(op, spec, soc) as built:
            built.out.fill(0xA5)                     # a result never written cannot pass
            built.run()
            case["check"] = check_result(built, self.stream)
            sampler = stream_sampler(built.run, self.stream, self.backend) if built.on_bench_stream \
                else device_sampler(built.run)
            ours = measure(sampler, self.settings.policy)
            stats = npu_emu.memory_stats()
            case["memory"] = {"pool_bytes_in_use": stats["bytes_in_use"],
                              "pool_peak_bytes": stats["peak_bytes_in_use"]}
            case["ours"] = ours.as_json(spec.traffic, spec.flops)
            case["peers"], case["ratios"] = self.run_peers(spec, built, sampler)
        case["ceiling"] = self.ceiling(spec.traffic).as_json(2 * (spec.traffic // 2))
        case["of_ceiling"] = case["ours"]["gbps"] / case["ceiling"]["gbps"]
        return case

    def ceiling(self, traffic: int) -> Timing:
        """A plain device-to-device copy of the same traffic (half read, half written)."""
        acl = acl_api()
        half = max(1, traffic // 2)
        src, dst = Device(half), Device(half)
        try:
            src.fill(1)
            return measure(stream_sampler(
                lambda: ok(acl.rt.memcpy_async(dst.ptr, half, src.ptr, half,
                                               acl.ACL_MEMCPY_DEVICE_TO_DEVICE, self.stream),
                           "aclrtMemcpyAsync"), self.stream, self.backend), self.settings.policy)
        finally:
            src.free()
            dst.free()
            self._npu_emu.empty_cache()

    def run_peers(self, spec: CaseSpec, built: Built, ours: Callable[[int], float]) -> tuple[dict, dict]:
        """Each peer measured in turns with ours (measure_turns); its ratio is of the two
        medians of those turns (ours_median_s in its record)."""
        records, ratios = {}, {}
        for peer in self.peers:
            record: dict[str, Any] = {"device": peer.device, "note": built.peer_notes.get(peer.name, "")}
            fn = None
            try:
                fn = peer.work(built)
                mine, t = measure_turns([ours, peer.sampler(fn)], self.settings.policy)
                record.update(t.as_json(spec.traffic, spec.flops))
                record["ours_median_s"] = mine.median_s
                ratios[peer.name] = t.median_s / mine.median_s
            except (BenchError, MemoryError) as exc:
                record["error"] = str(exc) or type(exc).__name__
            except Exception as exc:   # a peer that cannot do this case is not our failure
                record["error"] = f"{type(exc).__name__}: {exc}"
            finally:
                del fn
                peer.release()
            records[peer.name] = record
        return records, ratios

    def fits(self, spec: CaseSpec) -> str | None:
        if self.settings.max_bytes is not None and spec.device_bytes > self.settings.max_bytes:
            return (f"needs {format_bytes(spec.device_bytes)} of device memory, more than "
                    f"--max-gib {self.settings.max_bytes / GiB:g}")
        return fits(spec, self.backend, self.budget)

    def run(self) -> None:
        """Every (op, dtype, variant), sizes ascending; an op stops at the first size that
        does not fit, and at a refusal (the larger sizes would be refused the same way)."""
        plans = [(OPS[name], dt, variant, self.settings.sizes[name])
                 for name in self.settings.ops for dt in self.settings.dtypes[name]
                 for variant in OPS[name].variants]
        self.out.set_total(sum(len(p[3]) for p in plans))
        for op, dt, variant, sizes in plans:
            for i, n in enumerate(sizes):
                spec = op.spec(variant, dt, n)
                self.out.start(spec.label)
                reason, kind = self.fits(spec), "does not fit"
                if reason is None:
                    try:
                        for case in self.run_threaded(op, spec):
                            self.cases.append(case)
                            if not case["check"]["ok"]:
                                self.out.message(f"{spec.label}: WRONG RESULT, "
                                                 f"{case['check']['first_mismatch']}")
                    except DoesNotFit as exc:
                        reason = str(exc)
                    except MemoryError:       # the host side (inputs, references)
                        reason = f"host memory ran out (the case needs about {format_bytes(spec.host_bytes)})"
                    except Refused as exc:
                        reason, kind = str(exc), "refused"
                    except Exception as exc:    # a bug: reported, the run goes on
                        reason, kind = f"{type(exc).__name__}: {exc}", "error"
                        self.errors += 1
                if reason is None:
                    self.out.advance()
                    continue
                rest = len(sizes) - i - 1
                self.out.message(f"{spec.label}: {kind}: {reason}"
                                 + (f"; not trying the {rest} larger size(s)" if rest else ""))
                self.skipped.append({"op": spec.op, "variant": spec.variant, "dtype": short(dt),
                                     "numel": spec.numel, "kind": kind, "reason": reason,
                                     "larger_sizes_skipped": rest})
                self.out.advance(rest + 1)
                break

    def run_threaded(self, op: Op, spec: CaseSpec) -> list[dict]:
        """The case once, or (--threads) once per thread count, back to back: our kernels
        on n threads and PyTorch on n intra-op threads (NumPy's loops have one). The
        case at the most threads also carries `paired`: the fewest and the most threads
        timed in turns on one build (paired_scaling)."""
        counts = self.settings.threads
        if not counts:
            return [self.run_case(op, spec)]
        from npu_emu import runtime
        be = runtime.current()
        torch = next((p.xp for p in self.peers if p.name == "torch"), None)
        torch_before = torch.get_num_threads() if torch is not None else None
        before = be.threads
        cases = []
        try:
            for n in counts:
                be.set_threads(n)
                if torch is not None:
                    torch.set_num_threads(n)
                case = self.run_case(op, spec)
                case["threads"] = n
                cases.append(case)
            if len(set(counts)) > 1:
                hi = max(counts)
                cases[counts.index(hi)]["paired"] = self.paired_scaling(op, spec, min(counts), hi)
        finally:
            be.set_threads(before)
            if torch is not None:
                torch.set_num_threads(torch_before)
        return cases

    def paired_scaling(self, op: Op, spec: CaseSpec, lo: int, hi: int) -> dict:
        """Our kernels on `lo` and on `hi` threads in turns (lo, hi, lo, ...), on one build:
        the same memory at both counts. Each case above has its own buffers, and on some
        hosts where a buffer lands moves a strided kernel's speed by 2-3x (a 2-byte
        transpose: 2.5-7.5 GB/s on one thread, from one allocation to the next), which a
        ratio of two builds would take for scaling."""
        from npu_emu import runtime
        be = runtime.current()
        with self.built(op, spec, self.soc_for(op, spec.variant, spec.dtype)) as built:
            built.run()
            base = stream_sampler(built.run, self.stream, self.backend) if built.on_bench_stream \
                else device_sampler(built.run)

            def at(n: int) -> Callable[[int], float]:
                def sample(k: int) -> float:
                    be.set_threads(n)
                    return base(k)
                return sample

            t_lo, t_hi = measure_turns([at(lo), at(hi)], self.settings.policy)
        return {"threads": [lo, hi], "gbps": [spec.traffic / t_lo.median_s / 1e9,
                                              spec.traffic / t_hi.median_s / 1e9],
                "ratio": t_lo.median_s / t_hi.median_s}

    def host_overhead(self) -> dict:
        """The host cost of tiny calls, with the plan cache warm (a repeated call: the common
        case) and cold (every call planned anew): phase one + phase two of a (1, 4) -> (4, 4)
        aclnnExpand without a synchronize (the launch is asynchronous), the same pair plus
        aclrtSynchronizeStream, and xp.add of two 4-element float32 arrays plus
        acl.rt.synchronize_device, against their goals (TINY_GOALS_US); also the pair plus
        synchronize called from C through the C ABI against the Python facade's
        (npu_emu.capi.bench). Each figure is the median of rounds of 200 calls, as wall time
        and as the process's CPU time (on a shared machine the wall time also counts the
        time the process waited for a core; the CPU time is the host work itself)."""
        import npu_emu.array_api as xp
        from npu_emu import device
        from npu_emu.ops._core import clear_plan_cache
        aclnn, acl = aclnn_api(), acl_api()
        x = device.from_numpy(np.ones((1, 4), np.float32))
        out = device.empty([4, 4], "f32")
        size = aclnn.aclCreateIntArray([4, 4])
        a = xp.asarray([1.0, 2.0, 3.0, 4.0], dtype=xp.float32)
        b = xp.asarray([0.5, 0.25, 2.0, 8.0], dtype=xp.float32)
        stream = self.stream

        def pair() -> None:
            ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(x, size, out)
            ok(ret, "aclnnExpandGetWorkspaceSize")
            ok(aclnn.aclnnExpand(None, ws, ex, stream), "aclnnExpand")

        def pair_sync() -> None:
            pair()
            ok(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream")

        def add_sync() -> None:
            xp.add(a, b)
            ok(acl.rt.synchronize_device(), "aclrtSynchronizeDevice")

        def cold(fn: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                clear_plan_cache()
                fn()
            return run

        reps = 15 if not self.settings.quick else 3

        def rounds(fn: Callable[[], None]) -> dict:
            wall, cpu = [], []
            for i in range(reps + 1):
                t0, c0 = time.perf_counter(), time.process_time()
                for _ in range(200):
                    fn()
                t1, c1 = time.perf_counter(), time.process_time()
                ok(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream")
                if i:                              # the first round is warm-up
                    wall.append((t1 - t0) / 200 * 1e6)
                    cpu.append((c1 - c0) / 200 * 1e6)
            return {"wall_samples_us": wall, "cpu_samples_us": cpu,
                    "wall_us": statistics.median(wall), "cpu_us": statistics.median(cpu)}

        pair_warm, pair_cold = rounds(pair), rounds(cold(pair))
        result: dict[str, Any] = {
            "what": "aclnnExpandGetWorkspaceSize + aclnnExpand, (1,4) -> (4,4) f32",
            "samples_us": pair_warm["wall_samples_us"], "median_us": pair_warm["wall_us"],
            "cpu_median_us": pair_warm["cpu_us"],
            "cold_samples_us": pair_cold["wall_samples_us"], "cold_median_us": pair_cold["wall_us"],
            "cold_cpu_median_us": pair_cold["cpu_us"]}
        result["tiny"] = []
        for key, what, fn in (
                ("aclnn", "aclnnExpandGetWorkspaceSize + aclnnExpand + aclrtSynchronizeStream, "
                          "(1,4) -> (4,4) f32", pair_sync),
                ("array_api", "xp.add of two 4-element float32 arrays + "
                              "acl.rt.synchronize_device", add_sync)):
            warm = rounds(fn)
            entry = {"key": key, "what": what, "goal_us": TINY_GOALS_US[key], "warm": warm,
                     "cold": rounds(cold(fn)), "met": warm["cpu_us"] <= TINY_GOALS_US[key]}
            result["tiny"].append(entry)
        try:
            from npu_emu.capi import bench as capi_bench
            result["c_abi"] = capi_bench.measure(n=200, reps=3 if self.settings.quick else 7)
        except Exception as exc:          # no C++ compiler, no libpython: said, not fatal
            result["c_abi"] = {"skipped": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"}
        torch = next((p.xp for p in self.peers if p.name == "torch" and p.device == "cpu"), None)
        if torch is not None:
            t = torch.ones(1, 4)
            s = measure(host_sampler(lambda: t.expand(4, 4).contiguous()),
                        TimingPolicy(repeat=15, warmup=2, min_sample_s=2e-3))
            result["torch_expand_contiguous_us"] = s.median_s * 1e6
        return result

    def clients(self) -> dict:
        """A small client benchmark: scikit-learn's StandardScaler().fit_transform and
        LogisticRegression().fit on 300 x 8 float64 (seeded; two classes), with
        array_api_dispatch on npu_emu.array_api, against plain NumPy (no dispatch), NumPy
        through the same dispatch, and the other array libraries through it when they are
        installed (PyTorch's CPU tensors, one thread; array_api_strict), in turns, medians of
        the wall and of the process's CPU time; the goal: within CLIENT_GOAL x plain NumPy's
        CPU time. Skipped with the reason when scikit-learn is not installed or cannot
        dispatch (SciPy imported before SCIPY_ARRAY_API=1 was set)."""
        import os
        os.environ.setdefault("SCIPY_ARRAY_API", "1")     # before SciPy's first import
        try:
            import sklearn
            from sklearn.linear_model import LogisticRegression
            from sklearn.preprocessing import StandardScaler
        except ImportError as exc:
            return {"skipped": f"scikit-learn is not installed ({exc})"}
        import npu_emu.array_api as xp
        rng = np.random.default_rng(17)
        X = rng.standard_normal((300, 8))
        y = (X @ rng.standard_normal(8) + 0.3 * rng.standard_normal(300) > 0).astype(np.float64)
        X_ours, y_ours = xp.asarray(X), xp.asarray(y)
        work = {"StandardScaler().fit_transform":
                    lambda X_, y_: StandardScaler().fit_transform(X_),
                "LogisticRegression().fit": lambda X_, y_: LogisticRegression().fit(X_, y_)}
        reps = 3 if self.settings.quick else 7
        out: dict[str, Any] = {"data": "300 x 8 float64, two classes", "goal": CLIENT_GOAL,
                               "sklearn": sklearn.__version__, "cases": []}
        sides = [("numpy", X, y, False), ("numpy_dispatch", X, y, True),
                 ("npu_emu", X_ours, y_ours, True)]
        # The other array libraries a user could pass instead: how far a library that is
        # not NumPy gets through the same dispatch (a peer's Python-level cost per call).
        torch = optional_import("torch")
        if torch is not None:
            sides.append(("torch", torch.asarray(X), torch.asarray(y), True))
        strict = optional_import("array_api_strict")
        if strict is not None:
            sides.append(("array_api_strict", strict.asarray(X), strict.asarray(y), True))
        out["peers"] = {"torch": None if torch is None else torch.__version__,
                        "array_api_strict": None if strict is None else strict.__version__}
        # One BLAS thread on every side (scikit-learn's threadpoolctl), and one PyTorch
        # thread: an idle BLAS thread spins, and on a shared machine its CPU time would count
        # against whichever side called BLAS last; the kernels of a 300 x 8 array run on one
        # thread too.
        limits = optional_import("threadpoolctl")
        torch_before = None if torch is None else torch.get_num_threads()
        try:
            if torch is not None:
                torch.set_num_threads(1)
            with (limits.threadpool_limits(1) if limits is not None else contextlib.nullcontext()):
                return self._clients(sklearn, work, reps, out, sides)
        finally:
            if torch is not None:
                torch.set_num_threads(torch_before)

    def _clients(self, sklearn: Any, work: dict, reps: int, out: dict,
                 sides: list[tuple[str, Any, Any, bool]]) -> dict:
        for name, fn in work.items():
            wall: dict[str, list[float]] = {k: [] for k, *_ in sides}
            cpu: dict[str, list[float]] = {k: [] for k, *_ in sides}
            try:
                for i in range(reps + 1):
                    for key, X_, y_, dispatch in sides:     # in turns: load falls on all alike
                        # (array_api_strict lets NumPy's RuntimeWarnings of its divisions
                        # through: not ours to show.)
                        with sklearn.config_context(array_api_dispatch=dispatch), \
                                warnings.catch_warnings():
                            warnings.simplefilter("ignore", RuntimeWarning)
                            t0, c0 = time.perf_counter(), time.process_time()
                            fn(X_, y_)
                            t1, c1 = time.perf_counter(), time.process_time()
                        if i:                               # the first round is warm-up
                            wall[key].append((t1 - t0) * 1e3)
                            cpu[key].append((c1 - c0) * 1e3)
            except RuntimeError as exc:     # sklearn: SciPy's array API support is off
                return {"skipped": f"scikit-learn cannot dispatch: {str(exc).splitlines()[0]}"}
            case = {"what": name, "wall_ms": {k: statistics.median(v) for k, v in wall.items()},
                    "cpu_ms": {k: statistics.median(v) for k, v in cpu.items()}}
            case["ratio"] = case["cpu_ms"]["npu_emu"] / case["cpu_ms"]["numpy"]
            case["wall_ratio"] = case["wall_ms"]["npu_emu"] / case["wall_ms"]["numpy"]
            case["dispatch_ratio"] = case["cpu_ms"]["npu_emu"] / case["cpu_ms"]["numpy_dispatch"]
            case["met"] = case["ratio"] <= CLIENT_GOAL
            out["cases"].append(case)
        return out

    def array_layer(self) -> dict:
        """What the array API adds over the aclnn path doing the same work, on 64 MiB of
        float32 (16M elements; 1M with --quick), both synchronized, medians: broadcast_to +
        copy (x[...] = broadcast_to(row) vs aclnnExpand), astype to float16 (vs aclnnCast),
        format_cast to FRACTAL_NZ (vs aclnnNpuFormatCast), and the DLPack round trip
        NumPy -> from_dlpack -> np.from_dlpack, which copies nothing (its time does not grow
        with the size: compare the two sizes)."""
        import npu_emu.array_api as xp
        from npu_emu import device, runtime
        aclnn = aclnn_api()
        be = runtime.current()
        rows, cols = (256, 4096) if self.settings.quick else (2048, 8192)
        policy = TimingPolicy(repeat=self.settings.policy.repeat, warmup=2, min_sample_s=2e-3,
                              budget_s=min(self.settings.policy.budget_s, 10.0))
        rng = np.random.default_rng(3)
        host = rng.standard_normal((rows, cols)).astype(np.float32)

        def timed(fn: Callable[[], Any]) -> float:
            def work() -> None:
                fn()
                be.synchronize()
            return measure(host_sampler(work), policy).median_s

        def pair(case: str, op: str, ours: Callable[[], Any], theirs: Callable[[], Any]) -> dict:
            # Interleaved (ours, theirs, ours, theirs), the better median of each: a drift of
            # the machine between the two measurements does not read as overhead.
            a, b = [], []
            for _ in range(2):
                a.append(timed(ours))
                b.append(timed(theirs))
            return {"case": case, "aclnn": op, "array_api_s": min(a), "aclnn_s": min(b)}

        def repeatable(first, second, *args) -> Callable[[], None]:
            ws, ex, ret = first(*args)
            ok(ret, first.__name__)
            ok(aclnn.aclSetAclOpExecutorRepeatable(ex), "aclSetAclOpExecutorRepeatable")
            wbuf = device.empty([ws], "u8") if ws else None
            return lambda: ok(second(wbuf.data if wbuf else None, ws, ex, None), second.__name__)

        out: list[dict] = []
        x = xp.asarray(host, copy=True)
        xt = device.from_numpy(host)
        # broadcast_to + copy
        row = xp.asarray(host[:1], copy=True)
        y = xp.empty((rows, cols), dtype=xp.float32)   # what aclnnExpand writes

        def assign() -> None:
            y[...] = xp.broadcast_to(row, (rows, cols))
        rt, ot = device.from_numpy(host[:1]), device.empty([rows, cols], "f32")
        expand = repeatable(aclnn.aclnnExpandGetWorkspaceSize, aclnn.aclnnExpand, rt,
                            aclnn.aclCreateIntArray([rows, cols]), ot)
        out.append(pair("x[...] = broadcast_to(row)", "aclnnExpand", assign, expand))
        # astype
        h16 = device.empty([rows, cols], "f16")
        cast = repeatable(aclnn.aclnnCastGetWorkspaceSize, aclnn.aclnnCast, xt, "f16", h16)
        out.append(pair("astype(x, float16)", "aclnnCast", lambda: xp.astype(x, xp.float16), cast))
        # format_cast
        shape, fmt, ret = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(xt, 29, -1)
        ok(ret, "aclnnNpuFormatCastCalculateSizeAndFormat")
        nz = device.empty([rows, cols], "f32", format=fmt, storage_shape=shape)
        fcast = repeatable(aclnn.aclnnNpuFormatCastGetWorkspaceSize, aclnn.aclnnNpuFormatCast, xt, nz)
        out.append(pair("format_cast(x, 'FRACTAL_NZ')", "aclnnNpuFormatCast",
                        lambda: xp.format_cast(x, "FRACTAL_NZ"), fcast))
        for r in out:
            r["ratio"] = r["array_api_s"] / r["aclnn_s"]
        # DLPack round trips: the time of a small and a large array (no copy: about equal)
        small = np.ones(1024, np.float32)
        trips = {n.size * 4: timed(lambda n=n: np.from_dlpack(xp.from_dlpack(n))) for n in (small, host)}
        return {"bytes": rows * cols * 4, "cases": out,
                "dlpack_round_trip_s": {str(k): v for k, v in trips.items()}}

    def result(self) -> dict:
        data = {"schema": SCHEMA,
                "provenance": provenance(self.backend, self.peers, self.peer_notes,
                                         self.settings.command),
                "settings": {"ops": self.settings.ops,
                             "dtypes": {k: [short(d) for d in v] for k, v in self.settings.dtypes.items()},
                             "sizes": self.settings.sizes, "policy": dataclasses.asdict(self.settings.policy),
                             "stress": self.settings.stress, "quick": self.settings.quick,
                             "memory_budget_bytes": {"device": self.budget[0], "host": self.budget[1]}},
                "cases": self.cases, "skipped": self.skipped}
        data["provenance"]["load_average_at_start"] = self.load_at_start
        if self.settings.note:
            data["provenance"]["note"] = self.settings.note
        data["goals"] = evaluate_goals(data)
        if self.settings.threads:
            data["settings"]["threads"] = self.settings.threads
            from npu_emu import runtime
            be = runtime.current()
            lo, hi = min(self.settings.threads), max(self.settings.threads)
            if hasattr(be, "core_scaling") and hi > lo:
                data["host_scaling"] = {"threads": [lo, hi],
                                        "ratio": be.core_scaling(hi) / be.core_scaling(lo)}
            data["scaling"] = scaling(data["cases"], data.get("host_scaling", {}).get("ratio"))
        return data
