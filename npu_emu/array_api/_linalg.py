"""Linear algebra: matmul on the cube emulation (aclnnMatmul: float16, float32 and bfloat16
where the SoC has it, 1 to 6 dims, fp32 accumulation, operands in the SoC's fractal layouts)
and matrix_transpose. Other dtypes (integers, float64, complex) multiply on the backend's
array library.
"""
from __future__ import annotations

from ..arch import current_soc
from ..dtypes import aclDataType as DT
from ..ops.matmul import KEEP_DTYPE, MATMUL, MAX_RANK, infer_shapes, matmul_dtypes
from ._array import Array, empty_array, library_dtype
from ._calls import call_new, convert
from ._device import library, library_order
from ._elementwise import _library_operand, check_category, promote
from ._manipulation import _array


def matmul(x1: Array, x2: Array, /, *, cube_math_type: int = KEEP_DTYPE) -> Array:
    """x1 @ x2 (the standard's shape rules: 1-D operands are a row / a column). float16,
    float32, bfloat16: aclnnMatmul's cube emulation, whose cubeMathType is `cube_math_type`
    (0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION, 2 USE_FP16, 3 USE_HF32, 4 USE_FP32_ADD)."""
    a, b = _array(x1, "x1"), _array(x2, "x2")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul takes arrays of at least one dimension, not 0-d")
    if a._st.backend is not b._st.backend:
        raise ValueError(f"matmul: the arrays are on different devices ({a.device}, {b.device})")
    compute = promote("matmul", a._t.dtype, b._t.dtype)
    check_category("matmul", "numeric", compute)
    soc = current_soc()
    cube = matmul_dtypes(soc)
    if (soc.supports("Matmul") and a._t.dtype in cube and b._t.dtype in cube
            and a.ndim <= MAX_RANK and b.ndim <= MAX_RANK):
        return call_new(MATMUL, [a, b], {"cubeMathType": cube_math_type})
    return _library_matmul(a, b, compute)


def _library_matmul(a: Array, b: Array, compute: DT) -> Array:
    be = a._st.backend
    shape = infer_shapes(a.shape, b.shape).out_shape
    ct = library_dtype(compute, be)
    held = compute if ct is not None else DT.ACL_FLOAT
    if ct is None:
        ct = library_dtype(DT.ACL_FLOAT, be)
    ops = [_library_operand(x, ct, be) for x in (a, b)]
    out = empty_array(shape, held, be)
    with library_order(be):
        library(be).matmul(ops[0]._values(), ops[1]._values(), out=out._values(), dtype=ct,
                           casting="unsafe")
    return out if held == compute else convert(out, compute)


def matrix_transpose(x: Array, /) -> Array:
    """The last two dimensions swapped (a view)."""
    return _array(x).mT


__all__ = ["matmul", "matrix_transpose"]
