"""Where an array's memory lives: the device object of the standard, the storage an array
keeps alive (a pool block, or memory imported from another library), and the backend's own
array library (NumPy on cpu, CuPy on cuda) viewing that memory without a copy, in stream order.

Imported memory is registered with the backend's allocator (so operators accept it) as the
union of the ranges the live arrays import: overlapping imports merge into one region, and
a region goes when the last array using it goes.
"""
from __future__ import annotations

import bisect
import collections
import threading
from typing import Any, Sequence

import numpy as np

from ... import runtime
from ..._address import array_address
from ..._state import ensure_started
from ...runtime.base import Backend

# DLPack device types (dlpack.h): kDLCPU, kDLCUDA.
DL_CPU, DL_CUDA = 1, 2


class Device:
    """The standard's device object: "cpu" (the cpu backend) or "cuda:0". Compares equal to
    another Device of the same name and to the name itself."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def backend_name(self) -> str:
        return self.name.split(":")[0]

    @property
    def dlpack(self) -> tuple[int, int]:
        return (DL_CPU, 0) if self.name == "cpu" else (DL_CUDA, 0)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Device):
            return other.name == self.name
        return isinstance(other, str) and other == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"Device({self.name!r})"

    def __str__(self) -> str:
        return self.name


_DEVICES = {"cpu": Device("cpu"), "cuda": Device("cuda:0")}


def device_of(be: Backend) -> Device:
    return _DEVICES[be.name]


def current_backend() -> Backend:
    ensure_started()
    return runtime.current()


def backend_for(device: object, param: str = "device") -> Backend:
    """The backend of `device` (None: the current one): a Device, "cpu", "cuda" or "cuda:0"."""
    if device is None:
        return current_backend()
    name = device.name if isinstance(device, Device) else device
    if isinstance(name, str):
        key = name.strip().lower()
        if key in ("cpu",):
            ensure_started()
            return runtime.backend("cpu")
        if key in ("cuda", "cuda:0"):
            ensure_started()
            return runtime.backend("cuda")
    raise ValueError(f"{param}={device!r} is not a device of npu_emu.array_api; use "
                     f"{current_backend().name!r} (see __array_namespace_info__().devices())")


# ------------------------------------------------------------------ imported memory

class _Regions:
    """External memory of one backend as its allocator sees it: the union of the byte ranges
    live arrays imported (tokens -> ranges), registered and unregistered as it changes.

    Kept incrementally, as pieces: each registered interval of the union (no two overlap or
    touch) with a count of the ranges inside it. An import or release changes only the
    pieces it overlaps or touches: O(log n) for n live imports of separate memory (a
    recomputed union made importing 20,000 NumPy arrays take a minute). Releasing a range
    recomputes the union of its piece's other ranges only."""

    def __init__(self, be: Backend) -> None:
        self._be = be
        self._lock = threading.Lock()
        self._ranges: dict[int, tuple[int, int]] = {}      # token -> (start, end)
        self._starts: list[int] = []                        # the pieces' starts, sorted
        # start -> (end, {range: how many live imports of exactly that range}); a range lies
        # in one piece, so the pieces' range counts never share a key (plain dicts: a Counter
        # costs microseconds to make, and every import makes or changes one).
        self._pieces: dict[int, tuple[int, dict]] = {}
        self._next = 0

    def add(self, start: int, nbytes: int) -> int:
        r = (start, start + max(nbytes, 1))
        with self._lock:
            self._next += 1
            self._ranges[self._next] = r
            starts, pieces = self._starts, self._pieces
            i = bisect.bisect_right(starts, r[1])          # the pieces that start by its end
            j = i
            while j > 0 and pieces[starts[j - 1]][0] >= r[0]:   # ... and reach its start
                j -= 1
            if i == j:                                      # apart from every piece
                self._replace([], [(r[0], r[1], {r: 1})])
                return self._next
            if i - j == 1:
                s = starts[j]
                e, members = pieces[s]
                if s <= r[0] and r[1] <= e:                 # inside one piece: no change
                    members[r] = members.get(r, 0) + 1
                    return self._next
            merged = [(s, *pieces[s]) for s in starts[j:i]]
            members = max((m for _, _, m in merged), key=len)
            for s, _, m in merged:                          # the smaller into the largest
                if m is not members:
                    members.update(m)                       # other ranges: no key in common
            members[r] = members.get(r, 0) + 1
            lo = min([r[0], *(s for s, _, _ in merged)])
            hi = max([r[1], *(e for _, e, _ in merged)])
            self._replace(starts[j:i], [(lo, hi, members)])
            return self._next

    def remove(self, token: int) -> None:
        """Forget one import (again: no effect)."""
        with self._lock:
            r = self._ranges.pop(token, None)
            if r is None:
                return
            s = self._starts[bisect.bisect_right(self._starts, r[0]) - 1]
            e, members = self._pieces[s]
            left = members[r] - 1
            if left:                             # the same range is still imported
                members[r] = left
                return
            del members[r]
            if not members:                      # its piece's last import
                self._replace([s], [])
                return
            pieces = _union(members)
            if len(pieces) != 1 or pieces[0][:2] != (s, e):
                self._replace([s], pieces)

    def _replace(self, old: list[int], new: list[tuple[int, int, dict]]) -> None:
        """Unregister the pieces starting at `old`, register `new` (the lock held)."""
        alloc = self._be.allocator
        for s in old:
            del self._pieces[s]
            del self._starts[bisect.bisect_left(self._starts, s)]
            alloc.unregister_external(s)
        for lo, hi, members in new:
            bisect.insort(self._starts, lo)
            self._pieces[lo] = (hi, members)
            alloc.register_external(lo, hi - lo, self)


def _union(members: dict) -> list[tuple[int, int, dict]]:
    """The union of the ranges counted in `members`, as pieces (start, end, their ranges);
    ranges that touch join."""
    out: list[tuple[int, int, dict]] = []
    for r in sorted(members):
        if out and r[0] <= out[-1][1]:
            lo, hi, m = out[-1]
            out[-1] = (lo, max(hi, r[1]), m)
        else:
            out.append((r[0], r[1], {}))
        out[-1][2][r] = members[r]
    return out


_regions: dict[str, _Regions] = {}
_regions_lock = threading.Lock()

# Imports whose last array went: (regions, token, owner). A finalizer may run at any
# allocation, in any thread, while that thread holds any lock, so Storage.__del__ only
# appends here (atomic, takes no lock) and keeps the owner alive; release_pending() does the
# work (finish queued work on the memory, unregister it, let the owner go) at safe points.
_pending: collections.deque = collections.deque()
_release_lock = threading.Lock()


def release_pending() -> None:
    """Release the imports queued by finalizers. Called at safe points: after an import is
    registered (so memory imported again while its last release waits stays registered, and
    is not unregistered and registered anew), and at synchronize. A release interrupted by an
    exception (a signal handler's, KeyboardInterrupt) stays queued, at the head, and is redone
    by the next call (each step is idempotent); only one thread releases at a time, and a
    finalizer that calls in while this thread releases finds the lock taken and returns."""
    if not _pending or not _release_lock.acquire(blocking=False):
        return
    try:
        while _pending:
            reg, token, _owner = _pending[0]
            # The owner may free the memory or hand it on once we let go of it: what it does
            # next must be ordered after our queued work on it (the backend's hand_over: the
            # cpu backend waits for the default stream, cuda makes the other streams wait).
            reg._be.hand_over()
            reg.remove(token)
            _pending.popleft()
    finally:
        _release_lock.release()


def _regions_of(be: Backend) -> _Regions:
    with _regions_lock:
        r = _regions.get(be.name)
        if r is None or r._be is not be:
            r = _regions[be.name] = _Regions(be)
        return r


class Storage:
    """The memory behind one or more arrays: `nbytes` from `ptr` on `backend`, kept alive by
    `owner` (the object owning imported memory, or a DeviceBuffer; None for a block of the
    pool the storage owns itself, from `allocate`). `shared`: a user
    can reach this memory outside npu_emu (an import from NumPy/DLPack, or a host view we
    handed out), so on the cpu backend operations touching it finish before they return.
    `readonly`: imported read-only memory, or a view that must not be written."""

    __slots__ = ("ptr", "nbytes", "backend", "owner", "readonly", "shared", "_token",
                 "__weakref__")

    def __init__(self, ptr: int, nbytes: int, backend: Backend, owner: Any,
                 readonly: bool = False, shared: bool = False,
                 token: tuple[_Regions, int] | None = None) -> None:
        self.ptr, self.nbytes, self.backend, self.owner = ptr, nbytes, backend, owner
        self.readonly, self.shared, self._token = readonly, shared, token

    @classmethod
    def allocate(cls, nbytes: int, be: Backend) -> "Storage":
        """A block of `be`'s pool (at least one byte: `nbytes` of 0 takes one), given back
        when the storage goes."""
        ensure_started()
        nbytes = nbytes or 1
        return _PoolStorage(be.allocator.malloc(nbytes), nbytes, be)

    @classmethod
    def external(cls, ptr: int, nbytes: int, be: Backend, owner: Any, readonly: bool = False,
                 shared: bool = True) -> "Storage":
        """Memory another object owns, registered with the allocator while this lives."""
        token = None
        if nbytes:
            reg = _regions_of(be)
            token = (reg, reg.add(ptr, nbytes))
        st = cls(ptr, nbytes, be, owner, readonly, shared, token)
        release_pending()   # after: an interrupted release leaves st to queue its own release
        return st

    def __del__(self) -> None:
        # No lock, no synchronize here (see _pending): queue the release, owner included.
        token, self._token = getattr(self, "_token", None), None
        if token is not None:
            _pending.append((token[0], token[1], getattr(self, "owner", None)))


class _PoolStorage(Storage):
    """A pool block that the storage itself owns (no owner object: one finalizer, not two,
    on the path of every eager result)."""

    __slots__ = ()

    def __init__(self, ptr: int, nbytes: int, backend: Backend) -> None:
        self.ptr, self.nbytes, self.backend = ptr, nbytes, backend
        self.owner = self._token = None
        self.readonly = self.shared = False

    def __del__(self) -> None:
        ptr, self.ptr = getattr(self, "ptr", 0), 0
        if ptr:
            try:
                self.backend.allocator.free(ptr)
            except Exception:
                pass  # interpreter shutdown: the pool is going away too


# --------------------------------------------------------------- the backend library

def library(be: Backend):
    """NumPy on the cpu backend, CuPy on cuda."""
    if be.is_cpu:
        return np
    import cupy
    return cupy


try:   # NumPy 2: errstate's context variable, set to an "ignore all" state made once
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
    _QUIET = _make_extobj(all="ignore")
except (ImportError, TypeError):   # NumPy 1.x: np.errstate itself
    _extobj_contextvar = None


class numpy_quiet:
    """np.errstate(all="ignore") for the enclosed NumPy calls: overflow and invalid results
    are values (inf, nan) in the standard, as on the device. np.errstate costs 2-4 us a
    call, on the path of every library call; NumPy 2's own context variable set to a state
    made once costs a tenth of that (the same effect: NumPy 1 takes np.errstate)."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        if _extobj_contextvar is None:
            self._token = np.errstate(all="ignore")
            self._token.__enter__()
        else:
            self._token = _extobj_contextvar.set(_QUIET)

    def __exit__(self, *exc: object) -> bool:
        if _extobj_contextvar is None:
            self._token.__exit__(*exc)
        else:
            _extobj_contextvar.reset(self._token)
        return False


class library_order:
    """Run the enclosed library calls in stream order with our kernels: on cpu, after the
    default stream's queued work (the host runs them at once); on cuda, on that stream.
    (A class: it is on the path of every library call, where a generator's context manager
    cost a microsecond.)"""

    __slots__ = ("_be", "_stream")

    def __init__(self, be: Backend) -> None:
        self._be, self._stream = be, None

    def __enter__(self) -> None:
        # A safe point: the memory of results that died since is released before the library
        # makes new arrays, so its allocator can hand that memory out again (NumPy's tril of
        # 2048 x 2048 float32 with its last result released after: 2.88 ms, before: 2.67; on
        # its own 2.54).
        be = self._be
        if be.is_cpu:
            be.default_stream.synchronize()
            if _pending:
                release_pending()
        else:
            if _pending:
                release_pending()
            self._stream = be.default_stream.stream
            self._stream.__enter__()

    def __exit__(self, *exc: object) -> bool:
        if self._stream is not None:
            self._stream.__exit__(*exc)
        return False


def synchronize(be: Backend) -> None:
    be.default_stream.synchronize()
    if _pending:
        release_pending()


class _HostMemory:
    """Hands NumPy a view of device memory (cpu backend) and keeps its storage alive."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, interface: dict, owner: object) -> None:
        self.__array_interface__ = interface
        self.owner = owner


def memory_view(st: Storage, ptr0: int, shape: Sequence[int], strides: Sequence[int],
                dtype: np.dtype, readonly: bool = False) -> Any:
    """A library array (NumPy or CuPy) over `st`: element (0, ..., 0) at ptr0, strides in
    elements (any sign), elements of NumPy dtype `dtype` (a raw storage type on cuda)."""
    if not isinstance(dtype, np.dtype):
        dtype = np.dtype(dtype)
    item = dtype.itemsize
    byte_strides = tuple([int(s) * item for s in strides])   # (a list: no generator's frame)
    be = st.backend
    if be.is_cpu:
        if 0 in shape:
            return np.empty(tuple(shape), dtype)
        # ml_dtypes' types (user-defined to NumPy) have no typestr: raw bits, then a view.
        native = dtype if dtype.isbuiltin == 1 else np.dtype(f"<u{item}")
        interface = {"version": 3, "shape": tuple(shape), "typestr": native.str,
                     "data": (ptr0, readonly or st.readonly), "strides": byte_strides}
        arr = np.asarray(_HostMemory(interface, st))
        return arr if native == dtype else arr.view(dtype)
    import cupy
    if 0 in shape:
        return cupy.empty(tuple(shape), dtype)
    mem = cupy.cuda.UnownedMemory(st.ptr, st.nbytes, st, be.device_id)
    return cupy.ndarray(tuple(shape), dtype, cupy.cuda.MemoryPointer(mem, ptr0 - st.ptr),
                        strides=byte_strides)


def library_memory(arr: Any, ptr0: int | None = None) -> tuple[int, int, int]:
    """(lowest byte address, byte length, address of element 0) of a NumPy/CuPy array
    (`ptr0`: the address of its element 0, when the caller has read it already)."""
    if ptr0 is None and not arr.size:
        ptr0 = 0
    elif ptr0 is None:
        ptr0 = array_address(arr) if isinstance(arr, np.ndarray) else int(arr.data.ptr)
    if arr.size == 0:
        return ptr0, 0, ptr0
    lo = hi = ptr0
    for n, s in zip(arr.shape, arr.strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi - lo + arr.dtype.itemsize, ptr0
