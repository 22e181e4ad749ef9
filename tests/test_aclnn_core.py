"""The C-style facade's core (docs/c-api.md#python-conventions, docs/views.md#tensors-and-views, docs/two-phase.md#the-two-phase-interface): tensors, int arrays, scalars and their getters
and destroy functions. A failing call returns None or its code and keeps the message for
aclGetRecentErrMsg(); it never raises for bad user input."""
from __future__ import annotations

import numpy as np
import pytest

import npu_emu
from npu_emu import aclDataType as DT
from npu_emu import aclFormat as F
from npu_emu import aclnn

ND = F.ACL_FORMAT_ND
GOOD = ([2, 3], DT.ACL_FLOAT, [3, 1], 0, ND, [2, 3], 0x2000)


def test_codes_are_module_constants():
    assert npu_emu.ACLNN_SUCCESS == 0
    assert npu_emu.ACLNN_ERR_PARAM_NULLPTR == 161001
    assert npu_emu.ACLNN_ERR_PARAM_INVALID == 161002
    assert npu_emu.ACLNN_ERR_RUNTIME_ERROR == 361001
    assert npu_emu.ACLNN_ERR_INNER == 561000
    assert npu_emu.ACLNN_ERR_INNER_INFERSHAPE_ERROR == 561001
    assert npu_emu.ACLNN_ERR_INNER_TILING_ERROR == 561002
    assert npu_emu.ACLNN_ERR_INNER_FIND_KERNEL_ERROR == 561003
    assert npu_emu.ACLNN_ERR_INNER_CREATE_EXECUTOR == 561101
    assert npu_emu.ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR == 561102
    assert npu_emu.ACLNN_ERR_INNER_NULLPTR == 561103
    err = npu_emu.AclnnError(161001, "why")
    assert (err.code, err.message) == (161001, "why")


# ------------------------------------------------------------------ aclCreateTensor

def test_create_tensor_and_getters():
    t = aclnn.aclCreateTensor(*GOOD)
    assert isinstance(t, npu_emu.Tensor)
    assert aclnn.aclGetViewShape(t) == ([2, 3], 0)
    assert aclnn.aclGetViewStrides(t) == ([3, 1], 0)
    assert aclnn.aclGetViewOffset(t) == (0, 0)
    assert aclnn.aclGetStorageShape(t) == ([2, 3], 0)
    assert aclnn.aclGetFormat(t) == (ND, 0)
    assert aclnn.aclGetDataType(t) == (DT.ACL_FLOAT, 0)
    assert t.data == 0x2000
    assert aclnn.aclDestroyTensor(t) == 0


def test_create_strided_tensor_and_getters():
    t = aclnn.aclCreateTensor([4, 3], DT.ACL_FLOAT16, [20, 2], 22, F.ACL_FORMAT_NC, [10, 10],
                              0x3000)
    assert aclnn.aclGetViewShape(t) == ([4, 3], 0)
    assert aclnn.aclGetViewStrides(t) == ([20, 2], 0)
    assert aclnn.aclGetViewOffset(t) == (22, 0)
    assert aclnn.aclGetStorageShape(t) == ([10, 10], 0)
    fmt, ret = aclnn.aclGetFormat(t)
    assert (fmt, ret) == (F.ACL_FORMAT_NC, 0) and isinstance(fmt, F)
    dtype, ret = aclnn.aclGetDataType(t)
    assert (dtype, ret) == (DT.ACL_FLOAT16, 0) and isinstance(dtype, DT)


def test_create_tensor_null_data_and_default_strides():
    t = aclnn.aclCreateTensor([0, 4], DT.ACL_INT8, None, 0, ND, [0, 4], None)
    assert isinstance(t, npu_emu.Tensor)
    assert aclnn.aclGetViewStrides(t) == ([4, 1], 0)


GETTERS = [aclnn.aclGetViewShape, aclnn.aclGetViewStrides, aclnn.aclGetViewOffset,
           aclnn.aclGetStorageShape, aclnn.aclGetFormat, aclnn.aclGetDataType]


@pytest.mark.parametrize("getter", GETTERS, ids=lambda g: g.__name__)
def test_getters_on_none(getter):
    assert getter(None) == (None, 161001)
    assert "nullptr" in aclnn.aclGetRecentErrMsg()


@pytest.mark.parametrize("getter", GETTERS, ids=lambda g: g.__name__)
@pytest.mark.parametrize("bad", ["tensor", 5, [2, 3], aclnn.aclCreateIntArray([1])])
def test_getters_on_something_else(getter, bad):
    value, ret = getter(bad)
    assert value is None and ret == 161002
    assert "aclTensor" in aclnn.aclGetRecentErrMsg()


def _fails(call, *args):
    """Run a facade constructor with bad input: it returns None, never raises."""
    aclnn.status.set_recent_error("")
    result = call(*args)
    assert result is None
    msg = aclnn.aclGetRecentErrMsg()
    assert msg
    return msg


@pytest.mark.parametrize("position, value, param", [
    (0, None, "view_shape"),
    (0, [2, -3], "view_shape"),
    (0, [2.0, 3], "view_shape"),
    (0, "23", "view_shape"),
    (0, 6, "view_shape"),
    (1, None, "dtype"),
    (1, "nope", "dtype"),
    (1, 999, "dtype"),
    (1, -7, "dtype"),
    (2, [3], "view_strides"),
    (2, [-3, 1], "view_strides"),
    (2, [3.0, 1], "view_strides"),
    (2, "31", "view_strides"),
    (3, -1, "storage_offset"),
    (3, 1.0, "storage_offset"),
    (3, "0", "storage_offset"),
    (3, None, "storage_offset"),
    (4, None, "format"),
    (4, "nope", "format"),
    (4, 999, "format"),
    (5, [2, 2], "storage_shape"),        # the view does not fit
    (5, [-6], "storage_shape"),
    (5, [6.0], "storage_shape"),
    (5, "6", "storage_shape"),
    (6, "0x2000", "tensorData"),
    (6, 1.5, "tensorData"),
])
def test_create_tensor_bad_input_returns_none_and_names_the_parameter(position, value, param):
    args = list(GOOD)
    args[position] = value
    msg = _fails(aclnn.aclCreateTensor, *args)
    assert param in msg, msg


def test_create_tensor_bad_input_after_a_good_call():
    assert aclnn.aclCreateTensor(*GOOD) is not None
    assert aclnn.aclCreateTensor([2, 3], DT.ACL_FLOAT, [3, 1], 1, ND, [2, 3], 0) is None
    assert "storage_shape" in aclnn.aclGetRecentErrMsg()


def test_destroy_tensor():
    assert aclnn.aclDestroyTensor(None) == 0          # as in CANN: destroying null is fine
    assert aclnn.aclDestroyTensor("tensor") == 161002
    assert "aclTensor" in aclnn.aclGetRecentErrMsg()


# ------------------------------------------------------------------ int arrays, scalars

def test_int_array():
    a = aclnn.aclCreateIntArray([4, -1, 2])
    assert isinstance(a, npu_emu.IntArray) and list(a) == [4, -1, 2]
    assert aclnn.aclCreateIntArray([]) is not None
    assert aclnn.aclDestroyIntArray(a) == 0
    assert aclnn.aclDestroyIntArray(None) == 0
    assert aclnn.aclDestroyIntArray([1, 2]) == 161002


@pytest.mark.parametrize("value", [None, [1.5], ["1"], "12", 3, [None], [True]])
def test_int_array_bad_input(value):
    msg = _fails(aclnn.aclCreateIntArray, value)
    assert "value" in msg


def test_scalar():
    s = aclnn.aclCreateScalar(1.5, DT.ACL_INT32)
    assert isinstance(s, npu_emu.Scalar) and s.dtype == DT.ACL_INT32 and s.to_python() == 1
    s = aclnn.aclCreateScalar(1.5, DT.ACL_BF16)
    assert s.to_python() == 1.5
    assert aclnn.aclDestroyScalar(s) == 0
    assert aclnn.aclDestroyScalar(None) == 0
    assert aclnn.aclDestroyScalar(1.5) == 161002


@pytest.mark.parametrize("value, dtype, param", [
    (None, DT.ACL_FLOAT, "value"),
    ("1", DT.ACL_FLOAT, "value"),
    ([1.0], DT.ACL_FLOAT, "value"),
    (1 + 1j, DT.ACL_INT32, "value"),
    (2**70, DT.ACL_INT64, "value"),
    (-3, DT.ACL_UINT32, "value"),
    (1.0, None, "dtype"),
    (1.0, "nope", "dtype"),
    (1.0, 999, "dtype"),
    (1.0, DT.ACL_HIFLOAT8, "dtype"),
    (1.0, DT.ACL_FLOAT4_E2M1, "dtype"),
])
def test_scalar_bad_input(value, dtype, param):
    msg = _fails(aclnn.aclCreateScalar, value, dtype)
    assert param in msg


# ------------------------------------------------------------------ nothing raises

class _Opaque:
    def __repr__(self) -> str:
        return "<opaque>"


BAD_VALUES = [None, "x", -1, -1.5, 2.5, [None], [-1], ["a"], _Opaque(), np.float64(1.5),
              {"a": 1}, [[1, 2]]]


@pytest.mark.parametrize("bad", BAD_VALUES, ids=repr)
def test_no_core_facade_call_raises(bad):
    # every argument position of every core facade call, one bad value at a time
    for position in range(len(GOOD)):
        args = list(GOOD)
        args[position] = bad
        aclnn.aclCreateTensor(*args)
    aclnn.aclCreateIntArray(bad)
    aclnn.aclCreateScalar(bad, DT.ACL_FLOAT)
    aclnn.aclCreateScalar(1.0, bad)
    for getter in GETTERS:
        assert getter(bad)[1] in (161001, 161002)
    for destroy in (aclnn.aclDestroyTensor, aclnn.aclDestroyIntArray, aclnn.aclDestroyScalar):
        assert destroy(bad) in (0, 161002)


def test_array_and_list_constructors_accept_good_input():
    t = aclnn.aclCreateTensor(*GOOD)
    assert list(aclnn.aclCreateFloatArray([1.5, 2])) == [1.5, 2.0]
    assert list(aclnn.aclCreateBoolArray([True, False])) == [True, False]
    assert list(aclnn.aclCreateTensorList([t, t])) == [t, t]
    for destroy in (aclnn.aclDestroyFloatArray, aclnn.aclDestroyBoolArray,
                    aclnn.aclDestroyTensorList):
        assert destroy(None) == 0


@pytest.mark.parametrize("bad", [None, "abc", 5, 2.5, _Opaque(), [None], [[1, 2]]], ids=repr)
@pytest.mark.parametrize("create", [aclnn.aclCreateFloatArray, aclnn.aclCreateBoolArray,
                                    aclnn.aclCreateTensorList], ids=lambda f: f.__name__)
def test_array_and_list_constructors_refuse_bad_input(create, bad):
    # A non-sequence, or an entry of the wrong type, is a user error: None and a message, as
    # for aclCreateIntArray -- never a Python exception, never a silently built array.
    aclnn.status.set_recent_error("")
    try:
        result = create(bad)
    except Exception as exc:   # noqa: BLE001 -- the point of the test
        pytest.fail(f"{create.__name__}({bad!r}) raised {type(exc).__name__}: {exc}")
    assert result is None
    assert aclnn.aclGetRecentErrMsg()
