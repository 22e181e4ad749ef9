"""Cast float32 <-> each dtype of the cast kernel vs NumPy/ml_dtypes `astype` (npu_emu.codecs
for HiFloat8 and complex32, which no library has), and CuPy / PyTorch where they have the type,
in one run. Default 256 MiB of float32 (64 Mi elements); GB/s counts bytes read + written;
medians of repeated runs.

    python benchmarks/bench_cast.py [--mib 256] [--types f16,bf16,...] [--json out.json]
                                    [--device cpu|cuda]        (BENCH_MIB shrinks the default)
"""
from __future__ import annotations

import argparse
import os
import warnings

import _harness as H  # noqa: E402  (sets OMP pinning before npu_emu loads kernels)
import numpy as np

from npu_emu import codecs, runtime
from npu_emu.dtypes import INFO, aclDataType as DT
from npu_emu.runtime.cast import KERNEL_NAMES, plan_cast
from npu_emu.runtime.copy import View

DEFAULT_TYPES = ["f16", "bf16", "fp8e5m2", "fp8e4m3fn", "hif8", "fp8e8m0", "f64", "s32", "s8",
                 "u8", "s64", "bool", "c64", "c32"]
BY_NAME = {v: k for k, v in KERNEL_NAMES.items()}
TORCH_NAMES = {"f16": "float16", "bf16": "bfloat16", "fp8e5m2": "float8_e5m2",
               "fp8e4m3fn": "float8_e4m3fn", "fp8e8m0": "float8_e8m0fnu", "f64": "float64",
               "s32": "int32", "s8": "int8", "u8": "uint8", "s64": "int64", "bool": "bool",
               "c64": "complex64"}


def host_cast(values: np.ndarray, src: DT, dst: DT) -> np.ndarray:
    """The NumPy/ml_dtypes way a user casts (codecs for the types without a host dtype)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")    # complex -> real drops the imaginary part, as intended
        if INFO[dst].host is not None:
            decoded = values if INFO[src].host is not None else codecs.decode(values, src)
            return decoded.astype(INFO[dst].host)
        return codecs.encode(values, dst)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=int(os.environ.get("BENCH_MIB", 256)),
                    help="float32 side in MiB")
    ap.add_argument("--types", default=",".join(DEFAULT_TYPES))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--device", default=None, help="cpu or cuda (default: NPU_EMU_DEVICE/auto)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    be = runtime.use(args.device) if args.device else runtime.current()
    gpu = be.name == "cuda"
    stream = be.create_stream()
    n = args.mib * (1 << 20) // 4
    rng = np.random.default_rng(0)
    f32 = (rng.standard_normal(n, dtype=np.float32) * 100).astype(np.float32)
    try:
        import torch
    except Exception:
        torch = None
    cupy = None
    if gpu:
        import cupy

    f32_dev = be.malloc(f32.nbytes)
    be.copy_from_host(f32_dev, f32)
    results = []
    for name in args.types.split(","):
        dt = BY_NAME[name]
        item = INFO[dt].itemsize
        other_dev = be.malloc(n * item)
        other_host = host_cast(f32, DT.ACL_FLOAT, dt)             # also the input of "to f32"
        be.copy_from_host(other_dev, np.ascontiguousarray(other_host).view(INFO[dt].storage))
        for direction, (sdt, ddt, sptr, dptr) in {
                "f32->": (DT.ACL_FLOAT, dt, f32_dev, other_dev),
                "->f32": (dt, DT.ACL_FLOAT, other_dev, f32_dev)}.items():
            nbytes = n * (4 + item)
            launches = plan_cast(be, View(dptr, (n,), (1,), INFO[ddt].itemsize),
                                 View(sptr, (n,), (1,), INFO[sdt].itemsize), sdt, ddt)
            ours = H.median_device_seconds(be, stream, lambda: be.enqueue(launches, stream),
                                           args.repeat, warmup=1, inner=5 if gpu else 1)
            src_host = f32 if sdt == DT.ACL_FLOAT else other_host
            host_s = H.median_seconds(lambda: host_cast(src_host, sdt, ddt), max(3, args.repeat // 2),
                                      warmup=1)
            label = name + (" (codecs)" if INFO[dt].host is None else "")
            row = {"case": f"f32->{label}" if direction == "f32->" else f"{label}->f32",
                   "kernel": launches[0].kernel.name, "ours_gbps": H.gbps(nbytes, ours),
                   "numpy_gbps": H.gbps(nbytes, host_s)}
            row["vs_numpy"] = row["ours_gbps"] / row["numpy_gbps"]
            tname = TORCH_NAMES.get(name)
            if torch is not None and tname and hasattr(torch, tname) and not gpu:
                tdt = getattr(torch, tname)
                tsrc = torch.from_numpy(f32) if sdt == DT.ACL_FLOAT else torch.from_numpy(f32).to(tdt)
                tdst = torch.float32 if ddt == DT.ACL_FLOAT else tdt
                try:
                    row["torch_gbps"] = H.gbps(nbytes, H.median_seconds(lambda: tsrc.to(tdst), 3, 1))
                except Exception:
                    pass
            if gpu and INFO[dt].host is not None and INFO[dt].host.kind != "V":
                csrc = cupy.asarray(src_host)
                cdt = np.float32 if ddt == DT.ACL_FLOAT else INFO[dt].host
                row["cupy_gbps"] = H.gbps(nbytes, H.median_cupy_seconds(lambda: csrc.astype(cdt),
                                                                        args.repeat, inner=5))
            results.append(row)
        be.free(other_dev)
        be.copy_from_host(f32_dev, f32)   # "->f32" overwrote it
    cols = [("case", "case", "s"), ("ours_gbps", f"{be.name} GB/s", ".2f"),
            ("numpy_gbps", "NumPy GB/s", ".2f"), ("vs_numpy", "x NumPy", ".2f")]
    if any("torch_gbps" in r for r in results):
        cols.append(("torch_gbps", "torch GB/s", ".2f"))
    if any("cupy_gbps" in r for r in results):
        cols.append(("cupy_gbps", "CuPy GB/s", ".1f"))
    H.print_table(f"bench_cast: {args.mib} MiB of float32 <-> each type, {be.name} backend "
                  f"({be.info()['device']}), medians of {args.repeat}", results, cols)
    H.write_json(args.json, {"benchmark": "bench_cast", "mib": args.mib, "results": results,
                             "env": H.environment(be)})
    be.free(f32_dev)
    stream.destroy()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
