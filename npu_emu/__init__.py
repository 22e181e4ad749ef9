"""npu_emu: Huawei Ascend NPU operator semantics (CANN aclnn) on NVIDIA GPUs and CPUs.

The core model lives here (dtypes, formats, SoCs, tensors, status codes); the C-style API is
`npu_emu.aclnn` (operators, tensors) and `npu_emu.acl` (runtime); kernels run on the backend
`npu_emu.runtime` selects (NPU_EMU_DEVICE=cuda|cpu|auto).
"""
from __future__ import annotations

from .arch import SOCS, SocInfo, current_soc, set_soc, soc
from .dtypes import (DTypeInfo, aclDataType, as_dtype, can_cast, get_promotion_rules, info,
                     promote_types, promotion_rules, set_promotion_rules)
from .formats import aclFormat
from .status import *  # noqa: F401,F403 (the status code constants)
from .status import AclnnError
from .tensor import IntArray, Scalar, Tensor

__version__ = "0.1.0"


def format_cast(tensor: Tensor, fmt: object, c0: int | None = None, origin: object = None) -> Tensor:
    """Convert a device tensor to (or back from) a private layout in one call; returns a new
    device tensor (npu_emu.ops.format_cast.format_cast)."""
    from .ops.format_cast import format_cast as _format_cast
    return _format_cast(tensor, fmt, c0=c0, origin=origin)


def cube_matmul(a: Tensor, b: Tensor, out_dtype: object = None) -> Tensor:
    """The cube unit's view of a matmul on operands already in the SoC's fractal layouts
    (npu_emu.ops.matmul.cube_matmul)."""
    from .ops.matmul import cube_matmul as _cube_matmul
    return _cube_matmul(a, b, out_dtype)


def memory_stats() -> dict[str, int]:
    """The device pool's statistics: bytes_in_use, bytes_cached, peak_bytes_in_use,
    allocations (live), total_allocations."""
    from . import runtime
    return runtime.current().memory_stats()


def reset_peak_memory_stats() -> None:
    """Start the pool's peak_bytes_in_use again from the bytes in use now."""
    from . import runtime
    runtime.current().allocator.reset_peak()


def empty_cache() -> None:
    """Release the pool's cached (free) blocks."""
    from . import runtime
    runtime.current().empty_cache()


__all__ = [
    "AclnnError", "DTypeInfo", "cube_matmul", "format_cast", "IntArray", "SOCS", "Scalar", "SocInfo", "Tensor",
    "aclDataType", "aclFormat", "as_dtype", "can_cast", "current_soc", "empty_cache",
    "get_promotion_rules", "info", "memory_stats", "promote_types", "promotion_rules",
    "reset_peak_memory_stats",
    "set_promotion_rules", "set_soc", "soc",
]
