"""The cuda backend's logic on a machine without a GPU: CuPy's packing of our kernel
arguments, start-up (the probe kernel, what happens when there is no GPU or a broken one, and
NPU_EMU_DEVICE=auto's fallback with a logged reason), the error mapping of streams and events,
destroyed streams, and the pool's event fences. CuPy itself is real (the `test` extra installs
it); where a GPU would answer, small stand-ins take CuPy's device objects' place. What needs a
GPU runs in the cuda-marked tests and benchmarks/run_gpu_check.sh."""
from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from npu_emu import aclnn, device, runtime
from npu_emu.dtypes import aclDataType as DT
from npu_emu.runtime import cuda
from npu_emu.runtime.base import ALIGN, KernelBuildError, Launch, Pointer, Workspace
from npu_emu.kernels.indexing import coalesce, pack_params
from npu_emu.kernels.layout import layout_params_dtype
from npu_emu.status import (ACL_ERROR_INVALID_PARAM, ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                            ACLNN_ERR_RUNTIME_ERROR, AclnnError)

try:
    cupy = cuda.import_cupy()
    from cupy._core._scalar import CScalar
    from cupy_backends.cuda.api.runtime import CUDARuntimeError
    NO_CUPY = ""
except Exception as exc:
    NO_CUPY = f"CuPy is not installed ({exc}); pip install -e '.[test]'"
pytestmark = pytest.mark.skipif(bool(NO_CUPY), reason=NO_CUPY or "-")

GPU_HERE, _ = (False, "") if NO_CUPY else runtime.cuda_available()


# ------------------------------------------------------------------ argument packing

def _kernel_args() -> list:
    """One of every kind of argument the plans pass."""
    space3 = coalesce((3, 4, 5), [(20, 5, 1), (0, 5, 1), (20, 0, 1)])
    layout = np.zeros((), layout_params_dtype())
    layout["it"] = pack_params(coalesce((6, 7), [(7, 1), (1, 6), (1, 0), (0, 1)]), 2, 1)
    layout["bound"] = (5, 2**62)
    args = [pack_params(coalesce((9, 2), [(2, 1), (1, 9)]), 4), pack_params(space3, 3),
            layout[()], np.uint64(0xDEADBEEF00), np.int32(-7), np.float32(1.75),
            np.uint16(0x3C00), np.complex64(1.5 - 2j), np.complex128(-0.5 + 3j), np.bool_(True),
            np.int64(-(2**40)), np.float64(2.0**-1070)]
    try:
        from npu_emu.ops.matmul import cube_params_dtype
        p = np.zeros((), cube_params_dtype())
        p["m1"], p["k0"] = 3, 16
        args.append(p[()])
    except ImportError:
        pass
    return args


@pytest.mark.parametrize("arg", _kernel_args(), ids=lambda a: f"{a.dtype}"[:40])
def test_cupy_packs_our_kernel_arguments_byte_for_byte(arg):
    """CuPy's launcher wraps each argument in a CScalar and passes a pointer to its bytes:
    they must be exactly the NumPy value's, for structs of 200-424 bytes too (CuPy 14.0's
    packer asserted on anything over 64: the extras require >= 14.1)."""
    packed = CScalar(arg)
    assert ctypes.string_at(packed.ptr, arg.dtype.itemsize) == arg.tobytes()


def _bare_backend() -> cuda.CudaBackend:
    be = cuda.CudaBackend.__new__(cuda.CudaBackend)
    be._pack = cuda._scalar_wrapper()
    return be


def test_launch_arguments_are_packed_once_and_workspace_per_enqueue():
    be = _bare_backend()
    params = pack_params(coalesce((8,), [(1,), (1,)]), 4)
    fixed = Launch(None, (1, 1, 1), (256, 1, 1), (params, np.uint64(4096), np.uint64(8192)))
    first = be._args(fixed, 0)
    assert be._args(fixed, 0) is first and all(isinstance(a, CScalar) for a in first)
    assert ctypes.string_at(first[0].ptr, params.dtype.itemsize) == params.tobytes()
    marked = Launch(None, (1, 1, 1), (256, 1, 1), (params, Workspace(64), np.uint64(8192)))
    for base in (1 << 20, 2 << 20):
        args = be._args(marked, base)
        assert ctypes.string_at(args[1].ptr, 8) == np.uint64(base + 64).tobytes()
    assert marked.prepared is None


def test_a_moved_launch_packs_its_pointers_anew_and_shares_the_rest():
    """A launch moved to other memory (npu_emu.ops._bindings) reuses its origin's packed
    parameter struct and packs only its Pointer arguments: the bytes are those of packing
    it from scratch."""
    from npu_emu.ops._bindings import moved
    be = _bare_backend()
    params = pack_params(coalesce((8,), [(1,), (1,)]), 4)
    origin = Launch(None, (1, 1, 1), (256, 1, 1), (params, Pointer(4096 + 8), np.uint64(0)))
    packed = be._args(origin, 0)
    [launch] = moved([origin], (((1, 0, 8),),), (1 << 30,))
    assert launch.origin is origin and launch.prepared is None
    args = be._args(launch, 0)
    assert args[0] is packed[0] and args[2] is packed[2]
    assert ctypes.string_at(args[1].ptr, 8) == np.uint64((1 << 30) + 8).tobytes()
    fresh = be._args(Launch(None, (1, 1, 1), (256, 1, 1), launch.args), 0)
    assert [ctypes.string_at(a.ptr, 8) for a in args[1:]] == \
        [ctypes.string_at(a.ptr, 8) for a in fresh[1:]]


# --------------------------------------------------------------------------- start-up

@pytest.mark.skipif(GPU_HERE, reason="a GPU answers here")
def test_no_gpu_is_an_expected_unavailability():
    with pytest.raises(cuda.CudaUnavailable) as err:
        cuda.CudaBackend()
    assert err.value.expected and "no GPU" in str(err.value)


def test_missing_cupy_is_an_expected_unavailability(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(cuda.CudaUnavailable) as err:
        cuda.import_cupy()
    assert err.value.expected and "pip install 'npu-emu[cuda12]'" in str(err.value)


class _Module:
    """CuPy's Module where the driver refuses every image."""

    def load(self, image: bytes) -> None:
        assert image[:4] == b"\x7fELF"   # the probe compiled to a cubin
        raise RuntimeError("CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was compiled "
                           "with an unsupported toolchain")


def _gpu_that_cannot_load() -> SimpleNamespace:
    props = {"name": b"Stand-in H200", "multiProcessorCount": 132, "major": 9, "minor": 0}
    rt = SimpleNamespace(getDeviceCount=lambda: 1, getDeviceProperties=lambda i: props,
                         CUDARuntimeError=CUDARuntimeError, driverGetVersion=lambda: 13020,
                         runtimeGetVersion=lambda: 13020)
    return SimpleNamespace(__version__="14.2.0",
                           cuda=SimpleNamespace(runtime=rt, Device=lambda: SimpleNamespace(id=0),
                                                function=SimpleNamespace(Module=_Module)))


def test_a_gpu_that_cannot_run_the_probe_is_a_broken_install(monkeypatch):
    """CudaBackend() compiles the probe kernel with the real NVRTC for the device's arch and
    loads it: a driver that refuses it makes the backend unavailable (not expected), with the
    driver's reason, instead of every operator failing later."""
    monkeypatch.setattr(cuda, "import_cupy", _gpu_that_cannot_load)
    monkeypatch.setattr(cuda, "driver_missing", lambda: "")
    with pytest.raises(cuda.CudaUnavailable) as err:
        cuda.CudaBackend()
    assert not err.value.expected
    assert "cannot run kernels" in str(err.value) and "UNSUPPORTED_PTX_VERSION" in str(err.value)


def test_pick_arch():
    supported = (75, 80, 86, 89, 90, 100, 120)
    assert cuda.pick_arch(90, supported) == (90, True)
    assert cuda.pick_arch(95, supported) == (90, False)      # PTX the driver compiles
    with pytest.raises(cuda.CudaUnavailable, match="older than any"):
        cuda.pick_arch(60, supported)


@pytest.mark.skipif(GPU_HERE, reason="a GPU answers here: auto picks cuda")
def test_auto_falls_back_to_cpu_and_logs_why():
    code = ("import logging; logging.basicConfig(level=logging.INFO)\n"
            "from npu_emu import runtime; print(runtime.current().name)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, NPU_EMU_DEVICE="auto"))
    assert r.returncode == 0 and r.stdout.strip() == "cpu", r.stderr
    why = cuda.driver_missing() or "CuPy is installed but no GPU answers"
    assert ("INFO:npu_emu:NPU_EMU_DEVICE=auto: using the cpu backend, because the cuda backend "
            "is unavailable: " + why) in r.stderr


def test_the_driver_library_decides_before_cupy_is_imported(monkeypatch):
    """No NVIDIA driver: CudaBackend() says so without importing CuPy (about half a second,
    ml_dtypes' import most of it), and auto's first operation does not import it either."""
    assert cuda.driver_missing(ctypes.util.find_library("c") or "libc.so.6") == ""
    why = cuda.driver_missing("libnpu_emu_no_such_driver.so.1")
    assert why.startswith("no GPU here: the NVIDIA driver's library "
                          "libnpu_emu_no_such_driver.so.1 does not load (")
    monkeypatch.setattr(cuda, "driver_missing", lambda: why)
    monkeypatch.setattr(cuda, "import_cupy", lambda: pytest.fail("CuPy imported"))
    with pytest.raises(cuda.CudaUnavailable) as err:
        cuda.CudaBackend()
    assert err.value.expected and str(err.value) == why
    if cuda.driver_missing():       # this machine has no driver: a fresh process shows it
        code = ("import sys, npu_emu.array_api as xp\n"
                "x = xp.asarray([1.0, 2.0]); float(xp.sum(xp.exp(x + x)))\n"
                "print(sorted(m for m in ('cupy', 'ml_dtypes') if m in sys.modules))")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ, NPU_EMU_DEVICE="auto"))
        assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def test_auto_warns_when_a_gpu_is_there_but_unusable(monkeypatch, caplog):
    real = runtime.backend

    def backend(name):
        if name == "cuda":
            raise cuda.CudaUnavailable("the driver refused the probe kernel")
        return real(name)
    monkeypatch.setattr(runtime, "backend", backend)
    monkeypatch.setattr(runtime, "_current", None)
    monkeypatch.setenv("NPU_EMU_DEVICE", "auto")
    with caplog.at_level(logging.INFO, logger="npu_emu"):
        assert runtime.current().name == "cpu"
    [record] = [r for r in caplog.records if r.name == "npu_emu"]
    assert record.levelno == logging.WARNING and "the driver refused the probe kernel" in record.getMessage()


def test_an_nvrtc_compile_error_is_561003_at_the_c_style_layer(cpu_backend, monkeypatch):
    """A kernel NVRTC cannot build raises KernelBuildError, which the aclnn functions report
    as ACLNN_ERR_INNER_FIND_KERNEL_ERROR with NVRTC's log in the recent error message."""
    def nvrtc_build(module, name):
        cuda.compile_source('extern "C" __global__ void k() { missing_symbol(); }\n', module, 90)
    monkeypatch.setattr(cpu_backend, "function", nvrtc_build)
    a = device.from_numpy(np.ones(4, np.float32))
    out = device.empty([4], DT.ACL_FLOAT)
    alpha = aclnn.aclCreateScalar(1.0, DT.ACL_FLOAT)
    ws, ex, ret = aclnn.aclnnAddGetWorkspaceSize(a, a, alpha, out)
    assert ret == ACLNN_ERR_INNER_FIND_KERNEL_ERROR and ex is None
    assert "missing_symbol" in aclnn.aclGetRecentErrMsg()


# ------------------------------------------------------------- streams, events, pool

class _CupyStream:
    """CuPy's Stream: queued work completes when the test says so; errors on demand."""

    def __init__(self, non_blocking: bool = False) -> None:
        assert non_blocking
        self.ptr, self.busy, self.error, self.waited = 0x5000, False, None, []

    @property
    def done(self) -> bool:
        return not self.busy

    def synchronize(self) -> None:
        if self.error is not None:
            raise self.error
        self.busy = False

    def wait_event(self, event) -> None:
        self.waited.append(event)


class _CupyEvent:
    def __init__(self, block: bool = False, disable_timing: bool = False) -> None:
        self.stream, self.done, self.error = None, True, None

    def record(self, stream) -> None:
        self.stream, self.done = stream, stream.done
        created.append(self)

    def synchronize(self) -> None:
        if self.error is not None:
            raise self.error


created: list[_CupyEvent] = []


class _Runtime:
    """cudaMalloc/cudaFree over host memory; deviceSynchronize must never be called."""
    CUDARuntimeError = CUDARuntimeError

    def __init__(self) -> None:
        self.buffers: dict[int, np.ndarray] = {}

    def malloc(self, n: int) -> int:
        buf = np.empty(n + ALIGN, np.uint8)
        ptr = (buf.ctypes.data + ALIGN - 1) // ALIGN * ALIGN
        self.buffers[ptr] = buf
        return ptr

    def free(self, ptr: int) -> None:
        del self.buffers[ptr]

    def deviceSynchronize(self) -> None:
        raise AssertionError("the pool synchronized the device")


@pytest.fixture
def stand_in():
    created.clear()
    return SimpleNamespace(cuda=SimpleNamespace(Stream=_CupyStream, Event=_CupyEvent, runtime=_Runtime()))


def test_cuda_pool_fences_with_events_and_never_synchronizes(stand_in):
    streams: list[cuda.CudaStream] = []
    pool = cuda.CudaPool(stand_in, lambda: streams)
    s1, s2 = cuda.CudaStream(stand_in), cuda.CudaStream(stand_in)
    streams += [s1, s2]
    s1.stream.busy = True
    p = pool.malloc(4096)
    pool.free(p)                                     # an event on s1 only (s2 is idle)
    assert [e.stream for e in created] == [s1.stream]
    assert pool.malloc(4096) != p and pool.malloc(4096, s2) != p
    assert pool.malloc(4096, s1) == p                # s1's own work is ordered before it
    pool.free(p, s1)
    pool.empty_cache()                               # p's fence pending: kept
    assert p in stand_in.cuda.runtime.buffers
    created[-1].done = True                          # the event passed
    assert pool.malloc(4096, s2) == p
    pool.free(p)                                     # s1 is still busy: a new event
    assert not created[-1].done
    created[-1].done = True
    pool.empty_cache()
    assert pool.stats()["bytes_cached"] == 0 and p not in stand_in.cuda.runtime.buffers


def test_cuda_stream_and_event_errors_are_aclnn_errors(stand_in):
    s = cuda.CudaStream(stand_in)
    ev = cuda.CudaEvent(stand_in)
    illegal = CUDARuntimeError(700)   # cudaErrorIllegalAddress, as a faulting kernel leaves it
    s.stream.error = ev.event.error = illegal
    for call in (s.synchronize, ev.synchronize):
        with pytest.raises(AclnnError) as err:
            call()
        assert err.value.code == ACLNN_ERR_RUNTIME_ERROR and "cudaErrorIllegalAddress" in err.value.message
    with pytest.raises(AclnnError) as err:
        s.wait_event(object())
    assert err.value.code == ACL_ERROR_INVALID_PARAM


def test_a_destroyed_cuda_stream_refuses_use_as_the_cpu_one_does(stand_in, cpu_backend):
    gone = []
    s = cuda.CudaStream(stand_in, gone.append)
    ev = cuda.CudaEvent(stand_in)
    s.destroy()
    assert s.destroyed and gone == [s] and s.stream is None
    cpu = cpu_backend.create_stream()
    cpu.destroy()
    pairs = [(s.synchronize, cpu.synchronize), (lambda: s.wait_event(ev), lambda: cpu.wait_event(cpu_backend.create_event())),
             (lambda: ev.record(s), lambda: cpu_backend.create_event().record(cpu)), (s.destroy, cpu.destroy)]
    for on_cuda, on_cpu in pairs:
        errors = []
        for call in (on_cuda, on_cpu):
            with pytest.raises(AclnnError) as err:
                call()
            errors.append((err.value.code, err.value.message))
        assert errors[0] == errors[1]
        assert errors[0][0] == ACL_ERROR_INVALID_PARAM and "stream was destroyed" in errors[0][1]


def test_cuda_default_stream_cannot_be_destroyed(stand_in):
    s = cuda.CudaStream(stand_in)
    s.is_default = True
    with pytest.raises(AclnnError, match="default stream cannot be destroyed"):
        s.destroy()
    assert not s.destroyed


def test_compile_errors_from_the_cuda_cache_are_kernel_build_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("NPU_EMU_CACHE_DIR", str(tmp_path))
    cache = cuda.CudaModuleCache(90, loader=None)
    with pytest.raises(KernelBuildError, match="no kernel source"):
        cache.load("nope.cu")
