"""aclnnExpand (docs/operators.md#aclnnexpand) against NumPy's broadcast_to, and every error row of its checks."""
from __future__ import annotations

import logging

import numpy as np
import pytest
from hypothesis import given, strategies as st

import npu_emu
from npu_emu import aclnn, device
from npu_emu.dtypes import aclDataType as DT
from npu_emu.status import (ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR, ACLNN_ERR_PARAM_INVALID,
                            ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS)
from npu_emu.tensor import make_tensor

from helpers import bits, host_values, host_view, injective_views, raw, readable_views, storage_tensor

EXPAND_910B = [DT.ACL_FLOAT16, DT.ACL_FLOAT, DT.ACL_UINT8, DT.ACL_INT8, DT.ACL_INT32,
               DT.ACL_INT64, DT.ACL_BOOL, DT.ACL_BF16]


def run_expand(self_t, size, out_t):
    ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(self_t, aclnn.aclCreateIntArray(size), out_t)
    if ret != ACLNN_SUCCESS:
        return ret
    wsp = device.empty([ws], "u8") if ws else None
    ret = aclnn.aclnnExpand(wsp.data if wsp else None, ws, ex, None)
    return ret


@st.composite
def expand_cases(draw):
    dtype = draw(st.sampled_from(EXPAND_910B))
    rank = draw(st.integers(0, 6))
    self_shape = draw(st.lists(st.sampled_from([1, 1, 2, 3]), min_size=rank, max_size=rank))
    lead = draw(st.lists(st.integers(0, 3), min_size=0, max_size=8 - rank))
    size, out_shape = list(lead), list(lead)
    for n in self_shape:
        choice = draw(st.sampled_from(["keep", "same", "grow"] if n == 1 else ["keep", "same"]))
        if choice == "keep":
            size.append(-1)
            out_shape.append(n)
        elif choice == "same":
            size.append(n)
            out_shape.append(n)
        else:
            m = draw(st.integers(0, 3))
            size.append(m)
            out_shape.append(m)
    s_strides, s_off, s_len = draw(readable_views(self_shape))
    o_strides, o_off, o_len = draw(injective_views(out_shape))
    return dtype, self_shape, size, out_shape, (s_strides, s_off, s_len), (o_strides, o_off, o_len), draw(st.integers(0, 2**31))


@given(expand_cases())
def test_expand_matches_numpy(backend, case):
    dtype, self_shape, size, out_shape, (ss, so, sl), (os_, oo, ol), seed = case
    rng = np.random.default_rng(seed)
    self_store = host_values(rng, dtype, sl)
    out_store = host_values(rng, dtype, ol)
    self_t = storage_tensor(self_store, dtype, self_shape, ss, so)
    out_t = storage_tensor(out_store, dtype, out_shape, os_, oo)
    assert run_expand(self_t, size, out_t) == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    want = out_store.copy()
    if all(out_shape):
        host_view(want, out_shape, os_, oo)[...] = np.broadcast_to(host_view(self_store, self_shape, ss, so), out_shape)
    got = device.storage_to_numpy(out_t)
    np.testing.assert_array_equal(bits(got), raw(want, dtype))


def _t(shape, dtype=DT.ACL_FLOAT, fill=0):
    return device.from_numpy(np.full(shape, fill, dtype=np.float32), dtype)


def _untouched(out_t, fill):
    return (device.to_numpy(out_t).astype(np.float64) == fill).all()


# The error rows of docs/operators.md#aclnnexpand, each with its code; out must not be touched.
ERROR_ROWS = [
    ("self None", lambda: (None, [2, 2], _t([2, 2])), ACLNN_ERR_PARAM_NULLPTR),
    ("size None", lambda: (_t([2, 2]), None, _t([2, 2])), ACLNN_ERR_PARAM_NULLPTR),
    ("out None", lambda: (_t([2, 2]), [2, 2], None), ACLNN_ERR_PARAM_NULLPTR),
    ("dtype mismatch", lambda: (_t([2, 2]), [2, 2], _t([2, 2], DT.ACL_FLOAT16)), ACLNN_ERR_PARAM_INVALID),
    ("f64 not in list", lambda: (_t([2, 2], DT.ACL_DOUBLE), [2, 2], _t([2, 2], DT.ACL_DOUBLE)), ACLNN_ERR_PARAM_INVALID),
    ("size too short", lambda: (_t([2, 2, 2]), [2, 2], _t([2, 2])), ACLNN_ERR_PARAM_INVALID),
    ("size does not match", lambda: (_t([2, 2]), [2, 3], _t([2, 3])), ACLNN_ERR_PARAM_INVALID),
    ("out shape wrong", lambda: (_t([2, 2]), [2, 2], _t([2, 3])), ACLNN_ERR_PARAM_INVALID),
    ("new dim -1", lambda: (_t([2]), [-1, 2], _t([1, 2])), ACLNN_ERR_PARAM_INVALID),
    ("negative size", lambda: (_t([1]), [-3], _t([1])), ACLNN_ERR_PARAM_INVALID),
    ("9-D", lambda: (_t([1] * 9), [1] * 9, _t([1] * 9)), ACLNN_ERR_PARAM_INVALID),
    ("private format out", lambda: (_t([2, 2]), [2, 2], make_tensor([2, 2], "f32", None, 0, "FRACTAL_Z", [2, 2], _t([2, 2]).data)), ACLNN_ERR_PARAM_INVALID),
    ("NCHW on 2-D", lambda: (_t([2, 2]), [2, 2], make_tensor([2, 2], "f32", None, 0, "NCHW", [2, 2], _t([2, 2]).data)), ACLNN_ERR_PARAM_INVALID),
]


@pytest.mark.parametrize("name,make,code", ERROR_ROWS, ids=[r[0] for r in ERROR_ROWS])
def test_error_rows(backend, name, make, code):
    self_t, size, out_t = make()
    size_arr = None if size is None else aclnn.aclCreateIntArray(size)
    if out_t is not None and out_t.owner is not None:
        device_fill = device.to_numpy(out_t).copy()
    ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(self_t, size_arr, out_t)
    assert ret == code
    assert ex is None and ws == 0
    msg = aclnn.aclGetRecentErrMsg()
    assert msg
    if code == ACLNN_ERR_PARAM_NULLPTR:
        assert "nullptr" in msg
    if out_t is not None and out_t.owner is not None:
        np.testing.assert_array_equal(device.to_numpy(out_t), device_fill)


def test_messages_follow_cann():
    assert run_expand(_t([2, 2]), [2, 3], _t([2, 3])) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclGetRecentErrMsg() == "the self shape [2,2] is not match size [2,3]."
    assert run_expand(_t([2, 2], DT.ACL_DOUBLE), [2, 2], _t([2, 2], DT.ACL_DOUBLE)) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclGetRecentErrMsg().startswith("Tensor self not implemented for DT_DOUBLE, should be in dtype support list")
    assert run_expand(_t([1] * 9), [1] * 9, _t([1] * 9)) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclGetRecentErrMsg() == "The self tensor cannot be larger than 8 dimensions."
    assert run_expand(None, [1], _t([1])) == ACLNN_ERR_PARAM_NULLPTR
    assert aclnn.aclGetRecentErrMsg() == "Expected a value of type [aclTensor] for argument [self] but instead found nullptr."


# docs/operators.md#aclnnexpand's UT conformance list (CANN's own unit tests).
def test_cann_unit_test_conformance(backend):
    ok = ACLNN_SUCCESS
    assert run_expand(_t([2, 2]), [2, 2], _t([2, 2])) == ok
    for dt in (DT.ACL_FLOAT16, DT.ACL_UINT8, DT.ACL_INT8, DT.ACL_INT32, DT.ACL_BOOL, DT.ACL_BF16):
        assert run_expand(_t([2, 2], dt), [2, 2], _t([2, 2], dt)) == ok, dt
    assert run_expand(_t([2, 2], DT.ACL_DOUBLE), [2, 2], _t([2, 2], DT.ACL_DOUBLE)) == ACLNN_ERR_PARAM_INVALID
    assert run_expand(_t([2, 2]), [2, 2], _t([2, 2], DT.ACL_DOUBLE)) == ACLNN_ERR_PARAM_INVALID
    for fmt, rank in (("NCHW", 4), ("NHWC", 4), ("HWCN", 4), ("NCDHW", 5), ("NDHWC", 5)):
        shape = [2] * rank
        a, b = _t(shape), _t(shape)
        a = make_tensor(shape, "f32", None, 0, fmt, shape, a.data, owner=a.owner)
        b = make_tensor(shape, "f32", None, 0, fmt, shape, b.data, owner=b.owner)
        assert run_expand(a, shape, b) == ok, fmt
    assert run_expand(_t([2, 2]), [2, 3], _t([2, 3])) == ACLNN_ERR_PARAM_INVALID
    assert run_expand(_t([2, 2]), [2, 2], _t([2, 3])) == ACLNN_ERR_PARAM_INVALID
    assert run_expand(_t([2, 2, 2]), [2, 2], _t([2, 2])) == ACLNN_ERR_PARAM_INVALID
    base = device.from_numpy(np.arange(8, dtype=np.float32))
    strided = make_tensor([2, 4], "f32", [1, 2], 0, "ND", [4, 2], base.data, owner=base.owner)
    out = _t([2, 4])
    assert run_expand(strided, [2, 4], out) == ok
    np.testing.assert_array_equal(device.to_numpy(out), np.arange(8, dtype=np.float32).reshape(4, 2).T)
    assert run_expand(_t([2, 0, 2]), [2, 0, 2], _t([2, 0, 2])) == ok
    assert run_expand(_t([1] * 9), [1] * 9, _t([1] * 9)) == ACLNN_ERR_PARAM_INVALID


def test_empty_tensors_short_circuit(backend):
    ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(_t([2, 0, 2]), aclnn.aclCreateIntArray([2, 0, 2]), _t([2, 0, 2]))
    assert (ws, ret) == (0, ACLNN_SUCCESS)
    assert ex.plan.launches == []
    out = _t([3, 0], fill=5)
    ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(_t([1, 1]), aclnn.aclCreateIntArray([3, 0]), out)
    assert ret == ACLNN_SUCCESS and ex.plan.launches == []   # a dim of 1 may expand to 0


def test_zero_dim_self_with_empty_size_is_a_copy(backend):
    src = device.from_numpy(np.array(3.5, np.float32))
    out = _t([], fill=0)
    assert run_expand(src, [], out) == ACLNN_SUCCESS
    assert device.to_numpy(out)[()] == 3.5
    out2 = _t([2, 3])
    assert run_expand(src, [2, 3], out2) == ACLNN_SUCCESS
    assert (device.to_numpy(out2) == 3.5).all()


def test_per_soc_dtype_lists(backend):
    for soc, ok in (("Ascend910", False), ("Ascend310P", False), ("Ascend910B", True),
                    ("Ascend910_93", True), ("Ascend950", True)):
        with npu_emu.soc(soc):
            ret = run_expand(_t([2], DT.ACL_BF16), [2, 2], _t([2, 2], DT.ACL_BF16))
            assert (ret == ACLNN_SUCCESS) == ok, soc
            if not ok:
                assert "DT_BF16" in aclnn.aclGetRecentErrMsg()
            assert run_expand(_t([2]), [2, 2], _t([2, 2])) == ACLNN_SUCCESS
    with npu_emu.soc("Ascend310B"):
        assert run_expand(_t([2]), [2, 2], _t([2, 2])) == ACLNN_ERR_PARAM_INVALID
        assert "not supported on Ascend310B" in aclnn.aclGetRecentErrMsg()


def test_fractal_nz_self_only_warns(backend, caplog):
    base = device.from_numpy(np.arange(4, dtype=np.float32))
    nz = make_tensor([2, 2], "f32", None, 0, "FRACTAL_NZ", [2, 2], base.data, owner=base.owner)
    with caplog.at_level(logging.WARNING, logger="npu_emu"):
        assert run_expand(nz, [2, 2], _t([2, 2])) == ACLNN_SUCCESS
    assert "precision failure" in caplog.text


def test_executor_runs_once_unless_repeatable(backend):
    src = device.from_numpy(np.array([[1, 2]], np.float32))
    out = _t([2, 2])
    ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(src, aclnn.aclCreateIntArray([2, 2]), out)
    assert aclnn.aclnnExpand(None, 0, ex, None) == ACLNN_SUCCESS
    assert aclnn.aclnnExpand(None, 0, ex, None) == ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR
    assert "already run" in aclnn.aclGetRecentErrMsg()
    ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(src, aclnn.aclCreateIntArray([2, 2]), out)
    assert aclnn.aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS
    for _ in range(3):
        assert aclnn.aclnnExpand(None, 0, ex, None) == ACLNN_SUCCESS
    # rebind the output to another buffer and run again
    other = _t([2, 2], fill=9)
    assert aclnn.aclSetOutputTensorAddr(ex, 0, out, other.data) == ACLNN_SUCCESS
    assert aclnn.aclnnExpand(None, 0, ex, None) == ACLNN_SUCCESS
    np.testing.assert_array_equal(device.to_numpy(other), [[1, 2], [1, 2]])
    assert aclnn.aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS
    assert aclnn.aclnnExpand(None, 0, ex, None) != ACLNN_SUCCESS
    assert aclnn.aclnnExpand(None, 0, None, None) == ACLNN_ERR_PARAM_NULLPTR


def test_overlapping_self_and_out_read_first(backend):
    """out is a view of the same storage as self: the result is as if self were read first."""
    store = device.from_numpy(np.arange(6, dtype=np.float32))
    self_t = make_tensor([1, 3], "f32", [3, 1], 0, "ND", [6], store.data, owner=store.owner)   # 0 1 2
    out_t = make_tensor([2, 3], "f32", [3, 1], 0, "ND", [6], store.data, owner=store.owner)    # all 6
    ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(self_t, aclnn.aclCreateIntArray([2, 3]), out_t)
    assert ret == ACLNN_SUCCESS and ws > 0
    wsp = device.empty([ws], "u8")
    assert aclnn.aclnnExpand(None, ws, ex, None) == ACLNN_ERR_PARAM_NULLPTR  # workspace required
    assert aclnn.aclnnExpand(wsp.data, ws - 1, ex, None) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclnnExpand(wsp.data, ws, ex, None) == ACLNN_SUCCESS
    np.testing.assert_array_equal(device.storage_to_numpy(store), [0, 1, 2, 0, 1, 2])


def test_memory_outside_the_pool_is_refused(backend):
    rogue = make_tensor([2, 2], "f32", None, 0, "ND", [2, 2], 0x1000)
    assert run_expand(rogue, [2, 2], _t([2, 2])) == ACLNN_ERR_PARAM_INVALID
    assert "not inside one live allocation" in aclnn.aclGetRecentErrMsg()
    small = device.from_numpy(np.zeros(2, np.float32))
    too_big = make_tensor([2, 2], "f32", None, 0, "ND", [2, 2], small.data, owner=small.owner)
    assert run_expand(_t([2, 2]), [2, 2], too_big) == ACLNN_ERR_PARAM_INVALID


def test_an_internal_failure_is_a_status_not_an_exception(backend, monkeypatch):
    """A kernel that cannot be built gives 561003 and a message, not a Python exception."""
    import npu_emu.ops._plans as plans
    from npu_emu.runtime.cpu import CompileError

    def broken(*args, **kwargs):
        raise CompileError("g++ exploded")
    monkeypatch.setattr(plans, "plan_cast", broken)
    ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(_t([1, 2]), aclnn.aclCreateIntArray([2, 2]), _t([2, 2]))
    assert (ws, ex, ret) == (0, None, 561003)
    assert "g++ exploded" in aclnn.aclGetRecentErrMsg()
