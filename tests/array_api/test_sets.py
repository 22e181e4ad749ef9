"""The unique_* functions against NumPy's unique: sorted values with first-occurrence indices,
inverse indices of x's shape that rebuild it, counts; every NaN distinct, -0.0 and 0.0 one
value (the first one's bits), for the standard's dtypes and the NPU's narrow floats."""
from __future__ import annotations

import numpy as np
import pytest

import npu_emu.array_api as xp

from ._support import ALL, FLOATS, as_float, bits, make, sample, values

RNG = np.random.default_rng(15)


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


@pytest.mark.parametrize("dtype", ALL)
def test_unique_all_matches_numpy(dtype):
    x = sample(dtype, (4, 5), RNG)
    host = as_float(values(x)).reshape(-1)
    want = np.unique(host, return_index=True, return_inverse=True, return_counts=True)
    got = xp.unique_all(x)
    assert got.values.dtype == x.dtype
    assert all(a.dtype == xp.int64 for a in got[1:])
    np.testing.assert_array_equal(as_float(values(got.values)), want[0])
    np.testing.assert_array_equal(values(got.indices), want[1])
    assert got.inverse_indices.shape == x.shape
    np.testing.assert_array_equal(values(got.inverse_indices).reshape(-1), want[2])
    np.testing.assert_array_equal(values(got.counts), want[3])
    # The others return the same parts.
    counts = xp.unique_counts(x)
    np.testing.assert_array_equal(bits(counts.values), bits(got.values))
    np.testing.assert_array_equal(values(counts.counts), want[3])
    inverse = xp.unique_inverse(x)
    np.testing.assert_array_equal(values(inverse.inverse_indices),
                                  values(got.inverse_indices))
    np.testing.assert_array_equal(bits(xp.unique_values(x)), bits(got.values))


@pytest.mark.parametrize("dtype", FLOATS + ["complex128"])
def test_nans_are_distinct_and_signed_zeros_are_one(dtype):
    v = np.array([np.nan, -0.0, 1.5, np.nan, 0.0, 1.5, -0.0])
    if dtype == "complex128":
        v = v + np.array([0, 0, 0, 0, 0, 0, 0]) * 1j
        v[3] = complex(1.0, np.nan)            # a NaN part: distinct too
    x = make(v, dtype)
    u = xp.unique_all(x)
    host = as_float(values(u.values))
    assert len(host) == 4                       # -0.0 (x2) / 0.0, 1.5, and each NaN
    nan = np.isnan(host)
    assert nan.sum() == 2
    np.testing.assert_array_equal(values(u.counts)[nan], [1, 1])
    zero = int(np.flatnonzero(host == 0)[0])
    assert int(u.counts[zero]) == 3 and int(u.indices[zero]) == 1
    # The zero kept is x's first one: -0.0, sign bit and all.
    np.testing.assert_array_equal(bits(u.values)[zero], bits(x)[1])
    # inverse_indices rebuild x (as values: the zeros all read the kept one).
    rebuilt = as_float(values(u.values))[values(u.inverse_indices)]
    same = (rebuilt == as_float(values(x))) | (np.isnan(rebuilt) & np.isnan(as_float(values(x))))
    assert same.all()


@pytest.mark.parametrize("first_zero", [0.0, -0.0])
@pytest.mark.parametrize("dtype", FLOATS + ["complex64", "int16"])
def test_unique_on_many_duplicates_signed_zeros_and_nan_payloads(dtype, first_zero):
    """The fast sorts (NumPy's introsort and argsort, which may reorder equal elements) give
    np.unique's stable answers: first occurrences, inverse, counts, and x's own bits at each
    first occurrence (the first zero's sign, each NaN's payload, in x's order); on a few
    draws, since where the fast sort leaves equal elements depends on the data."""
    for seed in range(43, 49):
        rng = np.random.default_rng(seed)
        pool = np.array([-0.0, 0.0, np.nan, -np.nan, 1.5, -2.0, 3.25, np.inf])
        v = rng.choice(pool, 3000) if dtype != "int16" else rng.integers(-5, 5, 3000)
        v[0] = first_zero           # x's first zero, either sign: the one unique keeps
        x = make(v.reshape(50, 60), dtype)
        raw = x._raw()
        word = raw.view(f"u{raw.itemsize}")
        nan = np.isnan(as_float(values(x)))
        if raw.itemsize > 1 and nan.any():      # other NaN payloads (low mantissa bits)
            word[nan] ^= rng.integers(0, 4, nan.sum()).astype(word.dtype)
        host = as_float(values(x)).reshape(-1)
        want = np.unique(host, return_index=True, return_inverse=True, return_counts=True,
                         equal_nan=False)
        got = xp.unique_all(x)
        np.testing.assert_array_equal(values(got.indices), want[1])
        np.testing.assert_array_equal(values(got.inverse_indices).reshape(-1),
                                      want[2].reshape(-1))
        np.testing.assert_array_equal(values(got.counts), want[3])
        first = bits(x).reshape(-1)[want[1]]
        np.testing.assert_array_equal(bits(got.values), first)
        counted = xp.unique_counts(x)
        np.testing.assert_array_equal(bits(counted.values), first)
        np.testing.assert_array_equal(values(counted.counts), want[3])
        np.testing.assert_array_equal(bits(xp.unique_values(x)), first)


def test_unique_of_0d_and_empty_arrays():
    u = xp.unique_all(xp.asarray(3))
    assert u.values.shape == (1,) and u.inverse_indices.shape == ()
    e = xp.unique_counts(xp.zeros((0, 2)))
    assert e.values.shape == (0,) and e.counts.shape == (0,)
    with pytest.raises(TypeError):
        xp.unique_values([1, 2])
