"""Promotion through the namespace's operations: every pair of the standard's dtypes for
which the 2024.12 standard requires a result gets it from result_type, the operators and
comparisons alike (the standard's rules: test_dtypes.standard_promotion); the NPU's own
rules decide where the standard is silent. float64 with complex64 is checked against NumPy 2
(complex128) on our Add and Mul kernels and on the library path."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import npu_emu.array_api as xp

from .test_dtypes import STANDARD, standard_promotion


@pytest.fixture(autouse=True)
def _cpu(cpu_backend):
    yield cpu_backend


REQUIRED = [(a, b) for a, b in itertools.product(STANDARD, STANDARD)
            if standard_promotion(a, b) is not None]


def test_the_standard_requires_73_results():
    # bool; 4 x 4 signed; 4 x 4 unsigned; 12 mixed pairs, both orders; 4 x 4 floating
    assert len(REQUIRED) == 1 + 16 + 16 + 24 + 16


@pytest.mark.parametrize("a, b", REQUIRED)
def test_every_required_result(a, b):
    want = getattr(xp, standard_promotion(a, b))
    assert xp.result_type(getattr(xp, a), getattr(xp, b)) == want
    x, y = xp.ones(2, dtype=getattr(xp, a)), xp.ones(2, dtype=getattr(xp, b))
    assert xp.where(x == y, x, y).dtype == want
    if a != "bool":
        assert (x + y).dtype == want and (x * y).dtype == want


def test_float64_with_complex64_computes_in_complex128():
    f = np.array([1.0 + 2.0**-40, -3.25, 1e300])
    c = np.array([1 + 1j, 2 - 0.5j, 0.1 + 0.2j], np.complex64)
    for got, want in ((xp.asarray(f) + xp.asarray(c), f + c),          # our Add kernel
                      (xp.asarray(c) * xp.asarray(f), c * f),          # our Mul kernel
                      (xp.asarray(f) / xp.asarray(c), f / c)):         # the library
        assert got.dtype == xp.complex128 and want.dtype == np.complex128
        np.testing.assert_array_equal(np.asarray(got), want)
    assert xp.can_cast(xp.complex64, xp.complex128) and not xp.can_cast(xp.float64,
                                                                           xp.complex64)


def test_the_npu_decides_where_the_standard_is_silent():
    assert xp.result_type(xp.int32, xp.float16) == xp.float16          # mixed kinds
    assert xp.result_type(xp.bool, xp.float32) == xp.float32
    assert xp.result_type(xp.bfloat16, xp.float16) == xp.float32       # NPU dtypes
    for a, b in ((xp.uint64, xp.int8), (xp.uint16, xp.float32), (xp.hifloat8, xp.float32)):
        with pytest.raises(TypeError):
            xp.result_type(a, b)


@pytest.mark.parametrize("default", ["float64", "float32"])
@pytest.mark.parametrize("name, want", [("float16", "complex64"), ("float32", "complex64"),
                                        ("float64", "complex128")])
def test_a_complex_scalar_takes_the_arrays_precision(name, want, default):
    """2024.12: a Python complex beside a real floating array is the complex dtype of the
    array's precision, whatever the default dtypes (float32 * 1j is complex64, as
    array_api_strict and NumPy give; SciPy's complex64 paths depend on it)."""
    previous = xp.__array_namespace_info__().default_dtypes()
    xp.set_default_dtypes(real_floating=getattr(xp, default))
    try:
        a = xp.asarray([1.5, -2.0], dtype=getattr(xp, name))
        for got in (1j * a, a * 1j, a + (2 - 1j), xp.multiply(a, 1j)):
            assert got.dtype == getattr(xp, want)
        assert xp.result_type(a, 1j) == getattr(xp, want)
        assert np.asarray(a * 1j).tolist() == [1.5j, -2j]
    finally:
        xp.set_default_dtypes(real_floating=previous["real floating"])
