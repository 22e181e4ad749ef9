"""The linalg extension of the array API standard (2024.12): `npu_emu.array_api.linalg`.

Where each function runs (docs/array-api.md#the-linalg-and-fft-extensions):
- matmul, tensordot, vecdot, matrix_power: matmuls, on the cube emulation (aclnnMatmul) for
  float16, float32 and bfloat16 where the SoC has them, on the backend library otherwise;
- outer, cross: our elementwise operators (aclnnMul, aclnnAdd) on views, broadcast and
  promoted as the NPU does;
- diagonal, matrix_transpose: views of the same memory; trace: the namespace's sum of the
  diagonal view;
- the decompositions, solvers and norms (MATRIX and the norm tables below): the backend's
  array library (numpy.linalg on cpu, cupy.linalg on cuda) over the same memory, in stream
  order. The narrow floats (float16, bfloat16, float8, HiFloat8) compute in float32 and are
  rounded back to their type by our cast kernels.
They take the dtypes the standard names (floating-point for the decompositions, numeric for
the products): TypeError otherwise.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any, Callable, Literal, NamedTuple

import numpy as np

from ..dtypes import COMPLEX, INFO, aclDataType as DT
from ..ops._checks import broadcast_shapes
from ._engine import dtypes as _dtypes, repeat
from ._engine.args import array_arg, axis_arg, same_device
from ._engine.array import Array, empty_array
from ._engine.dtypes import complex_of, real_of
from ._engine.kernel import assign, convert, copy as copy_array
from ._engine.library import compute_dtype, computing, operand, result, sum_of_squares
from ._engine.scalars import check_kind, promote, scalar_constant
from ._creation import zeros
from ._data_type_functions import astype, finfo
from ._elementwise import abs as _abs, multiply, pow as _pow, sqrt, subtract
from ._linalg import matmul, matrix_transpose, tensordot, to_last, vecdot, vector_axis
from ._manipulation import expand_dims, permute_dims
from ._searching import count_nonzero
from ._statistical import max as _max, min as _min, sum as _sum


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


# ------------------------------------------------------------ the library's matrix functions

def _swap(a: Any) -> Any:
    return a.swapaxes(-1, -2)


def _cholesky(lib: Any, a: Any, upper: bool) -> Any:
    low = lib.linalg.cholesky(a)
    # U = L^H (CuPy's cholesky has no `upper`).
    return lib.conj(_swap(low)) if upper else low


def _tolerance(lib: Any, s: Any, rtol: Any, m: int, n: int, eps: float) -> Any:
    """The standard's cutoff for small singular values: rtol (default max(M, N) * eps) times
    the largest singular value of each matrix."""
    rel = max(m, n) * eps if rtol is None else lib.asarray(rtol)[..., None]
    return rel * s.max(axis=-1, keepdims=True)


def _matrix_rank(lib: Any, a: Any, rtol: Any, eps: float) -> Any:
    m, n = a.shape[-2:]
    if min(m, n) == 0:
        return lib.zeros(a.shape[:-2], dtype=lib.int64)
    s = lib.linalg.svd(a, compute_uv=False)
    return lib.count_nonzero(s > _tolerance(lib, s, rtol, m, n, eps), axis=-1)


def _pinv(lib: Any, a: Any, rtol: Any, eps: float) -> Any:
    m, n = a.shape[-2:]
    if a.size == 0:
        return lib.zeros(a.shape[:-2] + (n, m), dtype=a.dtype)
    u, s, vh = lib.linalg.svd(a, full_matrices=False)
    keep = s > _tolerance(lib, s, rtol, m, n, eps)
    inv_s = lib.where(keep, 1 / lib.where(keep, s, 1), 0).astype(s.dtype)
    return lib.matmul(lib.conj(_swap(vh)) * inv_s[..., None, :], lib.conj(_swap(u)))


@dataclass(frozen=True)
class MatrixFunction:
    """A function of (stacks of) matrices on the backend library. outputs: per result,
    "same" (x's dtype), "real" (the real dtype of x's precision) or "index" (the default
    integer dtype)."""
    name: str
    call: Callable[..., Any]          # (library, x's values, **keywords) -> value(s)
    outputs: tuple[str, ...] = ("same",)
    square: bool = False
    result: type | None = None


def _complex(lib: Any, values: Any) -> Any:
    """The library's eig results as complex of their precision (NumPy gives real arrays
    when every eigenvalue is real)."""
    wide = values.dtype in (np.float64, np.complex128)
    return values.astype(np.complex128 if wide else np.complex64, copy=False)


MATRIX = {f.name: f for f in [
    MatrixFunction("eig", lambda lib, a: tuple(_complex(lib, v) for v in lib.linalg.eig(a)),
                   ("complex", "complex"), square=True, result=EigResult),
    MatrixFunction("eigvals", lambda lib, a: _complex(lib, lib.linalg.eigvals(a)),
                   ("complex",), square=True),
    MatrixFunction("cholesky", _cholesky, square=True),
    MatrixFunction("det", lambda lib, a: lib.linalg.det(a), square=True),
    MatrixFunction("eigh", lambda lib, a: tuple(lib.linalg.eigh(a)), ("real", "same"),
                   square=True, result=EighResult),
    MatrixFunction("eigvalsh", lambda lib, a: lib.linalg.eigvalsh(a), ("real",), square=True),
    MatrixFunction("inv", lambda lib, a: lib.linalg.inv(a), square=True),
    MatrixFunction("matrix_rank", _matrix_rank, ("index",)),
    MatrixFunction("pinv", _pinv),
    MatrixFunction("qr", lambda lib, a, mode: tuple(lib.linalg.qr(a, mode=mode)),
                   ("same", "same"), result=QRResult),
    MatrixFunction("slogdet", lambda lib, a: tuple(lib.linalg.slogdet(a)), ("same", "real"),
                   square=True, result=SlogdetResult),
    MatrixFunction("svd", lambda lib, a, full_matrices: tuple(
        lib.linalg.svd(a, full_matrices=full_matrices)), ("same", "real", "same"),
        result=SVDResult),
    MatrixFunction("svdvals", lambda lib, a: lib.linalg.svd(a, compute_uv=False), ("real",)),
]}


def _output_dtype(kind: str, dt: DT) -> DT:
    if kind == "same":
        return dt
    if kind == "real":
        return real_of(dt)
    if kind == "complex":
        return complex_of(dt)
    return _dtypes.DEFAULT_INDEX.acl_dtype


def matrices(fname: str, x: object, square: bool = False, name: str = "x") -> Array:
    """x as a floating stack of matrices (at least 2 dims; square ones if `square`)."""
    a = array_arg(fname, x, name)
    check_kind(fname, "floating-point", a, name=name)
    if a.ndim < 2:
        raise ValueError(f"{fname}: {name} must have at least 2 dimensions (a matrix or a "
                         f"stack of them), not {a.ndim}")
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{fname}: {name} must be (a stack of) square matrices, not "
                         f"{a.shape[-2]}x{a.shape[-1]}")
    return a


def _rtol(fname: str, rtol: object, a: Array) -> Any:
    """rtol for the library: None, a Python float, or the values of a real floating array
    (in the dtype x computes in) that broadcasts against x's stack shape."""
    if rtol is None or isinstance(rtol, (int, float)) and not isinstance(rtol, bool):
        return rtol
    r = array_arg(fname, rtol, "rtol")
    check_kind(fname, "real floating-point", r, name="rtol")
    same_device(fname, a, r)
    broadcast_shapes(a.shape[:-2], r.shape, "x's stack", "rtol")
    return operand(r, compute_dtype(real_of(a._t.dtype)))


def _run(name: str, x: object, **keywords: Any) -> Any:
    spec = MATRIX[name]
    a = matrices(name, x, spec.square)
    dt = a._t.dtype
    be = a._st.backend
    values = operand(a, compute_dtype(dt))
    with computing(be) as lib:
        out = spec.call(lib, values, **keywords)
    outs = out if isinstance(out, tuple) else (out,)
    arrays = [result(v, _output_dtype(k, dt), be) for v, k in zip(outs, spec.outputs)]
    return spec.result(*arrays) if spec.result is not None else arrays[0]


def _eps(a: Array) -> float:
    return finfo(_dtypes.BY_ACL[real_of(a._t.dtype)]).eps


def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """The lower (upper=True: upper) Cholesky factor of each Hermitian positive-definite
    matrix."""
    return _run("cholesky", x, upper=bool(upper))


def det(x: Array, /) -> Array:
    return _run("det", x)


def eigh(x: Array, /) -> EighResult:
    """Eigenvalues (ascending, real dtype) and eigenvectors of each Hermitian matrix."""
    return _run("eigh", x)


def eigvalsh(x: Array, /) -> Array:
    return _run("eigvalsh", x)


def eig(x: Array, /) -> EigResult:
    """Eigenvalues and eigenvectors (columns) of each square matrix, complex of x's precision
    (complex64 for float32 and narrower, complex128 for float64). (2025.12)"""
    return _run("eig", x)


def eigvals(x: Array, /) -> Array:
    """The eigenvalues of each square matrix, complex of x's precision. (2025.12)"""
    return _run("eigvals", x)


def inv(x: Array, /) -> Array:
    return _run("inv", x)


def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """The number of singular values above rtol (default max(M, N) * eps of x's dtype) times
    the largest one, per matrix; the default integer dtype."""
    a = matrices("matrix_rank", x)
    return _run("matrix_rank", a, rtol=_rtol("matrix_rank", rtol, a), eps=_eps(a))


def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """The Moore-Penrose pseudo-inverse; singular values at most rtol (default max(M, N) * eps)
    times the largest are taken as zero."""
    a = matrices("pinv", x)
    return _run("pinv", a, rtol=_rtol("pinv", rtol, a), eps=_eps(a))


def qr(x: Array, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode={mode!r} must be 'reduced' or 'complete'")
    return _run("qr", x, mode=mode)


def slogdet(x: Array, /) -> SlogdetResult:
    """The sign (x's dtype) and the natural log of the absolute value (real dtype) of each
    determinant."""
    return _run("slogdet", x)


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """U, S (descending, real dtype), Vh with x = U @ diag(S) @ Vh per matrix."""
    return _run("svd", x, full_matrices=bool(full_matrices))


def svdvals(x: Array, /) -> Array:
    return _run("svdvals", x)


def solve(x1: Array, x2: Array, /) -> Array:
    """The solution of x1 @ out = x2 per matrix. x2 is one vector only when it is 1-D (shape
    (M,)); otherwise it is (a stack of) M x K matrices, its stack broadcast against x1's."""
    a = matrices("solve", x1, square=True, name="x1")
    b = array_arg("solve", x2, "x2")
    check_kind("solve", "floating-point", b, name="x2")
    be = same_device("solve", a, b)
    dt = promote("solve", a._t.dtype, b._t.dtype)
    m = a.shape[-1]
    if b.ndim == 0 or b.shape[-1 if b.ndim == 1 else -2] != m:
        raise ValueError(f"solve: x2 of shape {b.shape} must be (M,) or (..., M, K) with "
                         f"M = {m}, the size of x1's matrices")
    vector = b.ndim == 1
    stack = broadcast_shapes(a.shape[:-2], () if vector else b.shape[:-2], "x1's stack",
                             "x2's stack")
    ct = compute_dtype(dt)
    av, bv = operand(a, ct), operand(b, ct)
    with computing(be) as lib:
        # Both stacks broadcast explicitly (views), so the library never takes x2 for a
        # stack of vectors (NumPy 1.x's rule when x2.ndim == x1.ndim - 1).
        bm = bv[:, None] if vector else bv
        out = lib.linalg.solve(lib.broadcast_to(av, stack + (m, m)),
                               lib.broadcast_to(bm, stack + bm.shape[-2:]))
        if vector:
            out = out[..., 0]
    return result(out, dt, be)


# ----------------------------------------------------------------------------- norms

def _abs_sums(axis: int, pick: str) -> Callable[[Any, Any], Any]:
    """The largest (pick "max") or smallest absolute row or column sum: ord 1 sums over the
    rows (axis -2), ord inf over the columns (axis -1)."""
    return lambda lib, a: getattr(lib, pick)(lib.abs(a).sum(axis=axis), axis=-1)


def _singular(pick: str) -> Callable[[Any, Any], Any]:
    return lambda lib, a: getattr(lib.linalg.svd(a, compute_uv=False), pick)(axis=-1)


# ord -> (library, matrices) -> the norm of each matrix (the standard's table)
MATRIX_NORMS: dict[object, Callable[[Any, Any], Any]] = {
    "fro": lambda lib, a: lib.sqrt((lib.abs(a) ** 2).sum(axis=(-2, -1))),
    "nuc": lambda lib, a: lib.linalg.svd(a, compute_uv=False).sum(axis=-1),
    1: _abs_sums(-2, "max"), -1: _abs_sums(-2, "min"),
    math.inf: _abs_sums(-1, "max"), -math.inf: _abs_sums(-1, "min"),
    2: _singular("max"), -2: _singular("min"),
}


def matrix_norm(x: Array, /, *, keepdims: bool = False,
                ord: int | float | Literal["fro", "nuc"] | None = "fro") -> Array:  # noqa: A002
    """The matrix norm of each matrix: "fro" (default), "nuc", 1, -1, 2, -2, inf, -inf;
    the real dtype of x's precision."""
    a = matrices("matrix_norm", x)
    key = "fro" if ord is None else ord
    fn = MATRIX_NORMS.get(key) if not isinstance(key, bool) else None
    if fn is None:
        raise ValueError(f"matrix_norm: ord={ord!r} must be one of 'fro', 'nuc', 1, -1, 2, -2, "
                         f"inf, -inf")
    be = a._st.backend
    values = operand(a, compute_dtype(a._t.dtype))
    with computing(be) as lib:
        out = fn(lib, values)
        if keepdims:
            out = lib.asarray(out)[..., None, None]
    return result(out, real_of(a._t.dtype), be)


def _norm_axes(axis: object, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = tuple(axis_arg(a, ndim) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"vector_norm: axis={axis} names a dimension twice")
    return out


def vector_norm(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
                keepdims: bool = False, ord: int | float = 2) -> Array:  # noqa: A002
    """The vector norm over `axis` (None: all elements; a tuple: those axes together); the
    real dtype of x's precision. By the namespace's own functions on our kernels (the same
    bits on every backend; the narrow floats computed in float32 and rounded once): 2 is
    sqrt(sum(|x|^2)) (x * x for real x), 1 sum(|x|), inf max(|x|), -inf min(|x|), 0 the
    count of non-zeros, and the others sum(|x|^ord)^(1/ord)."""
    a = array_arg("vector_norm", x)
    check_kind("vector_norm", "floating-point", a, name="x")
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"vector_norm: ord={ord!r} is not an int or a float")
    axes, keep = _norm_axes(axis, a.ndim), bool(keepdims)
    ct = compute_dtype(a._t.dtype)
    if ord == 2 and INFO[ct].kind != COMPLEX and a.size:
        # sum(x * x) in one pass; a repeated call takes the short way to its plan
        squares, key = repeat.short_way("sum_of_squares", a, params=(ct, axes, keep))
        if squares is None:
            squares = sum_of_squares(a, ct, axes, keep)
            if squares is not None:
                repeat.remember_reduction(key, "sum_of_squares", a, a, squares, axes, keep)
        if squares is not None:
            return _rounded(sqrt(squares), a)
    v = a if a._t.dtype == ct else convert(a, ct)
    if ord == 2 and INFO[ct].kind != COMPLEX:      # x * x is |x| * |x|, exactly
        return _rounded(sqrt(_sum(multiply(v, v), axis=axes, keepdims=keep)), a)
    mag = _abs(v)
    if ord == 2:
        out = sqrt(_sum(multiply(mag, mag), axis=axes, keepdims=keep))
    elif ord == 1:
        out = _sum(mag, axis=axes, keepdims=keep)
    elif ord == math.inf:   # of no element: 0 (|x| >= 0), the empty sum's zeros
        empty = math.prod(a.shape[k] for k in axes) == 0
        out = (_sum if empty else _max)(mag, axis=axes, keepdims=keep)
    elif ord == -math.inf:
        if math.prod(a.shape[k] for k in axes) == 0:
            raise ValueError(f"vector_norm: ord=-inf of no element (shape {a.shape}, "
                             f"axis={axis}) is the minimum of nothing, which has no value")
        out = _min(mag, axis=axes, keepdims=keep)
    elif ord == 0:
        out = astype(count_nonzero(mag, axis=axes, keepdims=keep), mag.dtype)
    else:
        out = _pow(_sum(_pow(mag, float(ord)), axis=axes, keepdims=keep), 1.0 / ord)
    return _rounded(out, a)


def _rounded(out: Array, x: Array) -> Array:
    """A norm computed in x's compute dtype, in the real dtype of x's precision."""
    want = real_of(x._t.dtype)
    return out if out._t.dtype == want else convert(out, want)


# ------------------------------------------------------- views and our own operators

def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The diagonal of each matrix (offset > 0: above the main one, < 0: below), a view of
    x's memory (stride: the sum of the matrix's two strides)."""
    a = array_arg("diagonal", x)
    if a.ndim < 2:
        raise ValueError(f"diagonal: x must have at least 2 dimensions, not {a.ndim}")
    offset = operator.index(offset)
    shape, strides, start = a._signed()
    n, m = shape[-2:]
    rows, cols = strides[-2:]
    size = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    if size:
        start += offset * cols if offset >= 0 else -offset * rows
    return a._view(shape[:-2] + (size,), strides[:-2] + (rows + cols,), start)


def trace(x: Array, /, *, offset: int = 0, dtype: object = None) -> Array:
    """The sum of each matrix's diagonal: the namespace's sum (its dtype rules and
    accumulation) of the diagonal view."""
    a = array_arg("trace", x)
    check_kind("trace", "numeric", a, name="x")
    return _sum(diagonal(a, offset=offset), axis=-1, dtype=dtype)


def _numeric(fname: str, x: object, name: str) -> Array:
    a = array_arg(fname, x, name)
    check_kind(fname, "numeric", a, name=name)
    return a


def outer(x1: Array, x2: Array, /) -> Array:
    """x1[i] * x2[j] for two 1-D arrays: one broadcast multiply (aclnnMul where the SoC's
    list has the dtypes), promoted as `multiply`."""
    a, b = _numeric("outer", x1, "x1"), _numeric("outer", x2, "x2")
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"outer takes two 1-D arrays, not {a.ndim}-D and {b.ndim}-D")
    same_device("outer", a, b)
    return multiply(expand_dims(a, axis=1), expand_dims(b, axis=0))


# (component of the result, the products subtracted): c_k = a_i * b_j - a_j * b_i
_CROSS = ((0, 1, 2), (1, 2, 0), (2, 0, 1))


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """The cross product of the 3-element vectors along `axis` (negative, before
    broadcasting; not broadcast itself), computed with our multiply and subtract on views
    and written into the result's components."""
    a, b = _numeric("cross", x1, "x1"), _numeric("cross", x2, "x2")
    be = same_device("cross", a, b)
    axis = vector_axis("cross", axis, a, b)
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError(f"cross: the vectors along axis {axis} must have 3 elements in both "
                         f"arrays, not {a.shape[axis]} and {b.shape[axis]}")
    dt = promote("cross", a._t.dtype, b._t.dtype)
    u, v = to_last(a, axis), to_last(b, axis)
    stack = broadcast_shapes(u.shape[:-1], v.shape[:-1], "x1", "x2")
    out = empty_array(stack + (3,), dt, be)
    for k, i, j in _CROSS:
        term = subtract(multiply(u[..., i], v[..., j]),
                      multiply(u[..., j], v[..., i]))
        assign(out[..., k], term)
    # The vectors go back to `axis` (a view).
    last = out.ndim - 1
    where = axis % out.ndim
    order = list(range(last))
    order.insert(where, last)
    return permute_dims(out, order)


def matrix_power(x: Array, n: int, /) -> Array:
    """x multiplied by itself n times, by squaring (matmul: the cube where it takes x's
    dtype); n < 0: the inverse's power; n = 0: identity matrices."""
    a = matrices("matrix_power", x, square=True)
    if isinstance(n, bool):
        raise TypeError("matrix_power: n must be an int, not a bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"matrix_power: n={n!r} is not an int") from None
    if n == 0:
        return _identity(a)
    base = inv(a) if n < 0 else a
    n = abs(n)
    out: Array | None = None
    while True:
        if n & 1:
            out = base if out is None else matmul(out, base)
        n >>= 1
        if not n:
            break
        base = matmul(base, base)
    # A new array, never x itself.
    return copy_array(out) if out is a else out


def _identity(a: Array) -> Array:
    out = zeros(a.shape, dtype=a.dtype, device=a.device)
    if out.size:
        assign(diagonal(out), scalar_constant(1, a._t.dtype, a._st.backend))
    return out


__all__ = ["cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
           "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
           "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
           "vector_norm"]
