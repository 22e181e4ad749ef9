"""Host side of the gemm family (`kernels_cuda/gemm.cuh`, built as `gemm_real.cu` and
`gemm_complex.cu`): the array API's matmul of float32, float64, complex64 and complex128,
C = A x B batched with broadcasting, each output summed from +0 in ascending k, one rounding
per product and per sum (gemm.cuh has the order): the same bits on every host, thread count
and backend.

The catalog (UNITS: each unit's dtypes) is declared once here; the units are generated from
it (`python -m npu_emu.kernels`; tests/test_kernel_catalog.py fails when they are stale). Complex
kernels are a unit of their own, as in every family: the cpu backend builds a module that
instantiates complex kernels without AVX-512 (runtime/cpu.py), and the real ones keep it.
"""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import INFO, aclDataType as DT
from ..runtime.base import Backend, Launch
from . import unit_text
from .copy import View, pointer_arg
from .ufunc import C_TYPES

UNITS = {"gemm_real.cu": (DT.ACL_FLOAT, DT.ACL_DOUBLE),
         "gemm_complex.cu": (DT.ACL_COMPLEX64, DT.ACL_COMPLEX128)}
DTYPES = tuple(d for dts in UNITS.values() for d in dts)
MODULE_OF = {d: unit for unit, dts in UNITS.items() for d in dts}
GENERATED = ("gemm_*.cu",)   # the files generated from UNITS (npu_emu.kernels)
MAX_BATCH = 6     # gemm.cuh's GEMM_MAX_BATCH: batch dims after the ones are dropped
TILE = 64         # GEMM_TILE: outputs a block computes, down and across
# A GPU block's threads (they split the tile's outputs).
GPU_BLOCK = (256, 1)
# The products a CPU block computes at least (tiles taken in turn where one has fewer).
BLOCK_WORK = 16384
# The dot products a CPU block takes at least: float32's lanes in an AVX-512 vector
# (gemm.cuh's dot_lanes; other vectors hold fewer: it takes them a vector at a time).
DOT_LANES = 16


def kernel_name(dtype: DT) -> str:
    """The exported name of the gemm kernel of `dtype`."""
    return f"gemm_{INFO[dtype].short}"


def generated() -> dict[str, str]:
    """Each unit's .cu file: the template and one kernel per dtype."""
    return {unit: unit_text("gemm", "UNITS",
                            [f"NPU_EMU_GEMM_KERNEL({kernel_name(d)}, {C_TYPES[INFO[d].short]})"
                             for d in dtypes], includes=["gemm.cuh"])
            for unit, dtypes in UNITS.items()}


def params_dtype() -> np.dtype:
    """gemm.cuh's GemmParams as the host packs it."""
    b = (MAX_BATCH,)
    i64 = np.int64
    return np.dtype([("batch_size", i64, b), ("a_batch", i64, b), ("b_batch", i64, b),
                     ("c_batch", i64, b), ("m", i64), ("n", i64), ("k", i64),
                     ("a_m", i64), ("a_k", i64), ("b_k", i64), ("b_n", i64), ("c_m", i64),
                     ("c_n", i64), ("tiles_m", i64), ("tiles_n", i64), ("tiles", i64),
                     ("per_block", i64), ("batch_ndim", np.int32), ("conj_a", np.int32), ("conj_b", np.int32)],
                    align=True)


def _batch_dims(out: View, a: View, b: View) -> list[tuple[int, int, int, int]]:
    """(size, a's stride, b's stride, out's stride) of each batch dim of out, innermost first,
    ones dropped, neighbours merged where all three views continue one into the other; a and
    b broadcast (stride 0 where their dim is 1 or missing)."""
    nb = len(out.shape) - 2
    dims: list[tuple[int, int, int, int]] = []
    for d in range(nb - 1, -1, -1):
        size = out.shape[d]
        if size == 1:
            continue
        strides = []
        for v in (a, b):
            lead = nb - (len(v.shape) - 2)
            strides.append(0 if d < lead or v.shape[d - lead] == 1 else v.strides[d - lead])
        sc = out.strides[d]
        if dims:
            n0, a0, b0, c0 = dims[-1]
            if (a0 * n0, b0 * n0, c0 * n0) == (strides[0], strides[1], sc):
                dims[-1] = (n0 * size, a0, b0, c0)
                continue
        dims.append((size, strides[0], strides[1], sc))
    return dims


def fits(out: View, a: View, b: View) -> bool:
    """Whether one launch takes these views (at most MAX_BATCH batch dims once merged)."""
    return len(_batch_dims(out, a, b)) <= MAX_BATCH


def plan(be: Backend, dtype: DT, out: View, a: View, b: View, conj_a: bool = False) -> list[Launch]:
    """Launches writing out = a @ b (conj(a) @ b with conj_a, complex): views (address of
    element 0, strides in elements of any sign) of `dtype`, a (..., m, k), b (..., k, n),
    out (..., m, n) with the batch dims broadcast to out's. out must not overlap a or b."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype={dtype.name} has no gemm kernel; the gemm kernels take "
                         f"{', '.join(INFO[d].short for d in DTYPES)}")
    size = INFO[dtype].itemsize
    for view, what in ((out, "out"), (a, "a"), (b, "b")):
        if view.itemsize != size:
            raise ValueError(f"{what} has {view.itemsize}-byte elements; {dtype.name} has {size}")
        if len(view.shape) < 2:
            raise ValueError(f"{what} has {len(view.shape)} dims; gemm takes matrices (2 or more)")
    (m, k), (k2, n), (m2, n2) = a.shape[-2:], b.shape[-2:], out.shape[-2:]
    if k != k2 or (m, n) != (m2, n2):
        raise ValueError(f"a {a.shape} @ b {b.shape} does not give out {out.shape}")
    dims = _batch_dims(out, a, b)
    if len(dims) > MAX_BATCH:
        raise ValueError(f"{len(dims)} batch dims after merging; gemm takes {MAX_BATCH}")
    if math.prod(out.shape) == 0:
        return []
    a_m, a_k = a.strides[-2:]
    b_k, b_n = b.strides[-2:]
    c_m, c_n = out.strides[-2:]
    pa, pb, conj_b = a.ptr, b.ptr, False
    if n < m:
        # C^T = B^T A^T: the longer side of C across, in the lanes (the same bits: gemm.cuh).
        m, n, pa, pb = n, m, pb, pa
        a_m, a_k, b_k, b_n, c_m, c_n = b_n, b_k, a_k, a_m, c_n, c_m
        dims = [(s, sb, sa, sc) for s, sa, sb, sc in dims]
        conj_a, conj_b = False, conj_a
    p = np.zeros((), dtype=params_dtype())
    for i, (s, sa, sb, sc) in enumerate(dims):
        p["batch_size"][i], p["a_batch"][i], p["b_batch"][i], p["c_batch"][i] = s, sa, sb, sc
    tiles_m, tiles_n = -(-m // TILE), -(-n // TILE)
    tiles = tiles_m * tiles_n * math.prod(s for s, *_ in dims)
    if tiles >= 2**31:
        raise ValueError(f"{tiles} output tiles: too many for one grid")
    p["m"], p["n"], p["k"] = m, n, k
    p["a_m"], p["a_k"], p["b_k"], p["b_n"], p["c_m"], p["c_n"] = a_m, a_k, b_k, b_n, c_m, c_n
    p["tiles_m"], p["tiles_n"], p["tiles"] = tiles_m, tiles_n, tiles
    p["batch_ndim"], p["conj_a"], p["conj_b"] = len(dims), int(conj_a), int(conj_b)
    # A CPU block takes about BLOCK_WORK products (handing one out costs about as much as a
    # short dot product), and dot products (m = n = 1) at least DOT_LANES of them, which it
    # sums side by side in its vector lanes; a GPU block one tile.
    work = min(m, TILE) * min(n, TILE) * max(k, 1)
    per_block = max(1, BLOCK_WORK // work, DOT_LANES if m == n == 1 else 1) if be.is_cpu else 1
    p["per_block"] = per_block
    block = (1, 1) if be.is_cpu else GPU_BLOCK
    kernel = be.function(MODULE_OF[dtype], kernel_name(dtype))
    return [Launch(kernel, (-(-tiles // per_block), 1, 1), (*block, 1),
                   (p[()], pointer_arg(pa), pointer_arg(pb), pointer_arg(out.ptr)))]
