"""Plans for the dtype conversion kernels of `kernels_cuda/cast.cuh`:
dst[dst_view] = convert(src[src_view]), src broadcast to dst's shape. Used by aclnnCast,
aclnnInplaceCopy and the binary operators whenever a value changes dtype.

The conversion rules live in `kernels_cuda/npu_emu_convert.cuh`; the host codecs that mirror
them for users and tests are in `npu_emu/codecs.py`. Decisions, with their sources:

- f16, bf16, FP8 E5M2 / E4M3FN: IEEE round to nearest even, denormals kept, overflow -> inf
  (E4M3FN: overflow and +-inf -> NaN), bit for bit as NumPy (f16) and ml_dtypes (the rest),
  NaN payloads included (docs/conversions.md#hifloat8). FP8 E8M0 as ml_dtypes' float8_e8m0fnu.
- HiFloat8: docs/conversions.md#hifloat8 (round half away from zero, |x| >= 40960 -> inf); the same result as
  CANN's AICPU encoder (cast_aicpu.cpp, Fp32ToHif8Rtne), whose 49152 threshold plus its
  rounding carry gives 40960.
- double -> f16 / bf16 / FP8 / HiFloat8 / E8M0 goes through float32 (double rounding): CANN's
  AICPU Cast (the 910B path for these pairs) converts with Eigen, whose half/bfloat16
  constructors take a float; ml_dtypes and PyTorch do the same. (NumPy's float64 -> float16
  rounds once; we differ from it there, on purpose.)
- integer -> f16 / bf16 / FP8 / HiFloat8 / E8M0 goes through float32 as well (CANN arch35
  castMap: int32 -> bf16, int64 -> f16/bf16 via DT_FLOAT; ml_dtypes and Eigen alike).
- float -> integer truncates toward zero (docs/operators.md#aclnninplacecopy); NaN -> 0; out of range saturates the
  intermediate the NPU converts to and keeps its low bits: int8/int16/int32 via a saturated
  int32 (arch35: Cast f32 -> s32 with SatMode::SAT, then a pack that keeps the low bits),
  uint8/uint16/uint32 via a saturated int64 (arch35 f32 -> u8 goes through DT_INT64), int64
  saturates, uint64 saturates at 2^64 - 1 and wraps the int64 result below 2^63. Inside the
  destination's range all of these are plain truncation, as NumPy.
- integer -> integer wraps (two's complement; arch35 narrows with pack stores); nonzero ->
  true; bool -> 0/1; complex -> real keeps the real part; real -> complex has imaginary +0;
  complex -> bool is true when either part is nonzero (NumPy, PyTorch).
"""
from __future__ import annotations

import numpy as np

from ..dtypes import INFO, SIGNED, UNSIGNED, aclDataType
from ..runtime.base import Backend, Launch
from . import unit_text
from .copy import View, plan_copy, pointer_arg
from .indexing import broadcast_strides, coalesce, pack_params, tiled

DT = aclDataType
# The element types of the cast kernels: storage type -> its C++ type in kernels_cuda (the
# NPU_EMU_CAST_TYPES list of cast.cuh, which a test reads against this table). A source
# type's kernel is cast_<the type's short name> (cast_f32).
CAST_TYPES: dict[aclDataType, str] = {
    DT.ACL_FLOAT: "float", DT.ACL_FLOAT16: "npu_emu::f16", DT.ACL_INT8: "int8_t",
    DT.ACL_INT32: "int32_t", DT.ACL_UINT8: "uint8_t", DT.ACL_INT16: "int16_t",
    DT.ACL_UINT16: "uint16_t", DT.ACL_UINT32: "uint32_t", DT.ACL_INT64: "int64_t",
    DT.ACL_UINT64: "uint64_t", DT.ACL_DOUBLE: "double", DT.ACL_BOOL: "npu_emu::boolean",
    DT.ACL_COMPLEX64: "npu_emu::c64", DT.ACL_COMPLEX128: "npu_emu::c128", DT.ACL_BF16: "npu_emu::bf16",
    DT.ACL_COMPLEX32: "npu_emu::c32", DT.ACL_HIFLOAT8: "npu_emu::hif8",
    DT.ACL_FLOAT8_E5M2: "npu_emu::fp8_e5m2", DT.ACL_FLOAT8_E4M3FN: "npu_emu::fp8_e4m3fn",
    DT.ACL_FLOAT8_E8M0: "npu_emu::fp8_e8m0",
}
CAST_DTYPES = frozenset(CAST_TYPES)
KERNEL_NAMES: dict[aclDataType, str] = {dt: INFO[dt].short for dt in sorted(CAST_DTYPES)}

# Compile unit -> the source types whose kernels it holds. A kernel converts to all 20
# destinations, and most of a unit's build is the store steps of the value its sources load
# as (int32, int64 / uint64, float or double: cast.cuh's cast_row), shared by the unit's
# sources: so the units group sources by that value, split where a group would build long.
# A first cast builds only its source type's unit (4 to 6 s of g++ each, where the one
# cast.cu of all 400 pairs took 9 to 11: docs/backends.md#cold-start).
UNITS: dict[str, tuple[aclDataType, ...]] = {
    "cast_float.cu": (DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_BF16),
    "cast_fp8.cu": (DT.ACL_HIFLOAT8, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN, DT.ACL_FLOAT8_E8M0),
    "cast_int.cu": (DT.ACL_INT8, DT.ACL_INT16, DT.ACL_INT32, DT.ACL_UINT8, DT.ACL_UINT16, DT.ACL_BOOL),
    "cast_int64.cu": (DT.ACL_INT64, DT.ACL_UINT32, DT.ACL_UINT64),
    "cast_double.cu": (DT.ACL_DOUBLE,),
    "cast_complex.cu": (DT.ACL_COMPLEX32, DT.ACL_COMPLEX64),
    "cast_complex128.cu": (DT.ACL_COMPLEX128,),
}
# cast_any (any pair, 64-bit indices, dtypes dispatched per element: the GPU's kernel for
# spaces past 32-bit offsets) and the CPU's F16C test hook: a hand-written module of their own.
ANY_MODULE = "cast_any.cu"
GENERATED = ("cast_*.cu",)   # the files generated from UNITS (npu_emu.kernels): not cast_any.cu
_UNIT_OF = {dt: unit for unit, types in UNITS.items() for dt in types}


def kernel(src_dtype: aclDataType) -> tuple[str, str]:
    """(module, kernel name) of the cast kernel of source type `src_dtype`."""
    src_dtype = aclDataType(src_dtype)
    if src_dtype not in CAST_TYPES:
        raise ValueError(f"no cast kernel for {src_dtype.name}")
    return _UNIT_OF[src_dtype], f"cast_{KERNEL_NAMES[src_dtype]}"


def generated() -> dict[str, str]:
    """Each unit's .cu file: cast.cuh and one NPU_EMU_CAST_KERNEL line per source type."""
    return {unit: unit_text("cast", "UNITS",
                            [f"NPU_EMU_CAST_KERNEL({CAST_TYPES[dt]}, {KERNEL_NAMES[dt]})"
                             for dt in types],
                            about=[f"The cast kernels (cast.cuh) from "
                                   f"{', '.join(KERNEL_NAMES[dt] for dt in types)}."],
                            includes=["cast.cuh"])
            for unit, types in UNITS.items()}


def same_bits(src_dtype: aclDataType, dst_dtype: aclDataType) -> bool:
    """Whether the conversion keeps every element's bits: the same dtype, or integers of one
    width (they wrap: int8 -> uint8 is a copy of the bytes)."""
    if src_dtype == dst_dtype:
        return True
    a, b = INFO[src_dtype], INFO[dst_dtype]
    return a.kind in (SIGNED, UNSIGNED) and b.kind in (SIGNED, UNSIGNED) and a.itemsize == b.itemsize


def plan_cast(be: Backend, dst: View, src: View, src_dtype: aclDataType,
              dst_dtype: aclDataType, *, generic: bool = False) -> list[Launch]:
    """Launches that write src (broadcast to dst.shape), converted from src_dtype to
    dst_dtype, into dst. The same bits (same_bits): a plain copy (plan_copy). Empty dst: nothing.
    The views must not overlap (callers stage overlapping sources in a workspace).

    Kernels: cast_<src> (32-bit indices on the GPU, 64-bit on the CPU); on the GPU, spaces
    past 32-bit offsets take cast_any (64-bit, dtypes dispatched per element), which
    `generic=True` forces (tests check it on the CPU)."""
    src_dtype, dst_dtype = aclDataType(src_dtype), aclDataType(dst_dtype)
    for name, dt, view in (("src_dtype", src_dtype, src), ("dst_dtype", dst_dtype, dst)):
        if dt not in CAST_DTYPES:
            raise ValueError(f"{name}={dt.name} has no cast kernel; supported: "
                             f"{', '.join(d.name for d in KERNEL_NAMES)}")
        if view.itemsize != INFO[dt].itemsize:
            raise ValueError(f"{name}={dt.name} is {INFO[dt].itemsize} bytes per element, but "
                             f"the view says {view.itemsize}")
    if same_bits(src_dtype, dst_dtype) and not generic:
        return plan_copy(be, dst, src)
    if dst.numel == 0:
        return []
    src_strides = broadcast_strides(dst.shape, src.shape, src.strides)
    space = tiled(coalesce(dst.shape, [dst.strides, src_strides]))
    grid, block, run = be.space_geometry(space, max(dst.itemsize, src.itemsize),
                                         pointers=((0, dst.ptr, dst.itemsize), (1, src.ptr, src.itemsize)))
    params = pack_params(space, run)
    pointers = (pointer_arg(src.ptr), pointer_arg(dst.ptr))   # addresses or Workspace markers
    if generic or not (be.is_cpu or space.fits_32bit()):
        function = be.function(ANY_MODULE, "cast_any")
        args = (params, *pointers, np.int32(int(src_dtype)), np.int32(int(dst_dtype)))
    else:
        function = be.function(*kernel(src_dtype))
        args = (params, *pointers, np.int32(int(dst_dtype)))
    return [Launch(function, (grid, 1, 1), (block, 1, 1), args)]
