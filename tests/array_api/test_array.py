"""The Array object: attributes, conversions to Python, the operators (values against NumPy,
result dtypes by the array_api rule set), in-place rules, creation functions, namespaces."""
from __future__ import annotations

import math
import operator

import numpy as np
import pytest

import npu_emu.array_api as xp

from ._support import float32_defaults  # noqa: F401 (the fixture)

# These tests were written against the NPU's float32 defaults: they run with that setting
# of the switch (test_defaults.py checks the namespace's own, float64).
pytestmark = pytest.mark.usefixtures("float32_defaults")

array_api_compat = pytest.importorskip("array_api_compat")


def test_namespace_is_found():
    x = xp.asarray([1.0, 2.0])
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2023.12") is xp
    with pytest.raises(ValueError, match="2025.12"):
        x.__array_namespace__(api_version="2026.12")
    assert xp.__array_api_version__ == "2024.12"
    assert array_api_compat.array_namespace(x) is xp
    assert array_api_compat.array_namespace(x, 1.0) is xp
    assert array_api_compat.is_array_api_obj(x)
    assert not array_api_compat.is_numpy_array(x)


def test_the_class_is_not_a_constructor():
    with pytest.raises(TypeError, match="asarray"):
        xp.Array([1, 2])


def test_attributes():
    x = xp.reshape(xp.asarray(np.arange(24, dtype=np.int16)), (2, 3, 4))
    assert (x.dtype, x.shape, x.ndim, x.size) == (xp.int16, (2, 3, 4), 3, 24)
    assert x.device == xp.__array_namespace_info__().default_device()
    assert x.device == str(x.device)
    assert x.mT.shape == (2, 4, 3)
    np.testing.assert_array_equal(np.asarray(x.mT), np.arange(24).reshape(2, 3, 4).transpose(0, 2, 1))
    m = x[0]
    np.testing.assert_array_equal(np.asarray(m.T), np.arange(12).reshape(3, 4).T)
    with pytest.raises(ValueError, match="2-D"):
        _ = x.T
    assert x.to_device(x.device) is x
    assert x.format is x.format.ND
    with pytest.raises(ValueError):
        x.to_device("tpu:0")


def test_repr_shows_values():
    assert repr(xp.asarray([1.5, -2.0])) == "Array([ 1.5, -2. ], dtype=float32)"
    assert repr(xp.asarray([[1, 2]], dtype=xp.uint8)) == "Array([[1, 2]], dtype=uint8)"
    assert repr(xp.zeros((0, 3))) == "Array([], shape=(0, 3), dtype=float32)"
    assert "dtype=bfloat16" in repr(xp.asarray([1.0], dtype=xp.bfloat16))
    assert repr(xp.asarray([2.0], dtype=xp.hifloat8)) == "Array([2.], dtype=hifloat8)"


def test_python_conversions():
    assert bool(xp.asarray(True)) is True and bool(xp.asarray(0.0)) is False
    assert int(xp.asarray(-2.7)) == -2 and float(xp.asarray(3, dtype=xp.int8)) == 3.0
    assert complex(xp.asarray(1 + 2j)) == 1 + 2j
    assert operator.index(xp.asarray(5, dtype=xp.uint16)) == 5
    assert [10, 20, 30][xp.asarray(1)] == 20
    with pytest.raises(TypeError):
        operator.index(xp.asarray(1.0))
    with pytest.raises(TypeError, match="0 dimensions"):
        bool(xp.asarray([True, False]))
    with pytest.raises(TypeError):
        float(xp.asarray(1j))
    with pytest.raises(ValueError):
        int(xp.asarray(math.nan))
    with pytest.raises(OverflowError):
        int(xp.asarray(math.inf))
    assert float(xp.asarray(1.5, dtype=xp.bfloat16)) == 1.5
    # each dtype's element read at its place: views at an offset, reversed, the result of
    # queued work, the extremes of the integers
    x = xp.asarray(np.arange(10.0) - 4.5)
    assert float(x[7]) == 2.5 and float(xp.flip(x)[0]) == 4.5 and float(xp.sum(x)) == 0.0
    assert int(xp.asarray(np.iinfo(np.uint64).max, dtype=xp.uint64)) == 2**64 - 1
    assert int(xp.asarray([0, np.iinfo(np.int64).min], dtype=xp.int64)[1]) == -2**63
    assert float(xp.asarray([0.0, 0.333], dtype=xp.float16)[1]) == float(np.float16(0.333))
    assert complex(xp.asarray([0j, 1.5 - 2j], dtype=xp.complex64)[1]) == 1.5 - 2j
    assert bool(xp.asarray([True, False])[1]) is False and int(xp.asarray([7], dtype=xp.int8)[0]) == 7


def test_len_and_iteration():
    x = xp.asarray([[1, 2], [3, 4], [5, 6]])
    assert len(x) == 3
    assert [int(r[1]) for r in x] == [2, 4, 6]
    with pytest.raises(TypeError):
        len(xp.asarray(1))
    with pytest.raises(TypeError):
        iter(xp.asarray(1))


RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((4,)).astype(np.float32) + 3   # no zeros: divisions are fine
I = RNG.integers(-50, 50, (3, 4)).astype(np.int32)
J = RNG.integers(1, 7, (4,)).astype(np.int32)

ARITHMETIC = [("+", operator.add), ("-", operator.sub), ("*", operator.mul),
              ("/", operator.truediv), ("//", operator.floordiv), ("%", operator.mod),
              ("**", operator.pow)]
COMPARISONS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
BITWISE = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]


@pytest.mark.parametrize("symbol, op", ARITHMETIC)
def test_float_arithmetic(symbol, op):
    a, b = np.abs(A) + 1, B
    got = op(xp.asarray(a), xp.asarray(b))
    assert got.dtype == xp.float32
    np.testing.assert_allclose(np.asarray(got), op(a, b), rtol=2e-6)
    # reflected with a Python scalar, and NumPy on the left (NumPy defers to us)
    np.testing.assert_allclose(np.asarray(op(2.5, xp.asarray(a))), op(np.float32(2.5), a), rtol=2e-6)
    assert isinstance(op(a, xp.asarray(b)), xp.Array)


@pytest.mark.parametrize("symbol, op", [x for x in ARITHMETIC if x[0] != "/"])
def test_integer_arithmetic(symbol, op):
    a, b = I, J
    got = op(xp.asarray(a), xp.asarray(b))
    assert got.dtype == xp.int32
    np.testing.assert_array_equal(np.asarray(got), op(a, b))


def test_true_division_of_integers_gives_the_default_float():
    got = xp.asarray(I) / xp.asarray(J)
    assert got.dtype == xp.float32
    np.testing.assert_allclose(np.asarray(got), I.astype(np.float32) / J.astype(np.float32))


@pytest.mark.parametrize("op", COMPARISONS)
def test_comparisons(op):
    a = np.array([[1.0, 2.0, np.nan], [3.0, -1.0, 2.0]], dtype=np.float32)
    b = np.array([2.0, 2.0, np.nan], dtype=np.float32)
    got = op(xp.asarray(a), xp.asarray(b))
    assert got.dtype == xp.bool
    np.testing.assert_array_equal(np.asarray(got), op(a, b))
    np.testing.assert_array_equal(np.asarray(op(xp.asarray(a), 2)), op(a, 2))


def test_equality_with_other_objects():
    x = xp.asarray([1, 2])
    assert (x == "a") is False and (x != None) is True  # noqa: E711
    with pytest.raises(TypeError):
        hash(x)


@pytest.mark.parametrize("op", BITWISE)
def test_bitwise(op):
    a = np.array([[0b1010, -3, 7]], dtype=np.int16)
    b = np.array([0b0110, 2, 1], dtype=np.int16)
    np.testing.assert_array_equal(np.asarray(op(xp.asarray(a), xp.asarray(b))), op(a, b))


def test_bitwise_on_bools_and_unary():
    t = np.array([True, False, True])
    f = np.array([False, False, True])
    np.testing.assert_array_equal(np.asarray(xp.asarray(t) & xp.asarray(f)), t & f)
    np.testing.assert_array_equal(np.asarray(~xp.asarray(t)), ~t)
    np.testing.assert_array_equal(np.asarray(~xp.asarray(I)), ~I)
    np.testing.assert_array_equal(np.asarray(-xp.asarray(I)), -I)
    np.testing.assert_array_equal(np.asarray(+xp.asarray(I)), I)
    np.testing.assert_array_equal(np.asarray(abs(xp.asarray(I))), np.abs(I))
    c = np.array([3 + 4j, -1j], dtype=np.complex64)
    got = abs(xp.asarray(c))
    assert got.dtype == xp.float32
    np.testing.assert_array_equal(np.asarray(got), np.abs(c))


def test_dtype_categories_are_checked():
    with pytest.raises(TypeError, match="integer or boolean"):
        xp.asarray([1.0]) & xp.asarray([2.0])
    with pytest.raises(TypeError, match="real numeric"):
        xp.asarray([1j]) < xp.asarray([2j])
    with pytest.raises(TypeError, match="numeric"):
        xp.asarray([True]) + xp.asarray([False])
    with pytest.raises(TypeError, match="numeric"):
        -xp.asarray([True])
    with pytest.raises(TypeError, match="no promoted dtype"):
        xp.asarray([1], dtype=xp.uint64) + xp.asarray([1], dtype=xp.int64)


def test_mixed_dtypes_follow_the_rule_set():
    f16 = xp.asarray([1.5, 2.0], dtype=xp.float16)
    assert (f16 + xp.asarray([1.0, 1.0])).dtype == xp.float32          # f16 + f32 -> f32
    assert (f16 + xp.asarray([1, 2], dtype=xp.int32)).dtype == xp.float16  # the NPU's table
    assert (xp.asarray([1], dtype=xp.int8) * xp.asarray([200], dtype=xp.uint8)).dtype == xp.int16
    got = xp.asarray([7], dtype=xp.uint16) - xp.asarray([9], dtype=xp.int32)
    assert got.dtype == xp.int32 and int(got[0]) == -2                  # the standard's u16+s32


def test_python_scalars():
    x = xp.asarray([1, 2, 3], dtype=xp.int8)
    assert (x + 1).dtype == xp.int8 and (2 * x).dtype == xp.int8
    assert (x + 1.5).dtype == xp.float32          # int array + float: the NPU table's answer
    np.testing.assert_array_equal(np.asarray(x + 1.5), [2.5, 3.5, 4.5])
    assert (xp.asarray([1.0], dtype=xp.float16) + 1).dtype == xp.float16
    assert (xp.asarray([True]) + 1).dtype == xp.int64
    with pytest.raises(OverflowError):
        x + 1000
    with pytest.raises(TypeError):
        x + "1"
    with pytest.raises(TypeError, match="no promoted dtype"):
        xp.asarray([1], dtype=xp.uint16) + 1.5    # the NPU has no uint16 + float32
    assert isinstance(np.float32(2) * xp.asarray([1.0]), xp.Array)


def test_inplace_operators_keep_dtype_and_memory():
    h = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    x = xp.asarray(h)
    x += 1
    x *= xp.asarray([2.0, 2.0, 2.0])
    x -= 0.5
    x /= 2
    x **= 2
    np.testing.assert_allclose(h, (((np.array([1, 2, 3]) + 1) * 2 - 0.5) / 2) ** 2)
    i = xp.asarray([7, 8], dtype=xp.int32)
    i //= 2
    i %= 3
    i <<= 1
    i |= 1
    np.testing.assert_array_equal(np.asarray(i), [(((7 // 2) % 3) << 1) | 1, (((8 // 2) % 3) << 1) | 1])


def test_inplace_refuses_a_dtype_or_shape_change():
    x = xp.asarray([1, 2], dtype=xp.int8)
    with pytest.raises(TypeError, match="keeps x's dtype"):
        x += xp.asarray([1, 2], dtype=xp.int16)
    with pytest.raises(TypeError, match="keeps x's dtype"):
        x /= 2
    with pytest.raises(ValueError, match="keeps x's shape"):
        x += xp.ones((3, 2), dtype=xp.int8)
    x += xp.asarray([True, False])         # bool promotes into int8
    np.testing.assert_array_equal(np.asarray(x), [2, 2])


def test_inplace_matmul():
    a = xp.asarray(np.eye(2, dtype=np.float32) * 2)
    a @= xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(np.asarray(a), [[2, 4], [6, 8]])
    with pytest.raises(ValueError, match="shape"):
        a @= xp.ones((2, 3))


def test_matmul_operator():
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((4, 5))
    got = xp.asarray(a, dtype=xp.float64) @ xp.asarray(b, dtype=xp.float64)
    np.testing.assert_allclose(np.asarray(got), a @ b)
    with pytest.raises(TypeError):
        xp.asarray([1.0]) @ 2.0


def test_broadcasting_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"\[2,3\].*\[4\]|\[4\].*\[2,3\]"):
        xp.ones((2, 3)) + xp.ones(4)


# --------------------------------------------------------------------- creation

def test_creation_functions():
    z = xp.zeros((2, 3), dtype=xp.int16)
    assert z.dtype == xp.int16 and not np.asarray(z).any()
    o = xp.ones(4, dtype=xp.bfloat16)
    assert np.asarray(o).tolist() == [1, 1, 1, 1]
    f = xp.full((2, 2), 7, dtype=xp.uint64)
    np.testing.assert_array_equal(np.asarray(f), np.full((2, 2), 7, dtype=np.uint64))
    assert xp.full(3, 2.5).dtype == xp.float32
    assert xp.full(3, True).dtype == xp.bool and bool(xp.full((), True))
    assert xp.full(2, 1j).dtype == xp.complex64
    assert xp.ones(2, dtype=xp.bool).dtype == xp.bool and bool(xp.ones((), dtype=xp.bool))
    like = xp.full_like(z, -1)
    assert like.shape == (2, 3) and like.dtype == xp.int16 and int(like[1, 2]) == -1
    assert xp.zeros_like(o).dtype == xp.bfloat16
    assert xp.ones_like(z, dtype=xp.float16).dtype == xp.float16
    assert xp.empty_like(z).shape == (2, 3)
    assert xp.empty((0, 2)).shape == (0, 2)
    with pytest.raises(TypeError, match="fit"):
        xp.full(2, 1.5, dtype=xp.int32)
    with pytest.raises(OverflowError):
        xp.full(2, 300, dtype=xp.int8)
    with pytest.raises(ValueError):
        xp.zeros((-1, 2))


def test_full_converts_like_the_npu():
    # fill values convert as the cast kernels do: float64 -> float16 through float32
    v = 1 + 2 ** -11 + 2 ** -40          # rounds up to f16 once, but to 1.0 through f32
    assert float(xp.full((), v, dtype=xp.float16)) == 1.0
    assert np.asarray(xp.full(2, 1 / 3, dtype=xp.bfloat16)).tolist() == \
        [float(np.float32(1 / 3).astype(np.float32).astype(np.dtype("bfloat16")))] * 2


def test_asarray_python_data():
    x = xp.asarray([[1, 2], [3, 4]])
    assert x.dtype == xp.int64 and x.shape == (2, 2)
    assert xp.asarray([[1.0, 2], [3, 4]]).dtype == xp.float32
    assert xp.asarray([1, 2], dtype=xp.float16).dtype == xp.float16
    assert xp.asarray(3).shape == ()
    with pytest.raises(OverflowError):
        xp.asarray([2 ** 64])
    with pytest.raises(OverflowError):
        xp.asarray([2 ** 63])
    assert int(xp.asarray([2 ** 63], dtype=xp.uint64)[0]) == 2 ** 63
    with pytest.raises(TypeError):
        xp.asarray(["a"])
    with pytest.raises(TypeError, match="complex"):
        xp.asarray([1j], dtype=xp.float32)
    assert xp.asarray(np.float64(2.5)).dtype == xp.float64     # a NumPy scalar keeps its dtype
    assert xp.asarray(np.int8(-3)).dtype == xp.int8
    with pytest.raises(ValueError, match="copied"):
        xp.asarray([1, 2], copy=False)


def test_asarray_of_an_array():
    x = xp.asarray([1.0, 2.0])
    assert xp.asarray(x) is x
    c = xp.asarray(x, copy=True)
    c[0] = 5
    assert float(x[0]) == 1.0
    assert xp.asarray(x, dtype=xp.float16).dtype == xp.float16
    with pytest.raises(ValueError):
        xp.asarray(x, dtype=xp.float16, copy=False)


@pytest.mark.parametrize("name", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64", "float32", "float64"])
def test_python_conversions_of_0d_arrays_read_the_element_exactly(name):
    """bool(), int(), float() and operator.index of a 0-d array (read on the host by its C
    type): the element itself, as NumPy's item() gives it, at the dtype's extremes, signed
    zeros, subnormals, infinities and NaN."""
    dt = np.dtype(name)
    if dt.kind == "b":
        values = [True, False]
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        values = [info.min, info.max, 0, 1, info.max // 3]
    else:
        info = np.finfo(dt)
        values = [-0.0, 0.0, info.max, -info.max, info.smallest_subnormal, info.tiny,
                  np.inf, -np.inf, np.nan, 0.1]
    for v in values:
        a = np.asarray(v, dtype=dt)
        x = xp.asarray(a)
        assert bool(x) == bool(a.item())
        if dt.kind == "f":
            got = float(x)
            assert type(got) is float
            assert np.asarray(got).tobytes() == np.asarray(a.item(), np.float64).tobytes()
            if np.isfinite(a):
                assert int(x) == int(a.item())
        else:
            assert int(x) == int(a.item()) and float(x) == float(a.item())
            if dt.kind == "b":
                with pytest.raises(TypeError, match="integer"):
                    operator.index(x)
            else:
                assert operator.index(x) == int(a.item())
