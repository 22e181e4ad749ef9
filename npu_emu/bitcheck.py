"""A fixed, seeded battery over every kernel family, reduced to one digest per case: the same
bits on every host, thread count, ISA level and backend means the same digests.

    python -m npu_emu.bitcheck [--device cpu|cuda] [--out FILE]   # {case: sha256} as JSON
    npu-emu bitcheck --compare A.json B.json                      # the cases that differ

The tests run it under OMP_NUM_THREADS=1 and 2 and at two x86 ISA levels and compare the
digests; the GPU check compares a cpu run with a cuda run. Every case goes through the public
layers (the aclnn facade, format_cast, cube_matmul, the array API), so a digest covers the
whole path a user's call takes.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from typing import Callable, Iterator, Sequence

import numpy as np

N = 1 << 18          # elements per case: many blocks on every geometry, quick to run


def _digest(*arrays: np.ndarray) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.view(np.uint8).tobytes())
    return h.hexdigest()[:32]


def _values(rng: np.random.Generator, dt, n: int) -> np.ndarray:
    """Seeded host values of an aclDataType, with the special values of its kind mixed in."""
    from .dtypes import INFO
    info = INFO[dt]
    if info.kind == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if info.kind in ("signed", "unsigned"):
        lo, hi = np.iinfo(info.storage).min, np.iinfo(info.storage).max
        return rng.integers(lo, hi, n, dtype=info.storage, endpoint=True)
    f = rng.standard_normal(n) * np.exp2(rng.integers(-30, 30, n))
    f[: 8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3e38, -2.5]
    if info.kind == "complex":
        with np.errstate(invalid="ignore"):
            return (f + 1j * f[::-1]).astype(np.complex128)
    return f.astype(np.float32)


def _cases() -> Iterator[tuple[str, Callable[[], str]]]:
    from . import aclnn, device, format_cast, cube_matmul
    from .dtypes import INFO, aclDataType as DT
    from .kernels.cast import CAST_DTYPES

    def run(first, second, *args) -> None:
        ws, executor, ret = first(*args)
        assert ret == 0, (first.__name__, ret, aclnn.aclGetRecentErrMsg())
        buf = device.empty([ws], DT.ACL_UINT8) if ws else None
        ret = second(buf.data if buf else None, ws, executor, None)
        assert ret == 0, (second.__name__, ret, aclnn.aclGetRecentErrMsg())

    def host(t) -> np.ndarray:
        return device.storage_to_numpy(t)

    rng = np.random.default_rng(20261201)
    dtypes = sorted(CAST_DTYPES)

    # The conversion kernels: every pair of the 20 dtypes (the kernel family itself: aclnnCast
    # takes fewer pairs), contiguous.
    from . import runtime
    from .kernels.cast import plan_cast
    from .kernels.copy import View
    n = N // 4
    sources = {dt: device.from_numpy(_values(rng, dt, n), dt) if INFO[dt].host is not None
               else device.from_numpy(rng.integers(0, 256 ** INFO[dt].itemsize, n, dtype=np.uint64)
                                      .astype(INFO[dt].storage), dt)
               for dt in dtypes}
    for src in dtypes:
        def cast_from(src=src) -> str:
            be = runtime.current()
            outs = []
            for dst in dtypes:
                out = device.empty([n], dst)
                size = INFO[dst].itemsize
                launches = plan_cast(be, View(out.data, (n,), (1,), size),
                                     View(sources[src].data, (n,), (1,), INFO[src].itemsize), src, dst)
                be.enqueue(launches, be.default_stream)
                outs.append(host(out))
            return _digest(*outs)
        yield f"cast/{INFO[src].short}->*", cast_from

    # InplaceCopy: transposed, stepped and broadcast views, converting on the way.
    for src_dt, dst_dt in [(DT.ACL_FLOAT, DT.ACL_FLOAT), (DT.ACL_FLOAT, DT.ACL_FLOAT16),
                           (DT.ACL_FLOAT16, DT.ACL_BF16), (DT.ACL_COMPLEX64, DT.ACL_COMPLEX128),
                           (DT.ACL_INT64, DT.ACL_INT8), (DT.ACL_FLOAT, DT.ACL_HIFLOAT8)]:
        def copy_views(src_dt=src_dt, dst_dt=dst_dt) -> str:
            base = device.from_numpy(_values(rng, src_dt, 512 * 384), src_dt)
            transposed = device.view(base, [384, 512], [1, 384])
            out = device.empty([384, 512], dst_dt)
            run(aclnn.aclnnInplaceCopyGetWorkspaceSize, aclnn.aclnnInplaceCopy, out, transposed)
            stepped = device.view(base, [96, 256], [1024, 2], 7)
            out2 = device.empty([96, 256], dst_dt)
            run(aclnn.aclnnInplaceCopyGetWorkspaceSize, aclnn.aclnnInplaceCopy, out2, stepped)
            row = device.view(base, [200, 384], [0, 1])
            out3 = device.empty([200, 384], dst_dt)
            run(aclnn.aclnnInplaceCopyGetWorkspaceSize, aclnn.aclnnInplaceCopy, out3, row)
            return _digest(host(out), host(out2), host(out3))
        yield f"copy/{INFO[src_dt].short}->{INFO[dst_dt].short}", copy_views

    # Expand.
    def expand() -> str:
        x = device.from_numpy(_values(rng, DT.ACL_FLOAT16, 1024).reshape(1, 1024).astype(np.float16))
        out = device.empty([128, 1024], DT.ACL_FLOAT16)
        run(aclnn.aclnnExpandGetWorkspaceSize, aclnn.aclnnExpand, x,
            aclnn.aclCreateIntArray([128, 1024]), out)
        return _digest(host(out))
    yield "expand/f16", expand

    # Add (alpha 1, Axpy, Mul-then-Add) and Mul, every computing dtype, broadcast operands.
    for dt in [DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_DOUBLE, DT.ACL_INT32,
               DT.ACL_INT8, DT.ACL_UINT8, DT.ACL_INT64, DT.ACL_BOOL, DT.ACL_COMPLEX64,
               DT.ACL_COMPLEX128]:
        def arithmetic(dt=dt) -> str:
            a = device.from_numpy(_values(rng, dt, 512 * 256).reshape(512, 256), dt)
            b = device.from_numpy(_values(rng, dt, 256).reshape(1, 256), dt)
            outs = []
            kind = INFO[dt].kind
            alphas = [1, 3] if kind in ("signed", "unsigned") else [True] if kind == "bool" \
                else [1.0, -1.75] if kind != "complex" else [1.0, 0.5 - 1.25j]
            for alpha in alphas:
                out = device.empty([512, 256], dt)
                scalar_dt = {"complex": DT.ACL_COMPLEX64, "bool": DT.ACL_BOOL}.get(
                    kind, DT.ACL_INT64 if kind in ("signed", "unsigned") else DT.ACL_FLOAT)
                run(aclnn.aclnnAddGetWorkspaceSize, aclnn.aclnnAdd, a, b,
                    aclnn.aclCreateScalar(alpha, scalar_dt), out)
                outs.append(host(out))
            out = device.empty([512, 256], dt)
            run(aclnn.aclnnMulGetWorkspaceSize, aclnn.aclnnMul, a, b, out)
            outs.append(host(out))
            return _digest(*outs)
        yield f"add_mul/{INFO[dt].short}", arithmetic

    # Private layouts, both ways.
    for fmt, shape, dt in [("FRACTAL_NZ", (300, 200), DT.ACL_FLOAT16), ("FRACTAL_NZ", (130, 70), DT.ACL_FLOAT),
                           ("Zz", (96, 80), DT.ACL_BF16), ("Zn", (96, 80), DT.ACL_FLOAT16),
                           ("NC1HWC0", (2, 40, 9, 7), DT.ACL_FLOAT16)]:
        def layout(fmt=fmt, shape=shape, dt=dt) -> str:
            values = _values(rng, DT.ACL_FLOAT, int(np.prod(shape))).reshape(shape)
            x = device.from_numpy(values, dt, "NCHW" if fmt == "NC1HWC0" else "ND")
            private = format_cast(x, fmt)
            back = format_cast(private, "ND")
            return _digest(device.storage_to_numpy(private), host(back))
        yield f"format_cast/{fmt}/{INFO[dt].short}", layout

    # The cube: Matmul through aclnnMatmul, each input dtype (enough fractals that the cpu
    # backend's blocks share packed panels of B).
    for dt in [DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT]:
        def matmul(dt=dt) -> str:
            a = _values(rng, DT.ACL_FLOAT, 256 * 160).reshape(256, 160)
            b = _values(rng, DT.ACL_FLOAT, 160 * 300).reshape(160, 300)
            a, b = np.nan_to_num(a, posinf=1, neginf=-1) % 8, np.nan_to_num(b, posinf=1, neginf=-1) % 8
            ta = device.from_numpy(a.astype(INFO[dt].host), dt)
            tb = device.from_numpy(b.astype(INFO[dt].host), dt)
            out = device.empty([256, 300], dt)
            run(aclnn.aclnnMatmulGetWorkspaceSize, aclnn.aclnnMatmul, ta, tb, out, 1)
            return _digest(host(out))
        yield f"matmul/{INFO[dt].short}", matmul

    # vecdot of float32 (the cpu backend's eight outputs at a time) and of float16.
    def vecdot() -> str:
        from . import array_api as xp
        a = _values(rng, DT.ACL_FLOAT, 203 * 75).reshape(203, 75)
        b = _values(rng, DT.ACL_FLOAT, 203 * 75).reshape(203, 75)
        a, b = np.nan_to_num(a, posinf=1, neginf=-1) % 8, np.nan_to_num(b, posinf=1, neginf=-1) % 8
        outs = [np.asarray(xp.vecdot(xp.asarray(a.astype(t)), xp.asarray(b.astype(t))))
                for t in (np.float32, np.float16)]
        return _digest(*outs)
    yield "matmul/vecdot", vecdot

    # The array API: elementwise functions, where and reductions, float32 and float64.
    from . import array_api as xp
    unary = ["abs", "negative", "sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin",
             "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
             "atanh", "floor", "ceil", "trunc", "round", "sign", "square", "isnan", "isfinite"]
    binary = ["add", "subtract", "multiply", "divide", "pow", "atan2", "hypot", "maximum",
              "minimum", "floor_divide", "remainder", "logaddexp", "copysign", "less", "equal"]
    reductions = ["sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax",
                  "cumulative_sum"]
    for dtype in ("float32", "float64"):
        def array_api(dtype=dtype) -> str:
            d = getattr(xp, dtype)
            x = np.abs(_values(rng, DT.ACL_FLOAT, N).astype(dtype)) % 3 + 0.25
            y = (_values(rng, DT.ACL_FLOAT, N).astype(dtype)) % 5 - 2.5
            a, b = xp.asarray(x, dtype=d), xp.asarray(y, dtype=d)
            outs = [np.asarray(getattr(xp, name)(a)) for name in unary]
            outs += [np.asarray(getattr(xp, name)(a, b)) for name in binary]
            outs.append(np.asarray(xp.where(a < b, a, b)))        # the select kernel
            with xp.soc("Ascend910B"):     # x ** c: CANN's Pows composites (float32 there)
                outs += [np.asarray(a ** c) for c in (0.5, -0.5, 3, -1, -2)]
            m = xp.reshape(a, (256, -1))
            for name in reductions:
                fn = getattr(xp, name)
                outs.append(np.asarray(fn(m, axis=1)))
                if name != "cumulative_sum":      # it takes no axis=None on 2-d input
                    outs.append(np.asarray(fn(m)))
            return _digest(*outs)
        yield f"array_api/{dtype}", array_api
    # Integer division and remainder, whose CPU rows divide in floats (exact below 2^53; the
    # rest by the full function), and true division in float64: every width, the edges among
    # random operands.
    def array_api_integers() -> str:
        outs = []
        for dtype in ("int8", "uint8", "int16", "int32", "uint32", "int64", "uint64"):
            info = np.iinfo(dtype)
            edges = np.array([info.min, info.max, 0, 1, 2, 7, info.max // 3]
                             + ([-1, -7, info.min + 1] if info.min else []), dtype=dtype)
            x = np.concatenate([np.repeat(edges, edges.size),
                                rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True)])
            y = np.concatenate([np.tile(edges, edges.size), rng.integers(-50 if info.min else 0, 50, N).astype(dtype)])
            a, b = xp.asarray(x), xp.asarray(y)
            for name in ("floor_divide", "remainder", "divide"):   # divide: true_divide's
                outs += [np.asarray(getattr(xp, name)(a, b)), np.asarray(getattr(xp, name)(b, a)),
                         np.asarray(getattr(xp, name)(a, 7))]
        return _digest(*outs)
    yield "array_api/integers", array_api_integers
    # max and min where their flags decide: columns (side by side) and rows (one range each)
    # with a NaN, only -0 and +0, only -0, or infinities, so a kernel that keeps the NaN and
    # zero flags another way (reduce.cuh's BestFloat: integer extremes of the bits, or
    # compare-and-or flags where a 64-bit integer max is slow) must give these bits too.
    for dtype in ("float32", "float64"):
        def extremes(dtype=dtype) -> str:
            m = np.abs(_values(rng, DT.ACL_FLOAT, 64 * 96).astype(dtype)).reshape(64, 96) % 7
            m[:, 0:8] = -0.0                    # columns of zeros: -0 alone, or with +0 ...
            m[rng.integers(0, 64, 4), [0, 2, 4, 6]] = 0.0
            m[:, 8:16] *= -1                    # ... negative columns, max nearest zero
            m[rng.integers(0, 64, 6), [16, 17, 20, 33, 50, 95]] = np.nan
            m[5, 40], m[9, 41] = np.inf, -np.inf
            m[20, :] = np.where(np.arange(96) % 3 == 0, -0.0, 0.0)   # a row of zeros
            a = xp.asarray(m)
            outs = []
            for name in ("max", "min"):
                fn = getattr(xp, name)
                outs += [np.asarray(fn(a, axis=0)), np.asarray(fn(a, axis=1)),
                         np.asarray(fn(xp.asarray(np.ascontiguousarray(m.T)), axis=1)),
                         np.asarray(fn(a[:, 0:8])), np.asarray(fn(a[20:21, :]))]
            return _digest(*outs)
        yield f"array_api/extremes/{dtype}", extremes
    # matmul of float64, complex64 and complex128 (the gemm kernels): a K across two of their
    # chunks, tiles cut at the edges, a transposed operand, a batch broadcast, a matrix times
    # a vector, vecdot (conjugating; of strided rows, and of contiguous ones: K a vector's
    # lanes at a time, then the rest), NaN, infinities and -0 among the values.
    for dtype in ("float64", "complex64", "complex128"):
        def array_api_matmul(dtype=dtype) -> str:
            src = DT.ACL_COMPLEX128 if dtype.startswith("complex") else DT.ACL_DOUBLE
            x = _values(rng, src, 70 * 300).astype(dtype).reshape(70, 300)
            y = _values(rng, src, 300 * 67).astype(dtype).reshape(300, 67)
            x[3, 5], x[4, :] = np.inf, -0.0
            y[7, 9] = np.nan
            a, b = xp.asarray(x), xp.asarray(y)
            outs = [np.asarray(a @ b), np.asarray(b.mT @ a.mT),
                    np.asarray(xp.reshape(a[:60], (3, 20, 300)) @ b[:, :5]),
                    np.asarray(a @ b[:, 0]), np.asarray(xp.vecdot(a[:67], b.mT)),
                    np.asarray(xp.vecdot(a, a[::-1]))]
            return _digest(*outs)
        yield f"array_api/matmul/{dtype}", array_api_matmul
    # The complex functions (our math library's complex versions, integer pow aside).
    complex_unary = ["abs", "sqrt", "sign", "reciprocal", "round", "exp", "expm1", "log", "log1p",
                     "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
                     "tanh", "asinh", "acosh", "atanh"]
    for dtype in ("complex64", "complex128"):
        def array_api_complex(dtype=dtype) -> str:
            z = _values(rng, DT.ACL_COMPLEX128, N).astype(dtype)
            a, b = xp.asarray(z), xp.asarray(z[::-1].copy())
            outs = [np.asarray(getattr(xp, name)(a)) for name in complex_unary]
            outs += [np.asarray(xp.pow(a, b)), np.asarray(xp.divide(a, b))]
            return _digest(*outs)
        yield f"array_api/{dtype}", array_api_complex


def run_battery(only: str | Sequence[str] | None = None) -> dict[str, str]:
    """{case: digest} for every case (or those whose name contains `only`, or one of them).
    The inputs are drawn in the battery's order from one seed, so a case's digest depends on
    which cases ran before it: compare runs of the same selection."""
    if isinstance(only, str):
        only = [only]
    import warnings
    from ._state import ensure_started
    from . import runtime
    ensure_started()
    out: dict[str, str] = {}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")       # NaN, inf and overflow are among the inputs
        for name, case in _cases():
            if only and not any(o in name for o in only):
                continue
            out[name] = case()
    runtime.current().synchronize()
    return out


def compare(a: dict[str, str], b: dict[str, str]) -> list[str]:
    """The cases whose digests differ, or that one side lacks."""
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="npu-emu bitcheck",
        description="Run a seeded battery over every kernel family and print one digest per "
                    "case (JSON); or compare two such files.")
    parser.add_argument("--device", choices=("cpu", "cuda", "auto"),
                        help="backend (default: NPU_EMU_DEVICE, else auto)")
    parser.add_argument("--only", action="append",
                        help="run only the cases whose name contains this (repeat it for "
                             "several); compare only runs of the same selection")
    parser.add_argument("--out", help="write the digests here instead of stdout")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"),
                        help="compare two digest files; exit 1 when any case differs")
    args = parser.parse_args(argv)
    if args.compare:
        a, b = (json.load(open(p)) for p in args.compare)
        differ = compare(a, b)
        for name in differ:
            print(f"differs: {name}")
        print(f"{len(set(a) | set(b)) - len(differ)} identical, {len(differ)} differ")
        return 1 if differ else 0
    if args.device:
        os.environ["NPU_EMU_DEVICE"] = args.device
    digests = run_battery(args.only)
    if args.only and not digests:
        import warnings
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")   # the inputs are made (not run) to list the names
            families = sorted({name.split("/")[0] for name, _ in _cases()})
        print(f"npu-emu bitcheck: --only {' '.join(map(repr, args.only))} matches no case; the "
              f"case names begin with the families {', '.join(families)}", file=sys.stderr)
        return 2
    text = json.dumps(digests, indent=1, sort_keys=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
