"""aclDataType (docs/dtypes.md#data-types), type promotion (docs/dtypes.md#type-promotion) and result conversion rules (docs/dtypes.md#result-conversion).

Tables are data: the promotion table below is a literal transcription of docs/dtypes.md#type-promotion, read by
`promote_types` and, independently, by the tests.
"""
from __future__ import annotations

import contextlib
import enum
import functools
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from .status import AclnnError, ACLNN_ERR_PARAM_INVALID


class NamedIntEnum(enum.IntEnum):
    """An IntEnum that prints its name (pyACL users read `print(dtype)` as ACL_FLOAT, not 0)."""

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec) if not spec or spec[-1] not in "bcdoxXn" else format(int(self), spec)


class aclDataType(NamedIntEnum):
    ACL_DT_UNDEFINED = -1
    ACL_FLOAT = 0
    ACL_FLOAT16 = 1
    ACL_INT8 = 2
    ACL_INT32 = 3
    ACL_UINT8 = 4
    ACL_INT16 = 6
    ACL_UINT16 = 7
    ACL_UINT32 = 8
    ACL_INT64 = 9
    ACL_UINT64 = 10
    ACL_DOUBLE = 11
    ACL_BOOL = 12
    ACL_STRING = 13
    ACL_COMPLEX64 = 16
    ACL_COMPLEX128 = 17
    ACL_BF16 = 27
    ACL_INT4 = 29
    ACL_UINT1 = 30
    ACL_COMPLEX32 = 33
    ACL_HIFLOAT8 = 34
    ACL_FLOAT8_E5M2 = 35
    ACL_FLOAT8_E4M3FN = 36
    ACL_FLOAT8_E8M0 = 37
    ACL_FLOAT6_E3M2 = 38
    ACL_FLOAT6_E2M3 = 39
    ACL_FLOAT4_E2M1 = 40
    ACL_FLOAT4_E1M2 = 41


DT = aclDataType

BOOL, SIGNED, UNSIGNED, FLOATING, COMPLEX, OTHER = (
    "bool", "signed", "unsigned", "floating", "complex", "other")


@dataclass(frozen=True)
class DTypeInfo:
    """What the emulator knows of one aclDataType.

    ``storage`` is the NumPy dtype of the raw elements in device memory (bf16, fp8, HiFloat8
    and complex32 are raw unsigned bits there); ``host`` is the dtype users read and write
    (ml_dtypes where it has the type); both are None where no per-element storage exists
    (sub-byte types, strings).
    """

    dtype: aclDataType
    short: str
    bits: int
    kind: str
    storage: np.dtype | None
    _host: np.dtype | str | None = field(compare=False)   # a str: ml_dtypes' type of that name

    @property
    def host(self) -> np.dtype | None:
        h = self._host
        if h.__class__ is str:
            h = ml_dtype(h)
            object.__setattr__(self, "_host", h)
        return h

    @property
    def itemsize(self) -> int | None:
        return None if self.storage is None else self.storage.itemsize

    @property
    def name(self) -> str:
        """CANN's DT_ name, as used in its messages ("DT_FLOAT")."""
        return dt_name(self.dtype)


_SAME = object()  # host dtype = storage dtype; an explicit None means "no host type"


@functools.cache
def ml_dtype(name: str) -> np.dtype:
    """ml_dtypes' NumPy dtype of that name (bfloat16, float8_e5m2, ...). ml_dtypes is imported
    the first time one is needed (a host view or value of bf16 or FP8, a NumPy array of such a
    type handed to us): from version 0.7 its import registers its ufunc loops one at a time,
    and NumPy's search of the loops already registered makes that about 0.5 s (4 ms for 0.6),
    which a program that never meets these types should not pay."""
    import ml_dtypes
    return np.dtype(getattr(ml_dtypes, name))


def _info(dt, short, bits, kind, storage, host=_SAME):
    storage = None if storage is None else np.dtype(storage)
    host = storage if host is _SAME else host
    if host is not None and not isinstance(host, str):
        host = np.dtype(host)
    return DTypeInfo(dt, short, bits, kind, storage, host)


INFO: dict[aclDataType, DTypeInfo] = {i.dtype: i for i in [
    _info(DT.ACL_DT_UNDEFINED, "undefined", 0, OTHER, None),
    _info(DT.ACL_FLOAT, "f32", 32, FLOATING, np.float32),
    _info(DT.ACL_FLOAT16, "f16", 16, FLOATING, np.float16),
    _info(DT.ACL_INT8, "s8", 8, SIGNED, np.int8),
    _info(DT.ACL_INT32, "s32", 32, SIGNED, np.int32),
    _info(DT.ACL_UINT8, "u8", 8, UNSIGNED, np.uint8),
    _info(DT.ACL_INT16, "s16", 16, SIGNED, np.int16),
    _info(DT.ACL_UINT16, "u16", 16, UNSIGNED, np.uint16),
    _info(DT.ACL_UINT32, "u32", 32, UNSIGNED, np.uint32),
    _info(DT.ACL_INT64, "s64", 64, SIGNED, np.int64),
    _info(DT.ACL_UINT64, "u64", 64, UNSIGNED, np.uint64),
    _info(DT.ACL_DOUBLE, "f64", 64, FLOATING, np.float64),
    _info(DT.ACL_BOOL, "bool", 8, BOOL, np.bool_),
    _info(DT.ACL_STRING, "string", 0, OTHER, None),
    _info(DT.ACL_COMPLEX64, "c64", 64, COMPLEX, np.complex64),
    _info(DT.ACL_COMPLEX128, "c128", 128, COMPLEX, np.complex128),
    _info(DT.ACL_BF16, "bf16", 16, FLOATING, np.uint16, "bfloat16"),
    _info(DT.ACL_INT4, "s4", 4, SIGNED, None),
    _info(DT.ACL_UINT1, "u1", 1, UNSIGNED, None),
    # complex32: two fp16 halves (real, imag) in one 32-bit word; NumPy has no host type.
    _info(DT.ACL_COMPLEX32, "c32", 32, COMPLEX, np.uint32, None),
    # HiFloat8: no library has it; host code works on the raw codes (npu_emu.hifloat8).
    _info(DT.ACL_HIFLOAT8, "hif8", 8, FLOATING, np.uint8, None),
    _info(DT.ACL_FLOAT8_E5M2, "fp8e5m2", 8, FLOATING, np.uint8, "float8_e5m2"),
    _info(DT.ACL_FLOAT8_E4M3FN, "fp8e4m3fn", 8, FLOATING, np.uint8, "float8_e4m3fn"),
    _info(DT.ACL_FLOAT8_E8M0, "fp8e8m0", 8, FLOATING, np.uint8, "float8_e8m0fnu"),
    _info(DT.ACL_FLOAT6_E3M2, "fp6e3m2", 6, FLOATING, None),
    _info(DT.ACL_FLOAT6_E2M3, "fp6e2m3", 6, FLOATING, None),
    _info(DT.ACL_FLOAT4_E2M1, "fp4e2m1", 4, FLOATING, None),
    _info(DT.ACL_FLOAT4_E1M2, "fp4e1m2", 4, FLOATING, None),
]}
BY_SHORT = {i.short: i.dtype for i in INFO.values()}
NUMERIC = frozenset(d for d, i in INFO.items() if i.kind != OTHER)

# NumPy dtypes that map one-to-one onto an aclDataType (for users handing us arrays).
_FROM_NUMPY = {
    np.dtype(np.float32): DT.ACL_FLOAT, np.dtype(np.float16): DT.ACL_FLOAT16,
    np.dtype(np.float64): DT.ACL_DOUBLE, np.dtype(np.int8): DT.ACL_INT8,
    np.dtype(np.int16): DT.ACL_INT16, np.dtype(np.int32): DT.ACL_INT32,
    np.dtype(np.int64): DT.ACL_INT64, np.dtype(np.uint8): DT.ACL_UINT8,
    np.dtype(np.uint16): DT.ACL_UINT16, np.dtype(np.uint32): DT.ACL_UINT32,
    np.dtype(np.uint64): DT.ACL_UINT64, np.dtype(np.bool_): DT.ACL_BOOL,
    np.dtype(np.complex64): DT.ACL_COMPLEX64, np.dtype(np.complex128): DT.ACL_COMPLEX128,
}
# ml_dtypes' types, by their names (an array or scalar of one comes from a program that has
# imported ml_dtypes: it joins _FROM_NUMPY when first met, _from_ml_dtypes).
_ML_DTYPES = {i._host: d for d, i in INFO.items() if isinstance(i._host, str)}


def _from_ml_dtypes(np_dtype: np.dtype) -> aclDataType | None:
    """The aclDataType of one of ml_dtypes' dtypes (bfloat16, float8_e5m2, float8_e4m3fn,
    float8_e8m0fnu), remembered in _FROM_NUMPY; None for any other dtype."""
    found = _ML_DTYPES.get(np_dtype.name)
    if found is None or not np_dtype.type.__module__.startswith("ml_dtypes") \
            or ml_dtype(np_dtype.name) != np_dtype:
        return None
    _FROM_NUMPY[np_dtype] = found
    return found


# Names of the NumPy / ml_dtypes / PyTorch / array API spelling (lowercase) that NumPy alone
# does not know, and the one NumPy spelling we refuse.
_EXTRA_NAMES = {
    "bfloat16": DT.ACL_BF16, "float8_e5m2": DT.ACL_FLOAT8_E5M2,
    "float8_e4m3fn": DT.ACL_FLOAT8_E4M3FN, "float8_e8m0fnu": DT.ACL_FLOAT8_E8M0,
    "float8_e8m0": DT.ACL_FLOAT8_E8M0, "hifloat8": DT.ACL_HIFLOAT8, "complex32": DT.ACL_COMPLEX32,
    "chalf": DT.ACL_COMPLEX32,
}
# Note: NumPy's "float" is float64 and CANN's ACL_FLOAT is float32; the bare lowercase name
# is refused rather than guessed ("FLOAT", "ACL_FLOAT" and "DT_FLOAT" are CANN's float32).
_AMBIGUOUS = {"float": "NumPy's 'float' is float64 but CANN's FLOAT is float32"}


def is_ml_dtypes_scalar(value: object) -> bool:
    """A scalar of one of ml_dtypes' types that maps onto an aclDataType (bfloat16, fp8)."""
    return isinstance(value, np.generic) and type(value).__module__.startswith("ml_dtypes") \
        and _from_ml_dtypes(np.dtype(type(value))) is not None


def _from_numpy_dtype(np_dtype: np.dtype, value: object, param: str) -> aclDataType:
    if np_dtype.byteorder == ">" or (np_dtype.byteorder == "=" and not np_dtype.isnative):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{param}={value!r} is big-endian; device data is little-endian: use "
                         f"{np_dtype.newbyteorder('<')!r}", TypeError)
    if np_dtype.byteorder not in "=|" and not np_dtype.isnative:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"{param}={value!r} is not in native byte order",
                         TypeError)
    found = _FROM_NUMPY.get(np_dtype)
    if found is None:
        found = _from_ml_dtypes(np_dtype)
    if found is None:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{param}={value!r}: NumPy dtype {np_dtype} has no aclDataType",
                         TypeError)
    return found


def _from_name(text: str, value: object, param: str) -> aclDataType | None:
    key = text.strip()
    if key in BY_SHORT:
        return BY_SHORT[key]
    if key in _AMBIGUOUS:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{param}={value!r} is ambiguous: {_AMBIGUOUS[key]}; write 'float32', "
                         f"'float64', 'ACL_FLOAT' or 'DT_FLOAT'", TypeError)
    if key.lower() in _EXTRA_NAMES:
        return _EXTRA_NAMES[key.lower()]
    if key.isupper() or key.startswith(("ACL_", "DT_")):         # CANN's spelling
        name = key.upper().removeprefix("ACL_").removeprefix("DT_")
        for candidate in ("ACL_" + name, "ACL_DT_" + name):
            if candidate in aclDataType.__members__:
                return aclDataType[candidate]
        return None
    try:                                                          # NumPy's spelling
        np_dtype = np.dtype(key)
    except TypeError:
        return None
    return _from_numpy_dtype(np_dtype, value, param)


def as_dtype(value: object, param: str = "dtype") -> aclDataType:
    """An aclDataType from: an enum member or its integer value; CANN's name ("ACL_FLOAT",
    "FLOAT", "DT_FLOAT"); a short name ("f32", "bf16", "hif8"); a NumPy, ml_dtypes, PyTorch
    or array API dtype or its name ("float32", "bfloat16", np.float16, torch.bfloat16).
    AclnnError(161002, a TypeError) otherwise, naming `param`."""
    if isinstance(value, aclDataType):
        return value
    if isinstance(value, np.dtype):                 # a native NumPy dtype: one lookup
        found = _FROM_NUMPY.get(value)
        return found if found is not None else _from_numpy_dtype(value, value, param)
    acl = getattr(value, "acl_dtype", None)         # the array API's dtype objects
    if isinstance(acl, aclDataType):
        return acl
    found: aclDataType | None = None
    if isinstance(value, (bool, np.bool_)):
        pass  # a bool is an int in Python, never a dtype
    elif isinstance(value, (int, np.integer)):
        try:
            return aclDataType(int(value))
        except ValueError:
            pass
    elif isinstance(value, str):
        found = _from_name(value, value, param)
    elif isinstance(value, type) and (issubclass(value, np.generic) or value in (float, int, bool, complex)):
        return _from_numpy_dtype(np.dtype(value), value, param)
    elif type(value).__module__ == "torch" and type(value).__name__ == "dtype":
        found = _from_name(str(value).removeprefix("torch."), value, param)
    if found is not None:
        return found
    raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                     f"{param}={value!r} is not a dtype (give a member of npu_emu.aclDataType, "
                     f"its value or name, or a NumPy/ml_dtypes/PyTorch dtype it maps to)",
                     TypeError)


def info(dtype: object) -> DTypeInfo:
    return INFO[as_dtype(dtype)]


def dt_name(dtype: aclDataType) -> str:
    """CANN's spelling in messages: DT_FLOAT, DT_BF16, ..."""
    return "DT_" + aclDataType(dtype).name.removeprefix("ACL_").replace("DT_", "")


# --------------------------------------------------------------------------- promotion (docs/dtypes.md#type-promotion)

# Literal transcription of docs/dtypes.md#type-promotion's documented table (rows x columns); the bf16/f16 cell
# reads f32 (docs/dtypes.md's note: the seed's f64 there is its only asymmetric cell).
_TABLE_AXES = "f32 f16 f64 bf16 s8 u8 s16 s32 s64 c32 c64 c128".split()
_DOCUMENTED_TABLE = """
f32   f32  f32  f64  f32  f32  f32  f32  f32  f32  c64  c64  c128
f16   f32  f16  f64  f32  f16  f16  f16  f16  f16  c32  c64  c128
f64   f64  f64  f64  f64  f64  f64  f64  f64  f64  c64  c64  c128
bf16  f32  f32  f64  bf16 bf16 bf16 bf16 bf16 bf16 c32  c64  c128
s8    f32  f16  f64  bf16 s8   s16  s16  s32  s64  c32  c64  c128
u8    f32  f16  f64  bf16 s16  u8   s16  s32  s64  c32  c64  c128
s16   f32  f16  f64  bf16 s16  s16  s16  s32  s64  c32  c64  c128
s32   f32  f16  f64  bf16 s32  s32  s32  s32  s64  c32  c64  c128
s64   f32  f16  f64  bf16 s64  s64  s64  s64  s64  c32  c64  c128
c32   c64  c32  c64  c32  c32  c32  c32  c32  c32  c32  c64  c128
c64   c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c128
c128  c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128
"""


def _parse_table(text: str) -> dict[tuple[aclDataType, aclDataType], aclDataType]:
    table = {}
    for line in text.strip().splitlines():
        row, *cells = line.split()
        for col, cell in zip(_TABLE_AXES, cells, strict=True):
            table[BY_SHORT[row], BY_SHORT[col]] = BY_SHORT[cell]
    return table


def _documented() -> dict[tuple[aclDataType, aclDataType], aclDataType]:
    table = _parse_table(_DOCUMENTED_TABLE)
    for t in [BY_SHORT[s] for s in _TABLE_AXES]:          # bool with a table type: that type
        table[DT.ACL_BOOL, t] = table[t, DT.ACL_BOOL] = t
    for d in NUMERIC:                                     # any type with itself: itself
        table[d, d] = d
    return table


def _implementation() -> dict[tuple[aclDataType, aclDataType], aclDataType]:
    # CANN's PromoteType (docs/dtypes.md#type-promotion, "Implementation table"): the documented table, changed here.
    table = _documented()
    c32, c64, c128 = DT.ACL_COMPLEX32, DT.ACL_COMPLEX64, DT.ACL_COMPLEX128
    for a, b, r in [(DT.ACL_DOUBLE, c32, c128), (DT.ACL_DOUBLE, c64, c128), (DT.ACL_BF16, c32, c64)]:
        table[a, b] = table[b, a] = r
    # Asymmetric: unsigned (first) with complex (second) only.
    for a, b, r in [(DT.ACL_UINT16, c64, c64), (DT.ACL_UINT16, c128, c128),
                    (DT.ACL_UINT32, c64, c64), (DT.ACL_UINT32, c128, c128),
                    (DT.ACL_UINT64, c64, c128), (DT.ACL_UINT64, c128, c128)]:
        table[a, b] = r
    return table


@dataclass(frozen=True)
class RuleSet:
    """One rule set: the promotion table and the result-conversion rule."""
    name: str
    promotion: dict
    cast: object  # (src, dst) -> bool

    def promote(self, a: aclDataType, b: aclDataType) -> aclDataType:
        """The promoted type of a and b; AclnnError(161002, a TypeError) when there is none."""
        result = self.promotion.get((a, b))
        if result is None:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"Promotion of {dt_name(a)} and {dt_name(b)} is not supported "
                             f"(rule set {self.name!r}).", TypeError)
        return result

    def can_cast(self, src: aclDataType, dst: aclDataType) -> bool:
        return bool(self.cast(src, dst))  # type: ignore[operator]


def _can_cast_documented(src: aclDataType, dst: aclDataType) -> bool:
    # docs/dtypes.md#result-conversion, documented rules, over the types the documents cover.
    if src == dst:
        return True
    known = {BY_SHORT[s] for s in _TABLE_AXES} | {DT.ACL_BOOL, DT.ACL_UINT16, DT.ACL_UINT32,
                                                   DT.ACL_UINT64}
    if src not in known or dst not in known:
        return False
    ks, kd = INFO[src].kind, INFO[dst].kind
    if ks == BOOL:
        return True                       # bool converts to every type, complex included
    if kd == BOOL:
        return False                      # no non-bool type converts to bool
    if (ks == COMPLEX) != (kd == COMPLEX):
        return False                      # complex and non-complex never convert
    if ks == FLOATING and kd in (SIGNED, UNSIGNED):
        return False                      # floating never to integer
    return True                           # float<->float, int<->int, int->float, complex<->complex


def _can_cast_implementation(src: aclDataType, dst: aclDataType) -> bool:
    # CANN's CanCast: three refusals, everything else allowed.
    if src == dst:
        return src in NUMERIC
    if src not in NUMERIC or dst not in NUMERIC:
        return False
    ks, kd = INFO[src].kind, INFO[dst].kind
    if ks == COMPLEX and kd != COMPLEX:
        return False
    if ks == FLOATING and kd in (SIGNED, UNSIGNED):
        return False
    if kd == BOOL and ks != BOOL:
        return False
    return True


# The array API's rule set (npu_emu.array_api, docs/array-api.md): the documented table
# wherever the NPU has a rule, plus the promotions the 2024.12 standard requires and the NPU
# lacks (docs/dtypes.md#type-promotion promotes u16, u32 and u64 only with themselves). Rows: a, b, result (both
# orders). The standard has no rule for u64 with a signed type, and neither do we.
_STANDARD_UNSIGNED = """
u8   u16  u16
u8   u32  u32
u8   u64  u64
u16  u32  u32
u16  u64  u64
u32  u64  u64
s8   u16  s32
s16  u16  s32
s32  u16  s32
s64  u16  s64
s8   u32  s64
s16  u32  s64
s32  u32  s64
s64  u32  s64
"""


# The one cell where the NPU's table and the 2024.12 standard's required result disagree:
# the standard overrides it (float64 with complex64 is complex128, keeping float64's
# precision; the NPU's documented table says complex64).
_STANDARD_OVERRIDES = """
f64  c64  c128
"""


def _array_api() -> dict[tuple[aclDataType, aclDataType], aclDataType]:
    table = _documented()
    for line in _STANDARD_UNSIGNED.strip().splitlines():
        a, b, result = (BY_SHORT[s] for s in line.split())
        if (a, b) in table:   # the additions only fill cells the NPU leaves empty
            raise ValueError(f"_STANDARD_UNSIGNED would override the NPU's {line.strip()!r}")
        table[a, b] = table[b, a] = result
    for line in _STANDARD_OVERRIDES.strip().splitlines():
        a, b, result = (BY_SHORT[s] for s in line.split())
        table[a, b] = table[b, a] = result
    return table


def _can_cast_by_promotion(table: dict) -> object:
    """The standard's can_cast over `table`: src converts to dst when promoting the two gives
    dst (so a result is never narrowed, and floating never becomes integer)."""
    def can_cast(src: aclDataType, dst: aclDataType) -> bool:
        return table.get((src, dst)) == dst
    return can_cast


_ARRAY_API_TABLE = _array_api()
RULE_SETS = {
    "documented": RuleSet("documented", _documented(), _can_cast_documented),
    "implementation": RuleSet("implementation", _implementation(), _can_cast_implementation),
    "array_api": RuleSet("array_api", _ARRAY_API_TABLE, _can_cast_by_promotion(_ARRAY_API_TABLE)),
}
_current_rules = RULE_SETS["documented"]


def set_promotion_rules(name: str) -> None:
    """Select the rule set for promotion, result conversion and every operator:
    "documented" (the seed documents, default), "implementation" (CANN's code) or
    "array_api" (what npu_emu.array_api uses: the documented table plus the standard's
    unsigned promotions and float64 with complex64, results converted only where promotion
    allows)."""
    global _current_rules
    if not isinstance(name, str) or name not in RULE_SETS:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"name={name!r} is not a rule set; choose one of {sorted(RULE_SETS)}")
    _current_rules = RULE_SETS[name]


def get_promotion_rules() -> str:
    return _current_rules.name


@contextlib.contextmanager
def promotion_rules(name: str) -> Iterator[None]:
    previous = _current_rules.name
    set_promotion_rules(name)
    try:
        yield
    finally:
        set_promotion_rules(previous)


def current_rules() -> RuleSet:
    """The rule set in force (set_promotion_rules / promotion_rules)."""
    return _current_rules


def promote_types(a: object, b: object) -> aclDataType:
    """The dtype a computing operator computes in for inputs of dtypes a and b, under the
    current rule set (docs/dtypes.md#type-promotion)."""
    return _current_rules.promote(as_dtype(a, "a"), as_dtype(b, "b"))


def can_cast(src: object, dst: object) -> bool:
    """Whether a computed result of dtype src may be converted to an out of dtype dst (docs/dtypes.md#result-conversion)."""
    return _current_rules.can_cast(as_dtype(src, "src"), as_dtype(dst, "dst"))


# Host encode/decode of every stored type (ml_dtypes where it has the type, our own
# vectorized code for HiFloat8 and complex32): npu_emu.dtypes.encode / decode.
from .codecs import decode, encode  # noqa: E402,F401  (codecs reads the tables above)
