"""matmul, the one operation of the standard's linear algebra that Array's @ runs: the cube
emulation (aclnnMatmul: float16, float32 and bfloat16 where the SoC has it, 1 to 6 dims, fp32
accumulation, operands in the SoC's fractal layouts); other dtypes (integers, float64,
complex, and the float8 types and HiFloat8, computed in float32 and rounded back) multiply on
the backend's array library.
"""
from __future__ import annotations

from ...arch import current_soc
from ...dtypes import COMPLEX, INFO, aclDataType as DT
from ...ops.matmul import KEEP_DTYPE, MATMUL, MAX_RANK, infer_shapes, matmul_dtypes
from .args import array_arg, same_device
from .array import Array, empty_array, library_dtype
from .dtypes import VIA_FLOAT32
from .kernel import call_new, convert
from .library import compute_dtype, computing, operand
from .scalars import check_kind, promote


def matmul(x1: Array, x2: Array, /, *, cube_math_type: int = KEEP_DTYPE) -> Array:
    """x1 @ x2 (the standard's shape rules: 1-D operands are a row / a column). float16,
    float32, bfloat16: aclnnMatmul's cube emulation, whose cubeMathType is `cube_math_type`
    (0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION, 2 USE_FP16, 3 USE_HF32, 4 USE_FP32_ADD)."""
    return matmul_arrays(array_arg("matmul", x1, "x1"), array_arg("matmul", x2, "x2"),
                         cube_math_type)


def matmul_arrays(a: Array, b: Array, cube_math_type: int = KEEP_DTYPE,
                  conj: bool = False) -> Array:
    """matmul; conj=True conjugates a first (vecdot's x1; complex runs on the library)."""
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul takes arrays of at least one dimension, not 0-d")
    same_device("matmul", a, b)
    compute = promote("matmul", a._t.dtype, b._t.dtype)
    check_kind("matmul", "numeric", compute)
    soc = current_soc()
    cube = matmul_dtypes(soc)
    if (soc.supports("Matmul") and a._t.dtype in cube and b._t.dtype in cube
            and a.ndim <= MAX_RANK and b.ndim <= MAX_RANK):
        return call_new(MATMUL, [a, b], {"cubeMathType": cube_math_type})
    return _librarymatmul_arrays(a, b, compute, conj and INFO[compute].kind == COMPLEX)


def _librarymatmul_arrays(a: Array, b: Array, compute: DT, conj: bool = False) -> Array:
    be = a._st.backend
    shape = infer_shapes(a.shape, b.shape).out_shape
    held = compute_dtype(compute)
    # The narrow floats are converted by our kernels first; the others are read in place, the
    # library converting each element to the computed type as it goes.
    ops = [operand(x, held) if x._t.dtype in VIA_FLOAT32 else x._values() for x in (a, b)]
    ct = library_dtype(held, be)
    out = empty_array(shape, held, be)
    with computing(be) as lib:
        left = lib.conj(ops[0]) if conj else ops[0]
        lib.matmul(left, ops[1], out=out._values(), dtype=ct, casting="unsafe")
    return out if held == compute else convert(out, compute)
