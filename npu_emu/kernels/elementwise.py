"""The binary arithmetic kernels of aclnnAdd / aclnnMul (kernels_cuda/elementwise.cuh): the
catalog, declared once.

Kernels are `<op>_<type>_<index>` (add_f32_i32). They are split into compile units by storage
type (GROUPS: each type alone, complex together) and index width, so that a call compiles
only the unit its dtype needs (a cold first float add builds a few seconds' worth of kernels);
each unit's .cu file and instantiation list (.inc) are generated from CATALOG
(`python -m npu_emu.kernels` rewrites them; a test checks they are fresh).
"""
from __future__ import annotations

from pathlib import Path

from ..dtypes import aclDataType as DT
from . import unit_text

# Storage type -> (kernel-name spelling, C++ type of kernels_cuda).
TYPES: dict[DT, tuple[str, str]] = {
    DT.ACL_FLOAT: ("f32", "float"), DT.ACL_DOUBLE: ("f64", "double"),
    DT.ACL_FLOAT16: ("f16", "npu_emu::f16"), DT.ACL_BF16: ("bf16", "npu_emu::bf16"),
    DT.ACL_INT8: ("s8", "int8_t"), DT.ACL_UINT8: ("u8", "uint8_t"), DT.ACL_INT16: ("s16", "int16_t"),
    DT.ACL_INT32: ("s32", "int32_t"), DT.ACL_INT64: ("s64", "int64_t"),
    DT.ACL_BOOL: ("bool", "npu_emu::boolean"),
    DT.ACL_COMPLEX64: ("c64", "npu_emu::c64"), DT.ACL_COMPLEX128: ("c128", "npu_emu::c128"),
}
# Operation -> (the Op enum of elementwise.cuh, the storage types it has kernels for).
# axpy is CANN's Axpy golden (float alpha): only where CANN has it.
_ALL = tuple(TYPES)
CATALOG: dict[str, tuple[str, tuple[DT, ...]]] = {
    "add": ("ADD", _ALL),
    "mul": ("MUL", _ALL),
    "muladd": ("MULADD", _ALL),
    "axpy": ("AXPY", (DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT, DT.ACL_INT32)),
}
INDEX = {"i32": "uint32_t", "i64": "uint64_t"}
# Type groups of the compile units. Each type alone (a first add of one dtype builds only its
# own kernels: float16's cost g++ twice float32's, the conversions) except complex.
GROUPS: dict[str, tuple[DT, ...]] = {
    "f32": (DT.ACL_FLOAT,), "f64": (DT.ACL_DOUBLE,), "f16": (DT.ACL_FLOAT16,),
    "bf16": (DT.ACL_BF16,), "s64": (DT.ACL_INT64,), "s32": (DT.ACL_INT32,),
    "s16": (DT.ACL_INT16,), "s8": (DT.ACL_INT8,), "u8": (DT.ACL_UINT8,), "bool": (DT.ACL_BOOL,),
    "complex": (DT.ACL_COMPLEX64, DT.ACL_COMPLEX128),
}
# Compile unit -> (the storage types it instantiates, its index type). The 64-bit index
# kernels (spaces past 2^31 elements) are units of their own: most programs never build them.
UNITS: dict[str, tuple[tuple[DT, ...], str]] = {
    f"elementwise_{group}{'' if index == 'i32' else '_' + index}.cu": (types, index)
    for group, types in GROUPS.items() for index in INDEX
}
_UNIT_OF = {(dt, index): unit for unit, (types, index) in UNITS.items() for dt in types}
GENERATED = ("elementwise_*.cu", "elementwise_*.inc")   # generated from CATALOG (npu_emu.kernels)


def supports(op: str, dtype: DT) -> bool:
    """Whether `op` has a kernel for storage type `dtype`."""
    return op in CATALOG and dtype in CATALOG[op][1]


def kernel(op: str, dtype: DT, index: str) -> tuple[str, str]:
    """(module, kernel name) of `op` on `dtype` with 32- or 64-bit indexing ("i32"/"i64")."""
    if not supports(op, dtype):
        raise ValueError(f"no {op} kernel for {DT(dtype).name}")
    return _UNIT_OF[dtype, index], f"{op}_{TYPES[dtype][0]}_{index}"


def instantiations(unit: str) -> str:
    """The text of `unit`'s generated instantiation list (kernels_cuda/<unit stem>.inc)."""
    unit_types, index = UNITS[unit]
    lines = []
    for op, (enum, types) in CATALOG.items():
        for dt in unit_types:
            if dt in types:
                name, ctype = TYPES[dt]
                lines.append(f"NPU_EMU_BINARY({op}, {enum}, {ctype}, {name}, {INDEX[index]}, {index})")
    return unit_text("elementwise", "CATALOG", lines,
                     about=[f"{unit}: " + ", ".join(TYPES[dt][0] for dt in unit_types) + f", {index}"])


def unit_source(unit: str) -> str:
    """The text of a unit's .cu file (it includes the templates and its generated list)."""
    unit_types, index = UNITS[unit]
    types = ", ".join(TYPES[dt][0] for dt in unit_types)
    return unit_text("elementwise", "CATALOG", [], about=[
        f"The arithmetic kernels (elementwise.cuh) for {types}, {index} indexing."],
        includes=["elementwise.cuh", f"{Path(unit).stem}.inc"])


def generated() -> dict[str, str]:
    """Each unit's .cu file and its instantiation list (.inc)."""
    made = {}
    for unit in UNITS:
        made[unit] = unit_source(unit)
        made[Path(unit).stem + ".inc"] = instantiations(unit)
    return made
