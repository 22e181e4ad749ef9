"""Strided copy kernel vs NumPy (and CuPy on a GPU), 64 MiB outputs, in one run:
broadcast (1, N) -> (M, N), a transposed view, and a contiguous copy. GB/s counts bytes read
+ written; medians of repeated runs.

    python benchmarks/bench_copy.py [--mib 64] [--json out.json] [--device cpu|cuda]
"""
from __future__ import annotations

import argparse
import os

import _harness as H  # noqa: E402  (sets OMP pinning before npu_emu loads kernels)
import numpy as np

from npu_emu import runtime
from npu_emu.runtime.copy import View, plan_copy


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=int(os.environ.get("BENCH_MIB", 64)))
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--device", default=None, help="cpu or cuda (default: NPU_EMU_DEVICE/auto)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    be = runtime.use(args.device) if args.device else runtime.current()
    stream = be.create_stream()
    n = args.mib * (1 << 20) // 4          # float32 elements of the output
    cols = 4096
    rows = n // cols
    side = int(np.sqrt(n))                 # square for the transpose
    rng = np.random.default_rng(0)
    host = rng.random(n, dtype=np.float32)
    src = be.malloc(host.nbytes)
    dst = be.malloc(host.nbytes)
    be.copy_from_host(src, host)
    gpu = be.name == "cuda"
    if gpu:
        import cupy
    cases = {
        "contiguous": (View(dst, (n,), (1,), 4), View(src, (n,), (1,), 4), 2 * n * 4,
                       lambda: (host, np.empty_like(host))),
        "broadcast (1,N)->(M,N)": (View(dst, (rows, cols), (cols, 1), 4), View(src, (1, cols), (0, 1), 4),
                                   rows * cols * 4 + cols * 4,
                                   lambda: (np.broadcast_to(host[:cols], (rows, cols)), np.empty((rows, cols), np.float32))),
        "transposed view": (View(dst, (side, side), (side, 1), 4), View(src, (side, side), (1, side), 4),
                            2 * side * side * 4,
                            lambda: (host[:side * side].reshape(side, side).T, np.empty((side, side), np.float32))),
    }
    results = []
    d2d = None
    if gpu:
        d2d = H.median_device_seconds(be, stream, lambda: be.copy_device(dst, src, n * 4, stream),
                                      args.repeat, inner=5)
        d2d_gbps = H.gbps(2 * n * 4, d2d)
    for name, (dv, sv, nbytes, make_np) in cases.items():
        launches = plan_copy(be, dv, sv)
        ours = H.median_device_seconds(be, stream, lambda: be.enqueue(launches, stream), args.repeat,
                                       inner=5 if gpu else 1)
        src_np, out_np = make_np()
        numpy_s = H.median_seconds(lambda: np.copyto(out_np, src_np), args.repeat)
        row = {"case": name, "kernel": launches[0].kernel.name, "ours_gbps": H.gbps(nbytes, ours),
               "numpy_gbps": H.gbps(nbytes, numpy_s)}
        row["vs_numpy"] = row["ours_gbps"] / row["numpy_gbps"]
        if gpu:
            csrc = cupy.asarray(src_np)
            cdst = cupy.empty(out_np.shape, out_np.dtype)
            if name == "transposed view":
                csrc = cupy.asarray(host[:side * side]).reshape(side, side).T
            elif name.startswith("broadcast"):
                csrc = cupy.broadcast_to(cupy.asarray(host[:cols]), (rows, cols))
            cp_s = H.median_cupy_seconds(lambda: cupy.copyto(cdst, csrc), args.repeat, inner=5)
            row["cupy_gbps"] = H.gbps(nbytes, cp_s)
            row["vs_cupy"] = row["ours_gbps"] / row["cupy_gbps"]
            row["of_d2d"] = row["ours_gbps"] / d2d_gbps
        results.append(row)
    cols_spec = [("case", "case", "s"), ("ours_gbps", f"{be.name} GB/s", ".1f"),
                 ("numpy_gbps", "NumPy GB/s", ".1f"), ("vs_numpy", "x NumPy", ".2f")]
    if gpu:
        cols_spec += [("cupy_gbps", "CuPy GB/s", ".1f"), ("vs_cupy", "x CuPy", ".2f"),
                      ("of_d2d", "of D2D", ".0%")]
    H.print_table(f"bench_copy: {args.mib} MiB float32 outputs, {be.name} backend "
                  f"({be.info()['device']}), medians of {args.repeat}", results, cols_spec)
    if gpu:
        print(f"device-to-device memcpy: {d2d_gbps:.1f} GB/s")
    H.write_json(args.json, {"benchmark": "bench_copy", "mib": args.mib, "results": results,
                             "d2d_gbps": d2d and H.gbps(2 * n * 4, d2d), "env": H.environment(be)})
    be.free(src)
    be.free(dst)
    stream.destroy()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
