"""ND <-> FRACTAL_NZ and NCHW <-> NC1HWC0 on large tensors: the layout kernels against NumPy's
pad + reshape + transpose + copy (and CuPy's, with a GPU) in the same run, and against a plain
device copy of the same bytes. GB/s counts bytes read + written (padding included); medians.

    python benchmarks/bench_formats.py [--mib 256] [--repeat 5] [--device cpu|cuda] [--json out.json]

BENCH_MIB in the environment sets the default size (the source tensor's MiB).
Targets (issue 6): cpu >= 4x NumPy; GPU >= 80% of copy bandwidth and faster than CuPy.
"""
from __future__ import annotations

import argparse
import os

import _harness as H  # noqa: E402  (sets OMP pinning before npu_emu loads kernels)
import numpy as np

from npu_emu import device, runtime
from npu_emu.dtypes import aclDataType as DT
from npu_emu.fractal import layout_spec
from npu_emu.runtime.copy import View
from npu_emu.runtime.layout import plan_layout


def _cupy():
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        return cupy
    except Exception:
        return None


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def cases(mib: int):
    """(name, layout, shape, origin, to-storage numpy fn, back numpy fn), fp16 sources."""
    elems = mib * (1 << 20) // 2
    n = 8190                                  # not a multiple of 16: padding on both axes
    m = max(1, elems // n - 3)
    m1, n1 = _ceil(m, 16), _ceil(n, 16)

    def nz(xp, a):
        p = xp.pad(a, [(0, m1 * 16 - m), (0, n1 * 16 - n)])
        return xp.ascontiguousarray(p.reshape(m1, 16, n1, 16).transpose(2, 0, 1, 3))

    def nz_back(xp, s):
        return xp.ascontiguousarray(s.transpose(1, 2, 0, 3).reshape(m1 * 16, n1 * 16)[:m, :n])

    bn, c, h = 8, 50, 0                        # NCHW with C = 50 (C1 = 4, 14 zero channels)
    h = w = max(1, int((elems // (bn * c)) ** 0.5))
    c1 = _ceil(c, 16)

    def nc(xp, x):
        p = xp.pad(x, [(0, 0), (0, c1 * 16 - c), (0, 0), (0, 0)])
        return xp.ascontiguousarray(p.reshape(bn, c1, 16, h, w).transpose(0, 1, 3, 4, 2))

    def nc_back(xp, s):
        return xp.ascontiguousarray(s.transpose(0, 1, 4, 2, 3).reshape(bn, c1 * 16, h, w)[:, :c])

    return [("ND (M,N) <-> FRACTAL_NZ", "FRACTAL_NZ", (m, n), None, nz, nz_back),
            ("NCHW <-> NC1HWC0", "NC1HWC0", (bn, c, h, w), "NCHW", nc, nc_back)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=int(os.environ.get("BENCH_MIB", 256)))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--device", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    be = runtime.use(args.device) if args.device else runtime.current()
    gpu = be.name == "cuda"
    cupy = _cupy() if gpu else None
    stream = be.create_stream()
    inner = 5 if gpu else 1
    rng = np.random.default_rng(0)
    results = []
    for name, layout, shape, origin, to_np, back_np in cases(args.mib):
        host = rng.integers(1, 30000, size=shape, dtype=np.uint16).view(np.float16)
        src = device.from_numpy(host)
        spec = layout_spec(layout, shape, DT.ACL_FLOAT16, origin=origin)
        storage = device.empty(spec.storage_shape, DT.ACL_FLOAT16)
        back = device.empty(shape, DT.ACL_FLOAT16)
        view_in = View(src.data, src.view_shape, src.view_strides, 2)
        view_out = View(back.data, back.view_shape, back.view_strides, 2)
        fwd = plan_layout(be, spec.axes, view_in, storage.data, True)
        rev = plan_layout(be, spec.axes, view_out, storage.data, False)
        nbytes = host.nbytes + spec.storage_numel * 2

        # correctness once, against the NumPy reference
        be.enqueue(fwd, stream)
        be.enqueue(rev, stream)
        stream.synchronize()
        want = to_np(np, host)
        got = device.storage_to_numpy(storage).reshape(spec.storage_shape)
        assert np.array_equal(got.view(np.uint16), want.view(np.uint16)), name
        assert np.array_equal(device.to_numpy(back).view(np.uint16), host.view(np.uint16)), name

        t_copy = H.median_device_seconds(
            be, stream, lambda: be.copy_device(back.data, src.data, host.nbytes, stream),
            args.repeat, inner=inner) * nbytes / (2 * host.nbytes)   # same bytes as the transform
        for direction, launches, fn, arg in (("->", fwd, to_np, host), ("<-", rev, back_np, want)):
            t = H.median_device_seconds(be, stream, lambda: be.enqueue(launches, stream), args.repeat,
                                        inner=inner)
            t_np = H.median_seconds(lambda: fn(np, arg), args.repeat, warmup=1)
            row = {"case": f"{name} {direction}", "kernel": launches[0].kernel.name,
                   "ours_gbps": H.gbps(nbytes, t), "numpy_gbps": H.gbps(nbytes, t_np),
                   "copy_gbps": H.gbps(nbytes, t_copy)}
            row["vs_numpy"] = row["ours_gbps"] / row["numpy_gbps"]
            row["of_copy"] = t_copy / t
            if cupy is not None:
                carg = cupy.asarray(arg)
                t_cp = H.median_cupy_seconds(lambda: fn(cupy, carg), args.repeat, inner=inner)
                row["cupy_gbps"] = H.gbps(nbytes, t_cp)
                del carg
            results.append(row)
        del src, storage, back

    columns = [("case", "case", "s"), ("ours_gbps", f"{be.name} GB/s", ".2f"),
               ("numpy_gbps", "NumPy GB/s", ".2f"), ("vs_numpy", "x NumPy", ".1f"),
               ("copy_gbps", "copy GB/s", ".2f"), ("of_copy", "of copy", ".0%")]
    if cupy is not None:
        columns.append(("cupy_gbps", "CuPy GB/s", ".1f"))
    H.print_table(f"bench_formats: {args.mib} MiB float16 sources, {be.name} backend, medians of "
                  f"{args.repeat}", results, columns)
    H.write_json(args.json, {"benchmark": "bench_formats", "mib": args.mib, "results": results,
                             "env": H.environment(be)})
    stream.destroy()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
