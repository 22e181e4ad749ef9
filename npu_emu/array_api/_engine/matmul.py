"""matmul, the one operation of the standard's linear algebra that Array's @ runs: the cube
emulation (aclnnMatmul: float16, float32 and bfloat16 where the SoC has it, 1 to 6 dims, fp32
accumulation, operands in the SoC's fractal layouts); float32 (where the cube does not take
it), float64, complex64 and complex128, and the float8 types and HiFloat8 (computed in float32
and rounded back), on our gemm kernels (kernels/gemm.py: each output summed in ascending k, the
same bits on every host and backend); the integers (exact) multiply on the backend's array
library, as does anything past the gemm kernels' batch dims.
"""
from __future__ import annotations

import functools

import numpy as np

from ...arch import current_soc
from ...dtypes import COMPLEX, INFO, aclDataType as DT
from ...kernels import gemm
from ...kernels.copy import View
from ...ops.matmul import KEEP_DTYPE, MATMUL, MAX_RANK, infer_shapes, matmul_dtypes
from . import repeat
from .args import array_arg, same_device
from .array import Array, empty_array, library_dtype
from .dtypes import VIA_FLOAT32
from .kernel import call_new, context, convert, family_plan, kernel_view, launch
from .library import compute_dtype, computing
from .scalars import check_kind, promote


def matmul(x1: Array, x2: Array, /, *, cube_math_type: int = KEEP_DTYPE) -> Array:
    """x1 @ x2 (the standard's shape rules: 1-D operands are a row / a column). float16,
    float32, bfloat16: aclnnMatmul's cube emulation, whose cubeMathType is `cube_math_type`
    (0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION, 2 USE_FP16, 3 USE_HF32, 4 USE_FP32_ADD)."""
    return matmul_arrays(array_arg("matmul", x1, "x1"), array_arg("matmul", x2, "x2"),
                         cube_math_type)


def matmul_arrays(a: Array, b: Array, cube_math_type: int = KEEP_DTYPE,
                  conj: bool = False) -> Array:
    """matmul; conj=True conjugates a first (vecdot's x1; complex runs on the library). A
    repeated call takes the short way (repeat): to the operator's cached plan, or to the
    same library call."""
    out, key = repeat.short_way("matmul", a, b, params=(cube_math_type, conj))
    if out is not None:
        return out
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul takes arrays of at least one dimension, not 0-d")
    same_device("matmul", a, b)
    compute = promote("matmul", a._t.dtype, b._t.dtype)
    check_kind("matmul", "numeric", compute)
    soc = current_soc()
    cube = matmul_dtypes(soc)
    if (soc.supports("Matmul") and a._t.dtype in cube and b._t.dtype in cube
            and a.ndim <= MAX_RANK and b.ndim <= MAX_RANK):
        be = a._st.backend
        ctx, chosen = context(be), (MATMUL, {"cubeMathType": cube_math_type})
        out = call_new(MATMUL, [a, b], chosen[1], ctx)
        if key is not None:
            repeat.remember_operator(key, ctx, chosen, (a, b), [a, b], out)
        return out
    return _gemm_or_library(a, b, compute, conj and INFO[compute].kind == COMPLEX, key)


def _gemm_or_library(a: Array, b: Array, compute: DT, conj: bool = False,
                     key: tuple | None = None) -> Array:
    """a @ b off the cube, computed in `compute`'s held dtype: on our gemm kernels where they
    take it, else on the backend's library (the integers; past the kernels' batch dims)."""
    be = a._st.backend
    shape = infer_shapes(a.shape, b.shape).out_shape
    held = compute_dtype(compute)
    if held in gemm.DTYPES:
        out = _gemm_arrays(a, b, held, shape, conj, key)
        if out is not None:
            return out if held == compute else convert(out, compute)
    # The narrow floats are converted by our kernels first; the others are read in place, the
    # library converting each element to the computed type as it goes.
    narrow = [x._t.dtype in VIA_FLOAT32 for x in (a, b)]
    ops = [convert(x, held) if n and x._t.dtype != held else x for x, n in zip((a, b), narrow)]
    call = functools.partial(_matmul_into, library_dtype(held, be), conj)
    out = empty_array(shape, held, be)
    call(ops, out)
    if held != compute:
        return convert(out, compute)
    if key is not None and not any(narrow):     # one library call on the operands as they are
        repeat.remember_library(key, context(be), out, call)
    return out


def _matmul_into(ct: np.dtype, conj: bool, ops: list[Array], out: Array) -> None:
    """out = ops[0] @ ops[1] (ops[0] conjugated with conj) by the backend's library, which
    converts each element to ct as it reads it."""
    with computing(out._st.backend) as lib:
        left = lib.conj(ops[0]._values()) if conj else ops[0]._values()
        lib.matmul(left, ops[1]._values(), out=out._values(), dtype=ct, casting="unsafe")


def _matrix_view(x: Array, as_row: bool) -> View:
    """x as gemm takes it: its own view, a 1-D x as one row (`as_row`: x1's) or one column."""
    v = kernel_view(x)
    if x.ndim > 1:
        return v
    (n,), (s,) = v.shape, v.strides
    return View(v.ptr, (1, n) if as_row else (n, 1), (0, s) if as_row else (s, 0), v.itemsize)


def _gemm_arrays(a: Array, b: Array, held: DT, shape: tuple[int, ...], conj: bool,
                 key: tuple | None) -> Array | None:
    """a @ b in `held` (a gemm kernel's dtype; operands of another dtype converted first by
    our cast kernels) into a new array of `shape`; None, having done nothing, past the
    kernel's batch dims (the caller takes the library)."""
    be = a._st.backend
    ops = [x if x._t.dtype == held else convert(x, held) for x in (a, b)]
    out = empty_array(shape, held, be)
    va, vb = _matrix_view(ops[0], True), _matrix_view(ops[1], False)
    # out's view with the dims a 1-D operand dropped put back (size 1)
    vo = kernel_view(out)
    lead = len(vo.shape) - (a.ndim > 1) - (b.ndim > 1)
    vo = View(vo.ptr, (*vo.shape[:lead], va.shape[-2], vb.shape[-1]),
              (*vo.strides[:lead], vo.strides[lead] if a.ndim > 1 else 0,
               vo.strides[-1] if b.ndim > 1 else 0), vo.itemsize)
    if not gemm.fits(vo, va, vb):
        return None
    arrays = [out, *ops]
    call = ("gemm", held, conj)
    launches = family_plan(call, arrays, be, lambda: gemm.plan(be, held, vo, va, vb, conj))
    launch(be, launches, arrays)
    if key is not None and ops[0] is a and ops[1] is b:    # one launch on the operands as they are
        repeat.remember_family(key, context(be), call, (a, b), [a, b], out, 0)
    return out
