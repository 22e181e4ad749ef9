"""The cuda backend: the shared stream-ordered pool over cudaMalloc, non-blocking streams,
CUDA events, and the sources of `kernels_cuda/` compiled by NVRTC to a cubin that CuPy loads.

- compiler: NVRTC through CuPy's binding, with our options only. (CuPy's RawModule appends
  -ftz=true, which flushes subnormals and breaks bit identity with the cpu backend; and its
  compile_using_nvrtc asks the device for its arch, so it cannot run on a machine without a
  GPU.) `compile_module` is the one compile path: the backend, `npu-emu`, and the tests on
  machines without a GPU all call it. Cubins are cached on disk, keyed by the sources, the
  options, the NVRTC version and the arch.
- allocator: `base.Allocator` over cudaMalloc; a fence is a CUDA event recorded on a stream
  with queued work, so a free never synchronizes.
- streams: all non-blocking; copies with stream None run on the default stream and wait
  (see `base.Backend`), since a legacy-stream copy is not ordered with non-blocking streams.
  Other libraries' streams are ordered after ours at every hand-over (`order_for`: an event
  recorded on ours, cudaStreamWaitEvent on theirs), never by blocking the host.
- host memory: acl.rt.malloc_host is page-locked (CuPy's pinned pool), so a copy from it on
  a stream stays asynchronous; other host memory is pageable and its uploads wait.

Importing this module does not import CuPy; `CudaBackend()` does, compiles and runs one tiny
kernel, and fails with one clear `CudaUnavailable` when any of that does not work.
"""
from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import re
import struct
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..status import AclnnError, ACL_ERROR_INVALID_PARAM, ACLNN_ERR_RUNTIME_ERROR
from .base import (Allocator, Backend, Event, Kernel, KernelBuildError, Launch, ModuleCache,
                   Pointer, Stream, Workspace, cache_dir, host_destination, kernel_sources_hash,
                   kernels_dir, refuse_default_destroy)

# NVRTC options: C++17, no FMA contraction, IEEE denormals, division and square root, so that
# results match the cpu backend bit for bit (these are NVRTC's defaults, stated so that no
# default or appended flag can change them unseen).
NVRTC_OPTIONS = ("-std=c++17", "--fmad=false", "-ftz=false", "-prec-div=true", "-prec-sqrt=true")
BLOCK = 256
VECTOR_BYTES = 16          # one vector load/store per thread and operand

_MEMCPY_HTOD, _MEMCPY_DTOH, _MEMCPY_DTOD = 1, 2, 3
_CUDA_ERROR_MEMORY_ALLOCATION = 2
LEGACY_STREAM, PER_THREAD_STREAM = 1, 2    # the default streams' handles (cudaStreamLegacy...)

# The oldest CuPy whose kernel-argument packer passes structs over 64 bytes (14.0's asserted on
# them); every operator passes its parameters as such a struct.
MIN_CUPY = (14, 1)

# The module CudaBackend() compiles, loads and runs once at start. Its argument is a parameter
# struct as the operators pass theirs (256 bytes, through CuPy's packer), so a packer that
# drops or shifts bytes fails here, not in every operator later.
PROBE_WORDS = 30
PROBE_SOURCE = f"""#include "npu_emu_common.cuh"
struct ProbeArgs {{ uint32_t* out; uint32_t base; uint32_t step; uint64_t words[{PROBE_WORDS}]; }};
extern "C" __global__ void npu_emu_probe(ProbeArgs a) {{
    a.out[threadIdx.x] = a.base + a.step * threadIdx.x + (uint32_t)a.words[threadIdx.x % {PROBE_WORDS}];
}}
"""
PROBE_THREADS = 32


def probe_params(out: int) -> np.void:
    """The probe kernel's argument: a ProbeArgs struct writing to `out`."""
    dtype = np.dtype([("out", "<u8"), ("base", "<u4"), ("step", "<u4"),
                      ("words", "<u8", (PROBE_WORDS,))])
    p = np.zeros((), dtype)
    p["out"], p["base"], p["step"] = out, 0x600D, 3
    # High halves set: a packer that shifts or truncates the struct changes the low halves read.
    p["words"] = (np.arange(1, PROBE_WORDS + 1, dtype=np.uint64) << np.uint64(40)) \
        | np.arange(PROBE_WORDS, dtype=np.uint64) * np.uint64(0x01000193)
    return p[()]


def probe_expected(params: np.void) -> np.ndarray:
    """What the probe kernel writes for `params` (uint32 arithmetic, wrapping as on the GPU)."""
    i = np.arange(PROBE_THREADS, dtype=np.uint64)
    words = params["words"].astype(np.uint64)[i % PROBE_WORDS] & np.uint64(0xFFFFFFFF)
    return ((int(params["base"]) + int(params["step"]) * i + words) & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def cuda_version(v: int) -> str:
    """A CUDA version number (12080) as CUDA writes it (12.8)."""
    return f"{v // 1000}.{v % 1000 // 10}"


def cupy_version_problem(version: str) -> str:
    """Why this CuPy cannot run our kernels, or ""."""
    parts = [int(x) for x in re.findall(r"\d+", version)[:2]]
    if len(parts) == 2 and tuple(parts) < MIN_CUPY:
        return (f"CuPy {version} is older than {MIN_CUPY[0]}.{MIN_CUPY[1]}: its kernel-argument "
                f"packer cannot pass the parameter structs every operator uses; install CuPy "
                f">= {MIN_CUPY[0]}.{MIN_CUPY[1]} (pip install 'npu-emu[cuda12]' or 'npu-emu[cuda13]')")
    return ""


def driver_problem(driver: int, runtime: int) -> str:
    """Why a driver that supports CUDA `driver` may not run CuPy's runtime `runtime`, or ""
    (0: no driver at all, which is not a mismatch)."""
    if 0 < driver < runtime:
        return (f"the NVIDIA driver supports CUDA {cuda_version(driver)}, older than CuPy's CUDA "
                f"runtime {cuda_version(runtime)}: update the driver, or install the CuPy of the "
                f"driver's CUDA (cupy-cuda{driver // 1000}x)")
    return ""


class CudaUnavailable(RuntimeError):
    """The cuda backend cannot run here. `expected`: nothing is wrong (no CuPy, no GPU), as
    opposed to a GPU that is there but unusable (a broken install)."""

    def __init__(self, message: str, expected: bool = False) -> None:
        super().__init__(message)
        self.expected = expected


# The NVIDIA driver's library, which the CUDA runtime loads to reach a GPU.
DRIVER_LIBRARY = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"


def driver_missing(library: str = DRIVER_LIBRARY) -> str:
    """Why no GPU can answer here because the NVIDIA driver's library does not load, or "".
    CudaBackend() asks this before it imports CuPy: that import takes about half a second
    (ml_dtypes' most of it), which a machine with CuPy but no driver (a CI runner, a laptop)
    would otherwise pay at its first operation under NPU_EMU_DEVICE=auto, to learn what CUDA's
    runtime would find the same way (cudaErrorInsufficientDriver)."""
    try:
        ctypes.CDLL(library)
    except OSError as exc:
        return f"no GPU here: the NVIDIA driver's library {library} does not load ({exc})"
    return ""


def import_cupy():
    """CuPy, or CudaUnavailable(expected=True) when it is not installed."""
    try:
        import cupy  # noqa: F401
        from cupy.cuda import nvrtc  # noqa: F401  (cupy.cuda.nvrtc exists once cupy is imported)
    except ImportError as exc:
        raise CudaUnavailable(f"the cuda backend needs CuPy (pip install 'npu-emu[cuda12]' or "
                              f"'npu-emu[cuda13]'): {exc}", expected=True) from exc
    except Exception as exc:  # a broken CUDA install fails inside the import
        raise CudaUnavailable(f"CuPy is installed but does not import: {exc}") from exc
    return cupy


def gpu_geometry(numel: int, itemsize: int) -> tuple[int, int, int]:
    """(grid, block, run) of the GPU's row-walking launches: 16 bytes per thread."""
    run = max(1, VECTOR_BYTES // max(itemsize, 1))
    return max(1, -(-numel // (run * BLOCK))), BLOCK, run


# ------------------------------------------------------------------------------ compiler

def nvrtc_version() -> tuple[int, int]:
    from cupy.cuda import nvrtc
    return tuple(nvrtc.getVersion())  # type: ignore[return-value]


def compile_options(arch: int, real: bool = True, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The full option list of every compile: ours, the include folder, the arch (sm_XX:
    a cubin, with its PTX; compute_XX: PTX only, for a GPU newer than NVRTC knows). `extra`
    is for tests (e.g. the -ftz=true CuPy's RawModule would append)."""
    return (*NVRTC_OPTIONS, f"-I{kernels_dir()}", f"-arch={'sm' if real else 'compute'}_{arch}",
            *extra)


def complete_cubin(image: bytes) -> bytes:
    """CuPy's getCUBIN drops the last byte of the image ("the trailing NULL", which a cubin
    does not have; 14.2). The ELF header says how long the file is: pad back to it, so the
    image on disk is the one NVRTC made (the dropped byte is the top byte of the last program
    header's alignment, always 0)."""
    if image[:4] != b"\x7fELF" or len(image) < 64 or image[4] != 2:
        return image
    phoff, shoff = struct.unpack_from("<QQ", image, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", image, 0x36)
    end = max(phoff + phentsize * phnum, shoff + shentsize * shnum)
    return image + b"\0" * (end - len(image)) if 0 < end - len(image) <= 8 else image


def compile_source(source: str, name: str, arch: int, real: bool = True,
                   extra: Sequence[str] = ()) -> tuple[bytes, str]:
    """(image, PTX) of a source compiled by NVRTC with compile_options(arch, real, extra):
    the image is a cubin (real) or the PTX itself. KernelBuildError with NVRTC's log on
    failure. Needs no GPU."""
    try:
        from cupy.cuda import nvrtc
    except ImportError as exc:
        raise KernelBuildError(f"compiling {name} for the GPU needs CuPy: {exc}") from exc
    options = compile_options(arch, real, extra)
    try:
        prog = nvrtc.createProgram(source, name, (), ())
    except Exception as exc:  # NVRTCError, or libnvrtc missing (cuda.pathfinder's errors)
        raise KernelBuildError(f"NVRTC is not usable to compile {name}: {exc}") from exc
    try:
        try:
            nvrtc.compileProgram(prog, options)
        except nvrtc.NVRTCError as exc:
            raise KernelBuildError(f"NVRTC failed to compile {name} ({exc}) with options "
                                   f"{' '.join(options)}:\n{nvrtc.getProgramLog(prog)[-4000:]}") from None
        ptx = nvrtc.getPTX(prog).decode()
        image = complete_cubin(nvrtc.getCUBIN(prog)) if real else ptx.encode()
        return image, ptx
    finally:
        nvrtc.destroyProgram(prog)


def compile_module(module: str, arch: int, real: bool = True) -> tuple[bytes, str]:
    """(image, PTX) of `kernels_cuda/<module>`: the path every cuda kernel takes."""
    if not (kernels_dir() / module).is_file():
        raise KernelBuildError(f"no kernel source {module!r} in {kernels_dir()}")
    return compile_source(f'#include "{module}"\n', f"npu_emu_{module}", arch, real)


def pick_arch(capability: int, supported: Sequence[int]) -> tuple[int, bool]:
    """(arch, real) for a device: its own sm when NVRTC supports it, else PTX for the newest
    arch NVRTC has below it (the driver compiles that)."""
    if capability in supported:
        return capability, True
    lower = [a for a in supported if a <= capability]
    if not lower:
        raise CudaUnavailable(f"the GPU's compute capability {capability} is older than any "
                              f"arch this NVRTC supports ({', '.join(map(str, supported))})")
    return max(lower), False


class CudaModuleCache(ModuleCache):
    """Cubins (or PTX) on disk, keyed by sources, options, NVRTC version and arch; modules
    loaded with `loader` (CuPy's Module().load on a GPU; absent on a machine without one,
    where only building works)."""

    backend_name = "cuda"

    def __init__(self, arch: int, real: bool = True,
                 loader: Callable[[bytes], Any] | None = None) -> None:
        super().__init__()
        self.arch, self.real, self._loader = arch, real, loader
        self._key_extra = "|".join(compile_options(arch, real)) + f"|nvrtc {nvrtc_version()}"

    def _target(self) -> str:
        return f"the cuda backend ({'sm' if self.real else 'compute'}_{self.arch})"

    def path(self, module: str) -> Path:
        key = kernel_sources_hash(module, self._key_extra)
        suffix = "cubin" if self.real else "ptx"
        return cache_dir() / f"{Path(module).stem}-{'sm' if self.real else 'compute'}{self.arch}-{key}.{suffix}"

    def ptx_path(self, module: str) -> Path:
        """The PTX NVRTC made with the cubin (kept for inspection: tests read it)."""
        return self.path(module).with_suffix(".ptx")

    def _build(self, module: str, path: Path) -> None:
        image, ptx = compile_module(module, self.arch, self.real)
        path.parent.mkdir(parents=True, exist_ok=True)
        outputs = [(path, image)] + ([(self.ptx_path(module), ptx.encode())] if self.real else [])
        for target, data in reversed(outputs):   # the image last: its presence means done
            fd, tmp = tempfile.mkstemp(suffix=target.suffix, dir=target.parent)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, target)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)

    def _open(self, module: str, path: Path) -> Any:
        if self._loader is None:
            raise KernelBuildError(f"{module}: no GPU to load kernels on")
        try:
            return self._loader(path.read_bytes())
        except Exception as exc:  # CUDADriverError: a cubin the driver refuses
            raise KernelBuildError(f"the GPU driver cannot load {module} ({path}): {exc}") from exc


# ------------------------------------------------------------------------------ runtime

@contextlib.contextmanager
def cuda_errors(action: str, code: int = ACLNN_ERR_RUNTIME_ERROR) -> Iterator[None]:
    """CuPy's runtime and driver errors as AclnnError (the facades map codes, never raw
    CuPy exceptions)."""
    try:
        yield
    except AclnnError:
        raise
    except Exception as exc:  # CUDARuntimeError, CUDADriverError
        raise AclnnError(code, f"{action} failed: {exc}") from exc


class CudaPool(Allocator):
    """cudaMalloc'd blocks (one per size-class block; cudaMalloc aligns to 256 bytes)."""

    def __init__(self, cupy, streams: Callable[[], Any] = tuple) -> None:
        super().__init__(streams)
        self._cupy = cupy
        self._rt = cupy.cuda.runtime

    def _raw_alloc(self, nbytes: int) -> tuple[int, None]:
        try:
            return int(self._rt.malloc(nbytes)), None
        except self._rt.CUDARuntimeError as exc:
            if getattr(exc, "status", None) == _CUDA_ERROR_MEMORY_ALLOCATION:
                raise MemoryError(str(exc)) from None
            raise AclnnError(ACLNN_ERR_RUNTIME_ERROR, f"cudaMalloc({nbytes}) failed: {exc}") from exc

    def _raw_release(self, ptr: int, handle: None) -> None:
        # cudaFree waits for the whole device: only empty_cache and the out-of-memory path
        # release blocks, never a malloc or free that finds memory.
        with cuda_errors("cudaFree"):
            self._rt.free(ptr)

    def _release_elsewhere(self) -> None:
        """CuPy's own pool (the library calls of the array API allocate there): its free
        blocks are memory no one uses."""
        with cuda_errors("releasing CuPy's memory pool"):
            self._cupy.get_default_memory_pool().free_all_blocks()


class CudaStream(Stream):
    """A non-blocking CUDA stream (`stream`: CuPy's, None once destroyed)."""

    def __init__(self, cupy, on_destroy: Callable[["CudaStream"], None] = lambda s: None) -> None:
        self._cupy = cupy
        self._on_destroy = on_destroy
        with cuda_errors("cudaStreamCreate"):
            self.stream = cupy.cuda.Stream(non_blocking=True)

    @property
    def ptr(self) -> int:
        self._check_live("use")
        return self.stream.ptr

    def synchronize(self) -> None:
        self._check_live("synchronize")
        with cuda_errors("stream synchronize"):
            self.stream.synchronize()

    def wait_event(self, event: Event) -> None:
        self._check_live("wait for an event on")
        if not isinstance(event, CudaEvent):
            raise AclnnError(ACL_ERROR_INVALID_PARAM, f"event={event!r} is not a cuda event")
        with cuda_errors("stream wait event"):
            self.stream.wait_event(event.event)

    def destroy(self) -> None:
        """Let the queued work finish (as the cpu backend joins its worker: once destroy
        returns, every fence on this stream has passed, so no block freed for its work is
        handed out while that work runs), release the stream and leave the backend. A failure
        of that work is reported here; the stream is destroyed all the same."""
        refuse_default_destroy(self)
        self._check_live("destroy")
        self._destroyed = True
        stream, self.stream = self.stream, None
        try:
            with cuda_errors("the work queued on the destroyed stream"):
                stream.synchronize()
        finally:
            self._on_destroy(self)
            del stream   # CuPy's Stream destroys the CUDA stream when dropped

    def _fence(self) -> Any | None:
        with cuda_errors("fence"):
            if self.stream.done:
                return None
            event = self._cupy.cuda.Event(block=False, disable_timing=True)
            event.record(self.stream)
            return event

    def _fence_passed(self, token: Any) -> bool:
        with cuda_errors("fence query"):
            return bool(token.done)

    def _fence_wait(self, token: Any) -> None:
        with cuda_errors("fence wait"):
            token.synchronize()


class CudaEvent(Event):
    def __init__(self, cupy, timing: bool = False) -> None:
        self._cupy = cupy
        self.timing = timing
        self.recorded = False
        with cuda_errors("cudaEventCreate"):
            self.event = cupy.cuda.Event(block=False, disable_timing=not timing)

    def record(self, stream: Stream) -> None:
        if not isinstance(stream, CudaStream):
            raise AclnnError(ACL_ERROR_INVALID_PARAM, f"stream={stream!r} is not a cuda stream")
        stream._check_live("record an event on")
        with cuda_errors("event record"):
            self.event.record(stream.stream)
        self.recorded = True

    def synchronize(self) -> None:
        with cuda_errors("event synchronize"):
            self.event.synchronize()

    def query(self) -> bool:
        with cuda_errors("event query"):
            return bool(self.event.done)

    def elapsed_ms(self, end: Event) -> float:
        """As the cpu backend: ACL_ERROR_INVALID_PARAM for an event not recorded or not yet
        completed (cudaEventElapsedTime's own errors for those would be runtime errors)."""
        if not isinstance(end, CudaEvent):
            raise AclnnError(ACL_ERROR_INVALID_PARAM, f"end={end!r} is not a cuda event")
        for name, ev in (("start", self), ("end", end)):
            if not ev.recorded or not ev.query():
                raise AclnnError(ACL_ERROR_INVALID_PARAM,
                                 f"{name} event has not completed (record it, then synchronize)")
        if not (self.timing and end.timing):
            raise AclnnError(ACL_ERROR_INVALID_PARAM,
                             "elapsed time needs two timing events from acl.rt.create_event")
        with cuda_errors("cudaEventElapsedTime"):
            return float(self._cupy.cuda.get_elapsed_time(self.event, end.event))


class CudaKernel(Kernel):
    def __init__(self, name: str, fn) -> None:
        self.name = name
        self.fn = fn


def _driver_version(rt) -> int:
    """The CUDA version the driver supports (0: no driver)."""
    try:
        return int(rt.driverGetVersion())
    except Exception:
        return 0


def _scalar_wrapper() -> Callable[[Any], Any]:
    """CuPy's kernel-argument packer (CScalar), to pack a launch's arguments once instead of
    at every launch; identity where this CuPy has none (it then packs at each launch)."""
    try:
        from cupy._core._scalar import CScalar
    except ImportError:
        return lambda a: a
    return CScalar


class CudaBackend(Backend):
    name = "cuda"
    is_cpu = False

    def __init__(self) -> None:
        no_driver = driver_missing()
        if no_driver:
            raise CudaUnavailable(no_driver, expected=True)
        self._cupy = cupy = import_cupy()
        rt = cupy.cuda.runtime
        too_old = cupy_version_problem(str(getattr(cupy, "__version__", "")))
        if too_old:
            raise CudaUnavailable(too_old)
        self._driver, self._runtime = _driver_version(rt), int(rt.runtimeGetVersion())
        mismatch = driver_problem(self._driver, self._runtime)
        try:
            n = rt.getDeviceCount()
        except Exception as exc:
            if mismatch:   # a GPU may well be there: not the expected state of a machine
                raise CudaUnavailable(f"{mismatch} ({exc})") from exc
            raise CudaUnavailable(f"CuPy is installed but no GPU answers: {exc}", expected=True) from exc
        if n < 1:
            raise CudaUnavailable("CuPy is installed but sees no GPU", expected=True)
        if mismatch:   # it runs (CUDA's minor version compatibility), but say so
            logging.getLogger("npu_emu").warning("cuda backend: %s", mismatch)
        self._streams: list[CudaStream] = []
        self._streams_lock = threading.Lock()
        self._lock = threading.Lock()          # the default stream only (never held while compiling)
        self._default: CudaStream | None = None
        self._kernels: dict[tuple[str, str], CudaKernel] = {}
        self._pack = _scalar_wrapper()
        self._host_lock = threading.Lock()
        self._pinned: dict[int, tuple[int, Any]] = {}   # malloc_host: ptr -> (nbytes, CuPy's)
        try:
            self.device_id = int(cupy.cuda.Device().id)
            props = rt.getDeviceProperties(self.device_id)
            self._props = props
            self._sms = int(props["multiProcessorCount"])
            capability = int(props["major"]) * 10 + int(props["minor"])
            from cupy.cuda import nvrtc
            arch, real = pick_arch(capability, tuple(nvrtc.getSupportedArchs()))
            self.allocator = CudaPool(cupy, self._live_streams)
            self._modules = CudaModuleCache(arch, real, self._load_image)
            self._probe()
        except CudaUnavailable:
            raise
        except Exception as exc:
            raise CudaUnavailable(f"a GPU is there but the cuda backend cannot run kernels on "
                                  f"it: {exc}" + (f" ({mismatch})" if mismatch else "")) from exc

    def _load_image(self, image: bytes) -> Any:
        module = self._cupy.cuda.function.Module()
        module.load(image)
        return module

    def _probe(self) -> None:
        """Compile, load and run one tiny kernel the way every operator runs (a parameter
        struct through CuPy's packer, enqueued on the default stream, copied back): NVRTC,
        the driver, the packer and a launch all work."""
        image, _ = compile_source(PROBE_SOURCE, "npu_emu_probe.cu", self._modules.arch,
                                  self._modules.real)
        kernel = CudaKernel("npu_emu_probe", self._load_image(image).get_function("npu_emu_probe"))
        out = np.zeros(PROBE_THREADS, np.uint32)
        ptr = self.malloc(out.nbytes)
        try:
            params = probe_params(ptr)
            self.enqueue([Launch(kernel, (1, 1, 1), (PROBE_THREADS, 1, 1), (params,))], None)
            self.copy_to_host(out, ptr)
        finally:
            self.free(ptr)
            self.allocator.empty_cache()   # the pool starts empty (the probe's work is done)
        want = probe_expected(params)
        if not np.array_equal(out, want):
            raise CudaUnavailable(f"the probe kernel ran but wrote {out[:4]}..., not {want[:4]}...: "
                                  f"this CuPy ({self._cupy.__version__}) does not pass kernel "
                                  f"arguments as the operators need")

    # -- copies
    def _copy_stream(self, stream: Stream | None) -> CudaStream:
        target = self.default_stream if stream is None else stream
        if not isinstance(target, CudaStream):
            raise AclnnError(ACL_ERROR_INVALID_PARAM, f"stream={stream!r} is not a cuda stream")
        target._check_live("copy on")
        return target

    def _memcpy(self, dst: int, src: int, nbytes: int, kind: int, stream: Stream | None,
                wait: bool) -> None:
        target = self._copy_stream(stream)
        with cuda_errors("cudaMemcpyAsync"):
            self._cupy.cuda.runtime.memcpyAsync(dst, src, nbytes, kind, target.stream.ptr)
        if wait or stream is None:
            target.synchronize()

    def copy_from_host(self, dst: int, src: np.ndarray, stream: Stream | None = None) -> None:
        src = np.ascontiguousarray(src)
        # Pageable host memory: waiting makes the source reusable at return on every driver.
        # Page-locked memory from malloc_host stays asynchronous on a stream (aclrtMemcpyAsync:
        # the caller leaves it unchanged until the stream is synchronized).
        pinned = self.is_host_block(src.ctypes.data, src.nbytes)
        self._memcpy(dst, src.ctypes.data, src.nbytes, _MEMCPY_HTOD, stream, wait=not pinned)

    def copy_to_host(self, dst: np.ndarray, src: int, stream: Stream | None = None) -> None:
        host_destination(dst)
        self._memcpy(dst.ctypes.data, src, dst.nbytes, _MEMCPY_DTOH, stream, wait=False)

    def copy_device(self, dst: int, src: int, nbytes: int, stream: Stream | None = None) -> None:
        self._memcpy(dst, src, nbytes, _MEMCPY_DTOD, stream, wait=False)

    def memset(self, ptr: int, value: int, nbytes: int, stream: Stream | None = None) -> None:
        target = self._copy_stream(stream)
        with cuda_errors("cudaMemsetAsync"):
            self._cupy.cuda.runtime.memsetAsync(ptr, value, nbytes, target.stream.ptr)
        if stream is None:
            target.synchronize()

    # -- host memory
    def malloc_host(self, nbytes: int) -> int:
        """Page-locked host memory from CuPy's pinned pool (cudaHostAlloc underneath): copies
        from it on a stream do not wait, and they run at full speed."""
        cp = self._cupy
        try:
            mem = cp.cuda.alloc_pinned_memory(max(int(nbytes), 1))
        except cp.cuda.runtime.CUDARuntimeError as exc:
            if getattr(exc, "status", None) == _CUDA_ERROR_MEMORY_ALLOCATION:
                raise MemoryError(str(exc)) from None
            raise AclnnError(ACLNN_ERR_RUNTIME_ERROR, f"cudaHostAlloc({nbytes}) failed: {exc}") from exc
        ptr = int(mem.ptr)
        with self._host_lock:
            self._pinned[ptr] = (int(nbytes), mem)
        return ptr

    def free_host(self, ptr: int) -> bool:
        # Back to CuPy's pinned pool, which hands it out again at once: like cudaFreeHost,
        # only once the copies from it are done (the caller synchronized).
        with self._host_lock:
            return self._pinned.pop(ptr, None) is not None

    def is_host_block(self, ptr: int, nbytes: int = 1) -> bool:
        with self._host_lock:
            return any(start <= ptr and ptr + nbytes <= start + n
                       for start, (n, _) in self._pinned.items())

    # -- other libraries' streams
    def order_for(self, consumer: int) -> None:
        """Make CUDA stream `consumer` (a cudaStream_t; LEGACY_STREAM, PER_THREAD_STREAM) wait
        for the work queued so far on our default stream, without blocking the host: an event
        recorded on ours and cudaStreamWaitEvent on theirs (the DLPack handshake)."""
        ours = self.default_stream
        if consumer == ours.ptr:
            return
        rt = self._cupy.cuda.runtime
        with cuda_errors("ordering another library's stream after ours"):
            event = rt.eventCreateWithFlags(rt.eventDisableTiming)
            try:
                rt.eventRecord(event, ours.ptr)
                rt.streamWaitEvent(consumer, event, 0)
            finally:
                rt.eventDestroy(event)   # released by CUDA once the device passed it

    def hand_over(self) -> None:
        """Another library will use memory our queued work touches on a stream it does not
        name (a __cuda_array_interface__ consumer that ignores its "stream"; the owner of
        imported memory we let go of): both default streams wait for our work (the legacy
        one is CuPy's and PyTorch's unless set otherwise). The host never waits."""
        self.order_for(LEGACY_STREAM)
        self.order_for(PER_THREAD_STREAM)

    # -- streams, events
    def _live_streams(self) -> list[CudaStream]:
        with self._streams_lock:
            return list(self._streams)

    def _forget(self, stream: CudaStream) -> None:
        with self._streams_lock:
            if stream in self._streams:
                self._streams.remove(stream)

    def create_stream(self) -> CudaStream:
        stream = CudaStream(self._cupy, self._forget)
        with self._streams_lock:
            self._streams.append(stream)
        return stream

    def create_event(self, timing: bool = False) -> CudaEvent:
        return CudaEvent(self._cupy, timing)

    def synchronize(self) -> None:
        with cuda_errors("device synchronize"):
            self._cupy.cuda.runtime.deviceSynchronize()

    # -- kernels
    def function(self, module: str, name: str) -> CudaKernel:
        key = (module, name)
        kernel = self._kernels.get(key)
        if kernel is None:
            mod = self._modules.load(module)
            try:
                fn = mod.get_function(name)
            except Exception as exc:  # CUDADriverError: CUDA_ERROR_NOT_FOUND
                raise KernelBuildError(f"kernel {name!r} is not in {module}: {exc}") from exc
            kernel = self._kernels.setdefault(key, CudaKernel(name, fn))
        return kernel

    def _args(self, launch: Launch, workspace: int) -> tuple:
        prepared = launch.prepared
        if prepared is not None:
            return prepared
        if any(isinstance(a, Workspace) for a in launch.args):  # resolved per enqueue
            return tuple(self._pack(np.uint64(workspace + a.offset)) if isinstance(a, Workspace)
                         else a for a in launch.args)
        origin = launch.origin
        if origin is not None and origin.prepared is not None:   # moved: its Pointers anew
            launch.prepared = tuple(self._pack(a) if a.__class__ is Pointer else packed
                                    for a, packed in zip(launch.args, origin.prepared))
        else:
            launch.prepared = tuple(self._pack(a) for a in launch.args)
        return launch.prepared

    def enqueue(self, launches: Sequence[Launch], stream: Stream | None,
                workspace: int = 0) -> None:
        target = self.default_stream if stream is None else stream
        if not isinstance(target, CudaStream):
            raise AclnnError(ACL_ERROR_INVALID_PARAM, f"stream={stream!r} is not a cuda stream")
        target._check_live("enqueue work on")
        cupy_stream = target.stream
        for launch in launches:
            with cuda_errors(f"launching {launch.kernel.name}"):
                launch.kernel.fn(launch.grid, launch.block,  # type: ignore[attr-defined]
                                 self._args(launch, workspace), stream=cupy_stream)

    # -- geometry
    @property
    def parallelism(self) -> int:
        return self._sms * 8

    def elementwise_geometry(self, numel: int, itemsize: int) -> tuple[int, int, int]:
        return gpu_geometry(numel, itemsize)

    tile_block = (32, 8)

    def tile_span(self, unit: str) -> tuple[int, int]:
        return (32, 32)                  # one 32x33 shared tile per block

    def info(self) -> dict[str, str]:
        cupy = self._cupy
        name = self._props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        arch = f"{'sm' if self._modules.real else 'compute'}_{self._modules.arch}"
        return {
            "backend": "cuda",
            "device": f"{name} ({self._sms} SMs, {arch})",
            "cupy": cupy.__version__,
            "cuda_runtime": cuda_version(self._runtime),
            "cuda_driver": cuda_version(self._driver) + (
                f" (older than the runtime: {driver_problem(self._driver, self._runtime)})"
                if driver_problem(self._driver, self._runtime) else ""),
            "nvrtc": ".".join(map(str, nvrtc_version())),
            "nvrtc_options": " ".join(NVRTC_OPTIONS),
            "cache_dir": str(cache_dir()),
        }
