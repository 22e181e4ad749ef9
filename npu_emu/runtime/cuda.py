"""The cuda backend: CuPy's MemoryPool, non-blocking streams, CUDA events, and RawModule
over the sources of `kernels_cuda/` (NVRTC, CuPy's on-disk cache).

Importing this module does not import CuPy; `CudaBackend()` does, and fails with one clear
message when CuPy or a GPU is missing.
"""
from __future__ import annotations

import threading
from typing import Sequence

import numpy as np

from ..status import AclnnError, ACL_ERROR_BAD_ALLOC, ACLNN_ERR_RUNTIME_ERROR
from .base import (Allocator, Backend, Event, Kernel, Launch, Stream, Workspace,
                   kernel_sources_hash, kernels_dir)

# NVRTC options: C++17, and no FMA contraction so results match the cpu backend bit for bit.
NVRTC_OPTIONS = ("-std=c++17", "--fmad=false")
BLOCK = 256

_MEMCPY_HTOD, _MEMCPY_DTOH, _MEMCPY_DTOD = 1, 2, 3


class CudaUnavailable(RuntimeError):
    pass


def _import_cupy():
    try:
        import cupy  # noqa: F401
    except Exception as exc:  # ImportError, or a broken CUDA install
        raise CudaUnavailable(f"the cuda backend needs CuPy (pip install 'npu-emu[cuda12]' or "
                              f"'npu-emu[cuda13]'): {exc}") from exc
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        raise CudaUnavailable(f"CuPy is installed but no GPU answers: {exc}") from exc
    if n < 1:
        raise CudaUnavailable("CuPy is installed but sees no GPU")
    return cupy


class CudaPool(Allocator):
    def __init__(self, cupy) -> None:
        super().__init__()
        self.pool = cupy.cuda.MemoryPool()

    def malloc(self, nbytes: int) -> int:
        try:
            mem = self.pool.malloc(max(int(nbytes), 1))
        except Exception as exc:  # cupy.cuda.memory.OutOfMemoryError
            raise AclnnError(ACL_ERROR_BAD_ALLOC, f"cannot allocate {nbytes} bytes on the "
                                                  f"GPU: {exc}") from None
        self._add(mem.ptr, nbytes, mem.mem.size, mem)
        return int(mem.ptr)

    def free(self, ptr: int) -> None:
        self._remove(ptr)  # dropping the MemoryPointer returns the block to CuPy's pool

    @property
    def bytes_cached(self) -> int:
        return self.pool.total_bytes() - self.pool.used_bytes()


class CudaStream(Stream):
    def __init__(self, cupy, stream) -> None:
        self._cupy = cupy
        self.stream = stream

    @property
    def ptr(self) -> int:
        return self.stream.ptr

    def synchronize(self) -> None:
        try:
            self.stream.synchronize()
        except Exception as exc:
            raise AclnnError(ACLNN_ERR_RUNTIME_ERROR, f"stream synchronize failed: {exc}") from exc

    def wait_event(self, event: Event) -> None:
        assert isinstance(event, CudaEvent)
        self.stream.wait_event(event.event)


class CudaEvent(Event):
    def __init__(self, cupy) -> None:
        self.event = cupy.cuda.Event()

    def record(self, stream: Stream) -> None:
        assert isinstance(stream, CudaStream)
        self.event.record(stream.stream)

    def synchronize(self) -> None:
        self.event.synchronize()

    def query(self) -> bool:
        return bool(self.event.done)


class CudaKernel(Kernel):
    def __init__(self, name: str, fn) -> None:
        self.name = name
        self.fn = fn


class CudaBackend(Backend):
    name = "cuda"
    is_cpu = False

    def __init__(self) -> None:
        self._cupy = cupy = _import_cupy()
        self.allocator = CudaPool(cupy)
        self._modules: dict[str, object] = {}
        self._kernels: dict[tuple[str, str], CudaKernel] = {}
        self._lock = threading.Lock()
        self._default: CudaStream | None = None
        self._streams: list[CudaStream] = []
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        self._props = props
        self._sms = int(props["multiProcessorCount"])

    # -- memory
    def malloc(self, nbytes: int) -> int:
        return self.allocator.malloc(nbytes)

    def free(self, ptr: int) -> None:
        # cudaFree semantics: no queued kernel may still use the block once the pool reuses it.
        self._cupy.cuda.runtime.deviceSynchronize()
        self.allocator.free(ptr)

    def memory_stats(self) -> dict[str, int]:
        a = self.allocator
        return {"bytes_in_use": a.bytes_in_use, "bytes_cached": a.bytes_cached,
                "peak_bytes_in_use": a.peak_bytes_in_use, "allocations": a.live_allocations,
                "total_allocations": a.allocation_count}

    def empty_cache(self) -> None:
        self.allocator.pool.free_all_blocks()

    # -- copies
    def copy_from_host(self, dst: int, src: np.ndarray, stream: Stream | None = None) -> None:
        src = np.ascontiguousarray(src)
        rt = self._cupy.cuda.runtime
        if stream is None:
            rt.memcpy(dst, src.ctypes.data, src.nbytes, _MEMCPY_HTOD)
        else:  # pageable host memory: the copy is staged, the source may be reused after
            rt.memcpyAsync(dst, src.ctypes.data, src.nbytes, _MEMCPY_HTOD, stream.ptr)
            stream.synchronize()

    def copy_to_host(self, dst: np.ndarray, src: int, stream: Stream | None = None) -> None:
        rt = self._cupy.cuda.runtime
        if stream is None:
            rt.memcpy(dst.ctypes.data, src, dst.nbytes, _MEMCPY_DTOH)
        else:
            rt.memcpyAsync(dst.ctypes.data, src, dst.nbytes, _MEMCPY_DTOH, stream.ptr)

    def copy_device(self, dst: int, src: int, nbytes: int, stream: Stream | None = None) -> None:
        rt = self._cupy.cuda.runtime
        if stream is None:
            rt.memcpy(dst, src, nbytes, _MEMCPY_DTOD)
        else:
            rt.memcpyAsync(dst, src, nbytes, _MEMCPY_DTOD, stream.ptr)

    def memset(self, ptr: int, value: int, nbytes: int, stream: Stream | None = None) -> None:
        rt = self._cupy.cuda.runtime
        if stream is None:
            rt.memset(ptr, value, nbytes)
        else:
            rt.memsetAsync(ptr, value, nbytes, stream.ptr)

    # -- streams, events
    def create_stream(self) -> CudaStream:
        stream = CudaStream(self._cupy, self._cupy.cuda.Stream(non_blocking=True))
        self._streams.append(stream)
        return stream

    @property
    def default_stream(self) -> CudaStream:
        with self._lock:
            if self._default is None:
                self._default = self.create_stream()
            return self._default

    def create_event(self) -> CudaEvent:
        return CudaEvent(self._cupy)

    def synchronize(self) -> None:
        self._cupy.cuda.runtime.deviceSynchronize()

    # -- kernels
    def _module(self, module: str):
        with self._lock:
            mod = self._modules.get(module)
            if mod is None:
                # The hash comment makes CuPy's cache key change when any header changes.
                code = (f"// npu_emu sources {kernel_sources_hash(module)}\n"
                        f'#include "{module}"\n')
                mod = self._cupy.RawModule(
                    code=code, options=(*NVRTC_OPTIONS, f"-I{kernels_dir()}"))
                self._modules[module] = mod
            return mod

    def function(self, module: str, name: str) -> CudaKernel:
        key = (module, name)
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._kernels[key] = CudaKernel(name, self._module(module).get_function(name))
        return kernel

    def enqueue(self, launches: Sequence[Launch], stream: Stream | None,
                workspace: int = 0) -> None:
        target = stream or self.default_stream
        assert isinstance(target, CudaStream)
        with target.stream:
            for launch in launches:
                args = tuple(np.uint64(workspace + a.offset) if isinstance(a, Workspace) else a
                             for a in launch.args)
                launch.kernel.fn(launch.grid, launch.block, args)  # type: ignore[attr-defined]

    # -- geometry
    @property
    def parallelism(self) -> int:
        return self._sms * 8

    def elementwise_geometry(self, numel: int, itemsize: int) -> tuple[int, int, int]:
        run = max(1, 16 // max(itemsize, 1))     # ~16 bytes per thread
        return max(1, -(-numel // (run * BLOCK))), BLOCK, run

    tile_block = (32, 8)

    def info(self) -> dict[str, str]:
        cupy = self._cupy
        name = self._props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        try:
            nvrtc = ".".join(map(str, cupy.cuda.nvrtc.getVersion()))
        except Exception:
            nvrtc = "unknown"
        return {
            "backend": "cuda",
            "device": f"{name} ({self._sms} SMs)",
            "cupy": cupy.__version__,
            "cuda_runtime": str(cupy.cuda.runtime.runtimeGetVersion()),
            "nvrtc": nvrtc,
            "nvrtc_options": " ".join(NVRTC_OPTIONS),
            "kernel_cache": "CuPy's (CUPY_CACHE_DIR, default ~/.cupy/kernel_cache)",
        }
