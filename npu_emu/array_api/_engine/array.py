"""The Array object: an aclTensor view (any strides, any offset) over the storage it keeps
alive, on one backend.

Views with negative steps: an aclTensor's strides are never negative (docs/views.md), so an Array
keeps its view as a tensor over the same elements in ascending address order plus the axes
that run backwards (`_flip`). Kernels get the tensor directly when no axis is reversed; a
reversed view is materialized (the backend library copies it, contiguous) when a kernel
reads it, and a reversed destination is written by reversing the source instead (the same
elements pair up). The backend library (NumPy/CuPy) sees the true, signed strides.

A private layout (format_cast to FRACTAL_NZ, NC1HWC0, ...) stays an array of its storage:
its shape is the storage shape, `format` names the layout, and format_cast back to ND
decodes it to the logical shape.
"""
from __future__ import annotations

import ctypes
import math
import numbers
import os
import sys
from typing import Any, Sequence

import numpy as np

from ...dtypes import COMPLEX, FLOATING, INFO, SIGNED, UNSIGNED, aclDataType as DT
from ...formats import aclFormat
from ...fractal import L, Layout, tensor_layout
from ...runtime.base import Backend
from ...tensor import Tensor, contiguous_strides
from . import dtypes as _dtypes, parts
from .device import Device, Storage, backend_for, device_of, library_order, memory_view

ND = aclFormat.ACL_FORMAT_ND
SUPPORTED_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
API_VERSION_ENV = "NPU_EMU_ARRAY_API_VERSION"
# The standard the namespace follows: 2024.12 (the default; it also serves the earlier
# versions, whose functions it has) or 2025.12 (tuples from meshgrid, broadcast_arrays and
# devices()). Chosen by set_api_version, __array_namespace__(api_version=...) (as
# array_api_strict does) or the environment variable above, read at import.
_api_version = ["2024.12"]


def api_version() -> str:
    """The standard the namespace follows now ("2024.12" or "2025.12")."""
    return _api_version[0]


def set_api_version(version: str) -> str:
    """Follow the standard of `version` (any supported one; before 2025.12: 2024.12's
    behaviour); returns the previous version. ValueError for an unsupported version."""
    if version not in SUPPORTED_API_VERSIONS:
        raise ValueError(f"api_version={version!r} is not supported; npu_emu.array_api "
                         f"implements {', '.join(SUPPORTED_API_VERSIONS)}")
    before = _api_version[0]
    _api_version[0] = "2025.12" if version >= "2025.12" else "2024.12"
    return before


def standard_sequence(items: Sequence[Any]) -> list | tuple:
    """A sequence result as the standard in force returns it: a list before 2025.12 (the
    functions it changed: meshgrid, broadcast_arrays, devices), a tuple from then on."""
    return tuple(items) if _api_version[0] >= "2025.12" else list(items)


if os.environ.get(API_VERSION_ENV):
    set_api_version(os.environ[API_VERSION_ENV].strip())


def trusted_tensor(shape: tuple, dtype: DT, strides: tuple, offset: int, storage_shape: tuple,
            data: int, owner: object) -> Tensor:
    # Trusted values (derived from a valid view): no re-validation.
    return Tensor.trusted(shape, dtype, strides, offset, ND, storage_shape, data, owner)


_NAMESPACE = __name__.rsplit(".", 2)[0]      # "npu_emu.array_api"


# The C type a 0-d array's element is read as on the host (Array._scalar), by NumPy dtype.
_CTYPES = {np.dtype(t): c for t, c in (
    (np.bool_, ctypes.c_bool), (np.int8, ctypes.c_int8), (np.int16, ctypes.c_int16),
    (np.int32, ctypes.c_int32), (np.int64, ctypes.c_int64), (np.uint8, ctypes.c_uint8),
    (np.uint16, ctypes.c_uint16), (np.uint32, ctypes.c_uint32), (np.uint64, ctypes.c_uint64),
    (np.float32, ctypes.c_float), (np.float64, ctypes.c_double))}


class Array:
    """An array of npu_emu.array_api: made by asarray, zeros, the operations, ..., never by
    calling the class."""

    __slots__ = ("_t", "_flip", "_st", "_layout", "_rv", "__weakref__")

    def __new__(cls, *args: object, **kwargs: object) -> "Array":
        raise TypeError("npu_emu.array_api.Array cannot be made directly; use "
                        "npu_emu.array_api.asarray (or zeros, empty, ...)")

    @classmethod
    def _new(cls, t: Tensor, st: Storage, flip: tuple[bool, ...] | None = None,
             layout: Tensor | None = None) -> "Array":
        self = object.__new__(cls)
        self._t, self._st, self._flip, self._layout = t, st, flip, layout
        self._rv = None
        return self

    # ------------------------------------------------------------------ the view
    def _signed(self) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """(shape, strides with their signs, offset of element (0, ..., 0)), in elements."""
        t = self._t
        if self._flip is None:
            return t.view_shape, t.view_strides, t.storage_offset
        strides, offset = [], t.storage_offset
        for n, s, f in zip(t.view_shape, t.view_strides, self._flip):
            if f:
                offset += (n - 1) * s
                s = -s
            strides.append(s)
        return t.view_shape, tuple(strides), offset

    def _view(self, shape: Sequence[int], strides: Sequence[int], offset: int) -> "Array":
        """Another view of this array's storage (signed strides, offset of element 0)."""
        return view_of(self._t, self._st, shape, strides, offset)

    def _ptr0(self) -> int:
        """Address of element (0, ..., 0)."""
        return self._t.data + self._signed()[2] * self._t.itemsize

    def _raw(self) -> Any:
        """The backend library's view of the elements' storage (raw bits for bf16/fp8/hif8),
        made once per array (an array's view never changes): ours, never handed to a user
        as it is (to_numpy hands out a view of it)."""
        rv = self._rv
        if rv is None:
            shape, strides, offset = self._signed()
            t = self._t
            info = INFO[t.dtype]      # (not t.itemsize: a cached_property's first read)
            rv = self._rv = memory_view(self._st, t.data + offset * info.itemsize, shape,
                                        strides, info.storage)
        return rv

    def _values(self) -> Any:
        """The backend library's view in a dtype it computes with (ml_dtypes' bf16/fp8 on the
        cpu backend); TypeError where it has none (see library_dtype)."""
        dt = library_dtype(self._t.dtype, self._st.backend)
        if dt is None:
            raise TypeError(f"the {self._st.backend.name} backend's array library has no "
                            f"{self.dtype.name} type")
        raw = self._raw()
        return raw if raw.dtype == dt else raw.view(dt)

    def _kernel_tensor(self) -> Tensor:
        """The tensor a kernel reads: this view, or a contiguous copy when an axis is reversed."""
        if self._flip is None:
            return self._t
        return self._materialized()._t

    def _materialized(self) -> "Array":
        """A contiguous copy made by the backend library (reversed axes become ascending), in
        parts along the first axis on the cpu backend's threads."""
        be = self._st.backend
        out = empty_array(self._t.view_shape, self._t.dtype, be)
        with library_order(be):
            dst, src = out._raw(), self._raw()
            if dst.ndim == 0:
                dst[...] = src
            else:
                n = dst.shape[0]
                parts.run(lambda s: dst.__setitem__(s, src[s]), n, parts.count(be, dst.nbytes, n))
        return out

    # ------------------------------------------------------- copies, pickling
    def __copy__(self) -> "Array":
        """A new array with this one's bits, dtype, shape, layout and device (a device copy;
        a view becomes a contiguous array, imported read-only memory a writable one)."""
        out = self._materialized()
        if self._layout is None:
            return out
        return Array._new(out._t, out._st, None, self._layout.with_data(out._t.data, out._st))

    def __deepcopy__(self, memo: dict) -> "Array":
        return self.__copy__()

    def __reduce__(self) -> tuple:
        """Pickled as its elements' stored bits (a NumPy array of the storage type: uint16 for
        bfloat16, uint8 for the 8-bit floats), its dtype's name, its device and its private
        layout; `rebuild` uploads them again."""
        be = self._st.backend
        with library_order(be):
            raw = self._raw()
            bits = np.array(raw, copy=True) if be.is_cpu else raw.get()
        layout = None
        if self._layout is not None:
            t = self._layout
            layout = (t.format.name, t.view_shape, t.view_strides, t.storage_offset,
                      t.storage_shape)
        return rebuild, (bits, self.dtype.name, str(self.device), layout)

    # ------------------------------------------------------------ attributes
    @property
    def dtype(self) -> _dtypes.DType:
        return _dtypes.BY_ACL[self._t.dtype]

    @property
    def device(self) -> Device:
        return device_of(self._st.backend)

    @property
    def ndim(self) -> int:
        return len(self._t.view_shape)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._t.view_shape

    @property
    def size(self) -> int:
        return math.prod(self._t.view_shape)

    @property
    def format(self) -> Layout:
        """The layout of this array's storage: Layout.ND, or the private layout format_cast
        made (FRACTAL_NZ, Zz, NC1HWC0, ...)."""
        return L.ND if self._layout is None else tensor_layout(self._layout)[0]

    @property
    def T(self) -> "Array":
        if self.ndim != 2:
            raise ValueError(f"x.T needs a 2-D array, not {self.ndim}-D; use "
                             f"permute_dims or x.mT for stacks of matrices")
        return self._permuted((1, 0))

    @property
    def mT(self) -> "Array":
        if self.ndim < 2:
            raise ValueError(f"x.mT needs at least 2 dimensions, not {self.ndim}")
        axes = tuple(range(self.ndim - 2)) + (self.ndim - 1, self.ndim - 2)
        return self._permuted(axes)

    def _permuted(self, axes: Sequence[int]) -> "Array":
        if self._flip is not None:
            shape, strides, offset = self._signed()
            return self._view([shape[a] for a in axes], [strides[a] for a in axes], offset)
        # No reversed axis: the tensor's axes permuted, and the library's view of them, when
        # this array has made its own (a client's X.T @ v each round: 2.1 -> 1.0 us, and
        # no new NumPy view in the library call).
        t = self._t
        shape, strides = t.view_shape, t.view_strides
        out = Array._new(trusted_tensor(tuple([shape[a] for a in axes]), t.dtype,
                                        tuple([strides[a] for a in axes]), t.storage_offset,
                                        t.storage_shape, t.data, self._st), self._st)
        if self._rv is not None:
            out._rv = self._rv.transpose(axes)
        return out

    def __array_namespace__(self, *, api_version: str | None = None):
        """The namespace; api_version= selects the standard it follows, for every array (as
        array_api_strict does)."""
        if api_version is not None:
            set_api_version(api_version)
        return sys.modules[_NAMESPACE]     # imported: this array was made by it

    def to_device(self, device: object, /, *, stream: object = None) -> "Array":
        return to_device(self, device, stream)

    # -------------------------------------------------------- host values
    def _host(self) -> np.ndarray:
        """The values on the host (a copy; ml_dtypes types, float32 for HiFloat8)."""
        from ...codecs import decode
        be = self._st.backend
        with library_order(be):
            raw = self._raw()
            host = np.array(raw, copy=True) if be.is_cpu else raw.get()
        return np.asarray(decode(host, self._t.dtype)).reshape(host.shape)   # 0-d stays an array

    def _scalar(self, what: str) -> object:
        if self.ndim != 0:
            raise TypeError(f"{what} is only allowed on arrays with 0 dimensions, not shape "
                            f"{self.shape}")
        be = self._st.backend
        info = INFO[self._t.dtype]
        if be.is_cpu and info.host is not None and info.host == info.storage:
            # The element, read after the queued work: a Python number by ctypes where it
            # has the type (0.3 us; a library view of the storage costs several times as
            # much, for one element), else a NumPy scalar from a copy of its bytes.
            ct = _CTYPES.get(info.host)
            with library_order(be):
                if ct is not None:
                    return ct.from_address(self._ptr0()).value
                data = ctypes.string_at(self._ptr0(), info.host.itemsize)
            return np.frombuffer(data, info.host)[0]
        return self._host()[()]

    def __bool__(self) -> bool:
        return bool(self._scalar("bool()"))

    def __int__(self) -> int:
        if self.dtype.kind == COMPLEX:
            raise TypeError("int() of a complex array; take real() first")
        value = self._scalar("int()")
        if isinstance(value, (float, np.floating)) or self.dtype.kind == FLOATING:
            value = float(value)
            if math.isnan(value):
                raise ValueError("cannot convert a NaN to int")
            if math.isinf(value):
                raise OverflowError("cannot convert an infinity to int")
        return int(value)

    def __float__(self) -> float:
        if self.dtype.kind == COMPLEX:
            raise TypeError("float() of a complex array; take real() first")
        return float(self._scalar("float()"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex()"))

    def __index__(self) -> int:
        if self.dtype.kind not in (SIGNED, UNSIGNED):
            raise TypeError(f"only integer arrays can be used as an index, not {self.dtype.name}")
        return int(self._scalar("__index__()"))

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-dimensional array")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-dimensional array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self) -> str:
        values = self._host()
        extras = []
        if values.size == 0:
            extras.append(f"shape={self.shape}")
        extras.append(f"dtype={self.dtype.name}")
        if self._st.backend.name != "cpu":
            extras.append(f"device={self.device}")
        if self._layout is not None:
            extras.append(f"format={self.format}, logical shape={self._layout.view_shape}")
        body = np.array2string(values, separator=", ", prefix="Array(")
        return f"Array({body}, {', '.join(extras)})"

    __str__ = __repr__
    __hash__ = None  # type: ignore[assignment]  (== is elementwise)

    # ----------------------------------------------------------------- indexing
    def __getitem__(self, key: object) -> "Array":
        return _indexing().getitem(self, key)

    def __setitem__(self, key: object, value: object) -> None:
        _indexing().setitem(self, key, value)

    # ---------------------------------------------------------- interchange
    def __array__(self, dtype: object = None, copy: bool | None = None) -> np.ndarray:
        return _interop().to_numpy(self, dtype, copy)

    @property
    def __array_interface__(self) -> dict:
        return _interop().array_interface(self)

    @property
    def __cuda_array_interface__(self) -> dict:
        return _interop().cuda_array_interface(self)

    def __dlpack__(self, *, stream: object = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> object:
        return _interop().dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device.dlpack

    # ------------------------------------------------------- NumPy's protocols
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """np.exp(x), np_array + x, ...: the namespace's function of that name, our arrays
        out (the engine's protocols module says which calls fall back to NumPy)."""
        return _protocols().array_ufunc(self.__array_namespace__(), ufunc, method, inputs,
                                        kwargs)

    def __array_function__(self, func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
        """np.sum(x), np.concatenate([x, y]), ...: the namespace's function of that name."""
        return _protocols().array_function(self.__array_namespace__(), func, types, args,
                                           kwargs)

    # ------------------------------------------------------------ operators
    # Each is the elementwise function of its name (the engine's binary / unary / inplace
    # entries); an operand that is neither an array nor a Python scalar gives NotImplemented.

    def __add__(self, other: object, /) -> "Array":
        """add(self, other)."""
        return _ufunc().binary("add", self, other) if _operand(other) else NotImplemented

    def __radd__(self, other: object, /) -> "Array":
        """add(other, self)."""
        return _ufunc().binary("add", other, self) if _operand(other) else NotImplemented

    def __iadd__(self, other: object, /) -> "Array":
        """self = add(self, other), in self's memory (self's dtype and shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("add", self, other)
        return self

    def __sub__(self, other: object, /) -> "Array":
        """subtract(self, other)."""
        return _ufunc().binary("subtract", self, other) if _operand(other) else NotImplemented

    def __rsub__(self, other: object, /) -> "Array":
        """subtract(other, self)."""
        return _ufunc().binary("subtract", other, self) if _operand(other) else NotImplemented

    def __isub__(self, other: object, /) -> "Array":
        """self = subtract(self, other), in self's memory (self's dtype and shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("subtract", self, other)
        return self

    def __mul__(self, other: object, /) -> "Array":
        """multiply(self, other)."""
        return _ufunc().binary("multiply", self, other) if _operand(other) else NotImplemented

    def __rmul__(self, other: object, /) -> "Array":
        """multiply(other, self)."""
        return _ufunc().binary("multiply", other, self) if _operand(other) else NotImplemented

    def __imul__(self, other: object, /) -> "Array":
        """self = multiply(self, other), in self's memory (self's dtype and shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("multiply", self, other)
        return self

    def __truediv__(self, other: object, /) -> "Array":
        """divide(self, other)."""
        return _ufunc().binary("divide", self, other) if _operand(other) else NotImplemented

    def __rtruediv__(self, other: object, /) -> "Array":
        """divide(other, self)."""
        return _ufunc().binary("divide", other, self) if _operand(other) else NotImplemented

    def __itruediv__(self, other: object, /) -> "Array":
        """self = divide(self, other), in self's memory (self's dtype and shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("divide", self, other)
        return self

    def __floordiv__(self, other: object, /) -> "Array":
        """floor_divide(self, other)."""
        return _ufunc().binary("floor_divide", self, other) if _operand(other) else NotImplemented

    def __rfloordiv__(self, other: object, /) -> "Array":
        """floor_divide(other, self)."""
        return _ufunc().binary("floor_divide", other, self) if _operand(other) else NotImplemented

    def __ifloordiv__(self, other: object, /) -> "Array":
        """self = floor_divide(self, other), in self's memory (self's dtype and shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("floor_divide", self, other)
        return self

    def __mod__(self, other: object, /) -> "Array":
        """remainder(self, other)."""
        return _ufunc().binary("remainder", self, other) if _operand(other) else NotImplemented

    def __rmod__(self, other: object, /) -> "Array":
        """remainder(other, self)."""
        return _ufunc().binary("remainder", other, self) if _operand(other) else NotImplemented

    def __imod__(self, other: object, /) -> "Array":
        """self = remainder(self, other), in self's memory (self's dtype and shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("remainder", self, other)
        return self

    def __pow__(self, other: object, /) -> "Array":
        """pow(self, other)."""
        return _ufunc().binary("pow", self, other) if _operand(other) else NotImplemented

    def __rpow__(self, other: object, /) -> "Array":
        """pow(other, self)."""
        return _ufunc().binary("pow", other, self) if _operand(other) else NotImplemented

    def __ipow__(self, other: object, /) -> "Array":
        """self = pow(self, other), in self's memory (self's dtype and shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("pow", self, other)
        return self

    def __and__(self, other: object, /) -> "Array":
        """bitwise_and(self, other)."""
        return _ufunc().binary("bitwise_and", self, other) if _operand(other) else NotImplemented

    def __rand__(self, other: object, /) -> "Array":
        """bitwise_and(other, self)."""
        return _ufunc().binary("bitwise_and", other, self) if _operand(other) else NotImplemented

    def __iand__(self, other: object, /) -> "Array":
        """self = bitwise_and(self, other), in self's memory (self's dtype and shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("bitwise_and", self, other)
        return self

    def __or__(self, other: object, /) -> "Array":
        """bitwise_or(self, other)."""
        return _ufunc().binary("bitwise_or", self, other) if _operand(other) else NotImplemented

    def __ror__(self, other: object, /) -> "Array":
        """bitwise_or(other, self)."""
        return _ufunc().binary("bitwise_or", other, self) if _operand(other) else NotImplemented

    def __ior__(self, other: object, /) -> "Array":
        """self = bitwise_or(self, other), in self's memory (self's dtype and shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("bitwise_or", self, other)
        return self

    def __xor__(self, other: object, /) -> "Array":
        """bitwise_xor(self, other)."""
        return _ufunc().binary("bitwise_xor", self, other) if _operand(other) else NotImplemented

    def __rxor__(self, other: object, /) -> "Array":
        """bitwise_xor(other, self)."""
        return _ufunc().binary("bitwise_xor", other, self) if _operand(other) else NotImplemented

    def __ixor__(self, other: object, /) -> "Array":
        """self = bitwise_xor(self, other), in self's memory (self's dtype and shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("bitwise_xor", self, other)
        return self

    def __lshift__(self, other: object, /) -> "Array":
        """bitwise_left_shift(self, other)."""
        if not _operand(other):
            return NotImplemented
        return _ufunc().binary("bitwise_left_shift", self, other)

    def __rlshift__(self, other: object, /) -> "Array":
        """bitwise_left_shift(other, self)."""
        if not _operand(other):
            return NotImplemented
        return _ufunc().binary("bitwise_left_shift", other, self)

    def __ilshift__(self, other: object, /) -> "Array":
        """self = bitwise_left_shift(self, other), in self's memory (dtype, shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("bitwise_left_shift", self, other)
        return self

    def __rshift__(self, other: object, /) -> "Array":
        """bitwise_right_shift(self, other)."""
        if not _operand(other):
            return NotImplemented
        return _ufunc().binary("bitwise_right_shift", self, other)

    def __rrshift__(self, other: object, /) -> "Array":
        """bitwise_right_shift(other, self)."""
        if not _operand(other):
            return NotImplemented
        return _ufunc().binary("bitwise_right_shift", other, self)

    def __irshift__(self, other: object, /) -> "Array":
        """self = bitwise_right_shift(self, other), in self's memory (dtype, shape kept)."""
        if not _operand(other):
            return NotImplemented
        _ufunc().inplace("bitwise_right_shift", self, other)
        return self

    def __matmul__(self, other: object, /) -> "Array":
        """matmul(self, other) (a NumPy array beside ours: as the other operators take it)."""
        if not _operand(other, True):
            return NotImplemented
        return _ufunc().matmul(self, _ufunc().beside(other, self))

    def __rmatmul__(self, other: object, /) -> "Array":
        """matmul(other, self)."""
        if not _operand(other, True):
            return NotImplemented
        return _ufunc().matmul(_ufunc().beside(other, self), self)

    def __imatmul__(self, other: object, /) -> "Array":
        """self = matmul(self, other), in self's memory (self's shape kept)."""
        if not _operand(other, True):
            return NotImplemented
        _ufunc().inplace("matmul", self, _ufunc().beside(other, self))
        return self

    def __eq__(self, other: object, /) -> "Array":  # type: ignore[override]
        """equal(self, other)."""
        return _ufunc().binary("equal", self, other) if _operand(other) else NotImplemented

    def __ne__(self, other: object, /) -> "Array":  # type: ignore[override]
        """not_equal(self, other)."""
        return _ufunc().binary("not_equal", self, other) if _operand(other) else NotImplemented

    def __lt__(self, other: object, /) -> "Array":  # type: ignore[override]
        """less(self, other)."""
        return _ufunc().binary("less", self, other) if _operand(other) else NotImplemented

    def __le__(self, other: object, /) -> "Array":  # type: ignore[override]
        """less_equal(self, other)."""
        return _ufunc().binary("less_equal", self, other) if _operand(other) else NotImplemented

    def __gt__(self, other: object, /) -> "Array":  # type: ignore[override]
        """greater(self, other)."""
        return _ufunc().binary("greater", self, other) if _operand(other) else NotImplemented

    def __ge__(self, other: object, /) -> "Array":  # type: ignore[override]
        """greater_equal(self, other)."""
        return _ufunc().binary("greater_equal", self, other) if _operand(other) else NotImplemented

    def __abs__(self, /) -> "Array":
        """abs(self)."""
        return _ufunc().unary("abs", self)

    def __neg__(self, /) -> "Array":
        """negative(self)."""
        return _ufunc().unary("negative", self)

    def __pos__(self, /) -> "Array":
        """positive(self)."""
        return _ufunc().unary("positive", self)

    def __invert__(self, /) -> "Array":
        """bitwise_invert(self)."""
        return _ufunc().unary("bitwise_invert", self)


# ----------------------------------------------------------------- constructors

# The geometry of a new contiguous array by (shape, dtype): its tensor's geometry key and id,
# and its bytes, worked out once (empty_array makes asarray's arrays and most library
# results: a tensor built field by field cost a 0-d asarray 0.7 us more).
_EMPTY: dict[tuple, tuple[tuple, int, int]] = {}
_EMPTY_KEPT = 4096


def empty_array(shape: Sequence[int], dtype: DT, be: Backend) -> Array:
    """A new contiguous array from the pool (uninitialized)."""
    shape = tuple(shape)
    geo = _EMPTY.get((shape, dtype))
    if geo is None:
        t = Tensor.trusted(shape, dtype, contiguous_strides(shape), 0, ND, shape, 0)
        geo = (t.geometry_key, t.geometry_id, math.prod(shape) * INFO[dtype].itemsize)
        if len(_EMPTY) >= _EMPTY_KEPT:
            _EMPTY.clear()
        _EMPTY[(shape, dtype)] = geo
    st = Storage.allocate(geo[2], be)
    return Array._new(Tensor.of_geometry(geo[0], geo[1], st.ptr, st), st)


def memory_order(shape: tuple[int, ...], operands: Sequence[object],
                 along: int | None = None) -> tuple[int, ...] | None:
    """The order of the axes (outermost first) that a new elementwise result of `shape` is
    laid out in (result_array): its operands' order, when every array operand of the result's
    shape (`along`: an axis where their lengths may differ from it) has its axes of more than
    one element in one order by their strides, and that order is not row-major (x.T + 1,
    exp(x.T): the result is x.T's order, as NumPy's, PyTorch's and CuPy's are, so the kernel
    streams both contiguously; a row-major result of x.T was 10x slower). None (row-major)
    otherwise: operands in different orders, broadcast or overlapping ones only, private
    layouts, fewer than two axes."""
    if len(shape) < 2:
        return None
    found = None
    for x in operands:
        if x.__class__ is not Array or x._layout is not None:
            continue
        t = x._t
        if t.view_shape != shape and (along is None or len(t.view_shape) != len(shape) or any(
                n != m for k, (n, m) in enumerate(zip(t.view_shape, shape)) if k != along)):
            continue                     # broadcast: its memory says nothing of the result's
        strides = t.view_strides
        axes = sorted([k for k in range(len(shape)) if shape[k] > 1], key=lambda k: -strides[k])
        if any(strides[a] <= strides[b] for a, b in zip(axes, axes[1:])) or \
                (axes and not strides[axes[-1]]):
            continue                     # overlapping or stride-0 axes: no order of its own
        if found is not None and axes != found:
            return None
        found = axes
    if not found or found == sorted(found):
        return None
    # The axes of one element go first (outermost), where their strides do not matter.
    return (*[k for k in range(len(shape)) if shape[k] <= 1], *found)


def result_array(shape: Sequence[int], dtype: DT, be: Backend, operands: Sequence[object],
                 along: int | None = None) -> Array:
    """A new elementwise result: empty_array, laid out in its operands' order (memory_order;
    `along`: an axis where the operands' lengths may differ from the result's) where they
    have one of their own."""
    shape = tuple(shape)
    order = memory_order(shape, operands, along)
    if order is None:
        return empty_array(shape, dtype, be)
    stored = tuple([shape[k] for k in order])
    step = contiguous_strides(stored)
    strides = [0] * len(shape)
    for k, s in zip(order, step):
        strides[k] = s
    st = Storage.allocate(math.prod(shape) * INFO[dtype].itemsize, be)
    t = Tensor.trusted(shape, dtype, tuple(strides), 0, ND, stored, st.ptr, st)
    return Array._new(t, st)


class Fresh:
    """What empty_array (or result_array) worked out for `like`, a new array, kept by a
    caller that makes many such arrays (the array API's repeated calls): `new(be)` is another
    array of like's geometry, with nothing worked out again."""

    __slots__ = ("geometry_key", "geometry_id", "nbytes")

    def __init__(self, like: "Array") -> None:
        t = like._t
        self.geometry_key, self.geometry_id = t.geometry_key, t.geometry_id
        self.nbytes = math.prod(t.storage_shape) * INFO[t.dtype].itemsize

    def new(self, be: Backend) -> Array:
        st = Storage.allocate(self.nbytes, be)
        return Array._new(Tensor.of_geometry(self.geometry_key, self.geometry_id, st.ptr, st), st)


def wrap_tensor(t: Tensor, st: Storage, layout: Tensor | None = None) -> Array:
    """An Array of tensor t (its memory kept alive by st)."""
    return Array._new(t, st, None, layout)


def view_of(base: Tensor, st: Storage, shape: Sequence[int], strides: Sequence[int],
            offset: int, dtype: DT | None = None) -> Array:
    """A view of base's storage from signed strides and the offset of element 0: reversed
    axes become a flip over the ascending tensor."""
    flip: list[bool] | None = None
    ascending = []
    for k, (n, s) in enumerate(zip(shape, strides)):
        if s < 0:
            s = -s
            if n > 1:
                offset -= (n - 1) * s
                if flip is None:
                    flip = [False] * len(shape)
                flip[k] = True
        ascending.append(s)
    t = trusted_tensor(tuple(shape), base.dtype if dtype is None else dtype, tuple(ascending),
                       offset, base.storage_shape, base.data, st)
    return Array._new(t, st, None if flip is None else tuple(flip))


def external_array(lo: int, nbytes: int, ptr0: int, shape: Sequence[int],
                   strides: Sequence[int], dtype: DT, be: Backend, owner: object,
                   readonly: bool = False, shared: bool = True) -> Array:
    """An Array over memory another object owns (`nbytes` from `lo`, element (0, ..., 0) at
    ptr0, strides in elements of any sign): registered with the allocator while it lives."""
    item = INFO[dtype].itemsize
    st = Storage.external(lo, nbytes, be, owner, readonly, shared)
    n = nbytes // item
    base = trusted_tensor((n,), dtype, (1,), 0, (n,), lo, st)
    return view_of(base, st, shape, strides, (ptr0 - lo) // item)


def to_device(x: Array, device: object, stream: object = None) -> Array:
    """x on `device`: itself when it is there already, else a copy of its bits through the
    host."""
    if stream is not None:
        raise ValueError(f"to_device(stream={stream!r}): npu_emu arrays use their backend's "
                         f"default stream; pass stream=None")
    be = backend_for(device)
    src = x._st.backend
    if be is src:
        return x
    with library_order(src):
        raw = x._raw()
        host = np.array(raw, copy=True) if src.is_cpu else raw.get()
    out = empty_array(x.shape, x._t.dtype, be)
    if host.size:
        be.copy_from_host(out._st.ptr, np.ascontiguousarray(host).reshape(-1), be.default_stream)
    return out


def rebuild(bits: np.ndarray, dtype: str, device: str,
            layout: tuple | None = None) -> Array:
    """The Array a pickle holds: `bits` (the stored bits, as Array.__reduce__ gives them)
    uploaded to `device` as `dtype`, with its private layout (format name, logical shape,
    strides, offset, storage shape) where it had one."""
    be = backend_for(device)
    dt = _dtypes.to_dtype(dtype).acl_dtype
    bits = np.asarray(bits)
    if bits.dtype != INFO[dt].storage:
        raise ValueError(f"a pickled {dtype} array holds {bits.dtype} bits, not "
                         f"{np.dtype(INFO[dt].storage)}")
    out = empty_array(bits.shape, dt, be)
    if bits.size:
        be.copy_from_host(out._st.ptr, np.ascontiguousarray(bits).reshape(-1), be.default_stream)
    if layout is None:
        return out
    fmt, shape, strides, offset, storage_shape = layout
    t = Tensor(tuple(shape), dt, tuple(strides), offset, aclFormat[fmt], tuple(storage_shape),
               out._t.data, out._st)
    return Array._new(out._t, out._st, None, t)


def library_dtype(dtype: DT, be: Backend) -> np.dtype | None:
    """The NumPy dtype the backend library computes `dtype` in over our memory: the NumPy
    types on both backends, ml_dtypes' bf16/fp8 on cpu; None for the others (HiFloat8, and
    bf16/fp8 on cuda: CuPy has no such types), which compute in float32 through our casts."""
    info = INFO[dtype]
    if info.host is None:
        return None
    if info.host == info.storage or be.is_cpu:
        return info.host
    return None


# ------------------------------------------------------------------ operands

def is_scalar(value: object) -> bool:
    """A Python (or NumPy) scalar the operators take beside an array."""
    return isinstance(value, (numbers.Number, np.bool_)) and not isinstance(value, Array)


def _operand(value: object, matmul: bool = False) -> bool:
    """Whether an operator takes `value` beside an Array (matmul: no scalars)."""
    if isinstance(value, (Array, np.ndarray)):
        return True
    return not matmul and is_scalar(value)


# The Array's methods reach the engine's operations, which import this module, when they
# run: these are the only deferred imports of the engine, each made once (an import
# statement costs half a microsecond on every operator call).
_DEFERRED: dict[str, Any] = {}


def _ufunc():
    module = _DEFERRED.get("ufunc")
    if module is None:
        from . import ufunc as module
        _DEFERRED["ufunc"] = module
    return module


def _indexing():
    module = _DEFERRED.get("indexing")
    if module is None:
        from . import indexing as module
        _DEFERRED["indexing"] = module
    return module


def _interop():
    module = _DEFERRED.get("interop")
    if module is None:
        from . import interop as module
        _DEFERRED["interop"] = module
    return module


def _protocols():
    module = _DEFERRED.get("protocols")
    if module is None:
        from . import protocols as module
        _DEFERRED["protocols"] = module
    return module
