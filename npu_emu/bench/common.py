"""What every part of `npu-emu bench` shares: its errors, sizes and their text, and the
C-style calls it makes (device memory from acl.rt.malloc, tensors over it, executors planned
once and run many times)."""
from __future__ import annotations

import importlib
import re
from typing import Callable, Sequence

import numpy as np


SCHEMA = "npu_emu.bench/1"
LEGACY_SCHEMA = "npu_emu.bench.legacy/1"   # hand-measured tables kept as history
KiB, MiB, GiB = 2**10, 2**20, 2**30
INT32_LIMIT = 2**31                        # past this, kernels take their 64-bit index path


class BenchError(RuntimeError):
    """A failure the user should read as one line (no traceback)."""


class Refused(BenchError):
    """Phase one (or another call of the C-style layer) returned a non-zero status."""

    def __init__(self, what: str, ret: int, message: str) -> None:
        super().__init__(f"{what} returned {ret}: {message}")
        self.ret = ret


class DoesNotFit(BenchError):
    """A size that does not fit in device (or host) memory."""


# ------------------------------------------------------------------------------ sizes

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMG]?)\s*$", re.I)
_UNITS = {"": 1, "K": KiB, "M": MiB, "G": GiB}


def parse_size(text: str) -> int:
    """A number of elements: '4096', '1M' (2^20), '1.5G', '2G' (2^31)."""
    m = _SIZE_RE.match(text)
    if not m:
        raise BenchError(f"--sizes: {text!r} is not a size; write a number of elements with an "
                         f"optional K, M or G (powers of 2^10), e.g. 1M,16M,256M,2G")
    n = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    if n < 1:
        raise BenchError(f"--sizes: {text!r} is not a positive number of elements")
    return n


def format_count(n: float) -> str:
    """4194304 -> '4M', 2214592512 -> '2.06G' (powers of 2^10)."""
    for unit, scale in (("G", GiB), ("M", MiB), ("K", KiB)):
        if n >= scale:
            v = n / scale
            exact = abs(v - round(v)) < 1e-9
            return f"{v:.0f}{unit}" if exact or v >= 100 else f"{v:.3g}{unit}"
    return str(int(n))


def format_bytes(n: float) -> str:
    for unit, scale in (("TiB", 1024 * GiB), ("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= scale:
            v = n / scale
            return f"{v:.3g} {unit}" if v < 1000 else f"{v:.0f} {unit}"
    return f"{int(n)} B"


def stress_ladder(limit: int = 2**36) -> list[int]:
    """Sizes for --stress: 16M, 64M, 256M, 1G, then just past 2^31 and 2^32 (the 64-bit
    index path), then doubling; the runner stops each op where a size does not fit."""
    out = [2**24, 2**26, 2**28, 2**30, INT32_LIMIT + 2**26, 2 * INT32_LIMIT + 2**26]
    while out[-1] * 2 <= limit:
        out.append(out[-1] * 2)
    return out


# ------------------------------------------------------------------ C-style calls

def acl_api():
    import npu_emu.acl as acl
    return acl


def aclnn_api():
    from npu_emu import aclnn
    return aclnn


def ok(ret: int, what: str) -> None:
    """Raise Refused with the recent error message when a C-style call failed."""
    if ret != 0:
        raise Refused(what, int(ret), aclnn_api().aclGetRecentErrMsg())


def dtype_of(name: object):
    from npu_emu.dtypes import as_dtype
    return as_dtype(name, "dtype")


def dtype_info(dt):
    from npu_emu import dtypes
    return dtypes.info(dt)


def short(dt) -> str:
    return dtype_info(dt).short


class Device:
    """A block of device memory from acl.rt.malloc, freed with free(); or, from `at`, a
    view of memory someone else owns (an array's), which free() leaves alone."""

    def __init__(self, nbytes: int) -> None:
        acl = acl_api()
        self.nbytes = max(int(nbytes), 1)
        ptr, ret = acl.rt.malloc(self.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        if ret != 0:
            raise DoesNotFit(f"acl.rt.malloc({format_bytes(self.nbytes)}) returned {ret}: "
                             f"{acl.get_recent_err_msg()}")
        self.ptr, self.owned = int(ptr), True

    @classmethod
    def at(cls, ptr: int, nbytes: int) -> "Device":
        mem = cls.__new__(cls)
        mem.ptr, mem.nbytes, mem.owned = int(ptr), int(nbytes), False
        return mem

    def upload(self, host: np.ndarray) -> None:
        acl = acl_api()
        host = np.ascontiguousarray(host)
        ok(acl.rt.memcpy(self.ptr, self.nbytes, host, host.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE),
           "aclrtMemcpy (host to device)")
        # The bench stream does not wait for the default stream: let the copy land first.
        ok(acl.rt.synchronize_device(), "aclrtSynchronizeDevice")

    def fill(self, byte: int) -> None:
        acl = acl_api()
        ok(acl.rt.memset(self.ptr, self.nbytes, byte, self.nbytes), "aclrtMemset")
        ok(acl.rt.synchronize_device(), "aclrtSynchronizeDevice")

    def close(self) -> None:
        self.free()

    def read(self, storage: np.dtype, start: int, count: int) -> np.ndarray:
        """`count` elements of `storage` dtype from element `start` (synchronous)."""
        acl = acl_api()
        out = np.empty(count, dtype=storage)
        ok(acl.rt.memcpy(out, out.nbytes, self.ptr + start * out.itemsize, out.nbytes,
                         acl.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy (device to host)")
        return out

    def free(self) -> None:
        if self.ptr and self.owned:
            ok(acl_api().rt.free(self.ptr), "aclrtFree")
        self.ptr = 0


def make_tensor(shape: Sequence[int], dt, mem: Device, strides: Sequence[int] | None = None,
            storage: Sequence[int] | None = None, fmt: object = None):
    """aclCreateTensor over `mem` (contiguous unless strides are given)."""
    from npu_emu import aclFormat
    aclnn = aclnn_api()
    shape = [int(n) for n in shape]
    if strides is None:
        strides, step = [], 1
        for n in reversed(shape):
            strides.insert(0, step)
            step *= n
    t = aclnn.aclCreateTensor(shape, dt, list(strides), 0,
                              aclFormat.ACL_FORMAT_ND if fmt is None else fmt,
                              list(storage if storage is not None else shape), mem.ptr)
    if t is None:
        raise Refused("aclCreateTensor", -1, aclnn.aclGetRecentErrMsg())
    return t


class Planned:
    """One executor planned by phase one, repeatable, with its workspace; call() runs phase
    two on the bench stream."""

    def __init__(self, what: str, get_workspace: Callable[[], tuple], execute: Callable,
                 stream: object) -> None:
        aclnn = aclnn_api()
        ws_size, executor, ret = get_workspace()
        ok(ret, what + "GetWorkspaceSize")
        ok(aclnn.aclSetAclOpExecutorRepeatable(executor), "aclSetAclOpExecutorRepeatable")
        self.what, self.execute, self.stream = what, execute, stream
        self.executor, self.ws_size = executor, int(ws_size)
        self.ws = Device(self.ws_size) if self.ws_size > 0 else None

    def __call__(self) -> None:
        ret = self.execute(self.ws.ptr if self.ws else None, self.ws_size, self.executor, self.stream)
        ok(ret, self.what)

    def close(self) -> None:
        if self.executor is not None:
            ok(aclnn_api().aclDestroyAclOpExecutor(self.executor), "aclDestroyAclOpExecutor")
            self.executor = None
        if self.ws is not None:
            self.ws.free()
            self.ws = None




def optional_import(name: str):
    try:
        return importlib.import_module(name)
    except Exception:   # not installed, or a broken install: not a peer then
        return None
