"""The linalg extension and the main namespace's tensordot / vecdot, against NumPy: the
decompositions on the backend library (the narrow floats computed in float32 and rounded back
by our casts, checked against ml_dtypes' rounding), the products on matmul (the cube emulation
or the library), outer / cross on our elementwise operators, diagonal as a view, and the
standard's dtype rules and refusals."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu.array_api import linalg as LA

RNG = np.random.default_rng(12)
FLOATS = ["float32", "float64", "complex64", "complex128"]
# NumPy's agreement with itself on the same LAPACK call, per precision.
TOL = {"float32": 2e-5, "complex64": 2e-5, "float64": 1e-12, "complex128": 1e-12}
NARROW = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
          "float8_e4m3fn": ml_dtypes.float8_e4m3fn}


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


def values(shape, dtype: str) -> np.ndarray:
    a = RNG.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def spd(shape, dtype: str) -> np.ndarray:
    """Hermitian positive-definite matrices (well conditioned)."""
    a = values(shape, dtype)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def close(got: xp.Array, ref: np.ndarray, tol: float) -> None:
    assert isinstance(got, xp.Array) and got.device == xp.__array_namespace_info__().default_device()
    assert got.shape == ref.shape and got.dtype.name == np.dtype(ref.dtype).name, (got, ref.dtype)
    np.testing.assert_allclose(np.asarray(got), ref, rtol=tol, atol=tol)


# --------------------------------------------------------------- the library's functions

# name -> (call on our arrays, the same on NumPy, input kind)
LIBRARY = {
    "cholesky": (lambda x: LA.cholesky(x), np.linalg.cholesky, "spd"),
    "cholesky upper": (lambda x: LA.cholesky(x, upper=True),
                       lambda a: np.linalg.cholesky(a, upper=True), "spd"),
    "det": (LA.det, np.linalg.det, "square"),
    "inv": (LA.inv, np.linalg.inv, "spd"),
    "eigvalsh": (LA.eigvalsh, np.linalg.eigvalsh, "spd"),
    "svdvals": (LA.svdvals, lambda a: np.linalg.svd(a, compute_uv=False), "wide"),
    "pinv": (LA.pinv, np.linalg.pinv, "wide"),
    "matrix_rank": (LA.matrix_rank, np.linalg.matrix_rank, "wide"),
}
TUPLES = {
    "eigh": (LA.eigh, np.linalg.eigh, "spd", ("eigenvalues", "eigenvectors")),
    "qr": (LA.qr, np.linalg.qr, "tall", ("Q", "R")),
    "qr complete": (lambda x: LA.qr(x, mode="complete"),
                    lambda a: np.linalg.qr(a, mode="complete"), "tall", ("Q", "R")),
    "slogdet": (LA.slogdet, np.linalg.slogdet, "square", ("sign", "logabsdet")),
    "svd": (LA.svd, np.linalg.svd, "wide", ("U", "S", "Vh")),
    "svd reduced": (lambda x: LA.svd(x, full_matrices=False),
                    lambda a: np.linalg.svd(a, full_matrices=False), "wide", ("U", "S", "Vh")),
}
SHAPES = {"spd": (2, 4, 4), "square": (3, 4, 4), "wide": (2, 3, 5), "tall": (2, 5, 3)}


def make(kind: str, dtype: str) -> np.ndarray:
    return spd(SHAPES[kind], dtype) if kind == "spd" else values(SHAPES[kind], dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(LIBRARY))
def test_library_functions_match_numpy(name, dtype):
    ours, ref, kind = LIBRARY[name]
    a = make(kind, dtype)
    close(ours(xp.asarray(a)), np.asarray(ref(a)), TOL[dtype])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(TUPLES))
def test_decompositions_are_named_tuples_matching_numpy(name, dtype):
    ours, ref, kind, fields = TUPLES[name]
    a = make(kind, dtype)
    got, want = ours(xp.asarray(a)), ref(a)
    assert type(got).__name__ != "tuple" and got._fields == fields
    for field, w in zip(fields, want):
        close(getattr(got, field), np.asarray(w), TOL[dtype])


def test_real_results_of_complex_inputs():
    a = xp.asarray(spd((3, 3), "complex128"))
    assert LA.eigh(a).eigenvalues.dtype == xp.float64 and LA.eigh(a).eigenvectors.dtype == xp.complex128
    assert LA.svd(a).S.dtype == xp.float64 and LA.svdvals(a).dtype == xp.float64
    sign, logabs = LA.slogdet(a)
    assert sign.dtype == xp.complex128 and logabs.dtype == xp.float64
    assert LA.matrix_rank(a).dtype == xp.int64
    c64 = xp.asarray(spd((3, 3), "complex64"))
    assert LA.matrix_norm(c64).dtype == xp.float32 and LA.vector_norm(c64).dtype == xp.float32


@pytest.mark.parametrize("dtype", list(NARROW))
def test_narrow_floats_compute_in_float32_and_round_back(dtype):
    """The NPU's computation type: float32, rounded to the input's dtype by our casts (round
    to nearest even, as ml_dtypes rounds)."""
    host = NARROW[dtype]
    a = spd((2, 3, 3), "float32").astype(host)
    f32 = a.astype(np.float32)
    got = LA.inv(xp.asarray(a))
    assert got.dtype.name == dtype
    np.testing.assert_array_equal(np.asarray(got).astype(np.float32),
                                  np.linalg.inv(f32).astype(host).astype(np.float32))
    w = LA.eigvalsh(xp.asarray(a))
    np.testing.assert_array_equal(np.asarray(w).astype(np.float32),
                                  np.linalg.eigvalsh(f32).astype(host).astype(np.float32))
    n = LA.vector_norm(xp.asarray(a), axis=(-2, -1))
    np.testing.assert_array_equal(np.asarray(n).astype(np.float32),
                                  np.sqrt((f32 * f32).sum(axis=(-2, -1))).astype(host)
                                  .astype(np.float32))


def test_hifloat8_computes_in_float32():
    x = xp.asarray(np.array([[2.0, 0.0], [0.0, 4.0]], np.float32), dtype=xp.hifloat8)
    got = LA.inv(x)
    assert got.dtype == xp.hifloat8
    np.testing.assert_array_equal(np.asarray(xp.astype(got, xp.float32)), [[0.5, 0], [0, 0.25]])


def test_inputs_made_by_our_kernels_are_read_in_stream_order():
    a = spd((4, 4), "float32")
    x = xp.asarray(a) + xp.asarray(a)            # aclnnAdd, queued on the stream
    close(LA.inv(x), np.linalg.inv(2 * a), 2e-5)


def test_views_with_negative_strides():
    a = spd((5, 5), "float64")
    close(LA.inv(xp.asarray(a)[::-1, ::-1]), np.linalg.inv(a[::-1, ::-1]), 1e-12)
    close(LA.svdvals(xp.asarray(a)[::2, 1:]), np.linalg.svd(a[::2, 1:], compute_uv=False), 1e-12)


@pytest.mark.parametrize("rtol", [None, 0.3, "array"])
def test_matrix_rank_and_pinv_tolerance_is_relative(rtol):
    a = values((3, 4, 6), "float64")
    a[:, :, 5] = 0
    a[0, 3] = 1e-3 * a[0, 2]                          # a small singular value in matrix 0
    r = np.array([0.5, 1e-6, 0.2]) if rtol == "array" else rtol
    ours_r = xp.asarray(r) if rtol == "array" else r
    ref_rank = np.linalg.matrix_rank(a, rtol=r)
    close(LA.matrix_rank(xp.asarray(a), rtol=ours_r), np.asarray(ref_rank), 0)
    close(LA.pinv(xp.asarray(a), rtol=ours_r), np.linalg.pinv(a, rtol=r), 1e-10)


def test_empty_matrices():
    close(LA.matrix_rank(xp.asarray(np.zeros((2, 0, 3)))), np.zeros(2, np.int64), 0)
    close(LA.pinv(xp.asarray(np.zeros((2, 0, 3)))), np.zeros((2, 3, 0)), 0)
    close(LA.det(xp.asarray(np.zeros((0, 0)))), np.asarray(1.0), 0)
    close(LA.inv(xp.asarray(np.zeros((3, 0, 0), np.float32))), np.zeros((3, 0, 0), np.float32), 0)


# ------------------------------------------------------------------------------ solve

def test_solve_vector_only_when_one_dimensional():
    x1 = spd((4, 3, 3), "float64")
    b = values((3,), "float64")
    close(LA.solve(xp.asarray(x1), xp.asarray(b)), np.linalg.solve(x1, b), 1e-12)
    # x2 of shape (3, 3) beside a stack of 4: one matrix, broadcast (NumPy 1.x took it for
    # a stack of vectors).
    m = values((3, 3), "float64")
    close(LA.solve(xp.asarray(x1), xp.asarray(m)),
          np.linalg.solve(x1, np.broadcast_to(m, (4, 3, 3))), 1e-12)
    k = values((2, 1, 3, 2), "float64")
    close(LA.solve(xp.asarray(x1), xp.asarray(k)), np.linalg.solve(x1, k), 1e-12)


def test_solve_promotes():
    x1, x2 = spd((3, 3), "float32"), values((3, 2), "float64")
    close(LA.solve(xp.asarray(x1), xp.asarray(x2)), np.linalg.solve(x1.astype(np.float64), x2),
          1e-12)
    with pytest.raises(ValueError, match="M = 3"):
        LA.solve(xp.asarray(x1), xp.asarray(values((4,), "float32")))
    with pytest.raises(TypeError, match="floating-point"):
        LA.solve(xp.asarray(x1), xp.asarray(np.ones(3, np.int32)))


# ------------------------------------------------------------------------------ norms

@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
@pytest.mark.parametrize("dtype", FLOATS)
def test_matrix_norm(ord, dtype):
    a = values((2, 3, 4), dtype)
    ref = np.linalg.norm(a, ord=ord, axis=(-2, -1))
    close(LA.matrix_norm(xp.asarray(a), ord=ord), ref, TOL[dtype])
    close(LA.matrix_norm(xp.asarray(a), ord=ord, keepdims=True), ref[..., None, None], TOL[dtype])


@pytest.mark.parametrize("ord", [2, 1, 0, -1, -2, math.inf, -math.inf, 3.5, 0.5])
def test_vector_norm(ord):
    a = values((3, 4, 5), "float64")
    a[0, 0, 0] = 0.0
    for axis in (None, 1, -1, (0, 2)):
        flat = np.moveaxis(a, np.atleast_1d(axis if axis is not None else range(3)),
                           range(-len(np.atleast_1d(axis if axis is not None else range(3))), 0))
        k = a.ndim if axis is None else len(np.atleast_1d(axis))
        with np.errstate(divide="ignore"):
            ref = np.linalg.norm(flat.reshape(flat.shape[:a.ndim - k] + (-1,)), ord=ord, axis=-1)
        close(LA.vector_norm(xp.asarray(a), axis=axis, ord=ord), ref, 1e-12)
    keep = LA.vector_norm(xp.asarray(a), axis=(0, 2), keepdims=True, ord=ord)
    assert keep.shape == (1, 4, 1)



def test_vector_norm_of_no_element():
    """Over no element every ord but -inf is 0 (inf: the largest |x| of none, |x| >= 0, as
    NumPy's vector_norm); -inf, the smallest of none, is a ValueError naming vector_norm."""
    for ord_ in (2, 1, math.inf, 0, 3):
        got = LA.vector_norm(xp.zeros(0), ord=ord_)
        assert np.asarray(got).tolist() == 0.0, ord_
        np.testing.assert_array_equal(np.asarray(LA.vector_norm(xp.zeros((0, 3)), axis=0, ord=ord_)),
                                      np.linalg.vector_norm(np.zeros((0, 3)), axis=0, ord=ord_))
    assert LA.vector_norm(xp.zeros((2, 0)), axis=1, ord=math.inf, keepdims=True).shape == (2, 1)
    with pytest.raises(ValueError, match="vector_norm: ord=-inf of no element"):
        LA.vector_norm(xp.zeros((2, 0)), axis=1, ord=-math.inf)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "complex64"])
def test_vector_norm_is_the_namespaces_own_arithmetic(dtype):
    """vector_norm runs on our kernels (the same bits on every backend): ord 2 is
    sqrt(sum(x*x)) of the namespace (|x|*|x| for complex x), bit for bit, the narrow floats
    computed in float32 and rounded once; and it is within a few float32 ulps of NumPy's
    float64 norm."""
    rng = np.random.default_rng(53)
    v = rng.standard_normal((64, 300)) * 3
    if dtype == "complex64":
        v = v + 1j * rng.standard_normal((64, 300))
    x = xp.asarray(v.astype(np.complex64 if dtype == "complex64" else np.float32))
    x = x if dtype in ("float32", "complex64") else xp.astype(x, getattr(xp, dtype))
    wide = x if dtype in ("float32", "complex64") else xp.astype(x, xp.float32)
    mag = xp.abs(wide) if dtype == "complex64" else wide
    for axis in (None, 1, (0, 1)):
        got = LA.vector_norm(x, axis=axis)
        want = xp.sqrt(xp.sum(mag * mag, axis=axis))
        want = want if got.dtype == want.dtype else xp.astype(want, got.dtype)
        np.testing.assert_array_equal(np.atleast_1d(np.asarray(got)).view(np.uint8),
                                      np.atleast_1d(np.asarray(want)).view(np.uint8))
    ref = np.linalg.norm(np.asarray(wide).astype(np.complex128 if dtype == "complex64"
                                                 else np.float64), axis=1)
    tol = 1e-6 if dtype in ("float32", "complex64") else 2.0 ** -7
    np.testing.assert_allclose(np.asarray(LA.vector_norm(x, axis=1)).astype(np.float64), ref,
                               rtol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_the_2_norm_sums_the_squares_in_one_pass_with_the_bits_of_two(dtype, monkeypatch):
    """The 2-norm of real x sums x * x in one pass of the reduce kernels (SumSq): the bits of
    the namespace's multiply then sum, for every kind of view, axis and size (past the size
    the cpu backend splits between threads), infinities and NaN included."""
    rng = np.random.default_rng(7)
    big = rng.standard_normal((700, 900)) * 4
    big[3, 5], big[10, 11], big[600, 7] = np.inf, -np.inf, np.nan
    x = xp.asarray(big.astype(np.float32 if dtype != "float64" else np.float64))
    x = x if dtype in ("float32", "float64") else xp.astype(x, getattr(xp, dtype))
    wide = x if dtype in ("float32", "float64") else xp.astype(x, xp.float32)
    views = {"whole": (x, wide), "transposed": (x.T, wide.T), "steps": (x[::3, 1::2], wide[::3, 1::2]),
             "reversed": (x[::-1, ::-2], wide[::-1, ::-2]), "narrow": (x[:, :9], wide[:, :9]),
             "3-d": (xp.reshape(x, (70, 10, 900)), xp.reshape(wide, (70, 10, 900)))}
    for name, (v, w) in views.items():
        for axis in (None, 0, -1, (0, 1), (1, 0)) if v.ndim == 2 else (None, 1, (0, 2)):
            for keep in (False, True):
                got = LA.vector_norm(v, axis=axis, keepdims=keep)
                want = xp.sqrt(xp.sum(w * w, axis=axis, keepdims=keep))
                want = want if got.dtype == want.dtype else xp.astype(want, got.dtype)
                assert got.shape == want.shape, (name, axis, keep)
                assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (name, axis, keep)
    monkeypatch.setattr(LA, "multiply", lambda *a: pytest.fail("an array of the squares was made"))
    LA.vector_norm(x, axis=1)


def test_vector_norm_special_values():
    a = np.array([3.0, -4.0, np.inf, -0.0])
    got = lambda o, v=a: float(LA.vector_norm(xp.asarray(v), ord=o))  # noqa: E731
    assert got(2) == math.inf and got(1) == math.inf and got(math.inf) == math.inf
    assert got(-math.inf) == 0.0 and got(0) == 3.0            # -0.0 is zero: 3 non-zeros
    assert got(-1) == 0.0                                      # a zero: 1 / inf
    assert math.isnan(got(2, np.array([1.0, np.nan])))
    assert float(LA.vector_norm(xp.asarray(np.float32(-2.5)))) == 2.5   # 0-d


# --------------------------------------------------------------- views, trace, products

def test_diagonal_is_a_view():
    a = np.arange(2 * 4 * 5, dtype=np.float32).reshape(2, 4, 5)
    x = xp.asarray(a)                                # shares a's memory (cpu)
    for k in (-5, -2, 0, 1, 3, 9):
        d = LA.diagonal(x, offset=k)
        np.testing.assert_array_equal(np.asarray(d), np.diagonal(a, k, -2, -1))
    rev = LA.diagonal(x[:, ::-1, :], offset=1)
    np.testing.assert_array_equal(np.asarray(rev), np.diagonal(a[:, ::-1, :], 1, -2, -1))
    d = LA.diagonal(x)
    d[...] = -1.0                                    # writes through to x
    np.testing.assert_array_equal(np.diagonal(np.asarray(x), 0, -2, -1), -np.ones((2, 4)))


@pytest.mark.parametrize("dtype,want", [("int16", "int64"), ("uint8", "uint64"),
                                        ("float32", "float32"), ("complex128", "complex128")])
def test_trace(dtype, want):
    a = (RNG.integers(0, 2**15 - 1, (3, 4, 4)) if dtype.startswith(("int", "uint"))
         else values((3, 4, 4), dtype)).astype(dtype)
    for k in (0, 1, -2):
        got = LA.trace(xp.asarray(a), offset=k)
        assert got.dtype.name == want
        np.testing.assert_allclose(np.asarray(got), np.trace(a, k, -2, -1, dtype=want),
                                   rtol=1e-6)
    wide = xp.complex128 if dtype.startswith("complex") else xp.float64
    assert LA.trace(xp.asarray(a), dtype=wide).dtype == wide


def test_matrix_transpose_is_a_view():
    a = values((2, 3, 4), "float32")
    t = xp.matrix_transpose(xp.asarray(a))
    np.testing.assert_array_equal(np.asarray(t), np.swapaxes(a, -1, -2))
    assert LA.matrix_transpose is xp.matrix_transpose and LA.matmul is xp.matmul


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "complex64"])
def test_tensordot(dtype):
    a = values((3, 4, 5), dtype) if dtype != "int32" else RNG.integers(-9, 9, (3, 4, 5)).astype(dtype)
    b = values((5, 4, 2), dtype) if dtype != "int32" else RNG.integers(-9, 9, (5, 4, 2)).astype(dtype)
    tol = 0 if dtype == "int32" else 1e-5
    for axes in (([1, 2], [1, 0]), ([2], [0]), 0):
        ref = np.tensordot(a, b, axes=axes)
        got = xp.tensordot(xp.asarray(a), xp.asarray(b), axes=axes)
        np.testing.assert_allclose(np.asarray(got), ref, rtol=tol, atol=tol)
        assert got.dtype.name == dtype
    c = values((4, 5, 6), dtype) if dtype != "int32" else RNG.integers(-9, 9, (4, 5, 6)).astype(dtype)
    np.testing.assert_allclose(np.asarray(xp.tensordot(xp.asarray(a), xp.asarray(c))),
                               np.tensordot(a, c), rtol=tol, atol=tol)
    with pytest.raises(ValueError, match="same size"):
        xp.tensordot(xp.asarray(a), xp.asarray(a), axes=([0], [1]))
    with pytest.raises(ValueError, match="axes=4"):
        xp.tensordot(xp.asarray(a), xp.asarray(b), axes=4)


def test_tensordot_float16_rounds_once_from_the_cube():
    a, b = values((3, 8), "float16"), values((8, 2), "float16")
    got = xp.tensordot(xp.asarray(a), xp.asarray(b), axes=1)
    ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    assert got.dtype == xp.float16
    np.testing.assert_allclose(np.asarray(got).astype(np.float32), ref.astype(np.float32),
                               rtol=1e-3, atol=1e-3)


def test_vecdot_conjugates_and_broadcasts():
    x1, x2 = values((4, 1, 3), "complex128"), values((2, 3), "complex128")
    ref = np.sum(np.conj(x1) * x2, axis=-1)
    np.testing.assert_allclose(np.asarray(xp.vecdot(xp.asarray(x1), xp.asarray(x2))), ref,
                               rtol=1e-12)
    i = RNG.integers(-100, 100, (3, 5)).astype(np.int8)    # int8 wraps as NumPy's does
    np.testing.assert_array_equal(np.asarray(LA.vecdot(xp.asarray(i), xp.asarray(i), axis=-2)),
                                  np.sum(i * i, axis=0, dtype=np.int8))
    with pytest.raises(ValueError, match="negative"):
        xp.vecdot(xp.asarray(x1), xp.asarray(x1), axis=0)
    with pytest.raises(ValueError, match="sizes 3 and 2"):
        xp.vecdot(xp.asarray(x1), xp.asarray(values((3, 2), "complex128")))


@pytest.mark.parametrize("dtype", ["float64", "int8", "uint16", "float16"])
def test_outer_and_cross_use_our_elementwise_operators(dtype):
    if dtype.startswith(("int", "uint")):
        lo = 0 if dtype.startswith("u") else -128
        u = RNG.integers(lo, 128, (2, 3, 4)).astype(dtype)
        v = RNG.integers(lo, 128, (3, 1)).astype(dtype)
    else:
        u, v = values((2, 3, 4), dtype), values((3, 1), dtype)
    tol = 0 if dtype != "float16" else 2e-2
    np.testing.assert_allclose(np.asarray(LA.outer(xp.asarray(u[0, 0]), xp.asarray(v[:, 0]))),
                               np.outer(u[0, 0], v[:, 0]), rtol=tol, atol=tol)
    with np.errstate(over="ignore"):
        ref = np.cross(u, v, axis=-2)               # modular for integers, as ours
    got = LA.cross(xp.asarray(u), xp.asarray(v), axis=-2)
    assert got.shape == ref.shape and got.dtype.name == dtype
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), ref.astype(np.float64),
                               rtol=tol, atol=tol * 10)
    with pytest.raises(ValueError, match="negative"):
        LA.cross(xp.asarray(u), xp.asarray(v), axis=1)
    with pytest.raises(ValueError, match="3 elements"):
        LA.cross(xp.asarray(u), xp.asarray(u), axis=-1)
    with pytest.raises(ValueError, match="1-D"):
        LA.outer(xp.asarray(u), xp.asarray(v))


@pytest.mark.parametrize("n", [-3, -1, 0, 1, 2, 5])
def test_matrix_power(n):
    a = spd((2, 3, 3), "float64") / 3
    x = xp.asarray(a.copy())
    got = LA.matrix_power(x, n)
    close(got, np.linalg.matrix_power(a, n), 1e-10)
    x[...] = 0.0                                     # the result is never x's memory
    close(got, np.linalg.matrix_power(a, n), 1e-10)


def test_matrix_power_float32_multiplies_on_the_cube():
    a = (np.eye(4) + 0.1 * values((4, 4), "float64")).astype(np.float32)
    got = LA.matrix_power(xp.asarray(a), 6)
    assert got.dtype == xp.float32
    np.testing.assert_allclose(np.asarray(got), np.linalg.matrix_power(a.astype(np.float64), 6),
                               rtol=1e-5, atol=1e-5)


# -------------------------------------------------------------------------- refusals

@pytest.mark.parametrize("fn", [LA.cholesky, LA.det, LA.eigh, LA.eigvalsh, LA.inv, LA.pinv,
                                LA.qr, LA.slogdet, LA.svd, LA.svdvals, LA.matrix_rank,
                                LA.matrix_norm, LA.vector_norm,
                                lambda x: LA.matrix_power(x, 2)])
def test_floating_only(fn):
    with pytest.raises(TypeError, match="floating-point"):
        fn(xp.asarray(np.eye(3, dtype=np.int32)))


def test_shape_and_argument_refusals():
    v, rect = xp.asarray(np.ones(3)), xp.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        LA.inv(v)
    with pytest.raises(ValueError, match="square"):
        LA.det(rect)
    with pytest.raises(ValueError, match="mode"):
        LA.qr(rect, mode="r")
    with pytest.raises(ValueError, match="ord"):
        LA.matrix_norm(rect, ord=3)
    with pytest.raises(TypeError, match="ord"):
        LA.vector_norm(rect, ord="fro")
    with pytest.raises(TypeError, match="n="):
        LA.matrix_power(xp.asarray(np.eye(2)), 1.5)
    with pytest.raises(TypeError, match="rtol"):
        LA.pinv(rect, rtol=xp.asarray([1]))
    with pytest.raises(ValueError, match="twice"):
        LA.vector_norm(rect, axis=(1, -1))
