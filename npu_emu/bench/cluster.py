"""`npu-emu bench --scheduler local:N | tcp://HOST:PORT`: the stress cases on a Dask cluster
through npu_emu.dask, block by block: inputs made on the workers, each result block reduced
to a checksum there, so no machine holds a whole array. Each case also runs the same graph
in one process (dask's synchronous scheduler): the checksums must agree bit for bit, and the
difference in time is the scheduler's overhead.
"""
from __future__ import annotations

import ast
import math
import time
import zlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .cases import OPS, CaseSpec, random_storage
from .common import MiB, BenchError, dtype_of, format_bytes, format_count, short

CLUSTER_SCHEMA = "npu_emu.bench.cluster/1"
INSTALL = "pip install 'npu-emu[dask]'"
WARMUP_NUMEL = 2**16      # a first, untimed run per case on every worker: kernels compile


def _dask() -> tuple[Any, Any]:
    """(npu_emu.dask, distributed), or BenchError saying how to install them."""
    try:
        import distributed

        import npu_emu.dask as nd
    except ImportError as exc:
        raise BenchError(f"--scheduler needs Dask: {INSTALL} ({exc})") from None
    return nd, distributed


# ----------------------------------------------------------------------------- cluster

@dataclass
class Cluster:
    client: Any
    description: str
    local: Any = None            # the LocalCluster (or LocalCUDACluster) we started

    def close(self) -> None:
        self.client.close()
        if self.local is not None:
            self.local.close()

    @property
    def workers(self) -> dict[str, dict]:
        return self.client.scheduler_info()["workers"]


def parse_scheduler(text: str) -> tuple[str, int | str]:
    """("local", N) or ("address", "tcp://host:port")."""
    if text.startswith("local:"):
        try:
            n = int(text.split(":", 1)[1])
        except ValueError:
            n = 0
        if n < 1:
            raise BenchError(f"--scheduler {text}: local:N takes a number of workers, at "
                             f"least 1 (e.g. local:4)")
        return "local", n
    if "://" in text:
        return "address", text
    raise BenchError(f"--scheduler {text!r}: give local:N (N worker processes here) or a "
                     f"scheduler's address, tcp://HOST:PORT")


def connect(text: str, backend: str, memory_limit: str | None = None) -> Cluster:
    """A client of the cluster `text` names: local:N starts N worker processes (one thread
    each: the cpu backend's kernels have threads of their own, the cores shared out)
    or, on the cuda backend, dask-cuda's LocalCUDACluster with one worker per GPU (the first
    N); tcp://HOST:PORT joins a running scheduler."""
    _nd, distributed = _dask()
    kind, value = parse_scheduler(text)
    if kind == "address":
        try:
            client = distributed.Client(value, timeout="30s")
        except (OSError, TimeoutError) as exc:
            raise BenchError(f"--scheduler {text}: cannot reach the scheduler: {exc}") from None
        return Cluster(client, f"scheduler {value}")
    n = int(value)
    env = {"NPU_EMU_DEVICE": backend}
    if backend == "cuda":
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError:
            raise BenchError("--scheduler local:N on the cuda backend needs dask-cuda: pip "
                             "install dask-cuda") from None
        local = LocalCUDACluster(CUDA_VISIBLE_DEVICES=list(range(n)), env=env,
                                 **({"memory_limit": memory_limit} if memory_limit else {}))
        what = f"LocalCUDACluster, {n} worker(s), one per GPU"
    else:
        import os
        env["OMP_NUM_THREADS"] = str(max(1, (os.cpu_count() or 1) // n))
        local = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                         env=env, dashboard_address=None,
                                         **({"memory_limit": memory_limit} if memory_limit else {}))
        what = f"LocalCluster, {n} worker process(es), 1 thread and {env['OMP_NUM_THREADS']} " \
               f"kernel thread(s) each"
    return Cluster(distributed.Client(local), what, local)


# ----------------------------------------------------------------------------- graphs

def _seed(seed: int, location: tuple[int, ...]) -> int:
    return zlib.crc32(repr((seed, location)).encode())


def _input_block(dtype: str, seed: int, block_info: dict | None = None) -> np.ndarray:
    """One block of an input, made where it is used: the bench's random storage (finite
    values, bits for the narrow types), seeded by the block's place."""
    nd, _ = _dask()
    info = block_info[None]
    shape, location = info["chunk-shape"], tuple(info["chunk-location"])
    raw = random_storage(dtype_of(dtype), math.prod(shape), seed=_seed(seed, location))
    name = nd.npu_dtype_name(dtype_of(dtype))
    block = raw.reshape(shape).view(nd.chunk_dtype(name))
    return block if nd.chunk_library() is np else nd.chunk_library().asarray(block)


def input_array(shape: tuple[int, ...], dt: Any, chunks: tuple, seed: int) -> Any:
    import dask.array as da
    nd, _ = _dask()
    name = nd.npu_dtype_name(dt)
    return da.map_blocks(_input_block, short(dt), seed, chunks=chunks,
                         dtype=nd.chunk_dtype(name), meta=np.empty((0,) * len(shape),
                                                                   nd.chunk_dtype(name)),
                         name=f"npu-bench-input-{short(dt)}-{seed}-{shape}-{chunks}")


def _rows(total: int, row_bytes: int, chunk_bytes: int, multiple: int = 1) -> tuple[int, ...]:
    """Row chunks of about chunk_bytes (whole multiples of `multiple` rows)."""
    rows = max(multiple, chunk_bytes // max(row_bytes, 1) // multiple * multiple)
    return tuple([rows] * (total // rows) + ([total % rows] if total % rows else []))


def _small(host: np.ndarray, dt: Any) -> Any:
    """A small operand (a broadcast row) as a one-block dask array of the chunk dtype."""
    import dask.array as da
    nd, _ = _dask()
    return da.from_array(host.view(nd.chunk_dtype(nd.npu_dtype_name(dt))), chunks=host.shape)


def graph_expand(s: CaseSpec, chunk_bytes: int) -> Any:
    nd, _ = _dask()
    (_, cols), (rows, _) = s.shapes["self"], s.shapes["out"]
    row = random_storage(s.dtype, cols, seed=1).reshape(1, cols)
    rc = _rows(rows, cols * row.itemsize, chunk_bytes)
    return nd.expand(_small(row, s.dtype), (rows, cols), chunks=(rc, (cols,)))


def graph_cast(s: CaseSpec, chunk_bytes: int) -> Any:
    nd, _ = _dask()
    f32 = dtype_of("f32")
    src, dst = (f32, s.dtype) if s.variant == "f32->x" else (s.dtype, f32)
    (n,) = s.shapes["self"]
    x = input_array((n,), src, (_rows(n, 4, chunk_bytes),), seed=3)
    return nd.astype(x, nd.npu_dtype_name(dst))


def graph_format_cast(s: CaseSpec, chunk_bytes: int) -> Any:
    nd, _ = _dask()
    rows, cols = s.shapes["view"]
    item = np.dtype(nd.chunk_dtype(nd.npu_dtype_name(s.dtype))).itemsize
    x = input_array((rows, cols), s.dtype, (_rows(rows, cols * item, chunk_bytes, 16), (cols,)),
                    seed=4)
    return nd.format_cast(x, "FRACTAL_NZ")


def graph_binary(s: CaseSpec, chunk_bytes: int) -> Any:
    nd, _ = _dask()
    rows, cols = s.shapes["self"]
    item = np.dtype(nd.chunk_dtype(nd.npu_dtype_name(s.dtype))).itemsize
    rc = _rows(rows, cols * item, chunk_bytes)
    a = input_array((rows, cols), s.dtype, (rc, (cols,)), seed=5)
    if s.shapes["other"] == (1, cols):
        b = _small(random_storage(s.dtype, cols, seed=6).reshape(1, cols), s.dtype)
    else:
        b = input_array((rows, cols), s.dtype, (rc, (cols,)), seed=6)
    return (nd.add if s.op == "add" else nd.multiply)(a, b)


def graph_matmul(s: CaseSpec, chunk_bytes: int) -> Any:
    nd, _ = _dask()
    side = s.shapes["out"][0]
    item = np.dtype(nd.chunk_dtype(nd.npu_dtype_name(s.dtype))).itemsize
    rc = _rows(side, side * item, chunk_bytes)
    a = input_array((side, side), s.dtype, (rc, (side,)), seed=7)
    b = input_array((side, side), s.dtype, ((side,), rc), seed=8)
    return nd.matmul(a, b)


# What runs on a cluster: op -> (its variants there, the graph of one case). Not here:
# view_copy (a copy has no blockwise form of its own), array_api (the eager namespace calls
# are one process's), format_cast's NZ->ND and NCHW->NC1HWC0 (npu_emu.dask converts from
# ND, 2-D layouts).
GRAPHS: dict[str, tuple[tuple[str, ...], Callable[[CaseSpec, int], Any]]] = {
    "expand": (("broadcast",), graph_expand),
    "cast": (("f32->x", "x->f32"), graph_cast),
    "format_cast": (("ND->NZ",), graph_format_cast),
    "add": (("contiguous", "broadcast"), graph_binary),
    "mul": (("contiguous",), graph_binary),
    "matmul": (("square",), graph_matmul),
}


def _checksum_block(block: Any) -> np.ndarray:
    """A block's CRC-32 (of its bytes), as a one-element block."""
    host = block.get() if hasattr(block, "get") and not isinstance(block, np.ndarray) else block
    data = np.ascontiguousarray(host).view(np.uint8)
    return np.full((1,) * block.ndim, zlib.crc32(memoryview(data.reshape(-1))), np.int64)


def checksums(out: Any) -> Any:
    """One CRC-32 per block of `out` (computed where the block is)."""
    return out.map_blocks(_checksum_block, dtype=np.int64,
                          chunks=tuple((1,) * len(c) for c in out.chunks),
                          meta=np.empty((0,) * out.ndim, np.int64))


# ----------------------------------------------------------------------------- runs

def _key_name(key: Any) -> str:
    if isinstance(key, tuple):
        return str(key[0])
    text = str(key)
    if text.startswith("("):
        try:
            return str(ast.literal_eval(text)[0])
        except (ValueError, SyntaxError):
            pass
    return text


def _per_worker(stream: list[dict], out: Any, traffic: int) -> dict[str, dict]:
    """From the task stream: per worker, its tasks, its seconds computing, and the op's own
    blocks (their share of the traffic) and seconds, hence the op's GB/s there."""
    total = math.prod(out.shape)
    workers: dict[str, dict] = {}
    for msg in stream:
        w = workers.setdefault(msg["worker"], {"tasks": 0, "busy_s": 0.0, "op_blocks": 0,
                                               "op_s": 0.0, "op_bytes": 0})
        compute = sum(ss["stop"] - ss["start"] for ss in msg.get("startstops", ())
                      if ss.get("action") == "compute")
        w["tasks"] += 1
        w["busy_s"] += compute
        key = msg["key"]
        if _key_name(key) == out.name:
            idx = key[1:] if isinstance(key, tuple) else ast.literal_eval(str(key))[1:]
            numel = math.prod(out.chunks[d][i] for d, i in enumerate(idx))
            w["op_blocks"] += 1
            w["op_s"] += compute
            w["op_bytes"] += traffic * numel // max(total, 1)
    for w in workers.values():
        w["op_gbps"] = w["op_bytes"] / w["op_s"] / 1e9 if w["op_s"] > 0 else None
    return workers


def warm_up(op: str, variant: str, dtype: str) -> None:
    """A small run of the case in this process (a worker's, through client.run): its
    kernels compile or load before anything is timed."""
    import dask
    spec = OPS[op].spec(variant, dtype_of(dtype), WARMUP_NUMEL)
    dask.compute(checksums(GRAPHS[op][1](spec, WARMUP_NUMEL)), scheduler="synchronous")


def run_case(cluster: Cluster, op: str, variant: str, dt: Any, numel: int,
             chunk_bytes: int) -> dict:
    """One case on the cluster and in one process; the checksums of both, compared."""
    import dask
    _nd, distributed = _dask()
    spec = OPS[op].spec(variant, dt, numel)
    build = GRAPHS[op][1]
    cluster.client.run(warm_up, op, variant, short(dt))    # on every worker
    warm_up(op, variant, short(dt))                          # and here
    out = build(spec, chunk_bytes)
    sums = checksums(out)
    # Unfused graphs (optimize_graph=False) in both runs: the op's blocks stay tasks of
    # their own, so the task stream times them apart from making inputs and checksums.
    with distributed.get_task_stream(cluster.client) as ts:
        t0 = time.perf_counter()
        got = np.asarray(cluster.client.compute(sums, optimize_graph=False).result())
        cluster_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    (want,) = dask.compute(sums, scheduler="synchronous", optimize_graph=False)
    one_s = time.perf_counter() - t0
    want = np.asarray(want)
    n_workers = len(cluster.workers)
    blocks = math.prod(len(c) for c in out.chunks)
    mismatches = int(np.count_nonzero(got != want))
    tasks = len(ts.data)
    per_worker = _per_worker(ts.data, out, spec.traffic)
    busy = sum(w["busy_s"] for w in per_worker.values())
    return {
        "op": op, "variant": variant, "dtype": short(dt), "numel": spec.numel,
        "shapes": {k: list(v) for k, v in spec.shapes.items()}, "bytes": spec.traffic,
        "out_bytes": spec.out_bytes, "blocks": blocks, "chunk_bytes": chunk_bytes,
        "tasks": tasks, "workers": n_workers,
        "cluster_s": cluster_s, "one_process_s": one_s,
        "gbps": spec.traffic / cluster_s / 1e9, "one_process_gbps": spec.traffic / one_s / 1e9,
        "speedup": one_s / cluster_s,
        # What the cluster spent beyond the one process's work shared out evenly, in two
        # parts: the workers' time not computing (scheduling, transfers, waiting), and
        # their computing beyond the one process's (cores shared, cold caches).
        "overhead_s": n_workers * cluster_s - one_s,
        "overhead_per_task_ms": (n_workers * cluster_s - one_s) / max(tasks, 1) * 1e3,
        "workers_busy_s": busy,
        "idle_s": n_workers * cluster_s - busy,
        "idle_per_task_ms": (n_workers * cluster_s - busy) / max(tasks, 1) * 1e3,
        "compute_excess_s": busy - one_s,
        "per_worker": per_worker,
        "check": {"blocks": blocks, "mismatches": mismatches, "ok": mismatches == 0,
                  "what": "CRC-32 of every result block, cluster against one process"},
        "checksums": got.reshape(-1).tolist(),
    }


def run(settings: Any, scheduler: str, backend: str, chunk_bytes: int, out: Any) -> dict:
    """Every (op, dtype, variant, size) of the settings that runs on a cluster."""
    from .provenance import provenance
    from .peers import find_peers
    cluster = connect(scheduler, backend)
    cases, skipped = [], []
    try:
        plans = [(op, dt, v, n) for op in settings.ops for dt in settings.dtypes[op]
                 for v in OPS[op].variants for n in settings.sizes[op]]
        out.set_total(len(plans))
        # --stress: sizes up to the cluster's memory (its workers' limits together), past any
        # one machine's when there are several; nothing holds a whole array, but time grows.
        limit = sum(w.get("memory_limit") or 0 for w in cluster.workers.values())
        for op, dt, variant, n in plans:
            label = f"{op} {variant} {short(dt)} {format_count(n)} on the cluster"
            out.start(label)
            need = OPS[op].spec(variant, dt, n).device_bytes
            if settings.stress and limit and need > limit:
                skipped.append({"op": op, "variant": variant, "dtype": short(dt), "numel": n,
                                "kind": "larger than the cluster",
                                "reason": f"--stress goes up to the workers' memory together "
                                          f"({format_bytes(limit)}); this case has "
                                          f"{format_bytes(need)}"})
            elif op not in GRAPHS or variant not in GRAPHS[op][0]:
                skipped.append({"op": op, "variant": variant, "dtype": short(dt), "numel": n,
                                "kind": "not distributed",
                                "reason": "npu_emu.dask has no blockwise form of this case"})
            else:
                try:
                    case = run_case(cluster, op, variant, dt, n, chunk_bytes)
                except BenchError:
                    raise
                except Exception as exc:      # a refused dtype, a worker lost: reported
                    skipped.append({"op": op, "variant": variant, "dtype": short(dt),
                                    "numel": n, "kind": "error",
                                    "reason": f"{type(exc).__name__}: {exc}"})
                    out.message(f"{label}: {type(exc).__name__}: {exc}")
                else:
                    cases.append(case)
                    if not case["check"]["ok"]:
                        out.message(f"{label}: {case['check']['mismatches']} block(s) differ "
                                    f"from the one-process run")
            out.advance()
        workers = {addr: {"memory_limit": w.get("memory_limit"), "nthreads": w.get("nthreads")}
                   for addr, w in cluster.workers.items()}
    finally:
        cluster.close()
    peers, notes = find_peers(backend)
    return {"schema": CLUSTER_SCHEMA,
            "provenance": provenance(backend, peers, notes, settings.command),
            "scheduler": {"given": scheduler, "cluster": cluster.description,
                          "workers": workers, "chunk_bytes": chunk_bytes},
            "cases": cases, "skipped": skipped}


def summary_rows(data: dict) -> tuple[list[str], list[list[str]]]:
    head = ["op", "case", "dtype", "elements", "moved", "blocks", "GB/s", "1 process GB/s",
            "speedup", "overhead/task", "idle/task", "per worker op GB/s", "check"]
    rows = []
    for c in data["cases"]:
        per = [w["op_gbps"] for w in c["per_worker"].values() if w["op_gbps"]]
        rows.append([c["op"], c["variant"], c["dtype"], format_count(c["numel"]),
                     format_bytes(c["bytes"]), str(c["blocks"]), f"{c['gbps']:.2f}",
                     f"{c['one_process_gbps']:.2f}", f"{c['speedup']:.2f}x",
                     f"{c['overhead_per_task_ms']:.1f} ms", f"{c['idle_per_task_ms']:.1f} ms",
                     " / ".join(f"{v:.2f}" for v in per) or "-",
                     "ok" if c["check"]["ok"] else
                     f"DIFFERS ({c['check']['mismatches']}/{c['check']['blocks']})"])
    return head, rows


def print_summary(data: dict) -> None:
    from .report import plain_table
    s = data["scheduler"]
    print(f"npu-emu bench --scheduler {s['given']}: {s['cluster']}; blocks of about "
          f"{format_bytes(s['chunk_bytes'])}; GB/s end to end (inputs made on the workers, "
          f"results reduced to checksums there)")
    head, rows = summary_rows(data)
    print(plain_table(head, rows))
    for sk in data["skipped"]:
        print(f"skipped: {sk['op']} {sk['variant']} {sk['dtype']} {format_count(sk['numel'])}: "
              f"{sk['kind']}: {sk['reason']}")


def default_chunk_bytes(quick: bool) -> int:
    return (4 if quick else 64) * MiB
