"""The peer libraries a case is compared with in the same run: NumPy always, PyTorch and
CuPy when importable, each on the backend's device with its own timer."""
from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .common import BenchError, optional_import, short
from .timing import cupy_sampler, host_sampler, torch_cuda_sampler

if TYPE_CHECKING:
    from .cases import Built


# ---------------------------------------------------------------------------- peers


_TORCH_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
                "fp8e5m2": "float8_e5m2", "fp8e4m3fn": "float8_e4m3fn",
                "fp8e8m0": "float8_e8m0fnu", "s8": "int8", "u8": "uint8", "s16": "int16",
                "s32": "int32", "s64": "int64", "bool": "bool", "c64": "complex64",
                "c128": "complex128"}
_SIGNED = {np.dtype(np.uint16): np.int16, np.dtype(np.uint32): np.int32,
           np.dtype(np.uint64): np.int64}


def torch_dtype(torch, dt):
    name = _TORCH_NAMES.get(short(dt))
    if name is None or not hasattr(torch, name):
        raise BenchError(f"PyTorch has no {short(dt)} type")
    return getattr(torch, name)


@dataclass
class Peer:
    name: str
    device: str
    xp: Any                          # numpy / cupy module, or torch
    sampler: Callable[[Callable[[], Any]], Callable[[int], float]]
    version: str

    def work(self, built: Built) -> Callable[[], Any]:
        if self.name == "torch":
            if built.torch_work is None:
                raise BenchError("no PyTorch form of this case")
            return built.torch_work(self.xp, self._torch_tensor)
        if built.xp_work is None:
            raise BenchError(f"no {self.name} form of this case")
        asarray = np.asarray if self.xp is np else self.xp.asarray
        return built.xp_work(self.xp, asarray)

    def _torch_tensor(self, raw: np.ndarray, dt=None):
        """A torch tensor on the peer's device from raw storage (reinterpreted as dt)."""
        torch = self.xp
        arr = np.ascontiguousarray(raw)
        if arr.dtype in _SIGNED:
            arr = arr.view(_SIGNED[arr.dtype])
        t = torch.from_numpy(arr)
        if dt is not None:
            want = torch_dtype(torch, dt)
            if t.dtype != want:
                t = t.view(want)
        return t.to(self.device)

    def release(self) -> None:
        gc.collect()
        if self.name == "cupy":
            self.xp.get_default_memory_pool().free_all_blocks()
        elif self.name == "torch" and self.device == "cuda":
            self.xp.cuda.empty_cache()


def find_peers(backend: str) -> tuple[list[Peer], dict[str, str]]:
    """NumPy always; PyTorch and CuPy when importable, on the device of the backend."""
    peers = [Peer("numpy", "cpu", np, host_sampler, np.__version__)]
    notes: dict[str, str] = {}
    torch = optional_import("torch")
    if torch is None:
        notes["torch"] = "not installed"
    elif backend == "cuda" and not torch.cuda.is_available():
        notes["torch"] = f"{torch.__version__} has no CUDA here: not compared on the GPU"
    else:
        peers.append(Peer("torch", backend, torch,
                          torch_cuda_sampler if backend == "cuda" else host_sampler,
                          torch.__version__))
    if backend == "cuda":
        cupy = optional_import("cupy")
        if cupy is None:
            notes["cupy"] = "not installed"
        else:
            peers.append(Peer("cupy", "cuda", cupy, cupy_sampler, cupy.__version__))
    else:
        notes["cupy"] = "GPU only: not compared on the cpu backend"
    return peers, notes
