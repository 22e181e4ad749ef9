"""The cube unit (docs/operators.md#aclnnmatmul): aclnnMatmul (ND) and aclnnCubeMatmul (fractal operands) against
an independent NumPy model of the documented accumulation order (bit for bit), against NumPy
float64 (error within fp32 accumulation bounds), on both SoC conventions, and their status
codes and cube_math_type rules."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, strategies as st

import npu_emu
from npu_emu import aclnn, device
from npu_emu.dtypes import aclDataType as DT
from npu_emu.formats import aclFormat as F
from npu_emu.fractal import L, make_layout_tensor, tensor_spec
from npu_emu.ops.format_cast import format_cast
from npu_emu.ops.matmul import cube_matmul, left_layout
from npu_emu.tensor import make_tensor

from helpers import run_built_as

SUCCESS, NULLPTR, INVALID = 0, 161001, 161002
HOST = {DT.ACL_FLOAT16: np.float16, DT.ACL_BF16: ml_dtypes.bfloat16, DT.ACL_FLOAT: np.float32}


# ------------------------------------------------------------------- reference model

def hf32(x: np.ndarray) -> np.ndarray:
    """fp32 -> HF32 (11 mantissa bits, round half to even), via frexp: independent of the
    kernel's bit arithmetic."""
    x = np.asarray(x, np.float64)
    m, e = np.frexp(x)                      # x = m * 2^e, 0.5 <= |m| < 1
    return np.ldexp(np.round(m * 2.0 ** 12) / 2.0 ** 12, e)


def operand(x: np.ndarray, mode: str) -> np.ndarray:
    """What the cube multiplies, as float64."""
    if mode == "f16":
        return x.astype(np.float32).astype(np.float16).astype(np.float64)
    if mode == "hf32":
        return hf32(x.astype(np.float32))
    return np.asarray(x).astype(np.float64)


def cube_model(a: np.ndarray, b: np.ndarray, k0: int) -> np.ndarray:
    """docs/operators.md#aclnnmatmul / kernels_cuda/matmul.cu's model on the unpadded data: per K block of k0, the
    exact products summed in float64 in ascending k, rounded once to float32, added to the
    float32 accumulator in ascending block order."""
    k = a.shape[-1]
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    acc = np.zeros(shape, np.float32)
    for start in range(0, k, k0):
        part = np.zeros(shape, np.float64)
        for j in range(start, min(start + k0, k)):
            part = part + a[..., :, j, None] * b[..., None, j, :]
        acc = acc + part.astype(np.float32)
    return acc


def rounded(acc: np.ndarray, dtype: DT) -> np.ndarray:
    return acc.astype(HOST[dtype])


def bits(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    return x.view(f"u{x.dtype.itemsize}")


def nd_matmul(a: np.ndarray, b: np.ndarray, a_dt: DT, b_dt: DT, out_dt: DT, math_type: int = 0,
              out_shape=None) -> tuple[int, np.ndarray | None]:
    """aclnnMatmul on device copies of a and b: (status, result)."""
    ta, tb = device.from_numpy(a, a_dt), device.from_numpy(b, b_dt)
    shape = out_shape if out_shape is not None else np.matmul(
        np.zeros(a.shape, np.float32), np.zeros(b.shape, np.float32)).shape
    out = device.empty(shape, out_dt)
    ws, ex, ret = aclnn.aclnnMatmulGetWorkspaceSize(ta, tb, out, math_type)
    if ret:
        return ret, None
    buf = device.DeviceBuffer(ws) if ws else None
    ret = aclnn.aclnnMatmul(buf.ptr if buf else None, ws, ex, None)
    assert ret == SUCCESS, aclnn.aclGetRecentErrMsg()
    return ret, device.to_numpy(out)


def rand(shape, dtype, rng, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(HOST[dtype])


# ------------------------------------------------------------------ ND entry, bit exact

CASES = [  # soc, self dtype, mat2 dtype, out dtype, cube_math_type, operand mode, K0
    ("Ascend910B", DT.ACL_FLOAT16, DT.ACL_FLOAT16, DT.ACL_FLOAT16, 0, "keep", 16),
    ("Ascend910B", DT.ACL_FLOAT16, DT.ACL_FLOAT16, DT.ACL_FLOAT, 0, "keep", 16),
    ("Ascend910B", DT.ACL_BF16, DT.ACL_BF16, DT.ACL_BF16, 1, "keep", 16),
    ("Ascend910B", DT.ACL_FLOAT, DT.ACL_FLOAT, DT.ACL_FLOAT, 0, "keep", 8),
    ("Ascend910B", DT.ACL_FLOAT, DT.ACL_FLOAT, DT.ACL_FLOAT, 1, "hf32", 8),
    ("Ascend910B", DT.ACL_FLOAT, DT.ACL_FLOAT, DT.ACL_FLOAT, 3, "hf32", 8),
    ("Ascend910B", DT.ACL_FLOAT, DT.ACL_FLOAT, DT.ACL_FLOAT16, 2, "f16", 16),
    ("Ascend910B", DT.ACL_FLOAT16, DT.ACL_FLOAT, DT.ACL_FLOAT, 0, "keep", 8),
    ("Ascend910_93", DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_FLOAT, 1, "hf32", 8),
    ("Ascend910", DT.ACL_FLOAT, DT.ACL_FLOAT, DT.ACL_FLOAT, 1, "f16", 16),
    ("Ascend310P", DT.ACL_FLOAT16, DT.ACL_FLOAT, DT.ACL_FLOAT, 2, "f16", 16),
    ("Ascend950", DT.ACL_FLOAT16, DT.ACL_FLOAT16, DT.ACL_FLOAT, 0, "keep", 16),
    ("Ascend950", DT.ACL_BF16, DT.ACL_BF16, DT.ACL_FLOAT, 0, "keep", 16),
    ("Ascend950", DT.ACL_FLOAT, DT.ACL_FLOAT, DT.ACL_FLOAT, 3, "hf32", 8),
]


@pytest.mark.parametrize("soc,a_dt,b_dt,out_dt,math_type,mode,k0", CASES)
def test_nd_matmul_matches_the_model_bit_for_bit(backend, soc, a_dt, b_dt, out_dt, math_type, mode, k0):
    rng = np.random.default_rng(11)
    a, b = rand((2, 37, 50), a_dt, rng), rand((50, 29), b_dt, rng)   # pads M, K, N; batch
    with npu_emu.soc(soc):
        ret, got = nd_matmul(a, b, a_dt, b_dt, out_dt, math_type)
    oa = operand(a, mode if a_dt == DT.ACL_FLOAT else "keep")
    ob = operand(b, mode if b_dt == DT.ACL_FLOAT else "keep")
    want = rounded(cube_model(oa, ob, k0), out_dt)
    assert got.shape == (2, 37, 29)
    assert np.array_equal(bits(got), bits(want))


@given(data=st.data())
def test_nd_matmul_shapes(backend, data):
    """Sizes on and off the fractal grid, batch broadcasting, 1-D operands (torch.matmul)."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    size = st.sampled_from([1, 2, 15, 16, 17, 33])
    m, k, n = data.draw(size), data.draw(size), data.draw(size)
    a_batch = data.draw(st.lists(st.sampled_from([1, 2, 3]), max_size=2))
    b_batch = [1 if data.draw(st.booleans()) else x for x in a_batch][data.draw(st.integers(0, len(a_batch))):]
    a_shape = (k,) if data.draw(st.integers(0, 5)) == 0 else (*a_batch, m, k)
    b_shape = (k,) if data.draw(st.integers(0, 5)) == 0 else (*b_batch, k, n)
    a, b = rand(a_shape, DT.ACL_FLOAT16, rng), rand(b_shape, DT.ACL_FLOAT16, rng)
    soc = data.draw(st.sampled_from(["Ascend910B", "Ascend950"]))
    with npu_emu.soc(soc):
        ret, got = nd_matmul(a, b, DT.ACL_FLOAT16, DT.ACL_FLOAT16, DT.ACL_FLOAT)
    a2 = a.reshape(1, k) if a.ndim == 1 else a
    b2 = b.reshape(k, 1) if b.ndim == 1 else b
    want = cube_model(a2.astype(np.float64), b2.astype(np.float64), 16)
    if a.ndim == 1:
        want = want[..., 0, :]
    if b.ndim == 1:
        want = want[..., 0]
    assert got.shape == np.matmul(a, b).shape
    assert np.array_equal(bits(got), bits(want.astype(np.float32)))


@pytest.mark.parametrize("dtype", [DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT])
def test_relative_error_against_float64(backend, dtype):
    """fp32 accumulation: |C - A@B| <= 2 (K/K0 + 1) 2^-24 (|A|@|B|) (inputs taken exactly)."""
    rng = np.random.default_rng(3)
    k = 300
    a, b = rand((64, k), dtype, rng, 4.0), rand((k, 48), dtype, rng, 0.25)
    ret, got = nd_matmul(a, b, dtype, dtype, DT.ACL_FLOAT)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    exact = a64 @ b64
    k0 = 8 if dtype == DT.ACL_FLOAT else 16
    bound = 2 * (k // k0 + 2) * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64))
    assert np.all(np.abs(got - exact) <= bound)
    assert np.abs(got - exact).max() > 0           # fp32 accumulation really rounds


def test_non_contiguous_operands_and_output(backend):
    rng = np.random.default_rng(9)
    a = rand((40, 33), DT.ACL_FLOAT16, rng)
    b = rand((29, 33), DT.ACL_FLOAT16, rng)          # used transposed: (33, 29)
    ta = device.from_numpy(a)
    tb = device.view(device.from_numpy(b), (33, 29), (1, 33), 0)
    big = device.from_numpy(np.zeros((40, 64), np.float32))
    out = device.view(big, (40, 29), (64, 2), 1)
    ws, ex, ret = aclnn.aclnnMatmulGetWorkspaceSize(ta, tb, out, 0)
    assert ret == SUCCESS
    buf = device.DeviceBuffer(ws)
    assert aclnn.aclnnMatmul(buf.ptr, ws, ex, None) == SUCCESS
    want = cube_model(a.astype(np.float64), b.T.astype(np.float64), 16)
    whole = device.to_numpy(big)
    assert np.array_equal(bits(whole[:, 1:58:2]), bits(want))
    untouched = np.ones(whole.shape, bool)
    untouched[:, 1:58:2] = False
    assert not whole[untouched].any()


def _run_in_workspace(get_size, execute, *args) -> int:
    """Both phases, with the workspace phase one asks for; returns its size."""
    ws, ex, ret = get_size(*args)
    assert ret == SUCCESS, aclnn.aclGetRecentErrMsg()
    buf = device.DeviceBuffer(ws) if ws else None
    assert execute(buf.ptr if buf else None, ws, ex, None) == SUCCESS, aclnn.aclGetRecentErrMsg()
    return ws


# Rows of one storage of (n + 2) x n floats where self, mat2 and out begin: out on the very
# view of self, of mat2, of both, and one row down from self.
@pytest.mark.parametrize("rows", [(0, 2, 0), (0, 2, 2), (0, 0, 0), (0, 2, 1)],
                         ids=["out-is-self", "out-is-mat2", "self-squared-in-place", "out-shifted"])
def test_an_output_that_overlaps_an_operand_gives_the_product_of_the_inputs(backend, rows):
    """Each output element reads a row of self and a column of mat2, so an operand that out
    overlaps (its very view included) is read from a copy in the workspace: the result is
    the model's product of the inputs as they were (several fractals each way)."""
    n = 40
    rng = np.random.default_rng(31)
    storage = rand(((n + 2) * n,), DT.ACL_FLOAT, rng)
    store = device.from_numpy(storage)
    a_row, b_row, out_row = rows
    self_t, mat2_t, out_t = (make_tensor([n, n], DT.ACL_FLOAT, [n, 1], row * n, "ND",
                                         [(n + 2) * n], store.data, owner=store.owner)
                             for row in rows)
    ws = _run_in_workspace(aclnn.aclnnMatmulGetWorkspaceSize, aclnn.aclnnMatmul,
                           self_t, mat2_t, out_t, 0)
    assert ws > 0
    a, b = (storage[r * n:(r + n) * n].reshape(n, n).astype(np.float64) for r in (a_row, b_row))
    got = device.storage_to_numpy(store)[out_row * n:(out_row + n) * n].reshape(n, n)
    assert np.array_equal(bits(got), bits(cube_model(a, b, 8)))


def test_operands_apart_from_the_output_take_no_workspace(backend):
    """The copies are made only where out meets an operand: self and mat2 in one storage,
    out in another, run with no workspace."""
    rng = np.random.default_rng(33)
    storage = rand((2 * 24 * 24,), DT.ACL_FLOAT, rng)
    store = device.from_numpy(storage)
    self_t, mat2_t = (make_tensor([24, 24], DT.ACL_FLOAT, [24, 1], off, "ND", [2 * 24 * 24],
                                  store.data, owner=store.owner) for off in (0, 24 * 24))
    out = device.empty((24, 24), DT.ACL_FLOAT)
    assert _run_in_workspace(aclnn.aclnnMatmulGetWorkspaceSize, aclnn.aclnnMatmul,
                             self_t, mat2_t, out, 0) == 0
    a, b = storage[:576].reshape(24, 24), storage[576:].reshape(24, 24)
    assert np.array_equal(bits(device.to_numpy(out)),
                          bits(cube_model(a.astype(np.float64), b.astype(np.float64), 8)))


def test_a_cube_output_that_overlaps_an_operand_gives_the_product_of_the_inputs(backend):
    """aclnnCubeMatmul with out's Nz storage laid over self's Zz storage: self is read from
    a copy, and the result is the product of the inputs as they were."""
    rng = np.random.default_rng(32)
    a, b = rand((20, 28), DT.ACL_FLOAT16, rng), rand((28, 45), DT.ACL_FLOAT16, rng)
    with npu_emu.soc("Ascend910B"):
        fa, fb = format_cast(device.from_numpy(a), "Zz"), format_cast(device.from_numpy(b), "Zn")
        c = cube_matmul(fa, fb)                         # out's storage, on memory of its own
        host = np.zeros(c.storage_numel, np.float32)    # one buffer: fa's storage, then room
        raw_a = device.storage_to_numpy(fa)
        host.view(np.uint8)[:raw_a.nbytes] = raw_a.view(np.uint8)
        shared = device.from_numpy(host)
        self_t = make_layout_tensor(tensor_spec(fa), DT.ACL_FLOAT16, shared.data, owner=shared.owner)
        out_t = make_layout_tensor(tensor_spec(c), DT.ACL_FLOAT, shared.data, owner=shared.owner)
        assert _run_in_workspace(aclnn.aclnnCubeMatmulGetWorkspaceSize, aclnn.aclnnCubeMatmul,
                                 self_t, fb, out_t) > 0
        got = device.to_numpy(format_cast(out_t, "ND"))
    want = cube_model(a.astype(np.float64), b.astype(np.float64), 16)
    assert np.array_equal(bits(got), bits(want))
    assert np.array_equal(bits(got), bits(device.to_numpy(format_cast(c, "ND"))))


def test_k_zero_gives_zeros_and_empty_out_runs_nothing(backend):
    ret, got = nd_matmul(np.zeros((5, 0), np.float16), np.zeros((0, 7), np.float16),
                         DT.ACL_FLOAT16, DT.ACL_FLOAT16, DT.ACL_FLOAT)
    assert ret == SUCCESS and got.shape == (5, 7) and not got.any()
    ta = device.from_numpy(np.zeros((0, 4), np.float16))
    tb = device.from_numpy(np.zeros((4, 3), np.float16))
    ws, ex, ret = aclnn.aclnnMatmulGetWorkspaceSize(ta, tb, device.empty((0, 3), DT.ACL_FLOAT16), 0)
    assert (ws, ret) == (0, SUCCESS) and not ex.plan.launches


# -------------------------------------------------------------- the fractal entry

@pytest.mark.parametrize("soc", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("dtype", [DT.ACL_FLOAT16, DT.ACL_BF16])
def test_cube_on_fractal_operands_equals_nd(backend, soc, dtype):
    """Zz x Zn -> Nz (910B) and Nz x Zn -> Nz (950): the Nz result, read back, equals the
    model on the unpadded data and aclnnMatmul's ND result bit for bit."""
    rng = np.random.default_rng(21)
    a, b = rand((3, 20, 28), dtype, rng), rand((28, 45), dtype, rng)
    with npu_emu.soc(soc) as s:
        fa = format_cast(device.from_numpy(a), left_layout(s))
        fb = format_cast(device.from_numpy(b), "Zn")
        assert fa.layout is (L.FRACTAL_NZ if soc == "Ascend950" else L.ZZ)
        c = cube_matmul(fa, fb)
        assert c.format == F.ACL_FORMAT_FRACTAL_NZ and c.storage_shape == (3, 3, 2, 16, 16)
        got = device.to_numpy(format_cast(c, "ND"))
        ret, nd = nd_matmul(a, b, dtype, dtype, DT.ACL_FLOAT)
    want = cube_model(a.astype(np.float64), b.astype(np.float64), 16)
    assert np.array_equal(bits(got), bits(want))
    assert np.array_equal(bits(nd), bits(got))
    # padding of the Nz result is zero: rows 20..31 and columns 45..47
    raw = device.storage_to_numpy(c).reshape(c.storage_shape)
    assert not raw[:, :, 1, 4:].any() and not raw[:, 2, :, :, 13:].any()


def test_cube_int8_accumulates_in_int32(backend):
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, (2, 33, 70), dtype=np.int8)
    b = rng.integers(-128, 128, (2, 70, 19), dtype=np.int8)
    fa = format_cast(device.from_numpy(a), "Zz")
    fb = format_cast(device.from_numpy(b), "Zn")
    assert fa.storage_shape == (2, 3, 3, 16, 32)
    c = cube_matmul(fa, fb)
    assert c.dtype == DT.ACL_INT32
    got = device.to_numpy(format_cast(c, "ND"))
    assert np.array_equal(got, (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32))


def test_cube_fp16_out_rounds_like_the_fixpipe(backend):
    rng = np.random.default_rng(6)
    a, b = rand((17, 40), DT.ACL_FLOAT16, rng), rand((40, 18), DT.ACL_FLOAT16, rng)
    c = cube_matmul(format_cast(device.from_numpy(a), "Zz"), format_cast(device.from_numpy(b), "Zn"),
                    out_dtype=DT.ACL_FLOAT16)
    got = device.to_numpy(format_cast(c, "ND"))
    want = cube_model(a.astype(np.float64), b.astype(np.float64), 16).astype(np.float16)
    assert np.array_equal(bits(got), bits(want))


def test_cube_status_codes():
    a = np.ones((20, 28), np.float16)
    b = np.ones((28, 45), np.float16)
    zz = format_cast(device.from_numpy(a), "Zz")
    nz = format_cast(device.from_numpy(a), "NZ")
    zn = format_cast(device.from_numpy(b), "Zn")
    get = aclnn.aclnnCubeMatmulGetWorkspaceSize

    def out(shape=(20, 45), dtype=DT.ACL_FLOAT, storage=(3, 2, 16, 16)):
        return device.empty(shape, dtype, format=F.ACL_FORMAT_FRACTAL_NZ, storage_shape=storage)

    assert get(zz, zn, out())[2] == SUCCESS
    assert get(None, zn, out())[2] == NULLPTR
    assert get(nz, zn, out())[2] == INVALID                    # 910B takes Zz on the left
    assert "Zz" in aclnn.aclGetRecentErrMsg()
    with npu_emu.soc("Ascend950"):
        assert get(zz, zn, out())[2] == INVALID                # 950 takes Nz on the left
        assert get(nz, zn, out())[2] == SUCCESS
    assert get(zz, zz, out())[2] == INVALID                    # mat2 must be Zn
    assert get(zz, zn, out(storage=(6, 2, 16, 8)))[2] == INVALID   # out must hold 16x16 fractals
    assert get(zz, zn, out(shape=(20, 44), storage=(3, 2, 16, 16)))[2] == INVALID
    assert get(zz, zn, out(dtype=DT.ACL_INT32))[2] == INVALID
    zn_short = format_cast(device.from_numpy(np.ones((27, 45), np.float16)), "Zn")
    assert get(zz, zn_short, out())[2] == INVALID              # K differs
    zz32 = format_cast(device.from_numpy(a), "Zz", c0=32)       # wrong fractal width for fp16
    assert get(zz32, zn, out())[2] == INVALID
    with npu_emu.soc("Ascend910"):                             # no bf16, no fp32 cube
        bz = format_cast(device.from_numpy(a.astype(ml_dtypes.bfloat16)), "Zz")
        bn = format_cast(device.from_numpy(b.astype(ml_dtypes.bfloat16)), "Zn")
        assert get(bz, bn, out())[2] == INVALID


# ----------------------------------------------------------- ND entry: rules and codes

@pytest.mark.parametrize("soc,dtype,math_type,code", [
    ("Ascend910", DT.ACL_FLOAT, 0, INVALID), ("Ascend910", DT.ACL_FLOAT, 1, SUCCESS),
    ("Ascend910", DT.ACL_FLOAT, 3, INVALID), ("Ascend910", DT.ACL_FLOAT16, 3, INVALID),
    ("Ascend310P", DT.ACL_FLOAT, 0, INVALID), ("Ascend310P", DT.ACL_FLOAT, 2, SUCCESS),
    ("Ascend910B", DT.ACL_FLOAT, 0, SUCCESS), ("Ascend910B", DT.ACL_FLOAT, 3, SUCCESS),
    ("Ascend910B", DT.ACL_FLOAT16, 3, INVALID), ("Ascend910B", DT.ACL_BF16, 2, INVALID),
    ("Ascend910B", DT.ACL_BF16, 4, SUCCESS), ("Ascend910_93", DT.ACL_BF16, 3, INVALID),
    ("Ascend950", DT.ACL_FLOAT, 4, SUCCESS), ("Ascend950", DT.ACL_BF16, 2, INVALID),
    ("Ascend910B", DT.ACL_FLOAT16, 5, INVALID), ("Ascend910B", DT.ACL_FLOAT16, -1, INVALID),
])
def test_cube_math_type_rules(soc, dtype, math_type, code):
    x = np.ones((4, 4), HOST[dtype])
    with npu_emu.soc(soc):
        t = device.from_numpy(x, dtype)
        ws, ex, ret = aclnn.aclnnMatmulGetWorkspaceSize(t, t, device.empty((4, 4), dtype), math_type)
    assert ret == code, aclnn.aclGetRecentErrMsg()


def test_two_1d_operands_ignore_cube_math_type():
    t = device.from_numpy(np.ones(5, np.float32))
    with npu_emu.soc("Ascend910"):
        ws, ex, ret = aclnn.aclnnMatmulGetWorkspaceSize(t, t, device.empty((), DT.ACL_FLOAT), 0)
    assert ret == SUCCESS


def test_nd_status_codes():
    f16 = device.from_numpy(np.ones((4, 6), np.float16))
    g16 = device.from_numpy(np.ones((6, 3), np.float16))
    out = device.empty((4, 3), DT.ACL_FLOAT16)
    get = aclnn.aclnnMatmulGetWorkspaceSize
    assert get(f16, g16, out, 0)[2] == SUCCESS
    assert get(None, g16, out, 0)[2] == NULLPTR
    assert get(f16, None, out, 0)[2] == NULLPTR
    assert get(f16, g16, None, 0)[2] == NULLPTR
    d = device.from_numpy(np.ones((4, 6), np.float64))
    assert get(d, g16, out, 0)[2] == INVALID                                  # f64
    assert "DT_DOUBLE" in aclnn.aclGetRecentErrMsg()
    b16 = device.from_numpy(np.ones((6, 3), ml_dtypes.bfloat16))
    assert get(f16, b16, out, 0)[2] == INVALID                                # bf16 with f16
    with npu_emu.soc("Ascend910"):
        assert get(b16, b16, device.empty((6, 3), DT.ACL_BF16), 0)[2] == INVALID   # no bf16 here
    assert get(f16, g16, device.empty((4, 3), DT.ACL_INT32), 0)[2] == INVALID  # out dtype
    assert get(f16, device.from_numpy(np.ones((5, 3), np.float16)), out, 0)[2] == INVALID  # K
    assert get(f16, g16, device.empty((4, 4), DT.ACL_FLOAT16), 0)[2] == INVALID  # out shape
    assert get(f16, device.from_numpy(np.ones((2, 6, 3), np.float16)), out, 0)[2] == INVALID
    r7 = device.from_numpy(np.ones((1,) * 5 + (4, 6), np.float16))
    assert get(r7, g16, device.empty((1,) * 5 + (4, 3), DT.ACL_FLOAT16), 0)[2] == INVALID
    nz = format_cast(f16, "NZ")
    assert get(nz, g16, out, 0)[2] == INVALID                                 # ND only
    with npu_emu.soc("Ascend310B"):
        assert get(f16, g16, out, 0)[2] == INVALID


@pytest.mark.parametrize("shape_a,shape_b", [((20, 28), (28, 5)), ((7, 1, 100), (7, 100, 1)),
                                             ((1, 9), (9, 33)), ((3, 17, 40), (40, 1)),
                                             ((1000, 1, 61), (1000, 61, 1))])
def test_nd_operands_are_read_in_place_with_no_workspace(backend, shape_a, shape_b):
    """The cube kernel walks ND views fractal by fractal, elements past an edge reading as
    the fractal layouts' zero padding: no workspace (a null one in phase two), and the bits of
    the model, on shapes whose M, N and K end mid-fractal (vecdot's 1 x K by K x 1 among
    them; 1000 of them: the cpu backend's blocks compute 135 each, the last one fewer)."""
    rng = np.random.default_rng(13)
    a, b = rand(shape_a, DT.ACL_FLOAT, rng), rand(shape_b, DT.ACL_FLOAT, rng)
    ta, tb = device.from_numpy(a), device.from_numpy(b)
    out = device.empty(np.matmul(a, b).shape, DT.ACL_FLOAT)
    ws, ex, ret = aclnn.aclnnMatmulGetWorkspaceSize(ta, tb, out, 0)
    assert (ws, ret) == (0, SUCCESS)
    assert aclnn.aclnnMatmul(None, 0, ex, None) == SUCCESS
    want = cube_model(a.astype(np.float64), b.astype(np.float64), 8)
    assert np.array_equal(bits(device.to_numpy(out)), bits(want))


@pytest.mark.parametrize("a_dt", [DT.ACL_FLOAT, DT.ACL_FLOAT16])
def test_the_gpus_thread_per_output_gives_the_models_bits(cpu_backend, monkeypatch, a_dt):
    """A GPU computes a matrix times a vector a thread per output (CubeParams per_output; the
    cpu backend does so for vecdot's M = 1 alone): made to choose as a GPU does, the cpu
    backend gives the model's bits, with a batch, M ending mid-fractal, and operands of one
    kind and of two (float16 by float32)."""
    monkeypatch.setattr(cpu_backend, "is_cpu", False)
    rng = np.random.default_rng(23)
    a, b = rand((3, 37, 75), a_dt, rng), rand((75, 1), DT.ACL_FLOAT, rng)
    ret, got = nd_matmul(a, b, a_dt, DT.ACL_FLOAT, DT.ACL_FLOAT)
    want = cube_model(a.astype(np.float64), b.astype(np.float64), 8)
    assert np.array_equal(bits(got), bits(want))


def test_vecdot_of_many_long_vectors_takes_no_padded_copies(cpu_backend):
    """xp.vecdot of 2000 pairs of 4000-element float32 vectors (a 1 x K by K x 1 product per
    pair): no fractal copies, so the pool's peak grows by the result alone (the copies, their
    rows padded to 16, took 1 GiB); the model's bits per pair."""
    import npu_emu.array_api as xp
    rng = np.random.default_rng(17)
    a, b = (rng.standard_normal((2000, 4000)).astype(np.float32) for _ in range(2))
    x, y = xp.asarray(a), xp.asarray(b)
    pool = cpu_backend.allocator
    pool.reset_peak()
    before = pool.stats()["bytes_in_use"]
    got = xp.vecdot(x, y)
    assert pool.stats()["peak_bytes_in_use"] - before < 1 << 20
    rows = np.r_[0:50, 1950:2000]     # the first and the last of the cpu backend's blocks
    want = cube_model(a[rows, None, :].astype(np.float64), b[rows, :, None].astype(np.float64), 8)
    assert np.array_equal(bits(np.asarray(got)[rows]), bits(want.reshape(100)))


@pytest.mark.parametrize("k", [75, 8, 3, 64])
def test_vecdot_eight_outputs_at_a_time_give_the_models_bits(cpu_backend, k):
    """The cpu backend's vecdot and matrix-times-vector of float32 take eight outputs at a
    time (a fractal step's products transposed into vectors of every output's k-th product,
    summed in lanes): the model's bits, with 21 outputs (two groups of eight and five alone), K ending mid-step,
    NaN, infinities, signed zeros (a row of -0 products sums to +0), subnormals, 0 x inf,
    a sum that overflows, and rows whose step sums cancel (2^60 - 2^60 + 1: only the
    ascending order gives the model's 1)."""
    import npu_emu.array_api as xp
    rng = np.random.default_rng(29 + k)
    a = (rng.standard_normal((21, k)) * 3).astype(np.float32)
    b = (rng.standard_normal((21, k)) * 3).astype(np.float32)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 3e38, 1e-45, -1e-45, 0.0], np.float32)
    a[2, :min(k, 8)] = special[:min(k, 8)]
    a[7], b[7] = -0.0, np.abs(b[7])                          # every product -0
    a[9, 0], b[9, 0] = 0.0, np.inf                           # 0 x inf
    a[12], b[12] = 3e38, 3e38                                # past float32's range
    a[17, k - 1] = np.nan                                    # the last element
    for r in range(3, 7):    # the order of a step's sum decides: 2^60 - 2^60 + 1 is 1, not 0
        j = min(r - 3 + 2 * (r % 2), k - 3) if k >= 3 else 0
        a[r], b[r] = 0.0, 1.0
        a[r, j:j + 3] = np.array([2.0**60, -2.0**60, 1.0], np.float32)[:k - j]
        a[r + 10, j:j + 3] = np.array([1.0, 2.0**60, -2.0**60], np.float32)[:k - j]
        b[r + 10] = 1.0
    got = np.asarray(xp.vecdot(xp.asarray(a), xp.asarray(b)))
    with np.errstate(all="ignore"):
        want = cube_model(a[:, None, :].astype(np.float64), b[:, :, None].astype(np.float64), 8)
    want = want.reshape(21)
    want[np.isnan(want)] = np.float32(np.nan)                # the fixpipe's canonical NaN
    assert np.array_equal(bits(got), bits(want.astype(np.float32)))
    assert bits(got)[7] == 0 and np.isnan(got[17])
    # A matrix times a vector: the rows of a by b's row 3 (ones), in batches of 21 rows
    # (two fractals, the second's rows past M computed and not stored).
    v = b[3]
    got = np.asarray(xp.matmul(xp.asarray(np.stack([a, a[::-1]])), xp.asarray(v[:, None])))
    with np.errstate(all="ignore"):
        want = cube_model(np.stack([a, a[::-1]]).astype(np.float64), v[:, None].astype(np.float64), 8)
    want[np.isnan(want)] = np.float32(np.nan)
    assert np.array_equal(bits(got), bits(want.astype(np.float32)))


@pytest.mark.parametrize("a_dt,k0", [(DT.ACL_FLOAT, 8), (DT.ACL_FLOAT16, 16)])
def test_blocks_of_fractals_share_a_packed_panel_of_b(cpu_backend, a_dt, k0):
    """The cpu backend's blocks take up to 16 fractals of one column each (enough of them:
    here 2 x 13 x 17, three a block, so blocks cross columns and batches) and convert B's
    column into a panel of tiles once for them: the model's bits with N and K ending
    mid-fractal, B broadcast over the batch and B an ND view whose rows lie 4 KiB apart,
    NaN, infinities and -0 in B, and float16 subnormals in both (read by F16C where the
    CPU has it)."""
    rng = np.random.default_rng(41)
    a = rand((2, 200, 70), a_dt, rng, 3)
    wide = rand((70, 1024), a_dt, rng, 3)            # rows 4 KiB apart (float32)
    wide.reshape(-1)[:7] = np.array([np.nan, np.inf, -np.inf, -0.0, 60000, 6e-8, -3e-5], HOST[a_dt])
    a.reshape(-1)[::97] = np.array(6e-8, HOST[a_dt])         # float16 subnormals in A
    a.reshape(-1)[5::89] = np.array(-1.2e-5, HOST[a_dt])
    for b in (wide[:, :260], np.ascontiguousarray(wide[:, 100:360])):
        tb = device.view(device.from_numpy(wide if b.base is wide else b), (70, 260),
                         (1024, 1) if b.base is wide else (260, 1), 0)
        out = device.empty((2, 200, 260), DT.ACL_FLOAT)
        ws, ex, ret = aclnn.aclnnMatmulGetWorkspaceSize(device.from_numpy(a), tb, out, 0)
        assert (ws, ret) == (0, SUCCESS)
        assert aclnn.aclnnMatmul(None, 0, ex, None) == SUCCESS
        with np.errstate(all="ignore"):
            want = cube_model(a.astype(np.float64), b.astype(np.float64), k0)
        want[np.isnan(want)] = np.float32(np.nan)
        assert np.array_equal(bits(device.to_numpy(out)), bits(want))


def test_a_matrix_times_a_vector_writes_only_its_rows(cpu_backend):
    """M = 37 (the last fractal's rows 37..47 computed by the eight-at-a-time path and not
    stored) into a view at the head of a larger buffer of sentinels, with a second view
    after a gap: every element outside the two outputs keeps its sentinel."""
    rng = np.random.default_rng(37)
    a, v = rand((37, 75), DT.ACL_FLOAT, rng), rand((75, 1), DT.ACL_FLOAT, rng)
    store = device.from_numpy(np.full(120, -7.25, np.float32))
    want = cube_model(a.astype(np.float64), v.astype(np.float64), 8).reshape(37)
    for offset in (0, 60):
        out = device.view(store, (37, 1), (1, 1), offset)
        ws, ex, ret = aclnn.aclnnMatmulGetWorkspaceSize(device.from_numpy(a), device.from_numpy(v),
                                                        out, 0)
        assert (ws, ret) == (0, SUCCESS)
        assert aclnn.aclnnMatmul(None, 0, ex, None) == SUCCESS
    got = device.storage_to_numpy(store)
    assert np.array_equal(bits(got[0:37]), bits(want))
    assert np.array_equal(bits(got[60:97]), bits(want))
    assert (got[37:60] == -7.25).all() and (got[97:] == -7.25).all()


# ------------------------------------------------------------------ the GPU's strip shape
# The cpu build computes a whole fractal row of outputs at a time (CUBE_STRIP 16, in vector
# lanes); a GPU thread computes one output (CUBE_STRIP 1). The same source in the GPU's
# shape is built for the cpu backend here, in a subprocess, and must give the same bits.
_STRIP_CASES = """
import numpy as np, ml_dtypes
import npu_emu, npu_emu.array_api as xp
from npu_emu import device
from npu_emu.ops.format_cast import format_cast
from npu_emu.ops.matmul import cube_matmul
rng = np.random.default_rng(31)
special = np.array([np.nan, np.inf, -np.inf, -0.0, 3e38, 1e-45], np.float32)
out = {}
for name, dt, math in (("f32", np.float32, 0), ("hf32", np.float32, 1), ("f16", np.float16, 0),
                       ("bf16", ml_dtypes.bfloat16, 0), ("fp16mode", np.float32, 2)):
    a = (rng.standard_normal((2, 37, 70)) * 3).astype(np.float32)
    b = (rng.standard_normal((70, 45)) * 3).astype(np.float32)
    a.reshape(-1)[:6] = special
    x, y = xp.asarray(a.astype(dt)), xp.asarray(b.astype(dt))
    out[name] = np.asarray(xp.matmul(x, y, cube_math_type=math)).tobytes().hex()
with npu_emu.soc("Ascend950"):
    a = rng.standard_normal((33, 50)).astype(np.float16); b = rng.standard_normal((50, 20)).astype(np.float16)
    out["950"] = np.asarray(xp.matmul(xp.asarray(a), xp.asarray(b))).tobytes().hex()
for name, dt in (("col_f32", np.float32), ("col_f16", np.float16), ("col_bf16", ml_dtypes.bfloat16)):
    a = (rng.standard_normal((3, 37, 75)) * 3).astype(np.float32)
    b = (rng.standard_normal((3, 37, 75)) * 3).astype(np.float32)
    a.reshape(-1)[:6] = special
    x, y = xp.asarray(a.astype(dt)), xp.asarray(b.astype(dt))
    out["vecdot_" + name] = np.asarray(xp.vecdot(x, y)).tobytes().hex()
    out["matvec_" + name] = np.asarray(xp.matmul(x, y[..., :1, :].mT)).tobytes().hex()
a = rng.integers(-128, 128, (2, 33, 70), dtype=np.int8); b = rng.integers(-128, 128, (70, 19), dtype=np.int8)
c = cube_matmul(format_cast(device.from_numpy(a), "Zz"), format_cast(device.from_numpy(b), "Zn"))
out["int8"] = device.to_numpy(format_cast(c, "ND")).tobytes().hex()
print(repr(out))
"""


def test_the_gpus_strip_shape_gives_the_cpu_builds_bits(cpu_backend):
    """CUBE_STRIP 1 (the GPU's) against 16 (the cpu backend's), built from the same source:
    fp32 (K0 8), HF32, fp16 and bf16 (K0 16), fp32 rounded to fp16, Ascend950's Nz left
    operand, int8 (K0 32), and one output column (a matrix times a vector: the cpu build's
    one-column step; and vecdot, a thread per output in both) in fp32, fp16 and bf16; NaN,
    infinities, -0, a near-overflow and a subnormal in A."""
    runs = {"1": run_built_as(_STRIP_CASES, "matmul.cu", "NPU_EMU_CUBE_STRIP=1"),
            "16": run_built_as(_STRIP_CASES)}
    assert runs["1"].keys() == runs["16"].keys() and len(runs["1"]) == 13
    for case in runs["1"]:
        assert runs["1"][case] == runs["16"][case], case
