"""The array API's dtype objects: the standard's thirteen plus the NPU's float16, bfloat16,
float8_e5m2, float8_e4m3fn and hifloat8, each a small object naming its aclDataType.

Note: the dtypes are not aclDataType members. An IntEnum is an int, so `asarray(float32)`
would silently make the array 0; these objects are nothing but dtypes (and
`npu_emu.as_dtype` accepts them through their `acl_dtype` attribute).
"""
from __future__ import annotations

import os

from ...dtypes import BOOL, COMPLEX, FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT, as_dtype
from ...status import AclnnError


class DType:
    """An array API data type; compare with `==` (each dtype is one object)."""

    __slots__ = ("name", "acl_dtype")

    def __init__(self, name: str, acl_dtype: DT) -> None:
        self.name = name
        self.acl_dtype = acl_dtype

    @property
    def kind(self) -> str:
        """npu_emu.dtypes' kind: "bool", "signed", "unsigned", "floating" or "complex"."""
        return INFO[self.acl_dtype].kind

    @property
    def itemsize(self) -> int:
        return INFO[self.acl_dtype].itemsize

    def __repr__(self) -> str:
        return f"npu_emu.array_api.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        # Note: equal to itself only, never to a NumPy dtype or a name (as array-api-strict).
        return self is other

    def __hash__(self) -> int:
        return hash(("npu_emu.array_api", self.name))

    def __reduce__(self):
        return (_by_name, (self.name,))


# (name, aclDataType), the standard's order first, then the NPU's own.
STANDARD_NAMES = (
    ("bool", DT.ACL_BOOL), ("int8", DT.ACL_INT8), ("int16", DT.ACL_INT16),
    ("int32", DT.ACL_INT32), ("int64", DT.ACL_INT64), ("uint8", DT.ACL_UINT8),
    ("uint16", DT.ACL_UINT16), ("uint32", DT.ACL_UINT32), ("uint64", DT.ACL_UINT64),
    ("float32", DT.ACL_FLOAT), ("float64", DT.ACL_DOUBLE), ("complex64", DT.ACL_COMPLEX64),
    ("complex128", DT.ACL_COMPLEX128),
)
NPU_NAMES = (
    ("float16", DT.ACL_FLOAT16), ("bfloat16", DT.ACL_BF16),
    ("float8_e5m2", DT.ACL_FLOAT8_E5M2), ("float8_e4m3fn", DT.ACL_FLOAT8_E4M3FN),
    ("hifloat8", DT.ACL_HIFLOAT8),
)
_ALL = {name: DType(name, acl) for name, acl in STANDARD_NAMES + NPU_NAMES}
BY_ACL: dict[DT, DType] = {d.acl_dtype: d for d in _ALL.values()}
STANDARD = tuple(_ALL[n] for n, _ in STANDARD_NAMES)
NPU_EXTRA = tuple(_ALL[n] for n, _ in NPU_NAMES)
ALL = STANDARD + NPU_EXTRA

bool = _ALL["bool"]  # noqa: A001 (the standard's name)
int8, int16, int32, int64 = (_ALL[n] for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_ALL[n] for n in ("uint8", "uint16", "uint32", "uint64"))
float32, float64 = _ALL["float32"], _ALL["float64"]
complex64, complex128 = _ALL["complex64"], _ALL["complex128"]
float16, bfloat16 = _ALL["float16"], _ALL["bfloat16"]
float8_e5m2, float8_e4m3fn, hifloat8 = (_ALL[n] for n in ("float8_e5m2", "float8_e4m3fn",
                                                           "hifloat8"))

# The default integer and index dtypes (fixed).
DEFAULT_INT = int64
DEFAULT_INDEX = int64

# The default floating dtypes (__array_namespace_info__().default_dtypes()): a switch,
# set_default_dtypes or the environment variable below (read at import). Note: float64 /
# complex128 by default, as NumPy, because clients (SciPy, scikit-learn) assume them unless
# the namespace is PyTorch's; float32 is the NPU's native float (Expand and Matmul have no
# float64 and refuse it with CANN's message).
DEFAULT_FLOAT_ENV = "NPU_EMU_DEFAULT_FLOAT"
_FLOAT_PAIRS = {"float64": (float64, complex128), "float32": (float32, complex64)}
_floats: list[DType] = list(_FLOAT_PAIRS["float64"])


def default_float() -> DType:
    """The default real floating dtype (float64 unless switched)."""
    return _floats[0]


def default_complex() -> DType:
    """The default complex floating dtype (complex128 unless switched)."""
    return _floats[1]


def default_of_kind(kind: str) -> DType:
    """The default dtype of an npu_emu kind (bool, signed, unsigned, floating, complex)."""
    if kind == FLOATING:
        return _floats[0]
    if kind == COMPLEX:
        return _floats[1]
    return bool if kind == BOOL else DEFAULT_INT


def default_dtypes() -> dict[str, DType]:
    """The standard's default_dtypes() dictionary."""
    return {"real floating": _floats[0], "complex floating": _floats[1],
            "integral": DEFAULT_INT, "indexing": DEFAULT_INDEX}


def set_default_dtypes(*, real_floating: object = None,
                       complex_floating: object = None) -> dict[str, DType]:
    """Switch the default floating dtypes: float64 with complex128 (the default, NumPy's) or
    float32 with complex64 (the NPU's native float, PyTorch's). Either may be given, the other
    follows its precision; returns the previous defaults (default_dtypes()). Arrays already
    made keep their dtype. The environment variable NPU_EMU_DEFAULT_FLOAT=float32|float64 sets
    the same switch at import."""
    pairs = {(r.name, c.name): (r, c) for r, c in _FLOAT_PAIRS.values()}
    real = None if real_floating is None else to_dtype(real_floating, "real_floating")
    cplx = None if complex_floating is None else to_dtype(complex_floating, "complex_floating")
    if real is None and cplx is None:
        raise TypeError("set_default_dtypes: give real_floating= or complex_floating=")
    if real is None:
        real = {"complex128": float64, "complex64": float32}.get(cplx.name, cplx)
    if cplx is None:
        cplx = {"float64": complex128, "float32": complex64}.get(real.name, real)
    if (real.name, cplx.name) not in pairs:
        raise ValueError(f"set_default_dtypes: real_floating={real.name}, complex_floating="
                         f"{cplx.name} is not a default pair; use float64 with complex128 or "
                         f"float32 with complex64")
    before = default_dtypes()
    _floats[:] = pairs[(real.name, cplx.name)]
    for forget in ON_SWITCH:
        forget()
    return before


# What set_default_dtypes calls after a switch: the repeated calls' short way forgets the
# calls it knows (repeat), whose results may be in the default float.
ON_SWITCH: list = []

# The standard's dtype kinds (isdtype, dtypes(kind=...)) as sets of npu_emu kinds.
KINDS: dict[str, frozenset[str]] = {
    "bool": frozenset({BOOL}),
    "signed integer": frozenset({SIGNED}),
    "unsigned integer": frozenset({UNSIGNED}),
    "integral": frozenset({SIGNED, UNSIGNED}),
    "real floating": frozenset({FLOATING}),
    "complex floating": frozenset({COMPLEX}),
    "numeric": frozenset({SIGNED, UNSIGNED, FLOATING, COMPLEX}),
}

# Input categories the elementwise functions accept (the standard's wording).
CATEGORIES: dict[str, frozenset[str]] = {
    "all": frozenset({BOOL, SIGNED, UNSIGNED, FLOATING, COMPLEX}),
    "numeric": KINDS["numeric"],
    "real numeric": frozenset({SIGNED, UNSIGNED, FLOATING}),
    "integer": KINDS["integral"],
    "integer or boolean": frozenset({BOOL, SIGNED, UNSIGNED}),
    "floating-point": frozenset({FLOATING, COMPLEX}),
    "real floating-point": frozenset({FLOATING}),
    "boolean": frozenset({BOOL}),
}


def _by_name(name: str) -> DType:
    return _ALL[name]


def to_dtype(value: object, param: str = "dtype") -> DType:
    """A DType from one of ours, or from anything `npu_emu.as_dtype` reads (a NumPy,
    ml_dtypes or PyTorch dtype, a name, an aclDataType); TypeError naming `param` otherwise."""
    if isinstance(value, DType):
        return value
    try:
        acl = as_dtype(value, param)
    except AclnnError as err:
        raise TypeError(f"{param}={value!r} is not a dtype of npu_emu.array_api "
                        f"({err.message})") from None
    found = BY_ACL.get(acl)
    if found is None:
        raise TypeError(f"{param}={value!r} is {acl.name}, which npu_emu.array_api has no dtype "
                        f"for; use one of {', '.join(d.name for d in ALL)}")
    return found


def of_acl(acl: DT) -> DType:
    found = BY_ACL.get(acl)
    if found is None:
        raise TypeError(f"{acl.name} has no dtype in npu_emu.array_api")
    return found


__all__ = ["DType", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
           "uint64", "float32", "float64", "complex64", "complex128", "float16", "bfloat16",
           "float8_e5m2", "float8_e4m3fn", "hifloat8"]


# Floats narrower than float32 (float16, bfloat16, the float8 types, HiFloat8): the NPU
# computes them in float32, and a Python scalar converts to them through float32, as the
# cast kernels convert float64 and integers to them.
VIA_FLOAT32 = frozenset(dt for dt, info in INFO.items()
                        if info.kind == FLOATING and info.bits < 32)
_REAL_OF = {DT.ACL_COMPLEX64: DT.ACL_FLOAT, DT.ACL_COMPLEX128: DT.ACL_DOUBLE}
# Note: there is no complex type narrower than complex64 in the namespace, so the complex
# results of the narrow floats (rfft of float16) are complex64, the type they compute in.
_COMPLEX_OF = {DT.ACL_DOUBLE: DT.ACL_COMPLEX128}


def real_of(dt: DT) -> DT:
    """The real floating dtype of dt's precision (complex64 -> float32; reals: themselves)."""
    return _REAL_OF.get(dt, dt)


def complex_of(dt: DT) -> DT:
    """The complex dtype of dt's precision (float64 -> complex128, other floats -> complex64)."""
    if INFO[dt].kind == COMPLEX:
        return dt
    return _COMPLEX_OF.get(dt, DT.ACL_COMPLEX64)


def _default_float_from_environment() -> None:
    value = os.environ.get(DEFAULT_FLOAT_ENV, "").strip().lower()
    if not value:
        return
    if value not in _FLOAT_PAIRS:
        raise ValueError(f"{DEFAULT_FLOAT_ENV}={value!r} is not a default float; use "
                         f"{' or '.join(_FLOAT_PAIRS)}")
    _floats[:] = _FLOAT_PAIRS[value]


_default_float_from_environment()
