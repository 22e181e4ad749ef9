"""The cube unit (docs/operators.md#aclnnmatmul): aclnnMatmul on ND tensors, and aclnnCubeMatmul on operands
already in the cube's fractal layouts.

- `aclnnCubeMatmulGetWorkspaceSize(self, mat2, out)` (an npu_emu extension, no CANN
  counterpart): self in the current SoC's left layout (Zz before Ascend950, FRACTAL_NZ on
  Ascend950), mat2 in Zn, out in FRACTAL_NZ with L0C's 16x16 fractals; fp16/bf16/fp32 inputs
  accumulate in fp32 (out fp32, or fp16/bf16 rounded by the fixpipe), int8 in int32.
- `aclnnMatmulGetWorkspaceSize(self, mat2, out, cube_math_type)`: ND (1..6 dims, batch
  broadcasting, torch.matmul's rules for 1-D operands). The same cube kernel walks the ND
  views in place, fractal by fractal, elements past an edge reading as the layouts' zero
  padding: one launch, no workspace, results equal to the fractal entry bit for bit. (An
  operand whose memory meets out's is copied to the workspace first, in both entries.)

The accumulation order (which fixes the fp32 bits) is documented in kernels_cuda/matmul.cu:
per K fractal, K0 exact products summed in double and rounded once to fp32, then added to the
fp32 accumulator in ascending k1.

Checks for aclnnMatmul (CANN's aclnnMatmul.md): null -> 161001; SoC, dtype lists, promotion,
cast to out, format, rank, shapes, cube_math_type -> 161002. The cube_math_type rules per SoC
are data below (MATH_RULES).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .. import dtypes as _dt
from .._params import INT64_MAX
from ..arch import NZ_ZN_NZ, SocInfo
from ..dtypes import aclDataType as DT
from ..fractal import (L, L0C_FRACTAL, Layout, LayoutSpec, layout_spec, make_layout_tensor,
                       tensor_layout, tensor_spec)
from ..runtime.base import Backend, Launch, Workspace
from ..kernels.copy import View, pointer_arg
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID
from ..tensor import Tensor
from . import _checks as C
from ._core import (ATTR, IN, OUT, Context, OpDef, Param, Plan, current_context, run,
                    storage_touch, view_touch)
from ._plans import WorkspaceLayout, staged, tensor_view, touches_meet

MODULE = "matmul.cu"
MAX_BATCH = 4
MAX_RANK = 6

# Operand kinds of kernels_cuda/matmul.cu.
KIND_F16, KIND_BF16, KIND_F32, KIND_F32_AS_F16, KIND_F32_AS_HF32 = range(5)
_STORAGE_KIND = {DT.ACL_FLOAT16: KIND_F16, DT.ACL_BF16: KIND_BF16, DT.ACL_FLOAT: KIND_F32}

# cube_math_type (aclnnMatmul's cubeMathType)
KEEP_DTYPE, ALLOW_FP32_DOWN_PRECISION, USE_FP16, USE_HF32, USE_FP32_ADD = range(5)
MATH_NAMES = {0: "KEEP_DTYPE", 1: "ALLOW_FP32_DOWN_PRECISION", 2: "USE_FP16", 3: "USE_HF32",
              4: "USE_FP32_ADD"}

# What the cube multiplies, per SoC family, computed dtype and cube_math_type: an fp32
# operand's kind, or None when the combination is refused (161002). From CANN's
# aclnnMatmul.md. Note: USE_FP32_ADD's grouped accumulation (A2/A3, fp32, K > 2048) is not
# emulated; it computes as KEEP_DTYPE. On Ascend910/310P the cube has no fp32 path, so
# USE_FP32_ADD ("no processing") computes fp32 as fp16 like modes 1 and 2.
_FP32_RULES_910 = {KEEP_DTYPE: None, ALLOW_FP32_DOWN_PRECISION: KIND_F32_AS_F16,
                   USE_FP16: KIND_F32_AS_F16, USE_HF32: None, USE_FP32_ADD: KIND_F32_AS_F16}
_FP32_RULES_HF32 = {KEEP_DTYPE: KIND_F32, ALLOW_FP32_DOWN_PRECISION: KIND_F32_AS_HF32,
                    USE_FP16: KIND_F32_AS_F16, USE_HF32: KIND_F32_AS_HF32, USE_FP32_ADD: KIND_F32}
MATH_RULES: dict[str, dict[DT, dict[int, int | None]]] = {}
for _name, _fp32 in (("Ascend910", _FP32_RULES_910), ("Ascend310P", _FP32_RULES_910),
                     ("Ascend910B", _FP32_RULES_HF32), ("Ascend910_93", _FP32_RULES_HF32),
                     ("Ascend950", _FP32_RULES_HF32)):
    _hf32 = _fp32 is _FP32_RULES_HF32
    MATH_RULES[_name] = {
        DT.ACL_FLOAT: dict(_fp32),
        DT.ACL_FLOAT16: {KEEP_DTYPE: KIND_F16, ALLOW_FP32_DOWN_PRECISION: KIND_F16,
                         USE_FP16: KIND_F16, USE_HF32: None, USE_FP32_ADD: KIND_F16},
        DT.ACL_BF16: {KEEP_DTYPE: KIND_BF16, ALLOW_FP32_DOWN_PRECISION: KIND_BF16,
                      USE_FP16: None, USE_HF32: None, USE_FP32_ADD: KIND_BF16},
    }


def matmul_dtypes(soc: SocInfo) -> frozenset:
    return frozenset({DT.ACL_FLOAT16, DT.ACL_FLOAT} | ({DT.ACL_BF16} if soc.bf16 else set()))


def left_layout(soc: SocInfo) -> Layout:
    """The cube's layout for the left matrix A: Zz, or FRACTAL_NZ on Ascend950 (docs/formats.md#private-layouts)."""
    return L.FRACTAL_NZ if soc.matmul_convention == NZ_ZN_NZ else L.ZZ


def _k0_of_kind(kind: int, soc: SocInfo) -> int:
    """The cube's fractal width for what it multiplies: fp32/HF32 16x8, fp16/bf16 16x16."""
    return soc.c0(32 if kind in (KIND_F32, KIND_F32_AS_HF32) else 16)


# ------------------------------------------------------------------------ the cube launch

@dataclass(frozen=True)
class Fractals:
    """A batch of matrices in device memory as the cube kernel walks them, fractal by fractal:
    address, batch shape and element strides, the element strides between neighbouring
    fractals along the matrix's two dims, and between neighbouring elements inside one
    (`inner`: down, across). A fractal layout's fractals are contiguous 16 x C0 blocks; an ND
    view's are its own strides, 16 (or K0) elements apart."""
    ptr: int | Workspace
    batch_shape: tuple[int, ...]
    batch_strides: tuple[int, ...]
    step_rows: int      # to the next fractal down (m1 or k1)
    step_cols: int      # to the next fractal across (k1 or n1)
    inner: tuple[int, int]


def cube_params_dtype() -> np.dtype:
    b = (MAX_BATCH,)
    return np.dtype([("batch_size", np.int64, b), ("a_batch", np.int64, b),
                     ("b_batch", np.int64, b), ("c_batch", np.int64, b),
                     ("a_m1", np.int64), ("a_k1", np.int64), ("b_k1", np.int64),
                     ("b_n1", np.int64), ("c_m1", np.int64), ("c_n1", np.int64),
                     ("a_m", np.int64), ("a_k", np.int64), ("b_n", np.int64), ("b_k", np.int64),
                     ("c_m", np.int64), ("c_n", np.int64),
                     ("m", np.int64), ("n", np.int64), ("k", np.int64),
                     ("m1", np.int64), ("n1", np.int64), ("k1", np.int64),
                     ("fractals", np.int64), ("batch_ndim", np.int32), ("k0", np.int32),
                     ("a_kind", np.int32), ("b_kind", np.int32), ("per_block", np.int32),
                     ("per_output", np.int32)], align=True)


def _fractals(spec: LayoutSpec, ptr: int | Workspace) -> Fractals:
    """Fractal strides of a Zz / FRACTAL_NZ / Zn storage (contiguous)."""
    shape = spec.storage_shape
    nb = len(shape) - 4
    strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    inner = shape[-2] * shape[-1]
    if spec.layout is L.ZZ:        # (.., M1, K1, 16, K0)
        rows, cols = shape[-3] * inner, inner
    elif spec.layout is L.ZN:      # (.., K1, N1, 16, K0)
        rows, cols = shape[-3] * inner, inner
    else:                          # FRACTAL_NZ (.., C1, R1, 16, C0): rows step 1 fractal
        rows, cols = inner, shape[-3] * inner
    # Inside a fractal (16 x C0, row-major): A's (m0, k), B's (n0, k) (Zn holds B
    # transposed), C's (m0, n0).
    return Fractals(ptr, tuple(shape[:nb]), tuple(strides[:nb]), rows, cols, (shape[-1], 1))


def _nd_fractals(v: View, down: int, across: int, transposed: bool = False) -> Fractals:
    """An ND view (batch..., rows, cols) walked in fractals of `down` x `across` elements;
    transposed (B): the fractal's first index runs along the columns (n0), as in Zn."""
    *batch, _, _ = v.shape
    *bs, sr, sc = v.strides
    inner = (sc, sr) if transposed else (sr, sc)
    return Fractals(v.ptr, tuple(batch), tuple(bs), down * sr, across * sc, inner)


def _broadcast_strides(out_batch: Sequence[int], f: Fractals) -> list[int]:
    lead = len(out_batch) - len(f.batch_shape)
    out = [0] * lead
    for n, m, s in zip(out_batch[lead:], f.batch_shape, f.batch_strides):
        out.append(s if m == n else 0)
    return out


def plan_cube(be: Backend, a: Fractals, b: Fractals, c: Fractals, out_batch: Sequence[int],
              m: int, n: int, k: int, k0: int, kinds: tuple[int, int],
              out_dtype: DT, int8: bool = False) -> list[Launch]:
    """The cube kernel launch: c (m x n, in 16 x 16 fractals) = a (m x k, 16 x k0) x b (k x n,
    k0 x 16); elements of a and b past m, n, k read as zeros, those of c are not written."""
    m1, n1, k1 = -(-m // 16), -(-n // 16), -(-k // k0)
    total = m1 * n1 * math.prod(out_batch)
    if total == 0:
        return []
    dims = [(size, _broadcast_strides(out_batch, a)[i], _broadcast_strides(out_batch, b)[i],
             c.batch_strides[i]) for i, size in enumerate(out_batch)]
    dims = [d for d in dims if d[0] != 1][::-1]             # innermost first, ones dropped
    if len(dims) > MAX_BATCH:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"the cube kernel takes at most {MAX_BATCH} batch dims, not {len(dims)}")
    p = np.zeros((), dtype=cube_params_dtype())
    for i, (size, sa, sb, sc) in enumerate(dims):
        p["batch_size"][i], p["a_batch"][i], p["b_batch"][i], p["c_batch"][i] = size, sa, sb, sc
    p["a_m1"], p["a_k1"] = a.step_rows, a.step_cols
    p["b_k1"], p["b_n1"] = b.step_rows, b.step_cols
    p["c_m1"], p["c_n1"] = c.step_rows, c.step_cols
    (p["a_m"], p["a_k"]), (p["b_n"], p["b_k"]), (p["c_m"], p["c_n"]) = a.inner, b.inner, c.inner
    p["m"], p["n"], p["k"] = m, n, k
    p["m1"], p["n1"], p["k1"] = m1, n1, k1
    p["batch_ndim"], p["k0"] = len(dims), k0
    p["a_kind"], p["b_kind"] = kinds
    # A block per output fractal; where N = 1 (vecdot, a matrix times a vector) the kernel
    # may split outputs instead (per_output): on a GPU always, a block's threads taking one
    # each; on the CPU for M = 1 (vecdot's one-output fractals) and where the kernel takes
    # eight outputs at a time (float32 operands, K0 8, each step's elements contiguous:
    # matmul.cu's cube_dots8, a 4000 x 2000 float32 matrix times a vector 2.9 -> 1.8 ms; a
    # taller column of other kinds is faster as the one-column step's rows in lanes), a
    # block (one thread, and handing one out costs about as much as a short dot product)
    # taking those that read about 8192 elements of each operand, and at least eight.
    bx, by = be.tile_block
    by_eights = kinds == (KIND_F32, KIND_F32) and k0 == 8 and a.inner[1] == 1 and b.inner[1] == 1
    per_output = n == 1 and (m == 1 or not be.is_cpu or by_eights)
    per_block, items = 1, total
    if be.is_cpu:   # a column of up to 16 fractals a block, which share B's tiles (cube_block)
        per_block = max(1, min(m1, 16, total // 64))
    if per_output:
        per_block = min(1024, max(8, -(-8192 // max(k, 1)))) if be.is_cpu else bx * by
        items = total * min(m, 16)
    p["fractals"], p["per_block"], p["per_output"] = total, per_block, per_output
    blocks = -(-items // per_block)
    if int8:
        name = "cube_matmul_s8_s32"
    else:
        name = "cube_matmul_float_" + {DT.ACL_FLOAT: "f32", DT.ACL_FLOAT16: "f16",
                                       DT.ACL_BF16: "bf16"}[out_dtype]
    if total >= 2**31:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"{total} output fractals: too many for one grid")
    return [Launch(be.function(MODULE, name), (blocks, 1, 1), (bx, by, 1),
                   (p[()], pointer_arg(a.ptr), pointer_arg(b.ptr), pointer_arg(c.ptr)))]


def _l0c_spec(batch: Sequence[int], m: int, n: int, dtype: DT) -> LayoutSpec:
    """The result: FRACTAL_NZ with L0C's 16x16 fractals whatever the dtype."""
    return layout_spec(L.FRACTAL_NZ, (*batch, m, n), dtype, c0=L0C_FRACTAL[1])


# ------------------------------------------------------------------ the fractal entry

CUBE_OP = "CubeMatmul"


def _cube_dtypes(soc: SocInfo) -> frozenset:
    out = {DT.ACL_FLOAT16, DT.ACL_INT8}
    if soc.bf16:
        out.add(DT.ACL_BF16)
    if MATH_RULES.get(soc.name, {}).get(DT.ACL_FLOAT, {}).get(KEEP_DTYPE) is not None:
        out.add(DT.ACL_FLOAT)        # the SoC's cube has an fp32 path
    return frozenset(out)


def _out_dtypes_for(dtype: DT, soc: SocInfo) -> frozenset:
    if dtype == DT.ACL_INT8:
        return frozenset({DT.ACL_INT32})
    return frozenset({DT.ACL_FLOAT, DT.ACL_FLOAT16} | ({DT.ACL_BF16} if soc.bf16 else set()))


def _batch_shape(a: Sequence[int], b: Sequence[int], name_a: str, name_b: str) -> tuple[int, ...]:
    return C.broadcast_shapes(a, b, name_a, name_b)


def check_cube_params(self: Tensor, mat2: Tensor, out: Tensor,
                      soc: SocInfo) -> tuple[LayoutSpec, LayoutSpec, LayoutSpec]:
    for t, name in ((self, "self"), (mat2, "mat2"), (out, "out")):
        C.check_not_null(t, name)
        C.check_type(t, Tensor, name)
    C.check_soc_supports(CUBE_OP, soc)  # CANN: Atlas 200I/500 A2 has no aclnnMatmul
    C.check_dtype_in(self, "self", _cube_dtypes(soc))
    C.check_same_dtype(self, mat2, "self", "mat2")
    C.check_dtype_in(out, "out", _out_dtypes_for(self.dtype, soc))
    want = {"self": left_layout(soc), "mat2": L.ZN, "out": L.FRACTAL_NZ}
    for t, name in ((self, "self"), (mat2, "mat2"), (out, "out")):
        lay, _ = tensor_layout(t)
        if lay is not want[name]:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"Tensor {name} is in {lay}, but {soc.name}'s cube takes "
                             f"{want['self']} x Zn -> FRACTAL_NZ ({soc.matmul_convention}); "
                             f"convert it with npu_emu.format_cast(t, '{want[name]}').")
        if not 2 <= t.dim <= MAX_RANK:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"Tensor {name} has {t.dim} dims; it must have 2 to {MAX_RANK}.")
        C.check_private_offset(t, name)
    a_spec, b_spec, c_spec = (tensor_spec(t, soc=soc) for t in (self, mat2, out))
    k0 = soc.c0(_dt.INFO[self.dtype].bits)
    for spec, name in ((a_spec, "self"), (b_spec, "mat2")):
        if spec.c0 != k0:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"Tensor {name}'s fractals are 16x{spec.c0}; the cube takes "
                             f"{_dt.dt_name(self.dtype)} in 16x{k0} fractals.")
    if c_spec.c0 != L0C_FRACTAL[1]:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Tensor out's fractals are 16x{c_spec.c0}; the cube writes L0C's "
                         f"{L0C_FRACTAL[0]}x{L0C_FRACTAL[1]} fractals (storage shape ending "
                         f"in [16,16]).")
    (*ab, m, k), (*bb, k2, n) = self.view_shape, mat2.view_shape
    if k != k2:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"self's columns ({k}) must equal mat2's rows ({k2}): self "
                         f"{C.shape_str(self.view_shape)}, mat2 {C.shape_str(mat2.view_shape)}.")
    batch = _batch_shape(ab, bb, "self", "mat2")
    if tuple(out.view_shape) != (*batch, m, n):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"out's view shape {C.shape_str(out.view_shape)} must be "
                         f"{C.shape_str((*batch, m, n))}.")
    return a_spec, b_spec, c_spec


def check_cube(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> None:
    check_cube_params(ins[0], ins[1], outs[0], ctx.soc)


def plan_cube_matmul(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> Plan:
    (self, mat2), (out,) = ins, outs
    a_spec, b_spec, c_spec = check_cube_params(self, mat2, out, ctx.soc)
    if out.is_empty():
        return Plan()
    *batch, m, n = out.view_shape
    k = self.view_shape[-1]
    k0 = a_spec.c0
    kind = _STORAGE_KIND.get(self.dtype, 0)
    touches = [storage_touch(t, name, spec.storage_numel) for t, name, spec in
               ((self, "self", a_spec), (mat2, "mat2", b_spec), (out, "out", c_spec))]
    # An operand whose storage meets out's is read from a copy in the workspace.
    launches: list[Launch] = []
    ws = WorkspaceLayout()
    a_ptr, b_ptr = (
        staged(ctx.backend, View(t.data, (spec.storage_numel,), (1,), t.itemsize), launches, ws).ptr
        if touches_meet(touch, touches[2]) else t.data
        for t, spec, touch in ((self, a_spec, touches[0]), (mat2, b_spec, touches[1])))
    # Whole fractals: their padding read (zeros) and written (the Nz result's, zeros too).
    launches += plan_cube(ctx.backend, _fractals(a_spec, a_ptr), _fractals(b_spec, b_ptr),
                          _fractals(c_spec, out.data), batch, -(-m // 16) * 16, -(-n // 16) * 16,
                          -(-k // k0) * k0, k0, (kind, kind), out.dtype,
                          int8=self.dtype == DT.ACL_INT8)
    return Plan(launches, ws.size, touches)


CUBE_MATMUL = OpDef(CUBE_OP, (Param("self", IN), Param("mat2", IN), Param("out", OUT)),
                    check_cube, plan_cube_matmul,
                    summary="npu_emu extension: out (FRACTAL_NZ, 16x16 fractals) = self (Zz, or "
                    "FRACTAL_NZ on Ascend950) x mat2 (Zn), as the cube unit computes it.")


def cube_matmul(a: Tensor, b: Tensor, out_dtype: object = None) -> Tensor:
    """Python helper: a (the SoC's left layout) x b (Zn) -> a new FRACTAL_NZ tensor with 16x16
    fractals (out_dtype default fp32, int32 for int8). Raises AclnnError on bad input."""
    from ..device import DeviceBuffer, ensure_started
    ensure_started()
    C.check_tensors(((a, "a"), (b, "b")))
    for t, name in ((a, "a"), (b, "b")):
        if t.dim < 2:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"{name} has {t.dim} dims; the cube takes matrices (2 to {MAX_RANK} dims)")
    dt = _dt.as_dtype(out_dtype, "out_dtype") if out_dtype is not None else (
        DT.ACL_INT32 if a.dtype == DT.ACL_INT8 else DT.ACL_FLOAT)
    batch = _batch_shape(a.view_shape[:-2], b.view_shape[:-2], "a", "b")
    ctx = current_context()
    spec = _l0c_spec(batch, a.view_shape[-2], b.view_shape[-1], dt)
    buf = DeviceBuffer(spec.storage_numel * _dt.INFO[dt].itemsize, ctx.backend)
    out = make_layout_tensor(spec, dt, buf.ptr, owner=buf)
    run(CUBE_MATMUL, (a, b), (out,), {}, ctx)
    return out


# ------------------------------------------------------------------------ the ND entry

OP = "Matmul"


@dataclass(frozen=True)
class MatmulShapes:
    batch: tuple[int, ...]
    m: int
    k: int
    n: int
    out_shape: tuple[int, ...]


def infer_shapes(a: Sequence[int], b: Sequence[int]) -> MatmulShapes:
    """torch.matmul's shape rules: 1-D self is a row (dropped from the result), 1-D mat2 a
    column (dropped), leading dims broadcast."""
    a2 = (1, a[0]) if len(a) == 1 else tuple(a)
    b2 = (b[0], 1) if len(b) == 1 else tuple(b)
    if a2[-1] != b2[-2]:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"The reduce dimension of self {C.shape_str(a)} ({a2[-1]}) must equal "
                         f"that of mat2 {C.shape_str(b)} ({b2[-2]}).")
    batch = C.broadcast_shapes(a2[:-2], b2[:-2], "self", "mat2")
    out = list(batch)
    if len(a) > 1:
        out.append(a2[-2])
    if len(b) > 1:
        out.append(b2[-1])
    return MatmulShapes(tuple(batch), a2[-2], a2[-1], b2[-1], tuple(out))


def check_params(self: Tensor, mat2: Tensor, out: Tensor, cube_math_type: object,
                 ctx: Context) -> tuple[MatmulShapes, tuple[int, int], int]:
    """(shapes, (self kind, mat2 kind), K0)."""
    for t, name in ((self, "self"), (mat2, "mat2"), (out, "out")):
        C.check_not_null(t, name)
        C.check_type(t, Tensor, name)
    soc = ctx.soc
    C.check_soc_supports(OP, soc)  # CANN: Atlas 200I/500 A2 has no aclnnMatmul
    support = matmul_dtypes(soc)
    C.check_dtype_in(self, "self", support)
    C.check_dtype_in(mat2, "mat2", support)
    C.check_dtype_in(out, "out", support)
    if soc.bf16 and self.dtype != mat2.dtype and DT.ACL_BF16 in (self.dtype, mat2.dtype):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Matmul does not support mixing {_dt.dt_name(self.dtype)} and "
                         f"{_dt.dt_name(mat2.dtype)} on {soc.name}.")
    promoted = ctx.rules.promote(self.dtype, mat2.dtype)
    if not ctx.rules.can_cast(promoted, out.dtype):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Result type {_dt.dt_name(promoted)} can't be cast to the desired "
                         f"output type {_dt.dt_name(out.dtype)}.")
    for t, name in ((self, "self"), (mat2, "mat2"), (out, "out")):
        C.check_nd_format(t, name)
    for t, name in ((self, "self"), (mat2, "mat2")):
        if not 1 <= t.dim <= MAX_RANK:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"Tensor {name} has {t.dim} dims; aclnnMatmul takes 1 to {MAX_RANK}.")
    if out.dim > MAX_RANK:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Tensor out has {out.dim} dims; aclnnMatmul takes at most {MAX_RANK}.")
    shapes = infer_shapes(self.view_shape, mat2.view_shape)
    if tuple(out.view_shape) != shapes.out_shape:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Expected out's shape to be {C.shape_str(shapes.out_shape)}, but got "
                         f"{C.shape_str(out.view_shape)}.")
    kind = _compute_kind(soc, promoted, cube_math_type, self.dim == 1 and mat2.dim == 1)
    kinds = (_operand_kind(self.dtype, kind), _operand_kind(mat2.dtype, kind))
    return shapes, kinds, _k0_of_kind(kind, soc)


def _compute_kind(soc: SocInfo, promoted: DT, cube_math_type: object, dot: bool) -> int:
    if isinstance(cube_math_type, bool) or not isinstance(cube_math_type, (int, np.integer)) \
            or int(cube_math_type) not in MATH_NAMES:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"cubeMathType={cube_math_type!r} is not supported, should be one of "
                         f"{', '.join(f'{v} ({n})' for v, n in MATH_NAMES.items())}.")
    if dot:    # CANN: with two 1-D inputs cubeMathType does not take effect
        return _STORAGE_KIND[promoted]
    kind = MATH_RULES[soc.name][promoted][int(cube_math_type)]
    if kind is None:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"cubeMathType {int(cube_math_type)} ({MATH_NAMES[int(cube_math_type)]}) is "
                         f"not supported for {_dt.dt_name(promoted)} on {soc.name}.")
    return kind


def _operand_kind(dtype: DT, compute_kind: int) -> int:
    """An fp16 operand under an fp32 mode is exact in fp32/HF32/fp16: it keeps its own kind."""
    return compute_kind if dtype == DT.ACL_FLOAT else _STORAGE_KIND[dtype]


def _matrix_view(v: View, as_row: bool) -> View:
    """An operand's view as (batch..., rows, cols); a 1-D one becomes a row (self) or a
    column."""
    if len(v.shape) == 1:
        shape, strides = ((1, v.shape[0]), (0, v.strides[0])) if as_row else \
            ((v.shape[0], 1), (v.strides[0], 0))
        return View(v.ptr, shape, strides, v.itemsize)
    return v


def _check_fractal_sizes(shapes: MatmulShapes, k0: int,
                         named: Sequence[tuple[Tensor, str]]) -> None:
    """The cube's fractals of each operand (its rows and columns padded to 16 and K0, over the
    batch) must fit in int64 bytes, as on the NPU, where they are copied into its buffers: a
    broadcast view may claim more elements than memory has (the kernel would then loop for
    ages over its fractals)."""
    batch = math.prod(shapes.batch)
    m, k, n = -(-shapes.m // 16) * 16, -(-shapes.k // k0) * k0, -(-shapes.n // 16) * 16
    for (t, name), elements in zip(named, (m * k, k * n)):
        nbytes = batch * elements * t.itemsize
        if nbytes > INT64_MAX:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"Tensor {name}'s fractals ({C.shape_str(t.view_shape)} padded to "
                             f"16 x {k0}) would hold {nbytes} bytes; the sizes must fit in int64.")


def infer(ins: tuple, attrs: dict, ctx: Context) -> tuple[tuple[int, ...], DT]:
    self, mat2 = ins
    return (infer_shapes(self.view_shape, mat2.view_shape).out_shape,
            ctx.rules.promote(self.dtype, mat2.dtype))


def check(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> None:
    check_params(ins[0], ins[1], outs[0], attrs["cubeMathType"], ctx)


def plan(ins: tuple, outs: tuple, attrs: dict, ctx: Context) -> Plan:
    (self, mat2), (out,) = ins, outs
    shapes, kinds, k0 = check_params(self, mat2, out, attrs["cubeMathType"], ctx)
    if out.is_empty():
        return Plan()
    _check_fractal_sizes(shapes, k0, ((self, "self"), (mat2, "mat2")))
    touches = [view_touch(self, "self"), view_touch(mat2, "mat2"), view_touch(out, "out")]
    # Each output element reads a row of self and a column of mat2: an operand that meets
    # out (its very view included) is read from a copy in the workspace.
    launches: list[Launch] = []
    ws = WorkspaceLayout()
    a_view, b_view = (
        _matrix_view(staged(ctx.backend, tensor_view(t), launches, ws)
                     if touches_meet(touch, touches[2]) else tensor_view(t), as_row)
        for t, touch, as_row in ((self, touches[0], True), (mat2, touches[1], False)))
    # out's view as (batch..., m, n): the dims torch.matmul dropped come back with size 1.
    o_shape, o_strides = list(out.view_shape), list(out.view_strides)
    if self.dim == 1:
        o_shape.insert(len(shapes.batch), 1)
        o_strides.insert(len(shapes.batch), 0)
    if mat2.dim == 1:
        o_shape.append(1)
        o_strides.append(0)
    o_view = View(out.data + out.storage_offset * out.itemsize, tuple(o_shape), tuple(o_strides),
                  out.itemsize)
    # The cube kernel reads and writes the ND views in place, fractal by fractal: the
    # elements past the matrices' edges read as the fractal layouts' zero padding.
    launches += plan_cube(ctx.backend, _nd_fractals(a_view, 16, k0),
                          _nd_fractals(b_view, k0, 16, True), _nd_fractals(o_view, 16, 16),
                          shapes.batch, shapes.m, shapes.n, shapes.k, k0, kinds, out.dtype)
    return Plan(launches, ws.size, touches)


MATMUL = OpDef(OP, (Param("self", IN), Param("mat2", IN), Param("out", OUT),
                    Param("cubeMathType", ATTR, "int8_t")), check, plan, infer,
               summary="out = self @ mat2 (torch.matmul's shape rules), computed as the cube unit "
               "does: operands in the SoC's fractal layouts, fp32 accumulation.")
