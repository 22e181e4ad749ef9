"""aclnnNpuFormatCast (docs/formats.md#private-layouts; CANN ops-math aclnnNpuFormatCast.md): CalculateSizeAndFormat,
both phases, every conversion of the A2/A3 and Ascend950 tables against the NumPy reference
of test_fractal, and the status codes; plus the Python helper npu_emu's ops give."""
from __future__ import annotations

import numpy as np
import pytest

import npu_emu
from npu_emu import aclnn, device
from npu_emu.dtypes import aclDataType as DT
from npu_emu.formats import aclFormat as F
from npu_emu.fractal import L, LayoutTensor
from npu_emu.ops.format_cast import format_cast
from npu_emu.status import AclnnError
from npu_emu.tensor import make_tensor

from test_fractal import random_raw, ref_to_layout, same_bits, storage_of

SUCCESS, NULLPTR, INVALID, RUNTIME = 0, 161001, 161002, 361001


def run_cast(src, dst):
    """Both phases; returns the first non-zero status, or 0."""
    ws, ex, ret = aclnn.aclnnNpuFormatCastGetWorkspaceSize(src, dst)
    if ret:
        return ret
    assert ws == 0
    return aclnn.aclnnNpuFormatCast(None, 0, ex, None)


def to_private(x: np.ndarray, dtype: DT, src_fmt: F, dst_fmt: F, additional=-1):
    """ND/public -> private through the three aclnn calls; returns the destination tensor."""
    src = device.from_numpy(x, dtype, format=src_fmt)
    shape, actual, ret = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(src, int(dst_fmt), additional)
    assert ret == SUCCESS, aclnn.aclGetRecentErrMsg()
    dst = device.empty(x.shape, dtype, format=actual, storage_shape=shape)
    assert run_cast(src, dst) == SUCCESS, aclnn.aclGetRecentErrMsg()
    return dst


def to_public(private, dst_fmt: F):
    shape, actual, ret = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(private, int(dst_fmt), -1)
    assert ret == SUCCESS, aclnn.aclGetRecentErrMsg()
    assert actual == dst_fmt and tuple(shape) == private.view_shape
    out = device.empty(shape, private.dtype, format=actual)
    assert run_cast(private, out) == SUCCESS, aclnn.aclGetRecentErrMsg()
    return out


# ----------------------------------------------------------------- CalculateSizeAndFormat

@pytest.mark.parametrize("soc,dtype,additional,shape,fmt", [
    ("Ascend910B", DT.ACL_FLOAT16, -1, [2, 2, 16, 16], F.ACL_FORMAT_FRACTAL_NZ),
    ("Ascend910B", DT.ACL_FLOAT, -1, [4, 2, 16, 8], F.ACL_FORMAT_FRACTAL_NZ),
    ("Ascend910B", DT.ACL_FLOAT, DT.ACL_FLOAT16, [2, 2, 16, 16], F.ACL_FORMAT_FRACTAL_NZ),
    ("Ascend910B", DT.ACL_INT8, -1, [1, 2, 16, 32], F.ACL_FORMAT_FRACTAL_NZ),
    ("Ascend910_93", DT.ACL_BF16, DT.ACL_BF16, [2, 2, 16, 16], F.ACL_FORMAT_FRACTAL_NZ),
    ("Ascend950", DT.ACL_FLOAT16, DT.ACL_FLOAT16, [2, 2, 16, 16], F.ACL_FORMAT_FRACTAL_NZ),
    ("Ascend950", DT.ACL_FLOAT, DT.ACL_FLOAT16, [2, 2, 16, 16], F.ACL_FORMAT_FRACTAL_NZ_C0_16),
    ("Ascend950", DT.ACL_FLOAT, DT.ACL_FLOAT8_E4M3FN, [1, 2, 16, 32], F.ACL_FORMAT_FRACTAL_NZ_C0_32),
    ("Ascend950", DT.ACL_INT32, DT.ACL_BF16, [2, 2, 16, 16], F.ACL_FORMAT_FRACTAL_NZ_C0_16),
    ("Ascend950", DT.ACL_INT8, DT.ACL_INT8, [1, 2, 16, 32], F.ACL_FORMAT_FRACTAL_NZ),
])
def test_calculate_size_and_format_nz(soc, dtype, additional, shape, fmt):
    with npu_emu.soc(soc):
        src = device.empty((20, 28), dtype)
        got = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(src, F.ACL_FORMAT_FRACTAL_NZ, additional)
    assert got == (shape, fmt, SUCCESS)


@pytest.mark.parametrize("src_fmt,shape,dst_fmt,storage", [
    (F.ACL_FORMAT_NCHW, (2, 19, 5, 7), F.ACL_FORMAT_NC1HWC0, [2, 2, 5, 7, 16]),
    (F.ACL_FORMAT_NHWC, (2, 5, 7, 19), F.ACL_FORMAT_NC1HWC0, [2, 2, 5, 7, 16]),
    (F.ACL_FORMAT_NCHW, (20, 19, 3, 3), F.ACL_FORMAT_FRACTAL_Z, [18, 2, 16, 16]),
    (F.ACL_FORMAT_HWCN, (3, 3, 19, 20), F.ACL_FORMAT_FRACTAL_Z, [18, 2, 16, 16]),
    (F.ACL_FORMAT_NCDHW, (2, 19, 3, 5, 7), F.ACL_FORMAT_NDC1HWC0, [2, 3, 2, 5, 7, 16]),
    (F.ACL_FORMAT_NDHWC, (2, 3, 5, 7, 19), F.ACL_FORMAT_NDC1HWC0, [2, 3, 2, 5, 7, 16]),
    (F.ACL_FORMAT_NCDHW, (20, 19, 2, 3, 3), F.ACL_FRACTAL_Z_3D, [36, 2, 16, 16]),
    (F.ACL_FORMAT_NCHW, (2, 3, 20, 28), F.ACL_FORMAT_FRACTAL_NZ, [2, 3, 2, 2, 16, 16]),
    (F.ACL_FORMAT_NCL, (2, 20, 28), F.ACL_FORMAT_FRACTAL_NZ, [2, 2, 2, 16, 16]),
])
def test_calculate_size_and_format_conv_layouts(src_fmt, shape, dst_fmt, storage):
    src = device.empty(shape, DT.ACL_FLOAT16, format=src_fmt)
    got = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(src, dst_fmt, DT.ACL_FLOAT16)
    assert got == (storage, dst_fmt, SUCCESS)


def test_calculate_size_and_format_status_codes():
    t = device.empty((20, 28), DT.ACL_FLOAT16)
    calc = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat
    nz = F.ACL_FORMAT_FRACTAL_NZ
    assert calc(None, nz, -1)[2] == NULLPTR
    assert "srcTensor" in aclnn.aclGetRecentErrMsg()
    assert calc(device.empty((2, 3), DT.ACL_DOUBLE), nz, -1)[2] == INVALID
    assert calc(t, 999, -1)[2] == INVALID                                    # not a format
    assert calc(t, F.ACL_FORMAT_NC1HWC0_C04, -1)[2] == INVALID               # not in the table
    assert calc(t, nz, DT.ACL_DOUBLE)[2] == INVALID                          # additionalDtype
    assert calc(device.empty((7,), DT.ACL_FLOAT16), nz, -1)[2] == INVALID     # rank 1
    assert calc(device.empty((1,) * 7, DT.ACL_FLOAT16), nz, -1)[2] == INVALID  # rank 7
    assert calc(device.empty((0, 28), DT.ACL_FLOAT16), nz, -1)[2] == INVALID  # empty
    assert "empty" in aclnn.aclGetRecentErrMsg()
    assert calc(t, F.ACL_FORMAT_NC1HWC0, -1)[2] == RUNTIME                   # ND -> NC1HWC0: no such pair
    with npu_emu.soc("Ascend950"):
        assert calc(device.empty((2, 3, 4, 5), DT.ACL_FLOAT16, format=F.ACL_FORMAT_NCHW),
                    F.ACL_FORMAT_NC1HWC0, -1)[2] == INVALID                  # not on Ascend950
    for soc in ("Ascend910", "Ascend310P", "Ascend310B"):
        with npu_emu.soc(soc):
            assert calc(t, nz, -1)[2] == RUNTIME
            assert soc in aclnn.aclGetRecentErrMsg()


# ------------------------------------------------------------------------ both phases

@pytest.mark.parametrize("dtype", [DT.ACL_INT8, DT.ACL_UINT8, DT.ACL_FLOAT16, DT.ACL_BF16,
                                   DT.ACL_FLOAT, DT.ACL_INT32, DT.ACL_UINT32])
@pytest.mark.parametrize("shape", [(20, 28), (3, 33, 65), (1, 1), (2, 1, 17, 16)])
def test_nd_nz_nd_every_dtype(backend, dtype, shape):
    rng = np.random.default_rng(hash((int(dtype), shape)) % 2**32)
    x = random_raw(shape, dtype, rng)
    nz = to_private(x, dtype, F.ACL_FORMAT_ND, F.ACL_FORMAT_FRACTAL_NZ)
    assert same_bits(storage_of(nz), ref_to_layout(x, "FRACTAL_NZ", 32 * 8 // (x.dtype.itemsize * 8)))
    back = to_public(nz, F.ACL_FORMAT_ND)
    assert same_bits(device.to_numpy(back, raw=True), x)


def test_additional_dtype_sets_c0(backend):
    """910B: FLOAT with additionalDtype FLOAT16 -> FRACTAL_NZ holding 16x16 fractals; reading
    it back takes C0 from the storage shape."""
    x = random_raw((20, 28), DT.ACL_FLOAT, np.random.default_rng(1))
    nz = to_private(x, DT.ACL_FLOAT, F.ACL_FORMAT_ND, F.ACL_FORMAT_FRACTAL_NZ, DT.ACL_FLOAT16)
    assert nz.format == F.ACL_FORMAT_FRACTAL_NZ and nz.storage_shape == (2, 2, 16, 16)
    assert same_bits(storage_of(nz), ref_to_layout(x, "FRACTAL_NZ", 16))
    assert same_bits(device.to_numpy(to_public(nz, F.ACL_FORMAT_ND), raw=True), x)


def test_ascend950_nz_c0_formats(backend):
    x = random_raw((3, 20, 28), DT.ACL_FLOAT, np.random.default_rng(2))
    with npu_emu.soc("Ascend950"):
        nz = to_private(x, DT.ACL_FLOAT, F.ACL_FORMAT_ND, F.ACL_FORMAT_FRACTAL_NZ, DT.ACL_BF16)
        assert nz.format == F.ACL_FORMAT_FRACTAL_NZ_C0_16
        assert same_bits(storage_of(nz), ref_to_layout(x, "FRACTAL_NZ", 16))
        assert same_bits(device.to_numpy(to_public(nz, F.ACL_FORMAT_ND), raw=True), x)
        # FRACTAL_NZ_C0_4 -> ND: C0 comes from the format
        shape = [2, 7, 3, 16, 4]
        src = device.from_numpy(ref_to_layout(x, "FRACTAL_NZ", 4).reshape(shape), DT.ACL_FLOAT)
        src = make_tensor([3, 20, 28], DT.ACL_FLOAT, None, 0, F.ACL_FORMAT_FRACTAL_NZ_C0_4,
                          [3, 7, 2, 16, 4], src.data, owner=src.owner)
        out = device.empty((3, 20, 28), DT.ACL_FLOAT)
        assert run_cast(src, out) == SUCCESS, aclnn.aclGetRecentErrMsg()
        assert same_bits(device.to_numpy(out, raw=True), x)


@pytest.mark.parametrize("src_fmt,layout,dst_fmt,shape", [
    (F.ACL_FORMAT_NCHW, "NC1HWC0", F.ACL_FORMAT_NC1HWC0, (2, 19, 5, 7)),
    (F.ACL_FORMAT_NHWC, "NC1HWC0", F.ACL_FORMAT_NC1HWC0, (2, 5, 7, 19)),
    (F.ACL_FORMAT_NCHW, "FRACTAL_Z", F.ACL_FORMAT_FRACTAL_Z, (20, 19, 3, 3)),
    (F.ACL_FORMAT_HWCN, "FRACTAL_Z", F.ACL_FORMAT_FRACTAL_Z, (3, 3, 19, 20)),
    (F.ACL_FORMAT_NCDHW, "NDC1HWC0", F.ACL_FORMAT_NDC1HWC0, (2, 19, 3, 5, 7)),
    (F.ACL_FORMAT_NDHWC, "NDC1HWC0", F.ACL_FORMAT_NDC1HWC0, (2, 3, 5, 7, 19)),
    (F.ACL_FORMAT_NCDHW, "FRACTAL_Z_3D", F.ACL_FRACTAL_Z_3D, (20, 19, 2, 3, 3)),
    (F.ACL_FORMAT_NCHW, "FRACTAL_NZ", F.ACL_FORMAT_FRACTAL_NZ, (2, 3, 20, 28)),
    (F.ACL_FORMAT_NCL, "FRACTAL_NZ", F.ACL_FORMAT_FRACTAL_NZ, (2, 20, 28)),
    (F.ACL_FORMAT_NCDHW, "FRACTAL_NZ", F.ACL_FORMAT_FRACTAL_NZ, (2, 1, 3, 20, 28)),
])
@pytest.mark.parametrize("dtype", [DT.ACL_INT8, DT.ACL_FLOAT16, DT.ACL_FLOAT])
def test_a2_a3_table_both_ways(backend, src_fmt, layout, dst_fmt, shape, dtype):
    x = random_raw(shape, dtype, np.random.default_rng(len(shape) * 7 + int(dtype)))
    priv = to_private(x, dtype, src_fmt, dst_fmt)
    origin = None if layout == "FRACTAL_NZ" else src_fmt.name.removeprefix("ACL_FORMAT_")
    c0 = 32 // x.dtype.itemsize
    assert same_bits(storage_of(priv), ref_to_layout(x, layout, c0, origin))
    back = to_public(priv, src_fmt)
    assert same_bits(device.to_numpy(back, raw=True), x)


def test_phase_one_status_codes():
    x = np.ones((20, 28), np.float16)
    src = device.from_numpy(x)
    nz_shape = [2, 2, 16, 16]
    dst = device.empty(x.shape, DT.ACL_FLOAT16, format=F.ACL_FORMAT_FRACTAL_NZ, storage_shape=nz_shape)
    get = aclnn.aclnnNpuFormatCastGetWorkspaceSize
    assert get(src, dst)[2] == SUCCESS
    assert get(None, dst)[2] == NULLPTR
    assert get(src, None)[2] == NULLPTR
    assert "dstTensor" in aclnn.aclGetRecentErrMsg()
    # dtype: not in the list, and different dtypes
    f64 = device.empty((20, 28), DT.ACL_DOUBLE)
    assert get(f64, dst)[2] == INVALID
    d32 = device.empty(x.shape, DT.ACL_FLOAT, format=F.ACL_FORMAT_FRACTAL_NZ, storage_shape=[4, 2, 16, 8])
    assert get(src, d32)[2] == INVALID
    # non-contiguous source
    wide = device.from_numpy(np.ones((20, 56), np.float16))
    strided = device.view(wide, (20, 28), (56, 2), 0)
    assert get(strided, dst)[2] == INVALID
    assert "contiguous" in aclnn.aclGetRecentErrMsg()
    # view shapes differ; storage shape wrong for the view
    assert get(device.from_numpy(np.ones((21, 28), np.float16)), dst)[2] == INVALID
    bad = device.empty(x.shape, DT.ACL_FLOAT16, format=F.ACL_FORMAT_FRACTAL_NZ, storage_shape=[2, 3, 16, 16])
    assert get(src, bad)[2] == INVALID
    assert "storage shape" in aclnn.aclGetRecentErrMsg()
    # empty source; rank 7
    e = device.empty((0, 28), DT.ACL_FLOAT16)
    e_dst = device.empty((0, 28), DT.ACL_FLOAT16, format=F.ACL_FORMAT_FRACTAL_NZ, storage_shape=[2, 0, 16, 16])
    assert get(e, e_dst)[2] == INVALID
    r7 = device.empty((1,) * 7, DT.ACL_FLOAT16)
    r7_dst = device.empty((1,) * 7, DT.ACL_FLOAT16, format=F.ACL_FORMAT_FRACTAL_NZ,
                          storage_shape=[1] * 5 + [1, 1, 16, 16])
    assert get(r7, r7_dst)[2] == INVALID
    # ND -> ND is no conversion; ND -> NC1HWC0 is not in the table
    assert get(src, device.empty(x.shape, DT.ACL_FLOAT16))[2] == RUNTIME
    c = device.empty(x.shape, DT.ACL_FLOAT16, format=F.ACL_FORMAT_NC1HWC0, storage_shape=[1, 1, 20, 28, 16])
    assert get(src, c)[2] == RUNTIME
    # unsupported product
    with npu_emu.soc("Ascend910"):
        assert get(src, dst)[2] == RUNTIME


# Where the other tensor begins in one buffer, in elements from the first's start: on it, and
# part way into it.
@pytest.mark.parametrize("shift", [0, 40], ids=["same-start", "part-way"])
@pytest.mark.parametrize("to_layout", [True, False], ids=["nd-to-nz", "nz-to-nd"])
def test_a_destination_that_overlaps_the_source_gets_the_source_as_it_was(backend, to_layout, shift):
    """The two sides of a format cast overlap in memory (no view of one is the other's): the
    source is read from a copy in the workspace, so the destination holds the conversion of
    the source as it was."""
    x = random_raw((20, 28), DT.ACL_FLOAT16, np.random.default_rng(41 + shift))
    nz = ref_to_layout(x, "FRACTAL_NZ", 16)                       # (2, 2, 16, 16)
    src_raw, dst_shape = (x, (20, 28)) if to_layout else (nz, nz.shape)
    host = np.zeros(nz.size + shift, np.float16)
    host[:src_raw.size] = src_raw.reshape(-1).view(np.float16)
    buf = device.from_numpy(host)
    nd_t, nz_t = (make_tensor([20, 28], DT.ACL_FLOAT16, [28, 1], 0 if to_layout else shift, "ND",
                              [host.size], buf.data, owner=buf.owner),
                  make_tensor([20, 28], DT.ACL_FLOAT16, None, 0, F.ACL_FORMAT_FRACTAL_NZ,
                              list(nz.shape), buf.data + (2 * shift if to_layout else 0),
                              owner=buf.owner))   # (a private storage starts at its pointer)
    src, dst = (nd_t, nz_t) if to_layout else (nz_t, nd_t)
    ws, ex, ret = aclnn.aclnnNpuFormatCastGetWorkspaceSize(src, dst)
    assert ret == SUCCESS and ws > 0, aclnn.aclGetRecentErrMsg()
    wsp = device.DeviceBuffer(ws)
    assert aclnn.aclnnNpuFormatCast(wsp.ptr, ws, ex, None) == SUCCESS, aclnn.aclGetRecentErrMsg()
    got = device.storage_to_numpy(buf)[shift:]
    want = nz if to_layout else x
    assert same_bits(got[:want.size].reshape(want.shape), want)


def test_phase_two_runs_once(backend):
    src = device.from_numpy(np.ones((20, 28), np.float16))
    dst = device.empty((20, 28), DT.ACL_FLOAT16, format=F.ACL_FORMAT_FRACTAL_NZ, storage_shape=[2, 2, 16, 16])
    ws, ex, ret = aclnn.aclnnNpuFormatCastGetWorkspaceSize(src, dst)
    assert ret == SUCCESS and ws == 0
    assert aclnn.aclnnNpuFormatCast(None, 0, ex, None) == SUCCESS
    assert aclnn.aclnnNpuFormatCast(None, 0, ex, None) == 561102


# --------------------------------------------------------------------- the Python helper

def test_helper_zz_zn_dn_carry_their_layout(backend):
    x = random_raw((2, 20, 28), DT.ACL_FLOAT16, np.random.default_rng(4))
    t = device.from_numpy(x, DT.ACL_FLOAT16)
    for name, layout in (("Zz", L.ZZ), ("Zn", L.ZN), ("DN", L.DN)):
        out = format_cast(t, name)
        assert isinstance(out, LayoutTensor) and out.layout is layout
        assert out.format == F.ACL_FORMAT_UNDEFINED        # aclFormat has no name for it
        assert same_bits(storage_of(out), ref_to_layout(x, name, 16))
        assert same_bits(device.to_numpy(format_cast(out, "ND"), raw=True), x)


def test_nd_operators_refuse_private_layouts():
    """Expand takes ND (and warns for NZ); a Zz tensor (no aclFormat) is refused with 161002."""
    zz = format_cast(device.from_numpy(np.ones((20, 28), np.float16)), "Zz")
    out = device.empty((20, 28), DT.ACL_FLOAT16)
    size = aclnn.aclCreateIntArray([20, 28])
    assert aclnn.aclnnExpandGetWorkspaceSize(zz, size, out)[2] == INVALID
    nc = format_cast(device.from_numpy(np.ones((1, 3, 2, 2), np.float16)), "NC1HWC0")
    out4 = device.empty((1, 3, 2, 2), DT.ACL_FLOAT16)
    assert aclnn.aclnnExpandGetWorkspaceSize(nc, aclnn.aclCreateIntArray([1, 3, 2, 2]), out4)[2] == INVALID


def test_helper_errors():
    t = device.from_numpy(np.ones((2, 3, 4, 5), np.float16), format=F.ACL_FORMAT_NHWC)
    nc = format_cast(t, "NC1HWC0")
    assert nc.origin == "NHWC" and nc.storage_shape == (2, 1, 3, 4, 16)
    with pytest.raises(AclnnError) as err:
        format_cast(nc, "NCHW")          # would permute the view
    assert err.value.code == INVALID
    back = format_cast(nc, "NHWC")
    assert back.format == F.ACL_FORMAT_NHWC
    with pytest.raises(AclnnError):
        format_cast(nc, "ND", c0=8)      # C0 disagrees with the storage
    with pytest.raises(AclnnError):
        format_cast(t, "NOPE")
    with pytest.raises(AclnnError):
        format_cast(None, "NZ")
