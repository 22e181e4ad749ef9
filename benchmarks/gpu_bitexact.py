"""cuda vs cpu bit identity, one backend per process (benchmarks/run_gpu_check.sh runs it).

  python benchmarks/gpu_bitexact.py run  cpu  OUT_cpu.npz     # NPU_EMU_DEVICE from the 2nd arg
  python benchmarks/gpu_bitexact.py run  cuda OUT_cuda.npz
  python benchmarks/gpu_bitexact.py compare OUT_cpu.npz OUT_cuda.npz

Every case writes the WHOLE storage of its outputs (gaps of strided views and layout padding
included, pre-filled with 0xA5) as raw bytes, so both values and out-of-view writes are
compared: Expand, InplaceCopy on strided and misaligned views, casts to every narrow float
with subnormals and NaN payloads, mixed-dtype Add/Mul (a transposed operand walked in tiles
too), ND<->FRACTAL_NZ, aclnnMatmul on ND views
(every cube operand kind; the GPU's one-output strips against the CPU's rows). BIG=1 adds cases past
2^31 elements (the 64-bit index path; ~7 GB host and device). Deterministic inputs (fixed
seeds): both processes build the same bytes. Separate processes, so neither backend's state
(caches, plans, the current backend) can leak into the other's results.
"""
from __future__ import annotations

import hashlib
import os
import sys
import time
import traceback

import numpy as np

FILL = 0xA5


def _setup(backend: str):
    os.environ["NPU_EMU_DEVICE"] = backend
    import npu_emu
    npu_emu.set_soc(os.environ.get("BITEXACT_SOC", "Ascend950"))   # the widest dtype tables
    from npu_emu import runtime
    be = runtime.current()
    if be.name != backend:
        raise SystemExit(f"asked for {backend}, got {be.name}")
    return be


def main_run(backend: str, out: str) -> int:
    be = _setup(backend)
    import ml_dtypes  # noqa: F401
    import npu_emu
    from npu_emu import aclnn, device
    from npu_emu.dtypes import INFO, aclDataType as DT
    from npu_emu.formats import aclFormat as F
    from npu_emu.tensor import make_tensor

    results: dict[str, np.ndarray] = {}
    errors: dict[str, str] = {}
    times: dict[str, float] = {}

    def check(ret, what):
        if ret != 0:
            raise RuntimeError(f"{what}: ret {ret}: {aclnn.aclGetRecentErrMsg()}")

    def run(name, *args):
        get = getattr(aclnn, name + "GetWorkspaceSize")
        ws, ex, ret = get(*args)
        check(ret, name + "GetWorkspaceSize")
        wsp = device.empty([ws], "u8") if ws else None
        check(getattr(aclnn, name)(wsp.data if wsp else None, ws, ex, None), name)

    def filled(dt, n):
        """A device storage of n elements of dt, every byte FILL."""
        raw = np.full(n * INFO[dt].itemsize, FILL, np.uint8).view(INFO[dt].storage)
        return device.from_numpy(raw, dt)

    def over(base, shape, strides=None, offset=0, fmt="ND", storage=None):
        return make_tensor(list(shape), base.dtype, None if strides is None else list(strides),
                           offset, fmt, list(storage or base.storage_shape), base.data,
                           owner=base.owner)

    def rbits(dt, n, seed):
        rng = np.random.default_rng(seed)
        item = INFO[dt].itemsize
        raw = rng.integers(0, 256, n * item, dtype=np.uint8)
        if dt == DT.ACL_BOOL:
            raw = (raw & 1).astype(np.uint8)
        return raw.view(INFO[dt].storage)

    def probe_f32():
        rng = np.random.default_rng(0)
        centers = np.float32([0, 1, 1.5, 2**-14, 2**-15, 2**-16, 2**-24, 2**-25, 2**-22, 2**-23,
                              2**-126, 2**-127, 2**-133, 2**-149, 448, 464, 480, 57344, 61440,
                              65504, 65520, 32768, 40960, 49152, 3.4e38, 1e-40,
                              2**-6, 2**-9, 2**-10, 2**-16 * 1.5]).view(np.uint32)
        near = (centers[:, None].astype(np.int64) + np.arange(-6, 7)).reshape(-1)
        near = near[(near >= 0) & (near < 2**32)].astype(np.uint32)
        sub = np.arange(0, 1 << 23, 997, dtype=np.uint32)      # f32 subnormals
        bits = np.concatenate([near, near | 0x80000000, sub, sub | 0x80000000,
                               rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32),
                               np.uint32([0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                                          0x7FC00001, 0xFFBFFFFF, 0x7F800001, 0xFF800001,
                                          0x7FFFFFFF, 0x7FA00000])])
        return bits.view(np.float32)

    def convert(src, dst):
        """aclnnCast where this SoC's Cast table takes both dtypes, else aclnnInplaceCopy."""
        table = npu_emu.current_soc().dtypes_for("Cast")
        if src.dtype in table and dst.dtype in table:
            run("aclnnCast", src, int(dst.dtype), dst)
        else:
            run("aclnnInplaceCopy", dst, src)

    cases = []   # (name, thunk): each thunk makes one output; a failure is recorded, the rest go on

    def case(name):
        def deco(fn):
            cases.append((name, fn))
            return fn
        return deco

    # ---------------------------------------------------------------- Expand
    for dt in (DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_INT8, DT.ACL_INT64, DT.ACL_INT32, DT.ACL_BOOL,
               DT.ACL_BF16):
        @case(f"expand_{dt.name}")
        def _(dt=dt):
            src = device.from_numpy(rbits(dt, 15, 1).reshape(3, 1, 5), dt)
            out = over(filled(dt, 2 * 3 * 4 * 5), [2, 3, 4, 5])
            run("aclnnExpand", src, aclnn.aclCreateIntArray([2, 3, 4, 5]), out)
            return [out]

    @case("expand_transposed_f16")     # strided source: tiled and vector paths
    def _():
        dt = DT.ACL_FLOAT16
        src = over(device.from_numpy(rbits(dt, 64 * 48, 2), dt), [48, 1, 64], [1, 0, 48])
        out = over(filled(dt, 48 * 7 * 64), [48, 7, 64])
        run("aclnnExpand", src, aclnn.aclCreateIntArray([48, 7, 64]), out)
        return [out]

    @case("expand_misaligned_u8")      # destination offset by 1 element: scalar fallback
    def _():
        dt = DT.ACL_UINT8
        src = device.from_numpy(rbits(dt, 1, 3), dt)
        out = over(filled(dt, 1_000_003 + 1), [1_000_003], [1], 1)
        run("aclnnExpand", over(src, [1]), aclnn.aclCreateIntArray([1_000_003]), out)
        return [out]

    # ---------------------------------------------------------------- InplaceCopy on views
    for dt in (DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_UINT8, DT.ACL_INT64, DT.ACL_BF16):
        @case(f"copy_strided_{dt.name}")
        def _(dt=dt):
            src = over(device.from_numpy(rbits(dt, 17 * 33 + 5, 4), dt), [33, 17], [1, 33], 2)
            dst = over(filled(dt, 33 * 40 + 7), [33, 17], [40, 2], 3)   # stepped, padded rows
            run("aclnnInplaceCopy", dst, src)
            return [dst]

    for dt in (DT.ACL_COMPLEX64, DT.ACL_COMPLEX128):   # complex: a contiguous selfRef only
        @case(f"copy_strided_src_{dt.name}")
        def _(dt=dt):
            src = over(device.from_numpy(rbits(dt, 17 * 33 + 5, 4), dt), [33, 17], [1, 33], 2)
            dst = over(filled(dt, 33 * 17), [33, 17])
            run("aclnnInplaceCopy", dst, src)
            return [dst]

    def float_vals(dt, n, seed, scale):
        r = np.random.default_rng(seed)
        v = r.normal(0, scale, n) * np.exp2(r.integers(-30, 4, n))
        return v.astype(INFO[dt].host if INFO[dt].host is not None else np.float32)

    for sdt, ddt in ((DT.ACL_FLOAT, DT.ACL_BF16), (DT.ACL_FLOAT16, DT.ACL_FLOAT),
                     (DT.ACL_FLOAT, DT.ACL_HIFLOAT8), (DT.ACL_DOUBLE, DT.ACL_FLOAT16),
                     (DT.ACL_INT32, DT.ACL_FLOAT8_E4M3FN), (DT.ACL_FLOAT, DT.ACL_INT8),
                     (DT.ACL_BF16, DT.ACL_FLOAT8_E5M2)):
        @case(f"copy_cast_{sdt.name}_to_{ddt.name}")     # converting copy, misaligned source view
        def _(sdt=sdt, ddt=ddt):
            n = 64 * 31 + 1
            vals = float_vals(sdt, n, 5, 300) if INFO[sdt].kind == "floating" else rbits(sdt, n, 5)
            src = over(device.from_numpy(vals, sdt), [31, 64], [64, 1], 1)
            dst = over(filled(ddt, 31 * 70), [31, 64], [70, 1], 0)
            run("aclnnInplaceCopy", dst, src)
            return [dst]

    for off in (0, 1):
        @case(f"copy_big_u16_off{off}")   # large contiguous: vector path, and shifted by one
        def _(off=off):
            dt = DT.ACL_UINT16
            src = device.from_numpy(rbits(dt, (1 << 20) + 8, 6), dt)
            dst = over(filled(dt, (1 << 20) + 8), [1 << 20], [1], off)
            run("aclnnInplaceCopy", dst, over(src, [1 << 20], [1], off))
            return [dst]

    # ---------------------------------------------------------------- casts
    probe = probe_f32()
    for dt in (DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_HIFLOAT8, DT.ACL_FLOAT8_E5M2,
               DT.ACL_FLOAT8_E4M3FN, DT.ACL_FLOAT8_E8M0, DT.ACL_INT8, DT.ACL_INT32, DT.ACL_UINT8,
               DT.ACL_UINT64, DT.ACL_BOOL, DT.ACL_DOUBLE, DT.ACL_COMPLEX32, DT.ACL_COMPLEX128):
        @case(f"cast_f32_to_{dt.name}_and_back")
        def _(dt=dt):
            src = device.from_numpy(probe, DT.ACL_FLOAT)
            mid = over(filled(dt, probe.size), [probe.size])
            convert(src, mid)
            back = over(filled(DT.ACL_FLOAT, probe.size), [probe.size])
            convert(mid, back)
            return [mid, back]

    for dt in (DT.ACL_HIFLOAT8, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN, DT.ACL_FLOAT8_E8M0,
               DT.ACL_FLOAT16, DT.ACL_BF16):
        @case(f"decode_all_{dt.name}")     # every code to f32 and f64
        def _(dt=dt):
            n = 1 << (8 * INFO[dt].itemsize)
            codes = device.from_numpy(np.arange(n, dtype=INFO[dt].storage), dt)
            f32 = over(filled(DT.ACL_FLOAT, n), [n])
            f64 = over(filled(DT.ACL_DOUBLE, n), [n])
            convert(codes, f32)
            convert(codes, f64)
            return [f32, f64]

    with np.errstate(invalid="ignore"):
        probe64 = probe.astype(np.float64)
    dvals = np.concatenate([probe64,
                            np.float64([5e-324, -5e-324, 1.5e-323, 1e-310, 2.0**-25 * (1 + 2.0**-40),
                                        65519.99999999, 2.0**-24 * 1.0000001]),
                            np.uint64([0x7FF0000000000001, 0xFFF8000000000123]).view(np.float64)])
    for dt in (DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_HIFLOAT8, DT.ACL_FLOAT8_E4M3FN,
               DT.ACL_INT64, DT.ACL_UINT32):
        @case(f"cast_f64_to_{dt.name}")    # double rounding via f32, f64 subnormals, NaN payloads
        def _(dt=dt):
            src = device.from_numpy(dvals, DT.ACL_DOUBLE)
            mid = over(filled(dt, dvals.size), [dvals.size])
            convert(src, mid)
            return [mid]

    # ---------------------------------------------------------------- Add / Mul, mixed dtypes
    sub16 = np.uint16([0x0001, 0x0002, 0x03FF, 0x8001, 0x0400, 0x7BFF, 0x7C00, 0x7E01, 0xFE00])

    def operand(dt, shape, seed):
        n = int(np.prod(shape))
        info = INFO[dt]
        if info.kind == "floating" and info.itemsize == 2:
            v = rbits(dt, n, seed)
            v[: sub16.size] = sub16                 # subnormals, inf, NaN payloads
            return v.reshape(shape)
        if info.kind in ("floating", "complex"):
            r = np.random.default_rng(seed)
            v = r.normal(0, 1e3, n) * np.exp2(r.integers(-160, 20, n))
            v = (v + 1j * r.normal(0, 1, n)) if info.kind == "complex" else v
            v = v.astype(info.storage)
            v[:3] = np.array([np.nan, -np.inf, 0.0]).astype(info.storage)
            return v.reshape(shape)
        return rbits(dt, n, seed).reshape(shape)

    for i, (da, db, do) in enumerate([
            (DT.ACL_FLOAT16, DT.ACL_FLOAT, DT.ACL_FLOAT), (DT.ACL_BF16, DT.ACL_FLOAT16, DT.ACL_FLOAT),
            (DT.ACL_INT8, DT.ACL_FLOAT16, DT.ACL_FLOAT16), (DT.ACL_INT32, DT.ACL_FLOAT, DT.ACL_FLOAT),
            (DT.ACL_BOOL, DT.ACL_INT8, DT.ACL_INT8), (DT.ACL_COMPLEX64, DT.ACL_FLOAT, DT.ACL_COMPLEX64),
            (DT.ACL_FLOAT16, DT.ACL_FLOAT16, DT.ACL_FLOAT16), (DT.ACL_BF16, DT.ACL_BF16, DT.ACL_BF16),
            (DT.ACL_FLOAT, DT.ACL_DOUBLE, DT.ACL_DOUBLE), (DT.ACL_UINT8, DT.ACL_INT8, DT.ACL_INT16),
            (DT.ACL_FLOAT16, DT.ACL_FLOAT16, DT.ACL_FLOAT)]):
        @case(f"add_mul_{da.name}_{db.name}_to_{do.name}")
        def _(i=i, da=da, db=db, do=do):
            a = device.from_numpy(operand(da, (4, 1, 33), 10 + i), da)
            b = device.from_numpy(operand(db, (5, 33), 20 + i), db)
            n = 4 * 5 * 33
            kind = INFO[do].kind
            alpha_dt = {"floating": DT.ACL_FLOAT, "complex": DT.ACL_COMPLEX64}.get(kind, DT.ACL_INT32)
            alpha = {"floating": 1.5, "complex": 1.5 - 0.25j}.get(kind, 3)
            outs = []
            for op, extra in (("aclnnAdd", alpha), ("aclnnMul", None), ("aclnnAdd", 1)):
                o = over(filled(do, n), [4, 5, 33])
                if extra is None:
                    run(op, a, b, o)
                else:
                    run(op, a, b, aclnn.aclCreateScalar(extra, alpha_dt), o)
                outs.append(o)
            return outs

    @case("mul_big_f32")           # aligned contiguous: vector path
    def _():
        r = np.random.default_rng(8)
        a = device.from_numpy(r.normal(size=1 << 18).astype(np.float32), DT.ACL_FLOAT)
        b = device.from_numpy(r.normal(size=1 << 18).astype(np.float32), DT.ACL_FLOAT)
        o = over(filled(DT.ACL_FLOAT, 1 << 18), [1 << 18])
        run("aclnnMul", a, b, o)
        return [o]

    @case("add_strided_f32_to_f16")
    def _():
        r = np.random.default_rng(9)
        a = device.from_numpy(r.normal(size=1 << 18).astype(np.float32), DT.ACL_FLOAT)
        b = device.from_numpy(r.normal(size=1 << 18).astype(np.float32), DT.ACL_FLOAT)
        o = over(filled(DT.ACL_FLOAT16, 1 << 18), [1 << 17], [2], 0)
        run("aclnnAdd", over(a, [1 << 17], [2], 1), over(b, [1 << 17], [1], 3),
            aclnn.aclCreateScalar(0.3, DT.ACL_FLOAT), o)
        return [o]

    @case("add_transposed_tiled_f32")   # a transposed read: the elementwise walk in tiles
    def _():
        r = np.random.default_rng(12)
        a = device.from_numpy(r.normal(size=256 * 512).astype(np.float32), DT.ACL_FLOAT)
        b = device.from_numpy(r.normal(size=256 * 512).astype(np.float32), DT.ACL_FLOAT)
        o = over(filled(DT.ACL_FLOAT16, 256 * 512), [256, 512])
        run("aclnnAdd", over(a, [256, 512], [1, 256], 0), over(b, [256, 512]),
            aclnn.aclCreateScalar(0.75, DT.ACL_FLOAT), o)
        return [o]

    # ---------------------------------------------------------------- ND <-> FRACTAL_NZ
    for dt, shape in ((DT.ACL_FLOAT16, (2, 33, 47)), (DT.ACL_FLOAT, (37, 19)),
                      (DT.ACL_INT8, (3, 65, 70)), (DT.ACL_BF16, (1, 16, 16)),
                      (DT.ACL_FLOAT16, (4, 128, 256)), (DT.ACL_FLOAT, (2, 100, 300))):
        @case(f"nz_{dt.name}_{'x'.join(map(str, shape))}")
        def _(dt=dt, shape=shape):
            src = device.from_numpy(rbits(dt, int(np.prod(shape)), 30).reshape(shape), dt)
            sshape, actual, ret = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(
                src, int(F.ACL_FORMAT_FRACTAL_NZ), -1)
            check(ret, "CalculateSizeAndFormat ND->NZ")
            nz = over(filled(dt, int(np.prod(sshape))), shape, None, 0, actual, sshape)
            run("aclnnNpuFormatCast", src, nz)
            bshape, bact, ret = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(nz, int(F.ACL_FORMAT_ND), -1)
            check(ret, "CalculateSizeAndFormat NZ->ND")
            back = over(filled(dt, int(np.prod(bshape))), bshape, None, 0, bact, bshape)
            run("aclnnNpuFormatCast", nz, back)
            return [nz, back]

    # ---------------------------------------------------------------- aclnnMatmul (the cube)
    # ND views walked in place (edges mid-fractal, a strided out with gaps, a 1 x K by K x 1
    # batch as vecdot makes), each cube_math_type path; the GPU's one-output strips against
    # the CPU's rows of 16.
    for tag, adt, bdt, odt, math_type, sa, sb in (
            ("f32", DT.ACL_FLOAT, DT.ACL_FLOAT, DT.ACL_FLOAT, 0, (2, 37, 70), (70, 45)),
            ("hf32", DT.ACL_FLOAT, DT.ACL_FLOAT, DT.ACL_FLOAT, 1, (37, 70), (70, 45)),
            ("f32_as_f16", DT.ACL_FLOAT, DT.ACL_FLOAT, DT.ACL_FLOAT16, 2, (33, 50), (50, 20)),
            ("f16", DT.ACL_FLOAT16, DT.ACL_FLOAT16, DT.ACL_FLOAT, 0, (3, 40, 33), (3, 33, 29)),
            ("bf16", DT.ACL_BF16, DT.ACL_BF16, DT.ACL_BF16, 0, (64, 128), (128, 96)),
            ("dot_batch_f32", DT.ACL_FLOAT, DT.ACL_FLOAT, DT.ACL_FLOAT, 0, (50, 1, 300), (50, 300, 1))):
        @case(f"matmul_{tag}")
        def _(adt=adt, bdt=bdt, odt=odt, math_type=math_type, sa=sa, sb=sb):
            rng = np.random.default_rng(11)
            a = device.from_numpy(rng.normal(size=sa).astype(np.float32), DT.ACL_FLOAT)
            b = device.from_numpy(rng.normal(size=sb).astype(np.float32), DT.ACL_FLOAT)
            if adt != DT.ACL_FLOAT:
                a16, b16 = device.empty(list(sa), adt), device.empty(list(sb), bdt)
                convert(a, a16)
                convert(b, b16)
                a, b = a16, b16
            shape = np.matmul(np.zeros(sa, np.float32), np.zeros(sb, np.float32)).shape
            n = int(np.prod(shape))
            if len(shape) == 2:        # out every other element of its storage: the gaps kept
                o = over(filled(odt, 2 * n), shape, (2 * shape[1], 2), 0)
            else:
                o = over(filled(odt, n), shape)
            run("aclnnMatmul", a, b, o, math_type)
            return [o]

    # ---------------------------------------------------------------- past 2^31 (BIG=1)
    if os.environ.get("BIG", "0") == "1":
        @case("big_expand_i8_and_cast_f16")   # 64-bit strided copy; cast_any on the GPU
        def _():
            n = (1 << 31) // 5 + 17
            src = device.from_numpy(np.int8([-3, 7, 127, -128, 1]).reshape(5, 1), DT.ACL_INT8)
            out = device.empty([5, n], DT.ACL_INT8)
            run("aclnnExpand", src, aclnn.aclCreateIntArray([5, n]), out)
            half = device.empty([5, n], DT.ACL_FLOAT16)
            convert(out, half)
            return [out, half]

    def digest(t):
        """A large storage: 16 MiB from each end and every 4099th byte, hashed."""
        a = device.storage_to_numpy(t).view(np.uint8).reshape(-1)
        h = hashlib.blake2b(digest_size=32)
        for part in (a[:1 << 24], a[-(1 << 24):], a[::4099]):
            h.update(part.tobytes())
        return np.frombuffer(h.digest(), np.uint8)

    t_all = time.time()
    for name, fn in cases:
        t0 = time.time()
        try:
            outs = fn()
            be.synchronize()
            parts = [digest(t) if t.storage_numel * t.itemsize > (1 << 28) else
                     device.storage_to_numpy(t).view(np.uint8).reshape(-1) for t in outs]
            results[name] = np.concatenate(parts) if parts else np.zeros(0, np.uint8)
        except Exception as exc:   # keep going: every output reports
            errors[name] = f"{type(exc).__name__}: {exc}"[:600]
            traceback.print_exc()
        times[name] = time.time() - t0
    times["total"] = time.time() - t_all
    info = be.info()
    meta = {"__errors__": repr(errors), "__times__": repr(times), "__info__": repr(info)}
    np.savez(out, **results, **{k: np.frombuffer(v.encode(), np.uint8) for k, v in meta.items()})
    slow = sorted(times.items(), key=lambda kv: -kv[1])[:4]
    print(f"[{backend}] {len(results)} outputs in {times['total']:.1f} s, {len(errors)} errors"
          f"{': ' + '; '.join(f'{k}: {v[:200]}' for k, v in errors.items()) if errors else ''}"
          f" (slowest: {', '.join(f'{k} {v:.1f}s' for k, v in slow)})", flush=True)
    return 1 if errors else 0


def main_compare(a_path: str, b_path: str) -> int:
    a, b = np.load(a_path), np.load(b_path)
    meta = lambda z, k: bytes(z[k]).decode() if k in z.files else "?"
    for z, p in ((a, a_path), (b, b_path)):
        print(f"{os.path.basename(p)}: errors {meta(z, '__errors__')}")
    names = sorted(k for k in set(a.files) | set(b.files) if not k.startswith("__"))
    same = diff = missing = 0
    for k in names:
        if k not in a.files or k not in b.files:
            missing += 1
            print(f"  MISSING {k} (only in {'a' if k in a.files else 'b'})")
            continue
        x, y = a[k], b[k]
        if x.shape == y.shape and np.array_equal(x, y):
            same += 1
            continue
        diff += 1
        if x.shape != y.shape:
            print(f"  DIFF {k}: {x.size} vs {y.size} bytes")
            continue
        bad = np.flatnonzero(x != y)
        print(f"  DIFF {k}: {bad.size}/{x.size} bytes differ, first at byte {bad[0]}: "
              f"{x[bad[:8]].tolist()} vs {y[bad[:8]].tolist()}")
    print(f"bit-exact: {same} identical, {diff} different, {missing} missing, of {len(names)} outputs")
    errs = meta(a, "__errors__") + meta(b, "__errors__")
    return 0 if diff == 0 and missing == 0 and errs == "{}{}" else 1


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "run":
        sys.exit(main_run(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(main_compare(sys.argv[2], sys.argv[3]))
    sys.exit(__doc__)
