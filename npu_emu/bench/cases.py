"""The benchmark's cases: one entry of `OPS` per operator (its variants, dtypes, case
geometry and builder), the host data the cases start from, and the references their results
are checked against."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .common import (BenchError, Device, Refused, aclnn_api, dtype_info, dtype_of,
                     format_count, make_tensor, ok, short)
from .peers import torch_dtype

if TYPE_CHECKING:
    from .runner import Bench


# ------------------------------------------------------------------------- host data

PERIOD = 1_000_003   # inputs repeat with a prime period: an element read from the wrong place
                     # (off by a power of two, e.g. a 32-bit overflow) reads a different value


def random_storage(dt, n: int, seed: int = 0) -> np.ndarray:
    """n raw device elements of dtype dt (finite values; bf16/fp8/HiFloat8 as their bits)."""
    from npu_emu import dtypes
    info = dtype_info(dt)
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
    info = dtype_info(dt)
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
    return dtype_info(dt).itemsize


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
    aclnn = aclnn_api()
    (_, cols), (rows, _) = s.shapes["self"], s.shapes["out"]
    row = random_storage(s.dtype, cols, seed=1)
    src, out = b.device(row.nbytes), b.device(s.out_bytes)
    src.upload(row)
    self_t, out_t = make_tensor((1, cols), s.dtype, src), make_tensor((rows, cols), s.dtype, out)
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
    elif variant == "transposed_rect":   # (M, 1.025 M): 4000 x 4100 at 16.4M, no power-of-two strides
        rows = max(1, math.isqrt(numel * 40 // 41))
        shape = (rows, max(1, -(-numel // rows)))
    else:
        shape = _rows_cols(numel)
    n = shape[0] * shape[1]
    return CaseSpec("view_copy", variant, dt, n, {"src": shape, "selfRef": shape},
                    traffic=2 * n * it, out_bytes=n * it, device_bytes=2 * n * it,
                    host_bytes=2 * n * it)


def view_copy_build(b: "Bench", s: CaseSpec) -> Built:
    """aclnnInplaceCopy(selfRef contiguous, src): src contiguous, or the transpose of a
    square or (M, 1.025 M) matrix (strides (1, M)), the view InplaceCopy must gather."""
    aclnn = aclnn_api()
    rows, cols = s.shapes["src"]
    n = rows * cols
    host = random_storage(s.dtype, n, seed=2)
    src, dst = b.device(host.nbytes), b.device(host.nbytes)
    transposed = s.variant.startswith("transposed")
    if transposed:     # element (i, j) of the view is storage element i + j * rows
        expected = lambda idx: host[(idx % cols) * rows + idx // cols]   # noqa: E731
    else:
        expected = lambda idx: host[idx]   # noqa: E731
    src.upload(host)
    src_t = make_tensor((rows, cols), s.dtype, src, strides=(1, rows) if transposed else None,
                    storage=(n,))
    dst_t = make_tensor((rows, cols), s.dtype, dst)
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

def _cast_pair(variant: str, dt) -> tuple:
    """(source, destination) dtypes of a cast case: "f32->x", "x->f32" or "f64->x"."""
    if variant == "x->f32":
        return dt, dtype_of("f32")
    return dtype_of(variant.split("->")[0]), dt


def cast_spec(variant: str, dt, numel: int) -> CaseSpec:
    n = numel
    src, dst = (_item(t) for t in _cast_pair(variant, dt))
    return CaseSpec("cast", variant, dt, n, {"self": (n,), "out": (n,)},
                    traffic=n * (src + dst), out_bytes=n * dst,
                    device_bytes=n * (src + dst), host_bytes=n * (src + dst) + n * src)


def cast_build(b: "Bench", s: CaseSpec) -> Built:
    """aclnnCast between float32 (or from float64) and the case's dtype."""
    from npu_emu import dtypes
    aclnn = aclnn_api()
    n = s.numel
    src_dt, dst_dt = _cast_pair(s.variant, s.dtype)
    raw = random_storage(src_dt, n, seed=3)
    src, out = b.device(raw.nbytes), b.device(n * _item(dst_dt))
    src_values = host_values(raw, src_dt)
    dst_storage = dtype_info(dst_dt).storage

    def expected(idx):
        return np.ascontiguousarray(dtypes.encode(src_values[idx], dst_dt)).view(dst_storage)

    src.upload(raw)
    self_t, out_t = make_tensor((n,), src_dt, src), make_tensor((n,), dst_dt, out)
    op = b.planned("aclnnCast", lambda: aclnn.aclnnCastGetWorkspaceSize(self_t, dst_dt, out_t),
                   aclnn.aclnnCast)
    built = Built(op, out, dst_dt, n, expected)
    host_dst = dtype_info(dst_dt).host
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
        o = torch.empty(n, dtype=torch_dtype(torch, dst_dt), device=a.device)
        return lambda: o.copy_(a)
    built.xp_work, built.torch_work = xp, torch
    built.peer_notes.update(torch="out.copy_(src)", cupy="cupy.copyto(out, src, casting='unsafe')")
    return built


def _builtin(*dts) -> bool:
    """Every dtype has a NumPy builtin host type (what CuPy can hold)."""
    return all(dtype_info(d).host is not None and dtype_info(d).host.type.__module__ == "numpy"
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


def layout_expected(spec: Any, host_flat: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
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
    aclnn = aclnn_api()
    shape, spec = s.shapes["view"], s.geometry["spec"]
    view_n = math.prod(shape)
    host = random_storage(s.dtype, view_n, seed=4)
    public_fmt = aclFormat.ACL_FORMAT_NCHW if s.geometry["origin"] == "NCHW" else aclFormat.ACL_FORMAT_ND
    private_fmt = aclFormat[f"ACL_FORMAT_{s.geometry['layout']}"]
    nd = b.device(host.nbytes)
    nd.upload(host)
    nd_t = make_tensor(shape, s.dtype, nd, fmt=public_fmt)
    dst_shape, actual, ret = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(nd_t, private_fmt, -1)
    ok(ret, "aclnnNpuFormatCastCalculateSizeAndFormat")
    if tuple(dst_shape) != tuple(spec.storage_shape):
        raise BenchError(f"aclnnNpuFormatCastCalculateSizeAndFormat gave storage shape "
                         f"{dst_shape}, npu_emu.fractal.layout_spec {list(spec.storage_shape)}")
    storage = b.device(spec.storage_numel * _item(s.dtype))
    priv_t = make_tensor(shape, s.dtype, storage, storage=dst_shape, fmt=actual)
    forward = b.planned("aclnnNpuFormatCast",
                        lambda: aclnn.aclnnNpuFormatCastGetWorkspaceSize(nd_t, priv_t),
                        aclnn.aclnnNpuFormatCast)
    if s.variant != "NZ->ND":
        built = Built(forward, storage, s.dtype, spec.storage_numel, layout_expected(spec, host))
    else:
        forward()      # the NZ source of the measured conversion
        back = b.device(host.nbytes)
        back_t = make_tensor(shape, s.dtype, back)
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
        other = {"broadcast": (1, cols), "column": (rows, 1)}.get(variant, (rows, cols))
        other_n = math.prod(other)
        return CaseSpec(op, variant, dt, n, {"self": (rows, cols), "other": other, "out": (rows, cols)},
                        traffic=(2 * n + other_n) * it, out_bytes=n * it,
                        device_bytes=(2 * n + other_n) * it, host_bytes=(2 * n + other_n) * it)
    return spec


def binary_build(b: "Bench", s: CaseSpec) -> Built:
    """aclnnAdd (alpha 1) or aclnnMul, both inputs of the case's dtype."""
    aclnn = aclnn_api()
    shape, other_shape = s.shapes["self"], s.shapes["other"]
    n, other_n = math.prod(shape), math.prod(other_shape)
    a_raw = random_storage(s.dtype, n, seed=5)
    b_raw = random_storage(s.dtype, other_n, seed=6)
    a_dev, b_dev, out = b.device(a_raw.nbytes), b.device(b_raw.nbytes), b.device(s.out_bytes)
    a_val, b_val = host_values(a_raw, s.dtype), host_values(b_raw, s.dtype)
    storage = dtype_info(s.dtype).storage
    ufunc = np.add if s.op == "add" else np.multiply
    cols = shape[1]

    def expected(idx):
        other = idx if other_n == n else idx % cols if other_shape[0] == 1 else idx // cols
        with np.errstate(all="ignore"):
            r = ufunc(a_val[idx], b_val[other])
        return np.ascontiguousarray(r.astype(a_val.dtype)).view(storage)

    a_dev.upload(a_raw)
    b_dev.upload(b_raw)
    a_t, b_t, o_t = (make_tensor(shape, s.dtype, a_dev), make_tensor(other_shape, s.dtype, b_dev),
                     make_tensor(shape, s.dtype, out))
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
                    host_bytes=3 * n * it + 3 * n * 4,
                    flops=(8 if dtype_info(dt).kind == "complex" else 2) * side ** 3)


def matmul_build(b: "Bench", s: CaseSpec) -> Built:
    """aclnnMatmul (cube_math_type 0, KEEP_DTYPE), out of the inputs' dtype; float64 and
    complex128, which aclnnMatmul does not take, through npu_emu.array_api's matmul (our gemm
    kernels: gemm_build)."""
    if short(s.dtype) in GEMM_DTYPES:
        return gemm_build(b, s)
    aclnn = aclnn_api()
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
    a_t, b_t, o_t = (make_tensor((side, side), s.dtype, a_dev), make_tensor((side, side), s.dtype, b_dev),
                     make_tensor((side, side), s.dtype, out))
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


GEMM_DTYPES = ("f64", "c128")


def gemm_build(b: "Bench", s: CaseSpec) -> Built:
    """xp.matmul of float64 or complex128 (a new result each call): our gemm kernels, each
    output summed from +0 in ascending k (docs/array-api.md#the-matmul-of-float64-and-complex).
    The reference is that order at the sampled outputs, by NumPy's elementwise operations
    (each rounds once): equal bits. The peers are BLAS's (NumPy's and PyTorch's)."""
    import npu_emu.array_api as xp
    side = s.shapes["out"][0]
    n = side * side
    a_raw, b_raw = random_storage(s.dtype, n, seed=7), random_storage(s.dtype, n, seed=8)
    a_v = host_values(a_raw, s.dtype).reshape(side, side)
    b_v = host_values(b_raw, s.dtype).reshape(side, side)
    x, y = xp.asarray(a_v, copy=True), xp.asarray(b_v, copy=True)    # our pool, not shared
    last = _LastResult(s.dtype)
    b._scope.append(last)

    def run() -> None:
        last.array = xp.matmul(x, y)

    def expected(idx):
        rows, cols = a_v[idx // side], b_v[:, idx % side].T
        if a_v.dtype.kind != "c":
            acc = np.zeros(len(idx), a_v.dtype)
            for k in range(side):
                acc = acc + rows[:, k] * cols[:, k]
            return acc
        re, im = np.zeros(len(idx)), np.zeros(len(idx))
        for k in range(side):
            xr, xi, yr, yi = rows[:, k].real, rows[:, k].imag, cols[:, k].real, cols[:, k].imag
            re, im = re + (xr * yr - xi * yi), im + (xr * yi + xi * yr)
        out = np.empty(len(idx), a_v.dtype)
        out.real, out.imag = re, im
        return out

    built = Built(run, last, s.dtype, n, expected, on_bench_stream=False)

    def xp_work(xp_lib, asarray):
        p, q = asarray(a_v), asarray(b_v)
        o = xp_lib.empty((side, side), a_v.dtype)
        return lambda: xp_lib.matmul(p, q, out=o)

    def torch_work(torch, tensor):
        p, q = (tensor(r, s.dtype).reshape(side, side) for r in (a_raw, b_raw))
        o = torch.empty((side, side), dtype=p.dtype, device=p.device)
        return lambda: torch.matmul(p, q, out=o)
    built.xp_work, built.torch_work = xp_work, torch_work
    built.peer_notes = {"numpy": "np.matmul(a, b, out=out) (BLAS)",
                        "cupy": "cupy.matmul(a, b, out=out) (cuBLAS)",
                        "torch": "torch.matmul(a, b, out=out) (BLAS)"}
    return built


# ------------------------------------------------------------------------ array API

@dataclass(frozen=True)
class ArrayApiCase:
    """One variant of the array_api op: a namespace function of `arity` arrays; `reduces`:
    a reduction over every axis (a 0-d result); `index`: the result is an index (int64)."""
    function: str
    arity: int
    reduces: bool = False
    index: bool = False


# Every function of our math library (docs/math.md) is a case; the rest are samples.
MATH_UNARY = ("exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "atan",
              "asin", "acos", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh")
MATH_BINARY = ("pow", "atan2", "hypot", "logaddexp")
ARRAY_API_CASES = {c.function: c for c in [
    ArrayApiCase("add", 2), ArrayApiCase("multiply", 2),
    *(ArrayApiCase(f, 1) for f in MATH_UNARY), *(ArrayApiCase(f, 2) for f in MATH_BINARY),
    ArrayApiCase("sqrt", 1), ArrayApiCase("sum", 1, True),
    ArrayApiCase("mean", 1, True), ArrayApiCase("max", 1, True), ArrayApiCase("min", 1, True),
    ArrayApiCase("argmax", 1, True, index=True),
]}


# Mantissa bits of the floats: one unit in the last place, relative.
_MANTISSA_BITS = {"f64": 52, "f32": 23, "f16": 10, "bf16": 7, "fp8e4m3fn": 3, "fp8e5m2": 2}
# What the namespace promises (docs/math.md, docs/reductions.md), so what the check holds it
# to: + * sqrt max min argmax correctly rounded or exact (equal bits); the math library's
# functions within 1 ulp of the exact result (our own library, not NumPy's, which differs by
# up to an ulp; the reference is NumPy's in a wider type: _reference_type); sum and mean in
# our fixed order, within its error bound of the exact sum.
_WITHIN_AN_ULP = set(MATH_UNARY) | set(MATH_BINARY)
_SUMS = {"sum", "mean"}
# Inputs inside the functions' real domains: |x| for sqrt and the logarithms, |x| ** (y / 8)
# for pow (results of moderate size: no overflow to compare), tanh(x / 8) in (-1, 1) for asin,
# acos and atanh, 1 + |x| for acosh.
_POSITIVE_FIRST = {"sqrt", "log", "log1p", "log2", "log10", "pow"}
_DOMAIN = {"asin": lambda v: np.tanh(v / 8), "acos": lambda v: np.tanh(v / 8),
           "atanh": lambda v: np.tanh(v / 8), "acosh": lambda v: 1 + np.abs(v)}
# NumPy's (1.x and 2) and CuPy's names where the standard's differ; PyTorch has the standard's.
_LIBRARY_NAMES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2",
                  "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "pow": "power"}


def _reference_type(dtype: np.dtype) -> type:
    """The type the reference of a math function computes in: float64 for float32 (and the
    narrow floats, computed in float32), the platform's long double for float64 where it is
    wider (x86: 64 bits of mantissa; aarch64 Linux: 113), else float64 itself."""
    if dtype == np.float64 and np.finfo(np.longdouble).nmant > 52:
        return np.longdouble
    return np.float64


def array_api_spec(variant: str, dt, numel: int) -> CaseSpec:
    case = ARRAY_API_CASES[variant]
    rows, cols = _rows_cols(numel)
    n, it = rows * cols, _item(dt)
    out = (8 if case.index else it) if case.reduces else n * it
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
    info = dtype_info(s.dtype)
    if info.kind != dtypes.FLOATING:
        raise Refused(f"array_api {s.variant}", -1, f"the array_api op takes floating dtypes, "
                      f"not {info.short} (integer reductions widen their result)")
    case = ARRAY_API_CASES[s.variant]
    shape = s.shapes["x1"]
    raws = [random_storage(s.dtype, math.prod(shape), seed=9 + k) for k in range(case.arity)]
    values = [host_values(r, s.dtype).reshape(shape) for r in raws]
    if s.variant in _POSITIVE_FIRST:
        values[0] = np.abs(values[0])
    if s.variant in _DOMAIN:   # in the type's own precision (float32 for the narrow ones)
        values[0] = host_values(dtypes.encode(_DOMAIN[s.variant](values[0]).reshape(-1), s.dtype),
                                s.dtype).reshape(shape)
    if s.variant == "pow":
        raws[1] = dtypes.encode(host_values(raws[1], s.dtype) / np.float32(8), s.dtype)
        values[1] = host_values(raws[1], s.dtype).reshape(shape)
    if s.variant in _POSITIVE_FIRST or s.variant in _DOMAIN:
        raws[0] = dtypes.encode(values[0].reshape(-1), s.dtype)     # the peers' inputs too
    dtype = {d.acl_dtype: d for d in vars(xp).values() if isinstance(d, xp.DType)}[s.dtype]
    args = [xp.asarray(v, dtype=dtype, copy=True) for v in values]   # our pool, not shared
    fn = getattr(xp, case.function)
    lib_name = _LIBRARY_NAMES.get(case.function, case.function)   # NumPy's and CuPy's
    ufunc = getattr(np, lib_name)
    narrow = info.bits < 32
    calc = [v.astype(np.float32) for v in values] if narrow else values
    out_dtype = dtypes.aclDataType.ACL_INT64 if case.index else s.dtype
    last = _LastResult(out_dtype)
    whole: list[np.ndarray] = []

    def run() -> None:
        last.array = fn(*args)

    # The exact results (float64 holds them for these inputs), for the cases held to a
    # bound rather than to equal bits.
    exact = s.variant in _WITHIN_AN_ULP or s.variant in _SUMS
    wide = [v.astype(_reference_type(v.dtype)) for v in calc] if exact else calc

    def expected(idx):
        with np.errstate(all="ignore"):
            if case.reduces:
                if not whole:
                    value = np.asarray(ufunc(wide[0])).reshape(1)
                    whole.append(value.astype(np.int64) if case.index else
                                 dtypes.encode(value.astype(calc[0].dtype), s.dtype))
                return whole[0][idx]
            return dtypes.encode(ufunc(*(v.reshape(-1)[idx] for v in wide)).astype(calc[0].dtype),
                                 s.dtype)

    # A sum's bound: the fixed order's error, (67 + log2 leaves) units of float32 rounding
    # times the sum of magnitudes, with room (docs/reductions.md); mean: the same over n.
    magnitude = float(np.sum(np.abs(wide[0]))) / (s.numel if s.variant == "mean" else 1) \
        if s.variant in _SUMS else 0.0

    def within_bound(got, want, idx):
        g = host_values(np.asarray(got), s.dtype).astype(np.float64)
        w = host_values(np.asarray(want), s.dtype).astype(np.float64)
        ulp = 2.0 ** -_MANTISSA_BITS.get(info.short, 1)    # HiFloat8: 1 bit at the far ends
        if s.variant in _SUMS:
            bound = (96 + math.log2(max(s.numel, 2))) * 2.0 ** -24 * magnitude + ulp * np.abs(w)
        elif info.short in ("f32", "f64"):
            # Within 1 ulp of the exact result, the reference rounded from a wider type: one
            # unit of the type's spacing at the reference (two where float64's reference is
            # NumPy's float64 itself, within an ulp of its own).
            units = 1 if info.short == "f32" or _reference_type(np.dtype(np.float64)) is not np.float64 else 2
            host = np.float32 if info.short == "f32" else np.float64
            bound = units * np.spacing(np.abs(w).astype(host)).astype(np.float64)
        else:
            bound = ulp * np.abs(w) + 1e-30
        close = (np.abs(g - w) <= bound) | (g == w)
        return ~(close | (np.isnan(g) & np.isnan(w)))

    built = Built(run, last, out_dtype, 1 if case.reduces else s.numel, expected,
                  compare=within_bound if exact or (case.reduces and narrow and not case.index)
                  else None, on_bench_stream=False)
    b._scope.append(last)

    def xp_work(xp_lib, asarray):
        if xp_lib is not np and not _builtin(s.dtype):
            raise BenchError(f"CuPy has no {short(s.dtype)} type")
        inputs = [asarray(v) for v in values]
        f = getattr(xp_lib, lib_name)
        if case.reduces:
            return lambda: f(*inputs)
        # The peer writes into a preallocated output (its loop alone, no page faults of a
        # fresh 64 MiB allocation): the stricter comparison for our allocating call.
        o = xp_lib.empty(shape, values[0].dtype)
        return lambda: f(*inputs, out=o)

    def torch_work(torch, tensor):
        inputs = [tensor(r, s.dtype).reshape(shape) for r in raws]
        f = getattr(torch, case.function)
        return lambda: f(*inputs)
    built.xp_work, built.torch_work = xp_work, torch_work
    out_note = "" if case.reduces else ", out=out"
    built.peer_notes = {"numpy": f"np.{lib_name}(...{out_note})",
                        "cupy": f"cupy.{lib_name}(...{out_note})",
                        "torch": f"torch.{case.function}(...)"}
    return built


# ------------------------------------------------------- array API, whole-array functions

# Functions that read a whole array or axis at a time (their cost is not one pass of
# elementwise work): sorting (by rows, and the whole array as one lane), sets, a scan down
# the columns, a dot product per row, a norm
# per row, clip, tril; elementwise work on a transposed view (x.T + 1, where(x.T > 0, x.T,
# 0): the result in x.T's order, as NumPy's and PyTorch's) and on a reversed one (x[::-1] +
# 1: PyTorch has no negative strides, its peer is flip(t, 0) + 1); and a boolean mask made
# once (x > 0, about half the elements): x[mask], and x[mask] = 0 in x's own memory (the
# same values written each run). Each on float32 (M, N) arrays, against NumPy's and
# PyTorch's own.
# The dtypes vecdot takes besides float32 (our gemm kernels: float64 and complex).
VECDOT_ALSO = ("f64", "c64", "c128")
WHOLE_CASES = ("sort", "sort_flat", "unique_values", "cumulative_sum_axis0", "vecdot", "vector_norm", "clip",
               "add_transposed", "where_transposed", "add_reversed", "tril", "mask_select",
               "mask_fill")


def _whole_out(variant: str, rows: int, cols: int) -> tuple[int, ...]:
    if variant == "mask_select":
        return (rows * cols // 2,)         # about half: x > 0 of symmetric values
    return (rows,) if variant in ("vecdot", "vector_norm") else (rows, cols)


def whole_spec(variant: str, dt, numel: int) -> CaseSpec:
    rows, cols = _rows_cols(numel)
    n, it = rows * cols, _item(dt)
    arity = 2 if variant == "vecdot" else 1
    out = math.prod(_whole_out(variant, rows, cols)) * it
    shapes = {name: (rows, cols) for name in ("x1", "x2")[:arity]}
    shapes["out"] = _whole_out(variant, rows, cols)
    return CaseSpec("array_api_whole", variant, dt, n, shapes, traffic=arity * n * it + out,
                    out_bytes=out, device_bytes=arity * n * it + out,
                    host_bytes=2 * (arity * n * it + out))


def whole_build(b: "Bench", s: CaseSpec) -> Built:
    """The function through npu_emu.array_api as a user calls it (a new result each call).
    The reference is NumPy's on the same values: equal bits for sort, unique_values (the
    inputs repeat every PERIOD elements: as many values as that), the float32 running sum
    down the columns, clip, tril and the two mask cases; vecdot and vector_norm within their
    sums' bound of float64's result (vecdot is the cube's product of a row by a column)."""
    import npu_emu.array_api as xp
    from npu_emu import dtypes
    if short(s.dtype) != "f32" and not (short(s.dtype) in VECDOT_ALSO and s.variant == "vecdot"):
        raise Refused(f"array_api_whole {s.variant}", -1,
                      "the array_api_whole op takes f32 (and f64, c64, c128 for vecdot)")
    shape, variant = s.shapes["x1"], s.variant
    arity = 2 if variant == "vecdot" else 1
    raws = [random_storage(s.dtype, math.prod(shape), seed=9 + k) for k in range(arity)]
    values = [host_values(r, s.dtype).reshape(shape) for r in raws]
    args = [xp.asarray(v, copy=True) for v in values]       # our pool, not shared
    mask = values[0].real > 0      # the mask cases' (float32); .real: complex has no order
    m = xp.asarray(mask, copy=True)
    flat = xp.reshape(args[0], (-1,))

    def fill():
        args[0][m] = 0.0
        return args[0]
    ours = {"sort": lambda: xp.sort(args[0], axis=-1), "sort_flat": lambda: xp.sort(flat),
            "unique_values": lambda: xp.unique_values(args[0]),
            "cumulative_sum_axis0": lambda: xp.cumulative_sum(args[0], axis=0),
            "vecdot": lambda: xp.vecdot(args[0], args[1]),
            "vector_norm": lambda: xp.linalg.vector_norm(args[0], axis=-1),
            "clip": lambda: xp.clip(args[0], -1.0, 1.0),
            "add_transposed": lambda: args[0].T + 1.0,
            "where_transposed": lambda: xp.where(args[0].T > 0.0, args[0].T, 0.0),
            "add_reversed": lambda: args[0][::-1] + 1.0, "tril": lambda: xp.tril(args[0]),
            "mask_select": lambda: args[0][m], "mask_fill": fill}[variant]
    complex_ = dtype_info(s.dtype).kind == dtypes.COMPLEX
    v64 = [v.astype(np.complex128 if complex_ else np.float64) for v in values]
    with np.errstate(all="ignore"):
        ref = {"sort": lambda: np.sort(values[0], axis=-1),
               "sort_flat": lambda: np.sort(values[0].reshape(-1)),
               "unique_values": lambda: np.unique(values[0]),
               "cumulative_sum_axis0": lambda: np.cumsum(values[0], axis=0, dtype=np.float32),
               "vecdot": lambda: np.einsum("ij,ij->i", np.conj(v64[0]), v64[1]),
               "vector_norm": lambda: np.sqrt(np.einsum("ij,ij->i", v64[0], v64[0])),
               "clip": lambda: np.clip(values[0], -1.0, 1.0),
               "add_transposed": lambda: values[0].T + np.float32(1),
               "where_transposed": lambda: np.where(values[0].T > 0, values[0].T,
                                                    np.float32(0)),
               "add_reversed": lambda: values[0][::-1] + np.float32(1),
               "tril": lambda: np.tril(values[0]), "mask_select": lambda: values[0][mask],
               "mask_fill": lambda: np.where(mask, np.float32(0), values[0])}[variant]().reshape(-1)
    bounded = variant in ("vecdot", "vector_norm")
    # The sums' bound: their fixed orders' error, in units of the dtype, times the sum of the
    # magnitudes (float32's vecdot, the cube's: one rounding a K0 step, docs/operators.md;
    # float64's, the gemm kernels': one a k; complex: three a k, the product's two and the
    # sum's), with room.
    cols = shape[1]
    unit, steps = {"f32": (2.0 ** -24, cols / 8), "f64": (2.0 ** -53, cols),
                   "c64": (2.0 ** -24, 3 * cols), "c128": (2.0 ** -53, 3 * cols)}[short(s.dtype)]
    mag = np.einsum("ij,ij->i", np.abs(v64[0]), np.abs(v64[-1])) if bounded else None
    last = _LastResult(s.dtype)
    b._scope.append(last)

    def run() -> None:
        last.array = ours()

    def expected(idx):
        return dtypes.encode(ref[idx].astype(np.float32), s.dtype) if not bounded else ref[idx]

    def within_bound(got, want, idx):
        g = host_values(np.asarray(got), s.dtype).astype(np.complex128 if complex_ else np.float64)
        m = mag[idx] if variant == "vecdot" else np.sqrt(mag[idx])
        bound = (steps + 96) * unit * (m if variant == "vecdot" else mag[idx] / np.maximum(m, 1e-300))
        return ~((np.abs(g - want) <= bound + 2 * unit * np.abs(want)) | (g == want))

    built = Built(run, last, s.dtype, ref.size, expected,
                  compare=within_bound if bounded else None, on_bench_stream=False)

    def xp_work(xp_lib, asarray):
        a = [asarray(v) for v in values]
        if variant == "clip":
            o = xp_lib.empty(shape, values[0].dtype)
            return lambda: xp_lib.clip(a[0], -1.0, 1.0, out=o)
        if variant == "add_transposed":        # out in a.T's own order (empty_like keeps it)
            o = xp_lib.empty_like(a[0].T)
            return lambda: xp_lib.add(a[0].T, np.float32(1), out=o)
        if variant == "where_transposed":
            zero = np.float32(0)
            return lambda: xp_lib.where(a[0].T > 0, a[0].T, zero)
        if variant == "add_reversed":
            one = np.float32(1)
            return lambda: a[0][::-1] + one
        if variant in ("mask_select", "mask_fill"):
            mk = asarray(mask)
            if variant == "mask_select":
                return lambda: a[0][mk]
            return lambda: a[0].__setitem__(mk, 0.0)
        if variant == "tril":
            return lambda: xp_lib.tril(a[0])
        if variant == "vecdot":
            f = getattr(xp_lib, "vecdot", None)
            return (lambda: f(a[0], a[1])) if f is not None else \
                (lambda: xp_lib.einsum("ij,ij->i", a[0], a[1]))
        if variant == "vector_norm":
            return lambda: xp_lib.linalg.norm(a[0], axis=-1)
        if variant == "sort_flat":
            f = a[0].reshape(-1)
            return lambda: xp_lib.sort(f)
        return {"sort": lambda: xp_lib.sort(a[0], axis=-1),
                "unique_values": lambda: xp_lib.unique(a[0]),
                "cumulative_sum_axis0": lambda: xp_lib.cumsum(a[0], axis=0)}[variant]

    def torch_work(torch, tensor):
        t = [tensor(r, s.dtype).reshape(shape) for r in raws]
        tm = t[0] > 0 if variant in ("mask_select", "mask_fill") else None
        return {"sort": lambda: torch.sort(t[0], dim=-1),
                "sort_flat": lambda: torch.sort(t[0].reshape(-1)),
                "unique_values": lambda: torch.unique(t[0]),
                "cumulative_sum_axis0": lambda: torch.cumsum(t[0], 0),
                "vecdot": lambda: torch.linalg.vecdot(t[0], t[1]),
                "vector_norm": lambda: torch.linalg.vector_norm(t[0], dim=-1),
                "clip": lambda: torch.clip(t[0], -1.0, 1.0),
                "add_transposed": lambda: t[0].T + 1.0,
                "where_transposed": lambda: torch.where(t[0].T > 0, t[0].T, 0.0),
                "add_reversed": lambda: torch.flip(t[0], (0,)) + 1.0,
                "tril": lambda: torch.tril(t[0]), "mask_select": lambda: t[0][tm],
                "mask_fill": lambda: t[0].masked_fill_(tm, 0.0)}[variant]
    built.xp_work, built.torch_work = xp_work, torch_work
    built.peer_notes = {"numpy": {"clip": "np.clip(..., out=out)", "vecdot": "np.vecdot",
                                  "add_transposed": "np.add(a.T, 1, out=empty_like(a.T))",
                                  "where_transposed": "np.where(a.T > 0, a.T, 0)",
                                  "add_reversed": "a[::-1] + 1",
                                  "mask_select": "a[mask]", "mask_fill": "a[mask] = 0",
                                  "vector_norm": "np.linalg.norm(axis=-1)",
                                  "unique_values": "np.unique",
                                  "cumulative_sum_axis0": "np.cumsum(axis=0)",
                                  "sort_flat": "np.sort(a.reshape(-1))"}.get(variant, f"np.{variant}"),
                        "torch": {"vecdot": "torch.linalg.vecdot",
                                  "vector_norm": "torch.linalg.vector_norm",
                                  "unique_values": "torch.unique",
                                  "cumulative_sum_axis0": "torch.cumsum(dim=0)",
                                  "add_transposed": "t.T + 1",
                                  "where_transposed": "torch.where(t.T > 0, t.T, 0)",
                                  "add_reversed": "torch.flip(t, (0,)) + 1",
                                  "mask_select": "t[mask]",
                                  "mask_fill": "t.masked_fill_(mask, 0)",
                                  "sort_flat": "torch.sort(t.reshape(-1))"
                                  }.get(variant, f"torch.{variant}")}
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
       "transposed src view (square, or (M, 1.025 M): 4000 x 4100 at 16.4M)", "src + selfRef",
       ("contiguous", "transposed", "transposed_rect"), ("f32",), ("u8",), view_copy_spec,
       view_copy_build),
    Op("cast", "aclnnCast between float32 and the dtype, both ways, and from float64 to it",
       "self + out", ("f32->x", "x->f32", "f64->x"),
       ("f16", "bf16", "hif8", "fp8e4m3fn", "fp8e5m2"), ("hif8",),
       cast_spec, cast_build),
    Op("format_cast", "aclnnNpuFormatCast ND (M, 8190) <-> FRACTAL_NZ and NCHW (8, 50, H, W) -> "
       "NC1HWC0", "public tensor + private storage (padding included)",
       ("ND->NZ", "NZ->ND", "NCHW->NC1HWC0"), ("f16",), ("s8",), format_cast_spec,
       format_cast_build),
    Op("add", "aclnnAdd (alpha 1) of two (M, N) tensors, or (M, N) + (1, N), or (M, N) + (M, 1)",
       "self + other + out", ("contiguous", "broadcast", "column"), ("f32",), ("u8",),
       binary_spec("add"), binary_build),
    Op("mul", "aclnnMul of two (M, N) tensors", "self + other + out",
       ("contiguous",), ("f32",), ("u8",), binary_spec("mul"), binary_build),
    Op("matmul", "aclnnMatmul of two square (n, n) matrices (KEEP_DTYPE); with --dtypes f64 "
       "or c128, npu_emu.array_api's matmul (our gemm kernels, checked bit for bit against "
       "their order of sums; the peers are BLAS's); also FLOP/s",
       "self + mat2 + out", ("square",), ("f16", "f32"), ("f16",), matmul_spec, matmul_build,
       numel_cap={"cpu": 2**18, "cuda": 2**24}),
    Op("array_api", "npu_emu.array_api functions as a user calls them (eager, a new result "
       "each call): elementwise on (M, N) arrays (every function of the math library, inputs "
       "in its domain), reductions over all of them",
       "inputs + result", tuple(ARRAY_API_CASES), ("f32",), ("f32",), array_api_spec,
       array_api_build),
    Op("array_api_whole", "npu_emu.array_api functions that read a whole array or axis at a "
       "time, on (M, N) arrays: sort and cumulative_sum along an axis, sort of the whole array "
       "as one lane, unique_values, vecdot "
       "and vector_norm per row, clip, tril; add and where on x.T, add on x[::-1]; x[mask] "
       "and x[mask] = 0 with a mask of x > 0; with --dtypes f64, c64 or c128, vecdot alone (our "
       "gemm kernels' dot products; float32's is the cube's)", "inputs + result",
       WHOLE_CASES,
       ("f32",), ("f32",),
       whole_spec, whole_build),
]}
