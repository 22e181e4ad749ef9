"""aclDataType (docs/dtypes.md#data-types), type promotion (docs/dtypes.md#type-promotion), result conversion (docs/dtypes.md#result-conversion), as_dtype.

Every expectation here comes from the documents (docs/dtypes.md), transcribed in this file; nothing is read from the
module's own tables.
"""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

import npu_emu
from npu_emu import aclDataType, as_dtype, can_cast, promote_types
from npu_emu import dtypes as dt_mod
from npu_emu.dtypes import (get_promotion_rules, info, promotion_rules,
                            set_promotion_rules)

DT = aclDataType

# --------------------------------------------------------------------------- docs/dtypes.md#data-types

# name, value, bits (the documented "bytes" column x 8), kind ("-" = not an element type)
SPEC_DTYPES = [
    ("ACL_DT_UNDEFINED", -1, None, "-"),
    ("ACL_FLOAT", 0, 32, "float"),
    ("ACL_FLOAT16", 1, 16, "float"),
    ("ACL_INT8", 2, 8, "signed"),
    ("ACL_INT32", 3, 32, "signed"),
    ("ACL_UINT8", 4, 8, "unsigned"),
    ("ACL_INT16", 6, 16, "signed"),
    ("ACL_UINT16", 7, 16, "unsigned"),
    ("ACL_UINT32", 8, 32, "unsigned"),
    ("ACL_INT64", 9, 64, "signed"),
    ("ACL_UINT64", 10, 64, "unsigned"),
    ("ACL_DOUBLE", 11, 64, "float"),
    ("ACL_BOOL", 12, 8, "bool"),
    ("ACL_STRING", 13, None, "-"),
    ("ACL_COMPLEX64", 16, 64, "complex"),
    ("ACL_COMPLEX128", 17, 128, "complex"),
    ("ACL_BF16", 27, 16, "float"),
    ("ACL_INT4", 29, 4, "signed"),
    ("ACL_UINT1", 30, 1, "unsigned"),
    ("ACL_COMPLEX32", 33, 32, "complex"),
    ("ACL_HIFLOAT8", 34, 8, "float"),
    ("ACL_FLOAT8_E5M2", 35, 8, "float"),
    ("ACL_FLOAT8_E4M3FN", 36, 8, "float"),
    ("ACL_FLOAT8_E8M0", 37, 8, "float"),
    ("ACL_FLOAT6_E3M2", 38, 6, "float"),
    ("ACL_FLOAT6_E2M3", 39, 6, "float"),
    ("ACL_FLOAT4_E2M1", 40, 4, "float"),
    ("ACL_FLOAT4_E1M2", 41, 4, "float"),
]
SPEC_KIND = {name: kind for name, _, _, kind in SPEC_DTYPES}
# The module spells the floating kind "floating" (the word); docs/dtypes.md#data-types writes "float".
KIND_WORD = {"float": "floating", "signed": "signed", "unsigned": "unsigned",
             "complex": "complex", "bool": "bool"}
# Element types: everything but UNDEFINED and STRING.
NUMERIC = [DT[name] for name, _, _, kind in SPEC_DTYPES if kind != "-"]
ALL = [DT[name] for name, *_ in SPEC_DTYPES]

SHORT = {
    "f32": DT.ACL_FLOAT, "f16": DT.ACL_FLOAT16, "f64": DT.ACL_DOUBLE, "bf16": DT.ACL_BF16,
    "s8": DT.ACL_INT8, "u8": DT.ACL_UINT8, "s16": DT.ACL_INT16, "u16": DT.ACL_UINT16,
    "s32": DT.ACL_INT32, "u32": DT.ACL_UINT32, "s64": DT.ACL_INT64, "u64": DT.ACL_UINT64,
    "bool": DT.ACL_BOOL, "c32": DT.ACL_COMPLEX32, "c64": DT.ACL_COMPLEX64,
    "c128": DT.ACL_COMPLEX128,
}


def test_enum_has_exactly_the_spec_members():
    assert {m.name: int(m) for m in aclDataType} == {n: v for n, v, _, _ in SPEC_DTYPES}
    assert npu_emu.aclDataType is aclDataType
    assert issubclass(aclDataType, int)


@pytest.mark.parametrize("name, value, bits, kind", SPEC_DTYPES)
def test_bits_and_kind(name, value, bits, kind):
    i = info(DT[name])
    assert i.dtype == DT[name] == value
    if kind != "-":
        assert i.bits == bits
        assert i.kind == KIND_WORD[kind]


# storage dtype (raw elements in device memory) and host dtype (what users read and write)
STORAGE_HOST = {
    "ACL_FLOAT": (np.float32, np.float32),
    "ACL_FLOAT16": (np.float16, np.float16),
    "ACL_DOUBLE": (np.float64, np.float64),
    "ACL_INT8": (np.int8, np.int8),
    "ACL_INT16": (np.int16, np.int16),
    "ACL_INT32": (np.int32, np.int32),
    "ACL_INT64": (np.int64, np.int64),
    "ACL_UINT8": (np.uint8, np.uint8),
    "ACL_UINT16": (np.uint16, np.uint16),
    "ACL_UINT32": (np.uint32, np.uint32),
    "ACL_UINT64": (np.uint64, np.uint64),
    "ACL_BOOL": (np.bool_, np.bool_),
    "ACL_COMPLEX64": (np.complex64, np.complex64),
    "ACL_COMPLEX128": (np.complex128, np.complex128),
    # the issue: bf16, fp8 and HiFloat8 are stored as raw unsigned integer bits
    "ACL_BF16": (np.uint16, ml_dtypes.bfloat16),
    "ACL_FLOAT8_E5M2": (np.uint8, ml_dtypes.float8_e5m2),
    "ACL_FLOAT8_E4M3FN": (np.uint8, ml_dtypes.float8_e4m3fn),
    # no host library has HiFloat8 or complex32: raw codes only (the module's decision)
    "ACL_HIFLOAT8": (np.uint8, None),
    "ACL_COMPLEX32": (np.uint32, None),
}


@pytest.mark.parametrize("name", sorted(STORAGE_HOST))
def test_storage_host_and_itemsize(name):
    storage, host = STORAGE_HOST[name]
    i = info(DT[name])
    assert i.storage == np.dtype(storage)
    assert i.storage.kind in "biufc"
    if name in ("ACL_BF16", "ACL_FLOAT8_E5M2", "ACL_FLOAT8_E4M3FN", "ACL_HIFLOAT8"):
        assert i.storage.kind == "u"
    assert (i.host is None) if host is None else (i.host == np.dtype(host))
    bits = {n: b for n, _, b, _ in SPEC_DTYPES}[name]
    assert i.itemsize == bits // 8


@pytest.mark.parametrize("name", ["ACL_INT4", "ACL_UINT1", "ACL_FLOAT6_E3M2",
                                  "ACL_FLOAT6_E2M3", "ACL_FLOAT4_E2M1", "ACL_FLOAT4_E1M2"])
def test_sub_byte_types_have_no_element_storage(name):
    i = info(DT[name])
    assert i.storage is None and i.itemsize is None and i.host is None


def test_dt_names_follow_canns_spelling():
    assert dt_mod.dt_name(DT.ACL_FLOAT) == "DT_FLOAT"
    assert dt_mod.dt_name(DT.ACL_BF16) == "DT_BF16"
    assert dt_mod.dt_name(DT.ACL_UINT16) == "DT_UINT16"
    assert dt_mod.dt_name(DT.ACL_DT_UNDEFINED) == "DT_UNDEFINED"


# --------------------------------------------------------------------------- as_dtype

@pytest.mark.parametrize("value, expected", [
    (DT.ACL_FLOAT, DT.ACL_FLOAT),
    (0, DT.ACL_FLOAT),
    (27, DT.ACL_BF16),
    (np.int64(3), DT.ACL_INT32),
    ("ACL_FLOAT", DT.ACL_FLOAT),
    ("FLOAT", DT.ACL_FLOAT),
    ("float32", DT.ACL_FLOAT),
    ("float32", DT.ACL_FLOAT),
    ("DT_BF16", DT.ACL_BF16),
    ("f32", DT.ACL_FLOAT),
    ("bf16", DT.ACL_BF16),
    ("c128", DT.ACL_COMPLEX128),
    ("u16", DT.ACL_UINT16),
    (np.float32, DT.ACL_FLOAT),
    (np.dtype(np.float16), DT.ACL_FLOAT16),
    (np.dtype(np.int8), DT.ACL_INT8),
    (np.uint64, DT.ACL_UINT64),
    (np.bool_, DT.ACL_BOOL),
    (np.complex64, DT.ACL_COMPLEX64),
    (ml_dtypes.bfloat16, DT.ACL_BF16),
    (np.dtype(ml_dtypes.float8_e5m2), DT.ACL_FLOAT8_E5M2),
    (ml_dtypes.float8_e4m3fn, DT.ACL_FLOAT8_E4M3FN),
])
def test_as_dtype_accepts(value, expected):
    got = as_dtype(value)
    assert got == expected and isinstance(got, aclDataType)


@pytest.mark.parametrize("name", [n for n, *_ in SPEC_DTYPES])
def test_as_dtype_round_trips_every_member(name):
    m = DT[name]
    assert as_dtype(m) is m
    assert as_dtype(int(m)) is m
    assert as_dtype(name) is m
    assert as_dtype(name.removeprefix("ACL_")) is m


@pytest.mark.parametrize("value", [None, 999, -2, "nope", "", [1], [], (), True, False,
                                   np.bool_(True), 1.5, object(), {"a": 1},
                                   np.dtype("S4"), np.dtype(">f4"), (np.int32, -1)])
def test_as_dtype_refuses(value):
    with pytest.raises(npu_emu.AclnnError) as err:
        as_dtype(value, "some_param")
    assert err.value.code == 161002
    assert "some_param" in err.value.message
    with pytest.raises(npu_emu.AclnnError) as err:
        as_dtype(value)
    assert "dtype" in err.value.message


def test_info_of_a_bad_dtype_raises_aclnn_error():
    with pytest.raises(npu_emu.AclnnError) as err:
        info("nope")
    assert err.value.code == 161002


# --------------------------------------------------------------------------- docs/dtypes.md#type-promotion

# docs/dtypes.md#type-promotion's documented table, transcribed literally (rows x columns). The one starred cell
# (bf16 row, f16 column) reads f32 as the documents' footnote decides.
AXES = "f32 f16 f64 bf16 s8 u8 s16 s32 s64 c32 c64 c128".split()
SPEC_TABLE = """
| f32  | f32 | f32 | f64 | f32 | f32 | f32 | f32 | f32 | f32 | c64 | c64 | c128 |
| f16  | f32 | f16 | f64 | f32 | f16 | f16 | f16 | f16 | f16 | c32 | c64 | c128 |
| f64  | f64 | f64 | f64 | f64 | f64 | f64 | f64 | f64 | f64 | c64 | c64 | c128 |
| bf16 | f32 | f32 | f64 | bf16 | bf16 | bf16 | bf16 | bf16 | bf16 | c32 | c64 | c128 |
| s8   | f32 | f16 | f64 | bf16 | s8 | s16 | s16 | s32 | s64 | c32 | c64 | c128 |
| u8   | f32 | f16 | f64 | bf16 | s16 | u8 | s16 | s32 | s64 | c32 | c64 | c128 |
| s16  | f32 | f16 | f64 | bf16 | s16 | s16 | s16 | s32 | s64 | c32 | c64 | c128 |
| s32  | f32 | f16 | f64 | bf16 | s32 | s32 | s32 | s32 | s64 | c32 | c64 | c128 |
| s64  | f32 | f16 | f64 | bf16 | s64 | s64 | s64 | s64 | s64 | c32 | c64 | c128 |
| c32  | c64 | c32 | c64 | c32 | c32 | c32 | c32 | c32 | c32 | c32 | c64 | c128 |
| c64  | c64 | c64 | c64 | c64 | c64 | c64 | c64 | c64 | c64 | c64 | c64 | c128 |
| c128 | c128 | c128 | c128 | c128 | c128 | c128 | c128 | c128 | c128 | c128 | c128 | c128 |
"""


def _spec_table() -> dict:
    table = {}
    rows = [line for line in SPEC_TABLE.strip().splitlines()]
    assert len(rows) == 12
    for line in rows:
        row, *cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 12
        for col, cell in zip(AXES, cells):
            table[SHORT[row], SHORT[col]] = SHORT[cell]
    return table


TABLE = _spec_table()
TABLE_TYPES = [SHORT[s] for s in AXES]
UNSIGNED_WIDE = [DT.ACL_UINT16, DT.ACL_UINT32, DT.ACL_UINT64]


def documented_promotion(a, b):
    """docs/dtypes.md#type-promotion's documented rules, written from the text; None = not supported."""
    if (a, b) in TABLE:
        return TABLE[a, b]
    if a == b:
        return a                                   # any type with itself
    if a == DT.ACL_BOOL and b in TABLE_TYPES:
        return b                                   # bool with a table type: that type
    if b == DT.ACL_BOOL and a in TABLE_TYPES:
        return a
    return None                                    # u16/u32/u64 with others, fp8, int4...


# The implementation rule set's differences, docs/dtypes.md#type-promotion (pair -> result; None = refused).
C32, C64, C128 = DT.ACL_COMPLEX32, DT.ACL_COMPLEX64, DT.ACL_COMPLEX128
U16, U32, U64 = UNSIGNED_WIDE
IMPLEMENTATION_CHANGES = {
    (DT.ACL_DOUBLE, C32): C128, (C32, DT.ACL_DOUBLE): C128,
    (DT.ACL_DOUBLE, C64): C128, (C64, DT.ACL_DOUBLE): C128,
    (DT.ACL_BF16, C32): C64, (C32, DT.ACL_BF16): C64,
    (U16, C64): C64, (U16, C128): C128,
    (U32, C64): C64, (U32, C128): C128,
    (U64, C64): C128, (U64, C128): C128,
}


def implementation_promotion(a, b):
    if (a, b) in IMPLEMENTATION_CHANGES:
        return IMPLEMENTATION_CHANGES[a, b]
    return documented_promotion(a, b)


@pytest.fixture(autouse=True)
def _restore_rules():
    before = get_promotion_rules()
    yield
    set_promotion_rules(before)


def test_table_transcription_is_the_spec_shape():
    # A check on this file: 144 cells, and the only changed cell of the seed is symmetric now.
    assert len(TABLE) == 144
    assert TABLE[DT.ACL_BF16, DT.ACL_FLOAT16] == TABLE[DT.ACL_FLOAT16, DT.ACL_BF16] == DT.ACL_FLOAT


@pytest.mark.parametrize("a, b", list(itertools.product(AXES, AXES)))
def test_every_documented_cell(a, b):
    assert get_promotion_rules() == "documented"
    assert promote_types(SHORT[a], SHORT[b]) == TABLE[SHORT[a], SHORT[b]]


def test_documented_examples():
    # docs/dtypes.md#type-promotion: aclnnAdd of f16 and f32 computes in f32; of f32 and bool computes in f32.
    assert promote_types(DT.ACL_FLOAT16, DT.ACL_FLOAT) == DT.ACL_FLOAT
    assert promote_types(DT.ACL_FLOAT, DT.ACL_BOOL) == DT.ACL_FLOAT
    assert promote_types("f16", "bf16") == promote_types("bf16", "f16") == DT.ACL_FLOAT


def _outcome(a, b):
    try:
        return promote_types(a, b)
    except npu_emu.AclnnError as err:
        assert err.code == 161002
        return None


def test_every_pair_under_documented_rules():
    wrong = {(a.name, b.name): (_outcome(a, b), documented_promotion(a, b))
             for a, b in itertools.product(NUMERIC, NUMERIC)
             if _outcome(a, b) != documented_promotion(a, b)}
    assert wrong == {}


def test_documented_promotion_is_symmetric():
    for a, b in itertools.product(ALL, ALL):
        assert _outcome(a, b) == _outcome(b, a), (a, b)


@pytest.mark.parametrize("t", TABLE_TYPES)
def test_bool_with_a_table_type_gives_that_type(t):
    assert promote_types(DT.ACL_BOOL, t) == t
    assert promote_types(t, DT.ACL_BOOL) == t


def test_bool_with_bool_is_bool():
    assert promote_types(DT.ACL_BOOL, DT.ACL_BOOL) == DT.ACL_BOOL


@pytest.mark.parametrize("u", UNSIGNED_WIDE)
def test_bool_with_wide_unsigned_is_refused(u):
    for a, b in [(DT.ACL_BOOL, u), (u, DT.ACL_BOOL)]:
        with pytest.raises(npu_emu.AclnnError) as err:
            promote_types(a, b)
        assert err.value.code == 161002
        assert "DT_BOOL" in err.value.message and dt_mod.dt_name(u) in err.value.message


@pytest.mark.parametrize("other", [DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN, DT.ACL_HIFLOAT8,
                                   DT.ACL_INT4, DT.ACL_FLOAT8_E8M0, DT.ACL_UINT1])
def test_bool_promotes_only_with_the_table_types(other):
    # Decision taken in the code: "bool with any type other than u16/u32/u64" is read together
    # with "any pair not covered (fp8, hif8, int4, ...) is not supported".
    with pytest.raises(npu_emu.AclnnError):
        promote_types(DT.ACL_BOOL, other)
    with pytest.raises(npu_emu.AclnnError):
        promote_types(other, DT.ACL_BOOL)


@pytest.mark.parametrize("u", UNSIGNED_WIDE)
def test_wide_unsigned_only_with_itself(u):
    assert promote_types(u, u) == u
    for other in NUMERIC:
        if other == u:
            continue
        with pytest.raises(npu_emu.AclnnError) as err:
            promote_types(u, other)
        assert err.value.code == 161002
        with pytest.raises(npu_emu.AclnnError):
            promote_types(other, u)


@pytest.mark.parametrize("t", NUMERIC)
def test_any_type_with_itself(t):
    for rules in ("documented", "implementation"):
        with promotion_rules(rules):
            assert promote_types(t, t) == t


@pytest.mark.parametrize("t", [DT.ACL_DT_UNDEFINED, DT.ACL_STRING])
def test_non_element_types_never_promote(t):
    # Decision taken in the code: UNDEFINED and STRING are not element types, not even with
    # themselves.
    with pytest.raises(npu_emu.AclnnError):
        promote_types(t, t)
    with pytest.raises(npu_emu.AclnnError):
        promote_types(t, DT.ACL_FLOAT)


def test_refusal_names_both_dtypes():
    with pytest.raises(npu_emu.AclnnError) as err:
        promote_types(DT.ACL_UINT16, DT.ACL_INT32)
    assert err.value.code == npu_emu.ACLNN_ERR_PARAM_INVALID == 161002
    assert "DT_UINT16" in err.value.message and "DT_INT32" in err.value.message
    with pytest.raises(npu_emu.AclnnError) as err:
        promote_types("fp8e5m2", "f32")
    assert "DT_FLOAT8_E5M2" in err.value.message and "DT_FLOAT" in err.value.message


def test_promote_types_accepts_dtype_likes_and_names_bad_arguments():
    assert promote_types(np.float16, "ACL_FLOAT") == DT.ACL_FLOAT
    assert promote_types(2, 4) == DT.ACL_INT16      # s8 + u8
    with pytest.raises(npu_emu.AclnnError) as err:
        promote_types(None, DT.ACL_FLOAT)
    assert err.value.code == 161002 and "a=None" in err.value.message
    with pytest.raises(npu_emu.AclnnError) as err:
        promote_types(DT.ACL_FLOAT, "nope")
    assert err.value.code == 161002 and "b='nope'" in err.value.message


# --- the implementation rule set

def test_every_pair_under_implementation_rules():
    with promotion_rules("implementation"):
        wrong = {(a.name, b.name): (_outcome(a, b), implementation_promotion(a, b))
                 for a, b in itertools.product(NUMERIC, NUMERIC)
                 if _outcome(a, b) != implementation_promotion(a, b)}
    assert wrong == {}


@pytest.mark.parametrize("pair, result", [
    (("f64", "c32"), "c128"), (("c32", "f64"), "c128"),
    (("f64", "c64"), "c128"), (("c64", "f64"), "c128"),
    (("bf16", "c32"), "c64"), (("c32", "bf16"), "c64"),
    (("u16", "c64"), "c64"), (("u16", "c128"), "c128"),
    (("u32", "c64"), "c64"), (("u32", "c128"), "c128"),
    (("u64", "c64"), "c128"), (("u64", "c128"), "c128"),
])
def test_implementation_differences(pair, result):
    a, b = (SHORT[p] for p in pair)
    with promotion_rules("implementation"):
        assert promote_types(a, b) == SHORT[result]
    # and the documented set keeps its own answer
    assert _outcome(a, b) == documented_promotion(a, b) != SHORT[result]


@pytest.mark.parametrize("u", UNSIGNED_WIDE)
@pytest.mark.parametrize("c", [C32, C64, C128])
def test_implementation_complex_then_unsigned_is_refused(u, c):
    with promotion_rules("implementation"):
        with pytest.raises(npu_emu.AclnnError) as err:
            promote_types(c, u)
        assert err.value.code == 161002
        assert dt_mod.dt_name(c) in err.value.message and dt_mod.dt_name(u) in err.value.message


def test_implementation_asymmetry_is_only_unsigned_with_complex():
    with promotion_rules("implementation"):
        asymmetric = {(a, b) for a, b in itertools.product(NUMERIC, NUMERIC)
                      if _outcome(a, b) != _outcome(b, a)}
    expected = {(u, c) for u in UNSIGNED_WIDE for c in (C64, C128)}
    expected |= {(c, u) for u, c in expected}
    assert asymmetric == expected


# --- selecting the rule set

def test_default_rule_set_is_documented():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c",
                          "import npu_emu; print(npu_emu.get_promotion_rules())"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "documented"


def test_set_and_get_promotion_rules():
    set_promotion_rules("implementation")
    assert get_promotion_rules() == "implementation"
    assert promote_types(DT.ACL_DOUBLE, C64) == C128
    set_promotion_rules("documented")
    assert get_promotion_rules() == "documented"
    assert promote_types(DT.ACL_DOUBLE, C64) == C64
    assert npu_emu.set_promotion_rules is set_promotion_rules


def test_context_manager_restores():
    with npu_emu.promotion_rules("implementation"):
        assert get_promotion_rules() == "implementation"
        with promotion_rules("documented"):
            assert get_promotion_rules() == "documented"
        assert get_promotion_rules() == "implementation"
    assert get_promotion_rules() == "documented"


def test_context_manager_restores_on_exception():
    with pytest.raises(ZeroDivisionError):
        with promotion_rules("implementation"):
            assert can_cast(DT.ACL_FLOAT, C64)          # implementation: real -> complex ok
            1 / 0
    assert get_promotion_rules() == "documented"
    assert not can_cast(DT.ACL_FLOAT, C64)


@pytest.mark.parametrize("name", ["nope", "", None, 5, ["documented"], {}])
def test_unknown_rule_set(name):
    with pytest.raises(npu_emu.AclnnError) as err:
        set_promotion_rules(name)
    assert err.value.code == 161002
    assert repr(name) in err.value.message
    assert get_promotion_rules() == "documented"
    with pytest.raises(npu_emu.AclnnError):
        with promotion_rules(name):
            pass
    assert get_promotion_rules() == "documented"


# --------------------------------------------------------------------------- docs/dtypes.md#result-conversion

FLOATS = {DT.ACL_FLOAT16, DT.ACL_FLOAT, DT.ACL_DOUBLE, DT.ACL_BF16}
INTEGERS = {DT.ACL_INT8, DT.ACL_UINT8, DT.ACL_INT16, DT.ACL_UINT16, DT.ACL_INT32,
            DT.ACL_UINT32, DT.ACL_INT64, DT.ACL_UINT64}
COMPLEXES = {C32, C64, C128}
DOCUMENTED_SET = FLOATS | INTEGERS | COMPLEXES | {DT.ACL_BOOL}


def documented_cast(src, dst) -> bool:
    """docs/dtypes.md#result-conversion's documented rules, from the text."""
    if src == dst:
        return True
    if src not in DOCUMENTED_SET or dst not in DOCUMENTED_SET:
        return False        # decision in the code: types the documents do not cover (fp8,
                            # hif8, int4...) only "convert" to themselves
    if src == DT.ACL_BOOL:
        return True         # bool converts to every type, complex included
    if dst == DT.ACL_BOOL:
        return False        # no non-bool type converts to bool
    if src in COMPLEXES or dst in COMPLEXES:
        return src in COMPLEXES and dst in COMPLEXES
    if src in FLOATS:
        return dst in FLOATS  # floating never to integer
    return dst in INTEGERS or dst in FLOATS   # integer among themselves and to floating


def implementation_cast(src, dst) -> bool:
    """docs/dtypes.md#result-conversion's implementation rules (CANN CanCast), from the text."""
    ks, kd = SPEC_KIND[src.name], SPEC_KIND[dst.name]
    if ks == "complex" and kd != "complex":
        return False
    if ks == "float" and kd in ("signed", "unsigned"):
        return False        # floating (fp8/hif8 included) -> integer
    if kd == "bool" and ks != "bool":
        return False
    return True


def _cast_mismatches(reference):
    return {(s.name, d.name): reference(s, d) for s, d in itertools.product(NUMERIC, NUMERIC)
            if can_cast(s, d) is not reference(s, d)}


def test_can_cast_every_pair_documented():
    assert get_promotion_rules() == "documented"
    assert _cast_mismatches(documented_cast) == {}


def test_can_cast_every_pair_implementation():
    with promotion_rules("implementation"):
        assert _cast_mismatches(implementation_cast) == {}


@pytest.mark.parametrize("src, dst, documented, implementation", [
    ("f32", "f16", True, True),
    ("f16", "bf16", True, True),
    ("s32", "f32", True, True),
    ("u64", "s8", True, True),
    ("f32", "s32", False, False),
    ("f32", "u8", False, False),
    ("f32", "bool", False, False),
    ("s32", "bool", False, False),
    ("bool", "c64", True, True),
    ("bool", "u64", True, True),
    ("c64", "c128", True, True),
    ("c128", "c32", True, True),
    ("c64", "f32", False, False),
    ("f32", "c64", False, True),        # real -> complex: implementation only
    ("s8", "c128", False, True),
    ("f32", "fp8e5m2", False, True),
    ("fp8e4m3fn", "f32", False, True),
    ("hif8", "s32", False, False),
    ("hif8", "hif8", True, True),
])
def test_can_cast_examples(src, dst, documented, implementation):
    assert can_cast(src, dst) is documented
    with promotion_rules("implementation"):
        assert can_cast(src, dst) is implementation


def test_can_cast_names_bad_arguments():
    with pytest.raises(npu_emu.AclnnError) as err:
        can_cast(None, DT.ACL_FLOAT)
    assert err.value.code == 161002 and "src" in err.value.message
    with pytest.raises(npu_emu.AclnnError) as err:
        can_cast(DT.ACL_FLOAT, "nope")
    assert err.value.code == 161002 and "dst" in err.value.message


def test_as_dtype_takes_pytorch_dtypes():
    torch = pytest.importorskip("torch")
    pairs = {torch.float32: DT.ACL_FLOAT, torch.float16: DT.ACL_FLOAT16, torch.bfloat16: DT.ACL_BF16,
             torch.float64: DT.ACL_DOUBLE, torch.int8: DT.ACL_INT8, torch.uint8: DT.ACL_UINT8,
             torch.int64: DT.ACL_INT64, torch.bool: DT.ACL_BOOL, torch.complex64: DT.ACL_COMPLEX64,
             torch.complex32: DT.ACL_COMPLEX32, torch.float8_e5m2: DT.ACL_FLOAT8_E5M2,
             torch.float8_e4m3fn: DT.ACL_FLOAT8_E4M3FN}
    for t, want in pairs.items():
        assert as_dtype(t) == want, t


@pytest.mark.parametrize("value, why", [("float", "ambiguous"), (np.dtype(">f4"), "big-endian"),
                                        (np.float32(2.0), "not a dtype"), ("complex", None)])
def test_as_dtype_refuses_guesses(value, why):
    if why is None:                       # NumPy's "complex" is complex128: not ambiguous
        assert as_dtype(value) == DT.ACL_COMPLEX128
        return
    with pytest.raises(TypeError, match=why):
        as_dtype(value)


def test_ml_dtypes_is_imported_when_its_types_are_first_needed():
    """ml_dtypes 0.7's import takes about half a second (its ufunc loops registered one by
    one): npu_emu imports it the first time one of its types is needed. In a fresh process an
    operation on float32 leaves it unimported; a bfloat16 array's host view, its finfo, and a
    NumPy array of an ml_dtypes type handed to us then work as before."""
    import subprocess
    import sys
    code = """
import sys
import numpy as np
import npu_emu.array_api as xp
from npu_emu import as_dtype, info
x = xp.asarray([1.5, -2.0], dtype=xp.float32)
float(xp.sum(xp.exp(x)))
before = "ml_dtypes" in sys.modules
b = xp.astype(x, xp.bfloat16)
host = np.asarray(b)
import ml_dtypes
f8 = np.array([0.5, 448.0], dtype=ml_dtypes.float8_e4m3fn)
y = xp.asarray(f8)
print(before, host.dtype == np.dtype(ml_dtypes.bfloat16), host.tolist(),
      y.dtype == xp.float8_e4m3fn, np.asarray(y).tolist(), xp.finfo(xp.bfloat16).eps,
      as_dtype(ml_dtypes.float8_e8m0fnu).name, info("bf16").host == np.dtype(ml_dtypes.bfloat16))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**__import__("os").environ, "NPU_EMU_DEVICE": "cpu"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "True", "[1.5,", "-2.0]", "True", "[0.5,", "448.0]",
                                "0.0078125", "ACL_FLOAT8_E8M0", "True"], r.stdout
