"""The default dtypes are a switch: float64 / complex128 by default (NumPy's, which SciPy and
scikit-learn assume), float32 / complex64 by set_default_dtypes or NPU_EMU_DEFAULT_FLOAT,
reported by __array_namespace_info__().default_dtypes(). The reference is NumPy 2's dtype for
the same Python data, and CANN's refusal of float64 by Expand."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import npu_emu.array_api as xp


@pytest.fixture(autouse=True)
def _cpu_and_restore(cpu_backend):
    before = xp.__array_namespace_info__().default_dtypes()
    yield
    xp.set_default_dtypes(real_floating=before["real floating"])


def test_the_default_is_numpys():
    info = xp.__array_namespace_info__()
    assert info.default_dtypes() == {"real floating": xp.float64,
                                     "complex floating": xp.complex128,
                                     "integral": xp.int64, "indexing": xp.int64}
    for data in (1.5, [1.0, 2], [[1j, 2]], 2.0 + 0j):
        assert xp.asarray(data).dtype.name == np.asarray(data).dtype.name
    assert xp.zeros(3).dtype == xp.ones((2, 2)).dtype == xp.empty(1).dtype == xp.float64
    assert xp.full(2, 2.5).dtype == xp.linspace(0, 1, 3).dtype == xp.arange(0.5, 2).dtype \
        == xp.eye(2).dtype == xp.float64
    assert (xp.asarray([1, 2]) / xp.asarray([2, 4])).dtype == xp.float64
    assert xp.mean(xp.asarray([1, 2, 4])).dtype == xp.float64
    assert xp.fft.fftfreq(4).dtype == xp.float64


def test_zeros_then_add_float64_in_place():
    # scikit-learn's CalibratedClassifierCV: xp.zeros(...) then += a float64 array.
    acc = xp.zeros(3)
    acc += xp.asarray(np.array([0.25, 0.5, 1.0]))
    np.testing.assert_array_equal(np.asarray(acc), [0.25, 0.5, 1.0])


def test_operators_without_float64_keep_refusing_it_with_canns_message():
    with pytest.raises(TypeError, match="not implemented for DT_DOUBLE"):
        xp.expand(xp.asarray([1.0, 2.0]), (3, 2))
    got = xp.expand(xp.asarray([1.0, 2.0], dtype=xp.float32), (3, 2))
    assert got.dtype == xp.float32 and got.shape == (3, 2)


def test_the_switch():
    before = xp.set_default_dtypes(real_floating=xp.float32)
    assert before["real floating"] == xp.float64
    info = xp.__array_namespace_info__()
    assert info.default_dtypes()["real floating"] == xp.float32
    assert info.default_dtypes()["complex floating"] == xp.complex64     # follows
    assert xp.asarray(1.5).dtype == xp.float32 and xp.asarray(1j).dtype == xp.complex64
    assert xp.zeros(2).dtype == xp.float32
    xp.set_default_dtypes(complex_floating="complex128")
    assert info.default_dtypes()["real floating"] == xp.float64
    xp.set_default_dtypes(real_floating="float32", complex_floating=xp.complex64)
    assert xp.asarray([0.5]).dtype == xp.float32


def test_repeated_calls_follow_the_switch():
    """A call made again takes the short way (repeat), which must not hand back a result
    dtype decided under the other default: integer division (one launch of true_divide in
    float64, else the default float's divide), mean and exp of integers, each made twice
    before and after each switch, with NumPy's values."""
    a, b = np.array([1, 2, 7, -4], dtype=np.int32), np.array([3, 3, 2, 5], dtype=np.int32)
    x, y = xp.asarray(a), xp.asarray(b)
    for default in (xp.float64, xp.float32, xp.float64):
        xp.set_default_dtypes(real_floating=default)
        host = np.float64 if default == xp.float64 else np.float32
        for _ in range(2):
            got = x / y
            assert got.dtype == default
            np.testing.assert_array_equal(np.asarray(got), a.astype(host) / b.astype(host))
            assert xp.mean(x).dtype == default and xp.exp(x).dtype == default


@pytest.mark.parametrize("kw, err", [
    ({}, TypeError), ({"real_floating": xp.float16}, ValueError),
    ({"real_floating": xp.float32, "complex_floating": xp.complex128}, ValueError),
    ({"real_floating": "float"}, TypeError), ({"complex_floating": xp.int64}, ValueError)])
def test_the_switch_refuses_other_dtypes(kw, err):
    with pytest.raises(err):
        xp.set_default_dtypes(**kw)
    assert xp.__array_namespace_info__().default_dtypes()["real floating"] == xp.float64


def test_the_environment_variable():
    code = ("import npu_emu.array_api as xp; d = xp.__array_namespace_info__()."
            "default_dtypes(); print(d['real floating'], d['complex floating'], "
            "xp.asarray(1.5).dtype)")
    for value, want in (("float32", "float32 complex64 float32"),
                        ("float64", "float64 complex128 float64")):
        env = dict(os.environ, NPU_EMU_DEFAULT_FLOAT=value, NPU_EMU_DEVICE="cpu")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == want.split()
    env = dict(os.environ, NPU_EMU_DEFAULT_FLOAT="half", NPU_EMU_DEVICE="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode != 0 and "NPU_EMU_DEFAULT_FLOAT='half'" in out.stderr
