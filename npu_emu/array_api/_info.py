"""The inspection namespace: __array_namespace_info__()."""
from __future__ import annotations

from ..ops._checks import MAX_DIMS
from ._engine import dtypes as _dtypes
from ._engine.array import standard_sequence
from ._engine.device import Device, backend_for, current_backend, device_of
from ._engine.dtypes import DType
from ._data_type_functions import isdtype


class Info:
    """What npu_emu.array_api supports on this machine: one device, the current backend's
    ("cpu" or "cuda:0")."""

    __module__ = "npu_emu.array_api"

    def capabilities(self) -> dict[str, object]:
        # Note: the operators take at most 8 dims (CANN's limit), so that is the maximum.
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": MAX_DIMS}

    def default_device(self) -> Device:
        return device_of(current_backend())

    def devices(self) -> list[Device] | tuple[Device, ...]:
        """The one device (a list; a tuple under the 2025.12 standard)."""
        return standard_sequence([self.default_device()])

    def default_dtypes(self, *, device: object = None) -> dict[str, DType]:
        backend_for(device)   # refuses a device that is not ours
        return _dtypes.default_dtypes()

    def dtypes(self, *, device: object = None,
               kind: str | tuple[str, ...] | None = None) -> dict[str, DType]:
        """The standard's dtypes of `kind` (a kind name, a tuple of them, or None for all).
        The NPU's float16, bfloat16, float8_e5m2, float8_e4m3fn and hifloat8 are attributes
        of the namespace but not listed here, where the standard allows only its own names."""
        backend_for(device)
        if kind is None:
            return {d.name: d for d in _dtypes.STANDARD}
        kinds = kind if isinstance(kind, tuple) else (kind,)
        try:
            return dict(_KIND_DTYPES[kinds])   # a copy: the caller may change it
        except (KeyError, TypeError):
            pass
        for k in kinds:
            if k not in _dtypes.KINDS:
                raise ValueError(f"kind={k!r} is not a dtype kind; use one of "
                                 f"{', '.join(repr(x) for x in _dtypes.KINDS)}")
        found = {d.name: d for d in _dtypes.STANDARD if isdtype(d, kinds)}
        if len(_KIND_DTYPES) < 256:
            _KIND_DTYPES[kinds] = found
        return dict(found)


# dtypes(kind=...) by the kinds asked (scikit-learn asks on every fit; the list is fixed)
_KIND_DTYPES: dict[tuple, dict[str, DType]] = {}


def __array_namespace_info__() -> Info:
    return Info()


__all__ = ["__array_namespace_info__"]
