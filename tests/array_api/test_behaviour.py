"""What libraries written against the standard (scikit-learn, SciPy through array_api_compat)
rely on beyond its letter: integer-array indexing with NumPy's and our arrays, int + float
and int / int giving floats, host copies through __array__ and __dlpack__(dl_device=(1, 0)),
__array_namespace__(api_version=None), device comparisons, and the inspection namespace."""
from __future__ import annotations

import array_api_compat
import numpy as np
import pytest

import npu_emu.array_api as xp

from ._support import values

from ._support import float32_defaults  # noqa: F401 (the fixture)

# These tests were written against the NPU's float32 defaults: they run with that setting
# of the switch (test_defaults.py checks the namespace's own, float64).
pytestmark = pytest.mark.usefixtures("float32_defaults")


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


def test_integer_array_indexing_with_numpy_and_our_arrays():
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = xp.asarray(host)
    for index in (np.array([2, 0, -1]), xp.asarray([2, 0, -1]), [2, 0, -1],
                  np.array([2, 0, 2], dtype=np.uint8)):
        want = host[np.asarray(index)]
        np.testing.assert_array_equal(values(x[index]), want)
        np.testing.assert_array_equal(values(x[:, index]), host[:, np.asarray(index)])
    y = xp.asarray(host.copy())
    y[np.array([0, 2])] = 0.0
    y[xp.asarray([1]), xp.asarray([3])] = -5.0
    want = host.copy()
    want[[0, 2]] = 0.0
    want[1, 3] = -5.0
    np.testing.assert_array_equal(values(y), want)
    mask = xp.asarray(host > 5)
    np.testing.assert_array_equal(values(x[mask]), host[host > 5])


def test_int_and_float_promotion_and_true_division():
    i, f = xp.asarray([1, 2, 3]), xp.asarray([0.5, 0.5, 0.5])
    assert (i + f).dtype == xp.float32            # the NPU's table: int64 + float32 -> float32
    np.testing.assert_array_equal(values(i + f), [1.5, 2.5, 3.5])
    q = i / xp.asarray([2, 4, 3])
    assert q.dtype == xp.__array_namespace_info__().default_dtypes()["real floating"]
    np.testing.assert_allclose(values(q), [0.5, 0.5, 1.0])
    assert (i / 2).dtype == xp.float32


def test_host_copies_from_any_device():
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=xp.float32)
    host = np.asarray(x)
    np.testing.assert_array_equal(host, [[1.0, 2.0], [3.0, 4.0]])
    c = np.array(x, copy=True)
    c[0, 0] = 9.0
    assert float(x[0, 0]) == 1.0
    torch = pytest.importorskip("torch")
    t = torch.from_dlpack(x.__dlpack__(dl_device=(1, 0), max_version=(1, 0)))
    assert t.device.type == "cpu" and t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(BufferError, match="dl_device"):
        x.__dlpack__(dl_device=(9, 0))


def test_namespace_and_devices():
    x = xp.asarray([1, 2])
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version=None) is xp
    assert x.__array_namespace__(api_version="2023.12") is xp
    with pytest.raises(ValueError, match="api_version"):
        x.__array_namespace__(api_version="1999.01")
    assert array_api_compat.array_namespace(x) is xp
    info = xp.__array_namespace_info__()
    dev = info.default_device()
    assert x.device == dev and x.device == str(dev) and not x.device != dev
    assert x.device in info.devices() and hash(x.device) == hash(dev)
    assert xp.zeros(2, device=x.device).device == x.device
    assert x.to_device(x.device) is x


def test_inspection_namespace():
    info = xp.__array_namespace_info__()
    caps = info.capabilities()
    assert caps == {"boolean indexing": True, "data-dependent shapes": True,
                    "max dimensions": 8}
    dev = info.default_device()
    assert info.default_dtypes(device=dev) == {
        "real floating": xp.float32, "complex floating": xp.complex64,
        "integral": xp.int64, "indexing": xp.int64}
    assert list(info.dtypes(device=dev)) == [
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float32", "float64", "complex64", "complex128"]
    assert list(info.dtypes(kind="real floating")) == ["float32", "float64"]
    assert list(info.dtypes(kind=("bool", "unsigned integer"), device=dev)) == [
        "bool", "uint8", "uint16", "uint32", "uint64"]
    assert info.dtypes(kind="signed integer")["int8"] is xp.int8
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="float")
    with pytest.raises(ValueError, match="device"):
        info.dtypes(device="tpu")


def test_zero_d_hifloat8_converts_to_numpy():
    # NumPy has no HiFloat8 type: np.asarray decodes to float32, and a 0-d array stays 0-d
    x = xp.asarray(1.5, dtype=xp.hifloat8)
    host = np.asarray(x)
    assert host.shape == () and host.dtype == np.float32 and float(host) == 1.5
    assert float(x) == 1.5
