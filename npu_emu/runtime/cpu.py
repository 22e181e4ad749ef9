"""The cpu backend: the same kernel sources as the GPU, compiled by the host C++ compiler.

- compiler: g++ -O3 -fopenmp with `kernels_cuda/npu_emu_cpu.h` (one thread per block, blocks
  on OpenMP threads), cached on disk by a hash of every source, the flags, the compiler and
  the CPU; rebuilt when any of them changes.
- allocator: a size-class pool over aligned host buffers.
- streams: in-order queues, each drained by its own worker thread, so launches are
  asynchronous and ordered per stream as on a GPU; events mark positions in those queues.
"""
from __future__ import annotations

import ctypes
import functools
import os
import platform
import shutil
import subprocess
import tempfile
import threading
import weakref
from collections import deque
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..status import AclnnError, ACL_ERROR_BAD_ALLOC, ACLNN_ERR_RUNTIME_ERROR
from .base import (Allocator, Backend, Event, Kernel, KernelBuildError, Launch, Stream, Workspace,
                   kernel_sources_hash, kernels_dir)

ALIGN = 256
# No fused multiply-add anywhere (results must match the GPU's --fmad=false bit for bit):
# -ffp-contract=off stops contraction, and on x86 -mno-fma also stops GCC's complex-multiply
# pattern (vfmaddsub), which ignores -ffp-contract=off.
CXX_FLAGS = ("-x", "c++", "-std=c++17", "-O3", "-fopenmp", "-fPIC", "-shared", "-march=native",
             "-ffp-contract=off", "-fno-strict-aliasing", "-DNPU_EMU_CPU=1",
             *(("-mno-fma", "-mno-fma4") if platform.machine() in ("x86_64", "AMD64", "i686") else ()))


def cache_dir() -> Path:
    env = os.environ.get("NPU_EMU_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "npu_emu"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "flags")):
                    return line
    except OSError:
        pass
    return platform.processor()


# ------------------------------------------------------------------------------ allocator

def size_class(nbytes: int) -> int:
    """Round a request up to its size class: 512-byte steps up to 1 MiB, then eight classes
    per power of two (at most 12.5% slack)."""
    n = max(int(nbytes), 1)
    if n <= 1 << 20:
        return (n + 511) & ~511
    step = 1 << (n.bit_length() - 4)
    return (n + step - 1) // step * step


class HostPool(Allocator):
    def __init__(self) -> None:
        super().__init__()
        self._free: dict[int, list[tuple[int, np.ndarray]]] = {}
        self.bytes_cached = 0

    def malloc(self, nbytes: int) -> int:
        rounded = size_class(nbytes)
        with self._lock:
            bucket = self._free.get(rounded)
            if bucket:
                ptr, buf = bucket.pop()
                self.bytes_cached -= rounded
                self._add(ptr, nbytes, rounded, buf)
                return ptr
        try:
            buf = np.empty(rounded + ALIGN, dtype=np.uint8)
        except MemoryError:
            self.empty_cache()
            try:
                buf = np.empty(rounded + ALIGN, dtype=np.uint8)
            except MemoryError:
                raise AclnnError(ACL_ERROR_BAD_ALLOC, f"cannot allocate {nbytes} bytes of host "
                                                      f"memory for the cpu device") from None
        base = buf.ctypes.data
        ptr = (base + ALIGN - 1) // ALIGN * ALIGN
        self._add(ptr, nbytes, rounded, buf)
        return ptr

    def free(self, ptr: int) -> None:
        nbytes, rounded, buf = self._remove(ptr)
        with self._lock:
            self._free.setdefault(rounded, []).append((ptr, buf))
            self.bytes_cached += rounded

    def empty_cache(self) -> None:
        with self._lock:
            self._free.clear()
            self.bytes_cached = 0


# ------------------------------------------------------------------------- streams, events

class CpuStream(Stream):
    """An in-order queue of host callables drained by one worker thread."""

    def __init__(self, name: str = "npu_emu-stream") -> None:
        self._tasks: deque[Callable[[], None]] = deque()
        self._cv = threading.Condition()
        self._submitted = 0
        self._completed = 0
        self._error: BaseException | None = None
        self._closed = False
        self._worker = threading.Thread(target=self._run, name=name, daemon=True)
        self._worker.start()

    def submit(self, task: Callable[[], None]) -> None:
        with self._cv:
            if self._closed:
                raise AclnnError(ACLNN_ERR_RUNTIME_ERROR, "the stream was destroyed")
            self._tasks.append(task)
            self._submitted += 1
            self._cv.notify_all()

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._tasks and not self._closed:
                    self._cv.wait()
                if not self._tasks:
                    return
                task = self._tasks.popleft()
            try:
                if self._error is None:  # after a failure the stream is poisoned, as in CUDA
                    task()
            except BaseException as exc:  # reported by synchronize()
                self._error = exc
            with self._cv:
                self._completed += 1
                self._cv.notify_all()

    @property
    def idle(self) -> bool:
        return self._completed == self._submitted

    def synchronize(self) -> None:
        with self._cv:
            target = self._submitted
            while self._completed < target:
                self._cv.wait()
        if self._error is not None:
            err, self._error = self._error, None
            if isinstance(err, AclnnError):
                raise err
            raise AclnnError(ACLNN_ERR_RUNTIME_ERROR, f"a task on the stream failed: {err!r}")

    def wait_event(self, event: Event) -> None:
        assert isinstance(event, CpuEvent)
        marker = event._marker
        if marker is not None:
            self.submit(marker.wait)

    def destroy(self) -> None:
        self.synchronize()
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._worker.join()


class CpuEvent(Event):
    def __init__(self) -> None:
        self._marker: threading.Event | None = None

    def record(self, stream: Stream) -> None:
        assert isinstance(stream, CpuStream)
        marker = threading.Event()
        self._marker = marker
        stream.submit(marker.set)

    def synchronize(self) -> None:
        if self._marker is not None:
            self._marker.wait()

    def query(self) -> bool:
        return self._marker is None or self._marker.is_set()


# ------------------------------------------------------------------------------- kernels

class CpuKernel(Kernel):
    def __init__(self, name: str, fn: ctypes._CFuncPtr) -> None:
        self.name = name
        self.fn = fn


class CompileError(KernelBuildError):
    """The host compiler failed (or is missing)."""


def _compiler() -> str:
    cxx = os.environ.get("CXX", "g++")
    path = shutil.which(cxx)
    if path is None:
        raise CompileError(
            f"npu_emu's cpu backend compiles its kernels with a C++ compiler that supports "
            f"OpenMP, and {cxx!r} was not found on PATH; install g++ (or set CXX)")
    return path



def _compiler_version(cxx: str) -> str:
    try:
        return subprocess.run([cxx, "--version"], capture_output=True, text=True,
                              timeout=30).stdout.splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


class CpuModuleCache:
    """Compiled modules: one shared library per kernel source, on disk and in memory."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._libs: dict[str, ctypes.CDLL] = {}
        self._toolchain: str | None = None
        self.cxx: str | None = None

    def library_path(self, module: str) -> Path:
        if self._toolchain is None:
            self.cxx = _compiler()
            self._toolchain = "|".join(CXX_FLAGS) + _compiler_version(self.cxx) + _cpu_model()
        key = kernel_sources_hash(module, self._toolchain)
        return cache_dir() / f"{Path(module).stem}-{key}.so"

    def load(self, module: str) -> ctypes.CDLL:
        with self._lock:
            lib = self._libs.get(module)
            if lib is None:
                path = self.library_path(module)
                if not path.exists():
                    self._build(module, path)
                lib = ctypes.CDLL(str(path))
                self._libs[module] = lib
            return lib

    def _build(self, module: str, path: Path) -> None:
        source = kernels_dir() / module
        if not source.is_file():
            raise CompileError(f"no kernel source {module!r} in {kernels_dir()}")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(suffix=".so", dir=path.parent)
        os.close(fd)
        cmd = [self.cxx or _compiler(), *CXX_FLAGS, f"-I{kernels_dir()}", str(source), "-o", tmp]
        try:
            result = subprocess.run(cmd, capture_output=True, text=True)
            if result.returncode != 0:
                raise CompileError(f"compiling {module} for the cpu backend failed:\n"
                                   f"{' '.join(cmd)}\n{result.stderr[-4000:]}")
            os.replace(tmp, path)  # atomic: concurrent builders never see half a library
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


# ------------------------------------------------------------------------------- backend

_VOIDP = ctypes.c_void_p
_GRID = ctypes.c_uint * 3


def _prepare(launch: Launch) -> tuple:
    """Arguments as cuLaunchKernel takes them: an array of pointers to each value's bytes.
    Returns (fn, grid, pointer array, buffers kept alive, workspace cells to patch)."""
    ptrs = (_VOIDP * max(len(launch.args), 1))()
    keep: list = []
    patches: list = []
    for i, a in enumerate(launch.args):
        if isinstance(a, Workspace):
            cell = ctypes.c_uint64(0)
            patches.append((cell, a.offset))
        elif isinstance(a, np.uint64):  # pointers, the common case: no bytes round trip
            cell = ctypes.c_uint64(int(a))
        else:
            data = a.tobytes()  # other NumPy scalars and packed parameter structs
            cell = ctypes.create_string_buffer(data, len(data))
        keep.append(cell)
        ptrs[i] = ctypes.addressof(cell)
    return launch.kernel.fn, _GRID(*launch.grid), ptrs, keep, patches  # type: ignore[attr-defined]


class CpuBackend(Backend):
    name = "cpu"
    is_cpu = True

    def __init__(self) -> None:
        self.allocator = HostPool()
        self._modules = CpuModuleCache()
        self._kernels: dict[tuple[str, str], CpuKernel] = {}
        self._streams: "weakref.WeakSet[CpuStream]" = weakref.WeakSet()
        self._default: CpuStream | None = None
        self._lock = threading.Lock()

    # -- memory
    def malloc(self, nbytes: int) -> int:
        return self.allocator.malloc(nbytes)

    def free(self, ptr: int) -> None:
        # Like cudaFree: wait until no queued work can still touch the block.
        if any(not s.idle for s in list(self._streams)):
            self.synchronize()
        self.allocator.free(ptr)

    def memory_stats(self) -> dict[str, int]:
        a = self.allocator
        return {"bytes_in_use": a.bytes_in_use, "bytes_cached": a.bytes_cached,
                "peak_bytes_in_use": a.peak_bytes_in_use, "allocations": a.live_allocations,
                "total_allocations": a.allocation_count}

    def empty_cache(self) -> None:
        self.allocator.empty_cache()

    # -- copies
    def _run(self, stream: Stream | None, task: Callable[[], None]) -> None:
        if stream is None:
            task()
        else:
            assert isinstance(stream, CpuStream)
            stream.submit(task)

    def copy_from_host(self, dst: int, src: np.ndarray, stream: Stream | None = None) -> None:
        src = np.ascontiguousarray(src)
        self._run(stream, lambda: ctypes.memmove(dst, src.ctypes.data, src.nbytes))

    def copy_to_host(self, dst: np.ndarray, src: int, stream: Stream | None = None) -> None:
        if not dst.flags.c_contiguous:
            raise ValueError("copy_to_host needs a C-contiguous destination array")
        self._run(stream, lambda: ctypes.memmove(dst.ctypes.data, src, dst.nbytes))

    def copy_device(self, dst: int, src: int, nbytes: int, stream: Stream | None = None) -> None:
        self._run(stream, lambda: ctypes.memmove(dst, src, nbytes))

    def memset(self, ptr: int, value: int, nbytes: int, stream: Stream | None = None) -> None:
        self._run(stream, lambda: ctypes.memset(ptr, value, nbytes))

    # -- streams, events
    def create_stream(self) -> CpuStream:
        stream = CpuStream()
        self._streams.add(stream)
        return stream

    @property
    def default_stream(self) -> CpuStream:
        with self._lock:
            if self._default is None:
                self._default = self.create_stream()
            return self._default

    def create_event(self) -> CpuEvent:
        return CpuEvent()

    def synchronize(self) -> None:
        for stream in list(self._streams):
            stream.synchronize()

    # -- kernels
    def function(self, module: str, name: str) -> CpuKernel:
        key = (module, name)
        kernel = self._kernels.get(key)
        if kernel is None:
            lib = self._modules.load(module)
            try:
                fn = getattr(lib, "npu_emu_launch_" + name)
            except AttributeError:
                raise CompileError(f"kernel {name!r} is not exported by {module} "
                                   f"(missing NPU_EMU_EXPORT({name})?)") from None
            fn.argtypes = (ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(_VOIDP))
            fn.restype = None
            kernel = self._kernels[key] = CpuKernel(name, fn)
        return kernel

    def enqueue(self, launches: Sequence[Launch], stream: Stream | None,
                workspace: int = 0) -> None:
        calls = []
        for launch in launches:
            prepared = launch.prepared
            if prepared is None or prepared[4]:  # workspace cells: fresh per enqueue
                prepared = _prepare(launch)
                if not prepared[4]:
                    launch.prepared = prepared
            for cell, offset in prepared[4]:
                cell.value = workspace + offset
            calls.append(prepared)

        def task() -> None:
            for fn, grid, ptrs, _keep, _patches in calls:
                fn(grid, ptrs)  # ctypes releases the GIL for the call

        (stream or self.default_stream).submit(task)  # type: ignore[union-attr]

    # -- geometry
    @functools.cached_property
    def parallelism(self) -> int:
        # OpenMP's own count: with OMP_PROC_BIND set, libgomp pins the calling thread, so the
        # process affinity no longer tells how many threads a parallel region gets.
        lib = self._modules.load("strided_copy.cu")
        return max(1, int(lib.npu_emu_max_threads()))

    def elementwise_geometry(self, numel: int, itemsize: int) -> tuple[int, int, int]:
        chunks = self.parallelism * 4            # a few per worker, for load balance
        run = max(16384 // max(itemsize, 1), -(-numel // chunks))
        return -(-numel // run), 1, run

    def info(self) -> dict[str, str]:
        cxx = self._modules.cxx or shutil.which(os.environ.get("CXX", "g++")) or "not found"
        return {
            "backend": "cpu",
            "device": f"{platform.processor() or platform.machine()} "
                      f"({self.parallelism} threads for kernels)",
            "compiler": f"{cxx}: {_compiler_version(cxx) if os.path.exists(cxx) else 'missing'}",
            "flags": " ".join(CXX_FLAGS),
            "cache_dir": str(cache_dir()),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "(unset)"),
            "OMP_PROC_BIND": os.environ.get("OMP_PROC_BIND", "(unset)"),
        }
