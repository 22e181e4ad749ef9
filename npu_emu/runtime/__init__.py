"""The runtime: backend selection and the objects every layer shares.

NPU_EMU_DEVICE=cuda|cpu|auto (default auto: cuda when CuPy imports, a GPU answers and a probe
kernel compiles and runs there, else cpu, with the reason logged on the "npu_emu" logger:
INFO when there is simply no CuPy, GPU or driver; WARNING when a GPU may be there but is
unusable: a driver older than CuPy's CUDA runtime (both versions named), a CuPy older than
14.1, a probe kernel that does not run). The choice is made once, on first use, and
`npu-emu info` shows it, with the reason on its "cuda" line.
"""
from __future__ import annotations

import logging
import os
import threading

from .base import Backend, Event, Launch, Stream, Workspace, kernels_dir

log = logging.getLogger("npu_emu")
_lock = threading.Lock()
_backends: dict[str, Backend] = {}
_current: Backend | None = None

DEVICES = ("auto", "cpu", "cuda")
__all__ = ["Backend", "Event", "Launch", "Stream", "Workspace", "backend", "cuda_available",
           "current", "kernels_dir", "use"]


def backend(name: str) -> Backend:
    """The backend called `name` ("cpu" or "cuda"), created on first use."""
    with _lock:
        be = _backends.get(name)
        if be is None:
            if name == "cpu":
                from .cpu import CpuBackend
                be = CpuBackend()
            elif name == "cuda":
                from .cuda import CudaBackend
                be = CudaBackend()
            else:
                raise ValueError(f"unknown backend {name!r}; choose 'cpu' or 'cuda'")
            _backends[name] = be
        return be


def _cuda_status() -> tuple[bool, str, bool]:
    """(usable, why not, whether "not usable" is the expected state of a machine)."""
    try:
        backend("cuda")
        return True, "", False
    except Exception as exc:  # CudaUnavailable, or anything a broken install raises
        return False, str(exc), bool(getattr(exc, "expected", False))


def cuda_available() -> tuple[bool, str]:
    """(True, "") when the cuda backend can run here, else (False, why not)."""
    ok, why, _ = _cuda_status()
    return ok, why


def current() -> Backend:
    """The backend the operators and the acl facade use."""
    global _current
    if _current is None:
        choice = os.environ.get("NPU_EMU_DEVICE", "auto").strip().lower() or "auto"
        if choice not in DEVICES:
            raise ValueError(f"NPU_EMU_DEVICE={choice!r}; choose one of {', '.join(DEVICES)}")
        if choice == "auto":
            ok, why, expected = _cuda_status()
            if not ok:
                log.log(logging.INFO if expected else logging.WARNING,
                        "NPU_EMU_DEVICE=auto: using the cpu backend, because the cuda backend "
                        "is unavailable: %s", why)
            choice = "cuda" if ok else "cpu"
        _current = backend(choice)
    return _current


def use(name: str) -> Backend:
    """Switch the current backend (tests run the same checks on both)."""
    global _current
    _current = backend(name)
    return _current
