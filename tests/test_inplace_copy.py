"""aclnnInplaceCopy (docs/operators.md#aclnninplacecopy): views on both sides, broadcasting, every dtype pair of its
list, the error rows, overlapping views."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from npu_emu import aclnn, device
from npu_emu.dtypes import INFO, aclDataType as DT
from npu_emu.ops.inplace_copy import DTYPES
from npu_emu.status import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS
from npu_emu.tensor import make_tensor

from helpers import (bits, contiguous, convertible_values, host_values, host_view, injective_views,
                     readable_views, reference_convert, storage_tensor)

ALL = sorted(DTYPES)


def run_copy(self_ref, src):
    ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(self_ref, src)
    if ret != ACLNN_SUCCESS:
        return ret
    wsp = device.empty([ws], "u8") if ws else None
    return aclnn.aclnnInplaceCopy(wsp.data if wsp else None, ws, ex, None)


@st.composite
def copy_cases(draw):
    src_dt = draw(st.sampled_from(ALL))
    dst_dt = draw(st.sampled_from(ALL))
    rank = draw(st.integers(0, 8))
    shape = draw(st.lists(st.integers(0, 3) if rank <= 4 else st.integers(1, 2),
                          min_size=rank, max_size=rank))
    lead = draw(st.integers(0, rank))
    src_shape = [1 if draw(st.booleans()) else n for n in shape[lead:]]
    complex_pair = INFO[src_dt].kind == "complex" and INFO[dst_dt].kind == "complex"
    if complex_pair:  # only into a contiguous selfRef (docs/operators.md#aclnninplacecopy)
        dst_geom = ([int(np.prod(shape[i + 1:])) for i in range(rank)], 0, max(int(np.prod(shape)), 1))
    else:
        dst_geom = draw(injective_views(shape))
    return src_dt, dst_dt, shape, src_shape, draw(readable_views(src_shape)), dst_geom, draw(st.integers(0, 2**31))


@given(copy_cases())
def test_inplace_copy_matches_reference(backend, case):
    src_dt, dst_dt, shape, src_shape, (ss, so, sl), (ds, do, dl), seed = case
    rng = np.random.default_rng(seed)
    src_vals = convertible_values(rng, src_dt, dst_dt, sl)
    dst_vals = host_values(rng, dst_dt, dl)
    src = storage_tensor(src_vals, src_dt, src_shape, ss, so)
    dst = storage_tensor(dst_vals, dst_dt, shape, ds, do)
    before = device.storage_to_numpy(dst)
    assert run_copy(dst, src) == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    want = bits(before).copy()
    if all(shape):
        expanded = np.broadcast_to(host_view(np.asarray(src_vals), src_shape, ss, so), shape)
        host_view(want, shape, ds, do)[...] = reference_convert(contiguous(expanded), src_dt, dst_dt).reshape(shape)
    np.testing.assert_array_equal(bits(device.storage_to_numpy(dst)), want)


@pytest.mark.parametrize("src_dt", ALL, ids=lambda d: d.name)
@pytest.mark.parametrize("dst_dt", ALL, ids=lambda d: d.name)
def test_every_pair_of_the_list(backend, src_dt, dst_dt):
    rng = np.random.default_rng(int(src_dt) * 100 + int(dst_dt))
    vals = convertible_values(rng, src_dt, dst_dt, 64)
    src = storage_tensor(vals, src_dt, [8, 8], [8, 1], 0)
    dst = device.empty([8, 8], dst_dt)
    assert run_copy(dst, src) == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    np.testing.assert_array_equal(bits(device.storage_to_numpy(dst)),
                                  reference_convert(vals, src_dt, dst_dt))


def _t(shape, dt=DT.ACL_FLOAT, fill=0):
    return device.from_numpy(np.full(shape, fill, np.float32), dt)


def _desc(shape, dt, strides=None, fmt="ND", storage=None):
    """A descriptor of any dtype/format over fresh device memory it keeps alive."""
    storage = storage or shape
    base = device.empty([int(np.prod(storage)) * 16], DT.ACL_UINT8)
    return make_tensor(shape, dt, strides, 0, fmt, storage, base.data, owner=base.owner)


ERROR_ROWS = [
    ("selfRef None", lambda: (None, _t([2])), ACLNN_ERR_PARAM_NULLPTR),
    ("src None", lambda: (_t([2]), None), ACLNN_ERR_PARAM_NULLPTR),
    ("selfRef dtype", lambda: (_desc([2], DT.ACL_COMPLEX32), _t([2])), ACLNN_ERR_PARAM_INVALID),
    ("src dtype", lambda: (_t([2]), _desc([2], DT.ACL_COMPLEX32)), ACLNN_ERR_PARAM_INVALID),
    ("selfRef 9-D", lambda: (_t([1] * 9), _t([1])), ACLNN_ERR_PARAM_INVALID),
    ("src 9-D", lambda: (_t([1]), _t([1] * 9)), ACLNN_ERR_PARAM_INVALID),
    ("not broadcastable", lambda: (_t([4, 3]), _t([2, 3])), ACLNN_ERR_PARAM_INVALID),
    ("broadcast grows selfRef", lambda: (_t([1, 3]), _t([4, 3])), ACLNN_ERR_PARAM_INVALID),
    ("complex into a strided selfRef", lambda: (_desc([2], DT.ACL_COMPLEX64, [2], storage=[4]), _t([2], DT.ACL_COMPLEX64)), ACLNN_ERR_PARAM_INVALID),
    ("private format src", lambda: (_t([2, 2]), _desc([2, 2], DT.ACL_FLOAT, fmt="NC1HWC0")), ACLNN_ERR_PARAM_INVALID),
]


@pytest.mark.parametrize("name,make,code", ERROR_ROWS, ids=[r[0] for r in ERROR_ROWS])
def test_error_rows(backend, name, make, code):
    self_ref, src = make()
    keep = device.storage_to_numpy(self_ref).copy() if self_ref is not None else None
    ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(self_ref, src)
    assert (ret, ex, ws) == (code, None, 0)
    assert aclnn.aclGetRecentErrMsg()
    if keep is not None:
        np.testing.assert_array_equal(bits(device.storage_to_numpy(self_ref)), bits(keep))


def test_broadcast_message_follows_cann():
    assert run_copy(_t([1, 3]), _t([4, 3])) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclGetRecentErrMsg() == "Shape of broadcast result should be [4,3], but self is [1,3]."


# docs/operators.md#aclnninplacecopy's UT conformance list.
@pytest.mark.parametrize("self_shape,src_shape,src_dt,dst_dt", [
    ([2, 3], [2, 3], DT.ACL_FLOAT, DT.ACL_FLOAT),
    ([2, 3], [2, 3], DT.ACL_DOUBLE, DT.ACL_FLOAT16),
    ([2, 3], [2, 3], DT.ACL_FLOAT, DT.ACL_INT32),
    ([2, 3], [2, 3], DT.ACL_DOUBLE, DT.ACL_COMPLEX64),
    ([2, 3], [2, 3], DT.ACL_UINT32, DT.ACL_UINT16),
    ([2, 3], [2, 3], DT.ACL_UINT32, DT.ACL_UINT64),
    ([4, 5], [4, 1], DT.ACL_FLOAT, DT.ACL_FLOAT),
    ([4, 5], [1, 5], DT.ACL_INT32, DT.ACL_INT32),
    ([4, 5], [1, 5], DT.ACL_DOUBLE, DT.ACL_DOUBLE),
    ([4, 5], [1, 5], DT.ACL_FLOAT16, DT.ACL_INT32),
    ([4, 5], [1, 5], DT.ACL_FLOAT, DT.ACL_INT32),
    ([4, 5], [1, 5], DT.ACL_FLOAT, DT.ACL_DOUBLE),
    ([4, 5], [1, 5], DT.ACL_INT64, DT.ACL_INT8),
    ([4, 5], [1, 5], DT.ACL_FLOAT, DT.ACL_BOOL),
    ([2, 3], [2, 3], DT.ACL_BF16, DT.ACL_FLOAT),
    ([2, 3], [2, 3], DT.ACL_FLOAT, DT.ACL_BF16),
    ([2, 3], [2, 3], DT.ACL_COMPLEX64, DT.ACL_FLOAT),
    ([2, 0], [2, 0], DT.ACL_FLOAT, DT.ACL_FLOAT),
])
def test_cann_unit_test_conformance(backend, self_shape, src_shape, src_dt, dst_dt):
    rng = np.random.default_rng(7)
    n = int(np.prod(src_shape))
    vals = convertible_values(rng, src_dt, dst_dt, n)
    src = storage_tensor(vals, src_dt, src_shape, [int(np.prod(src_shape[i + 1:])) for i in range(len(src_shape))], 0)
    dst = device.empty(self_shape, dst_dt)
    assert run_copy(dst, src) == ACLNN_SUCCESS
    if n:
        want = reference_convert(np.broadcast_to(vals.reshape(src_shape), self_shape).copy(), src_dt, dst_dt)
        np.testing.assert_array_equal(bits(device.to_numpy(dst, raw=True)).reshape(-1), want.reshape(-1))


def test_values_that_convert_by_the_documented_rules(backend):
    """float -> int truncates toward zero, nonzero -> true, complex -> real part."""
    src = device.from_numpy(np.array([2.9, -2.9, 0.0, -0.0, 0.5], np.float32))
    out = device.empty([5], DT.ACL_INT32)
    assert run_copy(out, src) == ACLNN_SUCCESS
    np.testing.assert_array_equal(device.to_numpy(out), [2, -2, 0, 0, 0])
    out_b = device.empty([5], DT.ACL_BOOL)
    assert run_copy(out_b, src) == ACLNN_SUCCESS
    np.testing.assert_array_equal(device.to_numpy(out_b), [True, True, False, False, True])
    c = device.from_numpy(np.array([1.5 + 2j, -3 - 4j], np.complex64))
    out_f = device.empty([2], DT.ACL_FLOAT)
    assert run_copy(out_f, c) == ACLNN_SUCCESS
    np.testing.assert_array_equal(device.to_numpy(out_f), [1.5, -3.0])


def test_overlapping_views_read_before_write(backend):
    """selfRef and src views of one storage, shifted by one: the source is read first."""
    store = device.from_numpy(np.arange(10, dtype=np.float32))
    src = make_tensor([9], "f32", [1], 0, "ND", [10], store.data, owner=store.owner)
    dst = make_tensor([9], "f32", [1], 1, "ND", [10], store.data, owner=store.owner)
    ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(dst, src)
    assert ret == ACLNN_SUCCESS and ws >= 36
    wsp = device.empty([ws], "u8")
    assert aclnn.aclnnInplaceCopy(wsp.data, ws, ex, None) == ACLNN_SUCCESS
    np.testing.assert_array_equal(device.storage_to_numpy(store), [0, 0, 1, 2, 3, 4, 5, 6, 7, 8])


def test_empty_tensors_do_nothing(backend):
    ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(_t([2, 0]), _t([2, 0]))
    assert (ws, ret) == (0, ACLNN_SUCCESS) and ex.plan.launches == []


def test_low_precision_same_dtype_copies_raw_bits(backend):
    """bf16/fp8/HiFloat8 copies of the same dtype move bits untouched, NaN payloads too."""
    for dt in (DT.ACL_BF16, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN, DT.ACL_HIFLOAT8, DT.ACL_FLOAT8_E8M0):
        size = INFO[dt].itemsize
        codes = np.arange(256 if size == 1 else 65536, dtype=INFO[dt].storage)
        src = device.from_numpy(codes, dt)  # the storage dtype: taken as raw codes
        dst = device.empty([codes.size], dt)
        assert run_copy(dst, src) == ACLNN_SUCCESS
        np.testing.assert_array_equal(bits(device.storage_to_numpy(dst)), bits(codes))

