"""The backend interface: one small set of operations that both backends implement.

A backend is four parts (as in tinygrad): an allocator (pooled device memory with statistics),
streams and events, a compiler that turns a file of `kernels_cuda/` into a module, and a
launcher. `cpu.py` and `cuda.py` are two answers to this interface; everything above the
runtime (ops, the acl facade) talks only to it.
"""
from __future__ import annotations

import bisect
import hashlib
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..status import AclnnError, ACL_ERROR_INVALID_PARAM


def kernels_dir() -> Path:
    """The folder of kernel sources: `kernels_cuda/` beside the package in a source tree,
    or the copy installed inside the package."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "kernels_cuda", here / "kernels_cuda"):
        if (candidate / "npu_emu_common.cuh").is_file():
            return candidate
    raise RuntimeError(f"npu_emu: kernel sources not found beside {here}")


def kernel_sources_hash(module: str = "", extra: str = "") -> str:
    """Hash of a module's source and every shared header (all sources when module is ""):
    a change to any of them rebuilds the module."""
    h = hashlib.sha256(extra.encode())
    for path in sorted(kernels_dir().iterdir()):
        if path.suffix in (".cuh", ".h") or path.name == module or (not module and path.suffix == ".cu"):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:24]


@dataclass(frozen=True)
class Workspace:
    """A kernel argument that is the workspace pointer plus `offset` bytes, resolved when
    the launch is enqueued (the plan is made before the workspace exists)."""
    offset: int = 0


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


class Event(ABC):
    @abstractmethod
    def record(self, stream: "Stream") -> None: ...

    @abstractmethod
    def synchronize(self) -> None: ...

    @abstractmethod
    def query(self) -> bool:
        """True once all work recorded before it has completed."""


class Stream(ABC):
    @abstractmethod
    def synchronize(self) -> None: ...

    @abstractmethod
    def wait_event(self, event: Event) -> None: ...

    def destroy(self) -> None:
        self.synchronize()


class Allocator:
    """Bookkeeping shared by both backends' pools: live blocks by address (so a pointer the
    pool never gave out is refused, and a range can be checked before any copy), and the
    statistics users read with `npu_emu.memory_stats()`."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._starts: list[int] = []          # sorted start addresses of live blocks
        self._blocks: dict[int, tuple[int, int, Any]] = {}   # ptr -> (nbytes, rounded, handle)
        self._serials: dict[int, int] = {}                    # ptr -> serial of the live block
        self._external: dict[int, tuple[int, Any]] = {}      # ptr -> (nbytes, owner)
        self._ext_starts: list[int] = []
        self._next_serial = 1
        # Bumped by every free and unregister: a plan that saw generation g and finds it
        # unchanged knows every block it checked is still live (phase two's cheap re-check).
        self.generation = 0
        self.bytes_in_use = 0
        self.peak_bytes_in_use = 0
        self.allocation_count = 0

    def _add(self, ptr: int, nbytes: int, rounded: int, handle: Any) -> None:
        with self._lock:
            bisect.insort(self._starts, ptr)
            self._blocks[ptr] = (nbytes, rounded, handle)
            self._serials[ptr] = self._next_serial
            self._next_serial += 1
            self.bytes_in_use += rounded
            self.peak_bytes_in_use = max(self.peak_bytes_in_use, self.bytes_in_use)
            self.allocation_count += 1

    def _remove(self, ptr: int) -> tuple[int, int, Any]:
        with self._lock:
            if ptr not in self._blocks:
                raise AclnnError(ACL_ERROR_INVALID_PARAM,
                                 f"devPtr=0x{ptr:x} was not allocated by acl.rt.malloc "
                                 f"(or was already freed)")
            entry = self._blocks.pop(ptr)
            del self._serials[ptr]
            del self._starts[bisect.bisect_left(self._starts, ptr)]
            self.generation += 1
            self.bytes_in_use -= entry[1]
            return entry

    def register_external(self, ptr: int, nbytes: int, owner: Any) -> None:
        """Memory we did not allocate (a CuPy/NumPy array handed to us) but may read and write."""
        with self._lock:
            if ptr not in self._external:
                bisect.insort(self._ext_starts, ptr)
            else:
                self.generation += 1
            self._external[ptr] = (nbytes, owner)
            self._serials[-ptr - 1] = self._next_serial   # externals keyed apart from blocks
            self._next_serial += 1

    def unregister_external(self, ptr: int) -> None:
        with self._lock:
            if self._external.pop(ptr, None) is not None:
                del self._ext_starts[bisect.bisect_left(self._ext_starts, ptr)]
                del self._serials[-ptr - 1]
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
                start = self._starts[i]
                if ptr + nbytes <= start + self._blocks[start][0]:
                    return self._serials[start]
            i = bisect.bisect_right(self._ext_starts, ptr) - 1
            if i >= 0:
                start = self._ext_starts[i]
                if ptr + nbytes <= start + self._external[start][0]:
                    return self._serials[-start - 1]
        return None

    def contains(self, ptr: int, nbytes: int) -> bool:
        """Whether [ptr, ptr + nbytes) lies inside one live block or registered region."""
        return self.block_id(ptr, nbytes) is not None

    def size_of(self, ptr: int) -> int | None:
        with self._lock:
            entry = self._blocks.get(ptr)
            return None if entry is None else entry[0]

    @property
    def live_allocations(self) -> int:
        return len(self._blocks)


class Backend(ABC):
    """What the operators need from a device."""

    name: str
    is_cpu: bool
    allocator: Allocator

    # -- memory
    @abstractmethod
    def malloc(self, nbytes: int) -> int:
        """A device pointer to at least nbytes (256-byte aligned), from the pool."""

    @abstractmethod
    def free(self, ptr: int) -> None:
        """Return a block to the pool; AclnnError(ACL_ERROR_INVALID_PARAM) for a foreign pointer."""

    @abstractmethod
    def memory_stats(self) -> dict[str, int]: ...

    @abstractmethod
    def empty_cache(self) -> None: ...

    # -- copies (synchronous with respect to the host when stream is None)
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

    @property
    @abstractmethod
    def default_stream(self) -> Stream: ...

    @abstractmethod
    def create_event(self) -> Event: ...

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
        elements: ~16 bytes per thread on a GPU, long runs (a few per worker) on the CPU."""

    # Threads of a block for tiled kernels (32x33 shared tiles): (x, y).
    tile_block: tuple[int, int] = (1, 1)
