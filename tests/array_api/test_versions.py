"""The standard the namespace follows is selectable, as array_api_strict's: 2024.12 by
default, 2025.12 by set_api_version, __array_namespace__(api_version=...) or
NPU_EMU_ARRAY_API_VERSION. 2025.12 returns tuples from meshgrid, broadcast_arrays and
devices(), and adds isin, broadcast_shapes, linalg.eig and linalg.eigvals (here at both
versions). The reference for values is NumPy 2."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import npu_emu.array_api as xp


@pytest.fixture(autouse=True)
def _cpu_and_restore(cpu_backend):
    before = xp.__array_api_version__
    yield
    xp.set_api_version(before)


def test_selecting_the_version():
    x = xp.asarray([1.0])
    assert xp.__array_api_version__ == "2024.12"
    info = xp.__array_namespace_info__()
    assert isinstance(xp.meshgrid(x, x), list) and isinstance(xp.broadcast_arrays(x), list)
    assert isinstance(info.devices(), list)
    assert x.__array_namespace__(api_version="2025.12") is xp
    assert xp.__array_api_version__ == "2025.12"
    assert isinstance(xp.meshgrid(x, x), tuple) and isinstance(xp.broadcast_arrays(x), tuple)
    assert isinstance(info.devices(), tuple) and info.default_device() in info.devices()
    assert xp.set_api_version("2023.12") == "2025.12"
    assert xp.__array_api_version__ == "2024.12"      # serves the earlier versions
    with pytest.raises(ValueError, match="api_version='2026.12'"):
        xp.set_api_version("2026.12")


def test_the_environment_variable():
    code = "import npu_emu.array_api as xp; print(xp.__array_api_version__)"
    env = dict(os.environ, NPU_EMU_ARRAY_API_VERSION="2025.12", NPU_EMU_DEVICE="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2025.12"


def test_isin():
    a, b = np.array([[1, 2, 7], [4, 5, 2]]), np.array([2, 4, 9])
    for invert in (False, True):
        got = xp.isin(xp.asarray(a), xp.asarray(b), invert=invert)
        assert got.dtype == xp.bool and got.shape == a.shape
        np.testing.assert_array_equal(np.asarray(got), np.isin(a, b, invert=invert))
    assert bool(xp.isin(4, xp.asarray(b))) and xp.isin(4, xp.asarray(b)).shape == ()
    np.testing.assert_array_equal(np.asarray(xp.isin(xp.asarray(a), 2)), a == 2)
    f = xp.asarray([np.nan, 1.0, -0.0])
    np.testing.assert_array_equal(np.asarray(xp.isin(f, xp.asarray([np.nan, 0.0]))),
                                  [False, False, True])      # NaN equals nothing; -0 == 0
    # promoted: int8 with int64
    np.testing.assert_array_equal(
        np.asarray(xp.isin(xp.asarray([1, 300], dtype=xp.int64),
                           xp.asarray([1, 44], dtype=xp.int8))), [True, False])


def test_broadcast_shapes():
    assert xp.broadcast_shapes((2, 1), (1, 3), ()) == np.broadcast_shapes((2, 1), (1, 3), ())
    assert xp.broadcast_shapes() == ()
    with pytest.raises(ValueError):
        xp.broadcast_shapes((2, 3), (4, 3))


@pytest.mark.parametrize("dtype, cdtype", [("float64", "complex128"), ("float32", "complex64"),
                                            ("complex128", "complex128")])
def test_eig_and_eigvals(dtype, cdtype):
    rng = np.random.default_rng(5)
    h = rng.standard_normal((2, 4, 4)).astype(dtype)
    w, v = xp.linalg.eig(xp.asarray(h))
    assert w.dtype.name == v.dtype.name == cdtype and w.shape == (2, 4) and v.shape == (2, 4, 4)
    ref_w, ref_v = np.linalg.eig(h)
    np.testing.assert_array_equal(np.asarray(w), ref_w.astype(cdtype))
    np.testing.assert_array_equal(np.asarray(v), ref_v.astype(cdtype))
    np.testing.assert_array_equal(np.asarray(xp.linalg.eigvals(xp.asarray(h))),
                                  np.linalg.eigvals(h).astype(cdtype))
    with pytest.raises(ValueError, match="square"):
        xp.linalg.eig(xp.asarray(h[:, :3]))
