"""The DLPack codec (npu_emu/array_api/_engine/dlpack.py), without the array API namespace.

References are independent of the module: DLPack codes and struct layouts transcribed from
dmlc/dlpack include/dlpack/dlpack.h (v1.1), values and sharing checked through NumPy's and
PyTorch's own DLPack consumers and producers, extents through NumPy's byte_bounds.
"""
from __future__ import annotations

import ctypes
import gc
import importlib
import threading
import warnings
import weakref

import ml_dtypes
import numpy as np
import pytest

from npu_emu.dtypes import INFO, aclDataType
from npu_emu.status import AclnnError

# npu_emu/array_api may still be a namespace package (its __init__ is written elsewhere).
dl = importlib.import_module("npu_emu.array_api._engine.dlpack")

DT = aclDataType
CPU, CUDA = (1, 0), (2, 0)

# dlpack.h v1.1 (DLDataTypeCode), transcribed
kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLComplex, kDLBool = 0, 1, 2, 4, 5, 6
kDLFloat8_e4m3fn, kDLFloat8_e4m3fnuz, kDLFloat8_e5m2, kDLFloat8_e8m0fnu = 10, 11, 12, 14
kDLFloat4_e2m1fn = 17

EXPECTED_CODES = {
    DT.ACL_BOOL: (kDLBool, 8),
    DT.ACL_INT8: (kDLInt, 8), DT.ACL_INT16: (kDLInt, 16), DT.ACL_INT32: (kDLInt, 32),
    DT.ACL_INT64: (kDLInt, 64),
    DT.ACL_UINT8: (kDLUInt, 8), DT.ACL_UINT16: (kDLUInt, 16), DT.ACL_UINT32: (kDLUInt, 32),
    DT.ACL_UINT64: (kDLUInt, 64),
    DT.ACL_FLOAT16: (kDLFloat, 16), DT.ACL_FLOAT: (kDLFloat, 32), DT.ACL_DOUBLE: (kDLFloat, 64),
    DT.ACL_BF16: (kDLBfloat, 16),
    DT.ACL_COMPLEX64: (kDLComplex, 64), DT.ACL_COMPLEX128: (kDLComplex, 128),
    DT.ACL_FLOAT8_E4M3FN: (kDLFloat8_e4m3fn, 8), DT.ACL_FLOAT8_E5M2: (kDLFloat8_e5m2, 8),
    DT.ACL_FLOAT8_E8M0: (kDLFloat8_e8m0fnu, 8),
}

# the dtypes NumPy itself exchanges over DLPack, with our names for them
NUMPY_DTYPES = [
    (np.bool_, DT.ACL_BOOL), (np.int8, DT.ACL_INT8), (np.int16, DT.ACL_INT16),
    (np.int32, DT.ACL_INT32), (np.int64, DT.ACL_INT64), (np.uint8, DT.ACL_UINT8),
    (np.uint16, DT.ACL_UINT16), (np.uint32, DT.ACL_UINT32), (np.uint64, DT.ACL_UINT64),
    (np.float16, DT.ACL_FLOAT16), (np.float32, DT.ACL_FLOAT), (np.float64, DT.ACL_DOUBLE),
    (np.complex64, DT.ACL_COMPLEX64), (np.complex128, DT.ACL_COMPLEX128),
]
ML_DTYPES = [(ml_dtypes.bfloat16, DT.ACL_BF16), (ml_dtypes.float8_e4m3fn, DT.ACL_FLOAT8_E4M3FN),
             (ml_dtypes.float8_e5m2, DT.ACL_FLOAT8_E5M2),
             (ml_dtypes.float8_e8m0fnu, DT.ACL_FLOAT8_E8M0)]
ALL_HOST_DTYPES = NUMPY_DTYPES + ML_DTYPES


# --------------------------------------------------------------------------- test helpers

def _name(value) -> str:
    return getattr(value, "__name__", str(value))


_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype, _api.PyCapsule_GetName.argtypes = ctypes.c_char_p, [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def capsule_name(capsule) -> bytes:
    return _api.PyCapsule_GetName(capsule)


def dl_tensor_address(capsule) -> int:
    """Address of the DLTensor inside a capsule (offsets from dlpack.h)."""
    name = capsule_name(capsule)
    return _api.PyCapsule_GetPointer(capsule, name) + (32 if name == b"dltensor_versioned" else 0)


def sample(np_dtype, shape, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dtype = np.dtype(np_dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype == ml_dtypes.float8_e8m0fnu:   # powers of two only
        return np.exp2(rng.integers(-20, 20, shape)).astype(dtype)
    return (rng.standard_normal(shape) * 4).astype(dtype)


def flip(values: np.ndarray) -> np.ndarray:
    """Values that differ from `values` everywhere (to see a write go through)."""
    if values.dtype == np.bool_:
        return ~values
    raw = values.view(f"u{values.dtype.itemsize}") if values.dtype.itemsize <= 8 else None
    if raw is None:
        return values + 1
    # a different bit pattern that stays a finite value in every float format: flip bit 0
    # of the mantissa (or of the integer); e8m0 has no mantissa, there 0x7f <-> 0x7e
    return (raw ^ np.array(1, raw.dtype)).view(values.dtype)


def address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def element_strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def view_of(imported) -> np.ndarray:
    """A NumPy view over imported host memory, built from Imported's fields alone (its base
    holds `imported`, so the memory stays alive with the view)."""
    host = INFO[imported.dtype].host
    raw = {1: "|u1", 2: "<u2", 4: "<u4", 8: "<u8", 16: "<c16"}[host.itemsize]

    class Interface:
        def __init__(self):
            self.imported = imported
            self.__array_interface__ = {
                "version": 3, "shape": imported.shape, "typestr": raw,
                "data": (imported.ptr, imported.readonly),
                "strides": tuple(s * host.itemsize for s in imported.strides)}
    return np.asarray(Interface()).view(host)


class Producer:
    """The smallest DLPack producer: a view of NumPy-owned memory exported with export_capsule.
    mode "negotiate" follows the consumer's max_version; "legacy"/"versioned" force one."""

    def __init__(self, base: np.ndarray, dtype: aclDataType, view: np.ndarray | None = None,
                 mode: str = "negotiate", device=CPU, readonly=False, copied=False):
        view = base if view is None else view
        self.args = (address(view), view.shape, element_strides(view), dtype, device, base)
        self.mode, self.device, self.readonly, self.copied = mode, device, readonly, copied
        self.requests: list[dict] = []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.requests.append(dict(stream=stream, max_version=max_version, dl_device=dl_device,
                                  copy=copy))
        max_version = {"legacy": None, "versioned": (1, 1)}.get(self.mode, max_version)
        return dl.export_capsule(*self.args, max_version=max_version, readonly=self.readonly,
                                 copied=self.copied)

    def __dlpack_device__(self):
        return self.device


class Returns:
    """A producer that hands out a capsule made beforehand (to tamper with it first)."""

    def __init__(self, capsule, device=CPU):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **_):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


class LegacyProducer(Returns):
    """A producer from before the 2023.12 standard: __dlpack__ knows only `stream`."""

    def __dlpack__(self, stream=None):
        return self.capsule


def release_counter(owner) -> list:
    """A list that gets one entry each time `owner` is freed."""
    released: list = []
    weakref.finalize(owner, released.append, True)
    return released


# --------------------------------------------------------------------------- dlpack.h

def test_struct_layouts_match_dlpack_h():
    # x86-64/aarch64 layout of dlpack.h's structs, derived by hand from the header
    assert ctypes.sizeof(dl.DLTensor) == 48
    assert [getattr(dl.DLTensor, f).offset for f in
            ("data", "device", "ndim", "dtype", "shape", "strides", "byte_offset")] == \
        [0, 8, 16, 20, 24, 32, 40]
    assert ctypes.sizeof(dl.DLManagedTensor) == 64
    assert (dl.DLManagedTensor.manager_ctx.offset, dl.DLManagedTensor.deleter.offset) == (48, 56)
    assert ctypes.sizeof(dl.DLManagedTensorVersioned) == 80
    assert [getattr(dl.DLManagedTensorVersioned, f).offset for f in
            ("version", "manager_ctx", "deleter", "flags", "dl_tensor")] == [0, 8, 16, 24, 32]
    assert (dl.DLPACK_FLAG_BITMASK_READ_ONLY, dl.DLPACK_FLAG_BITMASK_IS_COPIED) == (1, 2)


def test_type_codes_match_dlpack_h():
    header = {"kDLInt": 0, "kDLUInt": 1, "kDLFloat": 2, "kDLOpaqueHandle": 3, "kDLBfloat": 4,
              "kDLComplex": 5, "kDLBool": 6, "kDLFloat8_e3m4": 7, "kDLFloat8_e4m3": 8,
              "kDLFloat8_e4m3b11fnuz": 9, "kDLFloat8_e4m3fn": 10, "kDLFloat8_e4m3fnuz": 11,
              "kDLFloat8_e5m2": 12, "kDLFloat8_e5m2fnuz": 13, "kDLFloat8_e8m0fnu": 14,
              "kDLFloat6_e2m3fn": 15, "kDLFloat6_e3m2fn": 16, "kDLFloat4_e2m1fn": 17}
    assert {c.name: c.value for c in dl.DLDataTypeCode} == header
    assert (dl.DLDeviceType.kDLCPU, dl.DLDeviceType.kDLCUDA, dl.DLDeviceType.kDLCUDAHost) == (1, 2, 3)


def test_dtype_table():
    assert {dt: (int(code), bits) for dt, (code, bits) in dl.DLPACK_DTYPES.items()} == EXPECTED_CODES
    for dt, (code, bits) in EXPECTED_CODES.items():
        assert dl.acl_dtype(code, bits) is dt
        assert dl.dlpack_dtype(dt) == (code, bits)
    # every aclDataType either maps or says why it does not
    assert set(dl.DLPACK_DTYPES) | set(dl.NO_DLPACK_REASON) == set(aclDataType)
    assert not set(dl.DLPACK_DTYPES) & set(dl.NO_DLPACK_REASON)


# --------------------------------------------------------------------------- export

@pytest.mark.parametrize("mode", ["legacy", "versioned"])
@pytest.mark.parametrize("np_dtype,acl", NUMPY_DTYPES, ids=_name)
def test_export_every_numpy_dtype_to_numpy(np_dtype, acl, mode):
    base = sample(np_dtype, (3, 5))
    expected = base.copy()
    producer = Producer(base, acl, mode=mode)
    out = np.from_dlpack(producer)
    assert out.dtype == base.dtype and out.shape == (3, 5)
    np.testing.assert_array_equal(out, expected)
    assert address(out) == address(base)                 # zero-copy
    base[1] = flip(base[1])                              # written by the owner, seen by NumPy
    np.testing.assert_array_equal(out[1], flip(expected[1]))
    if mode == "versioned":     # NumPy makes arrays from legacy capsules read-only
        out[2, 3] = flip(out[2, 3:4])[0]                 # and the other way
        assert base[2, 3] == flip(expected[2, 3:4])[0]


@pytest.mark.parametrize("np_dtype,acl", ALL_HOST_DTYPES, ids=_name)
@pytest.mark.parametrize("mode", ["legacy", "versioned"])
def test_export_import_round_trip_every_dtype(np_dtype, acl, mode):
    # bf16/fp8 included: NumPy's from_dlpack knows no kDLBfloat or fp8, our importer does
    base = sample(np_dtype, (4, 6), seed=1)
    view = base[1:, ::2]
    imported = dl.import_capsule(Producer(base, acl, view, mode=mode))
    assert imported.dtype is acl
    assert (imported.ptr, imported.shape, imported.strides) == \
        (address(view), view.shape, element_strides(view))
    assert imported.device == CPU and not imported.readonly and not imported.copied
    shared = view_of(imported)
    assert shared.dtype == view.dtype and shared.tobytes() == view.tobytes()   # bit for bit
    before = view.copy()
    shared[0] = flip(shared[0])                          # we write, the owner reads
    assert base[1, ::2].tobytes() == flip(before[0]).tobytes()
    base[2, ::2] = before[0]                             # the owner writes, we read
    assert shared[1].tobytes() == before[0].tobytes()


@pytest.mark.parametrize("index", [
    np.s_[::2, 1::3], np.s_[::-1, :], np.s_[:, ::-2], np.s_[2:3, :], np.s_[::-2, ::-3], np.s_[:0, :],
], ids=["step", "reversed-rows", "reversed-cols", "size-1-dim", "both-negative", "empty"])
@pytest.mark.parametrize("mode", ["legacy", "versioned"])
def test_export_strided_views_to_numpy(index, mode):
    base = np.arange(48, dtype=np.float32).reshape(6, 8)
    view = base[index]
    out = np.from_dlpack(Producer(base, DT.ACL_FLOAT, view, mode=mode))
    np.testing.assert_array_equal(out, view)
    assert out.strides == view.strides
    if out.size:
        assert address(out) == address(view)
        view[0, 0] = -1.0
        assert out[0, 0] == -1.0
        if mode == "versioned":
            out[-1, -1] = -2.0
            assert view[-1, -1] == -2.0


def test_export_transposed_and_odd_size_one_stride_survive_round_trip():
    base = np.arange(24, dtype=np.int16).reshape(4, 6)
    for shape, strides in [((6, 4), (1, 6)), ((4, 1, 6), (6, 97, 1)), ((1,), (-5,))]:
        capsule = dl.export_capsule(address(base), shape, strides, DT.ACL_INT16, CPU, base,
                                    max_version=(1, 1))
        imported = dl.import_capsule(Returns(capsule))
        assert (imported.shape, imported.strides) == (shape, strides)


@pytest.mark.parametrize("mode", ["legacy", "versioned"])
def test_export_0d_and_empty(mode):
    scalar = np.array(2.5)
    out = np.from_dlpack(Producer(scalar, DT.ACL_DOUBLE, mode=mode))
    assert out.shape == () and out[()] == 2.5
    scalar[()] = 7.0
    assert out[()] == 7.0

    empty = np.zeros((0, 3), np.int32)
    out = np.from_dlpack(Producer(empty, DT.ACL_INT32, mode=mode))
    assert out.shape == (0, 3) and out.dtype == np.int32

    version = None if mode == "legacy" else (1, 1)
    null = dl.export_capsule(0, (0, 3), (3, 1), DT.ACL_INT32, CPU, None, max_version=version)
    assert dl.DLTensor.from_address(dl_tensor_address(null)).data is None    # NULL, per dlpack.h
    imported = dl.import_capsule(Returns(null))
    assert (imported.ptr, imported.shape, imported.nbytes_extent) == (0, (0, 3), 0)


@pytest.mark.parametrize("np_dtype,acl", ALL_HOST_DTYPES, ids=_name)
def test_export_to_torch(np_dtype, acl):
    torch = pytest.importorskip("torch")
    base = sample(np_dtype, (5, 4), seed=2)
    bits_before = base.view(np.uint8).copy()
    t = torch.from_dlpack(Producer(base, acl))
    assert t.data_ptr() == address(base) and tuple(t.shape) == (5, 4)
    raw = torch.uint8 if acl is DT.ACL_BOOL else {1: torch.uint8, 2: torch.int16, 4: torch.int32,
                                                   8: torch.int64, 16: torch.int64}[base.itemsize]
    t_bytes = t.view(raw).numpy().view(np.uint8)
    np.testing.assert_array_equal(t_bytes, bits_before)       # torch reads our dtype as ours
    base[0] = flip(base[0])                                    # owner writes, torch sees
    np.testing.assert_array_equal(t.view(raw).numpy().view(np.uint8), base.view(np.uint8))
    t[4] = t[3]                                                # torch writes, owner sees
    np.testing.assert_array_equal(base[4].view(np.uint8), base[3].view(np.uint8))


def test_versioned_capsule_version_and_read_only_flag():
    base = np.arange(6.0)
    producer = Producer(base, DT.ACL_DOUBLE, readonly=True)
    out = np.from_dlpack(producer)
    assert not out.flags.writeable                              # NumPy honours READ_ONLY
    np.testing.assert_array_equal(out, base)
    capsule = producer.__dlpack__(max_version=(1, 1))
    managed = _api.PyCapsule_GetPointer(capsule, capsule_name(capsule))
    version = (ctypes.c_uint32 * 2).from_address(managed)          # DLPackVersion comes first
    assert tuple(version) == (1, 1)
    imported = dl.import_capsule(Returns(capsule))
    assert imported.readonly and not imported.copied
    assert dl.import_capsule(Producer(base, DT.ACL_DOUBLE, copied=True)).copied


def test_legacy_capsule_refuses_read_only():
    base = np.arange(3.0)
    with pytest.raises(dl.DLPackValueError, match="read-only") as caught:
        dl.export_capsule(address(base), (3,), (1,), DT.ACL_DOUBLE, CPU, base, readonly=True)
    assert isinstance(caught.value, BufferError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize("max_version,name", [
    (None, b"dltensor"), ((0, 8), b"dltensor"), ((1, 0), b"dltensor_versioned"),
    ((1, 1), b"dltensor_versioned"), ((2, 3), b"dltensor_versioned")])
def test_max_version_chooses_the_capsule(max_version, name):
    base = np.zeros(2, np.uint8)
    capsule = dl.export_capsule(address(base), (2,), (1,), DT.ACL_UINT8, CPU, base, max_version)
    assert capsule_name(capsule) == name


def test_export_device_is_written_and_cpu_consumers_refuse_it_cleanly():
    base = np.arange(4, dtype=np.float32)
    released = release_counter(base)
    producer = Producer(base, DT.ACL_FLOAT, device=(2, 3))   # host memory labelled kDLCUDA:3
    assert dl.import_capsule(producer).device == (2, 3)
    with pytest.raises(Exception) as caught:
        np.from_dlpack(producer)
    assert not isinstance(caught.value, SystemError) and "device" in str(caught.value)
    del producer, base, caught
    gc.collect()
    assert released == [True]


@pytest.mark.parametrize("dtype,words", [
    (DT.ACL_HIFLOAT8, ["ACL_HIFLOAT8", "HiFloat8"]),
    (DT.ACL_COMPLEX32, ["ACL_COMPLEX32", "float16"]),
    (DT.ACL_INT4, ["ACL_INT4", "sub-byte"]),
    (DT.ACL_FLOAT4_E2M1, ["ACL_FLOAT4_E2M1", "sub-byte"]),
    (DT.ACL_STRING, ["ACL_STRING", "not an element type"]),
])
def test_export_refuses_dtypes_without_dlpack_code(dtype, words):
    base = np.zeros(4, np.uint8)
    with pytest.raises(dl.DLPackTypeError) as caught:
        dl.export_capsule(address(base), (4,), (1,), dtype, CPU, base, max_version=(1, 1))
    error = caught.value
    assert isinstance(error, TypeError) and isinstance(error, BufferError)
    assert isinstance(error, AclnnError) and error.code == 161002
    for word in words:
        assert word in str(error)


@pytest.mark.parametrize("kwargs,kind,words", [
    (dict(shape=(2, 2), strides=(1,)), ValueError, ["strides", "one per dimension"]),
    (dict(shape=(-1,), strides=(1,)), ValueError, ["shape[0]", "negative"]),
    (dict(shape=(2,), strides=(1.5,)), TypeError, ["strides[0]"]),
    (dict(ptr=0), ValueError, ["ptr=0", "NULL"]),
    (dict(ptr=-8), ValueError, ["ptr"]),
    (dict(device=(1,)), ValueError, ["device"]),
    (dict(device="cpu"), TypeError, ["device"]),
    (dict(max_version="1.1"), TypeError, ["max_version"]),
    (dict(dtype="no such dtype"), TypeError, ["dtype"]),
])
def test_export_parameter_refusals(kwargs, kind, words):
    base = np.zeros(4, np.uint8)
    args = dict(ptr=address(base), shape=(4,), strides=(1,), dtype=DT.ACL_UINT8, device=CPU,
                owner=base)
    args.update(kwargs)
    with pytest.raises(kind) as caught:
        dl.export_capsule(**args)
    assert isinstance(caught.value, AclnnError) and caught.value.code == 161002
    for word in words:
        assert word in str(caught.value)


# --------------------------------------------------------------------------- owner lifetime

@pytest.mark.parametrize("max_version", [None, (1, 1)])
def test_unconsumed_capsule_releases_owner_once(max_version):
    base = np.arange(8.0)
    released = release_counter(base)
    capsule = dl.export_capsule(address(base), (8,), (1,), DT.ACL_DOUBLE, CPU, base, max_version)
    del base
    gc.collect()
    assert released == []                  # the capsule keeps the owner
    del capsule
    gc.collect()
    assert released == [True]


@pytest.mark.parametrize("mode", ["legacy", "versioned"])
def test_consumer_keeps_owner_until_it_is_done(mode):
    base = np.arange(8.0)
    released = release_counter(base)
    out = np.from_dlpack(Producer(base, DT.ACL_DOUBLE, mode=mode))
    del base
    gc.collect()
    assert released == []
    assert out[7] == 7.0                   # the memory is still there
    del out
    gc.collect()
    assert released == [True]


def test_consumer_refusal_keeps_its_own_exception():
    # NumPy knows no kDLBfloat: it drops our capsule while its error is set; the deleter must
    # not replace that error (a Python callback there would turn it into SystemError)
    base = sample(ml_dtypes.bfloat16, (4,))
    released = release_counter(base)
    producer = Producer(base, DT.ACL_BF16)
    with pytest.raises(Exception) as caught:
        np.from_dlpack(producer)
    assert not isinstance(caught.value, SystemError) and "dtype" in str(caught.value)
    del producer, base, caught
    gc.collect()
    assert released == [True]


def test_consumer_dying_during_an_exception_keeps_that_exception():
    base = np.arange(4.0)
    released = release_counter(base)
    producer = Producer(base, DT.ACL_DOUBLE)
    with pytest.raises(IndexError):
        np.from_dlpack(producer)[100]      # the temporary consumer array dies while raising
    del producer, base
    gc.collect()
    assert released == [True]


def test_torch_consumer_releases_owner_once():
    torch = pytest.importorskip("torch")
    base = np.arange(6, dtype=np.float32)
    released = release_counter(base)
    t = torch.from_dlpack(Producer(base, DT.ACL_FLOAT))
    del base
    gc.collect()
    assert released == [] and t[5].item() == 5.0
    del t
    gc.collect()
    assert released == [True]


def test_imported_keepalive_releases_once():
    base = np.arange(6, dtype=np.int64)
    released = release_counter(base)
    imported = dl.import_capsule(Producer(base, DT.ACL_INT64))
    del base
    gc.collect()
    assert released == [] and not imported.keepalive.released
    np.testing.assert_array_equal(view_of(imported), np.arange(6))
    imported.keepalive.release()
    assert released == [True] and imported.keepalive.released
    imported.keepalive.release()           # a second release does nothing
    del imported
    gc.collect()
    assert released == [True]


def test_imported_keepalive_released_by_garbage_collection_on_another_thread():
    base = np.arange(6, dtype=np.int64)
    released = release_counter(base)
    box = [dl.import_capsule(Producer(base, DT.ACL_INT64))]
    del base
    worker = threading.Thread(target=box.clear)
    worker.start()
    worker.join()
    gc.collect()
    assert released == [True]


def test_many_exchanges_leak_nothing():
    released: list = []
    for i in range(300):
        base = np.full(16, i, np.int32)
        weakref.finalize(base, released.append, i)
        producer = Producer(base, DT.ACL_INT32, mode=("legacy", "versioned", "negotiate")[i % 3])
        if i % 3 == 0:
            assert np.from_dlpack(producer)[0] == i
        elif i % 3 == 1:
            assert view_of(dl.import_capsule(producer))[15] == i
        else:
            producer.__dlpack__(max_version=(1, 1))     # made, never consumed
        del base, producer
    gc.collect()
    assert sorted(released) == list(range(300))


# --------------------------------------------------------------------------- import

@pytest.mark.parametrize("np_dtype,acl", NUMPY_DTYPES, ids=_name)
def test_import_numpy_every_dtype(np_dtype, acl):
    a = sample(np_dtype, (3, 4), seed=3)
    expected = a.copy()
    imported = dl.import_capsule(a)
    assert imported.dtype is acl
    assert (imported.ptr, imported.shape, imported.strides) == (address(a), (3, 4), (4, 1))
    assert imported.device == CPU and not imported.readonly and imported.nbytes_extent == a.nbytes
    shared = view_of(imported)
    np.testing.assert_array_equal(shared, expected)
    a[0] = flip(a[0])                                      # NumPy writes, we read
    np.testing.assert_array_equal(shared[0], flip(expected[0]))
    shared[2] = flip(shared[2])                            # we write, NumPy reads
    np.testing.assert_array_equal(a[2], flip(expected[2]))


def test_import_keeps_the_producer_memory_alive():
    a = np.arange(10.0)
    gone = weakref.ref(a)
    imported = dl.import_capsule(a)
    del a
    gc.collect()
    assert gone() is not None
    np.testing.assert_array_equal(view_of(imported), np.arange(10.0))
    del imported
    gc.collect()
    assert gone() is None


@pytest.mark.parametrize("index", [
    np.s_[::2, 1::3], np.s_[::-1], np.s_[:, ::-1], np.s_[::-2, ::-3], np.s_[1:2, 3], np.s_[...],
], ids=["step", "reversed-rows", "reversed-cols", "both-negative", "1-d", "all"])
@pytest.mark.parametrize("transpose", [False, True])
def test_import_numpy_strided(index, transpose):
    base = np.arange(42, dtype=np.float64).reshape(6, 7)
    view = (base.T if transpose else base)[index]
    imported = dl.import_capsule(view)
    assert imported.ptr == address(view)
    assert imported.strides == element_strides(view)      # negative ones passed through
    low, high = getattr(np.lib, "array_utils", np).byte_bounds(view)
    assert dl.byte_bounds(imported.shape, imported.strides, 8) == \
        (low - imported.ptr, high - imported.ptr)
    assert imported.nbytes_extent == high - imported.ptr
    shared = view_of(imported)
    np.testing.assert_array_equal(shared, view)
    before = view.copy()
    shared[...] = -shared                                  # we write, NumPy reads
    np.testing.assert_array_equal(view, -before)


def test_import_numpy_broadcast_and_read_only():
    a = np.arange(3, dtype=np.int32)
    wide = np.broadcast_to(a, (4, 3))                      # read-only, stride 0
    imported = dl.import_capsule(wide)
    assert imported.readonly and imported.strides == (0, 1) and imported.nbytes_extent == 12
    a.flags.writeable = False
    assert dl.import_capsule(a).readonly
    assert not dl.import_capsule(np.arange(3)).readonly


def test_import_0d_and_empty():
    scalar = np.array(3.5, np.float32)
    imported = dl.import_capsule(scalar)
    assert (imported.shape, imported.strides, imported.nbytes_extent) == ((), (), 4)
    assert view_of(imported)[()] == 3.5
    empty = dl.import_capsule(np.zeros((0, 4), np.int16))
    assert (empty.shape, empty.nbytes_extent, empty.dtype) == ((0, 4), 0, DT.ACL_INT16)


def test_import_refuses_byte_strides():
    packed = np.zeros(4, dtype=[("a", "<i4"), ("b", "u1")])["a"]   # 5-byte stride, 4-byte items
    with pytest.raises(BufferError, match="multiple of itemsize"):
        dl.import_capsule(packed)


def torch_cases(torch):
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    return {
        "contiguous": base, "step": base[:, ::2], "transposed": base.t(), "offset": base[1:, 2:],
        "0-d": torch.tensor(2.5), "empty": torch.zeros(0, 3),
        "bf16": torch.arange(6, dtype=torch.bfloat16), "bool": torch.tensor([True, False, True]),
        "int8": torch.arange(-3, 3, dtype=torch.int8),
        "complex64": torch.ones(3, dtype=torch.complex64),
        "fp8e4m3fn": torch.arange(4.0).to(torch.float8_e4m3fn),
        "fp8e5m2": torch.arange(4.0).to(torch.float8_e5m2),
        "fp8e8m0": torch.tensor([0.5, 1.0, 4.0]).to(torch.float8_e8m0fnu),
    }


TORCH_ACL = {"float32": DT.ACL_FLOAT, "bfloat16": DT.ACL_BF16, "bool": DT.ACL_BOOL,
             "int8": DT.ACL_INT8, "complex64": DT.ACL_COMPLEX64,
             "float8_e4m3fn": DT.ACL_FLOAT8_E4M3FN, "float8_e5m2": DT.ACL_FLOAT8_E5M2,
             "float8_e8m0fnu": DT.ACL_FLOAT8_E8M0}


@pytest.mark.parametrize("case", ["contiguous", "step", "transposed", "offset", "0-d", "empty",
                                  "bf16", "bool", "int8", "complex64", "fp8e4m3fn", "fp8e5m2",
                                  "fp8e8m0"])
def test_import_torch(case):
    torch = pytest.importorskip("torch")
    t = torch_cases(torch)[case]
    imported = dl.import_capsule(t)
    assert imported.dtype is TORCH_ACL[str(t.dtype).removeprefix("torch.")]
    assert imported.shape == tuple(t.shape) and imported.device == CPU
    if t.numel():
        assert imported.ptr == t.data_ptr()               # data_ptr includes the view's offset
        assert imported.strides == tuple(t.stride())
        raw = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
        shared = view_of(imported)
        assert shared.tobytes() == t.contiguous().view(raw).numpy().tobytes()   # bit for bit
        if t.numel() > 1:
            shared[0] = shared[-1]                         # we write, torch reads
            assert torch.equal(t[0].view(raw), t[-1].view(raw))


def test_import_torch_write_is_seen():
    torch = pytest.importorskip("torch")
    t = torch.zeros(4, dtype=torch.bfloat16)
    shared = view_of(dl.import_capsule(t))
    t[2] = 1.5                                             # torch writes, we read
    assert shared[2] == ml_dtypes.bfloat16(1.5) and shared.dtype == ml_dtypes.bfloat16
    shared[1] = ml_dtypes.bfloat16(-3.0)                   # we write, torch reads
    assert t[1].item() == -3.0


@pytest.mark.parametrize("name,words", [
    ("float8_e4m3fnuz", ["kDLFloat8_e4m3fnuz", "code=11"]),
    ("complex32", ["kDLComplex", "bits=32"]),
])
def test_import_torch_dtype_without_acl_type(name, words):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                    # "ComplexHalf support is experimental"
        t = torch.zeros(3, dtype=getattr(torch, name))
    with pytest.raises(dl.DLPackTypeError) as caught:
        dl.import_capsule(t)
    assert isinstance(caught.value, BufferError)
    for word in words:
        assert word in str(caught.value)


def test_import_jax():
    jax = pytest.importorskip("jax")
    x = jax.numpy.arange(6.0, dtype=jax.numpy.float32).reshape(2, 3)
    imported = dl.import_capsule(x)
    assert (imported.dtype, imported.shape) == (DT.ACL_FLOAT, (2, 3))
    assert imported.ptr == x.unsafe_buffer_pointer()
    np.testing.assert_array_equal(view_of(imported), np.arange(6.0).reshape(2, 3))


def tampered(change, dtype=DT.ACL_UINT8):
    """A versioned capsule over counted NumPy memory, with `change(managed)` applied to it."""
    base = np.arange(8, dtype=np.uint8)
    released = release_counter(base)
    capsule = dl.export_capsule(address(base), (2, 4), (4, 1), dtype, CPU, base, (1, 1))
    name = capsule_name(capsule)
    change(dl.DLManagedTensorVersioned.from_address(_api.PyCapsule_GetPointer(capsule, name)))
    return Returns(capsule), released, address(base)


def set_dtype(code, bits, lanes=1):
    def change(managed):
        managed.dl_tensor.dtype = dl.DLDataType(code, bits, lanes)
    return change


@pytest.mark.parametrize("change,kind,words", [
    (set_dtype(kDLFloat8_e4m3fnuz, 8), dl.DLPackTypeError, ["kDLFloat8_e4m3fnuz", "no aclDataType"]),
    (set_dtype(kDLFloat4_e2m1fn, 4), dl.DLPackTypeError, ["kDLFloat4_e2m1fn", "sub-byte"]),
    (set_dtype(kDLFloat, 32, 4), dl.DLPackTypeError, ["lanes=4", "vector"]),
    (set_dtype(kDLUInt, 12), dl.DLPackTypeError, ["kDLUInt", "bits=12"]),
    (set_dtype(99, 8), dl.DLPackTypeError, ["unknown type code 99"]),
    (lambda m: setattr(m.version, "major", 2), dl.DLPackValueError, ["version 2.1"]),
    (lambda m: setattr(m.dl_tensor, "ndim", -1), dl.DLPackValueError, ["ndim=-1"]),
])
def test_import_refusals_hand_the_tensor_back(change, kind, words):
    producer, released, _ = tampered(change)
    with pytest.raises(kind) as caught:
        dl.import_capsule(producer)
    assert isinstance(caught.value, BufferError)
    for word in words:
        assert word in str(caught.value)
    assert capsule_name(producer.capsule).startswith(b"used_")   # we took it, then deleted it
    del producer, caught
    gc.collect()
    assert released == [True]


def test_import_null_strides_mean_c_contiguous_and_byte_offset_is_added():
    def change(managed):
        managed.dl_tensor.strides = None
        managed.dl_tensor.data -= 16
        managed.dl_tensor.byte_offset = 16
    producer, released, ptr = tampered(change)
    imported = dl.import_capsule(producer)
    assert (imported.ptr, imported.shape, imported.strides, imported.nbytes_extent) == \
        (ptr, (2, 4), (4, 1), 8)
    np.testing.assert_array_equal(view_of(imported), np.arange(8).reshape(2, 4))
    del producer, imported
    gc.collect()
    assert released == [True]


def test_import_negotiates_as_the_standard_says():
    base = np.arange(4.0)
    producer = Producer(base, DT.ACL_DOUBLE)
    dl.import_capsule(producer)
    dl.import_capsule(producer, device=CPU, copy=False)
    assert producer.requests == [
        dict(stream=None, max_version=(1, 1), dl_device=None, copy=None),
        dict(stream=None, max_version=(1, 1), dl_device=(1, 0), copy=False)]


def test_import_falls_back_to_a_legacy_producer():
    base = np.arange(4.0)
    released = release_counter(base)
    legacy = LegacyProducer(dl.export_capsule(address(base), (4,), (1,), DT.ACL_DOUBLE, CPU, base))
    imported = dl.import_capsule(legacy, copy=True)
    assert imported.ptr == address(base) and not imported.copied   # the caller must copy
    mismatched = LegacyProducer(
        dl.export_capsule(address(base), (4,), (1,), DT.ACL_DOUBLE, CPU, base))
    with pytest.raises(dl.DLPackValueError, match=r"device \(1, 0\) but dl_device=\(2, 0\)"):
        dl.import_capsule(mismatched, device=CUDA)
    del base, legacy, mismatched, imported
    gc.collect()
    assert released == [True]


def test_import_refuses_a_copy_when_told_not_to():
    base = np.arange(4.0)
    with pytest.raises(dl.DLPackValueError, match="copy=False"):
        dl.import_capsule(Producer(base, DT.ACL_DOUBLE, copied=True), copy=False)


def test_import_refuses_what_is_not_dlpack():
    with pytest.raises(TypeError, match="has no __dlpack__"):
        dl.import_capsule(object())
    with pytest.raises(TypeError, match="not a DLPack capsule"):
        dl.import_capsule(Returns("capsule"))
    base = np.arange(3.0)
    twice = Returns(dl.export_capsule(address(base), (3,), (1,), DT.ACL_DOUBLE, CPU, base))
    dl.import_capsule(twice)
    with pytest.raises(dl.DLPackValueError, match="already consumed"):
        dl.import_capsule(twice)
    with pytest.raises(TypeError, match="copy"):
        dl.import_capsule(base, copy="yes")


_DELETER_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class CountingProducer:
    """A hand-built versioned DLManagedTensor whose deleter counts its calls (no destructor on
    the capsule: the test, not the capsule, owns the struct)."""

    def __init__(self, version=(1, 1), code=kDLFloat, bits=32):
        self.memory = np.arange(6, dtype=np.float32)
        self.shape = (ctypes.c_int64 * 1)(6)
        self.calls: list[int] = []
        self.deleter = _DELETER_TYPE(self.calls.append)
        self.managed = dl.DLManagedTensorVersioned()
        self.managed.version = dl.DLPackVersion(*version)
        self.managed.deleter = ctypes.cast(self.deleter, ctypes.c_void_p).value
        tensor = self.managed.dl_tensor
        tensor.data, tensor.ndim = address(self.memory), 1
        tensor.device = dl.DLDevice(1, 0)
        tensor.dtype = dl.DLDataType(code, bits, 1)
        tensor.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))

    def __dlpack__(self, **_):
        return _api.PyCapsule_New(ctypes.addressof(self.managed), b"dltensor_versioned", None)

    def __dlpack_device__(self):
        return CPU


def test_import_calls_the_producer_deleter_exactly_once():
    producer = CountingProducer()
    imported = dl.import_capsule(producer)
    np.testing.assert_array_equal(view_of(imported), np.arange(6))
    assert producer.calls == []
    imported.keepalive.release()
    imported.keepalive.release()
    del imported
    gc.collect()
    assert producer.calls == [ctypes.addressof(producer.managed)]

    collected = CountingProducer()
    dl.import_capsule(collected)            # the Imported is dropped at once
    gc.collect()
    assert len(collected.calls) == 1


@pytest.mark.parametrize("kwargs", [dict(version=(2, 0)), dict(code=kDLFloat8_e4m3fnuz, bits=8)])
def test_refused_import_calls_the_producer_deleter_once(kwargs):
    producer = CountingProducer(**kwargs)
    with pytest.raises(BufferError) as caught:
        dl.import_capsule(producer)
    # handed back at once, not when the exception (whose traceback holds the frames) goes
    assert producer.calls == [ctypes.addressof(producer.managed)]
    del caught
    gc.collect()
    assert producer.calls == [ctypes.addressof(producer.managed)]


# --------------------------------------------------------------------------- cuda (GPU machines)

class Owner:
    """Any Python object can own exported memory; this one can be counted."""

    def __init__(self, memory):
        self.memory = memory


class DeviceProducer:
    """export_capsule over device memory that a CUDA library owns."""

    def __init__(self, ptr, shape, strides, device, owner):
        self.args = (ptr, shape, strides, DT.ACL_FLOAT, device, owner)
        self.device = device

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return dl.export_capsule(*self.args, max_version=max_version)

    def __dlpack_device__(self):
        return self.device


@pytest.mark.cuda
def test_cuda_cupy_both_ways():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)
    view = x[:, 1::2]
    strides = tuple(s // 4 for s in view.strides)
    cuda = (2, x.device.id)
    # the standard's stream: 0 is refused, CuPy's null stream is the legacy default stream 1
    imported = dl.import_capsule(view, stream=cupy.cuda.get_current_stream().ptr or 1)
    assert (imported.ptr, imported.shape, imported.strides, imported.dtype, imported.device) == \
        (view.data.ptr, (3, 2), strides, DT.ACL_FLOAT, cuda)
    memory = cupy.cuda.UnownedMemory(imported.ptr, imported.nbytes_extent, imported.keepalive)
    shared = cupy.ndarray((3, 2), cupy.float32, cupy.cuda.MemoryPointer(memory, 0), view.strides)
    shared[1, 1] = 100.0                                   # we write, CuPy reads
    assert float(x[1, 3]) == 100.0

    owner = Owner(x)
    released = release_counter(owner)
    y = cupy.from_dlpack(DeviceProducer(view.data.ptr, (3, 2), strides, cuda, owner))
    assert y.data.ptr == view.data.ptr and y.strides == view.strides
    y[0, 0] = -1.0                                         # the consumer writes, the owner reads
    assert float(x[0, 1]) == -1.0
    x[2, 3] = 7.0                                          # the owner writes, the consumer reads
    assert float(y[2, 1]) == 7.0
    del owner, y
    gc.collect()
    assert released == [True]


@pytest.mark.cuda
def test_cuda_torch_both_ways():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("this PyTorch build has no CUDA")
    t = torch.arange(8, dtype=torch.float32, device="cuda")
    cuda = (2, t.device.index)
    imported = dl.import_capsule(t, stream=1)
    assert (imported.ptr, imported.device, imported.strides) == (t.data_ptr(), cuda, (1,))
    owner = Owner(t)
    released = release_counter(owner)
    u = torch.from_dlpack(DeviceProducer(t.data_ptr() + 8, (3,), (2,), cuda, owner))
    assert u.data_ptr() == t.data_ptr() + 8 and u.stride() == (2,)
    u[1] = -5.0                                            # the consumer writes, the owner reads
    assert t[4].item() == -5.0
    del owner, u
    gc.collect()
    assert released == [True]
