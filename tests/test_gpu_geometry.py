"""The GPU's launch geometry, run by the cpu backend: each thread takes one aligned 16-byte
vector (moved with one load and one store per operand) or, when its run would not be one,
a single element, so consecutive threads touch consecutive addresses (runtime/base.py
row_geometry, kernels_cuda/npu_emu_index.cuh). A cpu block is one thread, so a GPU block of
256 threads becomes 256 cpu blocks with the same global thread index: the indexing and the
vector moves of every thread are the GPU's. Results against NumPy / the tests' references."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

from npu_emu import aclnn, device
from npu_emu.dtypes import INFO, aclDataType as DT
from npu_emu.kernels import copy as copy_mod
from npu_emu.runtime import cuda
from npu_emu.runtime.base import Workspace, row_geometry, vector_rows
from npu_emu.kernels.indexing import IterSpace, coalesce

from test_cast_kernel import cast_1d, reference, run_cast, source_values
from test_fractal import MATRIX, check_round_trip, random_raw
from test_strided_copy import copy_cases, expected_copy, run_copy

pytestmark = pytest.mark.filterwarnings("ignore:(invalid value|overflow) encountered in cast")


@pytest.fixture
def gpu_shaped(cpu_backend, monkeypatch):
    """The cpu backend launching with the cuda backend's choices; `runs` records each row
    geometry's run."""
    runs: list[int] = []

    def elementwise(numel, itemsize):
        grid, block, run = cuda.gpu_geometry(numel, itemsize)
        return grid * block, 1, run

    def space(sp, itemsize, operands=None, pointers=()):
        grid, block, run = row_geometry(cuda.gpu_geometry(sp.numel, itemsize), sp, operands, pointers)
        runs.append(run)
        return grid * block, 1, run

    monkeypatch.setattr(cpu_backend, "is_cpu", False)       # GPU kernel choices (gather, cast_<src>)
    monkeypatch.setattr(cpu_backend, "elementwise_geometry", elementwise)
    monkeypatch.setattr(cpu_backend, "space_geometry", space)
    copy_mod._copy_geometry.cache_clear()
    cpu_backend.runs = runs
    yield cpu_backend
    copy_mod._copy_geometry.cache_clear()


# ------------------------------------------------------------------------- the rule

def test_row_geometry_rule():
    gpu = cuda.gpu_geometry
    contiguous = coalesce((64, 40), [(40, 1), (40, 1)])            # one row of 2560
    assert row_geometry(gpu(2560, 4), contiguous) == (3, 256, 4)   # 4 x f32 per thread
    assert row_geometry(gpu(2560, 1), contiguous) == (1, 256, 16)
    strided = coalesce((64, 40), [(40, 1), (1, 64)])               # a transposing read
    assert row_geometry(gpu(2560, 4), strided) == (10, 256, 1)     # thread-contiguous
    broadcast = coalesce((64, 40), [(40, 1), (0, 1)])              # rows of 40 from one row
    assert vector_rows(broadcast, 4) and not vector_rows(broadcast, 16)
    assert row_geometry(gpu(2560, 4), broadcast)[2] == 4
    assert row_geometry(gpu(2560, 1), broadcast)[2] == 1           # 40 % 16 != 0
    misaligned = ((0, 4096 + 4, 4), (1, Workspace(32), 4))
    assert row_geometry(gpu(2560, 4), contiguous, pointers=misaligned)[2] == 1
    assert row_geometry(gpu(2560, 4), contiguous, pointers=((0, 4096, 4), (1, Workspace(48), 4)))[2] == 4
    padded = IterSpace((8, 3), ((1, 8), (1, 9), (1, 0), (0, 0)))   # a padding index operand
    assert row_geometry(gpu(24, 4), padded, operands=(0,))[2] == 4
    assert row_geometry(gpu(24, 4), padded)[2] == 1
    assert row_geometry((5, 1, 4096), strided) == (5, 1, 4096)     # one-thread blocks keep runs


# ----------------------------------------------------------------------------- copies

@given(copy_cases(max_rank=5, max_size=6))
def test_copies(gpu_shaped, case):
    itemsize, shape, strides, doff, dlen, sshape, sstrides, soff, slen, seed = case
    rng = np.random.default_rng(seed)
    src_buf = rng.integers(0, 256, slen * itemsize, dtype=np.uint8)
    dst_buf = np.full(dlen * itemsize, 0xA5, dtype=np.uint8)
    got, _ = run_copy(gpu_shaped, dst_buf, shape, strides, doff, src_buf, sshape, sstrides, soff, itemsize)
    want = expected_copy(dst_buf, shape, strides, doff, src_buf, sshape, sstrides, soff, itemsize)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("offset", [0, 1])
def test_contiguous_and_broadcast_copies_take_vectors_when_aligned(gpu_shaped, itemsize, offset):
    rows, cols = 9, 64
    rng = np.random.default_rng(itemsize)
    src_buf = rng.integers(0, 256, (rows * cols + 2) * itemsize, dtype=np.uint8)
    dst_buf = np.full((rows * cols + 2) * itemsize, 0x5A, dtype=np.uint8)
    for sshape, sstrides in (((rows, cols), (cols, 1)), ((1, cols), (0, 1))):
        gpu_shaped.runs.clear()
        got, _ = run_copy(gpu_shaped, dst_buf, (rows, cols), (cols, 1), offset, src_buf, sshape,
                          sstrides, offset, itemsize)
        want = expected_copy(dst_buf, (rows, cols), (cols, 1), offset, src_buf, sshape, sstrides,
                             offset, itemsize)
        np.testing.assert_array_equal(got, want)
        vector = offset * itemsize % 16 == 0     # the pointers (pool blocks: 256-aligned + offset)
        assert gpu_shaped.runs == [16 // min(itemsize, 8) if vector else 1]


# ------------------------------------------------------------------------------ casts

CAST_PAIRS = [(DT.ACL_FLOAT, DT.ACL_FLOAT16), (DT.ACL_FLOAT16, DT.ACL_DOUBLE), (DT.ACL_UINT8, DT.ACL_FLOAT),
              (DT.ACL_BF16, DT.ACL_INT8), (DT.ACL_COMPLEX64, DT.ACL_COMPLEX128), (DT.ACL_INT64, DT.ACL_BF16),
              (DT.ACL_FLOAT8_E4M3FN, DT.ACL_FLOAT), (DT.ACL_DOUBLE, DT.ACL_HIFLOAT8), (DT.ACL_BOOL, DT.ACL_INT32)]


@pytest.mark.parametrize("src,dst", CAST_PAIRS, ids=lambda d: d.name)
def test_casts(gpu_shaped, src, dst):
    raw = source_values(src)
    got = cast_1d(gpu_shaped, raw, src, dst)                      # contiguous, guards around
    want = reference(raw, src, dst)
    assert np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8))
    n = raw.size // 2                                             # strided: thread-contiguous
    out = run_cast(gpu_shaped, raw, src, dst, 2 * n + 1, ((n,), (2,), 0), ((n,), (2,), 1))
    want = reference(raw[0:2 * n:2], src, dst)
    assert np.array_equal(np.ascontiguousarray(out[1::2][:n]).view(np.uint8),
                          np.ascontiguousarray(want).view(np.uint8))
    assert 1 in gpu_shaped.runs


# --------------------------------------------------------------- arithmetic, layouts

@pytest.mark.parametrize("dtype", [DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_INT8, DT.ACL_COMPLEX128, DT.ACL_DOUBLE])
def test_add_and_mul(gpu_shaped, dtype):
    rng = np.random.default_rng(int(dtype))
    host = INFO[dtype].storage
    shape = (7, 48)
    if INFO[dtype].kind == "complex":
        a = (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(host)
        b = (rng.normal(size=(48,)) + 1j * rng.normal(size=(48,))).astype(host)
    else:
        a = (rng.normal(size=shape) * 20).astype(host)
        b = (rng.normal(size=(48,)) * 20).astype(host)
    ta, tb = device.from_numpy(a, dtype), device.from_numpy(b, dtype)
    out = device.empty(list(shape), dtype)
    ws, ex, ret = aclnn.aclnnMulGetWorkspaceSize(ta, tb, out)
    assert ret == 0 and aclnn.aclnnMul(None, ws, ex, None) == 0
    with np.errstate(all="ignore"):
        prod = a * b
        if INFO[dtype].kind == "complex":   # the kernels' textbook formula, products rounded
            prod = np.empty_like(prod)
            prod.real = a.real * b.real - a.imag * b.imag
            prod.imag = a.real * b.imag + a.imag * b.real
    np.testing.assert_array_equal(device.to_numpy(out), prod)
    view = device.view(ta, [7, 47], [48, 1], 1)                   # misaligned rows: scalar path
    out2 = device.empty([7, 47], dtype)
    alpha = aclnn.aclCreateScalar(complex(1) if INFO[dtype].kind == "complex" else 1, dtype)
    ws, ex, ret = aclnn.aclnnAddGetWorkspaceSize(view, device.from_numpy(b[1:], dtype), alpha, out2)
    assert ret == 0 and aclnn.aclnnAdd(None, ws, ex, None) == 0
    with np.errstate(all="ignore"):
        want = (a[:, 1:] + b[1:]).astype(host)
    np.testing.assert_array_equal(device.to_numpy(out2), want)


def test_layouts(gpu_shaped):
    rng = np.random.default_rng(3)
    x = random_raw((2, 45, 70), DT.ACL_FLOAT16, rng)
    for layout in MATRIX:
        check_round_trip(x, DT.ACL_FLOAT16, layout)
    y = random_raw((3, 64, 32), DT.ACL_INT8, rng)                 # whole fractal rows: vectors
    gpu_shaped.runs.clear()
    check_round_trip(y, DT.ACL_INT8, "FRACTAL_NZ")
    assert 16 in gpu_shaped.runs
