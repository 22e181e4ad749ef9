"""The array API's dtypes, the "array_api" rule set and the data type functions.

References: the array API standard's 2024.12 promotion rules (transcribed below), the NPU's
documented table (npu_emu.dtypes.RULE_SETS["documented"], itself tested against the spec in
tests/test_dtypes.py), NumPy's and ml_dtypes' finfo / iinfo, HiFloat8's format by hand.
"""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

import npu_emu
import npu_emu.array_api as xp
from npu_emu.dtypes import RULE_SETS, aclDataType as DT, as_dtype

from ._support import float32_defaults  # noqa: F401 (the fixture)

# These tests were written against the NPU's float32 defaults: they run with that setting
# of the switch (test_defaults.py checks the namespace's own, float64).
pytestmark = pytest.mark.usefixtures("float32_defaults")

STANDARD = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float32", "float64", "complex64", "complex128"]
NPU = ["float16", "bfloat16", "float8_e5m2", "float8_e4m3fn", "hifloat8"]
ACL = {"bool": DT.ACL_BOOL, "int8": DT.ACL_INT8, "int16": DT.ACL_INT16, "int32": DT.ACL_INT32,
       "int64": DT.ACL_INT64, "uint8": DT.ACL_UINT8, "uint16": DT.ACL_UINT16,
       "uint32": DT.ACL_UINT32, "uint64": DT.ACL_UINT64, "float32": DT.ACL_FLOAT,
       "float64": DT.ACL_DOUBLE, "complex64": DT.ACL_COMPLEX64, "complex128": DT.ACL_COMPLEX128,
       "float16": DT.ACL_FLOAT16, "bfloat16": DT.ACL_BF16, "float8_e5m2": DT.ACL_FLOAT8_E5M2,
       "float8_e4m3fn": DT.ACL_FLOAT8_E4M3FN, "hifloat8": DT.ACL_HIFLOAT8}

# The standard's promotion (2024.12, "Type Promotion Rules"): within a kind, by the lattice.
_INT_ORDER = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
_UINT_ORDER = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}


def standard_promotion(a: str, b: str) -> str | None:
    """The standard's result for two of its dtypes, None where it defines none."""
    if a == b:
        return a
    if a == "bool" or b == "bool":
        return None
    ints = {**_INT_ORDER, **_UINT_ORDER}
    if a in ints and b in ints:
        if (a in _INT_ORDER) == (b in _INT_ORDER):
            return a if ints[a] >= ints[b] else b
        s, u = (a, b) if a in _INT_ORDER else (b, a)
        if ints[u] == 64:
            return None
        bits = max(ints[s], 2 * ints[u])
        return f"int{bits}"
    floats = {"float32": (32, False), "float64": (64, False), "complex64": (32, True),
              "complex128": (64, True)}
    if a in floats and b in floats:
        prec = max(floats[a][0], floats[b][0])
        cplx = floats[a][1] or floats[b][1]
        return ("complex128" if prec == 64 else "complex64") if cplx else f"float{prec}"
    return None   # mixed kinds: the standard leaves it to the implementation


# Where the rule set replaces the NPU's documented answer with the standard's.
OVERRIDES = {frozenset({"float64", "complex64"}): "complex128"}


def test_rule_set_is_registered_and_selectable():
    assert set(RULE_SETS) >= {"documented", "implementation", "array_api"}
    with npu_emu.promotion_rules("array_api"):
        assert npu_emu.promote_types("u16", "s32") == DT.ACL_INT32


@pytest.mark.parametrize("a, b", list(itertools.product(STANDARD, STANDARD)))
def test_standard_pairs(a, b):
    rules = RULE_SETS["array_api"]
    got = rules.promotion.get((ACL[a], ACL[b]))
    want = standard_promotion(a, b)
    if want is not None:
        assert got == ACL[want], (a, b)
    else:
        # No rule in the standard: the NPU's documented answer (or none).
        assert got == RULE_SETS["documented"].promotion.get((ACL[a], ACL[b])), (a, b)


def test_npu_table_kept_wherever_it_has_a_rule():
    doc, ours = RULE_SETS["documented"].promotion, RULE_SETS["array_api"].promotion
    names = {v: k for k, v in ACL.items()}
    replaced = {k for k, v in doc.items() if ours[k] != v}
    assert {frozenset({names[a], names[b]}) for a, b in replaced} == set(OVERRIDES)
    for a, b in replaced:
        assert names[ours[a, b]] == OVERRIDES[frozenset({names[a], names[b]})] \
            == standard_promotion(names[a], names[b])
    added = {k for k in ours if k not in doc}
    for a, b in added:   # every addition is a pair of integers with an unsigned >= 16 bits
        assert {names[a], names[b]} & {"uint16", "uint32", "uint64"}
        assert standard_promotion(names[a], names[b]) == names[ours[a, b]]
    assert len(added) == 28


@pytest.mark.parametrize("a, b", [("uint16", "int32"), ("uint32", "int8"), ("uint8", "uint64")])
def test_examples_of_the_additions(a, b):
    assert xp.result_type(getattr(xp, a), getattr(xp, b)) == getattr(xp, standard_promotion(a, b))


def test_refusals():
    for a, b in [("uint64", "int64"), ("uint16", "float32"), ("bool", "uint32"),
                 ("float8_e5m2", "float32"), ("hifloat8", "bfloat16")]:
        with pytest.raises(TypeError, match="no promoted dtype"):
            xp.result_type(getattr(xp, a), getattr(xp, b))


def test_can_cast_is_promotion():
    for a, b in itertools.product(STANDARD + NPU, STANDARD + NPU):
        da, db = getattr(xp, a), getattr(xp, b)
        try:
            promoted = xp.result_type(da, db)
        except TypeError:
            promoted = None
        assert xp.can_cast(da, db) == (promoted == db), (a, b)
    assert not xp.can_cast(xp.float32, xp.float16)      # never narrowed
    assert not xp.can_cast(xp.float32, xp.int64)        # never floating -> integer
    assert xp.can_cast(xp.bool, xp.int8)                # the NPU promotes bool with anything
    assert xp.can_cast(xp.asarray([1], dtype=xp.int8), xp.int16)


def test_result_type_with_scalars():
    assert xp.result_type(xp.int8, 1) == xp.int8
    assert xp.result_type(xp.float16, 1.5) == xp.float16
    assert xp.result_type(xp.int32, 1.5) == xp.float32     # the NPU's int + float answer
    assert xp.result_type(xp.bool, 3) == xp.int64
    assert xp.result_type(xp.complex64, 1.0) == xp.complex64
    assert xp.result_type(xp.int8, xp.uint8, 1) == xp.int16
    with pytest.raises(OverflowError):
        xp.result_type(xp.int8, 300)
    with pytest.raises(ValueError):
        xp.result_type(1, 2.0)
    with pytest.raises(TypeError):
        xp.result_type(xp.int8, "int8")


def test_dtype_objects_are_not_integers():
    assert not isinstance(xp.float32, int)
    with pytest.raises(TypeError, match="dtype"):
        xp.asarray(xp.float32)
    assert xp.float32 == xp.float32 and xp.float32 != xp.float64
    assert xp.float32 != np.float32 and xp.float32 != "float32" and xp.float32 != 0
    assert len({xp.float32, xp.float32, xp.int8}) == 2
    assert repr(xp.bfloat16) == "npu_emu.array_api.bfloat16"
    for name in STANDARD + NPU:
        assert as_dtype(getattr(xp, name)) == ACL[name]
        assert getattr(xp, name).name == name


def test_dtype_arguments_accept_other_spellings():
    assert xp.asarray([1], dtype="float16").dtype == xp.float16
    assert xp.asarray([1], dtype=np.int16).dtype == xp.int16
    assert xp.asarray([1], dtype=ml_dtypes.bfloat16).dtype == xp.bfloat16
    with pytest.raises(TypeError, match="float"):
        xp.asarray([1], dtype="float")    # ambiguous: NumPy's float64, CANN's float32
    with pytest.raises(TypeError, match="no dtype"):
        xp.asarray([1], dtype=DT.ACL_COMPLEX32)


KIND_MEMBERS = {
    "bool": {"bool"},
    "signed integer": {"int8", "int16", "int32", "int64"},
    "unsigned integer": {"uint8", "uint16", "uint32", "uint64"},
    "integral": {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"},
    "real floating": {"float32", "float64", *NPU},
    "complex floating": {"complex64", "complex128"},
}
KIND_MEMBERS["numeric"] = set(STANDARD + NPU) - {"bool"}


@pytest.mark.parametrize("kind", sorted(KIND_MEMBERS))
def test_isdtype_kinds(kind):
    for name in STANDARD + NPU:
        assert xp.isdtype(getattr(xp, name), kind) == (name in KIND_MEMBERS[kind]), name


def test_isdtype_tuples_dtypes_and_errors():
    assert xp.isdtype(xp.int8, ("bool", "signed integer"))
    assert xp.isdtype(xp.float32, xp.float32) and not xp.isdtype(xp.float32, xp.float64)
    assert xp.isdtype(xp.uint8, (xp.float32, "unsigned integer"))
    with pytest.raises(ValueError, match="kind"):
        xp.isdtype(xp.int8, "integer")
    with pytest.raises(TypeError, match="kind=3"):
        xp.isdtype(xp.int8, 3)
    with pytest.raises(TypeError, match="not a dtype"):
        xp.isdtype(object, "numeric")


def test_isdtype_takes_numpy_and_torch_dtypes_as_every_dtype_argument_does():
    import torch
    assert xp.isdtype(np.float32, "real floating") and xp.isdtype(np.dtype("int8"), "integral")
    assert xp.isdtype(torch.complex64, "complex floating")
    assert xp.isdtype(ml_dtypes.bfloat16, "real floating")
    assert xp.isdtype(xp.float32, np.float32) and not xp.isdtype(np.float32, np.float64)


@pytest.mark.parametrize("name, ref", [("float16", np.finfo(np.float16)),
                                       ("float32", np.finfo(np.float32)),
                                       ("float64", np.finfo(np.float64)),
                                       ("bfloat16", ml_dtypes.finfo(ml_dtypes.bfloat16)),
                                       ("float8_e5m2", ml_dtypes.finfo(ml_dtypes.float8_e5m2)),
                                       ("float8_e4m3fn", ml_dtypes.finfo(ml_dtypes.float8_e4m3fn))])
def test_finfo(name, ref):
    f = xp.finfo(getattr(xp, name))
    assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (
        ref.bits, float(ref.eps), float(ref.max), float(ref.min), float(ref.smallest_normal))
    assert f.dtype == getattr(xp, name)
    assert all(isinstance(v, float) for v in (f.eps, f.max, f.min, f.smallest_normal))


def test_finfo_hifloat8_by_hand():
    # HiFloat8: 3 mantissa bits at exponent 0 (1.125 follows 1), largest finite 0x6E = 2^15,
    # smallest normal 2^-15 (prefix 11xx, exponent -15); 2^-16..2^-22 are denormals.
    f = xp.finfo(xp.hifloat8)
    assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (8, 0.125, 32768.0, -32768.0,
                                                                2.0 ** -15)


def test_finfo_complex_and_arrays():
    f = xp.finfo(xp.complex128)
    assert f.dtype == xp.float64 and f.eps == float(np.finfo(np.float64).eps)
    assert xp.finfo(xp.ones(2, dtype=xp.float16)).max == 65504.0
    with pytest.raises(TypeError):
        xp.finfo(xp.int8)


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64"])
def test_iinfo(name):
    i, ref = xp.iinfo(getattr(xp, name)), np.iinfo(name)
    assert (i.bits, i.min, i.max, i.dtype) == (ref.bits, int(ref.min), int(ref.max),
                                               getattr(xp, name))
    assert type(i.max) is int


def test_iinfo_refuses_floats():
    with pytest.raises(TypeError):
        xp.iinfo(xp.float32)


def test_inspection_namespace():
    info = xp.__array_namespace_info__()
    caps = info.capabilities()
    assert caps == {"boolean indexing": True, "data-dependent shapes": True,
                    "max dimensions": 8}
    dev = info.default_device()
    assert info.devices() == [dev] and str(dev) in ("cpu", "cuda:0")
    assert xp.asarray([1]).device == dev
    assert info.default_dtypes() == {"real floating": xp.float32,
                                     "complex floating": xp.complex64,
                                     "integral": xp.int64, "indexing": xp.int64}
    assert list(info.dtypes()) == STANDARD
    assert set(info.dtypes(kind="integral")) == KIND_MEMBERS["integral"]
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {"bool", "complex64",
                                                                    "complex128"}
    assert set(info.dtypes(kind="real floating", device=dev)) == {"float32", "float64"}
    with pytest.raises(ValueError):
        info.dtypes(kind="floating")
    with pytest.raises(ValueError):
        info.dtypes(device="tpu")


def test_defaults_from_python_data():
    assert xp.asarray(1.5).dtype == xp.float32
    assert xp.asarray([1, 2]).dtype == xp.int64
    assert xp.asarray(True).dtype == xp.bool
    assert xp.asarray(1j).dtype == xp.complex64
    assert xp.empty(3).dtype == xp.float32
