"""SoC records (docs/socs.md#socs): what each Ascend chip supports, as data.

The SoC is chosen by the user (`set_soc`, the `soc` context manager, or NPU_EMU_SOC in the
environment; default Ascend910B) and never guessed from the GPU we happen to run on.
"""
from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass, field
from typing import Iterator

from .dtypes import aclDataType as DT
from .status import AclnnError, ACLNN_ERR_PARAM_INVALID

ZZ_ZN_NZ = "Zz x Zn -> Nz"
NZ_ZN_NZ = "Nz x Zn -> Nz"

# Per-op dtype lists (docs/operators.md#aclnnexpand, docs/operators.md). Ops whose list does not depend on the SoC keep it in
# their own module.
_EXPAND_BASE = (DT.ACL_FLOAT16, DT.ACL_FLOAT, DT.ACL_UINT8, DT.ACL_INT8, DT.ACL_INT32,
                DT.ACL_INT64, DT.ACL_BOOL)
_CAST_910 = (DT.ACL_FLOAT16, DT.ACL_FLOAT, DT.ACL_DOUBLE, DT.ACL_INT8, DT.ACL_UINT8,
             DT.ACL_INT16, DT.ACL_INT32, DT.ACL_INT64, DT.ACL_UINT16, DT.ACL_UINT32,
             DT.ACL_UINT64, DT.ACL_BOOL, DT.ACL_COMPLEX64, DT.ACL_COMPLEX128)
# aclnnAdd / aclnnMul (CANN aclnn_add.cpp, aclnn_mul.cpp): BF16 where the SoC has it.
_ADD_BASE = (DT.ACL_FLOAT, DT.ACL_INT32, DT.ACL_INT64, DT.ACL_FLOAT16, DT.ACL_INT16, DT.ACL_INT8,
             DT.ACL_UINT8, DT.ACL_DOUBLE, DT.ACL_BOOL, DT.ACL_COMPLEX64, DT.ACL_COMPLEX128)
_LOW_PRECISION_950 = (DT.ACL_HIFLOAT8, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN,
                      DT.ACL_COMPLEX32)


@dataclass(frozen=True)
class SocInfo:
    name: str
    products: str
    npu_arch: str
    bf16: bool
    matmul_convention: str
    op_dtypes: dict[str, frozenset] = field(default_factory=dict)
    unsupported_ops: frozenset = frozenset()
    c0_bytes: int = 32           # C0 = c0_bytes / itemsize (docs/formats.md#private-layouts)
    fractal_rows: int = 16       # a fractal is 16 rows x (c0_bytes / itemsize) columns
    l0c_fractal: tuple = (16, 16)

    def dtypes_for(self, op: str) -> frozenset:
        return self.op_dtypes[op]

    def supports(self, op: str) -> bool:
        return op not in self.unsupported_ops

    def c0(self, itemsize_bits: int) -> int:
        """Elements per C0 (the fractal's column count) for an element of this bit width."""
        return self.c0_bytes * 8 // itemsize_bits


def _soc(name, products, npu_arch, bf16, convention, extra_cast=(), unsupported=()):
    expand = _EXPAND_BASE + ((DT.ACL_BF16,) if bf16 else ())
    cast = _CAST_910 + ((DT.ACL_BF16,) if bf16 else ()) + tuple(extra_cast)
    add = _ADD_BASE + ((DT.ACL_BF16,) if bf16 else ())
    return SocInfo(name, products, npu_arch, bf16, convention,
                   {"Expand": frozenset(expand), "Cast": frozenset(cast), "Add": frozenset(add),
                    "Mul": frozenset(add)},
                   frozenset(unsupported))


SOCS: dict[str, SocInfo] = {s.name: s for s in [
    _soc("Ascend910", "Atlas training series", "DAV_1001", False, ZZ_ZN_NZ),
    _soc("Ascend910B", "Atlas A2 training/inference", "DAV_2201", True, ZZ_ZN_NZ),
    _soc("Ascend910_93", "Atlas A3 training/inference", "DAV_2201", True, ZZ_ZN_NZ),
    _soc("Ascend310P", "Atlas inference series", "DAV_2002", False, ZZ_ZN_NZ),
    _soc("Ascend310B", "Atlas 200I/500 A2", "DAV_3002", False, ZZ_ZN_NZ,
         unsupported=("Expand", "Matmul", "CubeMatmul")),
    _soc("Ascend950", "Ascend 950PR/950DT", "DAV_3510", True, NZ_ZN_NZ,
         extra_cast=_LOW_PRECISION_950),
]}
DEFAULT_SOC = "Ascend910B"

_lock = threading.Lock()
_current: SocInfo | None = None


def get_soc(name: object, param: str = "name") -> SocInfo:
    if isinstance(name, SocInfo):
        return name
    if isinstance(name, str):
        for key, soc in SOCS.items():
            if key.lower() == name.strip().lower():
                return soc
    raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                     f"{param}={name!r} is not a known SoC; choose one of {', '.join(SOCS)}")


def current_soc() -> SocInfo:
    """The SoC whose rules the operators follow now."""
    global _current
    if _current is None:
        with _lock:
            if _current is None:
                env = os.environ.get("NPU_EMU_SOC")
                _current = get_soc(env, "NPU_EMU_SOC") if env else SOCS[DEFAULT_SOC]
    return _current


def set_soc(name: str) -> SocInfo:
    global _current
    soc = get_soc(name)
    with _lock:
        _current = soc
    return soc


@contextlib.contextmanager
def soc(name: str) -> Iterator[SocInfo]:
    """with npu_emu.soc("Ascend950"): ... -- the previous SoC comes back on exit."""
    previous = current_soc()
    selected = set_soc(name)
    try:
        yield selected
    finally:
        set_soc(previous.name)
