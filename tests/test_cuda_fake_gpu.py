"""The cuda backend started and driven on a machine without a GPU: a stand-in for CuPy's
device objects (a "GPU" whose memory is host memory, whose streams run their work when they
are synchronized, and whose runtime calls are logged) takes CuPy's place, while the compile
(the real NVRTC) and the argument packing (CuPy 14.2's real CScalar) stay real. What it proves:
the start-up probe is one real packed launch; an old CuPy or a driver older than the runtime
is refused or reported with both versions; events, stream destroy, the pool's out-of-memory
path, pinned host memory and the hand-over of memory to other libraries behave as the cpu
backend and the interchange standards say. What only a GPU can show (real ordering, speed)
is in benchmarks/run_gpu_check.sh."""
from __future__ import annotations

import ctypes
import functools
import itertools
import logging
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from npu_emu import acl, runtime
from npu_emu.runtime import cuda
from npu_emu.runtime.base import ALIGN
from npu_emu.status import ACL_ERROR_BAD_ALLOC, ACL_ERROR_INVALID_PARAM, AclnnError

try:
    cuda.import_cupy()
    cuda.nvrtc_version()
    from cupy._core._scalar import CScalar
    from cupy_backends.cuda.api.runtime import CUDARuntimeError
    NO_CUPY = ""
except Exception as exc:
    NO_CUPY = f"CuPy with NVRTC is not installed ({exc}); pip install -e '.[test]'"
pytestmark = pytest.mark.skipif(bool(NO_CUPY), reason=NO_CUPY or "-")

GPU_HERE = False if NO_CUPY else runtime.cuda_available()[0]
_handles = itertools.count(0x7000, 0x10)


class FakeGPU:
    """The device side: memory (host buffers), a log of runtime calls, streams' state."""

    def __init__(self, capacity: int = 1 << 26) -> None:
        self.capacity, self.used = capacity, 0
        self.buffers: dict[int, np.ndarray] = {}
        self.log: list[tuple] = []
        self.launches: list[tuple] = []
        self.cupy_pool_bytes = 0         # what CuPy's own pool holds unused


class FakeRuntime:
    """cupy.cuda.runtime over a FakeGPU; deviceSynchronize must never be called."""
    CUDARuntimeError = CUDARuntimeError
    eventDisableTiming = 2

    def __init__(self, gpu: FakeGPU, driver: int = 13020, runtime_version: int = 13020,
                 device_count_error: Exception | None = None) -> None:
        self.gpu, self.driver, self.runtime = gpu, driver, runtime_version
        self.device_count_error = device_count_error

    def getDeviceCount(self) -> int:
        if self.device_count_error is not None:
            raise self.device_count_error
        return 1

    def getDeviceProperties(self, i: int) -> dict:
        return {"name": b"Stand-in H200", "multiProcessorCount": 132, "major": 9, "minor": 0}

    def driverGetVersion(self) -> int:
        return self.driver

    def runtimeGetVersion(self) -> int:
        return self.runtime

    def malloc(self, n: int) -> int:
        if self.gpu.used + n > self.gpu.capacity:
            raise CUDARuntimeError(2)   # cudaErrorMemoryAllocation
        buf = np.zeros(n + ALIGN, np.uint8)
        ptr = (buf.ctypes.data + ALIGN - 1) // ALIGN * ALIGN
        self.gpu.buffers[ptr] = buf
        self.gpu.used += n
        self.gpu.log.append(("malloc", n))
        return ptr

    def free(self, ptr: int) -> None:
        buf = self.gpu.buffers.pop(ptr)
        self.gpu.used -= buf.nbytes - ALIGN
        self.gpu.log.append(("free", ptr))

    def memcpyAsync(self, dst, src, n, kind, stream) -> None:
        ctypes.memmove(dst, src, n)
        self.gpu.log.append(("memcpyAsync", kind, stream))

    def memsetAsync(self, ptr, value, n, stream) -> None:
        ctypes.memset(ptr, value, n)

    def deviceSynchronize(self) -> None:
        raise AssertionError("the backend synchronized the whole device")

    def eventCreateWithFlags(self, flags: int) -> int:
        handle = next(_handles)
        self.gpu.log.append(("eventCreate", handle, flags))
        return handle

    def eventRecord(self, event: int, stream: int) -> None:
        self.gpu.log.append(("eventRecord", event, stream))

    def streamWaitEvent(self, stream: int, event: int, flags: int = 0) -> None:
        self.gpu.log.append(("streamWaitEvent", stream, event))

    def eventDestroy(self, event: int) -> None:
        self.gpu.log.append(("eventDestroy", event))


def fake_cupy(gpu: FakeGPU, version: str = "14.2.0", **runtime_kw) -> SimpleNamespace:
    """A CuPy whose device objects are stand-ins over `gpu`."""
    rt = FakeRuntime(gpu, **runtime_kw)

    class Stream:
        """Queued work (`busy`) completes when the stream is synchronized."""

        def __init__(self, non_blocking: bool = False) -> None:
            assert non_blocking, "every stream of ours is non-blocking"
            self.ptr, self.busy, self.error = next(_handles), False, None

        @property
        def done(self) -> bool:
            return not self.busy

        def synchronize(self) -> None:
            gpu.log.append(("streamSynchronize", self.ptr))
            if self.error is not None:
                raise self.error
            self.busy = False

        def wait_event(self, event) -> None:
            gpu.log.append(("wait_event", self.ptr))

    class Event:
        """Passes when its stream's work (queued at record) has completed."""

        def __init__(self, block: bool = False, disable_timing: bool = False) -> None:
            self.stream, self.time = None, None

        def record(self, stream) -> None:
            self.stream, self.time = stream, len(gpu.log)
            self._pending = stream.busy

        @property
        def done(self) -> bool:
            return self.stream is None or not (self._pending and self.stream.busy)

        def synchronize(self) -> None:
            if self.stream is not None:
                self.stream.synchronize()

    class Function:
        def __init__(self, name: str) -> None:
            self.name = name

        def __call__(self, grid, block, args, stream=None) -> None:
            gpu.launches.append((self.name, grid, block, args, stream))
            if self.name == "npu_emu_probe":   # run it: read the bytes the packer passes
                [arg] = args
                dtype = cuda.probe_params(0).dtype
                p = np.frombuffer(ctypes.string_at(arg.ptr, dtype.itemsize), dtype)[0]
                out = cuda.probe_expected(p)
                ctypes.memmove(int(p["out"]), out.ctypes.data, out.nbytes)

    class Module:
        def load(self, image: bytes) -> None:
            assert image[:4] == b"\x7fELF"   # NVRTC made a cubin

        def get_function(self, name: str) -> Function:
            return Function(name)

    class PinnedMemory:
        def __init__(self, n: int) -> None:
            self.buf = np.zeros(n + 4096, np.uint8)
            self.ptr = (self.buf.ctypes.data + 4095) // 4096 * 4096

    def alloc_pinned_memory(n: int) -> PinnedMemory:
        gpu.log.append(("alloc_pinned_memory", n))
        return PinnedMemory(n)

    def free_all_blocks() -> None:
        gpu.log.append(("free_all_blocks",))
        gpu.used -= gpu.cupy_pool_bytes
        gpu.cupy_pool_bytes = 0

    return SimpleNamespace(
        __version__=version,
        get_default_memory_pool=lambda: SimpleNamespace(free_all_blocks=free_all_blocks),
        cuda=SimpleNamespace(runtime=rt, Stream=Stream, Event=Event,
                             Device=lambda: SimpleNamespace(id=0),
                             function=SimpleNamespace(Module=Module),
                             alloc_pinned_memory=alloc_pinned_memory,
                             get_elapsed_time=lambda a, b: float(b.time - a.time)))


@functools.lru_cache(maxsize=None)
def _compiled(source: str, name: str, arch: int, real: bool = True, extra: tuple = ()):
    return _real_compile(source, name, arch, real, extra)


_real_compile = cuda.compile_source


@pytest.fixture
def gpu(monkeypatch):
    """A FakeGPU; `start(**kw)` makes a CudaBackend on it (the probe compiled by the real
    NVRTC once per session)."""
    monkeypatch.setattr(cuda, "compile_source", _compiled)
    monkeypatch.setattr(cuda, "driver_missing", lambda: "")   # the stand-in is the driver too
    g = FakeGPU()

    def start(**kw) -> cuda.CudaBackend:
        monkeypatch.setattr(cuda, "import_cupy", lambda: fake_cupy(g, **kw))
        return cuda.CudaBackend()
    g.start = start
    return g


def calls(gpu: FakeGPU, name: str) -> list[tuple]:
    return [c for c in gpu.log if c[0] == name]


# --------------------------------------------------------------------------- start-up

def test_the_probe_is_one_real_packed_struct_launch(gpu):
    """The probe passes a 256-byte parameter struct through CuPy's real packer (CScalar) on
    the default stream, as every operator launch does; the stand-in kernel reads the bytes the
    packer hands to the driver, and the backend starts only because they are exact."""
    be = gpu.start()
    [(name, grid, block, args, stream)] = gpu.launches
    assert (name, grid, block) == ("npu_emu_probe", (1, 1, 1), (32, 1, 1))
    assert stream is be.default_stream.stream
    [arg] = args
    assert isinstance(arg, CScalar)
    params = np.frombuffer(ctypes.string_at(arg.ptr, 256), cuda.probe_params(0).dtype)[0]
    assert params.dtype.itemsize == 256 and int(params["base"]) == 0x600D
    assert int(params["words"][29]) == (30 << 40) | (29 * 0x01000193)
    assert calls(gpu, "memcpyAsync")[-1][1:] == (2, be.default_stream.ptr)  # read back, DtoH
    stats = be.memory_stats()
    assert stats["bytes_in_use"] == stats["bytes_cached"] == 0 and not gpu.buffers


def test_the_probe_struct_is_the_kernels_parameter_as_nvrtc_lays_it_out():
    _, ptx = _compiled(cuda.PROBE_SOURCE, "npu_emu_probe.cu", 90)
    assert ".param .align 8 .b8 npu_emu_probe_param_0[256]" in ptx
    assert cuda.probe_params(0).dtype.itemsize == 256


def test_a_packer_that_garbles_the_struct_stops_the_backend(gpu, monkeypatch):
    """As CuPy 14.0's did with structs over 64 bytes: the probe sees wrong bytes, so
    NPU_EMU_DEVICE=auto picks the cpu backend instead of failing every operator."""
    monkeypatch.setattr(cuda, "_scalar_wrapper",
                        lambda: lambda a: CScalar(np.frombuffer(a.tobytes()[:64] + bytes(192), a.dtype)[0]))
    with pytest.raises(cuda.CudaUnavailable) as err:
        gpu.start()
    assert not err.value.expected and "does not pass kernel arguments" in str(err.value)


def _auto_choice(monkeypatch, caplog) -> logging.LogRecord:
    """NPU_EMU_DEVICE=auto's choice in a fresh state, and the one record it logged."""
    monkeypatch.setattr(runtime, "_backends", {})
    monkeypatch.setattr(runtime, "_current", None)
    monkeypatch.setenv("NPU_EMU_DEVICE", "auto")
    with caplog.at_level(logging.INFO, logger="npu_emu"):
        assert runtime.current().name == "cpu"
    [record] = [r for r in caplog.records if r.name == "npu_emu"]
    return record


def test_a_cupy_without_a_struct_packer_is_refused_with_the_reason(gpu, monkeypatch, caplog):
    with pytest.raises(cuda.CudaUnavailable) as err:
        gpu.start(version="14.0.1")
    assert not err.value.expected and "CuPy 14.0.1 is older than 14.1" in str(err.value)
    assert gpu.launches == [] and gpu.log == []          # refused before touching the GPU
    record = _auto_choice(monkeypatch, caplog)
    assert record.levelno == logging.WARNING and "CuPy 14.0.1 is older than 14.1" in record.getMessage()
    assert "older than 14.1" in runtime.cuda_available()[1].splitlines()[0]   # npu-emu info's line


def test_a_driver_older_than_the_runtime_is_a_warning_with_both_versions(gpu, monkeypatch, caplog):
    insufficient = CUDARuntimeError(35)   # cudaErrorInsufficientDriver
    with pytest.raises(cuda.CudaUnavailable) as err:
        gpu.start(driver=12020, runtime_version=13020, device_count_error=insufficient)
    message = str(err.value)
    assert not err.value.expected
    assert "driver supports CUDA 12.2, older than CuPy's CUDA runtime 13.2" in message
    assert "cudaErrorInsufficientDriver" in message
    record = _auto_choice(monkeypatch, caplog)
    assert record.levelno == logging.WARNING and "CUDA 12.2" in record.getMessage() \
        and "13.2" in record.getMessage()
    assert "CUDA 12.2" in runtime.cuda_available()[1].splitlines()[0]


def test_no_driver_at_all_stays_an_expected_unavailability(gpu):
    with pytest.raises(cuda.CudaUnavailable) as err:
        gpu.start(driver=0, device_count_error=CUDARuntimeError(35))
    assert err.value.expected and "no GPU answers" in str(err.value)


def test_a_driver_that_runs_an_older_minor_version_warns_and_says_so_in_info(gpu, caplog):
    with caplog.at_level(logging.INFO, logger="npu_emu"):
        be = gpu.start(driver=13000, runtime_version=13020)
    [record] = [r for r in caplog.records if r.name == "npu_emu"]
    assert record.levelno == logging.WARNING and "CUDA 13.0, older than CuPy's CUDA runtime 13.2" \
        in record.getMessage()
    info = be.info()
    assert info["cuda_runtime"] == "13.2" and info["cuda_driver"].startswith("13.0 (older than")
    assert gpu.start().info()["cuda_driver"] == "13.2"


# ---------------------------------------------------------------------------- events

def test_elapsed_time_of_events_not_recorded_or_not_done_is_100000_as_on_cpu(gpu, cpu_backend):
    be = gpu.start()
    cases = []
    for b in (be, cpu_backend):
        s = b.create_stream()
        start, end = b.create_event(timing=True), b.create_event(timing=True)
        got = []
        with pytest.raises(AclnnError) as err:
            start.elapsed_ms(end)                    # never recorded
        got.append((err.value.code, err.value.message))
        start.record(s)
        start.synchronize()
        with pytest.raises(AclnnError) as err:
            start.elapsed_ms(end)                    # end never recorded
        got.append((err.value.code, err.value.message))
        end.record(s)
        end.synchronize()
        assert start.elapsed_ms(end) >= 0.0
        s.destroy()
        cases.append(got)
    assert cases[0] == cases[1]
    assert cases[0][0] == (ACL_ERROR_INVALID_PARAM,
                           "start event has not completed (record it, then synchronize)")


def test_elapsed_time_of_an_event_still_pending_is_100000(gpu):
    be = gpu.start()
    s = be.create_stream()
    start, end = be.create_event(timing=True), be.create_event(timing=True)
    start.record(s)
    s.stream.busy = True                             # work queued before `end`
    end.record(s)
    with pytest.raises(AclnnError) as err:
        start.elapsed_ms(end)
    assert err.value.code == ACL_ERROR_INVALID_PARAM and "end event has not completed" in err.value.message


# --------------------------------------------------------------------------- streams

def test_destroy_waits_for_the_queued_work_and_then_its_blocks_are_safe(gpu):
    """As the cpu backend joins its worker: destroy returns once the work queued on the stream
    has run, so a block that work used is never handed out while it still runs, even when
    it is freed afterwards with stream None (which fences only live streams)."""
    be = gpu.start()
    s = be.create_stream()
    n = 1 << 20
    blk = be.malloc(n)
    s.stream.busy = True                             # kernels on blk still queued
    cupy_stream = s.stream
    s.destroy()
    assert calls(gpu, "streamSynchronize")[-1] == ("streamSynchronize", cupy_stream.ptr)
    assert cupy_stream.done and s not in be._live_streams()
    be.free(blk)                                     # no live stream has work: no fence
    assert be.malloc(n) == blk                       # safe: the destroyed stream's work is done


def test_a_block_freed_on_a_stream_then_destroyed_is_reused_after_its_work(gpu):
    be = gpu.start()
    s, other = be.create_stream(), be.create_stream()
    n = 1 << 20
    blk = be.malloc(n, s)
    s.stream.busy = True
    be.free(blk, s)                                  # fenced by an event on s
    assert be.malloc(n, other) != blk                # s's work pending: not for another stream
    s.destroy()
    assert be.malloc(n, other) == blk                # destroy waited: the fence has passed


def test_a_failure_of_the_destroyed_streams_work_is_reported_and_the_stream_is_gone(gpu):
    be = gpu.start()
    s = be.create_stream()
    s.stream.busy, s.stream.error = True, CUDARuntimeError(700)   # an illegal address
    with pytest.raises(AclnnError) as err:
        s.destroy()
    assert "cudaErrorIllegalAddress" in err.value.message
    assert s.destroyed and s not in be._live_streams()


# --------------------------------------------------------------- other libraries

def test_consumer_streams_wait_on_an_event_with_stream_wait_event(gpu):
    """The DLPack handshake without CuPy's deprecated ExternalStream (the stand-in CuPy has
    none: using it would fail): an event recorded on our default stream, the consumer's
    stream made to wait on it, the event released; no host wait; nothing for our own stream."""
    be = gpu.start()
    ours = be.default_stream.ptr
    gpu.log.clear()
    from npu_emu.array_api._engine import interop as _interop
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        _interop._wait_for_us(be, None)               # a consumer that passes no stream
        _interop._wait_for_us(be, 0x1234)             # a consumer's own stream
        _interop._wait_for_us(be, ours)
        _interop._wait_for_us(be, -1)
    [(_, e1, f1), (_, e2, _)] = calls(gpu, "eventCreate")
    assert f1 == FakeRuntime.eventDisableTiming
    assert [c for c in gpu.log if c[0] != "eventCreate"] == [
        ("eventRecord", e1, ours), ("streamWaitEvent", cuda.LEGACY_STREAM, e1), ("eventDestroy", e1),
        ("eventRecord", e2, ours), ("streamWaitEvent", 0x1234, e2), ("eventDestroy", e2)]


def test_handing_memory_over_orders_both_default_streams_and_never_waits(gpu):
    """hand_over (a __cuda_array_interface__ export, an imported array let go): the legacy
    and per-thread default streams wait for our default stream on the device."""
    be = gpu.start()
    ours = be.default_stream.ptr
    be.default_stream.stream.busy = True
    gpu.log.clear()
    be.hand_over()
    assert [c[1:] for c in calls(gpu, "streamWaitEvent")] == [
        (cuda.LEGACY_STREAM, calls(gpu, "eventRecord")[0][1]),
        (cuda.PER_THREAD_STREAM, calls(gpu, "eventRecord")[1][1])]
    assert {c[2] for c in calls(gpu, "eventRecord")} == {ours}
    assert not calls(gpu, "streamSynchronize") and be.default_stream.stream.busy


def test_dropping_an_imported_array_does_not_synchronize(gpu):
    from npu_emu.array_api._engine.device import Storage, release_pending
    be = gpu.start()
    owner = np.zeros(4096, np.uint8)                 # memory another library owns
    st = Storage.external(owner.ctypes.data, owner.nbytes, be, owner)
    assert be.allocator.contains(owner.ctypes.data, owner.nbytes)
    be.default_stream.stream.busy = True             # our kernels on it still queued
    gpu.log.clear()
    del st
    release_pending()                                # the next safe point does the release
    assert not calls(gpu, "streamSynchronize")
    assert [c[1] for c in calls(gpu, "streamWaitEvent")] == [cuda.LEGACY_STREAM, cuda.PER_THREAD_STREAM]
    assert not be.allocator.contains(owner.ctypes.data, owner.nbytes)


def test_cupy_views_of_our_memory_carry_the_device_id(gpu):
    """UnownedMemory made with the device id asks CUDA nothing (without it, CuPy 14.2 calls
    cudaPointerGetAttributes for every view, which fails on this machine with no driver)."""
    import cupy
    from npu_emu.array_api._engine.device import Storage, memory_view
    be = gpu.start()
    st = Storage.allocate(1024, be)
    view = memory_view(st, st.ptr + 16, (4, 3), (3, 1), np.float32)
    assert isinstance(view, cupy.ndarray) and view.data.mem.device_id == be.device_id == 0
    assert view.data.ptr == st.ptr + 16 and view.strides == (12, 4)
    if not GPU_HERE:
        with pytest.raises(CUDARuntimeError):
            cupy.cuda.UnownedMemory(st.ptr, st.nbytes, st)


# ------------------------------------------------------------------------ host memory

def test_malloc_host_is_pinned_and_copies_from_it_stay_asynchronous(gpu):
    be = gpu.start()
    s = be.create_stream()
    n = 1 << 16
    host = be.malloc_host(n)
    assert calls(gpu, "alloc_pinned_memory") == [("alloc_pinned_memory", n)] and host % ALIGN == 0
    view = np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(host))
    view[:] = np.arange(n) % 251
    dev = be.malloc(n)
    gpu.log.clear()
    be.copy_from_host(dev, view, s)                  # pinned, on a stream: no wait
    assert not calls(gpu, "streamSynchronize")
    be.copy_from_host(dev, view[: n // 2], s)        # a part of it too
    assert not calls(gpu, "streamSynchronize")
    pageable = np.arange(n, dtype=np.uint8)
    be.copy_from_host(dev, pageable, s)              # pageable: waits (the source is free at return)
    assert calls(gpu, "streamSynchronize") == [("streamSynchronize", s.ptr)]
    be.copy_from_host(dev, view)                     # no stream: synchronous, as always
    assert calls(gpu, "streamSynchronize")[-1] == ("streamSynchronize", be.default_stream.ptr)
    assert be.free_host(host) and not be.free_host(host)
    gpu.log.clear()
    be.copy_from_host(dev, view, s)                  # no longer ours: treated as pageable
    assert calls(gpu, "streamSynchronize") == [("streamSynchronize", s.ptr)]


def test_acl_malloc_host_is_the_backends_pinned_memory(gpu, monkeypatch):
    be = gpu.start()
    monkeypatch.setattr(runtime, "_current", be)
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    n = 4096
    host, ret = acl.rt.malloc_host(n)
    assert ret == 0 and calls(gpu, "alloc_pinned_memory")[-1] == ("alloc_pinned_memory", n)
    stream, _ = acl.rt.create_stream()
    dev, _ = acl.rt.malloc(n)
    gpu.log.clear()
    K = acl.rt.aclrtMemcpyKind
    assert acl.rt.memcpy_async(dev, n, host, n, K.ACL_MEMCPY_HOST_TO_DEVICE, stream) == 0
    assert calls(gpu, "memcpyAsync") == [("memcpyAsync", 1, stream.ptr)]
    assert not calls(gpu, "streamSynchronize")
    assert acl.rt.free_host(host) == 0
    assert acl.rt.free_host(host) == ACL_ERROR_INVALID_PARAM


# ------------------------------------------------------------------------ out of memory

def test_out_of_memory_waits_for_destroyed_streams_frees_and_releases_cupys_pool(gpu):
    """Before giving up: blocks fenced by a stream destroyed since (its fence passes once
    waited for) are released, and so is what CuPy's own pool caches unused."""
    be = gpu.start()
    gpu.capacity, mib = gpu.used + (8 << 20), 1 << 20
    s = be.create_stream()
    blk = be.malloc(4 * mib, s)
    s.stream.busy = True
    be.free(blk, s)                                  # cached, fenced by s's pending work
    s._destroyed = True                              # gone from the live list, fence pending
    be._forget(s)
    gpu.cupy_pool_bytes = 3 * mib                    # CuPy's pool caches 3 MiB unused
    gpu.used += gpu.cupy_pool_bytes
    gpu.log.clear()
    big = be.malloc(6 * mib)                         # needs both
    assert calls(gpu, "free") == [("free", blk)] and calls(gpu, "free_all_blocks")
    assert ("streamSynchronize", s.stream.ptr) in gpu.log
    be.free(big)
    with pytest.raises(AclnnError) as err:
        be.malloc(64 * mib)
    assert err.value.code == ACL_ERROR_BAD_ALLOC


def test_empty_cache_releases_nothing_while_a_fence_is_pending(gpu):
    """cudaFree waits for the whole device: empty_cache frees only blocks whose fences have
    passed, and calls cudaFree not at all when there are none."""
    be = gpu.start()
    s = be.create_stream()
    blk = be.malloc(1 << 20, s)
    s.stream.busy = True
    be.free(blk, s)
    gpu.log.clear()
    be.empty_cache()
    assert not calls(gpu, "free") and be.memory_stats()["bytes_cached"] > 0
    s.synchronize()
    be.empty_cache()
    assert calls(gpu, "free") == [("free", blk)]


def test_numpys_in_place_ufunc_at_refuses_an_array_on_the_gpu(gpu):
    """np.add.at(x, ...) works in place. An array on the GPU has no host view, and NumPy's
    call on a host copy would change nothing, so it is a TypeError that says so (on the cpu
    backend it changes x: tests/array_api/test_numpy_protocols.py)."""
    from npu_emu.array_api._engine.array import empty_array
    from npu_emu.dtypes import aclDataType
    be = gpu.start()
    x = empty_array((3,), aclDataType.ACL_DOUBLE, be)
    with pytest.raises(TypeError, match=r"np\.add\.at: our array on .* has no host view"):
        np.add.at(x, [0, 1], 1.0)
