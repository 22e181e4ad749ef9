"""`npu-emu bench`'s options, the settings they give, and its main: measure, or render
reports from JSON files."""
from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

from . import cluster
from .cases import OPS
from .common import (LEGACY_SCHEMA, SCHEMA, BenchError, GiB, MiB, dtype_of, optional_import,
                     parse_size, stress_ladder)
from .report import case_label, plot, print_summary, render_report
from .runner import Bench, Output, Settings
from .timing import TimingPolicy


# ------------------------------------------------------------------------------ CLI

def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ops", help=f"comma-separated, from {','.join(OPS)} (default: all)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--sizes", help="comma-separated element counts of each case's output, "
                      "K/M/G = 2^10/2^20/2^30 (default 1M,16M,64M; with --device cuda also 256M)")
    size.add_argument("--max-gib", type=float, help="sizes from 1M up, by 4x, while a case fits "
                      "in this many GiB of device memory")
    p.add_argument("--dtypes", help="comma-separated dtypes (f16,bf16,f32,hif8,fp8e4m3fn,u8,...) "
                   "taken by each op that has them (default: each op's own)")
    p.add_argument("--device", choices=("cpu", "cuda"), help="backend (default: NPU_EMU_DEVICE, "
                   "then auto)")
    p.add_argument("--repeat", type=int, help="timed repeats per measurement (default 7; 3 with --quick)")
    p.add_argument("--warmup", type=int, help="untimed runs first (default 2; 1 with --quick)")
    p.add_argument("--budget", type=float, metavar="SECONDS", help="time per measurement: slow "
                   "peers get fewer repeats (default 20; 60 with --stress; 1 with --quick)")
    p.add_argument("--json", metavar="FILE", help="write every sample and the provenance here")
    p.add_argument("--plot", metavar="FILE.png", help="GB/s against size per op (needs matplotlib: "
                   "pip install 'npu-emu[plot]')")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="tiny sizes, one dtype per op: seconds "
                      "on the cpu backend")
    mode.add_argument("--stress", action="store_true", help="sizes up to what fits in memory, past "
                      "2^31 elements (the 64-bit index path), 1-byte dtypes by default")
    mode.add_argument("--report", nargs="+", metavar="JSON", help="print benchmarks/RESULTS.md "
                      "(markdown) from bench JSON files instead of measuring")
    p.add_argument("--scheduler", metavar="local:N|tcp://HOST:PORT", help="run the cases on a "
                   "Dask cluster through npu_emu.dask: local:N starts N worker processes (on "
                   "the cuda backend dask-cuda's LocalCUDACluster, one worker per GPU), "
                   "tcp://HOST:PORT joins a running scheduler; reports aggregate and per-worker "
                   "GB/s and the overhead against the same work in one process (needs "
                   "pip install 'npu-emu[dask]')")
    p.add_argument("--chunk-mib", type=float, metavar="MiB", help="with --scheduler: bytes of "
                   "one block of the inputs (default 64; 4 with --quick)")
    p.add_argument("--threads", metavar="N,N,...", help="cpu backend: run each case at each "
                   "of these kernel thread counts (PyTorch on as many), back to back, and report "
                   "the scaling from the fewest to the most (e.g. 1,2)")
    p.add_argument("--note", help="a line kept in the JSON and RESULTS.md (e.g. what else ran)")
    p.add_argument("--list", action="store_true", help="list the ops, variants and dtypes")


def _split(text: str | None) -> list[str] | None:
    return None if text is None else [x.strip() for x in text.split(",") if x.strip()]


def _default(value, default):
    return default if value is None else value


def make_settings(args: argparse.Namespace, backend: str) -> Settings:
    named = _split(args.ops)
    ops = named or list(OPS)
    unknown = [o for o in ops if o not in OPS]
    if unknown:
        raise BenchError(f"--ops: {', '.join(map(repr, unknown))} is not an op of this version; "
                         f"choose from {', '.join(OPS)}")
    wanted = None
    if args.dtypes:
        wanted = []
        for name in _split(args.dtypes) or []:
            try:
                wanted.append(dtype_of(name))
            except Exception:
                raise BenchError(f"--dtypes: {name!r} is not a dtype (short names: f16, bf16, "
                                 f"f32, f64, s8, u8, s16, s32, s64, bool, hif8, fp8e4m3fn, "
                                 f"fp8e5m2, c64...)") from None
    dtypes: dict[str, list] = {}
    for o in ops:
        if wanted is not None:
            dtypes[o] = list(wanted)
        elif args.stress:
            dtypes[o] = [dtype_of(x) for x in OPS[o].stress_dtypes]
        elif args.quick:
            dtypes[o] = [dtype_of(x) for x in (OPS[o].dtypes[:1] if o != "cast" else ("f16", "hif8"))]
        else:
            dtypes[o] = [dtype_of(x) for x in OPS[o].dtypes]
    # `is None`, not `or`: an explicit 0 is refused below, never read as "the default".
    for option, value, low in (("--repeat", args.repeat, 1), ("--warmup", args.warmup, 1)):
        if value is not None and value < low:
            raise BenchError(f"{option} {value}: must be at least {low}")
    if args.budget is not None and not args.budget > 0:
        raise BenchError(f"--budget {args.budget:g}: must be a positive number of seconds")
    if args.max_gib is not None and not args.max_gib > 0:
        raise BenchError(f"--max-gib {args.max_gib:g}: must be a positive number of GiB")
    if args.quick:
        policy = TimingPolicy(repeat=_default(args.repeat, 3), warmup=_default(args.warmup, 1),
                              min_sample_s=1e-3, budget_s=_default(args.budget, 1.0))
    else:
        policy = TimingPolicy(repeat=_default(args.repeat, 7), warmup=_default(args.warmup, 2),
                              budget_s=_default(args.budget, 60.0 if args.stress else 20.0))
    explicit = [parse_size(s) for s in _split(args.sizes) or []]
    sizes: dict[str, list[int]] = {}
    for o in ops:
        # A compute-bound op (matmul) keeps to its cap unless --ops names it: a size sweep
        # meant for the copies must not turn into minutes of emulated cube work.
        cap = None if named and o in named else (OPS[o].numel_cap or {}).get(backend)
        if explicit:
            ladder = explicit
        elif args.quick:
            ladder = [2**18] if o != "matmul" else [2**16]
        elif args.stress or args.max_gib:
            ladder = stress_ladder() if args.stress else [4**k * MiB for k in range(0, 8)]
            if args.max_gib:
                limit = args.max_gib * GiB
                ladder = [n for n in ladder
                          if min(OPS[o].spec(v, d, n).device_bytes for v in OPS[o].variants
                                 for d in dtypes[o]) <= limit] or ladder[:1]
        else:
            ladder = [MiB, 16 * MiB, 64 * MiB] + ([256 * MiB] if backend == "cuda" else [])
        if cap and not args.quick:
            ladder = [n for n in ladder if n <= cap] or [cap]
        sizes[o] = sorted(set(ladder))
    argv = getattr(args, "argv", None) or ["bench"]
    return Settings(ops, dtypes, sizes, policy, stress=args.stress, quick=args.quick,
                    max_bytes=int(args.max_gib * GiB) if args.max_gib else None,
                    command="npu-emu " + " ".join(shlex.quote(a) for a in argv), note=args.note,
                    threads=parse_threads(getattr(args, "threads", None), backend))


def parse_threads(text: str | None, backend: str) -> list[int] | None:
    """--threads 1,2: distinct positive counts, ascending; the cpu backend's only."""
    if text is None:
        return None
    counts = []
    for item in _split(text) or [""]:
        try:
            n = int(item)
        except ValueError:
            n = 0
        if n < 1:
            raise BenchError(f"--threads: {item!r} is not a positive thread count "
                             f"(comma-separated, e.g. 1,2)")
        counts.append(n)
    if backend != "cpu":
        raise BenchError(f"--threads sets the cpu backend's kernel threads; the {backend} "
                         f"backend has none to set")
    return sorted(set(counts))


def list_ops() -> str:
    lines = []
    for op in OPS.values():
        lines.append(f"{op.name:<12} {op.summary}")
        lines.append(f"{'':<12} variants: {', '.join(op.variants)}; dtypes: {', '.join(op.dtypes)} "
                     f"(--stress: {', '.join(op.stress_dtypes)}); GB/s counts {op.traffic}")
    return "\n".join(lines)


def _load_json(path: str) -> dict:
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise BenchError(f"--report: cannot read {path}: {exc}") from None
    if data.get("schema") not in (SCHEMA, LEGACY_SCHEMA):
        raise BenchError(f"--report: {path} is not npu-emu bench JSON (schema {data.get('schema')!r})")
    return data


def main(args: argparse.Namespace) -> int:
    """`npu-emu bench`: 0 when every case ran and checked, 1 on a wrong result, 2 on bad
    arguments or a backend that is not there."""
    try:
        return _main(args)
    except BenchError as exc:
        print(f"npu-emu bench: {exc}", file=sys.stderr)
        return 2


def _main(args: argparse.Namespace) -> int:
    if args.list:
        print(list_ops())
        return 0
    if args.plot and optional_import("matplotlib") is None:
        raise BenchError("--plot needs matplotlib: pip install 'npu-emu[plot]' (or pip install "
                         "matplotlib)")
    if args.chunk_mib is not None and not args.chunk_mib > 0:
        raise BenchError(f"--chunk-mib {args.chunk_mib:g}: must be a positive number of MiB")
    if args.chunk_mib is not None and not args.scheduler:
        raise BenchError("--chunk-mib sizes the blocks of a --scheduler run; give --scheduler")
    if args.scheduler:
        if getattr(args, "threads", None):
            raise BenchError("--threads measures one process; a --scheduler run sets its "
                             "workers' threads itself")
        if args.plot or args.report:
            raise BenchError("--scheduler measures a cluster run; --plot and --report take "
                             "one-process runs")
        cluster.parse_scheduler(args.scheduler)      # a bad value fails before any work
        cluster._dask()
    if args.report:
        datasets = [_load_json(p) for p in args.report]
        sys.stdout.write(render_report(datasets))
        if args.plot:
            runs = [d for d in datasets if d.get("schema") == SCHEMA]
            if not runs:
                raise BenchError("--plot: no bench run among the --report files")
            plot(max(runs, key=lambda d: d["provenance"]["date"]), args.plot)
        return 0
    # Pinned threads: unpinned runs swing 2-3x. libgomp pins the calling thread (NumPy's loops,
    # our kernels' first blocks) and PyTorch's OpenMP threads; our pool's workers take the
    # process's other CPUs (npu_emu_cpu_pool.h). Must be set before the first kernel library (and
    # libgomp) loads.
    os.environ.setdefault("OMP_PROC_BIND", "close")
    # The client benchmark's scikit-learn dispatches only with SciPy's array API support,
    # which SciPy reads at its first import (a peer library may import it early).
    os.environ.setdefault("SCIPY_ARRAY_API", "1")
    os.environ.setdefault("OMP_PLACES", "cores")
    from npu_emu import runtime
    try:
        backend = (runtime.use(args.device) if args.device else runtime.current()).name
    except Exception as exc:
        raise BenchError(f"the {args.device or 'selected'} backend is not available: {exc}") from None
    settings = make_settings(args, backend)
    if args.scheduler:
        return _cluster_main(args, settings, backend)
    out = Output(0)
    try:
        bench = Bench(settings, out)
        bench.run()
        # The progress display's refresh thread takes the GIL ten times a second: stopped
        # before the measurements of microseconds (with it running, the tiny xp.add took
        # 10.6 us of wall and 12.9 us of CPU time a call, 9.7 and 9.7 without).
        out.close()
        overhead = bench.host_overhead() if "expand" in settings.ops else None
        layer = bench.array_layer() if "array_api" in settings.ops and not settings.stress else None
        clients = bench.clients() if "array_api" in settings.ops and not settings.stress else None
    finally:
        out.close()
    data = bench.result()
    if overhead is not None:
        data["host_overhead"] = overhead
    if layer is not None:
        data["array_layer"] = layer
    if clients is not None:
        data["clients"] = clients
    print_summary(data)
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, default=str) + "\n")
        print(f"wrote {path}")
    if args.plot:
        plot(data, args.plot)
        print(f"wrote {args.plot}")
    wrong = [c for c in data["cases"] if not c["check"]["ok"]]
    if wrong:
        print(f"npu-emu bench: {len(wrong)} case(s) gave WRONG results: "
              + ", ".join(case_label(c) for c in wrong), file=sys.stderr)
    if bench.errors:
        print(f"npu-emu bench: {bench.errors} case(s) failed inside the bench (see 'skipped')",
              file=sys.stderr)
    return 1 if wrong or bench.errors else 0


def _cluster_main(args: argparse.Namespace, settings: Settings, backend: str) -> int:
    """--scheduler: the cases on a Dask cluster (npu_emu.bench.cluster)."""
    chunk = int(args.chunk_mib * MiB) if args.chunk_mib else cluster.default_chunk_bytes(args.quick)
    out = Output(0)
    try:
        data = cluster.run(settings, args.scheduler, backend, chunk, out)
    finally:
        out.close()
    if settings.note:
        data["provenance"]["note"] = settings.note
    cluster.print_summary(data)
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, default=str) + "\n")
        print(f"wrote {path}")
    differ = [c for c in data["cases"] if not c["check"]["ok"]]
    errors = [s for s in data["skipped"] if s["kind"] == "error"]
    if differ:
        print(f"npu-emu bench: {len(differ)} case(s) differ between the cluster and one "
              f"process: " + ", ".join(case_label(c) for c in differ), file=sys.stderr)
    if errors:
        print(f"npu-emu bench: {len(errors)} case(s) failed on the cluster (see 'skipped')",
              file=sys.stderr)
    return 1 if differ or errors else 0
