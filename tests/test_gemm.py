"""The gemm family (kernels_cuda/gemm.cuh, npu_emu/kernels/gemm.py): the array API's matmul of
float32, float64, complex64 and complex128, each output summed from +0 in ascending k with one
rounding per product and per sum. Checked byte for byte against that order computed by
NumPy's elementwise operations (each rounds once; helpers.sequential_matmul), on the kernel itself
and through the array API, on every thread count and in the GPU's work shape."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import run_built_as, sequential_matmul as sequential

import npu_emu.array_api as xp
from npu_emu.dtypes import as_dtype
from npu_emu.kernels import gemm as G
from npu_emu.kernels.copy import View

DTYPES = (np.float32, np.float64, np.complex64, np.complex128)


def values(rng: np.random.Generator, dtype, shape, specials: bool = True) -> np.ndarray:
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    x = x.astype(dtype)
    if specials and x.size > 8:
        flat = x.reshape(-1)
        flat[[1, 3, 5]] = [np.inf, -0.0, np.nan]
    return x


def run_kernel(a: np.ndarray, b: np.ndarray, conj_a: bool = False) -> np.ndarray:
    """a @ b by one gemm launch on the cpu backend (a and b as they lie in memory)."""
    from npu_emu import runtime
    be = runtime.backend("cpu")
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    out = np.empty(shape, a.dtype)
    blocks = []

    def device(x: np.ndarray) -> View:
        x = np.ascontiguousarray(x)
        ptr = be.malloc(max(x.nbytes, 1))
        blocks.append(ptr)
        be.copy_from_host(ptr, x.reshape(-1).view(np.uint8))
        return View(ptr, x.shape, tuple(s // x.itemsize for s in x.strides), x.itemsize)

    try:
        va, vb = device(a), device(b)
        vo = device(out)
        be.enqueue(G.plan(be, as_dtype(a.dtype), vo, va, vb, conj_a), be.default_stream)
        be.default_stream.synchronize()
        be.copy_to_host(out.reshape(-1).view(np.uint8), vo.ptr)
    finally:
        for ptr in blocks:
            be.free(ptr)
    return out


def same_bytes(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == want.shape and got.dtype == want.dtype and got.tobytes() == want.tobytes()


# (m, k, n, a's batch, b's batch): tiles cut at the edges (65, 66), K over several chunks
# (300, 600), one row of outputs (row_tile), one column (the operands swapped:
# C^T = B^T A^T, a row again), a dot product, batches broadcast both ways, k = 0 (zeros) and
# an empty output; many small products, a CPU block taking hundreds of them in turn (the
# last block fewer); batches of dot products (m = n = 1: a vector's lanes of them at a time,
# K in steps of the lanes then the rest one at a time), a last group of fewer than the lanes
# (17 = 16 + a group of one, which takes the plain loop), K shorter than the lanes, a
# broadcast operand, K = 0 (+0 each).
SHAPES = [(5, 7, 3, (), ()), (65, 300, 66, (), ()), (1, 600, 1, (), ()), (300, 8, 1, (), ()),
          (1, 40, 130, (), ()), (3, 4, 5, (2, 3), ()), (4, 9, 2, (2, 1), (1, 3)),
          (6, 0, 5, (), ()), (0, 4, 3, (), ()), (1, 16, 1, (5000,), ()),
          (2, 16, 3, (3000,), (3000,)), (1, 37, 1, (23,), (23,)), (1, 1000, 1, (2, 9), (9,)),
          (1, 5, 1, (40,), (40,)), (1, 64, 1, (17,), (1,)), (1, 0, 1, (20,), ())]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_the_kernel_sums_in_ascending_k(cpu_backend, dtype, shape):
    m, k, n, ba, bb = shape
    rng = np.random.default_rng(m * 1000 + k)
    a, b = values(rng, dtype, ba + (m, k)), values(rng, dtype, bb + (k, n))
    for conj in (False, True) if np.dtype(dtype).kind == "c" else (False,):
        assert same_bytes(run_kernel(a, b, conj), sequential(a, b, conj)), conj


def test_a_sum_starts_from_plus_zero(cpu_backend):
    a = np.array([[-0.0, -0.0]])
    b = np.array([[1.0], [2.0]])
    got = run_kernel(a, b)
    assert got.tobytes() == np.array([[0.0]]).tobytes()     # +0, not -0


def test_views_through_the_array_api(cpu_backend):
    """Transposed and reversed operands, 1-D operands, batches, mixed dtypes (converted by
    our cast kernels first), vecdot (x1 conjugated), and a repeated call (the short way):
    each byte for byte as the order gives it."""
    rng = np.random.default_rng(7)
    a, b = values(rng, np.float64, (9, 6)), values(rng, np.float64, (9, 4))
    A, B = xp.asarray(a), xp.asarray(b)
    assert same_bytes(np.asarray(A.T @ xp.flip(B, axis=0)), sequential(a.T, b[::-1]))
    assert same_bytes(np.asarray(A.T @ B[:, 1]), sequential(a.T, b[:, 1:2])[:, 0])
    assert same_bytes(np.asarray(A[:, 2] @ B), sequential(a[None, :, 2], b)[0])
    assert same_bytes(np.asarray(A[:, 2] @ B[:, 0]), sequential(a[None, :, 2], b[:, :1])[0, 0])
    c, d = values(rng, np.float64, (2, 1, 5, 7)), values(rng, np.float64, (3, 7, 4))
    first = xp.asarray(c) @ xp.asarray(d)
    again = xp.asarray(c) @ xp.asarray(d)
    assert same_bytes(np.asarray(first), sequential(c, d))
    assert same_bytes(np.asarray(again), np.asarray(first))
    i = rng.integers(-5, 5, (4, 6))
    assert same_bytes(np.asarray(xp.asarray(i) @ A[:6]), sequential(i.astype(np.float64), a[:6]))
    f = a[:4].astype(np.float32)
    assert same_bytes(np.asarray(xp.asarray(f) @ A[:6]),
                      sequential(f.astype(np.float64), a[:6]))
    z, w = values(rng, np.complex128, (3, 5)), values(rng, np.complex128, (3, 5))
    got = np.asarray(xp.vecdot(xp.asarray(z), xp.asarray(w)))
    assert same_bytes(got, sequential(z[:, None, :], w[:, :, None], conj_a=True)[:, 0, 0])
    # vecdot of float64 rows: contiguous (K in steps of the lanes, then the rest), strided
    # and transposed (a gather a step), along axis -2, 21 rows (the last group of lanes short)
    u, v = values(rng, np.float64, (21, 204)), values(rng, np.float64, (21, 204))
    U, V = xp.asarray(u), xp.asarray(v)
    for got, x, y in ((xp.vecdot(U, V), u, v), (xp.vecdot(U[:, ::2], V[:, 1::2]), u[:, ::2], v[:, 1::2]),
                      (xp.vecdot(U.T, V.T, axis=-2), u, v), (xp.vecdot(U[::-1], V), u[::-1], v)):
        assert same_bytes(np.asarray(got), sequential(x[:, None, :], y[:, :, None])[:, 0, 0])
    # complex rows (x1 conjugated): contiguous (each row's parts taken apart by shuffles,
    # K in steps of the lanes, then the rest) and strided (a gather a step)
    for dt in (np.complex64, np.complex128):
        z, w = values(rng, dt, (19, 206)), values(rng, dt, (19, 206))
        Z, W = xp.asarray(z), xp.asarray(w)
        for got, x, y in ((xp.vecdot(Z, W), z, w), (xp.vecdot(Z[:, 1::2], W[:, ::2]), z[:, 1::2], w[:, ::2])):
            assert same_bytes(np.asarray(got),
                              sequential(x[:, None, :], y[:, :, None], conj_a=True)[:, 0, 0]), dt
    g = values(rng, np.complex64, (5, 3))
    assert same_bytes(np.asarray(xp.asarray(g).mT @ xp.asarray(g)), sequential(g.T, g))


def test_many_batch_dims_take_the_library(cpu_backend):
    """Seven batch dims that do not merge (past the kernel's six): the backend's library."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((1, 2, 1, 2, 1, 2, 1, 3, 4))
    b = rng.standard_normal((2, 1, 2, 1, 2, 1, 2, 4, 5))
    got = np.asarray(xp.asarray(a) @ xp.asarray(b))
    np.testing.assert_allclose(got, a @ b, rtol=1e-13)


def test_the_same_bits_on_one_and_two_threads(cpu_backend):
    from npu_emu import runtime
    be = runtime.backend("cpu")
    rng = np.random.default_rng(11)
    a, b = values(rng, np.float64, (200, 300)), values(rng, np.float64, (300, 150))
    before = be.threads
    try:
        results = []
        for n in (1, 2):
            be.set_threads(n)
            results.append(run_kernel(a, b))
    finally:
        be.set_threads(before)
    assert same_bytes(results[0], results[1])
    assert same_bytes(results[0], sequential(a, b))


_GPU_WAY = """
import numpy as np
import npu_emu.array_api as xp
rng = np.random.default_rng(5)
out = {}
for dt in ("float64", "complex128", "complex64"):
    a = rng.standard_normal((70, 300)) + (1j * rng.standard_normal((70, 300)) if dt == "complex128" else 0)
    b = rng.standard_normal((300, 67)) + (1j * rng.standard_normal((300, 67)) if dt == "complex128" else 0)
    a[3, 5], b[7, 9] = np.inf, np.nan
    x, y = xp.asarray(a.astype(dt)), xp.asarray(b.astype(dt))
    batch = xp.reshape(x[:60, :40], (3, 20, 40)) @ y[:40, :33]
    out[dt] = (np.asarray(x @ y).tobytes().hex(), np.asarray(x @ y[:, 0]).tobytes().hex(),
               np.asarray(xp.vecdot(x[:67], y.mT)).tobytes().hex(), np.asarray(batch).tobytes().hex())
print(repr(out))
"""


def test_the_gpus_work_shape_gives_the_cpu_builds_bits(cpu_backend):
    """The GPU's ways (shared-memory tiles of 4 x 4 outputs a thread, run over 256 virtual
    threads; a thread per output for thin tiles), built for the CPU from the same source,
    against the cpu build's packed tiles in vector lanes."""
    gpu = run_built_as(_GPU_WAY, ["gemm_real.cu", "gemm_complex.cu"], "NPU_EMU_GEMM_THREADS=1")
    assert gpu == run_built_as(_GPU_WAY)


def test_bad_views_are_refused(cpu_backend):
    from npu_emu import runtime
    from npu_emu.dtypes import aclDataType as DT
    be = runtime.backend("cpu")
    v = View(4096, (2, 3), (3, 1), 8)
    with pytest.raises(ValueError, match="does not give out"):
        G.plan(be, DT.ACL_DOUBLE, View(4096, (2, 2), (2, 1), 8), v, v)
    with pytest.raises(ValueError, match="4-byte elements"):
        G.plan(be, DT.ACL_DOUBLE, View(4096, (2, 3), (3, 1), 4), v, View(4096, (3, 3), (3, 1), 8))
    with pytest.raises(ValueError, match="no gemm kernel"):
        G.plan(be, DT.ACL_INT64, v, v, v)
