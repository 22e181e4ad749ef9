"""The aclTensor model (docs/views.md#tensors-and-views): validation of views over storage, contiguity, numel,
addresses; aclIntArray and aclScalar."""
from __future__ import annotations

import itertools
import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npu_emu
from npu_emu import aclDataType as DT
from npu_emu import aclFormat as F
from npu_emu.tensor import (IntArray, Scalar, Tensor, make_int_array, make_scalar,
                            make_tensor)

MAX_INDEX_SPACE = 4096   # keeps the brute-force enumeration fast


def touched_addresses(shape, strides, offset):
    """Every element index the view touches, by enumerating its whole index space."""
    return {offset + sum(i * s for i, s in zip(index, strides))
            for index in itertools.product(*(range(n) for n in shape))}


@st.composite
def geometries(draw):
    rank = draw(st.integers(0, 8))
    shape, room = [], MAX_INDEX_SPACE
    for _ in range(rank):
        n = min((draw(st.integers(0, 12)) + 1) // 2, room)   # sizes 0..6, 0 half as often
        shape.append(n)
        room = room // max(n, 1)
    strides = draw(st.lists(st.integers(0, 30), min_size=rank, max_size=rank))
    offset = draw(st.integers(0, 50))
    if draw(st.booleans()):
        # storage near the view's end, so both outcomes are frequent
        end = offset + sum((n - 1) * s for n, s in zip(shape, strides) if n > 0) + 1
        total = max(0, end + draw(st.integers(-3, 3)))
        split = draw(st.sampled_from([(total,), (1, total), (total, 1)]))
        storage = list(split)
    else:
        storage = draw(st.lists(st.integers(0, 12), min_size=0, max_size=4))
    return tuple(shape), tuple(strides), offset, tuple(storage)


ITEMSIZE = {DT.ACL_FLOAT: 4, DT.ACL_FLOAT16: 2, DT.ACL_INT8: 1, DT.ACL_COMPLEX128: 16,
            DT.ACL_BF16: 2}   # docs/dtypes.md#data-types's bytes column


@given(geometries(), st.sampled_from(sorted(ITEMSIZE)))
def test_view_fits_iff_every_touched_address_is_in_storage(geometry, dtype):
    shape, strides, offset, storage = geometry
    addresses = touched_addresses(shape, strides, offset)
    storage_numel = math.prod(storage)
    fits = all(0 <= a < storage_numel for a in addresses)   # empty views: nothing to check
    try:
        t = make_tensor(shape, dtype, strides, offset, F.ACL_FORMAT_ND, storage, 0x1000)
    except npu_emu.AclnnError as err:
        assert err.code == 161002
        assert not fits, (geometry, err.message)
        return
    assert fits, geometry
    assert t.view_shape == shape and t.view_strides == strides
    assert t.storage_offset == offset and t.storage_shape == storage
    itemsize = ITEMSIZE[dtype]
    assert t.storage_nbytes == storage_numel * itemsize
    for index in itertools.islice(itertools.product(*(range(n) for n in shape)), 64):
        addr = t.element_address(index)
        assert 0x1000 <= addr < 0x1000 + t.storage_nbytes
        assert (addr - 0x1000) % itemsize == 0


def _addresses_as_cells(t: Tensor, cols: int = 10) -> set[tuple[int, int]]:
    cells = set()
    for index in itertools.product(*(range(n) for n in t.view_shape)):
        element = (t.element_address(index) - t.data) // t.itemsize
        cells.add(divmod(element, cols))
    return cells


def test_spec_example_rows_2_to_7_cols_2_to_6():
    t = make_tensor((6, 5), DT.ACL_FLOAT, (10, 1), 22, F.ACL_FORMAT_ND, (10, 10), 0x4000)
    assert _addresses_as_cells(t) == {(r, c) for r in range(2, 8) for c in range(2, 7)}
    assert t.element_address((0, 0)) == 0x4000 + 22 * 4
    assert t.element_address((5, 4)) == 0x4000 + (22 + 50 + 4) * 4
    assert not t.is_contiguous()


def test_spec_example_every_other_row_and_column():
    t = make_tensor((4, 3), DT.ACL_FLOAT16, (20, 2), 22, F.ACL_FORMAT_ND, (10, 10), 0x4000)
    assert _addresses_as_cells(t) == {(r, c) for r in (2, 4, 6, 8) for c in (2, 4, 6)}
    assert t.element_address((3, 2)) == 0x4000 + (22 + 60 + 4) * 2
    assert not t.is_contiguous()


def test_view_touching_the_last_storage_element_fits_and_one_more_does_not():
    make_tensor((6, 5), DT.ACL_FLOAT, (10, 1), 45, F.ACL_FORMAT_ND, (10, 10), 0)   # ends at 99
    with pytest.raises(npu_emu.AclnnError) as err:
        make_tensor((6, 5), DT.ACL_FLOAT, (10, 1), 46, F.ACL_FORMAT_ND, (10, 10), 0)
    assert err.value.code == 161002
    assert "storage_shape" in err.value.message


def test_empty_views_always_fit():
    t = make_tensor((3, 0, 2), DT.ACL_FLOAT, (1000, 1000, 1000), 10**6, F.ACL_FORMAT_ND, (0,), 0)
    assert t.numel == 0 and t.is_empty()


def test_defaults_are_contiguous_over_the_view():
    t = make_tensor((2, 3, 4), "f32")
    assert t.view_strides == (12, 4, 1)
    assert t.storage_shape == (2, 3, 4)
    assert t.storage_offset == 0 and t.format == F.ACL_FORMAT_ND and t.data == 0
    assert t.is_contiguous()


# ------------------------------------------------------------------ bad input, named

def _refused(param: str, code: int = 161002, **overrides):
    args = dict(view_shape=(2, 3), dtype=DT.ACL_FLOAT, view_strides=(3, 1), storage_offset=0,
                format=F.ACL_FORMAT_ND, storage_shape=(2, 3), data=0)
    args.update(overrides)
    with pytest.raises(npu_emu.AclnnError) as err:
        make_tensor(**args)
    assert err.value.code == code, err.value.message
    assert param in err.value.message, err.value.message
    return err.value.message


@pytest.mark.parametrize("param, value", [
    ("view_shape", (2, -3)),
    ("view_strides", (-3, 1)),
    ("storage_shape", (-6,)),
    ("view_shape", (2.0, 3)),
    ("view_shape", (2, "3")),
    ("view_shape", (True, 3)),
    ("view_strides", (3, 1.5)),
    ("storage_shape", (6.0,)),
    ("view_shape", "23"),
    ("view_shape", 6),
    ("view_strides", 3),
    ("storage_shape", {6: 1}),
])
def test_bad_sequences_name_their_parameter(param, value):
    _refused(param, **{param: value})


@pytest.mark.parametrize("value", [-1, 1.0, "0", None, True, [0]])
def test_bad_storage_offset(value):
    _refused("storage_offset", storage_offset=value)


def test_negative_offset_message():
    assert "negative" in _refused("storage_offset", storage_offset=-1)


def test_rank_mismatch():
    msg = _refused("view_strides", view_strides=(1,))
    assert "view_shape" in msg
    _refused("view_strides", view_strides=(3, 1, 1))


def test_none_view_shape_is_a_null_pointer():
    # docs/two-phase.md#the-two-phase-interface: a missing (null) argument is ACLNN_ERR_PARAM_NULLPTR.
    _refused("view_shape", code=161001, view_shape=None)


@pytest.mark.parametrize("value", [None, 999, "nope", DT.ACL_DT_UNDEFINED, DT.ACL_STRING, 1.5])
def test_bad_dtype(value):
    _refused("dtype", dtype=value)


@pytest.mark.parametrize("value", [None, 999, "nope", F.ACL_FORMAT_UNDEFINED, 2.0])
def test_bad_format(value):
    _refused("format", format=value)


@pytest.mark.parametrize("value", ["0x10", 1.0, [0]])
def test_bad_data_pointer(value):
    _refused("data", data=value)


def test_numpy_integers_are_ints():
    t = make_tensor(np.array([2, 3]), np.int64(0), (np.int32(3), np.int64(1)), np.int64(1),
                    np.int64(2), [np.int16(7)], np.uint64(64))
    assert t.view_shape == (2, 3) and t.storage_offset == 1 and t.dtype == DT.ACL_FLOAT
    assert all(type(v) is int for v in t.view_shape + t.view_strides + t.storage_shape)
    assert type(t.data) is int and type(t.storage_offset) is int


def test_ranks_beyond_eight_are_left_to_operators():
    # Decision in the code: the descriptor allows more than 8 dims (CANN's aclCreateTensor does
    # not check; each operator refuses > 8 with its own message).
    t = make_tensor((1,) * 9, DT.ACL_FLOAT)
    assert t.dim == 9
    _refused("view_shape", view_shape=(1,) * 65, view_strides=None, storage_shape=None)


def test_tensor_is_immutable():
    t = make_tensor((2,), DT.ACL_FLOAT)
    with pytest.raises(AttributeError):
        t.view_shape = (3,)   # type: ignore[misc]


# ------------------------------------------------------------------ helpers

@pytest.mark.parametrize("shape, strides, contiguous", [
    ((), (), True),
    ((5,), (1,), True),
    ((5,), (2,), False),
    ((2, 3), (3, 1), True),
    ((2, 3), (1, 2), False),
    ((2, 3), (4, 1), False),
    ((1, 3), (99, 1), True),          # size-1 dims' strides do not matter (PyTorch)
    ((2, 1, 3), (3, 7, 1), True),
    ((3, 1), (1, 0), True),
    ((1, 1), (0, 0), True),
    ((4, 1, 1), (1, 5, 5), True),
    ((2, 2), (2, 0), False),
    ((0, 3), (3, 2), True),           # an empty tensor is contiguous whatever its strides
    ((3, 0), (0, 5), True),
])
def test_is_contiguous(shape, strides, contiguous):
    t = make_tensor(shape, DT.ACL_FLOAT, strides, 0, F.ACL_FORMAT_ND, (100,), 0)
    assert t.is_contiguous() is contiguous


@given(st.lists(st.integers(0, 5), max_size=6))
def test_contiguous_strides_are_contiguous(shape):
    t = make_tensor(shape, DT.ACL_INT8)
    assert t.is_contiguous()
    assert t.numel == math.prod(shape)
    # the touched addresses are exactly 0..numel-1
    assert touched_addresses(t.view_shape, t.view_strides, 0) == set(range(t.numel))


@pytest.mark.parametrize("shape, numel", [((), 1), ((0,), 0), ((3,), 3), ((2, 3, 4), 24),
                                          ((5, 0, 2), 0)])
def test_numel(shape, numel):
    assert make_tensor(shape, DT.ACL_FLOAT).numel == numel


@pytest.mark.parametrize("dtype, itemsize", [(DT.ACL_FLOAT, 4), (DT.ACL_FLOAT16, 2),
                                             (DT.ACL_BF16, 2), (DT.ACL_DOUBLE, 8),
                                             (DT.ACL_COMPLEX128, 16), (DT.ACL_BOOL, 1),
                                             (DT.ACL_HIFLOAT8, 1), (DT.ACL_COMPLEX32, 4)])
def test_storage_nbytes(dtype, itemsize):
    t = make_tensor((2, 3), dtype, (1, 2), 0, F.ACL_FORMAT_ND, (4, 5), 0)
    assert t.itemsize == itemsize
    assert t.storage_nbytes == 20 * itemsize
    assert t.storage_numel == 20


def test_sub_byte_tensor_has_no_itemsize():
    t = make_tensor((4,), DT.ACL_INT4)
    with pytest.raises(npu_emu.AclnnError) as err:
        t.itemsize
    assert err.value.code == 161002


# ------------------------------------------------------------------ aclIntArray, aclScalar

def test_int_array():
    a = make_int_array([4, -1, 0])          # -1 is meaningful (Expand's "keep this dim")
    assert isinstance(a, IntArray)
    assert a.values == (4, -1, 0) and len(a) == 3 and list(a) == [4, -1, 0] and a[1] == -1
    assert make_int_array(np.array([2, 3])).values == (2, 3)
    assert make_int_array(()).values == ()


@pytest.mark.parametrize("value, code", [(None, 161001), ([1.5], 161002), (["1"], 161002),
                                         ("12", 161002), (3, 161002), ([True], 161002)])
def test_int_array_refuses(value, code):
    with pytest.raises(npu_emu.AclnnError) as err:
        make_int_array(value, "size")
    assert err.value.code == code and "size" in err.value.message


@pytest.mark.parametrize("value, dtype, expected, host_type", [
    (1.5, DT.ACL_INT32, 1, np.int32),
    (-1.5, DT.ACL_INT8, -1, np.int8),
    (1.5, DT.ACL_BF16, 1.5, ml_dtypes.bfloat16),
    (1.0 / 3, DT.ACL_BF16, float(ml_dtypes.bfloat16(1.0 / 3)), ml_dtypes.bfloat16),
    (1.0 / 3, DT.ACL_FLOAT16, float(np.float16(1.0 / 3)), np.float16),
    (0.1, DT.ACL_FLOAT, float(np.float32(0.1)), np.float32),
    (3, DT.ACL_DOUBLE, 3.0, np.float64),
    (True, DT.ACL_FLOAT, 1.0, np.float32),
    (2, DT.ACL_BOOL, True, np.bool_),
    (0, DT.ACL_BOOL, False, np.bool_),
    (1 + 2j, DT.ACL_COMPLEX64, 1 + 2j, np.complex64),
    (3.5, DT.ACL_COMPLEX128, 3.5 + 0j, np.complex128),
    (1000.0, DT.ACL_FLOAT8_E4M3FN, float("nan"), ml_dtypes.float8_e4m3fn),  # docs/conversions.md#hifloat8: NaN
    (100000.0, DT.ACL_FLOAT8_E5M2, float("inf"), ml_dtypes.float8_e5m2),
    (np.float64(2.5), DT.ACL_INT64, 2, np.int64),
    (255, DT.ACL_UINT8, 255, np.uint8),
    (2**64 - 1, DT.ACL_UINT64, 2**64 - 1, np.uint64),
    (2**70, DT.ACL_FLOAT, float(np.float32(2.0**70)), np.float32),
    (2**70, DT.ACL_BF16, 2.0**70, ml_dtypes.bfloat16),
])
def test_scalar_holds_value_in_its_dtype(value, dtype, expected, host_type):
    s = make_scalar(value, dtype)
    assert isinstance(s, Scalar) and s.dtype == dtype
    assert type(s.value) is host_type
    py = s.to_python()
    if isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(py)
    else:
        assert py == expected and type(py) is type(expected)


@pytest.mark.parametrize("value, dtype, code, param", [
    (None, DT.ACL_FLOAT, 161001, "value"),
    ("1", DT.ACL_FLOAT, 161002, "value"),
    ([1], DT.ACL_FLOAT, 161002, "value"),
    (1 + 2j, DT.ACL_FLOAT, 161002, "value"),
    (1.0, None, 161002, "dtype"),
    (1.0, "nope", 161002, "dtype"),
    (1.0, DT.ACL_INT4, 161002, "dtype"),
    (1.0, DT.ACL_STRING, 161002, "dtype"),
    (1.5, DT.ACL_HIFLOAT8, 161002, "dtype"),      # no host type: must not store code 1
    (1 + 2j, DT.ACL_COMPLEX32, 161002, "dtype"),
    (-1, DT.ACL_UINT8, 161002, "value"),          # an int the dtype cannot hold
    (2**40, DT.ACL_INT32, 161002, "value"),
    (2**70, DT.ACL_INT32, 161002, "value"),
    (2**2000, DT.ACL_FLOAT, 161002, "value"),
])
def test_scalar_refuses(value, dtype, code, param):
    with pytest.raises(npu_emu.AclnnError) as err:
        make_scalar(value, dtype)
    assert err.value.code == code
    assert param in err.value.message
