"""The fft extension against numpy.fft: every transform with n / s, axis / axes and the three
norms, the standard's dtypes (single precision stays single; the narrow floats compute in
float32 and give complex64), special values, the frequencies' dtypes and the shifts."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu.array_api import fft as F

from ._support import float32_defaults  # noqa: F401 (the fixture)

# These tests were written against the NPU's float32 defaults: they run with that setting
# of the switch (test_defaults.py checks the namespace's own, float64).
pytestmark = pytest.mark.usefixtures("float32_defaults")

RNG = np.random.default_rng(13)
NORMS = ["backward", "ortho", "forward"]
COMPLEX_IN = ["fft", "ifft", "irfft", "hfft"]
REAL_IN = ["rfft", "ihfft"]
TOL = {np.dtype("complex64"): 2e-5, np.dtype("float32"): 2e-5,
       np.dtype("complex128"): 1e-12, np.dtype("float64"): 1e-12}


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


def signal(shape, dtype) -> np.ndarray:
    a = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def close(got: xp.Array, ref: np.ndarray) -> None:
    assert isinstance(got, xp.Array)
    assert got.shape == ref.shape and got.dtype.name == ref.dtype.name, (got.dtype, ref.dtype)
    tol = TOL[ref.dtype]
    np.testing.assert_allclose(np.asarray(got), ref, rtol=tol, atol=tol * np.abs(ref).max())


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", COMPLEX_IN)
def test_complex_input_transforms(name, dtype, norm):
    x = signal((3, 8), dtype)
    for kw in ({}, {"n": 5}, {"n": 12, "axis": 0}):
        close(getattr(F, name)(xp.asarray(x), norm=norm, **kw),
              getattr(np.fft, name)(x, norm=norm, **kw))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", REAL_IN)
def test_real_input_transforms(name, dtype, norm):
    x = signal((4, 7), dtype)
    for kw in ({}, {"n": 6}, {"n": 9, "axis": -2}):
        close(getattr(F, name)(xp.asarray(x), norm=norm, **kw),
              getattr(np.fft, name)(x, norm=norm, **kw))


@pytest.mark.parametrize("norm", NORMS)
def test_n_dimensional_transforms(norm):
    c, r = signal((3, 4, 6), "complex128"), signal((3, 4, 6), "float32")
    for axes, s in ((None, None), ([0, 2], None), ([2, 0], [5, 3]), ([1], [-1])):
        np_s = None if s is None else [r.shape[a] if n == -1 else n for a, n in zip(axes, s)]
        for name, x in (("fftn", c), ("ifftn", c), ("rfftn", r)):
            close(getattr(F, name)(xp.asarray(x), s=s, axes=axes, norm=norm),
                  getattr(np.fft, name)(x, s=np_s, axes=axes, norm=norm))
    # irfftn: s[-1] = -1 means the default output size of the last axis, 2 * (m - 1).
    close(F.irfftn(xp.asarray(c), s=[4, -1], axes=[0, 2], norm=norm),
          np.fft.irfftn(c, s=[4, 10], axes=[0, 2], norm=norm))
    close(F.irfftn(xp.asarray(c.astype(np.complex64)), norm=norm),
          np.fft.irfftn(c.astype(np.complex64), norm=norm))


def test_round_trips():
    x = signal((5, 16), "complex64")
    close(F.ifft(F.fft(xp.asarray(x))), x)
    r = signal((16,), "float64")
    close(F.irfft(F.rfft(xp.asarray(r)), n=16), r)
    close(F.ifftn(F.fftn(xp.asarray(x), norm="ortho"), norm="ortho"), x)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn])
def test_narrow_floats_compute_in_float32(dtype):
    x = signal((2, 10), "float32").astype(dtype)
    ref = np.fft.rfft(x.astype(np.float32))
    got = F.rfft(xp.asarray(x))
    assert got.dtype == xp.complex64
    np.testing.assert_array_equal(np.asarray(got), ref)
    np.testing.assert_array_equal(np.asarray(F.ihfft(xp.asarray(x))),
                                  np.fft.ihfft(x.astype(np.float32)))


def test_special_values_propagate():
    x = np.array([1.0, np.inf, 0.0, -0.0], np.complex128)
    np.testing.assert_array_equal(np.asarray(F.fft(xp.asarray(x))), np.fft.fft(x))
    y = np.array([np.nan, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.asarray(F.rfft(xp.asarray(y))), np.fft.rfft(y))


def test_views_are_read_in_place():
    x = signal((6, 8), "complex128")
    close(F.fft(xp.asarray(x)[::-2, 1::2], axis=0), np.fft.fft(x[::-2, 1::2], axis=0))


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies(name):
    for n, d in ((1, 1.0), (8, 0.1), (9, 2.5)):
        ref = getattr(np.fft, name)(n, d)
        close(getattr(F, name)(n, d=d), ref.astype(np.float32))   # the default float
        close(getattr(F, name)(n, d=d, dtype=xp.float64), ref)
        got = getattr(F, name)(n, d=d, dtype=xp.float16,
                               device=xp.__array_namespace_info__().default_device())
        np.testing.assert_array_equal(np.asarray(got), ref.astype(np.float32).astype(np.float16))
    with pytest.raises(ValueError, match="real floating"):
        getattr(F, name)(4, dtype=xp.int32)
    with pytest.raises(ValueError, match="at least 1"):
        getattr(F, name)(0)
    with pytest.raises(ZeroDivisionError, match="d=0.0"):      # as NumPy's, named
        getattr(F, name)(4, d=0.0)


@pytest.mark.parametrize("dtype", ["float32", "complex128", "int16"])
def test_shifts(dtype):
    x = signal((5, 6, 3), dtype) if dtype != "int16" else np.arange(90, dtype=dtype).reshape(5, 6, 3)
    for axes in (None, 1, [0, 2], (-1,)):
        np.testing.assert_array_equal(np.asarray(F.fftshift(xp.asarray(x), axes=axes)),
                                      np.fft.fftshift(x, axes=axes))
        np.testing.assert_array_equal(np.asarray(F.ifftshift(xp.asarray(x), axes=axes)),
                                      np.fft.ifftshift(x, axes=axes))
    back = F.ifftshift(F.fftshift(xp.asarray(x)))
    assert back.dtype.name == dtype
    np.testing.assert_array_equal(np.asarray(back), x)


def test_refusals():
    c, r = xp.asarray(signal((8,), "complex64")), xp.asarray(signal((8,), "float32"))
    for name in ("fft", "ifft", "irfft", "hfft", "fftn", "ifftn", "irfftn"):
        with pytest.raises(TypeError, match="complex floating-point"):
            getattr(F, name)(r)
    for name in ("rfft", "ihfft", "rfftn"):
        with pytest.raises(TypeError, match="real floating-point"):
            getattr(F, name)(c)
    with pytest.raises(ValueError, match="norm"):
        F.fft(c, norm="none")
    with pytest.raises(ValueError, match="n=0"):
        F.fft(c, n=0)
    with pytest.raises(ValueError, match="needs axes"):
        F.fftn(c, s=[4])
    with pytest.raises(ValueError, match="2 sizes for 1 axes"):
        F.fftn(c, s=[4, 4], axes=[0])
    with pytest.raises(IndexError, match="out of range"):
        F.fft(c, axis=1)
    with pytest.raises(ValueError, match="0-d"):
        F.fft(xp.asarray(np.complex64(1)))


def test_signatures_follow_the_table():
    import inspect
    for name, spec in F.TRANSFORMS.items():
        params = list(inspect.signature(getattr(F, name)).parameters)
        assert params == (["x", "s", "axes", "norm"] if spec.nd else ["x", "n", "axis", "norm"])
    assert sorted(F.__all__) == sorted([*F.TRANSFORMS, "fftfreq", "rfftfreq", "fftshift",
                                        "ifftshift"])
