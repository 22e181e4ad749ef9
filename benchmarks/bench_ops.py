"""aclnnExpand and aclnnInplaceCopy on large shapes, and the host overhead of one
GetWorkspaceSize + execute pair on a tiny tensor; against NumPy (and CuPy / PyTorch when
present) in the same run. GB/s counts bytes read + written; medians.

    python benchmarks/bench_ops.py [--mib 64] [--json out.json] [--device cpu|cuda]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import _harness as H  # noqa: E402  (sets OMP pinning before npu_emu loads kernels)
import numpy as np

from npu_emu import aclnn, device, runtime
from npu_emu.runtime.copy import View, plan_copy
from npu_emu.tensor import make_tensor


def _torch():
    try:
        import torch
        return torch
    except Exception:
        return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=int(os.environ.get("BENCH_MIB", 64)))
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--device", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    be = runtime.use(args.device) if args.device else runtime.current()
    gpu = be.name == "cuda"
    torch = _torch()
    stream = be.create_stream()
    n = args.mib * (1 << 20) // 4
    cols = 4096
    rows = n // cols
    side = int(np.sqrt(n))
    rng = np.random.default_rng(0)
    host = rng.random(n, dtype=np.float32)
    results = []

    def op_seconds(get_ws, run):
        """Plan once (repeatable executor), time phase two only."""
        ws, ex, ret = get_ws()
        assert ret == 0, aclnn.aclGetRecentErrMsg()
        aclnn.aclSetAclOpExecutorRepeatable(ex)
        wsp = device.empty([max(ws, 1)], "u8")
        return H.median_device_seconds(be, stream, lambda: run(wsp.data if ws else None, ws, ex, stream),
                                       args.repeat, inner=5 if gpu else 1)

    # Expand (1, N) -> (M, N), into a contiguous out.
    row = device.from_numpy(host[:cols].reshape(1, cols))
    out = device.empty([rows, cols], "f32")
    size = aclnn.aclCreateIntArray([rows, cols])
    t = op_seconds(lambda: aclnn.aclnnExpandGetWorkspaceSize(row, size, out), aclnn.aclnnExpand)
    copy_launch = plan_copy(be, View(out.data, (rows, cols), (cols, 1), 4), View(row.data, (1, cols), (0, 1), 4))
    t_kernel = H.median_device_seconds(be, stream, lambda: be.enqueue(copy_launch, stream), args.repeat,
                                       inner=5 if gpu else 1)
    dst = np.empty((rows, cols), np.float32)
    src = host[:cols].reshape(1, cols)
    t_np = H.median_seconds(lambda: np.copyto(dst, np.broadcast_to(src, dst.shape)), args.repeat)
    nbytes = rows * cols * 4 + cols * 4
    r = {"case": "Expand (1,N)->(M,N)", "ours_gbps": H.gbps(nbytes, t), "numpy_gbps": H.gbps(nbytes, t_np),
         "of_copy_kernel": t_kernel / t}
    if torch is not None and not gpu:
        ts = torch.from_numpy(src)
        r["torch_gbps"] = H.gbps(nbytes, H.median_seconds(lambda: ts.expand(rows, cols).contiguous(), args.repeat))
    results.append(r)

    # InplaceCopy: transposed src view into a contiguous selfRef (same dtype), and f16 -> f32.
    base = device.from_numpy(host[:side * side])
    src_t = make_tensor([side, side], "f32", [1, side], 0, "ND", [side * side], base.data, owner=base.owner)
    dst_t = device.empty([side, side], "f32")
    t = op_seconds(lambda: aclnn.aclnnInplaceCopyGetWorkspaceSize(dst_t, src_t), aclnn.aclnnInplaceCopy)
    kernel = plan_copy(be, View(dst_t.data, (side, side), (side, 1), 4), View(base.data, (side, side), (1, side), 4))
    t_kernel = H.median_device_seconds(be, stream, lambda: be.enqueue(kernel, stream), args.repeat, inner=5 if gpu else 1)
    hsrc = host[:side * side].reshape(side, side).T
    hdst = np.empty((side, side), np.float32)
    t_np = H.median_seconds(lambda: np.copyto(hdst, hsrc), args.repeat)
    nbytes = 2 * side * side * 4
    r = {"case": "InplaceCopy transposed f32", "ours_gbps": H.gbps(nbytes, t), "numpy_gbps": H.gbps(nbytes, t_np),
         "of_copy_kernel": t_kernel / t}
    if torch is not None and not gpu:
        a, b = torch.from_numpy(hsrc.T.copy()).T, torch.empty(side, side)
        r["torch_gbps"] = H.gbps(nbytes, H.median_seconds(lambda: b.copy_(a), args.repeat))
    results.append(r)

    half = device.from_numpy(host[: n // 2].astype(np.float16))
    full = device.empty([n // 2], "f32")
    t = op_seconds(lambda: aclnn.aclnnInplaceCopyGetWorkspaceSize(full, half), aclnn.aclnnInplaceCopy)
    h16 = host[: n // 2].astype(np.float16)
    h32 = np.empty(n // 2, np.float32)
    t_np = H.median_seconds(lambda: np.copyto(h32, h16), args.repeat)
    nbytes = (n // 2) * 6
    results.append({"case": "InplaceCopy f16 -> f32", "ours_gbps": H.gbps(nbytes, t),
                    "numpy_gbps": H.gbps(nbytes, t_np)})
    for r in results:
        r["vs_numpy"] = r["ours_gbps"] / r["numpy_gbps"]

    # Host overhead: phase one + phase two on a tiny tensor (the launch is asynchronous).
    tiny = device.from_numpy(np.ones((1, 4), np.float32))
    tiny_out = device.empty([4, 4], "f32")
    tsize = aclnn.aclCreateIntArray([4, 4])

    def pair():
        ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(tiny, tsize, tiny_out)
        aclnn.aclnnExpand(None, ws, ex, stream)
    for _ in range(200):
        pair()
    stream.synchronize()
    samples = []
    for _ in range(15):
        t0 = time.perf_counter()
        for _ in range(200):
            pair()
        samples.append((time.perf_counter() - t0) / 200)
        stream.synchronize()
    overhead_us = statistics.median(samples) * 1e6
    torch_us = None
    if torch is not None:
        tt = torch.ones(1, 4)
        torch_us = H.median_seconds(lambda: [tt.expand(4, 4).contiguous() for _ in range(200)], 15) / 200 * 1e6

    cols_spec = [("case", "case", "s"), ("ours_gbps", f"{be.name} GB/s", ".1f"), ("numpy_gbps", "NumPy GB/s", ".1f"),
                 ("vs_numpy", "x NumPy", ".2f"), ("of_copy_kernel", "of kernel", ".0%")]
    if torch is not None and not gpu:
        cols_spec.append(("torch_gbps", "torch GB/s", ".1f"))
    H.print_table(f"bench_ops: {args.mib} MiB float32, {be.name} backend, medians of {args.repeat}", results, cols_spec)
    print(f"host overhead, aclnnExpandGetWorkspaceSize + aclnnExpand on a (1,4)->(4,4) tensor: "
          f"{overhead_us:.1f} us (median)" + (f"; torch expand().contiguous(): {torch_us:.1f} us" if torch_us else ""))
    H.write_json(args.json, {"benchmark": "bench_ops", "mib": args.mib, "results": results,
                             "host_overhead_us": overhead_us, "torch_expand_contiguous_us": torch_us,
                             "env": H.environment(be)})
    stream.destroy()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
