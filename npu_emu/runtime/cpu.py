"""The cpu backend: the same kernel sources as the GPU, compiled by the host C++ compiler.

- compiler: g++ -O3 -fopenmp with `kernels_cuda/npu_emu_cpu.h` (one thread per block, blocks
  on the calling thread and the workers of one pool per process, npu_emu_cpu_pool.h; OpenMP
  gives the default thread count), cached on disk by a hash of every source, the flags, the
  compiler and the CPU; rebuilt when any of them changes. NPU_EMU_SANITIZE=address builds them with
  AddressSanitizer (the process must load the ASan runtime first: LD_PRELOAD).
- allocator: the shared stream-ordered pool (`base.Allocator`) over aligned host buffers.
- streams: in-order queues, each drained by its own worker thread, so launches are
  asynchronous and ordered per stream as on a GPU; a fence is a count of submitted tasks,
  events mark positions in those queues.
"""
from __future__ import annotations

import ctypes
import functools
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .._address import array_address
from ..status import AclnnError, ACL_ERROR_INVALID_PARAM, ACLNN_ERR_RUNTIME_ERROR
from .base import (ALIGN, GEOMETRY_CHANGED, Allocator, Backend, Event, Kernel, KernelBuildError,
                   Launch, ModuleCache, Pointer, Stream, Workspace, cache_dir, host_destination,
                   kernel_sources_hash, kernels_dir, module_sources, refuse_default_destroy,
                   size_class, stream_destroyed)

__all__ = ["COMPLEX_TYPE", "CXX_FLAGS", "CompileError", "CpuBackend", "CpuEvent", "CpuModuleCache",
           "CpuStream", "FUSED_CPU", "GATHER_TUNING", "HostPool", "cache_dir", "cxx_flags",
           "fused_instructions", "gather_tuning", "sanitize_flags", "size_class"]

_X86 = platform.machine() in ("x86_64", "AMD64", "i686")

# No fused multiply-add anywhere: results must match the GPU's --fmad=false bit for bit, on
# every host. -ffp-contract=off stops contraction; it is not enough on x86, where GCC's
# complex-multiply pattern emits vfmaddsub regardless. So the fused instructions are taken
# away from the target: -mno-fma/-mno-fma4 (FMA3, FMA4), and -mno-avx512f, because AVX-512F
# carries FMA encodings of its own that -mno-fma leaves on. A module that instantiates no
# complex kernel may keep AVX-512 (WIDE: 16 float lanes, 1.4-1.6x on the math functions):
# after g++ builds it, its machine code is read (objdump) and any fused instruction in it, or
# no objdump to tell, rebuilds it with NO_FUSED (a `.fused` file next to the cache entry
# remembers the verdict). tests/test_kernels_compile.py reads the machine code of every
# module; tests/test_bits_identical.py compares the outputs of builds for two ISA levels.
# -fno-math-errno (sqrt is the instruction alone, no errno branch) and -fno-trapping-math (no
# FP exception is ever unmasked, so a select may compute both sides) change no result and let
# the math library's loops vectorize.
NO_FUSED = ("-mno-fma", "-mno-fma4", "-mno-avx512f") if _X86 else ()
# GCC prefers 256-bit vectors on AVX-512 hosts unless told otherwise.
WIDE = ("-mno-fma", "-mno-fma4", "-mprefer-vector-width=512") if _X86 else ()
# A module whose own source (its .cu and .inc files) names a complex storage type instantiates
# complex kernels: it is built with NO_FUSED from the start.
COMPLEX_TYPE = re.compile(rb"\bnpu_emu::c(?:32|64|128)\b")
# Fused multiply-add mnemonics in objdump's text. x86: vfmadd*, vfmsub*, vfnmadd*, vfnmsub*,
# vfmaddsub*, vfmsubadd*, FMA4's vfmaddps...; aarch64: fmadd/fmsub/fnmadd/fnmsub (scalar),
# fmla/fmls (vector), fcmla (complex), bfmla.
FUSED_CPU = re.compile(r"\t(?:vfn?m(?:add|sub)|f(?:n?m(?:add|sub)|ml[as]|cmla)\b|bfml)")


def cxx_flags(march: str | None = None, wide: bool = False,
              cxx: str | None = None) -> tuple[str, ...]:
    """The cpu backend's compiler flags for `march` (default NPU_EMU_CPU_MARCH, else "native":
    the host's own ISA, fused instructions excepted; `wide`: AVX-512 kept, for a module whose
    machine code is then checked), with the tuning compiler `cxx` takes (GATHER_TUNING)."""
    march = march or os.environ.get("NPU_EMU_CPU_MARCH", "").strip() or "native"
    return ("-x", "c++", "-std=c++17", "-O3", "-fopenmp", "-fPIC", "-shared", f"-march={march}",
            "-ffp-contract=off", "-fno-math-errno", "-fno-trapping-math", "-fno-strict-aliasing",
            "-DNPU_EMU_CPU=1", *(WIDE if wide else NO_FUSED),
            *(gather_tuning(cxx) if cxx else ()))


# GCC's tuning for AMD's Zen cores (and its generic model) keeps the vectorizer from emitting
# gathers, so a loop whose body reads a table stays scalar: the float64 atan, asin and acos
# cores ran 5x slower on a Zen 4 (GCC 12 takes it for znver3) than with gathers allowed.
# A gather moves bits only: no result changes.
GATHER_TUNING = ("-mtune-ctrl=use_gather_2parts,use_gather_4parts,use_gather",)


@functools.lru_cache(maxsize=None)
def gather_tuning(cxx: str) -> tuple[str, ...]:
    """GATHER_TUNING where compiler `cxx` takes it (GCC 12 and later, x86), else ()."""
    if not _X86:
        return ()
    try:
        r = subprocess.run([cxx, "-x", "c++", "-fsyntax-only", *GATHER_TUNING, "-"], input="",
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ()
    return GATHER_TUNING if r.returncode == 0 and not r.stderr.strip() else ()


def fused_instructions(library: str | os.PathLike) -> list[str] | None:
    """The fused multiply-add instructions in a compiled library's machine code (objdump -d),
    or None when objdump is missing or cannot read it."""
    objdump = shutil.which("objdump")
    if objdump is None:
        return None
    try:
        result = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(library)],
                                capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    return [line.strip() for line in result.stdout.splitlines() if FUSED_CPU.search(line)]


CXX_FLAGS = cxx_flags("native")
# NPU_EMU_SANITIZE=address: AddressSanitizer at -O1 (its recommended level; builds 2x faster).
SANITIZERS = {"address": ("-fsanitize=address", "-fno-omit-frame-pointer", "-O1")}


def sanitize_flags() -> tuple[str, ...]:
    """Extra compiler flags NPU_EMU_SANITIZE asks for ("" or "address")."""
    choice = os.environ.get("NPU_EMU_SANITIZE", "").strip().lower()
    if not choice:
        return ()
    if choice not in SANITIZERS:
        raise ValueError(f"NPU_EMU_SANITIZE={choice!r}; choose one of {', '.join(SANITIZERS)} "
                         f"(or leave it unset)")
    return SANITIZERS[choice]


def _cpu_model() -> str:
    """What the CPU is and every feature it has (model name and flags lines): part of the
    kernel cache key, so a cache shared between machines never loads a build for another
    CPU."""
    try:
        with open("/proc/cpuinfo") as f:
            lines = [line.strip() for line in f
                     if line.startswith(("model name", "flags", "Features", "CPU part"))]
        if lines:
            return "\n".join(dict.fromkeys(lines))   # the first core's lines, once each
    except OSError:
        pass
    return f"{platform.machine()} {platform.processor()}"


# ------------------------------------------------------------------------------ allocator

class _AsanPoison:
    """AddressSanitizer's manual poisoning, when its runtime is loaded: the slack of a block
    past the bytes asked for is poisoned, so a kernel writing past its buffer is caught."""

    def __init__(self) -> None:
        lib = ctypes.CDLL(None)
        try:   # getattr: a dunder name written in a class body would be mangled
            self.poison = getattr(lib, "__asan_poison_memory_region")
            self.unpoison = getattr(lib, "__asan_unpoison_memory_region")
        except AttributeError:
            self.poison = self.unpoison = None
        for fn in (self.poison, self.unpoison):
            if fn is not None:
                fn.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
                fn.restype = None


class HostPool(Allocator):
    """Aligned host buffers (NumPy arrays, kept as the blocks' handles)."""

    def __init__(self, streams: Callable[[], Any] = tuple) -> None:
        super().__init__(streams)
        self._asan = _AsanPoison() if sanitize_flags() else None
        self._poisons = self._asan is not None and self._asan.poison is not None

    def _raw_alloc(self, nbytes: int) -> tuple[int, np.ndarray]:
        buf = np.empty(nbytes + ALIGN, dtype=np.uint8)   # MemoryError when the host has none
        return (buf.ctypes.data + ALIGN - 1) // ALIGN * ALIGN, buf

    def _raw_release(self, ptr: int, handle: np.ndarray) -> None:
        if self._asan is not None and self._asan.unpoison is not None:
            self._asan.unpoison(handle.ctypes.data, handle.nbytes)
        # dropping the array returns the memory

    def _handed_out(self, ptr: int, nbytes: int, rounded: int, handle: np.ndarray) -> None:
        if self._asan is not None and self._asan.poison is not None:
            end = handle.ctypes.data + handle.nbytes
            self._asan.unpoison(handle.ctypes.data, handle.nbytes)
            self._asan.poison(ptr + max(nbytes, 1), end - ptr - max(nbytes, 1))


# ------------------------------------------------------------------------- streams, events

class CpuStream(Stream):
    """An in-order queue of host callables drained by one worker thread."""

    def __init__(self, on_destroy: Callable[["CpuStream"], None] = lambda s: None,
                 name: str = "npu_emu-stream") -> None:
        self._tasks: deque[tuple[Callable[[], None], bool]] = deque()
        # The condition's lock, taken directly on the hot paths (a `with self._cv` costs a
        # Python-level __enter__/__exit__ pair on top of the lock's own).
        self._mutex = threading.RLock()
        self._cv = threading.Condition(self._mutex)
        self._submitted = 0
        self._completed = 0
        self._error: BaseException | None = None
        self._closed = False
        self._inline = False        # a task running in the submitting thread (try_inline)
        self._waiters = 0           # threads in _wait_for (an inline task wakes only them)
        self._on_destroy = on_destroy
        self._worker = threading.Thread(target=self._run, name=name, daemon=True)
        self._worker.start()

    def submit(self, task: Callable[[], None], *, always: bool = False) -> int:
        """Queue a task; returns its position (a fence token). After a task failed the stream
        is poisoned (as in CUDA) and skips the rest, except `always` tasks (event markers,
        so waiters are never stranded)."""
        with self._cv:
            if self._closed:
                raise stream_destroyed("enqueue work on", self.released_by)
            self._tasks.append((task, always))
            self._submitted += 1
            self._cv.notify_all()
            return self._submitted

    def try_inline(self, task: Callable[[], None]) -> bool:
        """Run `task` in the calling thread, in stream order, when the stream is idle (nothing
        queued or running, no failure pending): a small launch then skips the hand-off to the
        worker, which is most of a tiny operator's cost. The worker starts nothing while it
        runs. False (nothing done) when the stream is busy: submit it instead."""
        with self._mutex:
            if self._closed:
                raise stream_destroyed("enqueue work on", self.released_by)
            if self._tasks or self._inline or self._completed != self._submitted \
                    or self._error is not None:
                return False
            self._submitted += 1
            self._inline = True
        try:
            task()
        except BaseException as exc:  # reported by synchronize(), as from the worker
            self._error = exc
        finally:
            # No lock to end it: while _inline is set nothing else changes _completed (the
            # worker starts nothing), and a thread that queues a task, starts to wait or
            # destroys the stream does so under the lock and then reads _inline and
            # _completed, or is seen here (read after the two writes) and woken under the
            # lock. Waking an idle worker for nothing would make it fight this thread for
            # the GIL.
            self._completed += 1
            self._inline = False
            if self._tasks or self._waiters or self._closed:
                with self._mutex:
                    self._cv.notify_all()
        return True

    def _run(self) -> None:
        while True:
            with self._cv:
                while (not self._tasks or self._inline) and not self._closed:
                    self._cv.wait()
                while self._inline:          # closed while an inline task runs: let it finish
                    self._cv.wait()
                if not self._tasks:
                    return
                task, always = self._tasks.popleft()
            try:
                if self._error is None or always:
                    task()
            except BaseException as exc:  # reported by synchronize()
                self._error = exc
            with self._cv:
                self._completed += 1
                self._cv.notify_all()

    @property
    def idle(self) -> bool:
        return self._completed == self._submitted

    def _wait_for(self, target: int) -> None:
        if self._completed >= target:   # done already (the count only grows): no lock
            return
        with self._cv:
            self._waiters += 1
            try:
                while self._completed < target:
                    self._cv.wait()
            finally:
                self._waiters -= 1

    def _raise_error(self) -> None:
        if self._error is not None:
            err, self._error = self._error, None
            if isinstance(err, AclnnError):
                raise err
            raise AclnnError(ACLNN_ERR_RUNTIME_ERROR, f"a task on the stream failed: {err!r}")

    def synchronize(self) -> None:
        if self._closed:
            raise stream_destroyed("synchronize", self.released_by)
        if self._completed < self._submitted:
            self._wait_for(self._submitted)
        if self._error is not None:
            self._raise_error()

    def _drain(self) -> None:
        """A device-wide wait's part: the queued work done; a stream destroyed meanwhile is
        simply done (its destroy reports its failure)."""
        if self._completed < self._submitted:
            self._wait_for(self._submitted)
        if self._error is not None and not self._closed:
            self._raise_error()

    def wait_event(self, event: Event) -> None:
        if not isinstance(event, CpuEvent):
            raise AclnnError(ACL_ERROR_INVALID_PARAM, f"event={event!r} is not a cpu event")
        if self._closed:
            raise stream_destroyed("wait for an event on", self.released_by)
        marker = event._marker
        if marker is not None:
            self.submit(marker.wait)

    def destroy(self) -> None:
        """Let the queued work finish, stop the worker, leave the backend; a failure of that
        work is reported here (the stream is destroyed all the same)."""
        refuse_default_destroy(self)
        with self._cv:
            if self._closed:
                raise stream_destroyed("destroy", self.released_by)
            self._closed = True
            self._cv.notify_all()
        if threading.current_thread() is not self._worker:
            self._worker.join()
        self._destroyed = True
        self._on_destroy(self)
        self._raise_error()

    def _fence(self) -> int | None:
        # No lock: _completed is read first and never passes _submitted, so equal counts mean
        # the stream was idle at that read (work submitted later by another thread is not
        # ordered before this fence's caller anyway).
        completed = self._completed
        submitted = self._submitted
        return None if completed == submitted else submitted

    def _fence_passed(self, token: int) -> bool:
        return self._completed >= token

    def _fence_wait(self, token: int) -> None:
        self._wait_for(token)


class CpuEvent(Event):
    def __init__(self) -> None:
        self._marker: threading.Event | None = None
        self._time: float | None = None   # when the stream reached the event

    def record(self, stream: Stream) -> None:
        if not isinstance(stream, CpuStream):
            raise AclnnError(ACL_ERROR_INVALID_PARAM, f"stream={stream!r} is not a cpu stream")
        if stream.destroyed:
            raise stream_destroyed("record an event on", stream.released_by)
        marker = threading.Event()

        def reached() -> None:
            self._time = time.perf_counter()
            marker.set()
        stream.submit(reached, always=True)
        self._marker = marker

    def synchronize(self) -> None:
        if self._marker is not None:
            self._marker.wait()

    def query(self) -> bool:
        return self._marker is None or self._marker.is_set()

    def elapsed_ms(self, end: Event) -> float:
        if not isinstance(end, CpuEvent):
            raise AclnnError(ACL_ERROR_INVALID_PARAM, f"end={end!r} is not a cpu event")
        for name, ev in (("start", self), ("end", end)):
            if ev._marker is None or not ev._marker.is_set():
                raise AclnnError(ACL_ERROR_INVALID_PARAM,
                                 f"{name} event has not completed (record it, then synchronize)")
        return (end._time - self._time) * 1e3   # type: ignore[operator]


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


_said: set[str] = set()


def _say_once(message: str) -> None:
    """A note on stderr, once per process."""
    if message not in _said:
        _said.add(message)
        print(f"npu_emu: {message}", file=sys.stderr, flush=True)


def _compiler_version(cxx: str) -> str:
    try:
        return subprocess.run([cxx, "--version"], capture_output=True, text=True,
                              timeout=30).stdout.splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


def asan_runtime(cxx: str | None = None) -> str:
    """The compiler's AddressSanitizer runtime (for LD_PRELOAD), or "" when it has none."""
    try:
        out = subprocess.run([cxx or _compiler(), "-print-file-name=libasan.so"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError, CompileError):
        return ""
    return out if os.path.isabs(out) and os.path.exists(out) else ""


class CpuModuleCache(ModuleCache):
    """Compiled modules: one shared library per kernel source, on disk and in memory."""

    backend_name = "cpu"

    def __init__(self) -> None:
        super().__init__()
        self._toolchain: str | None = None
        self.cxx: str | None = None
        self.flags: tuple[str, ...] = ()   # NO_FUSED's (modules with complex kernels)
        self._may_widen: dict[str, bool] = {}   # per module: x86, objdump, no complex kernels

    def _resolve_toolchain(self) -> str:
        """The compiler and the CPU (the flags are per module: `module_flags`)."""
        if self._toolchain is None:
            cxx = _compiler()
            self.cxx, self.flags = cxx, cxx_flags(cxx=cxx) + sanitize_flags()
            self._toolchain = _compiler_version(cxx) + _cpu_model()
        return self._toolchain

    def _entry(self, module: str, flags: tuple[str, ...]) -> Path:
        key = kernel_sources_hash(module, "|".join(flags) + self._resolve_toolchain())
        tag = "-asan" if "-fsanitize=address" in flags else ""
        return cache_dir() / f"{Path(module).stem}{tag}-{key}.so"

    def _wide_entry(self, module: str) -> Path | None:
        """The cache entry of `module`'s AVX-512 build, when it may have one: x86, no complex
        kernels in its source, objdump on PATH to check the result (the sources are read once
        per module: a build and every load ask)."""
        may = self._may_widen.get(module)
        if may is None:
            may = self._may_widen[module] = bool(_X86 and shutil.which("objdump")) and not any(
                COMPLEX_TYPE.search(p.read_bytes()) for p in module_sources(module)
                if p.suffix in (".cu", ".inc"))
        if not may:
            return None
        self._resolve_toolchain()
        return self._entry(module, cxx_flags(wide=True, cxx=self.cxx) + sanitize_flags())

    def module_flags(self, module: str) -> tuple[str, ...]:
        """The flags `module` is built with: WIDE's where it may keep AVX-512 and its build
        was not found to fuse, else NO_FUSED's."""
        wide = self._wide_entry(module)
        if wide is not None and not wide.with_suffix(".fused").exists():
            return cxx_flags(wide=True, cxx=self.cxx) + sanitize_flags()
        self._resolve_toolchain()
        return self.flags

    def path(self, module: str) -> Path:
        return self._entry(module, self.module_flags(module))

    library_path = path   # the name the tests and tools use

    def _build(self, module: str, path: Path) -> None:
        flags = self.module_flags(module)
        if flags == self.flags:
            if _X86 and shutil.which("objdump") is None:
                _say_once("objdump (binutils) is not on PATH, so no cpu module's machine code "
                          "can be checked for fused multiply-add: every module is built without "
                          "AVX-512")
            self._compile(module, path, flags)
            return
        fused = self._compile(module, path, flags)
        if fused:   # not kept: remembered, and built again without AVX-512
            path.with_suffix(".fused").write_text("\n".join(fused[:20]) + "\n")
            _say_once(f"the AVX-512 build of {module} contains fused multiply-add "
                      f"({fused[0]}); it is built again without AVX-512")
            self._compile(module, self.path(module), self.flags)

    def _compile(self, module: str, path: Path, flags: tuple[str, ...]) -> list[str] | None:
        """g++ `module` into `path` with `flags` (atomically); for a WIDE build, the fused
        instructions found in it (None when it is not one)."""
        source = kernels_dir() / module
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(suffix=".so", dir=path.parent)
        os.close(fd)
        cmd = [self.cxx or _compiler(), *flags, f"-I{kernels_dir()}", str(source), "-o", tmp]
        fused = None
        try:
            result = subprocess.run(cmd, capture_output=True, text=True)
            if result.returncode != 0:
                raise CompileError(f"compiling {module} for the cpu backend failed:\n"
                                   f"{' '.join(cmd)}\n{result.stderr[-4000:]}")
            if "-mno-avx512f" not in flags and _X86:
                fused = fused_instructions(tmp)
                if fused is None:
                    fused = ["(objdump could not read the library)"]
                if fused:
                    return fused   # not kept: the caller builds it again without AVX-512
            os.replace(tmp, path)  # atomic: concurrent builders never see half a library
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return fused

    def _open(self, module: str, path: Path) -> ctypes.CDLL:
        if not path.exists():
            path = self.path(module)   # its AVX-512 build fused: the other one
        if "-fsanitize=address" in self.flags and not hasattr(ctypes.CDLL(None), "__asan_init"):
            # Loading it anyway would end the process ("ASan runtime does not come first").
            raise CompileError(
                f"cannot load the cpu kernels of {module}: NPU_EMU_SANITIZE=address needs the "
                f"ASan runtime loaded first: LD_PRELOAD={asan_runtime(self.cxx) or '<libasan.so>'} "
                f"ASAN_OPTIONS=detect_leaks=0")
        try:
            return ctypes.CDLL(str(path))
        except OSError as exc:
            raise CompileError(f"cannot load the cpu kernels of {module} ({path}): {exc}") from None


# ------------------------------------------------------------------------------- backend

_VOIDP = ctypes.c_void_p
_GRID = ctypes.c_uint * 3


def _prepare(launch: Launch) -> tuple:
    """Arguments as cuLaunchKernel takes them: an array of pointers to each value's bytes.
    Returns (fn, grid, pointer array, buffers kept alive, workspace cells to patch, the call
    itself: fn(grid, ptrs) ready to run, for a launch with no cell to patch)."""
    origin = launch.origin
    if origin is not None and origin.prepared is not None and not origin.prepared[4]:
        return _moved(launch, origin.prepared)
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
    fn, grid = launch.kernel.fn, _GRID(*launch.grid)  # type: ignore[attr-defined]
    return fn, grid, ptrs, keep, patches, _call(fn, grid, ptrs, keep)


def _call(fn: Any, grid: Any, ptrs: Any, keep: list) -> Callable[[], None]:
    """fn(grid, ptrs) ready to run: the two buffers passed by address (as void pointers, the
    kernel's C signature: ctypes converts a Python int to one in half the time it takes to
    check and convert an array to a typed pointer, a microsecond a launch). The call keeps
    the buffers alive itself, and the cells whose addresses ptrs holds, as a queued task may
    run after the launch (and its packed form) is gone."""
    call = functools.partial(fn, ctypes.addressof(grid), ctypes.addressof(ptrs))
    call.keep = (grid, ptrs, keep)  # type: ignore[attr-defined]
    return call


def _moved(launch: Launch, prepared: tuple) -> tuple:
    """_prepare's result for a launch moved from one already packed (`prepared`, with no
    workspace cell): its cells shared but the Pointer arguments', packed anew."""
    fn, grid, old_ptrs, old_keep, _, _ = prepared
    ptrs = type(old_ptrs).from_buffer_copy(old_ptrs)
    keep = list(old_keep)
    for i, a in enumerate(launch.args):
        if a.__class__ is Pointer:
            keep[i] = cell = ctypes.c_uint64(int(a))
            ptrs[i] = ctypes.addressof(cell)
    return fn, grid, ptrs, keep, [], _call(fn, grid, ptrs, keep)


_RUNNER: list[int] = []       # the process's pool runner, once one module has given it
_RUNNER_LIB: list[ctypes.CDLL] = []   # the module whose pool that is
# How long an idle pool worker spins before it sleeps (npu_emu_cpu_pool.h, set_spin), in
# microseconds: long enough that a loop of launches with Python between them finds the worker
# awake (waking it cost 15-20 us and a late start: a 1M float32 max at two threads 165 us
# with a 20 us spin, 70 with this). OMP_WAIT_POLICY=passive, OpenMP's own switch for it, makes
# the workers sleep at once (for a host shared with other busy processes).
WORKER_SPIN_US = 200


def worker_spin_us() -> int:
    """The spin the pool's workers get: 0 under OMP_WAIT_POLICY=passive, else WORKER_SPIN_US."""
    return 0 if os.environ.get("OMP_WAIT_POLICY", "").strip().lower() == "passive" \
        else WORKER_SPIN_US
# The CPUs this process may use, read before any kernel module loads libgomp: with
# OMP_PROC_BIND set, libgomp pins the thread that loads it to one place, and the pool's
# workers, started from that thread, would inherit its single CPU (npu_emu_cpu_pool.h).
_PROCESS_CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def _pool_runner(lib: ctypes.CDLL) -> int | None:
    """The address of the grid runner of the process's one worker pool (npu_emu_cpu_pool.h):
    the first loaded module's (every module holds the same code; ctypes never unloads a
    library, so the address stays valid), given to every module loaded after it."""
    if not _RUNNER:
        lib.npu_emu_pool_runner.argtypes = ()
        lib.npu_emu_pool_runner.restype = _VOIDP
        runner = lib.npu_emu_pool_runner()
        if not runner:
            return None      # (a test's stand-in module): its grids run on the calling thread
        if _PROCESS_CPUS:
            lib.npu_emu_pool_cpus.argtypes = (ctypes.POINTER(ctypes.c_int), ctypes.c_int)
            lib.npu_emu_pool_cpus.restype = None
            lib.npu_emu_pool_cpus((ctypes.c_int * len(_PROCESS_CPUS))(*_PROCESS_CPUS),
                                  len(_PROCESS_CPUS))
        lib.npu_emu_pool_set_spin.argtypes = (ctypes.c_longlong,)
        lib.npu_emu_pool_set_spin.restype = None
        lib.npu_emu_pool_spin.argtypes = ()
        lib.npu_emu_pool_spin.restype = ctypes.c_longlong
        lib.npu_emu_pool_set_spin(worker_spin_us())
        _RUNNER.append(runner)
        _RUNNER_LIB.append(lib)
    return _RUNNER[0]


def _task(launches: Sequence[Launch], workspace: int) -> Callable[[], None]:
    """The launches as one task, their workspace cells set to `workspace` + offset. A launch
    without cells is packed once and kept on it (`prepared`); one with cells borrows a packed
    form from its `spares` (or packs a new one) and the task gives it back when it has run:
    a form is patched only while no task holds it, as a queued task may run later."""
    calls = []
    borrowed: list[tuple[Launch, tuple]] = []
    for launch in launches:
        prepared = launch.prepared
        if prepared is None:
            spares = launch.spares
            try:
                prepared = spares.pop() if spares else None   # atomic: one taker per form
            except IndexError:                              # another thread took the last
                prepared = None
            if prepared is None:
                prepared = _prepare(launch)
                if not prepared[4]:
                    launch.prepared = prepared
            if prepared[4]:
                for cell, offset in prepared[4]:
                    cell.value = workspace + offset
                borrowed.append((launch, prepared))
        calls.append(prepared[5])
    if not borrowed:
        def task() -> None:
            for call in calls:
                call()  # ctypes releases the GIL for the call
        return task

    def task_with_cells() -> None:
        try:
            for call in calls:
                call()
        finally:
            for launch, packed in borrowed:
                if launch.spares is None:
                    launch.spares = []
                launch.spares.append(packed)
    return task_with_cells


class CpuBackend(Backend):
    name = "cpu"
    is_cpu = True

    def __init__(self) -> None:
        self._streams: set[CpuStream] = set()
        self._streams_lock = threading.Lock()
        self._stream_snapshot: tuple[CpuStream, ...] = ()   # _streams, read without the lock
        self.allocator = HostPool(self._live_streams)
        self._modules = CpuModuleCache()
        self._kernels: dict[tuple[str, str], CpuKernel] = {}
        self._default: CpuStream | None = None
        self._lock = threading.Lock()      # the default stream only (never held while compiling)
        self._threads = 0                  # set_threads: 0 = OpenMP's default
        self._libs: dict[str, ctypes.CDLL] = {}   # the modules this backend has told _threads

    # -- copies
    def _ordered(self, stream: Stream | None, task: Callable[[], None]) -> None:
        """Run a copy in stream order: on `stream`, or (None) after the default stream's
        queued work, returning when it is done."""
        if stream is None:
            default = self.default_stream
            if default.try_inline(task):   # nothing queued before it: run here, no thread hop
                default._raise_error()
                return
            default._wait_for(default.submit(task))
            default._raise_error()
            return
        if not isinstance(stream, CpuStream):
            raise AclnnError(ACL_ERROR_INVALID_PARAM, f"stream={stream!r} is not a cpu stream")
        # On an idle stream the copy runs here, in order, as a launch does (enqueue): queued
        # behind the worker instead, a small upload (a scalar beside an array) made the next
        # launch find the stream busy and every later call wait on the worker's wake-up.
        if not stream.try_inline(task):
            stream.submit(task)

    def copy_from_host(self, dst: int, src: np.ndarray, stream: Stream | None = None) -> None:
        # On a stream the source is taken now (a pageable upload: the caller may reuse it).
        src = np.ascontiguousarray(src) if stream is None else np.array(src, order="C", copy=True)
        self._ordered(stream, lambda: ctypes.memmove(dst, array_address(src), src.nbytes))

    def copy_to_host(self, dst: np.ndarray, src: int, stream: Stream | None = None) -> None:
        host_destination(dst)
        self._ordered(stream, lambda: ctypes.memmove(array_address(dst), src, dst.nbytes))

    def copy_device(self, dst: int, src: int, nbytes: int, stream: Stream | None = None) -> None:
        self._ordered(stream, lambda: ctypes.memmove(dst, src, nbytes))

    def memset(self, ptr: int, value: int, nbytes: int, stream: Stream | None = None) -> None:
        self._ordered(stream, lambda: ctypes.memset(ptr, value, nbytes))

    # -- streams, events
    def _live_streams(self) -> tuple[CpuStream, ...]:
        # A tuple replaced whole under the lock: every free and synchronize reads it, so the
        # read takes no lock and copies nothing.
        return self._stream_snapshot

    def _forget(self, stream: CpuStream) -> None:
        with self._streams_lock:
            self._streams.discard(stream)
            self._stream_snapshot = tuple(self._streams)

    def create_stream(self) -> CpuStream:
        stream = CpuStream(self._forget)
        with self._streams_lock:
            self._streams.add(stream)
            self._stream_snapshot = tuple(self._streams)
        return stream

    def create_event(self, timing: bool = False) -> CpuEvent:
        return CpuEvent()

    def synchronize(self) -> None:
        for stream in self._live_streams():
            stream._drain()

    # -- kernels
    def function(self, module: str, name: str) -> CpuKernel:
        key = (module, name)
        kernel = self._kernels.get(key)
        if kernel is None:
            lib = self._lib(module)
            try:
                fn = getattr(lib, "npu_emu_launch_" + name)
            except AttributeError:
                raise CompileError(f"kernel {name!r} is not exported by {module} "
                                   f"(missing NPU_EMU_EXPORT({name})?)") from None
            fn.argtypes = (_VOIDP, _VOIDP)    # the grid's and the arguments' addresses
            fn.restype = None
            kernel = self._kernels.setdefault(key, CpuKernel(name, fn))
        return kernel

    def enqueue(self, launches: Sequence[Launch], stream: Stream | None,
                workspace: int = 0) -> None:
        target = stream or self._default or self.default_stream
        if target.__class__ is not CpuStream and not isinstance(target, CpuStream):
            raise AclnnError(ACL_ERROR_INVALID_PARAM, f"stream={stream!r} is not a cpu stream")
        prepared = launches[0].prepared if len(launches) == 1 else None
        if prepared is not None and not prepared[4]:
            task = prepared[5]      # one launch and no workspace: its call, made once
        else:
            task = _task(launches, workspace)
        # On an idle stream the launches run here, in the calling thread, whatever their size:
        # handing them to the worker costs a wake-up and two GIL hand-offs (70 us measured at
        # 64K float32 adds, 8x the kernel). The stream's order is kept: try_inline refuses
        # while anything is queued or running.
        if target.try_inline(task):
            return
        target.submit(task)

    def _lib(self, module: str) -> ctypes.CDLL:
        """A loaded module, told the thread count of its grids (set_threads) and the process's
        worker pool (_pool_runner); every module has both setters through npu_emu_cpu.h."""
        lib = self._libs.get(module)
        if lib is None:
            lib = self._modules.load(module)
            lib.npu_emu_set_threads.argtypes = (ctypes.c_int,)
            lib.npu_emu_set_threads.restype = None
            lib.npu_emu_set_threads(self._threads)
            lib.npu_emu_set_runner.argtypes = (_VOIDP,)
            lib.npu_emu_set_runner.restype = None
            lib.npu_emu_set_runner(_pool_runner(lib))
            lib = self._libs.setdefault(module, lib)
        return lib

    # -- threads, geometry
    def set_threads(self, n: int | None) -> None:
        """Run every grid on n threads from now on (None: OpenMP's default count,
        OMP_NUM_THREADS or the CPUs). Launches already queued keep their geometry (any
        geometry is correct on any thread count); the cached plans are dropped, so calls
        from now on are planned for n. The bench's --threads uses it to measure scaling in
        one process."""
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise ValueError(f"set_threads: n={n!r} must be a positive int or None")
        if (n or 0) == self._threads:
            return
        self._threads = n or 0
        for lib in list(self._libs.values()):
            lib.npu_emu_set_threads(self._threads)
        for clear in GEOMETRY_CHANGED:     # cached plans were shaped for the old count
            clear()

    @property
    def threads(self) -> int | None:
        """The set_threads count, None when OpenMP's default applies."""
        return self._threads or None

    def core_scaling(self, threads: int) -> float:
        """What `threads` OpenMP threads deliver over one on register-only vector work (no
        memory traffic: npu_emu_core_probe in strided_copy.cu), the median of five
        alternating runs: about `threads` on as many real cores, about 1.1-1.3 for two SMT
        siblings of one core or a CPU quota. No kernel scales past it; `npu-emu bench
        --threads` reports it beside each case's scaling."""
        if threads <= 1:
            return 1.0
        probe = self._lib("strided_copy.cu").npu_emu_core_probe
        probe.argtypes, probe.restype = (ctypes.c_int, ctypes.c_longlong), ctypes.c_double
        probe(threads, 1 << 16)             # the team started first
        rounds = 1 << 20
        while probe(1, rounds) < 0.02:      # about 20-40 ms on one thread
            rounds *= 2
        ratios = []
        for _ in range(5):
            one, many = probe(1, rounds), probe(threads, rounds)
            ratios.append(threads * one / many)
        return sorted(ratios)[2]

    @property
    def parallelism(self) -> int:
        return self._threads or self._omp_threads

    @functools.cached_property
    def _omp_threads(self) -> int:
        # OpenMP's own count: with OMP_PROC_BIND set, libgomp pins the calling thread, so the
        # process affinity no longer tells how many threads a parallel region gets.
        lib = self._lib("strided_copy.cu")
        return max(1, int(lib.npu_emu_max_threads()))

    # The least work of one block of an elementwise grid, in bytes of one operand: a grid of
    # one block runs on the calling thread alone. Waking a worker costs microseconds, more
    # than work this small gains from it.
    MIN_BLOCK_BYTES = 1 << 16

    def elementwise_geometry(self, numel: int, itemsize: int) -> tuple[int, int, int]:
        # Many blocks per worker: the caller starts at once and a worker may join late (a
        # wake-up from sleep); the blocks are handed out one at a time, and the launch ends
        # when the last one does, up to a block after the ideal split. At 4 a worker (1M
        # float32 tanh at two threads: blocks of 0.1 ms) the medians of 300 launches were
        # 0.44-0.63 ms, bimodal about 0.43 and 0.52; at 16, 0.40-0.50 (the least of each:
        # 0.38-0.44 both).
        chunks = self.parallelism * 16
        run = max(self.MIN_BLOCK_BYTES // max(itemsize, 1), -(-numel // chunks))
        return -(-numel // run), 1, run

    def info(self) -> dict[str, str]:
        cxx = self._modules.cxx or shutil.which(os.environ.get("CXX", "g++")) or "not found"
        found = cxx if os.path.exists(cxx) else None
        try:
            extra = sanitize_flags()
            bad = ""
        except ValueError as exc:
            extra, bad = (), f" ({exc})"
        out = {
            "backend": "cpu",
            "device": f"{platform.processor() or platform.machine()} "
                      f"({self.parallelism} threads for kernels)",
            "compiler": f"{cxx}: {_compiler_version(cxx) if found else 'missing'}",
            "flags": " ".join(cxx_flags(cxx=found) + extra) + bad,
        }
        if _X86:    # the modules without complex kernels, their machine code checked
            out["flags AVX-512"] = " ".join(cxx_flags(wide=True, cxx=found) + extra) + bad
        out.update({
            "sanitize": os.environ.get("NPU_EMU_SANITIZE", "") or "(off)",
            "cache_dir": str(cache_dir()),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "(unset)"),
            "OMP_PROC_BIND": os.environ.get("OMP_PROC_BIND", "(unset)"),
            "worker spin": f"{worker_spin_us()} us before an idle worker sleeps (OMP_WAIT_POLICY="
                           f"{os.environ.get('OMP_WAIT_POLICY', '') or '(unset)'})",
        })
        return out

    @property
    def pool_spin_us(self) -> int | None:
        """The spin the process's worker pool has in force (worker_spin_us(), set when the
        first module loads), None before any module has loaded."""
        return int(_RUNNER_LIB[0].npu_emu_pool_spin()) if _RUNNER_LIB else None
