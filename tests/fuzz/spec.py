"""What the fuzzer knows of the API, as data written from the documents (docs/) and the lead's decisions
for issue 9 (independent of the library's own tables): dtype and format values, the dtype
lists the valid cases draw from, the promotion pairs and conversion rules they rely on, the
status-code families, and the signatures of the operators.

Shared by the case generator (strategies.py, parent process) and the harness (worker side).
"""
from __future__ import annotations

# ------------------------------------------------------------------ aclDataType (docs/dtypes.md#data-types)
F32, F16, S8, S32, U8, S16, U16, U32, S64, U64, F64, BOOL = 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12
STRING, C64, C128, BF16, INT4, C32, HIF8, E5M2, E4M3, E8M0 = 13, 16, 17, 27, 29, 33, 34, 35, 36, 37
UNDEFINED_DT = -1

ITEMSIZE = {F32: 4, F16: 2, S8: 1, S32: 4, U8: 1, S16: 2, U16: 2, U32: 4, S64: 8, U64: 8,
            F64: 8, BOOL: 1, C64: 8, C128: 16, BF16: 2, C32: 4, HIF8: 1, E5M2: 1, E4M3: 1,
            E8M0: 1}
FLOATS = frozenset({F32, F16, F64, BF16, HIF8, E5M2, E4M3, E8M0})
SIGNED = frozenset({S8, S16, S32, S64})
UNSIGNED = frozenset({U8, U16, U32, U64})
INTS = SIGNED | UNSIGNED
COMPLEX = frozenset({C32, C64, C128})
ALL_DTYPES = tuple(sorted(ITEMSIZE))

# ------------------------------------------------------------------- aclFormat (docs/formats.md#formats)
NCHW, NHWC, ND, NC1HWC0, FRACTAL_Z, NC1HWC0_C04, HWCN = 0, 1, 2, 3, 4, 12, 16
NDHWC, FRACTAL_NZ, NCDHW, NDC1HWC0, FRACTAL_Z_3D, NC, NCL = 27, 29, 30, 32, 33, 35, 47
NZ_C0 = {50: 16, 51: 32, 52: 2, 53: 4, 54: 8}            # FRACTAL_NZ_C0_x -> C0
UNDEFINED_FMT = -1
PUBLIC_RANK = {ND: None, NCHW: 4, NHWC: 4, HWCN: 4, NCDHW: 5, NDHWC: 5, NCL: 3, NC: 2}
PRIVATE = frozenset({NC1HWC0, FRACTAL_Z, NC1HWC0_C04, FRACTAL_NZ, NDC1HWC0, FRACTAL_Z_3D,
                     *NZ_C0})
# Layout names of tests/test_fractal.ref_to_layout for each private format.
LAYOUT_NAME = {FRACTAL_NZ: "FRACTAL_NZ", NC1HWC0: "NC1HWC0", FRACTAL_Z: "FRACTAL_Z",
               NDC1HWC0: "NDC1HWC0", FRACTAL_Z_3D: "FRACTAL_Z_3D", **{f: "FRACTAL_NZ" for f in NZ_C0}}
FORMAT_LETTERS = {NCHW: "NCHW", NHWC: "NHWC", HWCN: "HWCN", NCDHW: "NCDHW", NDHWC: "NDHWC"}

# ------------------------------------------------------------------------ SoCs (docs/socs.md#socs)
SOCS = ("Ascend910", "Ascend910B", "Ascend910_93", "Ascend310P", "Ascend310B", "Ascend950")
DEFAULT_SOC = "Ascend910B"
BF16_SOCS = frozenset({"Ascend910B", "Ascend910_93", "Ascend950"})
HF32_SOCS = frozenset({"Ascend910B", "Ascend910_93", "Ascend950"})   # an fp32 cube path
NO_CUBE_SOCS = frozenset({"Ascend310B"})                              # no Expand, no Matmul


def with_bf16(base: tuple, soc: str) -> tuple:
    return base + ((BF16,) if soc in BF16_SOCS else ())


EXPAND_DTYPES = (F16, F32, U8, S8, S32, S64, BOOL)                    # docs/operators.md#aclnnexpand (+BF16)
CAST_DTYPES = (F16, F32, F64, S8, U8, S16, S32, S64, U16, U32, U64, BOOL, C64, C128)  # docs/operators.md
CAST_950_EXTRA = (HIF8, E5M2, E4M3)                                   # (COMPLEX32 left out)
COPY_DTYPES = (S8, S16, S32, S64, U8, U16, U32, U64, F16, F32, BOOL, F64, C64, C128, BF16,
               E5M2, E4M3, HIF8, E8M0)                                # docs/operators.md#aclnninplacecopy
ADD_DTYPES = (F32, S32, S64, F16, S16, S8, U8, F64, BOOL, C64, C128)  # docs/operators.md (+BF16)
FORMAT_CAST_DTYPES = {"A2A3": (S8, U8, F32, F16, BF16, S32, U32),
                      "950": (S8, U8, S32, U32, F32, F16, BF16, E4M3, HIF8)}
FORMAT_CAST_GROUP = {"Ascend910B": "A2A3", "Ascend910_93": "A2A3", "Ascend950": "950"}
# (source format, private format, source rank) of the A2/A3 table (docs/formats.md#private-layouts, CANN's table).
FORMAT_CAST_PAIRS_A2A3 = ((ND, FRACTAL_NZ, None), (NCL, FRACTAL_NZ, 3), (NCHW, FRACTAL_NZ, 4),
                          (NCDHW, FRACTAL_NZ, 5), (NCHW, NC1HWC0, 4), (NHWC, NC1HWC0, 4),
                          (NCHW, FRACTAL_Z, 4), (HWCN, FRACTAL_Z, 4), (NCDHW, NDC1HWC0, 5),
                          (NDHWC, NDC1HWC0, 5), (NCDHW, FRACTAL_Z_3D, 5))

# docs/dtypes.md#type-promotion, documented table: pairs the valid Add/Mul cases mix (both orders), -> promoted.
PROMOTED_PAIRS = {(F16, F32): F32, (S8, U8): S16, (S32, S64): S64, (F32, S32): F32,
                  (BF16, F16): F32, (S16, F16): F16, (BOOL, F32): F32, (BOOL, S32): S32,
                  (U8, S32): S32, (F64, F32): F64, (C64, F32): C64, (S8, S16): S16,
                  (BF16, S32): BF16, (BOOL, U8): U8, (C128, C64): C128}


def promote(a: int, b: int) -> int | None:
    if a == b:
        return a
    return PROMOTED_PAIRS.get((a, b), PROMOTED_PAIRS.get((b, a)))


def castable(src: int, dst: int) -> bool:
    """docs/dtypes.md#result-conversion, documented rules (result conversion of computing operators)."""
    if src == dst or src == BOOL:
        return True
    if dst == BOOL:
        return False
    if src in COMPLEX or dst in COMPLEX:
        return src in COMPLEX and dst in COMPLEX
    if src in FLOATS:
        return dst in FLOATS
    return dst in INTS or dst in FLOATS            # integers -> integers, floats


# docs/operators.md#aclnnmatmul: cube_math_type values each SoC accepts, per computed dtype (two 1-D operands:
# any of 0..4).
MATMUL_MATH = {
    "old": {F32: (1, 2, 4), F16: (0, 1, 2, 4)},                       # Ascend910, Ascend310P
    "hf32": {F32: (0, 1, 2, 3, 4), F16: (0, 1, 2, 4), BF16: (0, 1, 4)},
}


def matmul_math_group(soc: str) -> str:
    return "hf32" if soc in HF32_SOCS else "old"


# ----------------------------------------------------------------- status codes (docs/two-phase.md#the-two-phase-interface)
SUCCESS = 0
NULLPTR, INVALID, RUNTIME = 161001, 161002, 361001
INNER, FIND_KERNEL, NOT_TRANS_EXECUTOR = 561000, 561003, 561102
ACL_INVALID_PARAM, ACL_UNINITIALIZE, ACL_BAD_ALLOC, ACL_INTERNAL = 100000, 100001, 200000, 500000
ACL_INVALID_DEVICE = 200002
ACL_CONTEXT_NULL = 107002          # a runtime call with no device set
# Internal codes: a defect whenever the input was the user's fault (every fuzz case is either
# valid or the user's fault, so the harness flags them always).
ACLNN_INTERNAL = frozenset({INNER, FIND_KERNEL})
ACL_INTERNAL_CODES = frozenset({ACL_INTERNAL})


def in_aclnn_family(code: int) -> bool:
    return code in (SUCCESS, NULLPTR, INVALID, RUNTIME) or 561000 <= code <= 561999


def in_acl_family(code: int) -> bool:
    return code == SUCCESS or any(lo <= code <= lo + 999 for lo in (100000, 107000, 200000, 500000))


# ---------------------------------------------------------------------- the operators
# name -> (argument names and kinds, in call order). "out" kinds are written by the op.
OPS: dict[str, tuple[tuple[str, str], ...]] = {
    "Expand": (("self", "tensor"), ("size", "intarray"), ("out", "out")),
    "InplaceCopy": (("selfRef", "out"), ("src", "tensor")),
    "Cast": (("self", "tensor"), ("dtype", "dtype"), ("out", "out")),
    "Add": (("self", "tensor"), ("other", "tensor"), ("alpha", "scalar"), ("out", "out")),
    "InplaceAdd": (("selfRef", "out"), ("other", "tensor"), ("alpha", "scalar")),
    "Mul": (("self", "tensor"), ("other", "tensor"), ("out", "out")),
    "InplaceMul": (("selfRef", "out"), ("other", "tensor")),
    "NpuFormatCast": (("srcTensor", "tensor"), ("dstTensor", "out")),
    "Matmul": (("self", "tensor"), ("mat2", "tensor"), ("out", "out"), ("cubeMathType", "int")),
    "CubeMatmul": (("self", "tensor"), ("mat2", "tensor"), ("out", "out")),
}


def tensor_args(op: str) -> list[str]:
    return [n for n, k in OPS[op] if k in ("tensor", "out")]


def out_arg(op: str) -> str:
    return next(n for n, k in OPS[op] if k == "out")
