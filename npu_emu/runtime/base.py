"""The backend interface: one small set of operations that both backends implement.

A backend is four parts (as in tinygrad): an allocator (a stream-ordered pool of device memory
with statistics), streams and events, a compiler that turns a file of `kernels_cuda/` into a
module, and a launcher. `cpu.py` and `cuda.py` are two answers to this interface; everything
above the runtime (ops, the acl facade) talks only to it. What both share lives here: the
pool's logic (`Allocator`), the stream contract (`Stream`), the kernel module cache that
compiles every missing module on first need (`ModuleCache`), and the launch geometry rule.
"""
from __future__ import annotations

import bisect
import functools
import hashlib
import os
import re
import sys
import threading
import time
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..status import AclnnError, ACL_ERROR_BAD_ALLOC, ACL_ERROR_INVALID_PARAM

ALIGN = 256   # every block the pools hand out starts on this boundary


def kernels_dir() -> Path:
    """The folder of kernel sources: `kernels_cuda/` beside the package in a source tree,
    or the copy installed inside the package."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "kernels_cuda", here / "kernels_cuda"):
        if (candidate / "npu_emu_common.cuh").is_file():
            return candidate
    raise RuntimeError(f"npu_emu: kernel sources not found beside {here}")


def kernel_sources() -> list[str]:
    """Every kernel module (a `.cu` file of kernels_dir()), sorted."""
    return sorted(p.name for p in kernels_dir().glob("*.cu"))


_INCLUDE = re.compile(rb'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_sources(module: str) -> list[Path]:
    """`module` and every header of kernels_dir() it includes, directly or through another
    header (`#include "..."`), in a fixed order: what a build of that module reads."""
    folder = kernels_dir()
    seen: dict[str, Path] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        path = folder / name
        if name in seen or not path.is_file():
            continue
        seen[name] = path
        todo.extend(m.decode() for m in _INCLUDE.findall(path.read_bytes()))
    return [seen[name] for name in sorted(seen)]


def kernel_sources_hash(module: str = "", extra: str = "") -> str:
    """Hash of a module's source and the headers it includes (all sources when module is
    ""), plus `extra` (the toolchain): a change to any of them rebuilds that module, and only
    that module."""
    h = hashlib.sha256(extra.encode())
    paths = module_sources(module) if module else sorted(
        p for p in kernels_dir().iterdir() if p.suffix in (".cu", ".cuh", ".h"))
    for path in paths:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:24]


def cache_dir() -> Path:
    """Where compiled kernel modules are kept: NPU_EMU_CACHE_DIR, else ~/.cache/npu_emu."""
    env = os.environ.get("NPU_EMU_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "npu_emu"


class Pointer(np.uint64):
    """A kernel argument that is an address inside one of the call's tensors (made only by
    `kernels.copy.pointer_arg`): packed as the np.uint64 it is, and the one kind of argument
    the eager layers' plan cache moves to another call's memory (`ops._bindings`). A null
    pointer argument (np.uint64(0)) is not one."""
    __slots__ = ()


@dataclass(frozen=True)
class Workspace:
    """A kernel argument that is the workspace pointer plus `offset` bytes, resolved when
    the launch is enqueued (the plan is made before the workspace exists)."""
    offset: int = 0


# What to run when a backend's launch geometry changes (set_threads): the plan caches, whose
# plans were shaped for the old thread count (a reduction's phases, an elementwise grid's
# blocks), register their clear here (ops._core.clear_plan_cache).
GEOMETRY_CHANGED: list[Callable[[], None]] = []


class KernelBuildError(RuntimeError):
    """A kernel module that cannot be compiled or loaded, on either backend (the C-style
    layer reports it as 561003, ACLNN_ERR_INNER_FIND_KERNEL_ERROR)."""


class Kernel(ABC):
    name: str


@dataclass
class Launch:
    """One kernel launch of a plan: grid, block and arguments (NumPy scalars, structured
    scalars for parameter structs, np.uint64 for pointers, or Workspace markers)."""
    kernel: Kernel
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple
    prepared: Any = field(default=None, repr=False, compare=False)  # backend's packed form
    # The launch this one was moved from (ops._bindings): the same kernel, grid and
    # arguments but its Pointer ones, so a backend may pack only those again.
    origin: "Launch | None" = field(default=None, repr=False, compare=False)
    # A backend's packed forms of a launch whose packing depends on the workspace address
    # (prepared stays None): the ones no queued or running task holds, to patch and reuse.
    spares: "list | None" = field(default=None, repr=False, compare=False)


# ------------------------------------------------------------------------- streams, events

def stream_destroyed(action: str, by: str = "acl.rt.destroy_stream") -> AclnnError:
    """The one error for any use of a destroyed stream, on both backends; `by` says what
    destroyed it (a Stream's `released_by`)."""
    return AclnnError(ACL_ERROR_INVALID_PARAM,
                      f"cannot {action}: the stream was destroyed ({by}); "
                      f"create a new one with acl.rt.create_stream")


class Event(ABC):
    @abstractmethod
    def record(self, stream: "Stream") -> None: ...

    @abstractmethod
    def synchronize(self) -> None: ...

    @abstractmethod
    def query(self) -> bool:
        """True once all work recorded before it has completed."""

    @abstractmethod
    def elapsed_ms(self, end: "Event") -> float:
        """Milliseconds between this event and `end`, both recorded and completed
        (aclrtEventElapsedTime); AclnnError(ACL_ERROR_INVALID_PARAM) otherwise."""


class Stream(ABC):
    """An in-order queue of device work. The contract both backends keep:

    - launches and copies given a stream run in the order they were enqueued on it;
    - `destroy()` lets the queued work finish, releases the stream and removes it from its
      backend; any later use (enqueue, synchronize, wait_event, an event recorded on it,
      destroy again) raises `stream_destroyed` (ACL_ERROR_INVALID_PARAM);
    - the pool's fences: `_fence()` marks the work queued so far (None when there is none)
      and `_fence_passed(token)` says whether that work has completed; both stay valid after
      destroy.
    """

    _destroyed = False
    # What destroyed it, for the error of a later use: acl.rt.reset_device and acl.finalize
    # release the streams acl.rt made (acl.rt sets this before it destroys them).
    released_by = "acl.rt.destroy_stream"
    # Every subclass, for a class test before isinstance: isinstance against this abstract
    # class goes through ABCMeta, a quarter of a microsecond on every tiny call's path.
    classes: "set[type]" = set()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        Stream.classes.add(cls)
    is_default = False

    @property
    def destroyed(self) -> bool:
        return self._destroyed

    def _check_live(self, action: str) -> None:
        if self._destroyed:
            raise stream_destroyed(action, self.released_by)

    @abstractmethod
    def synchronize(self) -> None: ...

    @abstractmethod
    def wait_event(self, event: Event) -> None: ...

    @abstractmethod
    def destroy(self) -> None: ...

    @abstractmethod
    def _fence(self) -> Any | None:
        """A token for the work queued so far, or None when the stream is idle."""

    @abstractmethod
    def _fence_passed(self, token: Any) -> bool: ...

    def _fence_wait(self, token: Any) -> None:
        """Block the host until the fence has passed."""
        self.synchronize()


def refuse_default_destroy(stream: Stream) -> None:
    if stream.is_default:
        raise AclnnError(ACL_ERROR_INVALID_PARAM,
                         "the default stream cannot be destroyed; destroy only streams from "
                         "acl.rt.create_stream")


# -------------------------------------------------------------------------------- pool

def size_class(nbytes: int) -> int:
    """Round a request up to its size class: 512-byte steps up to 1 MiB, then eight classes
    per power of two (at most 12.5% slack)."""
    if type(nbytes) is int and 0 < nbytes <= 1 << 20:   # the common case, no conversion
        return (nbytes + 511) & ~511
    n = max(int(nbytes), 1)
    if n <= 1 << 20:
        return (n + 511) & ~511
    step = 1 << (n.bit_length() - 4)
    return (n + step - 1) // step * step


class _Block:
    """One block of the pool, live or cached, the same object for its whole life (a malloc
    and a free move it; they make nothing): `nbytes` asked for while live, its size class
    `rounded`, the backend's `handle`, the `serial` it was handed out with (a new one each
    time), and while cached the `fences`: (stream, token) pairs of the work that may still
    use it."""

    __slots__ = ("ptr", "nbytes", "rounded", "handle", "serial", "fences")

    def __init__(self, ptr: int, nbytes: int, rounded: int, handle: Any) -> None:
        self.ptr, self.nbytes, self.rounded, self.handle = ptr, nbytes, rounded, handle
        self.serial = 0
        self.fences: list = []


def _descending(block: _Block) -> int:
    """A free list's order: by address, the highest first (the lowest is popped)."""
    return -block.ptr


class Allocator:
    """The pool both backends share: size classes, free lists, statistics, live blocks by
    address (so a pointer the pool never gave out is refused, and a range can be checked
    before any copy). A backend's subclass supplies only raw allocation and release; streams
    supply the fences.

    Stream order, the contract (as CUDA's stream-ordered allocator):
    - `free(ptr, stream)`: the block may still be used by work queued on `stream`; with
      stream None, by work queued on any stream: a fence is taken on every stream with
      queued work. A free never waits.
    - `malloc(nbytes, stream)`: a cached block is reused by work on `stream` at once (stream
      order protects it) when its other fences have passed; by the host or any stream
      (stream None) only when all its fences have passed. Otherwise fresh memory is used.
    - `empty_cache()` releases only blocks whose fences have all passed.
    - The host may run ahead of the device (the cpu backend's queues are unbounded): once
      more than `pending_limit` bytes wait for their fences, a malloc that finds no usable
      block first waits for those fences instead of taking ever more fresh memory.
    """

    pending_limit = 1 << 30

    def __init__(self, streams: Callable[[], Iterable[Stream]] = tuple) -> None:
        self._lock = threading.RLock()
        self._streams = streams              # the backend's live streams, for stream=None frees
        # Sorted starts of every block the pool holds, live or cached: blocks never overlap,
        # so the nearest start at or below an address names the only block that can hold
        # it (live when it is in _blocks). Changed only when fresh memory is taken or
        # released, not by a malloc or free of a cached block.
        self._starts: list[int] = []
        self._blocks: dict[int, _Block] = {}                  # live blocks by start
        self._external: dict[int, tuple[int, Any]] = {}      # ptr -> (nbytes, owner)
        self._ext_serials: dict[int, int] = {}                # ptr -> serial of the region
        self._ext_starts: list[int] = []
        self._free: dict[int, list[_Block]] = {}              # size class -> cached blocks
        self._next_serial = 1
        # Bumped by every free and unregister: a plan that saw generation g and finds it
        # unchanged knows every block it checked is still live (phase two's cheap re-check).
        self.generation = 0
        self.bytes_in_use = 0
        self.bytes_cached = 0
        self.peak_bytes_in_use = 0
        self.allocation_count = 0

    # -- what a backend supplies
    def _raw_alloc(self, nbytes: int) -> tuple[int, Any]:
        """(pointer aligned to ALIGN, handle) of nbytes of fresh memory; MemoryError when the
        device has none."""
        raise NotImplementedError

    def _raw_release(self, ptr: int, handle: Any) -> None:
        raise NotImplementedError

    # Whether _handed_out does anything (a subclass that overrides it says so): the hot
    # path of malloc skips the call otherwise.
    _poisons = False

    def _handed_out(self, ptr: int, nbytes: int, rounded: int, handle: Any) -> None:
        """Called for every block handed out (the cpu pool poisons the slack under ASan)."""

    def _release_elsewhere(self) -> None:
        """Out of memory: release what other pools of this process cache unused (the cuda
        pool: CuPy's)."""

    # -- the pool
    def malloc(self, nbytes: int, stream: Stream | None = None) -> int:
        """A pointer to at least nbytes (ALIGN-aligned) that `stream` (None: any) may use."""
        if stream is not None:
            stream._check_live("allocate memory for")
        rounded = (nbytes + 511) & ~511 if nbytes.__class__ is int and 0 < nbytes <= 1 << 20 \
            else size_class(nbytes)
        with self._lock:
            # The common case first: the lowest block of this class (see free), its work
            # done when it was freed (no fences); anything else takes the full search below.
            bucket = self._free.get(rounded)
            if bucket and not bucket[-1].fences:
                block = bucket.pop()
                self.bytes_cached -= rounded
                self._hand_out(block, nbytes)
                return block.ptr
        for attempt in range(2):
            with self._lock:
                block = self._take_cached(rounded, stream)
                if block is not None:
                    self.bytes_cached -= rounded
                    self._hand_out(block, nbytes)
                    return block.ptr
                pending = []
                for bucket in self._free.values():
                    for b in bucket:
                        b.fences = [(s, t) for s, t in b.fences if not s._fence_passed(t)]
                        if b.fences:
                            pending.append(b)
            if attempt or sum(b.rounded for b in pending) <= self.pending_limit:
                break
            for b in pending:    # too far ahead of the device: let it catch up first
                for s, token in b.fences:
                    s._fence_wait(token)
        ptr, handle = self._fresh(rounded, nbytes)
        block = _Block(ptr, nbytes, rounded, handle)
        with self._lock:
            bisect.insort(self._starts, ptr)
            self._hand_out(block, nbytes)
        return ptr

    def _hand_out(self, block: _Block, nbytes: int) -> None:
        """Make a block live (the lock held): a new serial, the statistics."""
        block.nbytes = nbytes
        block.fences = []
        block.serial = self._next_serial
        self._next_serial += 1
        self._blocks[block.ptr] = block
        self.bytes_in_use += block.rounded
        if self.bytes_in_use > self.peak_bytes_in_use:
            self.peak_bytes_in_use = self.bytes_in_use
        self.allocation_count += 1
        if self._poisons:
            self._handed_out(block.ptr, nbytes, block.rounded, block.handle)

    def _take_cached(self, rounded: int, stream: Stream | None) -> _Block | None:
        bucket = self._free.get(rounded)
        if not bucket:
            return None
        for i in range(len(bucket) - 1, -1, -1):   # the lowest address first (see free)
            block = bucket[i]
            if block.fences:                       # none: freed after its work (the common case)
                block.fences = [(s, t) for s, t in block.fences if not s._fence_passed(t)]
                if not all(s is stream for s, _ in block.fences):
                    continue
            del bucket[i]
            return block
        return None

    def _fresh(self, rounded: int, nbytes: int) -> tuple[int, Any]:
        try:
            return self._raw_alloc(rounded)
        except MemoryError:
            pass
        self.empty_cache()               # blocks nobody can still use
        try:
            return self._raw_alloc(rounded)
        except MemoryError:
            pass
        # Out of memory: wait for every pending free (on any stream, destroyed ones too),
        # release it and what other pools hold, then retry once more.
        with self._lock:
            pending = [f for bucket in self._free.values() for b in bucket for f in b.fences]
        for s, token in pending:
            try:
                s._fence_wait(token)
            except AclnnError:
                pass
        self.empty_cache()
        self._release_elsewhere()
        try:
            return self._raw_alloc(rounded)
        except MemoryError:
            raise AclnnError(ACL_ERROR_BAD_ALLOC, f"cannot allocate {nbytes} bytes of device "
                                                  f"memory: the device is out of memory") from None

    def free(self, ptr: int, stream: Stream | None = None) -> None:
        """Return a block to the pool (see the class doc for stream order);
        AclnnError(ACL_ERROR_INVALID_PARAM) for a foreign pointer or a double free."""
        if stream is not None:
            stream._check_live("free memory on")
            candidates: Iterable[Stream] = (stream,)
        else:
            candidates = self._streams()
        fences = []
        for s in candidates:
            token = s._fence()
            if token is not None:
                fences.append((s, token))
        with self._lock:
            block = self._blocks.pop(ptr, None)
            if block is None:
                raise AclnnError(ACL_ERROR_INVALID_PARAM,
                                 f"devPtr=0x{ptr:x} was not allocated by acl.rt.malloc "
                                 f"(or was already freed)")
            self.generation += 1
            self.bytes_in_use -= block.rounded
            block.fences = fences
            bucket = self._free.get(block.rounded)
            if bucket is None:
                bucket = self._free[block.rounded] = []
            # Kept by address, the lowest last (taken first): which block a malloc gets then
            # depends on which blocks are free, not on the order they were freed in, so a
            # loop that allocates the same way each round gets the same addresses each round
            # (and its plans, kept by address, are found bound: ops._bindings).
            # A freed block usually goes among the lowest (the end): a few steps back from
            # there, else a binary search (its key a Python call per probe).
            ptr, i = block.ptr, len(bucket)
            while i and bucket[i - 1].ptr < ptr and i > len(bucket) - 8:
                i -= 1
            if i and bucket[i - 1].ptr < ptr:
                bisect.insort(bucket, block, key=_descending)
            else:
                bucket.insert(i, block)
            self.bytes_cached += block.rounded

    def empty_cache(self) -> None:
        """Release every cached block whose fences have passed (the others stay cached)."""
        release: list[_Block] = []
        with self._lock:
            for bucket in self._free.values():
                keep = []
                for block in bucket:
                    block.fences = [(s, t) for s, t in block.fences if not s._fence_passed(t)]
                    (keep if block.fences else release).append(block)
                bucket[:] = keep
            self.bytes_cached -= sum(b.rounded for b in release)
            for block in release:
                del self._starts[bisect.bisect_left(self._starts, block.ptr)]
        for block in release:
            self._raw_release(block.ptr, block.handle)

    def reset_peak(self) -> None:
        """Start peak_bytes_in_use again from the bytes in use now."""
        with self._lock:
            self.peak_bytes_in_use = self.bytes_in_use

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"bytes_in_use": self.bytes_in_use, "bytes_cached": self.bytes_cached,
                    "peak_bytes_in_use": self.peak_bytes_in_use,
                    "allocations": len(self._blocks), "total_allocations": self.allocation_count}

    # -- live blocks
    def register_external(self, ptr: int, nbytes: int, owner: Any) -> None:
        """Memory we did not allocate (a CuPy/NumPy array handed to us) but may read and write."""
        with self._lock:
            if ptr not in self._external:
                bisect.insort(self._ext_starts, ptr)
            else:
                self.generation += 1
            self._external[ptr] = (nbytes, owner)
            self._ext_serials[ptr] = self._next_serial
            self._next_serial += 1

    def unregister_external(self, ptr: int) -> None:
        with self._lock:
            if self._external.pop(ptr, None) is not None:
                del self._ext_starts[bisect.bisect_left(self._ext_starts, ptr)]
                del self._ext_serials[ptr]
                self.generation += 1

    def block_id(self, ptr: int, nbytes: int) -> int | None:
        """The serial number of the live block (or registered region) that holds
        [ptr, ptr + nbytes), or None. Serials are never reused: a block freed and handed out
        again at the same address has a new one, so a plan can tell its memory was freed."""
        if nbytes < 0 or ptr < 0:
            return None
        with self._lock:
            i = bisect.bisect_right(self._starts, ptr) - 1
            if i >= 0:
                block = self._blocks.get(self._starts[i])     # None: a cached block
                if block is not None and ptr + nbytes <= block.ptr + block.nbytes:
                    return block.serial
            i = bisect.bisect_right(self._ext_starts, ptr) - 1
            if i >= 0:
                start = self._ext_starts[i]
                if ptr + nbytes <= start + self._external[start][0]:
                    return self._ext_serials[start]
        return None

    def block_ids(self, ranges: Iterable[tuple[int, int]]) -> list[int | None]:
        """block_id of each (ptr, nbytes), under one lock (a plan's ranges, checked per call)."""
        out: list[int | None] = []
        blocks = self._blocks
        with self._lock:
            for ptr, nbytes in ranges:
                block = blocks.get(ptr)          # a block's own start: the common case
                if block is not None and 0 <= nbytes <= block.nbytes:
                    out.append(block.serial)
                else:
                    out.append(self.block_id(ptr, nbytes))
        return out

    def contains(self, ptr: int, nbytes: int) -> bool:
        """Whether [ptr, ptr + nbytes) lies inside one live block or registered region."""
        return self.block_id(ptr, nbytes) is not None

    def size_of(self, ptr: int) -> int | None:
        with self._lock:
            block = self._blocks.get(ptr)
            return None if block is None else block.nbytes

    @property
    def live_allocations(self) -> int:
        return len(self._blocks)


# ------------------------------------------------------------------------ module cache

# g++ -O3 CPU seconds of the slowest modules (benchmarks/bench_cold.py, 2-core reference
# machine): a batch builds longest first, so no core is left with one long build at the end.
# Other modules are estimated from the bytes of their own files (module_cost).
BUILD_COST_HINTS: dict[str, float] = {
    "layout.cu": 3.3, "layout_i64.cu": 3.3, "elementwise_f16_i64.cu": 5.7,
    "elementwise_f16.cu": 4.0, "strided_copy.cu": 2.3, "matmul.cu": 15.0, "clip.cu": 2.6,
    # the reductions (docs/reductions.md#build-units: 2026-12-07, a loaded machine, so /1.5)
    **{f"reduce_{unit}.cu": round(cost / 1.5, 1) for unit, cost in (
        ("sum_float", 9.5), ("sum_int", 17.1), ("sum_complex", 4.2), ("prod_float", 6.9),
        ("prod_int", 19.8), ("prod_complex", 3.9), ("stats_float", 10.5), ("stats_complex", 3.4),
        ("extreme_float", 12.9), ("extreme_int", 11.0), ("bool_float", 2.9), ("bool_int", 5.9),
        ("bool_complex", 2.1), ("scan_float", 6.7), ("scan_int", 15.2), ("scan_complex", 1.9))},
    # docs/backends.md's table of the elementwise functions' units
    "ufunc_unary_exp_f16.cu": 6.9, "ufunc_unary_exp_bf16.cu": 5.4,
    "ufunc_unary_basic_f16.cu": 4.1, "ufunc_unary_exp_f64.cu": 4.0, "ufunc_binary_basic_f16.cu": 3.9,
    # the integer units, one per width (2026-12-06: 1.5-4.8 s each; one unit of all took 4.2-12.2 s)
    **{f"ufunc_{family}_int{bits}.cu": cost
       for family, cost in (("binary_basic", 2.8), ("compare", 3.0), ("unary_basic", 1.6))
       for bits in (8, 16, 32, 64)},
    # the cast units (npu_emu/kernels/cast.py: their own files are a few lines each)
    "cast_int64.cu": 5.8, "cast_float.cu": 4.7, "cast_fp8.cu": 4.6, "cast_complex.cu": 4.6,
    "cast_double.cu": 4.5, "cast_int.cu": 4.3, "cast_any.cu": 1.4,
}


def module_cost(module: str) -> float:
    """The estimated build time of `module` (no measurement at run time): its hint, else one
    second per 4 kB of the module's own files (the .cu and its .inc lists, not the headers
    every module shares)."""
    if module in BUILD_COST_HINTS:
        return BUILD_COST_HINTS[module]
    own = [p for p in module_sources(module) if p.suffix in (".cu", ".inc")]
    return sum(p.stat().st_size for p in own) / 4096


def _say(message: str) -> None:
    print(f"npu_emu: {message}", file=sys.stderr, flush=True)


class ModuleCache(ABC):
    """Compiled kernel modules of one backend: on disk (keyed by the sources, the flags and
    the toolchain) and loaded in memory. On the first need of a module that is not on disk,
    that module alone is compiled, saying so on stderr; `build_all` compiles every missing
    one in parallel. A warm cache is silent. Thread safe, and no lock is held while compiling except the build's own (so
    streams and the pool are never blocked by a compile)."""

    backend_name = "?"

    def __init__(self) -> None:
        self._lock = threading.Lock()            # the dictionaries below
        self._build_lock = threading.Lock()      # one batch of compiles at a time
        self._loaded: dict[str, Any] = {}

    # -- what a backend supplies
    @abstractmethod
    def path(self, module: str) -> Path:
        """The cache file of `module` for this toolchain."""

    @abstractmethod
    def _build(self, module: str, path: Path) -> None:
        """Compile `module` into `path` (atomically); KernelBuildError on failure."""

    @abstractmethod
    def _open(self, module: str, path: Path) -> Any:
        """Load a compiled module; KernelBuildError on failure."""

    def _target(self) -> str:
        return f"the {self.backend_name} backend"

    # -- the cache
    def load(self, module: str) -> Any:
        lib = self._loaded.get(module)
        if lib is not None:
            return lib
        if not (kernels_dir() / module).is_file():
            raise KernelBuildError(f"no kernel source {module!r} in {kernels_dir()}")
        path = self.path(module)
        if not path.exists():
            self._build_missing(module)
        with self._lock:
            lib = self._loaded.get(module)
            if lib is None:
                lib = self._loaded[module] = self._open(module, path)
        return lib

    def build_all(self, modules: Sequence[str] | None = None) -> list[Path]:
        """Every module (or those of `modules`) on disk, compiling the missing ones in
        parallel; their paths."""
        modules = kernel_sources() if modules is None else list(modules)
        missing = [m for m in modules if not self.path(m).exists()]
        if missing:
            try:
                self._build_missing(missing)
            except KernelBuildError:
                pass          # reported below, module by module
        for m in modules:
            if not self.path(m).exists():   # it failed in the batch: again, for its error
                self._build(m, self.path(m))
        return [self.path(m) for m in modules]

    def _build_missing(self, module: "str | list[str]") -> None:
        """Compile `module` (or a list of modules, in parallel); the first one asked for
        decides the exception."""
        with self._build_lock:
            wanted = [module] if isinstance(module, str) else list(module)
            wanted = [m for m in wanted if not self.path(m).exists()]  # built meanwhile?
            if not wanted:
                return
            module = wanted[0]
            batch = sorted(wanted, key=module_cost, reverse=True)   # longest first
            folder = self.path(module).parent
            folder.mkdir(parents=True, exist_ok=True)
            _say(f"compiling {len(batch)} kernel module{'s' if len(batch) > 1 else ''} for "
                 f"{self._target()}, once; cached in {folder}")
            start = time.monotonic()
            done = [0]
            say_lock = threading.Lock()

            def one(m: str) -> None:
                t0 = time.monotonic()
                self._build(m, self.path(m))
                with say_lock:
                    done[0] += 1
                    _say(f"  [{done[0]}/{len(batch)}] {m} ({time.monotonic() - t0:.1f} s)")

            workers = max(1, min(len(batch), os.cpu_count() or 1))
            with ThreadPoolExecutor(workers, thread_name_prefix="npu_emu-compile") as pool:
                futures = {m: pool.submit(one, m) for m in batch}
            failed = {m: f.exception() for m, f in futures.items() if f.exception() is not None}
            for m in failed:
                _say(f"  {m} failed")
            if not failed:
                _say(f"  kernels ready in {time.monotonic() - start:.1f} s")
            # The module asked for decides; another module's failure surfaces when that one
            # is needed (and is retried then).
            if module in failed:
                raise failed[module]


# ----------------------------------------------------------------------------- backend

def host_destination(dst: np.ndarray) -> np.ndarray:
    """The check every copy_to_host makes: a raw copy fills memory in order, so the NumPy
    destination must be C-contiguous and writable."""
    if not isinstance(dst, np.ndarray):
        raise AclnnError(ACL_ERROR_INVALID_PARAM,
                         f"dst={type(dst).__name__}: copy_to_host writes into a NumPy array")
    if not dst.flags.c_contiguous:
        raise AclnnError(ACL_ERROR_INVALID_PARAM,
                         f"dst is a non-contiguous array (strides {dst.strides}); copy_to_host "
                         f"writes raw bytes in order, so pass a C-contiguous array")
    if not dst.flags.writeable:
        raise AclnnError(ACL_ERROR_INVALID_PARAM, "dst is a read-only array")
    return dst


class Backend(ABC):
    """What the operators need from a device.

    Copies and memsets: with a stream they are enqueued on it (ordered with the launches
    there; an upload's host source may be reused as soon as the call returns, except memory
    from malloc_host, which the cuda backend reads when the stream gets there). With stream
    None they are synchronous: ordered after the work queued on the default stream, done
    when the call returns, not ordered with other streams (synchronize those first, as with
    CUDA's non-blocking streams).
    """

    name: str
    is_cpu: bool
    allocator: Allocator

    # -- memory
    def malloc(self, nbytes: int, stream: Stream | None = None) -> int:
        """A device pointer to at least nbytes (256-byte aligned), from the pool, for work on
        `stream` (None: the host or any stream)."""
        return self.allocator.malloc(nbytes, stream)

    def free(self, ptr: int, stream: Stream | None = None) -> None:
        """Return a block to the pool: work queued on `stream` (None: on any stream) may
        still use it, and the pool will not hand it to anyone else before that work passed.
        Never waits. AclnnError(ACL_ERROR_INVALID_PARAM) for a foreign pointer."""
        self.allocator.free(ptr, stream)

    def memory_stats(self) -> dict[str, int]:
        return self.allocator.stats()

    def empty_cache(self) -> None:
        self.allocator.empty_cache()

    # -- host memory for copies (aclrtMallocHost)
    @functools.cached_property
    def _host_blocks(self) -> dict[int, Any]:
        return {}

    def malloc_host(self, nbytes: int) -> int:
        """nbytes of host memory (256-byte aligned) for copies; MemoryError when there is
        none. Ordinary memory here; the cuda backend's is page-locked."""
        buf = np.zeros(int(nbytes) + ALIGN, np.uint8)
        ptr = (buf.ctypes.data + ALIGN - 1) // ALIGN * ALIGN
        self._host_blocks[ptr] = buf
        return ptr

    def free_host(self, ptr: int) -> bool:
        """Release a block of malloc_host; False when `ptr` is not one."""
        return self._host_blocks.pop(ptr, None) is not None

    def is_host_block(self, ptr: int, nbytes: int = 1) -> bool:
        """Whether [ptr, ptr + nbytes) lies inside one live block of malloc_host."""
        for start, buf in list(self._host_blocks.items()):
            if start <= ptr and ptr + nbytes <= buf.ctypes.data + buf.nbytes:
                return True
        return False

    # -- other libraries
    def hand_over(self) -> None:
        """Another library will use memory our queued work touches, on a stream it does not
        name (or gets back memory it lent us): order that after our work. Here the host
        waits for the default stream (never from that stream's own worker thread)."""
        stream = self.default_stream
        if threading.current_thread() is not getattr(stream, "_worker", None):
            stream.synchronize()

    # -- copies (see the class doc for their order)
    @abstractmethod
    def copy_from_host(self, dst: int, src: np.ndarray, stream: Stream | None = None) -> None: ...

    @abstractmethod
    def copy_to_host(self, dst: np.ndarray, src: int, stream: Stream | None = None) -> None: ...

    @abstractmethod
    def copy_device(self, dst: int, src: int, nbytes: int, stream: Stream | None = None) -> None: ...

    @abstractmethod
    def memset(self, ptr: int, value: int, nbytes: int, stream: Stream | None = None) -> None: ...

    # -- streams, events
    @abstractmethod
    def create_stream(self) -> Stream: ...

    # Set by the backends' __init__: the default stream, made on first use under _lock.
    _default: "Stream | None" = None
    _lock: Any = None

    @property
    def default_stream(self) -> Stream:
        """The stream of work given no stream (made on first use; it cannot be destroyed)."""
        default = self._default
        if default is None:
            with self._lock:
                if self._default is None:
                    stream = self.create_stream()
                    stream.is_default = True   # type: ignore[attr-defined]
                    self._default = stream
                default = self._default
        return default

    @abstractmethod
    def create_event(self, timing: bool = False) -> Event:
        """An event; `timing` ones can measure elapsed time (slower to record on a GPU)."""

    @abstractmethod
    def synchronize(self) -> None:
        """Wait for every stream of this backend."""

    # -- kernels
    @abstractmethod
    def function(self, module: str, name: str) -> Kernel:
        """Kernel `name` of `kernels_cuda/<module>`, compiled (and cached) on first use."""

    @abstractmethod
    def enqueue(self, launches: Sequence[Launch], stream: Stream | None,
                workspace: int = 0) -> None:
        """Enqueue launches in order on stream; Workspace markers become workspace + offset."""

    # -- launch geometry: how the ops shape grids for this device
    @property
    @abstractmethod
    def parallelism(self) -> int:
        """Number of blocks that run at once (CPU: worker threads; GPU: SMs x blocks/SM)."""

    @abstractmethod
    def info(self) -> dict[str, str]:
        """What `npu-emu info` prints about this backend."""

    @abstractmethod
    def elementwise_geometry(self, numel: int, itemsize: int) -> tuple[int, int, int]:
        """(grid, block, run) for a kernel where each thread handles `run` consecutive
        elements: 16 bytes per thread on a GPU, long runs (many per worker, for balance) on the CPU."""

    def space_geometry(self, space: Any, itemsize: int, operands: Sequence[int] | None = None,
                       pointers: Sequence[tuple[int, Any, int]] = ()) -> tuple[int, int, int]:
        """(grid, block, run) for the row-walking kernels over an iteration space
        (`indexing.IterSpace`; itemsize: the widest operand's): `row_geometry` applied to
        this device's elementwise_geometry."""
        return row_geometry(self.elementwise_geometry(space.numel, itemsize), space, operands,
                            pointers)

    # Threads of a block for tiled kernels (32x33 shared tiles): (x, y).
    tile_block: tuple[int, int] = (1, 1)
    def tile_span(self, unit: str) -> tuple[int, int]:
        """The elements one block of tiled_copy_<unit> covers along the destination's and the
        source's fast axes (strided_copy.cu TILE_SPAN0 and TILE, which must agree): on the CPU
        four tiles for the register-transposed 2- and 4-byte units, one for the others."""
        return (128, 32) if unit in ("b2", "b4") else (32, 32)


def row_geometry(geometry: tuple[int, int, int], space: Any, operands: Sequence[int] | None = None,
                 pointers: Sequence[tuple[int, Any, int]] = ()) -> tuple[int, int, int]:
    """The rule of space_geometry. Where a block has many threads (a GPU), `run` consecutive
    elements per thread pay only when every thread's run is one aligned, contiguous vector
    (the kernels then move it with one load and one store per operand); otherwise each
    thread takes one element, so consecutive threads touch consecutive addresses. A block of
    one thread (the CPU) keeps its long runs. `operands`: which operands are memory (default
    all; the layout kernels' padding indices are not); `pointers`: (operand, address or
    Workspace marker, itemsize) where known: a unit-strided operand must then start on a
    vector boundary (the kernels check again at run time)."""
    grid, block, run = geometry
    aligned = all(_vector_aligned(ptr, size * run) for k, ptr, size in pointers
                  if space.strides[k][0] != 0)
    if block > 1 and run > 1 and not (aligned and vector_rows(space, run, operands)):
        return max(1, -(-space.numel // block)), block, 1
    return grid, block, run


def _vector_aligned(ptr: Any, nbytes: int) -> bool:
    address = ptr.offset if isinstance(ptr, Workspace) else int(ptr)   # workspaces: 256-aligned
    return address % nbytes == 0


def vector_rows(space: Any, run: int, operands: Sequence[int] | None = None) -> bool:
    """Whether runs of `run` elements starting at multiples of `run` are contiguous vectors in
    every operand: the innermost dim a multiple of run, every operand unit-strided along it
    (or broadcast: stride 0), and every row of a unit-strided operand starting on a multiple
    of run. (The kernels still check each pointer's alignment before a vector move.)"""
    if space.sizes[0] % run:
        return False
    for k in range(len(space.strides)) if operands is None else operands:
        strides = space.strides[k]
        if strides[0] == 0:
            continue
        if strides[0] != 1 or any(s % run for s in strides[1:]):
            return False
    return True
