"""Where a run's numbers come from (machine, versions, commit, settings of the
environment), and the memory a case may use (the budget that decides what does not fit)."""
from __future__ import annotations

import datetime as _datetime
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from .common import GiB, format_bytes

if TYPE_CHECKING:
    from .cases import CaseSpec
    from .peers import Peer


# ------------------------------------------------------------------------- provenance

def _git_commit() -> tuple[str | None, bool | None]:
    root = Path(__file__).resolve().parents[2]   # the source tree holding npu_emu/
    if not (root / ".git").exists():
        return None, None
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip() != ""
        return commit, dirty
    except (OSError, subprocess.SubprocessError):
        return None, None


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def provenance(backend: str, peers: Sequence[Peer], peer_notes: dict[str, str],
               command: str) -> dict:
    import ml_dtypes

    import npu_emu
    from npu_emu import runtime
    be = runtime.current()
    commit, dirty = _git_commit()
    info = be.info()
    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "ml_dtypes": ml_dtypes.__version__}
    for name in ("torch", "cupy"):
        peer = next((p for p in peers if p.name == name), None)
        module = sys.modules.get(name)
        versions[name] = peer.version if peer else getattr(module, "__version__", None)
    torch = sys.modules.get("torch")
    return {
        "npu_emu": npu_emu.__version__, "git_commit": commit, "git_dirty": dirty,
        "backend": backend, "device": info.get("device"), "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(), "kernel_threads": be.parallelism if backend == "cpu" else None,
        "torch_threads": torch.get_num_threads() if torch is not None else None,
        "platform": platform.platform(), "versions": versions, "peers": peer_notes,
        "soc": npu_emu.current_soc().name, "promotion_rules": npu_emu.get_promotion_rules(),
        "env": {k: os.environ.get(k) for k in ("NPU_EMU_DEVICE", "OMP_NUM_THREADS", "OMP_PROC_BIND",
                                                "OMP_PLACES")},
        "backend_info": info,
        "date": _datetime.datetime.now(_datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "load_average": load_average(),      # 1, 5, 15 min, when the run ended
    }


# --------------------------------------------------------------------------- memory

def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_budget(backend: str) -> tuple[int, int]:
    """(device bytes, host bytes) a case may use: free memory, with room to spare. On the
    cpu backend both come from the same RAM."""
    import npu_emu
    cached = npu_emu.memory_stats()["bytes_cached"]
    host = _meminfo_available()
    host = int((host if host is not None else 8 * GiB) * 0.75)
    if backend == "cuda":
        import cupy
        free, _total = cupy.cuda.runtime.memGetInfo()
        return int((free + cached) * 0.9), host
    return host + cached, host + cached


def fits(spec: CaseSpec, backend: str, budget: tuple[int, int]) -> str | None:
    """None, or why the case does not fit."""
    device, host = budget
    if backend == "cpu":
        need = spec.device_bytes + spec.host_bytes
        if need > device:
            return (f"needs {format_bytes(need)} of memory (device and host share it on the cpu "
                    f"backend), {format_bytes(device)} available")
        return None
    if spec.device_bytes > device:
        return f"needs {format_bytes(spec.device_bytes)} of device memory, {format_bytes(device)} available"
    if spec.host_bytes > host:
        return f"needs {format_bytes(spec.host_bytes)} of host memory, {format_bytes(host)} available"
    return None
