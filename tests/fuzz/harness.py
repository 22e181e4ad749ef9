"""The worker side of a fuzz case: guarded device blocks, the call wrapper that checks every
C-style call (no exception out, the code in the function's family, a message after a
failure), and the byte-level oracles (nothing outside a destination view changes; values
against NumPy references).

Every block a case uses is [guard][payload][guard], filled with a seeded byte pattern; after
the call and a device synchronize the whole block is read back and compared with what it
must hold. Harness memory comes from the backend directly (runtime.current().malloc), so
acl.rt defects do not leak into the aclnn cases.
"""
from __future__ import annotations

import gc
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

import npu_emu
import npu_emu.acl as acl
from npu_emu import aclnn, device, runtime, status
from npu_emu.dtypes import INFO, aclDataType

from . import spec as S

ESCAPED = object()          # what `call` returns when the function raised


def dt(value: int) -> aclDataType:
    return aclDataType(value)


def storage_dtype(d: int) -> np.dtype:
    return INFO[dt(d)].storage


def nan_mask(raw: np.ndarray, d: int) -> np.ndarray:
    """Where stored elements of dtype d are NaN (so NaN payloads may differ)."""
    info = INFO[dt(d)]
    if d == S.HIF8:
        return raw.view(np.uint8) == 0x80
    if d in S.COMPLEX and info.host is not None:
        v = raw.view(info.host)
        return np.isnan(v.real) | np.isnan(v.imag)
    if d in S.FLOATS and info.host is not None:
        with np.errstate(all="ignore"):
            return np.isnan(raw.view(info.host).astype(np.float64))
    return np.zeros(raw.shape, bool)


def view_indices(shape: Sequence[int], strides: Sequence[int], offset: int) -> np.ndarray:
    """Flat storage indices of a view's elements, C order (int64)."""
    if math.prod(shape) == 0:
        return np.zeros(0, np.int64)
    idx = np.full(tuple(shape), offset, np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        axis = [1] * len(shape)
        axis[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(axis)
    return idx.reshape(-1)


def touched_indices(shape: Sequence[int], strides: Sequence[int], offset: int) -> np.ndarray:
    """The distinct storage indices a (possibly aliasing, huge) view covers."""
    keep = [(n, s) for n, s in zip(shape, strides) if n > 1 and s != 0]
    if any(n == 0 for n in shape):
        return np.zeros(0, np.int64)
    if math.prod(n for n, _ in keep) > 1 << 22:
        raise OverflowError("view too large to enumerate")
    return np.unique(view_indices([n for n, _ in keep], [s for _, s in keep], offset))


def contiguous_strides(shape: Sequence[int]) -> list[int]:
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return out[::-1]


# ------------------------------------------------------------------------------ blocks

class Block:
    """[guard][payload][guard] of device memory, filled with `image` (seeded bytes)."""

    def __init__(self, ctx: "Ctx", payload: int, guard: int, label: str, extra: int = 0,
                 tail: int | None = None) -> None:
        self.ctx, self.label, self.guard = ctx, label, guard
        self.total = guard + extra + payload + (guard if tail is None else tail)
        self.ptr = ctx.be.malloc(max(self.total, 1))
        self.data = self.ptr + guard
        if self.total <= 1 << 20:
            self.image = ctx.rng.integers(0, 256, self.total, dtype=np.uint8)
        else:                                   # big blocks: patterned ends, zeros between
            self.image = np.zeros(self.total, np.uint8)
            self.image[:1 << 16] = ctx.rng.integers(0, 256, 1 << 16, dtype=np.uint8)
            self.image[-(1 << 16):] = ctx.rng.integers(0, 256, 1 << 16, dtype=np.uint8)
        self.freed = False
        self.expect: np.ndarray | None = None        # what it must hold at the end (None: image)
        self.view_mask = np.zeros(self.total, bool)  # bytes of a destination view
        self.free_to_change = np.zeros(self.total, bool)
        ctx.blocks.append(self)

    def write_payload(self, offset: int, raw: np.ndarray) -> None:
        b = np.ascontiguousarray(raw).view(np.uint8).reshape(-1)
        self.image[offset:offset + b.size] = b

    def upload(self) -> None:
        if self.total:
            self.ctx.be.copy_from_host(self.ptr, self.image)

    def read(self) -> np.ndarray:
        out = np.empty(self.total, np.uint8)
        if self.total:
            self.ctx.be.copy_to_host(out, self.ptr)
        return out

    def free(self) -> None:
        if not self.freed:
            self.freed = True
            self.ctx.be.free(self.ptr)


# -------------------------------------------------------------------------------- ctx

@dataclass
class Defect:
    kind: str
    where: str
    sig: str
    detail: str


@dataclass
class Ctx:
    """One case: its defects, call counts, blocks and clean-ups."""
    case: dict
    defects: list = field(default_factory=list)
    calls: Counter = field(default_factory=Counter)
    blocks: list = field(default_factory=list)
    cleanups: list = field(default_factory=list)      # (handle or None, callable)
    host_buffers: list = field(default_factory=list)   # (array, expected) pairs to re-check

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.case.get("seed", 0))
        self.be = runtime.current()
        mut = self.case.get("mut") or {}
        self.mut_kind = mut.get("kind") or "valid"
        self.last_code: int | None = None
        self.last_msg = ""
        self.pending: tuple[str, int, str] | None = None
        self.values_compared = False              # the case checked results against a reference

    # -- defects
    def defect(self, kind: str, where: str, sig: str, detail: str = "") -> None:
        self.defects.append(Defect(kind, where, f"{where}: {sig}", detail or sig))

    # -- C-style calls
    def call(self, name: str, fn: Callable, *args: Any, family: str = "aclnn",
             result: str = "code") -> Any:
        """Call a C-style function. result: "code" (an int), "triple" (ws, executor, code),
        "pair" (value, code), "values2" (a, b, code), "object" (object or None). Checks:
        no exception, the return shape, the code family, a message after a failure."""
        self.calls[name] += 1
        self.last_code = None
        status.set_recent_error("")          # a stale message must not satisfy the check
        try:
            out = fn(*args)
        except BaseException as exc:  # noqa: BLE001 -- the oracle itself
            self.defect("escaped_exception", name, f"{self.mut_kind}: {type(exc).__name__}",
                        f"{type(exc).__name__}: {str(exc)[:200]}")
            return ESCAPED
        self.flush_code()
        code = self.last_code = self.code_of(name, out, result)
        failed = (code not in (None, 0)) or (result == "object" and out is None)
        if code is not None:
            self.pending = (name, code, family)      # checked by expect(), or at the next call
        self.last_msg = ""
        if failed:
            msg = self.last_msg = self.recent_message(family)
            if not isinstance(msg, str) or not msg:
                self.defect("no_err_msg", name, f"{self.mut_kind}: failed ({code}) with an empty "
                            f"recent error message")
        return out

    def recent_message(self, family: str) -> str:
        try:
            return aclnn.aclGetRecentErrMsg() if family == "aclnn" else acl.get_recent_err_msg()
        except BaseException as exc:  # noqa: BLE001
            self.defect("escaped_exception", "aclGetRecentErrMsg", type(exc).__name__, str(exc))
            return ""

    def code_of(self, name: str, out: Any, result: str) -> int | None:
        want = {"code": 0, "pair": 2, "triple": 3, "values2": 3, "object": None}[result]
        if result == "object":
            return None
        code = out if want == 0 else (out[-1] if isinstance(out, tuple) and len(out) == want else None)
        if want and isinstance(out, int) and not isinstance(out, bool):
            code = out   # a wrong-arg-count call may answer with the bare code
        if isinstance(code, bool) or not isinstance(code, (int, np.integer)):
            self.defect("bad_return", name, f"{self.mut_kind}: returned {type(out).__name__} "
                        f"{str(out)[:80]}, not the documented {result}")
            return None
        return int(code)

    @staticmethod
    def code_problem(code: int, family: str) -> str:
        """"" for a code of the function's family that is not internal, else what is wrong."""
        if not (S.in_aclnn_family(code) if family == "aclnn" else S.in_acl_family(code)):
            return f"outside the {family} code family"
        if code in (S.ACLNN_INTERNAL if family == "aclnn" else S.ACL_INTERNAL_CODES):
            return "an internal code for a user error"
        return ""

    def flush_code(self) -> None:
        """A code no expect() looked at: only its family is checked."""
        if self.pending is not None:
            name, code, family = self.pending
            self.pending = None
            problem = self.code_problem(code, family)
            if problem:
                self.defect("wrong_code", name, f"{self.mut_kind}: returned {code}, {problem}")

    def expect(self, name: str, code: int | None, allowed: Iterable[int], why: str) -> bool:
        allowed = set(allowed)
        family = self.pending[2] if self.pending is not None else "aclnn"
        self.pending = None
        if code is None or code in allowed:
            return True
        problem = self.code_problem(code, family)
        self.defect("wrong_code", name, f"{why}: returned {code}, expected "
                    f"{' or '.join(str(c) for c in sorted(allowed))}" + (f" ({problem})" if problem else ""),
                    f"{why}: returned {code}" + (f" ({self.last_msg[:160]})" if code and self.last_msg else ""))
        return False

    # -- end of case checks
    def synchronize(self) -> None:
        code = self.call("acl.rt.synchronize_device", acl.rt.synchronize_device, family="acl")
        if code is not ESCAPED:
            self.expect("acl.rt.synchronize_device", code, {0}, f"{self.mut_kind}: synchronize after the call")

    def check_blocks(self) -> None:
        """Bytes outside a destination view (guards, the rest of the storage, inputs) must be
        unchanged; bytes inside must hold the expected values."""
        for blk in self.blocks:
            if blk.freed:
                continue
            got = blk.read()
            want = blk.image if blk.expect is None else blk.expect
            changed = (got != want) & ~blk.free_to_change
            for kind, mask in (("out_of_view_write", changed & ~blk.view_mask),
                               ("wrong_result", changed & blk.view_mask)):
                where = np.flatnonzero(mask)
                if where.size:
                    region = ("guard" if where[0] < blk.guard or where[-1] >= blk.total - blk.guard
                              else "storage")
                    self.defect(kind, self.case["entry"],
                                f"{self.mut_kind}: {blk.label} {'view' if kind == 'wrong_result' else region} bytes changed",
                                f"{where.size} bytes of {blk.label} changed, first at byte {int(where[0])} "
                                f"(block of {blk.total} bytes, guard {blk.guard})")
        for arr, want, label in self.host_buffers:
            changed = np.flatnonzero(arr.view(np.uint8) != want.view(np.uint8))
            if changed.size:
                self.defect("out_of_view_write", self.case["entry"], f"{self.mut_kind}: {label} changed",
                            f"{changed.size} bytes of {label} changed, first at {int(changed[0])}")

    def finish(self) -> None:
        """Clean-ups (handles, streams), then the blocks go back to the pool."""
        self.flush_code()
        for _, fn in reversed(self.cleanups):
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001
                self.defect("harness_error", "cleanup", type(exc).__name__, repr(exc)[:200])
        self.cleanups.clear()
        self.flush_code()
        try:
            self.be.synchronize()
        except BaseException:  # noqa: BLE001 -- already reported by synchronize()
            pass
        for blk in self.blocks:
            try:
                blk.free()
            except BaseException as exc:  # noqa: BLE001
                self.defect("harness_error", "free", type(exc).__name__, repr(exc)[:200])

    # -- handles
    def destroy_later(self, name: str, fn: Callable, handle: Any) -> None:
        def destroy() -> None:
            code = self.call(name, fn, handle)
            if code is not ESCAPED:
                self.expect(name, code, {0}, f"{self.mut_kind}: destroying a live handle")
        self.cleanups.append((handle, destroy))

    def forget(self, handle: Any) -> None:
        """The case destroyed `handle` itself: no destroy at the end."""
        self.cleanups = [(h, fn) for h, fn in self.cleanups if h is not handle]

    def new_stream(self) -> Any:
        out = self.call("acl.rt.create_stream", acl.rt.create_stream, family="acl", result="pair")
        if out is ESCAPED or not isinstance(out, tuple) or out[-1] != 0:
            return None
        stream = out[0]

        def destroy() -> None:
            code = self.call("acl.rt.destroy_stream", acl.rt.destroy_stream, stream, family="acl")
            self.expect("acl.rt.destroy_stream", code, {0}, f"{self.mut_kind}: destroying a live stream")
        self.cleanups.append((stream, destroy))
        return stream


def pool_balance() -> tuple[int, int]:
    s = npu_emu.memory_stats()
    return s["bytes_in_use"], s["allocations"]


def leak_check(ctx: Ctx, before: tuple[int, int]) -> None:
    after = pool_balance()
    if after != before:
        gc.collect()                          # exception frames and cycles go first
        after = pool_balance()
    if after != before:
        ctx.defect("leak", ctx.case["entry"], f"{ctx.mut_kind}: pool not back to its baseline",
                   f"bytes_in_use/allocations {before} -> {after}")


# ------------------------------------------------------------------------------ values

def host_of(d: int) -> np.dtype:
    info = INFO[dt(d)]
    return info.host if info.host is not None else np.dtype(np.float32)


def encode(values: np.ndarray, d: int) -> np.ndarray:
    """Host values -> the stored elements of dtype d."""
    return np.asarray(device.storage_array(np.asarray(values), dt(d)))


def decode(raw: np.ndarray, d: int) -> np.ndarray:
    """Stored elements -> float64 / int64 / complex128 / bool."""
    from helpers import decode as _decode
    v = np.asarray(_decode(np.asarray(raw), dt(d)))
    if d in S.COMPLEX:
        return v.astype(np.complex128)
    if d == S.BOOL:
        return v.astype(bool)
    if d in S.INTS:
        return v.astype(np.int64) if d != S.U64 else v.astype(np.uint64).astype(np.int64)
    return v.astype(np.float64)


def raw_values(rng: np.random.Generator, d: int, n: int) -> np.ndarray:
    """Arbitrary stored elements (bit patterns); bools stay 0/1."""
    if d == S.BOOL:
        return rng.integers(0, 2, n).astype(np.bool_)
    st = storage_dtype(d)
    return rng.integers(0, 256, n * st.itemsize, dtype=np.uint8).view(st)


def small_values(rng: np.random.Generator, d: int, n: int, nonneg: bool, special: bool,
                 lo: int = -4, hi: int = 4) -> np.ndarray:
    """Small integers (every CANN computation branch is exact on them), stored for dtype d;
    `special` mixes in NaN, +-inf and -0.0 for floating dtypes."""
    lo = 0 if nonneg else lo
    if d == S.BOOL:
        return rng.integers(0, 2, n).astype(np.bool_)
    v = rng.integers(lo, hi + 1, n).astype(np.float64)
    if d in S.COMPLEX:
        w = v + 1j * rng.integers(lo, hi + 1, n)
        return encode(w.astype(host_of(d)), d)
    if d in S.INTS:
        return v.astype(storage_dtype(d))
    if special:
        pick = rng.integers(0, 5, n) == 0
        v[pick] = rng.choice([np.nan, np.inf, -np.inf, -0.0], int(pick.sum()))
    with np.errstate(all="ignore"):
        return encode(v.astype(np.float32).astype(host_of(d)) if d != S.F64 else v, d)
