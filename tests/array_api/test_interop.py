"""Interchange without copies, proven by writing through one side and reading the other:
NumPy (asarray / np.asarray / __array_interface__ / DLPack), the buffer protocol, PyTorch
(DLPack both ways), and the allocator's view of imported memory. CuPy and PyTorch CUDA in
the cuda-marked tests."""
from __future__ import annotations

import gc

import ml_dtypes
import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu import runtime
from npu_emu.array_api._engine import device as _device

from ._support import float32_defaults  # noqa: F401 (the fixture)

# These tests were written against the NPU's float32 defaults: they run with that setting
# of the switch (test_defaults.py checks the namespace's own, float64).
pytestmark = pytest.mark.usefixtures("float32_defaults")


@pytest.fixture(autouse=True)
def _cpu(cpu_backend):
    yield cpu_backend


def regions() -> int:
    gc.collect()
    _device.release_pending()          # finalizers queue releases; this is a safe point
    return len(runtime.current().allocator._external)


def test_asarray_shares_numpy_memory_both_ways():
    h = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = xp.asarray(h)
    h[0, 0] = 100.0                        # NumPy writes, we read
    assert float(x[0, 0]) == 100.0
    x[2, 3] = -1.0                         # we write (InplaceCopy), NumPy reads
    assert h[2, 3] == -1.0
    x += 1                                 # an operator (aclnnAdd) writes in place
    assert h[1, 1] == 6.0


def test_a_numpy_scalar_is_copied_into_our_memory():
    """A NumPy scalar is immutable and the 0-d array made of it is nobody else's: asarray
    copies its value into the pool (no import to register, no operation finished early for
    it), keeps its dtype and its bits; copy=False still shares that 0-d array."""
    before = regions()
    payload = np.frombuffer(bytes.fromhex("0100000000f8ffff"), np.float64)[0]   # a NaN, sign set
    for value, dtype in ((np.float64(-0.0), xp.float64), (np.float32(1e-45), xp.float32),
                         (np.int16(-7), xp.int16), (np.bool_(True), xp.bool),
                         (np.complex64(1 - 2j), xp.complex64), (payload, xp.float64),
                         (np.int8(-128), xp.int8), (np.int32(-2**31), xp.int32),
                         (np.int64(-2**63 + 5), xp.int64), (np.uint8(255), xp.uint8),
                         (np.uint16(65534), xp.uint16), (np.uint32(2**32 - 3), xp.uint32),
                         (np.uint64(2**64 - 7), xp.uint64), (np.float16(-65504), xp.float16),
                         (np.complex128(-0.0 + 1e-310j), xp.complex128)):
        x = xp.asarray(value)
        assert x.dtype == dtype and x.shape == () and not x._st.shared
        assert np.asarray(x).tobytes() == np.asarray(value).tobytes()
        assert np.asarray(xp.asarray(value, dtype=dtype, copy=True)).tobytes() == \
            np.asarray(value).tobytes()
        x[()] = 0                           # ours to write
        assert np.asarray(x).tobytes() == np.zeros((), np.asarray(value).dtype).tobytes()
    assert regions() == before
    assert float(xp.asarray(np.float64(2.5), dtype=xp.float32)) == 2.5
    shared = xp.asarray(np.float64(2.5), copy=False)
    assert shared._st.shared and float(shared) == 2.5


def test_np_asarray_is_a_view_without_copy():
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    n = np.asarray(x)
    assert n.base is not None and not n.flags.owndata
    n[0, 1] = 20.0                          # NumPy writes our memory
    assert float(x[0, 1]) == 20.0
    x[1, 0] = 30.0
    assert n[1, 0] == 30.0                  # and reads ours
    assert np.shares_memory(np.asarray(x), n)
    c = np.asarray(x, copy=True)
    c[0, 0] = -5
    assert float(x[0, 0]) == 1.0


def test_each_np_asarray_is_the_callers_own_view_object():
    # The array keeps its library view for its own calls; what a user is handed is a new
    # view object each time, so changing its flags or shape leaves the array's alone.
    x = xp.asarray([1.0, 2.0, 3.0, 4.0])
    n = np.asarray(x)
    n.flags.writeable = False
    n.shape = (2, 2)
    again = np.asarray(x)
    assert again is not n and again.flags.writeable and again.shape == (4,)
    assert np.shares_memory(again, n)
    again[0] = 10.0
    assert float(x[0]) == 10.0 and n[0, 0] == 10.0


def test_array_interface_and_views():
    x = xp.reshape(xp.asarray(np.arange(24, dtype=np.int16)), (4, 6))[::2, 5:0:-2]
    iface = x.__array_interface__
    assert iface["typestr"] == "<i2" and iface["shape"] == (2, 3)
    assert iface["strides"] == (24, -4)
    n = np.asarray(x)
    np.testing.assert_array_equal(n, np.arange(24, dtype=np.int16).reshape(4, 6)[::2, 5:0:-2])
    n[1, 2] = 999
    assert int(x[1, 2]) == 999


def test_low_precision_host_views():
    x = xp.asarray([1.5, -2.25], dtype=xp.bfloat16)
    assert not hasattr(x, "__array_interface__")      # NumPy has no bfloat16 typestr
    n = np.asarray(x)
    assert n.dtype == ml_dtypes.bfloat16 and n.base is not None
    n[0] = 3.0
    assert float(x[0]) == 3.0
    h8 = xp.asarray([2.0], dtype=xp.hifloat8)        # no NumPy type: a decoded copy
    assert np.asarray(h8).dtype == np.float32 and np.asarray(h8)[0] == 2.0
    with pytest.raises(ValueError, match="HiFloat8"):
        np.asarray(h8, copy=False)


def test_ml_dtypes_arrays_are_kept():
    h = np.array([0.1, 1e-3], dtype=ml_dtypes.float8_e5m2)
    x = xp.asarray(h)
    assert x.dtype == xp.float8_e5m2
    h[1] = 2.0
    assert float(x[1]) == 2.0
    assert xp.asarray(np.array([1, 2], dtype=ml_dtypes.bfloat16)).dtype == xp.bfloat16


def test_copy_semantics_of_asarray():
    h = np.ones(3, dtype=np.float64)
    c = xp.asarray(h, copy=True)
    h[0] = 5
    assert float(c[0]) == 1.0
    assert float(xp.asarray(h, copy=False)[0]) == 5.0
    f = xp.asarray(h, dtype=xp.float32)              # a converted copy
    h[1] = 7
    assert float(f[1]) == 1.0 and f.dtype == xp.float32
    with pytest.raises(ValueError, match="dtype"):
        xp.asarray(h, dtype=xp.float32, copy=False)


def test_unshareable_numpy_arrays_are_copied_or_refused():
    big_endian = np.arange(3, dtype=">f4")
    with pytest.raises(TypeError, match="big-endian"):
        xp.asarray(big_endian)
    odd = np.zeros(7, dtype=np.uint8)[1:].view(np.int16)   # misaligned int16
    assert xp.asarray(odd).shape == (3,)
    with pytest.raises(ValueError, match="cannot be shared"):
        xp.asarray(odd, copy=False)


def test_read_only_memory_is_refused_as_a_destination():
    h = np.arange(4.0)
    h.flags.writeable = False
    x = xp.asarray(h)
    np.testing.assert_array_equal(np.asarray(x + 1), h + 1)
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        x += 1
    assert not np.asarray(x).flags.writeable


def test_buffer_protocol():
    buf = bytearray(b"\x01\x02\x03")
    x = xp.asarray(buf)
    assert x.dtype == xp.uint8
    buf[0] = 9
    assert int(x[0]) == 9
    x[2] = 7
    assert buf[2] == 7
    ro = xp.asarray(b"\x05\x06")
    assert int(ro[1]) == 6
    with pytest.raises(ValueError, match="read-only"):
        ro[0] = 1


def test_a_temporary_numpy_source_stays_valid():
    # the NumPy array is gone when the call returns; our kernel read it before that
    for _ in range(5):
        y = xp.asarray(np.full(1 << 16, 3.0, dtype=np.float32)) * 2
        assert np.all(np.asarray(y) == 6.0)
    nz = xp.format_cast(xp.asarray(np.arange(560, dtype=np.float16).reshape(20, 28)), "NZ")
    np.testing.assert_array_equal(np.asarray(xp.format_cast(nz, "ND")),
                                  np.arange(560, dtype=np.float16).reshape(20, 28))


def test_imported_memory_is_registered_while_used():
    before = regions()
    h = np.arange(8, dtype=np.int32)
    x = xp.asarray(h)
    al = runtime.current().allocator
    assert al.contains(h.ctypes.data, h.nbytes)
    v = xp.asarray(h[2:6])                    # overlapping import: one region
    assert regions() == before + 1
    del x
    assert al.contains(h.ctypes.data + 8, 16) and regions() == before + 1
    del v
    assert regions() == before
    assert not al.contains(h.ctypes.data, h.nbytes)


def test_outputs_come_from_the_pool():
    be = runtime.current()
    a = xp.ones((64, 64))
    before = be.memory_stats()["bytes_in_use"]
    b = a + a
    assert be.memory_stats()["bytes_in_use"] >= before + 64 * 64 * 4
    assert be.allocator.size_of(b._st.ptr) == 64 * 64 * 4


# ----------------------------------------------------------------------- DLPack

def test_dlpack_device():
    assert xp.asarray([1]).__dlpack_device__() == (1, 0)


def test_numpy_from_our_dlpack_shares():
    x = xp.asarray([[1, 2, 3]], dtype=xp.int64)
    n = np.from_dlpack(x)
    n[0, 1] = 20
    assert int(x[0, 1]) == 20
    x[0, 2] = 30
    assert n[0, 2] == 30


def test_from_dlpack_of_numpy_shares():
    h = np.arange(6, dtype=np.complex64).reshape(2, 3)[:, ::2]
    x = xp.from_dlpack(h)
    assert x.shape == (2, 2) and x.dtype == xp.complex64
    h[1, 1] = 1j
    assert complex(x[1, 1]) == 1j
    x[0, 0] = 5
    assert h[0, 0] == 5


class _CapsuleOnly:
    """A producer that is only DLPack's two methods around a NumPy array: from_dlpack takes
    the capsule's way, not the ndarray's direct one."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kw):
        return self.a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


_NUMPY_DLPACK_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                        np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64,
                        np.complex128]


def _described(x):
    """What an Array is: dtype, shape, the strides and read-only flag NumPy sees, its bytes."""
    n = np.from_dlpack(x)
    return x.dtype, x.shape, n.strides, n.flags.writeable, n.tobytes()


@pytest.mark.parametrize("dt", _NUMPY_DLPACK_DTYPES, ids=lambda t: np.dtype(t).name)
def test_from_dlpack_of_a_numpy_array_is_what_its_capsule_gives(dt):
    """An ndarray is shared directly (no capsule made and parsed): the same Array as through
    its capsule, for every dtype NumPy's DLPack carries and every kind of view, sharing the
    memory both ways."""
    rng = np.random.default_rng(5)
    base = (rng.standard_normal((6, 7)) * 50).astype(dt) if dt is not np.bool_ \
        else rng.integers(0, 2, (6, 7)).astype(bool)
    views = {"whole": base, "steps": base[::2, 1::3], "reversed": base[::-1, ::-2],
             "transposed": base.T, "0-d": base[2, 3, ...], "broadcast": np.broadcast_to(base[1], (3, 7))}
    direct = {name: xp.from_dlpack(v) for name, v in views.items()}
    for name, v in views.items():
        assert _described(direct[name]) == _described(xp.from_dlpack(_CapsuleOnly(v))), name
    base[...] = base[::-1, ::-1].copy()                      # NumPy writes, every view sees it
    for name, v in views.items():
        assert np.from_dlpack(direct[name]).tobytes() == np.ascontiguousarray(v).tobytes(), name
    frozen = base.copy()
    frozen.flags.writeable = False
    assert _described(xp.from_dlpack(frozen)) == _described(xp.from_dlpack(_CapsuleOnly(frozen)))
    with pytest.raises(ValueError):
        xp.from_dlpack(frozen)[0, 0] = base[0, 0]                 # read-only stays read-only
    x = xp.from_dlpack(base)
    x[0, 0] = base[1, 1]                                          # we write, NumPy reads
    assert base[0, 0] == base[1, 1]


def test_from_dlpack_of_numpy_arrays_its_capsule_refuses_is_refused_alike():
    """What NumPy's capsule refuses (non-native byte order, types DLPack lacks), or what
    cannot be addressed in place, takes the capsule's way and its refusal."""
    for a in (np.arange(4, dtype=">i4"), np.zeros(3, dtype=ml_dtypes.bfloat16)):
        with pytest.raises(BufferError) as direct:
            xp.from_dlpack(a)
        with pytest.raises(BufferError) as through:
            xp.from_dlpack(_CapsuleOnly(a))
        assert str(direct.value) == str(through.value)
    empty = xp.from_dlpack(np.zeros((0, 3), np.float32))
    assert empty.shape == (0, 3) and empty.dtype == xp.float32
    k = xp.from_dlpack(np.arange(3.0), copy=True)                  # a copy: not shared
    assert np.from_dlpack(k).ctypes.data != 0


@pytest.mark.parametrize("dt", [xp.float32, xp.int16, xp.bool, xp.complex128, xp.bfloat16],
                         ids=lambda d: d.name)
@pytest.mark.parametrize("max_version", [None, (1, 0), (1, 1)])
def test_exported_capsule_fields(dt, max_version):
    """Our capsules of NumPy's own dtypes are NumPy's with our version written over (and the
    IS_COPIED flag): every field as dlpack.h says, as for a dtype NumPy lacks (bfloat16),
    whose dtype and device are written in."""
    import ctypes
    from npu_emu.array_api._engine import dlpack as dl
    x = xp.asarray(np.arange(12).reshape(3, 4) % 2, dtype=dt)[1:, ::2]
    for copy in (None, True):
        cap = x.__dlpack__(max_version=max_version, copy=copy)
        versioned = max_version is not None
        name = dl.VERSIONED if versioned else dl.LEGACY
        managed = (dl.DLManagedTensorVersioned if versioned else dl.DLManagedTensor).from_address(
            dl._capsule_get_pointer(cap, name))
        t = managed.dl_tensor
        code, bits = dl.DLPACK_DTYPES[dt.acl_dtype]
        assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (int(code), bits, 1)
        assert (t.device.device_type, t.device.device_id) == (1, 0) and t.byte_offset == 0
        assert t.ndim == 2 and list(t.shape[:2]) == [2, 2]
        if copy is None:
            assert t.data == x._ptr0()                              # the array's own memory
            assert list(t.strides[:2]) == [4, 2]
        if versioned:
            assert (managed.version.major, managed.version.minor) == dl.DLPACK_VERSION
            assert managed.flags == (dl.DLPACK_FLAG_BITMASK_IS_COPIED if copy else 0)


def test_from_dlpack_copy_and_own_arrays():
    x = xp.asarray([1.0, 2.0])
    assert xp.from_dlpack(x) is x
    c = xp.from_dlpack(x, copy=True)
    c[0] = 9
    assert float(x[0]) == 1.0
    h = np.zeros(2)
    k = xp.from_dlpack(h, copy=True)
    h[0] = 4
    assert float(k[0]) == 0.0


def test_dlpack_refuses_hifloat8_and_reversed_without_copy():
    with pytest.raises(BufferError, match="HIFLOAT8"):
        xp.asarray([1.0], dtype=xp.hifloat8).__dlpack__()
    r = xp.asarray([1.0, 2.0, 3.0])[::-1]
    with pytest.raises(BufferError, match="reversed"):
        r.__dlpack__(copy=False)
    np.testing.assert_array_equal(np.from_dlpack(r), [3.0, 2.0, 1.0])
    with pytest.raises(ValueError, match="stream"):
        r.__dlpack__(stream=1)
    with pytest.raises(BufferError):
        r.__dlpack__(dl_device=(2, 0))


def test_dlpack_read_only_flag():
    h = np.arange(3.0)
    h.flags.writeable = False
    x = xp.asarray(h)
    n = np.from_dlpack(x)
    assert not n.flags.writeable


# ---------------------------------------------------------------------- PyTorch

def test_torch_shares_both_ways():
    torch = pytest.importorskip("torch")
    x = xp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    t = torch.from_dlpack(x)
    t[0, 0] = 42
    assert float(x[0, 0]) == 42.0
    x[1, 2] = -1
    assert t[1, 2].item() == -1
    s = torch.arange(10, dtype=torch.int16)[::3]
    y = xp.from_dlpack(s)
    assert y.shape == (4,) and y.dtype == xp.int16
    y[1] = 100
    assert s[1].item() == 100
    s[2] = -5
    assert int(y[2]) == -5
    np.testing.assert_array_equal(np.asarray(y * 2), s.numpy() * 2)


def test_torch_low_precision_and_asarray():
    torch = pytest.importorskip("torch")
    b = torch.tensor([1.5, -0.1], dtype=torch.bfloat16)
    x = xp.asarray(b)
    assert x.dtype == xp.bfloat16
    np.testing.assert_array_equal(np.asarray(x).view(np.uint16), b.view(torch.int16).numpy().view(np.uint16))
    b[0] = 8.0
    assert float(x[0]) == 8.0
    back = torch.from_dlpack(xp.astype(x, xp.float8_e4m3fn))
    assert back.dtype == torch.float8_e4m3fn
    assert back.float().tolist() == [8.0, float(np.array(-0.1, np.float32)
                                                .astype(ml_dtypes.bfloat16)
                                                .astype(np.float32)
                                                .astype(ml_dtypes.float8_e4m3fn))]
    f = xp.asarray(torch.ones(3, dtype=torch.float64), dtype=xp.float16)
    assert f.dtype == xp.float16 and np.asarray(f).tolist() == [1, 1, 1]


def test_torch_temporaries_and_lifetimes():
    torch = pytest.importorskip("torch")
    before = regions()
    for _ in range(3):
        y = xp.from_dlpack(torch.full((256,), 2.0)) + 1
        assert np.all(np.asarray(y) == 3.0)
    assert regions() == before


# ------------------------------------------------------------------------ cuda

@pytest.mark.cuda
def test_cupy_zero_copy():
    import cupy
    runtime.use("cuda")
    x = xp.asarray([1.0, 2.0, 3.0])
    c = cupy.asarray(x)                                    # __cuda_array_interface__
    c[0] = 10
    assert float(x[0]) == 10.0
    d = cupy.from_dlpack(x)
    d[1] = 20
    assert float(x[1]) == 20.0
    g = cupy.arange(4, dtype=cupy.float32)
    y = xp.from_dlpack(g)
    y[3] = -1
    assert float(g[3]) == -1.0
    assert x.__dlpack_device__() == (2, 0)
    assert np.asarray(x).tolist() == [10.0, 20.0, 3.0]    # a host copy
    from npu_emu.array_api._engine import dlpack as _dlpack
    host = _dlpack.consume_capsule(x.__dlpack__(dl_device=(1, 0), max_version=(1, 0)))
    assert tuple(host.device) == (1, 0) and host.copied


@pytest.mark.cuda
def test_torch_cuda_zero_copy():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    runtime.use("cuda")
    t = torch.arange(6, dtype=torch.float32, device="cuda")
    x = xp.from_dlpack(t)
    x[0] = 7
    torch.cuda.synchronize()
    assert t[0].item() == 7
    u = torch.from_dlpack(x + 1)
    assert u.device.type == "cuda" and u.tolist() == [8, 2, 3, 4, 5, 6]


def test_from_dlpack_imports_a_jax_array_without_a_copy(cpu_backend):
    jax = pytest.importorskip("jax")
    j = jax.numpy.arange(12.0, dtype=jax.numpy.float32).reshape(3, 4)
    x = xp.from_dlpack(j)
    assert x.dtype == xp.float32 and x.shape == (3, 4)
    np.testing.assert_array_equal(np.asarray(x), np.arange(12, dtype=np.float32).reshape(3, 4))
    assert x._t.data == j.unsafe_buffer_pointer()          # the same memory, not a copy
    y = x + 1                                              # our operators accept it
    np.testing.assert_array_equal(np.asarray(y), np.arange(1, 13, dtype=np.float32).reshape(3, 4))
