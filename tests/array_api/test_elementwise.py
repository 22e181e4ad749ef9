"""The elementwise functions of the 2024.12 standard: values against NumPy (bit for bit,
signed zeros, infinities and NaNs included; the transcendental functions against our ufunc
family's own bits), the special cases where the standard differs
from NumPy (hand-derived), dtype categories and result dtypes, the NPU's computation type for
the narrow floats (float32, rounded back: checked against the host codecs), and the Array's
operators built from the same tables."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu import codecs
from npu_emu.array_api import _elementwise
from npu_emu.array_api._engine import kernel as _calls, ufunc
from npu_emu.kernels import ufunc as ufunc_family

from helpers import bf16_bits, pows_reference

from ._support import bits, float32_defaults  # noqa: F401 (the fixture)

# These tests were written against the NPU's float32 defaults: they run with that setting
# of the switch (test_defaults.py checks the namespace's own, float64).
pytestmark = pytest.mark.usefixtures("float32_defaults")

# The standard's elementwise functions (2024.12), clip aside (a manipulation function here).
STANDARD_UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert",
                  "ceil", "conj", "cos", "cosh", "exp", "expm1", "floor", "imag", "isfinite",
                  "isinf", "isnan", "log", "log1p", "log2", "log10", "logical_not", "negative",
                  "positive", "real", "reciprocal", "round", "sign", "signbit", "sin", "sinh",
                  "square", "sqrt", "tan", "tanh", "trunc"]
STANDARD_BINARY = ["add", "atan2", "bitwise_and", "bitwise_left_shift", "bitwise_or",
                   "bitwise_right_shift", "bitwise_xor", "copysign", "divide", "equal",
                   "floor_divide", "greater", "greater_equal", "hypot", "less", "less_equal",
                   "logaddexp", "logical_and", "logical_or", "logical_xor", "maximum", "minimum",
                   "multiply", "nextafter", "not_equal", "pow", "remainder", "subtract"]
# The NumPy function each one is compared with (the same name where absent).
NUMPY_NAME = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
              "atan": "arctan", "atanh": "arctanh", "atan2": "arctan2", "bitwise_invert": "invert",
              "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift",
              "conj": "conjugate", "pow": "power", "round": "rint", "divide": "true_divide"}
# Functions whose special cases the standard states differently from NumPy (tested by hand).
FIXED = {"floor_divide", "expm1", "tanh"}

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.0, 0.75,
           1e-30, -1e-30, 1e30, -7.25, np.pi, 1e-45, 65504.0]
REAL_FLOATS = {"real floating-point", "floating-point"}


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


def host(x: xp.Array) -> np.ndarray:
    return np.asarray(xp.asarray(x, copy=True)) if x.dtype != xp.hifloat8 else \
        np.asarray(xp.astype(x, xp.float32))


def same(got: np.ndarray, want: np.ndarray) -> None:
    """Equal values, NaN where NaN, zeros of the same sign (complex: both parts)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    if got.dtype.kind == "c":
        same(got.real, want.real)
        same(got.imag, want.imag)
        return
    if got.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all(), (got, want)
    np.testing.assert_array_equal(got[~nan], want[~nan])
    np.testing.assert_array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))


# Our math library's functions (npu_emu/kernels/ufunc.py's math entries, and complex abs,
# sqrt, sign, reciprocal): the reference is the ufunc family's own result (itself within 1 ulp
# of NumPy and mpmath for real floats: tests/test_ufunc.py; complex: within a few ulp of
# mpmath with the standard's special values, tests/test_ufunc_complex.py).
OURS = {u.name for u in ufunc_family.UFUNCS if u.math}
OURS_COMPLEX = OURS | {"abs", "sqrt", "sign", "reciprocal"}


def numpy_fn(name: str):
    fn = getattr(np, NUMPY_NAME.get(name, name))
    if name not in OURS_COMPLEX:
        return fn

    def ours(*args):
        arrays = [np.asarray(a) for a in args]
        complex_ = any(a.dtype.kind == "c" for a in arrays)
        if name not in (OURS_COMPLEX if complex_ else OURS):
            return fn(*arrays)
        dtype = np.result_type(*arrays)
        return ufunc_family.apply_numpy(name, *(a.astype(dtype) for a in arrays))
    return ours


def test_every_standard_function_is_there_from_the_tables():
    assert sorted(ufunc.UNARY) == sorted(STANDARD_UNARY)
    assert sorted(ufunc.BINARY) == sorted(STANDARD_BINARY)
    assert sorted(_elementwise.__all__) == sorted(STANDARD_UNARY + STANDARD_BINARY)
    for name in STANDARD_UNARY + STANDARD_BINARY:
        assert name in xp.__all__
        assert getattr(xp, name) is getattr(_elementwise, name)
        assert getattr(xp, name).__name__ == name


def test_the_operators_come_from_the_tables():
    x = xp.asarray([5, 3, 8], dtype=xp.int32)
    y = xp.asarray([2, 7, 3], dtype=xp.int32)
    for spec in ufunc.BINARY.values():
        if spec.dunder is None:
            continue
        fn = getattr(xp, spec.name)
        if spec.dunder.startswith("cmp:"):
            d = spec.dunder[4:]
            np.testing.assert_array_equal(np.asarray(getattr(x, f"__{d}__")(y)),
                                          np.asarray(fn(x, y)))
            continue
        d = spec.dunder
        np.testing.assert_array_equal(np.asarray(getattr(x, f"__{d}__")(y)), np.asarray(fn(x, y)))
        np.testing.assert_array_equal(np.asarray(getattr(x, f"__r{d}__")(2)), np.asarray(fn(2, x)))
        if spec.result == "promoted":
            z = xp.asarray(x, copy=True)
            assert getattr(z, f"__i{d}__")(y) is z
            np.testing.assert_array_equal(np.asarray(z), np.asarray(fn(x, y)))
    for spec in ufunc.UNARY.values():
        if spec.dunder:
            np.testing.assert_array_equal(np.asarray(getattr(x, f"__{spec.dunder}__")()),
                                          np.asarray(getattr(xp, spec.name)(x)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(n for n in STANDARD_UNARY if n not in FIXED))
def test_unary_real_floats_match_numpy(name, dtype):
    spec = ufunc.UNARY[name]
    a = np.array(SPECIAL, dtype=dtype)
    if spec.category in ("integer or boolean", "boolean"):
        with pytest.raises(TypeError, match=spec.category):
            getattr(xp, name)(xp.asarray(a))
        return
    if spec.category == "complex floating-point":
        with pytest.raises(TypeError):
            getattr(xp, name)(xp.asarray(a))
        return
    got = getattr(xp, name)(xp.asarray(a))
    with np.errstate(all="ignore"):
        want = numpy_fn(name)(a)
    same(host(got), want)


COMPLEX_PARTS = [0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan]


def complex_grid(dtype: str) -> np.ndarray:
    re, im = np.meshgrid(COMPLEX_PARTS, COMPLEX_PARTS)
    out = np.empty(re.size, dtype=dtype)
    out.real, out.imag = re.ravel(), im.ravel()
    return out


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", sorted(n for n in STANDARD_UNARY if n not in FIXED))
def test_unary_complex_matches_numpy(name, dtype):
    spec = ufunc.UNARY[name]
    z = complex_grid(dtype)
    if spec.category in ("integer or boolean", "boolean", "real numeric",
                         "real floating-point"):
        with pytest.raises(TypeError):
            getattr(xp, name)(xp.asarray(z))
        return
    got = np.asarray(getattr(xp, name)(xp.asarray(z)))
    with np.errstate(all="ignore"):
        want = numpy_fn(name)(z)
    same(got, want)


def test_complex_expm1_special_cases_are_the_standards():
    inf, nan = math.inf, math.nan
    cases = [(complex(0.0, 0.0), complex(0.0, 0.0)), (complex(-0.0, 0.0), complex(0.0, 0.0)),
             (complex(inf, 0.0), complex(inf, 0.0)), (complex(-inf, inf), complex(-1.0, 0.0)),
             (complex(-inf, nan), complex(-1.0, 0.0)), (complex(nan, 0.0), complex(nan, 0.0)),
             (complex(nan, nan), complex(nan, nan))]
    z = xp.asarray(np.array([c for c, _ in cases], dtype=np.complex128))
    got = np.asarray(xp.expm1(z))
    want = np.array([w for _, w in cases], dtype=np.complex128)
    same(got, want)
    # +inf + inf j: "infinity + NaN j" with the real part's sign unspecified
    r = complex(np.asarray(xp.expm1(xp.asarray([complex(inf, inf)])))[0])
    assert math.isinf(r.real) and math.isnan(r.imag)
    # finite values: NumPy's expm1 (accurate near zero)
    small = np.array([1e-9 + 2e-9j, 0.5 - 0.25j], dtype=np.complex128)
    same(np.asarray(xp.expm1(xp.asarray(small))), np.expm1(small))


def test_complex_tanh_at_infinity_is_one_with_the_sign_of_b():
    inf = math.inf
    z = np.array([complex(inf, 1.0), complex(inf, 3.0), complex(inf, -3.0), complex(-inf, 3.0),
                  complex(inf, 0.0), complex(0.25, 0.5)], dtype=np.complex64)
    got = np.asarray(xp.tanh(xp.asarray(z)))
    want = np.array([complex(1, 0), complex(1, 0), complex(1, -0.0), complex(-1, 0),
                     complex(1, 0), ufunc_family.apply_numpy("tanh", z[-1:])[0]], dtype=np.complex64)
    # (finite z: our kernel's correctly rounded 0.3124207 + 0.50450075j; NumPy 2.4 is 1 ulp off)
    same(got, want)


def test_floor_divide_special_cases_are_the_standards():
    inf = math.inf
    x1 = np.array([inf, inf, -inf, -inf, 1.0, -1.0, 1.0, -1.0, 7.0, -7.0, inf, 0.0, -0.0],
                  dtype=np.float32)
    x2 = np.array([2.0, -2.0, 2.0, -2.0, -inf, inf, inf, -inf, 2.0, 2.0, inf, 1.0, 1.0],
                  dtype=np.float32)
    want = np.array([inf, -inf, -inf, inf, -0.0, -0.0, 0.0, 0.0, 3.0, -4.0, np.nan, 0.0, -0.0],
                    dtype=np.float32)
    same(host(xp.floor_divide(xp.asarray(x1), xp.asarray(x2))), want)
    same(host(xp.asarray(x1) // xp.asarray(x2)), want)
    z = xp.asarray(x1, copy=True)
    z //= xp.asarray(x2)                      # in place: the same special cases
    same(host(z), want)
    # integers: NumPy's floor division (toward -inf), remainder with the divisor's sign
    a, b = np.array([7, -7, 7, -7], np.int16), np.array([2, 2, -2, -2], np.int16)
    same(host(xp.asarray(a) // xp.asarray(b)), a // b)
    same(host(xp.asarray(a) % xp.asarray(b)), a % b)


def test_remainder_special_cases():
    inf = math.inf
    x1 = np.array([1.0, -1.0, 1.0, -1.0, -0.0, 0.0, inf, 5.5], dtype=np.float64)
    x2 = np.array([inf, inf, -inf, -inf, 1.0, -1.0, 2.0, -2.0], dtype=np.float64)
    want = np.array([1.0, inf, -inf, -1.0, 0.0, -0.0, np.nan, -0.5])
    same(host(xp.remainder(xp.asarray(x1), xp.asarray(x2))), want)


BINARY_FLOAT_PAIRS = [(a, b) for a in SPECIAL[:12] for b in SPECIAL[:12]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(n for n in STANDARD_BINARY
                                        if n not in FIXED and ufunc.BINARY[n].category
                                        in ("numeric", "real numeric", "all",
                                            "real floating-point")))
def test_binary_real_floats_match_numpy(name, dtype):
    a = np.array([p[0] for p in BINARY_FLOAT_PAIRS], dtype=dtype)
    b = np.array([p[1] for p in BINARY_FLOAT_PAIRS], dtype=dtype)
    got = getattr(xp, name)(xp.asarray(a), xp.asarray(b))
    with np.errstate(all="ignore"):
        want = numpy_fn(name)(a, b)
    if name in ("maximum", "minimum"):   # our rule at (+-0, -+0): NumPy's varies by path
        zeros = (a == 0) & (b == 0)
        neg = np.signbit(a) & np.signbit(b) if name == "maximum" else np.signbit(a) | np.signbit(b)
        want = np.where(zeros, np.where(neg, -0.0, 0.0).astype(want.dtype), want)
    same(host(got), want)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_add_and_subtract_are_componentwise(dtype):
    """x - y is (a - c) + (b - d)j, as the standard and NumPy have it: not Add's
    x + (-1) * y, whose complex multiply makes NaN beside an infinite part and drops the
    sign of zeros ((1 - 0j) - (5 + 0j) is -4 - 0j). x + y likewise, and in place."""
    parts = [0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan]
    vals = [complex(r, i) for r in parts for i in parts]
    a = np.array([v for v in vals for _ in vals], dtype=dtype)
    b = np.array([w for _ in vals for w in vals], dtype=dtype)
    for name, fn in (("subtract", np.subtract), ("add", np.add)):
        got = host(getattr(xp, name)(xp.asarray(a), xp.asarray(b)))
        with np.errstate(all="ignore"):
            want = fn(a, b)
        for part in ("real", "imag"):
            g, w = getattr(got, part), getattr(want, part)
            assert (np.isnan(g) == np.isnan(w)).all(), (name, part)
            keep = ~np.isnan(w)
            np.testing.assert_array_equal(g[keep], w[keep])
            assert (np.signbit(g[keep]) == np.signbit(w[keep])).all(), (name, part)
    x = xp.asarray(np.array([complex(1, -0.0)], dtype=dtype))
    x -= xp.asarray(np.array([complex(5, 0.0)], dtype=dtype))
    assert host(x).tolist() == [complex(-4, -0.0)] and np.signbit(host(x).imag[0])


INTEGER_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_integers_match_numpy(dtype):
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, 64, dtype=dtype, endpoint=True)
    b = rng.integers(max(info.min, -9), 10, 64, dtype=dtype, endpoint=True)
    b[b == 0] = 1
    shifts = rng.integers(0, info.bits, 64).astype(dtype)
    x, y, s = xp.asarray(a), xp.asarray(b), xp.asarray(shifts)
    with np.errstate(all="ignore"):
        for name in ("add", "subtract", "multiply", "floor_divide", "remainder", "maximum",
                     "minimum", "bitwise_and", "bitwise_or", "bitwise_xor", "equal", "less",
                     "greater_equal"):
            same(host(getattr(xp, name)(x, y)), numpy_fn(name)(a, b))
        for name in ("bitwise_left_shift", "bitwise_right_shift"):
            same(host(getattr(xp, name)(x, s)), numpy_fn(name)(a, shifts))
        small = np.abs(b.astype(np.int64)).astype(dtype) % 4
        same(host(xp.pow(x, xp.asarray(small))), np.power(a, small))
        for name in ("abs", "negative", "sign", "square", "bitwise_invert"):
            same(host(getattr(xp, name)(x)), numpy_fn(name)(a))
        for name in ("isnan", "isinf", "isfinite"):
            same(host(getattr(xp, name)(x)), numpy_fn(name)(a))
    for name in ("ceil", "floor", "trunc", "round", "real", "conj", "positive"):
        out = getattr(xp, name)(x)
        assert out.dtype == x.dtype and out is not x
        same(host(out), a)
    # true division of integers gives the default float
    q = xp.divide(x, y)
    assert q.dtype == xp.float32
    same(host(q), (a.astype(np.float32) / b.astype(np.float32)))


def test_bool_functions():
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    x, y = xp.asarray(a), xp.asarray(b)
    for name in ("logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
                 "bitwise_xor", "equal", "not_equal"):
        same(host(getattr(xp, name)(x, y)), numpy_fn(name)(a, b))
    same(host(xp.logical_not(x)), ~a)
    same(host(~x), ~a)
    for name in ("add", "negative", "less", "sin"):
        with pytest.raises(TypeError):
            getattr(xp, name)(x, y) if name in ("add", "less") else getattr(xp, name)(x)


# The math functions the standard defines on floating dtypes; integer arrays compute in the
# default real floating dtype (ufunc.py's note).
INT_TO_FLOAT_UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin",
                      "sinh", "tan", "tanh", "exp", "expm1", "log", "log1p", "log2", "log10",
                      "sqrt", "reciprocal"]
INT_TO_FLOAT_BINARY = ["atan2", "hypot", "logaddexp"]


@pytest.mark.parametrize("default", ["float64", "float32"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64"])
def test_math_functions_take_integers_in_the_default_float(dtype, default):
    # The same bytes as the function of the array converted by astype (our conversion), in
    # the default real floating dtype of the moment; and NumPy's values within its ulps.
    before = xp.set_default_dtypes(real_floating=getattr(xp, default))
    try:
        lo = 0 if dtype.startswith("u") else -100
        ints = np.arange(lo, lo + 200, dtype=np.int64).astype(dtype)
        if dtype == "int64":
            ints[:3] = [2**53 + 1, -2**62 - 1, 2**63 - 1]     # not exact in either float
        x = xp.asarray(ints)
        fx = xp.astype(x, getattr(xp, default))
        for name in INT_TO_FLOAT_UNARY:
            got = getattr(xp, name)(x)
            assert got.dtype == getattr(xp, default), name
            same(host(got), host(getattr(xp, name)(fx)))
            with np.errstate(all="ignore"):
                want = numpy_fn(name)(ints.astype(default))
            np.testing.assert_allclose(host(got), want, rtol=4 * np.finfo(default).eps,
                                       err_msg=name)
        y = xp.asarray(ints[::-1].copy())
        fy = xp.astype(y, getattr(xp, default))
        for name in INT_TO_FLOAT_BINARY:
            got = getattr(xp, name)(x, y)
            assert got.dtype == getattr(xp, default), name
            same(host(got), host(getattr(xp, name)(fx, fy)))
            same(host(getattr(xp, name)(x, 3)), host(getattr(xp, name)(fx, 3.0)))
        # beside a float array the NPU's promotion decides, as for the other functions
        f32 = xp.asarray(np.linspace(-1, 1, ints.size, dtype=np.float32))
        assert xp.atan2(x, f32).dtype == xp.float32
    finally:
        xp.set_default_dtypes(real_floating=before["real floating"])


def test_math_functions_keep_refusing_bool():
    b = xp.asarray([True, False])
    for name in ("exp", "sqrt", "sin"):
        with pytest.raises(TypeError, match=f"{name} takes numeric dtypes, not bool"):
            getattr(xp, name)(b)
    with pytest.raises(TypeError, match="atan2 takes real numeric dtypes, not bool"):
        xp.atan2(b, b)


def test_logical_functions_take_any_dtype_by_its_truth():
    # beyond the standard (bool only), as NumPy / PyTorch / CuPy: non-zero and NaN are true
    a = np.array([0.0, -0.0, np.nan, 2.5, 0.0, np.inf])
    b = np.array([0, 3, 0, -1, 0, 0], dtype=np.int8)
    for name in ("logical_and", "logical_or", "logical_xor"):
        got = getattr(xp, name)(xp.asarray(a), xp.asarray(b))
        assert got.dtype == xp.bool
        same(host(got), numpy_fn(name)(a, b))
        same(host(getattr(xp, name)(xp.asarray(a), 0)), numpy_fn(name)(a, 0))
    u, f = np.array([0, 7], np.uint64), np.array([1.0, 0.0], np.float16)
    same(host(xp.logical_or(xp.asarray(u), xp.asarray(f))), np.array([True, True]))
    z = np.array([0j, 1j, complex(0, -0.0)])
    same(host(xp.logical_not(xp.asarray(z))), np.logical_not(z))
    h = xp.astype(xp.asarray([0.0, 1.5]), xp.hifloat8)
    same(host(xp.logical_and(h, h)), np.array([False, True]))


def test_result_dtypes_and_categories():
    c = xp.asarray([3 + 4j, complex(0, -1)], dtype=xp.complex64)
    assert xp.abs(c).dtype == xp.float32
    same(host(xp.abs(c)), np.array([5.0, 1.0], np.float32))
    assert xp.real(c).dtype == xp.float32 and xp.imag(c).dtype == xp.float32
    same(host(xp.real(c)), np.array([3.0, 0.0], np.float32))
    same(host(xp.imag(c)), np.array([4.0, -1.0], np.float32))
    same(host(xp.conj(c)), np.array([3 - 4j, complex(0, 1)], np.complex64))
    f = xp.asarray([1.5, -2.0])
    assert xp.isnan(f).dtype == xp.bool and xp.signbit(f).dtype == xp.bool
    for name, arg in (("sin", xp.asarray([True])), ("imag", f), ("signbit", c),
                      ("bitwise_invert", f), ("ceil", c)):
        with pytest.raises(TypeError, match=name):
            getattr(xp, name)(arg)
    for name in ("copysign", "nextafter"):
        with pytest.raises(TypeError, match="real floating-point"):
            getattr(xp, name)(xp.asarray([1, 2]), xp.asarray([3, 4]))
    for name in ("atan2", "hypot", "logaddexp"):
        with pytest.raises(TypeError, match="real numeric"):
            getattr(xp, name)(c, c)
    with pytest.raises(TypeError, match="integer"):
        xp.bitwise_left_shift(f, f)
    with pytest.raises(TypeError, match="real numeric"):
        xp.less(c, c)


def test_python_scalars_take_the_arrays_dtype():
    x = xp.asarray([1.0, 2.0], dtype=xp.float16)
    got = xp.maximum(x, 1.5)
    assert got.dtype == xp.float16
    same(host(got), np.array([1.5, 2.0], np.float16))
    # the scalar is rounded to the array's dtype first (0.1 in float16), as the NPU converts
    same(host(xp.less(xp.asarray([0.0999755859375], dtype=xp.float16), 0.1)),
         np.array([False]))
    assert xp.atan2(2.0, xp.asarray([1.0])).dtype == xp.float32
    assert (xp.asarray([1, 2], dtype=xp.int8) < 1.5).dtype == xp.bool


# ----------------------------------------------------- narrow floats: float32, rounded back

NARROW = ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "hifloat8"]


def narrow_values(dtype: str) -> tuple[xp.Array, np.ndarray]:
    """Values of a narrow float (a spread of finite ones, +-0, and inf/NaN where the type has
    them) as an array and as their float32 values."""
    wanted = np.array([0.0, -0.0, 0.5, -0.75, 1.0, 1.25, -2.0, 3.5, 0.1, -6.0, 12.0, 0.3,
                       np.inf, -np.inf, np.nan], dtype=np.float32)
    acl = getattr(xp, dtype).acl_dtype
    f32 = codecs.decode(codecs.encode(wanted, acl), acl).astype(np.float32)
    if dtype == "float8_e4m3fn":     # no infinities: the encoding made them NaN
        f32 = f32[:-3]
    return xp.astype(xp.asarray(f32), getattr(xp, dtype)), f32


def rounded(values: np.ndarray, dtype: str) -> np.ndarray:
    """float32 results rounded to a narrow dtype by the host codecs, back as float32."""
    acl = getattr(xp, dtype).acl_dtype
    return codecs.decode(codecs.encode(values.astype(np.float32), acl), acl).astype(np.float32)


@pytest.mark.parametrize("dtype", NARROW)
@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "tanh", "expm1", "reciprocal",
                                  "square", "abs", "negative", "floor", "round", "sign"])
def test_narrow_unary_computes_in_float32(name, dtype):
    x, f32 = narrow_values(dtype)
    got = getattr(xp, name)(x)
    assert got.dtype == getattr(xp, dtype)
    with np.errstate(all="ignore"):
        want = rounded(numpy_fn(name)(f32), dtype)
    same(host(got).astype(np.float32), want)


@pytest.mark.parametrize("dtype", NARROW)
@pytest.mark.parametrize("name", ["divide", "pow", "floor_divide", "remainder", "atan2",
                                  "hypot", "maximum", "copysign", "logaddexp", "subtract"])
def test_narrow_binary_computes_in_float32(name, dtype):
    x, f32 = narrow_values(dtype)
    y, g32 = xp.flip(x), f32[::-1].copy()
    got = getattr(xp, name)(x, y)
    assert got.dtype == getattr(xp, dtype)
    with np.errstate(all="ignore"):
        raw = numpy_fn(name)(f32, g32)
        if name == "floor_divide":        # the standard's cases at infinities
            special = np.isinf(f32) | np.isinf(g32)
            raw = np.where(special, np.floor(f32 / g32), raw)
    same(host(got).astype(np.float32), rounded(raw, dtype))


def test_narrow_sum_of_a_cancellation_is_the_float32_result_rounded():
    # float16: 2048 + 1 + 1 in float16 steps stays 2048; in float32 it is 2050 (representable)
    x = xp.asarray([2048.0, 1.0, 1.0], dtype=xp.float16)
    same(host(x[0:1] + x[1:2] + x[2:3]), np.array([2048.0], np.float16))   # two roundings
    same(host(xp.logaddexp(x[1:2], x[1:2])), np.array([np.float16(1 + math.log(2))]))


@pytest.mark.parametrize("dtype", NARROW)
def test_narrow_comparisons_and_predicates(dtype):
    x, f32 = narrow_values(dtype)
    y, g32 = xp.flip(x), f32[::-1].copy()
    for name in ("less", "greater_equal", "equal", "not_equal"):
        same(host(getattr(xp, name)(x, y)), numpy_fn(name)(f32, g32))
    for name in ("isnan", "isinf", "isfinite", "signbit"):
        same(host(getattr(xp, name)(x)), numpy_fn(name)(f32))


def _code_nextafter(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """nextafter by the codes of an IEEE-like type (sign and magnitude, magnitudes ordered
    like their codes): one code away from a towards b; +-0 step to the smallest subnormal of
    b's sign; a == b gives b."""
    ut = np.uint16 if a.itemsize == 2 else np.uint8
    bits = a.view(ut).astype(np.int64)
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    sign = 1 << (8 * a.itemsize - 1)
    out = np.where((fb > fa) == (fa > 0), bits + 1, bits - 1)
    out = np.where(fa == 0, np.where(fb > 0, 1, sign | 1), out)
    out = np.where(fa == fb, b.view(ut).astype(np.int64), out)
    return out.astype(ut).view(a.dtype)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_nextafter_steps_in_the_narrow_types_own_precision(dtype):
    host_type = np.float16 if dtype == "float16" else getattr(ml_dtypes, dtype)
    a = np.array([1.0, 1.0, -1.0, 0.0, -0.0, 0.5, 2.0, -3.0, 1.5], dtype=host_type)
    b = np.array([2.0, 0.0, -2.0, 1.0, -1.0, 0.5, -5.0, 0.0, 1.5], dtype=host_type)
    got = xp.nextafter(xp.asarray(a), xp.asarray(b))
    assert got.dtype == getattr(xp, dtype)
    np.testing.assert_array_equal(np.asarray(got).astype(np.float64),
                                  _code_nextafter(a, b).astype(np.float64))
    if dtype == "float16":      # NumPy's own float16 nextafter agrees
        np.testing.assert_array_equal(np.asarray(got), np.nextafter(a, b))


def test_nextafter_hifloat8_steps_along_its_value_table():
    # HiFloat8 (docs/conversions.md#hifloat8): 3 mantissa bits for exponents 0..3 (steps of
    # 1/8 in [1, 2), 1/4 in [2, 4)), 2 bits for 4..7 (steps of 4 in [16, 32)); its codes are
    # not ordered by value, the steps are.
    x = xp.astype(xp.asarray([1.0, 2.0, 2.0, 0.0, -1.0, 4.0, 16.0]), xp.hifloat8)
    y = xp.astype(xp.asarray([2.0, 4.0, 1.0, 1.0, -4.0, 4.0, 100.0]), xp.hifloat8)
    got = host(xp.nextafter(x, y))
    assert list(got[[0, 1, 2, 4, 5, 6]]) == [1.125, 2.25, 1.875, -1.125, 4.0, 20.0]
    assert 0 < got[3] < 1e-6                 # the smallest positive value


def test_nextafter_float32_matches_numpy():
    a = np.array([1.0, 0.0, -0.0, np.inf, np.nan, 3.0], np.float32)
    b = np.array([2.0, -1.0, 1.0, 0.0, 1.0, 3.0], np.float32)
    same(host(xp.nextafter(xp.asarray(a), xp.asarray(b))), np.nextafter(a, b))


# -------------------------------------------------------------------- in place, paths

def test_inplace_keeps_dtype_and_writes_x_memory():
    a = np.array([1.0, 4.0, 9.0], np.float64)
    x = xp.asarray(a, copy=True)
    before = x._ptr0()
    x **= 0.5
    x %= 2.0
    assert x._ptr0() == before
    same(host(x), np.remainder(np.sqrt(a), 2.0))
    h = xp.asarray([1.0, 2.0, 3.0], dtype=xp.float16)
    h /= 3.0
    same(host(h), (np.array([1, 2, 3], np.float32) / np.float32(np.float16(3.0)))
         .astype(np.float16))
    o = xp.asarray(np.arange(6.0) ** 2)   # an operand overlapping x: read before written
    o[1:] -= o[:-1]
    same(host(o), np.array([0.0, 1.0, 3.0, 5.0, 7.0, 9.0]))
    r = xp.asarray(np.arange(4.0))
    r -= r[::-1]
    same(host(r), np.array([-3.0, -1.0, 1.0, 3.0]))
    d = xp.asarray([1.0, 2.0, 3.0, 4.0])   # our ufunc kernel in place
    d[1:] /= d[:-1]
    same(host(d), np.array([1.0, 2.0, 1.5, 4.0 / 3.0], np.float32))
    i = xp.asarray([5, 6], dtype=xp.int32)
    with pytest.raises(TypeError, match="float32"):
        i /= 2
    with pytest.raises(ValueError, match="shape"):
        xp.asarray([1.0])[...].__imul__(xp.asarray([1.0, 2.0]))


def test_reversed_and_strided_views():
    a = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
    x = xp.asarray(a)
    same(host(xp.exp(x[::-1, ::2])), numpy_fn("exp")(a[::-1, ::2]))
    same(host(xp.hypot(x.T, x.T[:, ::-1])), numpy_fn("hypot")(a.T, a.T[:, ::-1]))
    same(host(xp.floor_divide(x[:, ::-1], 2.0)), np.floor_divide(a[:, ::-1], np.float32(2)))


def test_broadcasting_and_errors():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    got = xp.copysign(xp.asarray(a), xp.asarray([-1.0, 1.0, -0.0]))
    same(host(got), np.copysign(a, np.array([-1.0, 1.0, -0.0])))
    with pytest.raises(ValueError):
        xp.atan2(xp.asarray(a), xp.asarray([1.0, 2.0]))
    with pytest.raises(TypeError, match="npu_emu.array_api"):
        xp.exp([1.0, 2.0])
    with pytest.raises(TypeError, match="no promoted dtype"):
        xp.equal(xp.asarray([1], dtype=xp.uint64), xp.asarray([1], dtype=xp.int64))


def test_narrow_results_round_back_through_our_conversion(monkeypatch):
    """bfloat16 / float16: our ufunc kernel computes in float32 and rounds once, in the
    kernel (no core call); the float8 types: converted to float32 and the float32 result
    back by InplaceCopy (our bit-exact conversion), two core calls; float32 needs none."""
    calls = []
    real = _calls.run
    monkeypatch.setattr(_calls, "run", lambda op, *a, **k: (calls.append(op.name),
                                                            real(op, *a, **k))[1])
    x = xp.asarray([0.5, 2.0], dtype=xp.bfloat16)
    got = xp.exp(x)
    assert calls == []
    want = numpy_fn("exp")(np.array([0.5, 2.0], np.float32)).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint16), want.view(np.uint16))
    xp.exp(xp.asarray([0.5, 2.0], dtype=xp.float8_e4m3fn))
    assert calls == ["InplaceCopy", "InplaceCopy"]
    calls.clear()
    xp.exp(xp.asarray([0.5, 2.0]))
    assert calls == []


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_x_to_a_python_2_is_the_correctly_rounded_square(dtype):
    # NumPy squares too (the exact product rounded once): x ** 2, pow(x, 2.0) and x **= 2.
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((40, 7)) * (30 if dtype == np.float16 else 1e3)).astype(dtype)
    a[0, :4] = [0.0, -0.0, np.inf, np.nan]
    want = (a.astype(np.float64) ** 2).astype(dtype) if dtype != np.float64 else a * a
    x = xp.asarray(a)
    for got in (x ** 2, xp.pow(x, 2.0), x[:, ::-1] ** 2):
        assert got.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(x ** 2), want)
    np.testing.assert_array_equal(np.asarray(xp.pow(x, 2.0)), want)
    np.testing.assert_array_equal(np.asarray(x[:, ::-1] ** 2), want[:, ::-1])
    y = xp.asarray(a.copy())
    y **= 2
    np.testing.assert_array_equal(np.asarray(y), want)
    # An array of 2s takes pow: within 1 ulp of the square.
    np.testing.assert_array_max_ulp(np.asarray(x ** xp.asarray(2.0, dtype=x.dtype)), want, 1)


# ------------------------------------------------------------------ result layout

def _element_strides(x) -> tuple[int, ...]:
    """The strides in elements of an array's memory (ours through NumPy's view of it), for
    the axes of more than one element (the others' strides do not matter)."""
    v = np.asarray(x)
    return tuple(s // v.itemsize for n, s in zip(v.shape, v.strides) if n > 1)


_RNG = np.random.default_rng(29)
_A = _RNG.standard_normal((5, 7)).astype(np.float32)
_B = _RNG.standard_normal((7, 5)).astype(np.float32)
_Z = _RNG.standard_normal((3, 4, 6))
_W = _RNG.standard_normal((1, 5, 7)).astype(np.float32)
_ROW = _RNG.standard_normal((1, 5)).astype(np.float32)
_C = _RNG.standard_normal((10, 7))

# (what, ours, NumPy's): each result is laid out as NumPy lays it out (its "K" order): in the
# operands' own order where they agree (broadcast operands aside), row-major where they do not.
_LAYOUT_CASES = [
    ("x.T + 1 (aclnnAdd)", lambda a, b: a.T + 1.0, lambda a, b: a.T + np.float32(1)),
    ("x.T * x.T (aclnnMul)", lambda a, b: a.T * a.T, lambda a, b: a.T * a.T),
    ("x.T / 3 (ufunc kernel)", lambda a, b: a.T / 3.0, lambda a, b: a.T / np.float32(3)),
    ("x.T < 0 (bool result)", lambda a, b: a.T < 0.0, lambda a, b: a.T < 0),
    ("x.T + row (broadcast)", lambda a, b: a.T + b, lambda a, b: a.T + b),
    ("x.T + y (mixed: row-major)", lambda a, b: a.T + b, lambda a, b: a.T + b),
    ("permuted 3-D - 1", lambda a, b: xp.permute_dims(a, (2, 0, 1)) - 1.0,
     lambda a, b: np.transpose(a, (2, 0, 1)) - 1.0),
    ("permuted with a size-1 axis", lambda a, b: xp.permute_dims(a, (2, 0, 1)) * 2.0,
     lambda a, b: np.transpose(a, (2, 0, 1)) * np.float32(2)),
    ("strided x[::2].T + 1", lambda a, b: a[::2].T + 1.0, lambda a, b: a[::2].T + 1.0),
]
_LAYOUT_DATA = [(_A, None), (_A, None), (_A, None), (_A, None), (_A, _ROW), (_A, _B), (_Z, None),
                (_W, None), (_C, None)]


@pytest.mark.parametrize("case, data", list(zip(_LAYOUT_CASES, _LAYOUT_DATA)),
                         ids=[c[0] for c in _LAYOUT_CASES])
def test_an_elementwise_result_is_laid_out_as_numpy_lays_it_out(cpu_backend, case, data):
    what, ours, theirs = case
    a, b = data
    want = theirs(a, b)
    xa, xb = xp.asarray(a), None if b is None else xp.asarray(b)
    for _ in range(3):        # the full path, then the repeated call's short way
        got = ours(xa, xb)
        assert np.array_equal(np.asarray(got), want), what
        assert _element_strides(got) == _element_strides(want), what


def test_a_result_in_its_operands_order_has_the_bits_of_the_row_major_one(cpu_backend):
    """exp and atan2 of transposed operands: the same kernel and bits as on row-major copies
    (the layout changes where results go, not what is computed)."""
    a = _RNG.standard_normal((64, 33)).astype(np.float32)
    x, xc = xp.asarray(a).T, xp.asarray(np.ascontiguousarray(a.T))
    for got, want in ((xp.exp(x), xp.exp(xc)), (xp.atan2(x, x + 1.0), xp.atan2(xc, xc + 1.0))):
        assert np.asarray(got).flags.f_contiguous and np.asarray(want).flags.c_contiguous
        assert np.asarray(got).tobytes(order="C") == np.asarray(want).tobytes(order="C")


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "float8_e4m3fn", "hifloat8",
                                   "float32"])
def test_astype_keeps_its_sources_order_and_the_row_major_bits(cpu_backend, dtype):
    """astype(x.T, ...) through aclnnCast (float64, float16, bfloat16), InplaceCopy's
    conversion (the 8-bit floats) or a copy (float32, x's own dtype): laid out as x.T, as
    NumPy's astype (order "K"), with the bits of the row-major source's conversion."""
    a = _RNG.standard_normal((9, 40)).astype(np.float32) * 8
    x = xp.asarray(a)
    got = xp.astype(x.T, getattr(xp, dtype))
    want = xp.astype(xp.asarray(np.ascontiguousarray(a.T)), getattr(xp, dtype))
    assert _element_strides(got) == _element_strides(a.T.astype(np.float64))
    assert np.asarray(got).tobytes(order="C") == np.asarray(want).tobytes(order="C")


def test_where_lays_out_its_result_as_an_elementwise_function_does(cpu_backend):
    a = _RNG.standard_normal((9, 40)).astype(np.float32)
    b = _RNG.standard_normal((40, 9)).astype(np.float32)
    x, y = xp.asarray(a), xp.asarray(b)
    for ours, want in ((lambda: xp.where(x.T > 0, x.T, 0.0), np.where(a.T > 0, a.T, np.float32(0))),
                       (lambda: xp.where(x.T > 0, x.T, y), np.where(a.T > 0, a.T, b))):
        for _ in range(2):       # again: the short way
            got = ours()
            assert np.array_equal(np.asarray(got), want)
            assert _element_strides(got) == _element_strides(want)


@pytest.mark.parametrize("name", ["ceil", "floor", "trunc", "round", "positive", "conj", "real"])
def test_a_function_that_returns_its_input_copies_it_in_its_order(cpu_backend, name):
    """ceil of an integer, conj of a real, ...: the values, as a copy laid out as any other
    elementwise result of x.T (NumPy's order "K" copy)."""
    a = np.arange(60, dtype=np.int32).reshape(5, 12)
    got = getattr(xp, name)(xp.asarray(a).T)
    assert np.array_equal(np.asarray(got), a.T)
    assert _element_strides(got) == _element_strides(np.array(a.T, order="K"))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_x_to_a_pows_exponent_is_canns_composite(dtype):
    # x ** c with c in {0.5, -0.5, 3, -1, -2}: on the SoCs with CANN's Pows kernel (Ascend910B,
    # the default, Ascend910_93, Ascend310P) that kernel's composite in float32, rounded once
    # to the dtype; elsewhere our pow, the same bits as an array of c.
    from npu_emu.array_api._engine.ufunc import POWS_SOCS
    rng = np.random.default_rng(8)
    v = (rng.standard_normal(600) * 10.0 ** rng.integers(-12, 12, 600)).astype(np.float32)
    v[:10] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 4.0, 1e-40, -3.0]
    with np.errstate(over="ignore"):            # float16 overflows to inf: meant
        host = bf16_bits(v).view(ml_dtypes.bfloat16) if dtype == "bfloat16" else v.astype(dtype)
    v = host.astype(np.float32)                 # the values the dtype holds (exactly)
    width = np.uint32 if dtype == "float32" else np.uint16
    x = xp.asarray(host)
    for soc in ["Ascend910B", "Ascend910_93", "Ascend310P", "Ascend910", "Ascend950"]:
        with xp.soc(soc):
            for c in (0.5, -0.5, 3, -1, -2, -1.0, 3.0):
                got = x ** c
                assert got.dtype == x.dtype
                if soc in POWS_SOCS:
                    with np.errstate(over="ignore"):   # the composite, rounded once
                        ref = pows_reference(c, v if dtype != "float16" else host)
                    want = bf16_bits(ref) if dtype == "bfloat16" else ref.view(width)
                    nan = np.isnan(ref.astype(np.float32))
                    g = np.asarray(got).astype(np.float32)      # exact: a widening
                    assert (np.isnan(g) == nan).all(), (soc, c)
                    np.testing.assert_array_equal(bits(got).view(width)[~nan], want[~nan],
                                                  err_msg=f"{soc} x ** {c}")
                else:
                    same(bits(got), bits(xp.pow(x, xp.full_like(x, c))))
                same(bits(xp.pow(x, c)), bits(got))
                y = xp.asarray(host.copy())
                y **= c
                same(bits(y), bits(got))
    # float64 has no Pows: our pow, whatever the SoC
    d = xp.asarray(v.astype(np.float64))
    same(bits(d ** 3), bits(xp.pow(d, xp.full_like(d, 3.0))))
    assert POWS_SOCS == {"Ascend910B", "Ascend910_93", "Ascend310P"}
