"""`npu-emu bench`: operator throughput on large shapes, through the public API, against the
device's own copy and against NumPy / PyTorch / CuPy doing the same work in the same run.

Every case plans one aclnn executor (phase one), marks it repeatable, and times phase two
only: medians over repeats after warm-up, CUDA events on the GPU, enqueue + stream synchronize
on the cpu backend. GB/s counts each case's minimal traffic (bytes read + written, padding of
private layouts included). The ceiling is a plain device-to-device `acl.rt.memcpy_async` of the
same traffic, measured in the same run. Results are checked against a host reference on a
sample of positions (the first, the last, around 2^31 and 2^32, and random ones).

One operator is one entry of `OPS` (its variants, dtypes, case geometry and builder); the
runner, the timers, the peers, the JSON, the summary, the markdown report and the plot are
shared. The JSON schema is `SCHEMA` (docs/benchmarks.md describes it).
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as _datetime
import gc
import importlib
import json
import math
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

SCHEMA = "npu_emu.bench/1"
LEGACY_SCHEMA = "npu_emu.bench.legacy/1"   # hand-measured tables kept as history
KiB, MiB, GiB = 2**10, 2**20, 2**30
INT32_LIMIT = 2**31                        # past this, kernels take their 64-bit index path


class BenchError(RuntimeError):
    """A failure the user should read as one line (no traceback)."""


class Refused(BenchError):
    """Phase one (or another call of the C-style layer) returned a non-zero status."""

    def __init__(self, what: str, ret: int, message: str) -> None:
        super().__init__(f"{what} returned {ret}: {message}")
        self.ret = ret


class DoesNotFit(BenchError):
    """A size that does not fit in device (or host) memory."""


# ------------------------------------------------------------------------------ sizes

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMG]?)\s*$", re.I)
_UNITS = {"": 1, "K": KiB, "M": MiB, "G": GiB}


def parse_size(text: str) -> int:
    """A number of elements: '4096', '1M' (2^20), '1.5G', '2G' (2^31)."""
    m = _SIZE_RE.match(text)
    if not m:
        raise BenchError(f"--sizes: {text!r} is not a size; write a number of elements with an "
                         f"optional K, M or G (powers of 2^10), e.g. 1M,16M,256M,2G")
    n = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    if n < 1:
        raise BenchError(f"--sizes: {text!r} is not a positive number of elements")
    return n


def format_count(n: float) -> str:
    """4194304 -> '4M', 2214592512 -> '2.06G' (powers of 2^10)."""
    for unit, scale in (("G", GiB), ("M", MiB), ("K", KiB)):
        if n >= scale:
            v = n / scale
            exact = abs(v - round(v)) < 1e-9
            return f"{v:.0f}{unit}" if exact or v >= 100 else f"{v:.3g}{unit}"
    return str(int(n))


def format_bytes(n: float) -> str:
    for unit, scale in (("TiB", 1024 * GiB), ("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= scale:
            v = n / scale
            return f"{v:.3g} {unit}" if v < 1000 else f"{v:.0f} {unit}"
    return f"{int(n)} B"


def stress_ladder(limit: int = 2**36) -> list[int]:
    """Sizes for --stress: 16M, 64M, 256M, 1G, then just past 2^31 and 2^32 (the 64-bit
    index path), then doubling; the runner stops each op where a size does not fit."""
    out = [2**24, 2**26, 2**28, 2**30, INT32_LIMIT + 2**26, 2 * INT32_LIMIT + 2**26]
    while out[-1] * 2 <= limit:
        out.append(out[-1] * 2)
    return out


# ------------------------------------------------------------------ C-style calls

def _acl():
    import npu_emu.acl as acl
    return acl


def _aclnn():
    from npu_emu import aclnn
    return aclnn


def ok(ret: int, what: str) -> None:
    """Raise Refused with the recent error message when a C-style call failed."""
    if ret != 0:
        raise Refused(what, int(ret), _aclnn().aclGetRecentErrMsg())


def _dt(name: object):
    from npu_emu.dtypes import as_dtype
    return as_dtype(name, "dtype")


def _info(dt):
    from npu_emu import dtypes
    return dtypes.info(dt)


def short(dt) -> str:
    return _info(dt).short


class Device:
    """A block of device memory from acl.rt.malloc, freed with free(); or, from `at`, a
    view of memory someone else owns (an array's), which free() leaves alone."""

    def __init__(self, nbytes: int) -> None:
        acl = _acl()
        self.nbytes = max(int(nbytes), 1)
        ptr, ret = acl.rt.malloc(self.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        if ret != 0:
            raise DoesNotFit(f"acl.rt.malloc({format_bytes(self.nbytes)}) returned {ret}: "
                             f"{acl.get_recent_err_msg()}")
        self.ptr, self.owned = int(ptr), True

    @classmethod
    def at(cls, ptr: int, nbytes: int) -> "Device":
        mem = cls.__new__(cls)
        mem.ptr, mem.nbytes, mem.owned = int(ptr), int(nbytes), False
        return mem

    def upload(self, host: np.ndarray) -> None:
        acl = _acl()
        host = np.ascontiguousarray(host)
        ok(acl.rt.memcpy(self.ptr, self.nbytes, host, host.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE),
           "aclrtMemcpy (host to device)")
        # The bench stream does not wait for the default stream: let the copy land first.
        ok(acl.rt.synchronize_device(), "aclrtSynchronizeDevice")

    def fill(self, byte: int) -> None:
        acl = _acl()
        ok(acl.rt.memset(self.ptr, self.nbytes, byte, self.nbytes), "aclrtMemset")
        ok(acl.rt.synchronize_device(), "aclrtSynchronizeDevice")

    def close(self) -> None:
        self.free()

    def read(self, storage: np.dtype, start: int, count: int) -> np.ndarray:
        """`count` elements of `storage` dtype from element `start` (synchronous)."""
        acl = _acl()
        out = np.empty(count, dtype=storage)
        ok(acl.rt.memcpy(out, out.nbytes, self.ptr + start * out.itemsize, out.nbytes,
                         acl.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy (device to host)")
        return out

    def free(self) -> None:
        if self.ptr and self.owned:
            ok(_acl().rt.free(self.ptr), "aclrtFree")
        self.ptr = 0


def _tensor(shape: Sequence[int], dt, mem: Device, strides: Sequence[int] | None = None,
            storage: Sequence[int] | None = None, fmt: object = None):
    """aclCreateTensor over `mem` (contiguous unless strides are given)."""
    from npu_emu import aclFormat
    aclnn = _aclnn()
    shape = [int(n) for n in shape]
    if strides is None:
        strides, step = [], 1
        for n in reversed(shape):
            strides.insert(0, step)
            step *= n
    t = aclnn.aclCreateTensor(shape, dt, list(strides), 0,
                              aclFormat.ACL_FORMAT_ND if fmt is None else fmt,
                              list(storage if storage is not None else shape), mem.ptr)
    if t is None:
        raise Refused("aclCreateTensor", -1, aclnn.aclGetRecentErrMsg())
    return t


class Planned:
    """One executor planned by phase one, repeatable, with its workspace; call() runs phase
    two on the bench stream."""

    def __init__(self, what: str, get_workspace: Callable[[], tuple], execute: Callable,
                 stream: object) -> None:
        aclnn = _aclnn()
        ws_size, executor, ret = get_workspace()
        ok(ret, what + "GetWorkspaceSize")
        ok(aclnn.aclSetAclOpExecutorRepeatable(executor), "aclSetAclOpExecutorRepeatable")
        self.what, self.execute, self.stream = what, execute, stream
        self.executor, self.ws_size = executor, int(ws_size)
        self.ws = Device(self.ws_size) if self.ws_size > 0 else None

    def __call__(self) -> None:
        ret = self.execute(self.ws.ptr if self.ws else None, self.ws_size, self.executor, self.stream)
        ok(ret, self.what)

    def close(self) -> None:
        if self.executor is not None:
            ok(_aclnn().aclDestroyAclOpExecutor(self.executor), "aclDestroyAclOpExecutor")
            self.executor = None
        if self.ws is not None:
            self.ws.free()
            self.ws = None


# ------------------------------------------------------------------------- host data

PERIOD = 1_000_003   # inputs repeat with a prime period: an element read from the wrong place
                     # (off by a power of two, e.g. a 32-bit overflow) reads a different value


def random_storage(dt, n: int, seed: int = 0) -> np.ndarray:
    """n raw device elements of dtype dt (finite values; bf16/fp8/HiFloat8 as their bits)."""
    from npu_emu import dtypes
    info = _info(dt)
    rng = np.random.default_rng(seed)
    k = max(1, min(n, PERIOD))
    if info.kind == dtypes.BOOL:
        block = rng.integers(0, 2, k).astype(np.bool_)
    elif info.kind in (dtypes.SIGNED, dtypes.UNSIGNED):
        lim = np.iinfo(info.storage)
        block = rng.integers(lim.min, lim.max, k, dtype=info.storage, endpoint=True)
    elif info.kind == dtypes.COMPLEX:
        z = (rng.standard_normal(k) + 1j * rng.standard_normal(k)).astype(np.complex64) * 8
        block = dtypes.encode(z, dt)
    else:
        v = rng.standard_normal(k, dtype=np.float32) * 8
        if info.short == "fp8e8m0":
            v = np.abs(v) + 2.0**-10      # unsigned powers of two
        block = dtypes.encode(v, dt)
    block = np.ascontiguousarray(block).view(info.storage)
    return block[:n].copy() if n <= k else np.resize(block, n)


def host_values(raw: np.ndarray, dt) -> np.ndarray:
    """Raw storage viewed as the host dtype users compute with (float32 for HiFloat8)."""
    from npu_emu import dtypes
    info = _info(dt)
    if info.host is not None:
        return raw.view(info.host)
    return dtypes.decode(raw, dt)


def same_bits(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Elementwise: the raw bytes of got differ from want's (True = mismatch)."""
    g = np.ascontiguousarray(got).view(np.uint8).reshape(len(got), -1)
    w = np.ascontiguousarray(want).view(np.uint8).reshape(len(want), -1)
    return (g != w).any(axis=1)


# --------------------------------------------------------------------- case geometry

@dataclass
class CaseSpec:
    """One case before anything is allocated: shapes, traffic and memory it will need."""
    op: str
    variant: str
    dtype: Any                      # aclDataType of the case's main operand
    numel: int                      # elements of the output (the size asked for)
    shapes: dict[str, tuple]        # operand name -> shape
    traffic: int                    # minimal bytes read + written by one run
    out_bytes: int                  # bytes of the result
    device_bytes: int               # device memory of our run (inputs, outputs, workspace)
    host_bytes: int                 # host memory (inputs kept for the peers, peer outputs)
    flops: int | None = None
    geometry: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.op} {self.variant} {short(self.dtype)} {format_count(self.numel)}"


@dataclass
class Built:
    """A case on the device, planned and ready to run. `run` enqueues on the bench stream
    (aclnn phase two); an op whose calls take no stream (an eager API) sets
    on_bench_stream=False and is timed up to acl.rt.synchronize_device instead."""
    run: Callable[[], None]                     # ours: phase two of the planned executor(s)
    out: Device                                 # the result's storage (Device.at for others')
    out_dtype: Any
    out_elements: int                           # elements of the result's storage
    expected: Callable[[np.ndarray], np.ndarray]   # storage values at flat output positions
    compare: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None
    xp_work: Callable[[Any, Callable], Callable[[], Any]] | None = None   # NumPy / CuPy
    torch_work: Callable[[Any, Callable], Callable[[], Any]] | None = None
    peer_notes: dict[str, str] = field(default_factory=dict)
    on_bench_stream: bool = True


def _item(dt) -> int:
    return _info(dt).itemsize


def _rows_cols(numel: int, cols: int = 4096) -> tuple[int, int]:
    cols = max(1, min(cols, numel))
    return -(-numel // cols), cols


# ---------------------------------------------------------------------------- expand

def expand_spec(variant: str, dt, numel: int) -> CaseSpec:
    rows, cols = _rows_cols(numel)
    it = _item(dt)
    out = rows * cols * it
    return CaseSpec("expand", variant, dt, rows * cols, {"self": (1, cols), "out": (rows, cols)},
                    traffic=out + cols * it, out_bytes=out, device_bytes=out + cols * it,
                    host_bytes=out + cols * it)


def expand_build(b: "Bench", s: CaseSpec) -> Built:
    aclnn = _aclnn()
    (_, cols), (rows, _) = s.shapes["self"], s.shapes["out"]
    row = random_storage(s.dtype, cols, seed=1)
    src, out = b.device(row.nbytes), b.device(s.out_bytes)
    src.upload(row)
    self_t, out_t = _tensor((1, cols), s.dtype, src), _tensor((rows, cols), s.dtype, out)
    size = aclnn.aclCreateIntArray([rows, cols])
    op = b.planned("aclnnExpand", lambda: aclnn.aclnnExpandGetWorkspaceSize(self_t, size, out_t),
                   aclnn.aclnnExpand)
    built = Built(op, out, s.dtype, rows * cols, lambda idx: row[idx % cols])

    def xp(xp, asarray):
        r, o = asarray(row.reshape(1, cols)), xp.empty((rows, cols), row.dtype)
        return lambda: xp.copyto(o, xp.broadcast_to(r, (rows, cols)))

    def torch(torch, tensor):
        r = tensor(row.reshape(1, cols))
        o = torch.empty((rows, cols), dtype=r.dtype, device=r.device)
        return lambda: o.copy_(r.expand(rows, cols))
    built.xp_work, built.torch_work = xp, torch
    built.peer_notes = {"numpy": "np.copyto(out, np.broadcast_to(row, shape))",
                        "torch": "out.copy_(row.expand(m, n))",
                        "cupy": "cupy.copyto(out, cupy.broadcast_to(row, shape))"}
    return built


# ------------------------------------------------------------------------- view copy

def view_copy_spec(variant: str, dt, numel: int) -> CaseSpec:
    it = _item(dt)
    if variant == "transposed":
        side = max(1, math.isqrt(numel))
        if side * side < numel:
            side += 1
        shape = (side, side)
    else:
        shape = _rows_cols(numel)
    n = shape[0] * shape[1]
    return CaseSpec("view_copy", variant, dt, n, {"src": shape, "selfRef": shape},
                    traffic=2 * n * it, out_bytes=n * it, device_bytes=2 * n * it,
                    host_bytes=2 * n * it)


def view_copy_build(b: "Bench", s: CaseSpec) -> Built:
    """aclnnInplaceCopy(selfRef contiguous, src): src contiguous, or the transpose of a
    square matrix (strides (1, side)), the view InplaceCopy must gather."""
    aclnn = _aclnn()
    rows, cols = s.shapes["src"]
    n = rows * cols
    host = random_storage(s.dtype, n, seed=2)
    src, dst = b.device(host.nbytes), b.device(host.nbytes)
    transposed = s.variant == "transposed"
    if transposed:     # element (i, j) of the view is storage element i + j * rows
        expected = lambda idx: host[(idx % cols) * rows + idx // cols]   # noqa: E731
    else:
        expected = lambda idx: host[idx]   # noqa: E731
    src.upload(host)
    src_t = _tensor((rows, cols), s.dtype, src, strides=(1, rows) if transposed else None,
                    storage=(n,))
    dst_t = _tensor((rows, cols), s.dtype, dst)
    op = b.planned("aclnnInplaceCopy", lambda: aclnn.aclnnInplaceCopyGetWorkspaceSize(dst_t, src_t),
                   aclnn.aclnnInplaceCopy)
    built = Built(op, dst, s.dtype, n, expected)

    def view(a):
        return a.reshape(cols, rows).T if transposed else a.reshape(rows, cols)

    def xp(xp, asarray):
        a, o = view(asarray(host)), xp.empty((rows, cols), host.dtype)
        return lambda: xp.copyto(o, a)

    def torch(torch, tensor):
        a = tensor(host)
        a = a.reshape(cols, rows).t() if transposed else a.reshape(rows, cols)
        o = torch.empty((rows, cols), dtype=a.dtype, device=a.device)
        return lambda: o.copy_(a)
    built.xp_work, built.torch_work = xp, torch
    built.peer_notes = {"numpy": "np.copyto(dst, src_view)", "torch": "dst.copy_(src_view)",
                        "cupy": "cupy.copyto(dst, src_view)"}
    return built


# ------------------------------------------------------------------------------ cast

def cast_spec(variant: str, dt, numel: int) -> CaseSpec:
    n = numel
    it = _item(dt)
    return CaseSpec("cast", variant, dt, n, {"self": (n,), "out": (n,)},
                    traffic=n * (4 + it), out_bytes=n * (it if variant == "f32->x" else 4),
                    device_bytes=n * (4 + it), host_bytes=n * (4 + it) + n * 4)


def cast_build(b: "Bench", s: CaseSpec) -> Built:
    """aclnnCast between float32 and the case's dtype, either way."""
    from npu_emu import dtypes
    aclnn = _aclnn()
    f32 = _dt("f32")
    n = s.numel
    to_x = s.variant == "f32->x"
    src_dt, dst_dt = (f32, s.dtype) if to_x else (s.dtype, f32)
    raw = random_storage(src_dt, n, seed=3)
    src, out = b.device(raw.nbytes), b.device(n * _item(dst_dt))
    src_values = host_values(raw, src_dt)
    dst_storage = _info(dst_dt).storage

    def expected(idx):
        return np.ascontiguousarray(dtypes.encode(src_values[idx], dst_dt)).view(dst_storage)

    src.upload(raw)
    self_t, out_t = _tensor((n,), src_dt, src), _tensor((n,), dst_dt, out)
    op = b.planned("aclnnCast", lambda: aclnn.aclnnCastGetWorkspaceSize(self_t, dst_dt, out_t),
                   aclnn.aclnnCast)
    built = Built(op, out, dst_dt, n, expected)
    host_dst = _info(dst_dt).host
    if host_dst is not None:
        def xp(xp, asarray):
            if xp is not np and not _builtin(src_dt, dst_dt):
                raise BenchError(f"CuPy has no {short(s.dtype)} type")
            a, o = asarray(src_values), xp.empty(n, host_dst)
            return lambda: xp.copyto(o, a, casting="unsafe")
        built.peer_notes["numpy"] = "np.copyto(out, src, casting='unsafe') (ml_dtypes types)"
    else:
        def xp(xp, asarray):   # HiFloat8, complex32: no library has them; our NumPy codec
            if xp is not np:
                raise BenchError(f"CuPy has no {short(s.dtype)} type")
            return lambda: dtypes.encode(src_values, dst_dt)
        built.peer_notes["numpy"] = (f"npu_emu.dtypes.encode(values, '{short(s.dtype)}') "
                                     f"(our NumPy codec: no library has the type)")

    def torch(torch, tensor):
        a = tensor(raw, src_dt)
        o = torch.empty(n, dtype=_torch_dtype(torch, dst_dt), device=a.device)
        return lambda: o.copy_(a)
    built.xp_work, built.torch_work = xp, torch
    built.peer_notes.update(torch="out.copy_(src)", cupy="cupy.copyto(out, src, casting='unsafe')")
    return built


def _builtin(*dts) -> bool:
    """Every dtype has a NumPy builtin host type (what CuPy can hold)."""
    return all(_info(d).host is not None and _info(d).host.type.__module__ == "numpy"
               for d in dts)


# ----------------------------------------------------------------------- format cast

NZ_COLS = 8190          # not a multiple of 16: padding on both axes of the fractals
NCHW_N, NCHW_C = 8, 50  # C = 50: C1 = ceil(50 / C0) with zero channels in the last block


def format_cast_spec(variant: str, dt, numel: int) -> CaseSpec:
    from npu_emu import fractal
    it = _item(dt)
    if variant == "NCHW->NC1HWC0":
        hw = max(1, math.isqrt(max(1, numel // (NCHW_N * NCHW_C))))
        shape = (NCHW_N, NCHW_C, hw, hw)
        layout, origin = "NC1HWC0", "NCHW"
    else:
        cols = NZ_COLS if numel >= 64 * NZ_COLS else 1022
        shape = (max(1, -(-numel // cols)), cols)
        layout, origin = "FRACTAL_NZ", None
    spec = fractal.layout_spec(layout, shape, dt, origin=origin)
    view_n = math.prod(shape)
    storage = spec.storage_numel * it
    out = view_n * it if variant == "NZ->ND" else storage
    # NZ->ND holds the ND source too (it makes the NZ input with one forward conversion).
    dev = view_n * it + storage + (view_n * it if variant == "NZ->ND" else 0)
    return CaseSpec("format_cast", variant, dt, view_n, {"view": shape, "storage": spec.storage_shape},
                    traffic=view_n * it + storage, out_bytes=out, device_bytes=dev,
                    host_bytes=view_n * it + 2 * storage,
                    geometry={"layout": layout, "origin": origin, "spec": spec})


def _layout_expected(spec: Any, host_flat: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Storage values of a private layout at flat storage positions, from its axes
    (npu_emu.fractal.LayoutSpec): the view element each position holds, or zero (padding)."""
    sizes = [a[2] for a in spec.axes]
    shape = spec.view_shape

    def expected(idx: np.ndarray) -> np.ndarray:
        multi = np.unravel_index(idx, sizes)
        view_idx = [np.zeros_like(idx) for _ in shape]
        for (dim, mult, _), i in zip(spec.axes, multi):
            view_idx[dim] = view_idx[dim] + i * mult
        pad = np.zeros(idx.shape, dtype=bool)
        for d, n in enumerate(shape):
            pad |= view_idx[d] >= n
        flat = np.ravel_multi_index([np.minimum(v, n - 1) for v, n in zip(view_idx, shape)], shape)
        out = host_flat[flat].copy()
        out[pad] = 0
        return out
    return expected


def format_cast_build(b: "Bench", s: CaseSpec) -> Built:
    """aclnnNpuFormatCastCalculateSizeAndFormat, then the two phases, ND/NCHW <-> private."""
    from npu_emu import aclFormat
    aclnn = _aclnn()
    shape, spec = s.shapes["view"], s.geometry["spec"]
    view_n = math.prod(shape)
    host = random_storage(s.dtype, view_n, seed=4)
    public_fmt = aclFormat.ACL_FORMAT_NCHW if s.geometry["origin"] == "NCHW" else aclFormat.ACL_FORMAT_ND
    private_fmt = aclFormat[f"ACL_FORMAT_{s.geometry['layout']}"]
    nd = b.device(host.nbytes)
    nd.upload(host)
    nd_t = _tensor(shape, s.dtype, nd, fmt=public_fmt)
    dst_shape, actual, ret = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(nd_t, private_fmt, -1)
    ok(ret, "aclnnNpuFormatCastCalculateSizeAndFormat")
    if tuple(dst_shape) != tuple(spec.storage_shape):
        raise BenchError(f"aclnnNpuFormatCastCalculateSizeAndFormat gave storage shape "
                         f"{dst_shape}, npu_emu.fractal.layout_spec {list(spec.storage_shape)}")
    storage = b.device(spec.storage_numel * _item(s.dtype))
    priv_t = _tensor(shape, s.dtype, storage, storage=dst_shape, fmt=actual)
    forward = b.planned("aclnnNpuFormatCast",
                        lambda: aclnn.aclnnNpuFormatCastGetWorkspaceSize(nd_t, priv_t),
                        aclnn.aclnnNpuFormatCast)
    if s.variant != "NZ->ND":
        built = Built(forward, storage, s.dtype, spec.storage_numel, _layout_expected(spec, host))
    else:
        forward()      # the NZ source of the measured conversion
        back = b.device(host.nbytes)
        back_t = _tensor(shape, s.dtype, back)
        reverse = b.planned("aclnnNpuFormatCast",
                            lambda: aclnn.aclnnNpuFormatCastGetWorkspaceSize(priv_t, back_t),
                            aclnn.aclnnNpuFormatCast)
        built = Built(reverse, back, s.dtype, view_n, lambda idx: host[idx])
    storage_shape = tuple(spec.storage_shape)

    def xp(xp, asarray):
        fwd, rev = _xp_layout(xp, s.variant, shape, storage_shape)
        a = asarray(host.reshape(shape))
        if s.variant == "NZ->ND":
            a = fwd(a)
            return lambda: rev(a)
        return lambda: fwd(a)

    def torch(torch, tensor):
        fwd, rev = _torch_layout(torch, s.variant, shape, storage_shape)
        a = tensor(host).reshape(shape)
        if s.variant == "NZ->ND":
            a = fwd(a)
            return lambda: rev(a)
        return lambda: fwd(a)
    built.xp_work, built.torch_work = xp, torch
    built.peer_notes = {p: "pad + reshape + transpose + contiguous copy" for p in ("numpy", "cupy", "torch")}
    return built


def _xp_layout(xp, variant: str, shape: tuple, storage: tuple):
    """(to layout, back) with NumPy-like pad / reshape / transpose."""
    if variant == "NCHW->NC1HWC0":
        n, c, h, w = shape
        _, c1, _, _, c0 = storage

        def fwd(x):
            p = xp.pad(x, [(0, 0), (0, c1 * c0 - c), (0, 0), (0, 0)])
            return xp.ascontiguousarray(p.reshape(n, c1, c0, h, w).transpose(0, 1, 3, 4, 2))
        return fwd, None
    m, k = shape
    n1, m1, m0, n0 = storage

    def fwd(x):
        p = xp.pad(x, [(0, m1 * m0 - m), (0, n1 * n0 - k)])
        return xp.ascontiguousarray(p.reshape(m1, m0, n1, n0).transpose(2, 0, 1, 3))

    def rev(y):
        return xp.ascontiguousarray(y.transpose(1, 2, 0, 3).reshape(m1 * m0, n1 * n0)[:m, :k])
    return fwd, rev


def _torch_layout(torch, variant: str, shape: tuple, storage: tuple):
    pad = torch.nn.functional.pad
    if variant == "NCHW->NC1HWC0":
        n, c, h, w = shape
        _, c1, _, _, c0 = storage
        return (lambda x: pad(x, (0, 0, 0, 0, 0, c1 * c0 - c)).reshape(n, c1, c0, h, w)
                .permute(0, 1, 3, 4, 2).contiguous()), None
    m, k = shape
    n1, m1, m0, n0 = storage
    fwd = (lambda x: pad(x, (0, n1 * n0 - k, 0, m1 * m0 - m)).reshape(m1, m0, n1, n0)
           .permute(2, 0, 1, 3).contiguous())
    rev = (lambda y: y.permute(1, 2, 0, 3).reshape(m1 * m0, n1 * n0)[:m, :k].contiguous())
    return fwd, rev


# ------------------------------------------------------------------------- add, mul

def binary_spec(op: str) -> Callable[[str, Any, int], CaseSpec]:
    def spec(variant: str, dt, numel: int) -> CaseSpec:
        rows, cols = _rows_cols(numel)
        it = _item(dt)
        n = rows * cols
        other = (1, cols) if variant == "broadcast" else (rows, cols)
        other_n = math.prod(other)
        return CaseSpec(op, variant, dt, n, {"self": (rows, cols), "other": other, "out": (rows, cols)},
                        traffic=(2 * n + other_n) * it, out_bytes=n * it,
                        device_bytes=(2 * n + other_n) * it, host_bytes=(2 * n + other_n) * it)
    return spec


def binary_build(b: "Bench", s: CaseSpec) -> Built:
    """aclnnAdd (alpha 1) or aclnnMul, both inputs of the case's dtype."""
    aclnn = _aclnn()
    shape, other_shape = s.shapes["self"], s.shapes["other"]
    n, other_n = math.prod(shape), math.prod(other_shape)
    a_raw = random_storage(s.dtype, n, seed=5)
    b_raw = random_storage(s.dtype, other_n, seed=6)
    a_dev, b_dev, out = b.device(a_raw.nbytes), b.device(b_raw.nbytes), b.device(s.out_bytes)
    a_val, b_val = host_values(a_raw, s.dtype), host_values(b_raw, s.dtype)
    storage = _info(s.dtype).storage
    ufunc = np.add if s.op == "add" else np.multiply
    cols = shape[1]

    def expected(idx):
        other = idx % cols if other_n != n else idx
        with np.errstate(all="ignore"):
            r = ufunc(a_val[idx], b_val[other])
        return np.ascontiguousarray(r.astype(a_val.dtype)).view(storage)

    a_dev.upload(a_raw)
    b_dev.upload(b_raw)
    a_t, b_t, o_t = (_tensor(shape, s.dtype, a_dev), _tensor(other_shape, s.dtype, b_dev),
                     _tensor(shape, s.dtype, out))
    if s.op == "add":
        alpha = aclnn.aclCreateScalar(1, s.dtype)
        if alpha is None:
            raise Refused("aclCreateScalar", -1, aclnn.aclGetRecentErrMsg())
        op = b.planned("aclnnAdd", lambda: aclnn.aclnnAddGetWorkspaceSize(a_t, b_t, alpha, o_t),
                       aclnn.aclnnAdd)
    else:
        op = b.planned("aclnnMul", lambda: aclnn.aclnnMulGetWorkspaceSize(a_t, b_t, o_t),
                       aclnn.aclnnMul)
    built = Built(op, out, s.dtype, n, expected)
    name = "add" if s.op == "add" else "multiply"

    def xp(xp, asarray):
        if xp is not np and not _builtin(s.dtype):
            raise BenchError(f"CuPy has no {short(s.dtype)} type")
        x, y = asarray(a_val.reshape(shape)), asarray(b_val.reshape(other_shape))
        o = xp.empty(shape, a_val.dtype)
        f = getattr(xp, name)
        return lambda: f(x, y, out=o)

    def torch(torch, tensor):
        x, y = tensor(a_raw, s.dtype).reshape(shape), tensor(b_raw, s.dtype).reshape(other_shape)
        o = torch.empty(shape, dtype=x.dtype, device=x.device)
        f = torch.add if s.op == "add" else torch.mul
        return lambda: f(x, y, out=o)
    built.xp_work, built.torch_work = xp, torch
    built.peer_notes = {"numpy": f"np.{name}(a, b, out=out)", "cupy": f"cupy.{name}(a, b, out=out)",
                        "torch": f"torch.{'add' if s.op == 'add' else 'mul'}(a, b, out=out)"}
    return built


# --------------------------------------------------------------------------- matmul

def matmul_spec(variant: str, dt, numel: int) -> CaseSpec:
    side = max(16, math.isqrt(numel))
    it = _item(dt)
    n = side * side
    return CaseSpec("matmul", variant, dt, n, {"self": (side, side), "mat2": (side, side),
                                               "out": (side, side)},
                    traffic=3 * n * it, out_bytes=n * it, device_bytes=6 * n * it + 3 * n * 4,
                    host_bytes=3 * n * it + 3 * n * 4, flops=2 * side ** 3)


def matmul_build(b: "Bench", s: CaseSpec) -> Built:
    """aclnnMatmul (cube_math_type 0, KEEP_DTYPE), out of the inputs' dtype."""
    aclnn = _aclnn()
    side = s.shapes["out"][0]
    n = side * side
    a_raw, b_raw = random_storage(s.dtype, n, seed=7), random_storage(s.dtype, n, seed=8)
    a64 = host_values(a_raw, s.dtype).astype(np.float64).reshape(side, side)
    b64 = host_values(b_raw, s.dtype).astype(np.float64).reshape(side, side)
    a_dev, b_dev, out = b.device(a_raw.nbytes), b.device(b_raw.nbytes), b.device(s.out_bytes)
    k0 = 8 if short(s.dtype) == "f32" else 16
    out_eps = float(np.finfo(np.float32).eps) if short(s.dtype) == "f32" else \
        {"f16": 2.0**-10, "bf16": 2.0**-7}.get(short(s.dtype), 2.0**-7)

    def expected(idx):       # float64 products of the sampled positions
        i, j = idx // side, idx % side
        return np.einsum("ij,ij->i", a64[i], b64[:, j].T)

    def compare(got, want, idx):
        # fp32 accumulation over ceil(K / K0) fractal steps, then rounding to the output dtype
        i, j = idx // side, idx % side
        mag = np.einsum("ij,ij->i", np.abs(a64[i]), np.abs(b64[:, j].T))
        tol = (-(-side // k0) + 1) * float(np.finfo(np.float32).eps) * mag + out_eps * np.abs(want)
        value = host_values(got, s.dtype).astype(np.float64)
        return ~(np.abs(value - want) <= tol + 1e-30)

    a_dev.upload(a_raw)
    b_dev.upload(b_raw)
    a_t, b_t, o_t = (_tensor((side, side), s.dtype, a_dev), _tensor((side, side), s.dtype, b_dev),
                     _tensor((side, side), s.dtype, out))
    op = b.planned("aclnnMatmul", lambda: aclnn.aclnnMatmulGetWorkspaceSize(a_t, b_t, o_t, 0),
                   aclnn.aclnnMatmul)
    built = Built(op, out, s.dtype, n, expected, compare=compare)

    def xp(xp, asarray):
        # NumPy has no fast float16/bfloat16 matmul: it gets float32 copies (not timed).
        dt = np.float32 if xp is np or not _builtin(s.dtype) else host_values(a_raw[:1], s.dtype).dtype
        x, y = asarray(a64.astype(dt)), asarray(b64.astype(dt))
        o = xp.empty((side, side), dt)
        return lambda: xp.matmul(x, y, out=o)

    def torch(torch, tensor):
        x, y = tensor(a_raw, s.dtype).reshape(side, side), tensor(b_raw, s.dtype).reshape(side, side)
        o = torch.empty((side, side), dtype=x.dtype, device=x.device)
        return lambda: torch.matmul(x, y, out=o)
    built.xp_work, built.torch_work = xp, torch
    built.peer_notes = {"numpy": "np.matmul in float32 (float32 copies of the inputs)",
                        "cupy": "cupy.matmul (float32 where CuPy lacks the type)",
                        "torch": "torch.matmul(a, b, out=out) in the case's dtype"}
    return built


# ------------------------------------------------------------------------ array API

@dataclass(frozen=True)
class ArrayApiCase:
    """One variant of the array_api op: a namespace function of `arity` arrays; `reduces`:
    a reduction over every axis (a 0-d result)."""
    function: str
    arity: int
    reduces: bool = False


ARRAY_API_CASES = {c.function: c for c in [
    ArrayApiCase("add", 2), ArrayApiCase("multiply", 2), ArrayApiCase("exp", 1),
    ArrayApiCase("sqrt", 1), ArrayApiCase("sum", 1, True), ArrayApiCase("mean", 1, True),
    ArrayApiCase("max", 1, True),
]}


# Mantissa bits of the narrow floats: one unit in the last place, relative.
_MANTISSA_BITS = {"f16": 10, "bf16": 7, "fp8e4m3fn": 3, "fp8e5m2": 2}


def array_api_spec(variant: str, dt, numel: int) -> CaseSpec:
    case = ARRAY_API_CASES[variant]
    rows, cols = _rows_cols(numel)
    n, it = rows * cols, _item(dt)
    out = it if case.reduces else n * it
    shapes = {name: (rows, cols) for name in ("x1", "x2")[:case.arity]}
    shapes["out"] = () if case.reduces else (rows, cols)
    return CaseSpec("array_api", variant, dt, n, shapes, traffic=case.arity * n * it + out,
                    out_bytes=out, device_bytes=case.arity * n * it + out,
                    host_bytes=2 * (case.arity * n * it + out))


class _LastResult:
    """The `out` of an eager case: each call returns a new array, kept here; read() reads
    the latest one's storage (a Device's interface for check_result)."""

    def __init__(self, dtype) -> None:
        self.dtype, self.array = dtype, None

    def fill(self, byte: int) -> None:
        pass    # nothing to pre-fill: the result is a new array, made by the call itself

    def read(self, storage: np.dtype, start: int, count: int) -> np.ndarray:
        from npu_emu import dtypes
        import npu_emu.array_api as xp
        # 1-d first: a 0-d HiFloat8 array has no NumPy form (np.asarray refuses it)
        flat = dtypes.encode(np.asarray(xp.reshape(self.array, (-1,))), self.dtype)
        return flat[start:start + count].copy()

    def close(self) -> None:
        self.array = None


def array_api_build(b: "Bench", s: CaseSpec) -> Built:
    """The namespace function on arrays of the case's dtype (in pool memory), through
    npu_emu.array_api as a user calls it (eager: the result is a new array each call).
    The reference computes as the namespace does: the narrow floats in float32, rounded to
    their type (reductions within one unit of the type's last place: the library sums
    them in buffered chunks, in another order than one float32 array)."""
    import npu_emu.array_api as xp
    from npu_emu import dtypes
    info = _info(s.dtype)
    if info.kind != dtypes.FLOATING:
        raise Refused(f"array_api {s.variant}", -1, f"the array_api op takes floating dtypes, "
                      f"not {info.short} (integer reductions widen their result)")
    case = ARRAY_API_CASES[s.variant]
    shape = s.shapes["x1"]
    raws = [random_storage(s.dtype, math.prod(shape), seed=9 + k) for k in range(case.arity)]
    values = [host_values(r, s.dtype).reshape(shape) for r in raws]
    if s.variant == "sqrt":
        values = [np.abs(v) for v in values]
    dtype = {d.acl_dtype: d for d in vars(xp).values() if isinstance(d, xp.DType)}[s.dtype]
    args = [xp.asarray(v, dtype=dtype, copy=True) for v in values]   # our pool, not shared
    fn = getattr(xp, case.function)
    ufunc = getattr(np, case.function)         # the same name in NumPy, CuPy and PyTorch
    narrow = info.bits < 32
    calc = [v.astype(np.float32) for v in values] if narrow else values
    last = _LastResult(s.dtype)
    whole: list[np.ndarray] = []

    def run() -> None:
        last.array = fn(*args)

    def expected(idx):
        with np.errstate(all="ignore"):
            if case.reduces:
                if not whole:
                    whole.append(dtypes.encode(np.asarray(ufunc(calc[0])).reshape(1), s.dtype))
                return whole[0][idx]
            return dtypes.encode(ufunc(*(v.reshape(-1)[idx] for v in calc)), s.dtype)

    def within_an_ulp(got, want, idx):
        g = host_values(np.asarray(got), s.dtype).astype(np.float64)
        w = host_values(np.asarray(want), s.dtype).astype(np.float64)
        ulp = 2.0 ** -_MANTISSA_BITS.get(info.short, 1)    # HiFloat8: 1 bit at the far ends
        close = (np.abs(g - w) <= ulp * np.abs(w) + 1e-30) | (g == w)
        return ~(close | (np.isnan(g) & np.isnan(w)))

    built = Built(run, last, s.dtype, 1 if case.reduces else s.numel, expected,
                  compare=within_an_ulp if case.reduces and narrow else None,
                  on_bench_stream=False)
    b._scope.append(last)

    def xp_work(xp_lib, asarray):
        if xp_lib is not np and not _builtin(s.dtype):
            raise BenchError(f"CuPy has no {short(s.dtype)} type")
        inputs = [asarray(v) for v in values]
        f = getattr(xp_lib, case.function)
        if case.reduces:
            return lambda: f(*inputs)
        # The peer writes into a preallocated output (its loop alone, no page faults of a
        # fresh 64 MiB allocation): the stricter comparison for our allocating call.
        o = xp_lib.empty(shape, values[0].dtype)
        return lambda: f(*inputs, out=o)

    def torch_work(torch, tensor):
        inputs = [tensor(r, s.dtype).reshape(shape) for r in raws]
        if s.variant == "sqrt":
            inputs = [t.abs() for t in inputs]
        f = getattr(torch, case.function)
        return lambda: f(*inputs)
    built.xp_work, built.torch_work = xp_work, torch_work
    out_note = "" if case.reduces else ", out=out"
    built.peer_notes = {"numpy": f"np.{case.function}(...{out_note})",
                        "cupy": f"cupy.{case.function}(...{out_note})",
                        "torch": f"torch.{case.function}(...)"}
    return built


# -------------------------------------------------------------------------- registry

@dataclass(frozen=True)
class Op:
    """One operator of the benchmark: one entry of OPS."""
    name: str
    summary: str                         # what one run does (docs, --list)
    traffic: str                         # the bytes GB/s counts
    variants: tuple[str, ...]
    dtypes: tuple[str, ...]              # default dtypes
    stress_dtypes: tuple[str, ...]       # --stress default (1-byte types reach 2^31 elements)
    spec: Callable[[str, Any, int], CaseSpec]
    build: Callable[["Bench", CaseSpec], Built]
    numel_cap: dict[str, int] | None = None   # per backend, for default/--stress sizes
                                              # (compute-bound ops)


OPS: dict[str, Op] = {op.name: op for op in [
    Op("expand", "aclnnExpand of a (1, N) row to (M, N)", "out + self",
       ("broadcast",), ("f32",), ("u8",), expand_spec, expand_build),
    Op("view_copy", "aclnnInplaceCopy into a contiguous selfRef from a contiguous or a "
       "transposed src view", "src + selfRef",
       ("contiguous", "transposed"), ("f32",), ("u8",), view_copy_spec, view_copy_build),
    Op("cast", "aclnnCast between float32 and the dtype, both ways", "self + out",
       ("f32->x", "x->f32"), ("f16", "bf16", "hif8", "fp8e4m3fn", "fp8e5m2"), ("hif8",),
       cast_spec, cast_build),
    Op("format_cast", "aclnnNpuFormatCast ND (M, 8190) <-> FRACTAL_NZ and NCHW (8, 50, H, W) -> "
       "NC1HWC0", "public tensor + private storage (padding included)",
       ("ND->NZ", "NZ->ND", "NCHW->NC1HWC0"), ("f16",), ("s8",), format_cast_spec,
       format_cast_build),
    Op("add", "aclnnAdd (alpha 1) of two (M, N) tensors, or (M, N) + (1, N)", "self + other + out",
       ("contiguous", "broadcast"), ("f32",), ("u8",), binary_spec("add"), binary_build),
    Op("mul", "aclnnMul of two (M, N) tensors", "self + other + out",
       ("contiguous",), ("f32",), ("u8",), binary_spec("mul"), binary_build),
    Op("matmul", "aclnnMatmul of two square (n, n) matrices (KEEP_DTYPE); also FLOP/s",
       "self + mat2 + out", ("square",), ("f16", "f32"), ("f16",), matmul_spec, matmul_build,
       numel_cap={"cpu": 2**18, "cuda": 2**24}),
    Op("array_api", "npu_emu.array_api functions as a user calls them (eager, a new result "
       "each call): elementwise on (M, N) arrays, reductions over all of them",
       "inputs + result", tuple(ARRAY_API_CASES), ("f32",), ("f32",), array_api_spec,
       array_api_build),
]}


@dataclass(frozen=True)
class Goal:
    """A performance goal the summary checks (issue 13), as data."""
    backend: str
    text: str
    ops: tuple[str, ...]
    variants: tuple[str, ...] | None     # None: every variant
    metric: str                          # "ceiling", or a peer: "numpy", "torch", "cupy"
    target: float
    min_out_bytes: int


CPU_MIN = 64 * MiB    # past the last-level cache of common CPUs: memory speed, not cache speed
GOALS: tuple[Goal, ...] = (
    Goal("cpu", ">= 0.9x NumPy on broadcast copies", ("expand",), None, "numpy", 0.9, CPU_MIN),
    Goal("cpu", ">= 0.9x NumPy on contiguous copies", ("view_copy",), ("contiguous",), "numpy",
         0.9, CPU_MIN),
    Goal("cpu", ">= 2x NumPy on transposed view copies", ("view_copy",), ("transposed",),
         "numpy", 2.0, CPU_MIN),
    Goal("cpu", ">= 3x NumPy on ND -> NZ", ("format_cast",), ("ND->NZ",), "numpy", 3.0, CPU_MIN),
    # 1 / 1.2: within 1.2x of NumPy's time (the array layer's dtype handling over NumPy's
    # loops). Note: a reduction's output is one element, so only the elementwise cases reach
    # this size; the reductions' ratios are in the table.
    Goal("cpu", "within 1.2x of NumPy on elementwise array API calls (16M float32 and up)",
         ("array_api",), None, "numpy", 1 / 1.2, 64 * MiB),
    Goal("cuda", ">= 90% of the device copy at >= 256 MiB",
         ("expand", "view_copy", "cast", "format_cast"), None, "ceiling", 0.9, 256 * MiB),
    Goal("cuda", ">= 1.0x CuPy on the same views", ("view_copy",), None, "cupy", 1.0, 256 * MiB),
    Goal("cuda", ">= 1.0x PyTorch on the same views", ("view_copy",), None, "torch", 1.0, 256 * MiB),
)


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
    acl = _acl()
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
    acl = _acl()
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


# ---------------------------------------------------------------------------- peers

def _import(name: str):
    try:
        return importlib.import_module(name)
    except Exception:   # not installed, or a broken install: not a peer then
        return None


_TORCH_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
                "fp8e5m2": "float8_e5m2", "fp8e4m3fn": "float8_e4m3fn",
                "fp8e8m0": "float8_e8m0fnu", "s8": "int8", "u8": "uint8", "s16": "int16",
                "s32": "int32", "s64": "int64", "bool": "bool", "c64": "complex64",
                "c128": "complex128"}
_SIGNED = {np.dtype(np.uint16): np.int16, np.dtype(np.uint32): np.int32,
           np.dtype(np.uint64): np.int64}


def _torch_dtype(torch, dt):
    name = _TORCH_NAMES.get(short(dt))
    if name is None or not hasattr(torch, name):
        raise BenchError(f"PyTorch has no {short(dt)} type")
    return getattr(torch, name)


@dataclass
class Peer:
    name: str
    device: str
    xp: Any                          # numpy / cupy module, or torch
    sampler: Callable[[Callable[[], Any]], Callable[[int], float]]
    version: str

    def work(self, built: Built) -> Callable[[], Any]:
        if self.name == "torch":
            if built.torch_work is None:
                raise BenchError("no PyTorch form of this case")
            return built.torch_work(self.xp, self._torch_tensor)
        if built.xp_work is None:
            raise BenchError(f"no {self.name} form of this case")
        asarray = np.asarray if self.xp is np else self.xp.asarray
        return built.xp_work(self.xp, asarray)

    def _torch_tensor(self, raw: np.ndarray, dt=None):
        """A torch tensor on the peer's device from raw storage (reinterpreted as dt)."""
        torch = self.xp
        arr = np.ascontiguousarray(raw)
        if arr.dtype in _SIGNED:
            arr = arr.view(_SIGNED[arr.dtype])
        t = torch.from_numpy(arr)
        if dt is not None:
            want = _torch_dtype(torch, dt)
            if t.dtype != want:
                t = t.view(want)
        return t.to(self.device)

    def release(self) -> None:
        gc.collect()
        if self.name == "cupy":
            self.xp.get_default_memory_pool().free_all_blocks()
        elif self.name == "torch" and self.device == "cuda":
            self.xp.cuda.empty_cache()


def find_peers(backend: str) -> tuple[list[Peer], dict[str, str]]:
    """NumPy always; PyTorch and CuPy when importable, on the device of the backend."""
    peers = [Peer("numpy", "cpu", np, host_sampler, np.__version__)]
    notes: dict[str, str] = {}
    torch = _import("torch")
    if torch is None:
        notes["torch"] = "not installed"
    elif backend == "cuda" and not torch.cuda.is_available():
        notes["torch"] = f"{torch.__version__} has no CUDA here: not compared on the GPU"
    else:
        peers.append(Peer("torch", backend, torch,
                          torch_cuda_sampler if backend == "cuda" else host_sampler,
                          torch.__version__))
    if backend == "cuda":
        cupy = _import("cupy")
        if cupy is None:
            notes["cupy"] = "not installed"
        else:
            peers.append(Peer("cupy", "cuda", cupy, cupy_sampler, cupy.__version__))
    else:
        notes["cupy"] = "GPU only: not compared on the cpu backend"
    return peers, notes


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
    acl = _acl()
    ok(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream")
    ok(acl.rt.synchronize_device(), "aclrtSynchronizeDevice")   # and what ran elsewhere
    idx = sample_positions(built.out_elements)
    storage = _info(built.out_dtype).storage
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


# ------------------------------------------------------------------------- provenance

def _git_commit() -> tuple[str | None, bool | None]:
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None, None
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip() != ""
        return commit, dirty
    except (OSError, subprocess.SubprocessError):
        return None, None


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def provenance(backend: str, peers: Sequence[Peer], peer_notes: dict[str, str],
               command: str) -> dict:
    import ml_dtypes

    import npu_emu
    from npu_emu import runtime
    be = runtime.current()
    commit, dirty = _git_commit()
    info = be.info()
    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "ml_dtypes": ml_dtypes.__version__}
    for name in ("torch", "cupy"):
        peer = next((p for p in peers if p.name == name), None)
        module = sys.modules.get(name)
        versions[name] = peer.version if peer else getattr(module, "__version__", None)
    torch = sys.modules.get("torch")
    return {
        "npu_emu": npu_emu.__version__, "git_commit": commit, "git_dirty": dirty,
        "backend": backend, "device": info.get("device"), "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(), "kernel_threads": be.parallelism if backend == "cpu" else None,
        "torch_threads": torch.get_num_threads() if torch is not None else None,
        "platform": platform.platform(), "versions": versions, "peers": peer_notes,
        "soc": npu_emu.current_soc().name, "promotion_rules": npu_emu.get_promotion_rules(),
        "env": {k: os.environ.get(k) for k in ("NPU_EMU_DEVICE", "OMP_NUM_THREADS", "OMP_PROC_BIND",
                                                "OMP_PLACES")},
        "backend_info": info,
        "date": _datetime.datetime.now(_datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "load_average": load_average(),      # 1, 5, 15 min, when the run ended
    }


# --------------------------------------------------------------------------- memory

def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_budget(backend: str) -> tuple[int, int]:
    """(device bytes, host bytes) a case may use: free memory, with room to spare. On the
    cpu backend both come from the same RAM."""
    import npu_emu
    cached = npu_emu.memory_stats()["bytes_cached"]
    host = _meminfo_available()
    host = int((host if host is not None else 8 * GiB) * 0.75)
    if backend == "cuda":
        import cupy
        free, _total = cupy.cuda.runtime.memGetInfo()
        return int((free + cached) * 0.9), host
    return host + cached, host + cached


def fits(spec: CaseSpec, backend: str, budget: tuple[int, int]) -> str | None:
    """None, or why the case does not fit."""
    device, host = budget
    if backend == "cpu":
        need = spec.device_bytes + spec.host_bytes
        if need > device:
            return (f"needs {format_bytes(need)} of memory (device and host share it on the cpu "
                    f"backend), {format_bytes(device)} available")
        return None
    if spec.device_bytes > device:
        return f"needs {format_bytes(spec.device_bytes)} of device memory, {format_bytes(device)} available"
    if spec.host_bytes > host:
        return f"needs {format_bytes(spec.host_bytes)} of host memory, {format_bytes(host)} available"
    return None


# --------------------------------------------------------------------------- output

class Output:
    """Progress bar and messages (rich when importable, plain lines otherwise)."""

    def __init__(self, total: int, quiet: bool = False) -> None:
        self.total, self.done, self.quiet = total, 0, quiet
        self._progress = None
        self._stack = contextlib.ExitStack()
        rich = _import("rich.progress")
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


class Bench:
    """One run: the stream, the peers, the settings; runs cases and collects JSON."""

    def __init__(self, settings: Settings, out: Output) -> None:
        import npu_emu
        from npu_emu import runtime
        from npu_emu import status
        acl = _acl()
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
        case["ceiling"] = self.ceiling(spec.traffic).as_json(2 * (spec.traffic // 2))
        case["of_ceiling"] = case["ours"]["gbps"] / case["ceiling"]["gbps"]
        case["peers"], case["ratios"] = self.run_peers(spec, built, case["ours"]["median_s"])
        return case

    def ceiling(self, traffic: int) -> Timing:
        """A plain device-to-device copy of the same traffic (half read, half written)."""
        acl = _acl()
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

    def run_peers(self, spec: CaseSpec, built: Built, ours_s: float) -> tuple[dict, dict]:
        records, ratios = {}, {}
        for peer in self.peers:
            record: dict[str, Any] = {"device": peer.device, "note": built.peer_notes.get(peer.name, "")}
            fn = None
            try:
                fn = peer.work(built)
                t = measure(peer.sampler(fn), self.settings.policy)
                record.update(t.as_json(spec.traffic, spec.flops))
                ratios[peer.name] = t.median_s / ours_s
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
                        case = self.run_case(op, spec)
                    except DoesNotFit as exc:
                        reason = str(exc)
                    except MemoryError:       # the host side (inputs, references)
                        reason = f"host memory ran out (the case needs about {format_bytes(spec.host_bytes)})"
                    except Refused as exc:
                        reason, kind = str(exc), "refused"
                    except Exception as exc:    # a bug: reported, the run goes on
                        reason, kind = f"{type(exc).__name__}: {exc}", "error"
                        self.errors += 1
                    else:
                        self.cases.append(case)
                        if not case["check"]["ok"]:
                            self.out.message(f"{spec.label}: WRONG RESULT, "
                                             f"{case['check']['first_mismatch']}")
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

    def host_overhead(self) -> dict:
        """Phase one + phase two of a (1, 4) -> (4, 4) aclnnExpand (the launch is
        asynchronous): the host cost of one call pair, median of 15 x 200 pairs."""
        from npu_emu import device
        aclnn = _aclnn()
        x = device.from_numpy(np.ones((1, 4), np.float32))
        out = device.empty([4, 4], "f32")
        size = aclnn.aclCreateIntArray([4, 4])

        def pair() -> None:
            ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(x, size, out)
            ok(ret, "aclnnExpandGetWorkspaceSize")
            ok(aclnn.aclnnExpand(None, ws, ex, self.stream), "aclnnExpand")
        reps = 15 if not self.settings.quick else 3
        result = {"what": "aclnnExpandGetWorkspaceSize + aclnnExpand, (1,4) -> (4,4) f32",
                  "samples_us": []}
        for i in range(reps + 1):
            t0 = time.perf_counter()
            for _ in range(200):
                pair()
            dt = (time.perf_counter() - t0) / 200 * 1e6
            ok(_acl().rt.synchronize_stream(self.stream), "aclrtSynchronizeStream")
            if i:
                result["samples_us"].append(dt)        # the first round is warm-up
        result["median_us"] = statistics.median(result["samples_us"])
        torch = next((p.xp for p in self.peers if p.name == "torch" and p.device == "cpu"), None)
        if torch is not None:
            t = torch.ones(1, 4)
            s = measure(host_sampler(lambda: t.expand(4, 4).contiguous()),
                        TimingPolicy(repeat=15, warmup=2, min_sample_s=2e-3))
            result["torch_expand_contiguous_us"] = s.median_s * 1e6
        return result

    def array_layer(self) -> dict:
        """What the array API adds over the aclnn path doing the same work, on 64 MiB of
        float32 (16M elements; 1M with --quick), both synchronized, medians: broadcast_to +
        copy (x[...] = broadcast_to(row) vs aclnnExpand), astype to float16 (vs aclnnCast),
        format_cast to FRACTAL_NZ (vs aclnnNpuFormatCast), and the DLPack round trip
        NumPy -> from_dlpack -> np.from_dlpack, which copies nothing (its time does not grow
        with the size: compare the two sizes)."""
        import npu_emu.array_api as xp
        from npu_emu import device, runtime
        aclnn, acl = _aclnn(), _acl()
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
        y = xp.empty((rows, cols))

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
        return data


# ---------------------------------------------------------------------------- goals

def _metric(case: dict, metric: str) -> float | None:
    return case.get("of_ceiling") if metric == "ceiling" else case.get("ratios", {}).get(metric)


def evaluate_goals(data: dict) -> list[dict]:
    backend = data["provenance"]["backend"]
    out = []
    for g in GOALS:
        if g.backend != backend:
            continue
        rows = []
        for c in data["cases"]:
            if c["op"] in g.ops and (g.variants is None or c["variant"] in g.variants) \
                    and c["out_bytes"] >= g.min_out_bytes:
                value = _metric(c, g.metric)
                if value is not None:
                    rows.append({"case": case_label(c), "value": value, "met": value >= g.target})
        out.append({"goal": g.text, "metric": g.metric, "target": g.target,
                    "min_out_bytes": g.min_out_bytes, "cases": rows,
                    "met": all(r["met"] for r in rows) if rows else None})
    return out


def case_label(c: dict) -> str:
    return f"{c['op']} {c['variant']} {c['dtype']} {format_count(c['numel'])}"


# ----------------------------------------------------------------- summary, report

PEER_ORDER = ("numpy", "torch", "cupy")


def _fmt(v: float | None, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def _times(v: float | None) -> str:
    return "-" if v is None else (f"{v:.2f}" if v >= 0.1 else f"{v:.2g}")


def _gbps(v: float) -> str:
    return f"{v:.1f}" if v >= 1 else f"{v:.2g}"


def table_rows(data: dict) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the summary (also the markdown report's table)."""
    peers = [p for p in PEER_ORDER if any(p in c.get("ratios", {}) for c in data["cases"])]
    matmul = any(c.get("flops") for c in data["cases"])
    head = ["op", "case", "dtype", "elements", "moved", "GB/s", "copy GB/s", "of copy"]
    head += [f"x {'NumPy' if p == 'numpy' else 'PyTorch' if p == 'torch' else 'CuPy'}" for p in peers]
    stress = data.get("settings", {}).get("stress")
    head += (["GFLOP/s"] if matmul else []) + (["index", "pool peak"] if stress else []) + ["check"]
    rows = []
    for c in data["cases"]:
        row = [c["op"], c["variant"], c["dtype"], format_count(c["numel"]), format_bytes(c["bytes"]),
               _gbps(c["ours"]["gbps"]), _gbps(c["ceiling"]["gbps"]),
               _fmt(c["of_ceiling"] * 100, ".0f") + "%"]
        row += [_times(c["ratios"].get(p)) for p in peers]
        if matmul:
            row.append(_fmt(c["ours"].get("gflops"), ".1f"))
        if stress:
            row += [c["index_path"], format_bytes(c["memory"]["pool_peak_bytes"])]
        check = c["check"]
        row.append("ok" if check["ok"] else f"WRONG ({check['mismatches']}/{check['positions']})")
        rows.append(row)
    return head, rows


def goal_lines(data: dict) -> list[str]:
    lines = []
    for g in data.get("goals", []):
        if g["met"] is None:
            lines.append(f"{g['goal']}: not measured (no case of at least "
                         f"{format_bytes(g['min_out_bytes'])} output)")
            continue
        short_of = [r for r in g["cases"] if not r["met"]]
        low = min(g["cases"], key=lambda r: r["value"])
        verdict = (f"met (lowest {low['case']}: {_ratio(low['value'], g['metric'])})" if g["met"]
                   else f"NOT met on {len(short_of)} of {len(g['cases'])} cases")
        detail = "; ".join(f"{r['case']}: {_ratio(r['value'], g['metric'])}" for r in short_of[:6])
        lines.append(f"{g['goal']}: {verdict}" + (f" ({detail})" if detail else ""))
    return lines


def _ratio(v: float, metric: str) -> str:
    # Rounded down: a value short of its target never reads as the target.
    return f"{math.floor(v * 100)}%" if metric == "ceiling" else f"{math.floor(v * 100) / 100:.2f}x"


def print_summary(data: dict) -> None:
    head, rows = table_rows(data)
    p = data["provenance"]
    title = (f"npu-emu bench: {p['backend']} backend, {p['device']}; medians of "
             f"{data['settings']['policy']['repeat']} after warm-up")
    rich_table = _import("rich.table")
    if rich_table is not None:
        from rich.console import Console
        t = rich_table.Table(title=title, title_justify="left")
        for i, h in enumerate(head):
            t.add_column(h, justify="left" if i < 3 else "right", no_wrap=True)
        for r in rows:
            t.add_row(*r)
        console = Console(width=max(100, len(" ".join(head)) + 60))
        console.print(t)
    else:
        print(title)
        print(_plain_table(head, rows))
    for s in data["skipped"]:
        print(f"skipped: {s['op']} {s['variant']} {s['dtype']} {format_count(s['numel'])}: {s['reason']}")
    if "host_overhead" in data:
        print(f"host overhead: {_overhead_text(data['host_overhead'])}")
    for line in array_layer_lines(data):
        print(f"array layer: {line}")
    for line in goal_lines(data):
        print(f"goal {line}")


def _plain_table(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    fmt = lambda r: "  ".join(c.ljust(w) if i < 3 else c.rjust(w)   # noqa: E731
                              for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([fmt(head), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def array_layer_lines(data: dict) -> list[str]:
    """What the array API costs over the aclnn path (bench.array_layer), one line each."""
    layer = data.get("array_layer")
    if not layer:
        return []
    size = format_bytes(layer["bytes"])
    lines = [f"{c['case']}: {c['ratio']:.2f}x the time of {c['aclnn']} on {size}" for c in layer["cases"]]
    trips = layer["dlpack_round_trip_s"]
    lines.append("DLPack round trip NumPy -> from_dlpack -> np.from_dlpack: "
                 + ", ".join(f"{v * 1e6:.0f} us at {format_bytes(int(k))}" for k, v in trips.items())
                 + " (no copy)")
    return lines


def _overhead_text(h: dict) -> str:
    text = f"{h['median_us']:.1f} us per {h['what']}"
    if h.get("torch_expand_contiguous_us") is not None:
        text += f"; torch expand().contiguous(): {h['torch_expand_contiguous_us']:.1f} us"
    return text


def _md_table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


REPORT_COMMAND = "npu-emu bench --report benchmarks/results/*.json > benchmarks/RESULTS.md"


def render_report(datasets: Sequence[dict]) -> str:
    """benchmarks/RESULTS.md from bench JSON files (newest first) and legacy history files."""
    runs = sorted((d for d in datasets if d.get("schema") == SCHEMA),
                  key=lambda d: d["provenance"]["date"], reverse=True)
    legacy = sorted((d for d in datasets if d.get("schema") == LEGACY_SCHEMA),
                    key=lambda d: d["date"], reverse=True)
    out = ["# Measured results", "",
           "<!-- Generated from the JSON files in benchmarks/results/ by", f"     {REPORT_COMMAND}",
           "     Do not edit by hand: run the bench, add its JSON there, regenerate. -->", "",
           "Each table is one `npu-emu bench` run: GB/s counts each case's minimal traffic (bytes "
           "read + written), \"of copy\" compares with a plain device-to-device copy of the same "
           "bytes measured in the same run, \"x NumPy\" / \"x PyTorch\" / \"x CuPy\" are how many "
           "times faster than that library doing the same work in the same run (above 1: "
           "faster). Medians after warm-up. What each case does and how it is timed: "
           "[docs/benchmarks.md](../docs/benchmarks.md).", ""]
    for d in runs:
        p = d["provenance"]
        out += [f"## {p['backend']} backend, {p['date'][:10]}: {p['device']}", ""]
        v = p["versions"]
        libs = ", ".join(f"{k} {val}" for k, val in v.items() if val and k != "python")
        commit = (p["git_commit"] or "no git checkout")[:12] + (" (with local changes)" if p.get("git_dirty") else "")
        out += [f"- command: `{p['command']}`",
                f"- machine: {p['cpu_model']}, {p['cpu_count']} CPUs"
                + (f", {p['kernel_threads']} kernel threads" if p.get("kernel_threads") else "")
                + f"; {p['platform']}",
                f"- npu_emu {p['npu_emu']} at {commit}; Python {v.get('python')}, {libs}",
                f"- SoC {p['soc']}, promotion rules {p['promotion_rules']}; "
                + ", ".join(f"{k}={val}" for k, val in p["env"].items() if val)]
        if p.get("load_average_at_start") or p.get("load_average"):
            out.append(f"- load average (1, 5, 15 min) at the start "
                       f"{_load(p.get('load_average_at_start'))}, at the end {_load(p.get('load_average'))}"
                       + (f" on {p['cpu_count']} CPUs" if p.get("cpu_count") else ""))
        if p.get("note"):
            out.append(f"- note: {p['note']}")
        out.append("")
        head, rows = table_rows(d)
        out += [_md_table(head, rows), ""]
        if d.get("host_overhead"):
            out += [f"Host overhead: {_overhead_text(d['host_overhead'])}.", ""]
        if d.get("array_layer"):
            out += ["The array API over the aclnn path (same work, same run):", ""]
            out += [f"- {line}" for line in array_layer_lines(d)] + [""]
        if d["skipped"]:
            out += ["Skipped: " + "; ".join(f"{s['op']} {s['variant']} {s['dtype']} "
                                           f"{format_count(s['numel'])} ({s['reason']})"
                                           for s in d["skipped"]) + ".", ""]
        lines = goal_lines(d)
        if lines:
            out += ["Goals:", ""] + [f"- {line}" for line in lines] + [""]
        notes = {k: val for k, val in p.get("peers", {}).items()}
        if notes:
            out += ["Peers not compared: " + "; ".join(f"{k}: {val}" for k, val in notes.items()) + ".", ""]
    if legacy:
        out += ["## History", "",
                "Measured before `npu-emu bench` existed, with the scripts of that time; kept as "
                "they were recorded.", ""]
        for d in legacy:
            out += [f"### {d['title']}", "", d["machine"], ""]
            for s in d["sections"]:
                out += [f"#### {s['title']}", ""]
                if s.get("command"):
                    out += [f"`{s['command']}`", ""]
                out += [_md_table(s["columns"], s["rows"]), ""]
                for note in s.get("notes", []):
                    out += [note, ""]
    return "\n".join(out).rstrip() + "\n"


def _load(v: Sequence[float] | None) -> str:
    return "unknown" if not v else ", ".join(f"{x:g}" for x in v)


def plot(data: dict, path: str) -> None:
    """GB/s against bytes moved, one panel per op: ours solid with markers, peers in the
    same colour dashed (NumPy), dash-dotted (PyTorch) or dotted (CuPy), the device copy
    black (the median of the cases near each size)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ops = list(dict.fromkeys(c["op"] for c in data["cases"]))
    if not ops:
        raise BenchError("--plot: no measured case to plot")
    styles = dict(zip(PEER_ORDER, ("--", "-.", ":")))
    cols = min(2, len(ops))
    rows = -(-len(ops) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(7.5 * cols, 4.5 * rows), squeeze=False)
    for ax, op in zip(axes.flat, ops):
        cases = [c for c in data["cases"] if c["op"] == op]
        series: dict[str, list[dict]] = {}
        for c in cases:
            series.setdefault(f"{c['variant']} {c['dtype']}", []).append(c)
        for i, (name, cs) in enumerate(series.items()):
            cs.sort(key=lambda c: c["bytes"])
            color = f"C{i % 10}"
            ax.plot([c["bytes"] for c in cs], [c["ours"]["gbps"] for c in cs], "o-", color=color,
                    label=name)
            for peer, style in styles.items():
                pts = [(c["bytes"], c["peers"][peer]["gbps"]) for c in cs
                       if "gbps" in c["peers"].get(peer, {})]
                if pts:
                    ax.plot(*zip(*pts), linestyle=style, color=color, alpha=0.6)
        bins: dict[int, list[tuple[float, float]]] = {}
        for c in cases:       # half-octave bins of bytes moved
            bins.setdefault(round(2 * math.log2(c["bytes"])), []).append((c["bytes"], c["ceiling"]["gbps"]))
        ceil = [(statistics.median(x for x, _ in v), statistics.median(y for _, y in v))
                for _, v in sorted(bins.items())]
        ax.plot(*zip(*ceil), "-", color="black", linewidth=2, label="device copy")
        values = [c["ours"]["gbps"] for c in cases] + [y for _, y in ceil]
        if min(values) < max(values) / 100:
            ax.set_yscale("log")
        ax.set_xscale("log", base=2)
        ax.set_title(op)
        ax.set_xlabel("bytes moved per run")
        ax.set_ylabel("GB/s")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=2 if len(series) > 4 else 1, loc="best", framealpha=0.6)
    for ax in list(axes.flat)[len(ops):]:
        ax.set_visible(False)
    p = data["provenance"]
    peers = ", ".join(f"{name} {style}" for name, style in styles.items()
                      if any(name in c["peers"] for c in data["cases"]))
    fig.suptitle(f"npu-emu bench, {p['backend']} backend: {p['device']} ({p['date'][:10]}); "
                 f"solid: npu_emu, peers in the same colour: {peers}")
    fig.tight_layout(rect=(0, 0, 1, 0.97))    # room for the title
    fig.savefig(path, dpi=110)
    plt.close(fig)


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
    p.add_argument("--note", help="a line kept in the JSON and RESULTS.md (e.g. what else ran)")
    p.add_argument("--list", action="store_true", help="list the ops, variants and dtypes")


def _split(text: str | None) -> list[str] | None:
    return None if text is None else [x.strip() for x in text.split(",") if x.strip()]


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
                wanted.append(_dt(name))
            except Exception:
                raise BenchError(f"--dtypes: {name!r} is not a dtype (short names: f16, bf16, "
                                 f"f32, f64, s8, u8, s16, s32, s64, bool, hif8, fp8e4m3fn, "
                                 f"fp8e5m2, c64...)") from None
    dtypes: dict[str, list] = {}
    for o in ops:
        if wanted is not None:
            dtypes[o] = list(wanted)
        elif args.stress:
            dtypes[o] = [_dt(x) for x in OPS[o].stress_dtypes]
        elif args.quick:
            dtypes[o] = [_dt(x) for x in (OPS[o].dtypes[:1] if o != "cast" else ("f16", "hif8"))]
        else:
            dtypes[o] = [_dt(x) for x in OPS[o].dtypes]
    if args.quick:
        policy = TimingPolicy(repeat=args.repeat or 3, warmup=args.warmup or 1,
                              min_sample_s=1e-3, budget_s=args.budget or 1.0)
    else:
        policy = TimingPolicy(repeat=args.repeat or 7, warmup=args.warmup or 2,
                              budget_s=args.budget or (60.0 if args.stress else 20.0))
    if policy.repeat < 1 or policy.warmup < 1 or policy.budget_s <= 0:
        raise BenchError("--repeat and --warmup must be at least 1, --budget positive")
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
                    command="npu-emu " + " ".join(shlex.quote(a) for a in argv), note=args.note)


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
    if args.plot and _import("matplotlib") is None:
        raise BenchError("--plot needs matplotlib: pip install 'npu-emu[plot]' (or pip install "
                         "matplotlib)")
    if args.report:
        datasets = [_load_json(p) for p in args.report]
        sys.stdout.write(render_report(datasets))
        if args.plot:
            runs = [d for d in datasets if d.get("schema") == SCHEMA]
            if not runs:
                raise BenchError("--plot: no bench run among the --report files")
            plot(max(runs, key=lambda d: d["provenance"]["date"]), args.plot)
        return 0
    # Pinned OpenMP threads: unpinned runs of the cpu backend swing 2-3x. Must be set before
    # the first kernel library (and libgomp) loads.
    os.environ.setdefault("OMP_PROC_BIND", "close")
    os.environ.setdefault("OMP_PLACES", "cores")
    from npu_emu import runtime
    try:
        backend = (runtime.use(args.device) if args.device else runtime.current()).name
    except Exception as exc:
        raise BenchError(f"the {args.device or 'selected'} backend is not available: {exc}") from None
    settings = make_settings(args, backend)
    out = Output(0)
    try:
        bench = Bench(settings, out)
        bench.run()
        overhead = bench.host_overhead() if "expand" in settings.ops else None
        layer = bench.array_layer() if "array_api" in settings.ops and not settings.stress else None
    finally:
        out.close()
    data = bench.result()
    if overhead is not None:
        data["host_overhead"] = overhead
    if layer is not None:
        data["array_layer"] = layer
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
