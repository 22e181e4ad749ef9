"""aclnnCast (docs/operators.md): per-SoC dtype lists, values on views, the error rows."""
from __future__ import annotations

import logging

import numpy as np
import pytest
from hypothesis import given, strategies as st

import npu_emu
from npu_emu import aclnn, device
from npu_emu.dtypes import aclDataType as DT
from npu_emu.status import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS
from npu_emu.tensor import make_tensor

from helpers import (bits, contiguous, convertible_values, host_values, host_view, injective_views,
                     readable_views, reference_convert, storage_tensor)


def run_cast(self_t, dtype, out):
    ws, ex, ret = aclnn.aclnnCastGetWorkspaceSize(self_t, dtype, out)
    if ret != ACLNN_SUCCESS:
        return ret
    wsp = device.empty([ws], "u8") if ws else None
    return aclnn.aclnnCast(wsp.data if wsp else None, ws, ex, None)


@st.composite
def cast_cases(draw, soc):
    dtypes = sorted(npu_emu.SOCS[soc].dtypes_for("Cast"))
    src_dt, dst_dt = draw(st.sampled_from(dtypes)), draw(st.sampled_from(dtypes))
    if DT.ACL_COMPLEX32 in (src_dt, dst_dt):
        src_dt = dst_dt = DT.ACL_FLOAT  # complex32 has its own test below
    rank = draw(st.integers(0, 5))
    shape = draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank))
    return (src_dt, dst_dt, shape, draw(readable_views(shape)), draw(injective_views(shape)),
            draw(st.integers(0, 2**31)))


@pytest.mark.parametrize("soc", ["Ascend910", "Ascend910B", "Ascend950"])
@given(data=st.data())
def test_cast_matches_reference(backend, soc, data):
    with npu_emu.soc(soc):
        src_dt, dst_dt, shape, (ss, so, sl), (ds, do, dl), seed = data.draw(cast_cases(soc))
        rng = np.random.default_rng(seed)
        vals = convertible_values(rng, src_dt, dst_dt, sl)
        src = storage_tensor(vals, src_dt, shape, ss, so)
        out = storage_tensor(host_values(rng, dst_dt, dl), dst_dt, shape, ds, do)
        want = bits(device.storage_to_numpy(out)).copy()
        assert run_cast(src, dst_dt, out) == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
        if all(shape):
            host_view(want, shape, ds, do)[...] = reference_convert(
                contiguous(host_view(np.asarray(vals), shape, ss, so)), src_dt, dst_dt).reshape(shape)
        np.testing.assert_array_equal(bits(device.storage_to_numpy(out)), want)


def test_complex32_on_ascend950(backend):
    vals = np.array([1.5 - 2j, 65504 + 0.25j, -0.0 + 3j], np.complex64)
    with npu_emu.soc("Ascend950"):
        src = device.from_numpy(vals)
        half = device.empty([3], DT.ACL_COMPLEX32)
        assert run_cast(src, DT.ACL_COMPLEX32, half) == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
        pairs = device.storage_to_numpy(half).view(np.uint16).reshape(3, 2)
        np.testing.assert_array_equal(pairs[:, 0], vals.real.astype(np.float16).view(np.uint16))
        np.testing.assert_array_equal(pairs[:, 1], vals.imag.astype(np.float16).view(np.uint16))
        back = device.empty([3], DT.ACL_COMPLEX64)
        assert run_cast(half, DT.ACL_COMPLEX64, back) == ACLNN_SUCCESS
        np.testing.assert_array_equal(device.to_numpy(back),
                                      (vals.real.astype(np.float16) + 1j * vals.imag.astype(np.float16)).astype(np.complex64))
    with npu_emu.soc("Ascend910B"):
        assert run_cast(device.from_numpy(vals), DT.ACL_COMPLEX32, device.empty([3], DT.ACL_COMPLEX32)) == ACLNN_ERR_PARAM_INVALID


def _t(shape, dt=DT.ACL_FLOAT):
    return device.from_numpy(np.zeros(shape, np.float32), dt)


@pytest.mark.parametrize("soc,dtype,ok", [
    ("Ascend910", DT.ACL_BF16, False), ("Ascend310P", DT.ACL_BF16, False),
    ("Ascend910B", DT.ACL_BF16, True), ("Ascend950", DT.ACL_BF16, True),
    ("Ascend910B", DT.ACL_HIFLOAT8, False), ("Ascend950", DT.ACL_HIFLOAT8, True),
    ("Ascend910B", DT.ACL_FLOAT8_E4M3FN, False), ("Ascend950", DT.ACL_FLOAT8_E5M2, True),
])
def test_per_soc_lists(backend, soc, dtype, ok):
    with npu_emu.soc(soc):
        ret = run_cast(_t([4]), dtype, device.empty([4], dtype))
        assert (ret == ACLNN_SUCCESS) == ok
        if not ok:
            assert aclnn.aclGetRecentErrMsg().startswith("The param dtype not implemented for")


@pytest.mark.parametrize("name,args,code", [
    ("self None", lambda: (None, DT.ACL_FLOAT, _t([2])), ACLNN_ERR_PARAM_NULLPTR),
    ("out None", lambda: (_t([2]), DT.ACL_FLOAT, None), ACLNN_ERR_PARAM_NULLPTR),
    ("self dtype", lambda: (_t([2], DT.ACL_HIFLOAT8), DT.ACL_FLOAT, _t([2])), ACLNN_ERR_PARAM_INVALID),
    ("dtype not a dtype", lambda: (_t([2]), 999, _t([2])), ACLNN_ERR_PARAM_INVALID),
    ("out dtype differs", lambda: (_t([2]), DT.ACL_INT32, _t([2])), ACLNN_ERR_PARAM_INVALID),
    ("shape differs", lambda: (_t([2]), DT.ACL_FLOAT, _t([3])), ACLNN_ERR_PARAM_INVALID),
    ("9-D", lambda: (_t([1] * 9), DT.ACL_FLOAT, _t([1] * 9)), ACLNN_ERR_PARAM_INVALID),
])
def test_error_rows(backend, name, args, code):
    self_t, dtype, out = args()
    ws, ex, ret = aclnn.aclnnCastGetWorkspaceSize(self_t, dtype, out)
    assert (ret, ex, ws) == (code, None, 0)
    assert aclnn.aclGetRecentErrMsg()


def test_private_format_only_warns(backend, caplog):
    base = device.from_numpy(np.arange(4, dtype=np.float32))
    nz = make_tensor([2, 2], "f32", None, 0, "FRACTAL_NZ", [2, 2], base.data, owner=base.owner)
    out = device.empty([2, 2], DT.ACL_FLOAT16)
    with caplog.at_level(logging.WARNING, logger="npu_emu"):
        assert run_cast(nz, DT.ACL_FLOAT16, out) == ACLNN_SUCCESS
    assert "FRACTAL_NZ" in caplog.text
    np.testing.assert_array_equal(device.to_numpy(out), np.arange(4, dtype=np.float16).reshape(2, 2))


def test_empty_self(backend):
    ws, ex, ret = aclnn.aclnnCastGetWorkspaceSize(_t([0, 3]), DT.ACL_INT8, device.empty([0, 3], DT.ACL_INT8))
    assert (ws, ret) == (0, ACLNN_SUCCESS) and ex.plan.launches == []
