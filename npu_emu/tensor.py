"""The aclTensor model (SPEC §6): a view (shape, strides in elements, storage offset) over a
storage (storage shape, data pointer), with dtype and format; plus aclIntArray and aclScalar.

Descriptors are validated when created and immutable afterwards; operators only read them.
"""
from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np

from . import dtypes as _dt
from .dtypes import aclDataType
from .formats import aclFormat, as_format, is_private
from .status import AclnnError, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR

MAX_DESCRIPTOR_RANK = 64  # operators enforce their own (8) limit with their own message


def _invalid(message: str) -> AclnnError:
    return AclnnError(ACLNN_ERR_PARAM_INVALID, message)


def int_tuple(values: object, param: str, allow_negative: bool = False) -> tuple[int, ...]:
    """A tuple of Python ints from a sequence of integers, naming `param` when it is not one."""
    if values is None:
        raise AclnnError(ACLNN_ERR_PARAM_NULLPTR, f"{param} is None, expected a sequence of ints")
    if isinstance(values, np.ndarray):
        values = values.tolist()
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise _invalid(f"{param}={values!r} is not a sequence of ints")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral,)):
            raise _invalid(f"{param}[{i}]={v!r} is not an int")
        v = int(v)
        if v < 0 and not allow_negative:
            raise _invalid(f"{param}[{i}]={v} is negative; sizes and strides must be >= 0")
        out.append(v)
    return tuple(out)


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(int(size), 1)
    return tuple(reversed(strides))


def view_extent(shape: Sequence[int], strides: Sequence[int], offset: int) -> int:
    """One past the largest element index the view touches (0 for an empty view)."""
    if any(s == 0 for s in shape):
        return 0
    return offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1


@dataclass(frozen=True, eq=False)
class Tensor:
    """aclTensor. ``data`` is a device pointer (an int; 0 is a null pointer, allowed for
    empty tensors). ``owner`` keeps a Python object alive that owns the memory, if any."""

    view_shape: tuple[int, ...]
    dtype: aclDataType
    view_strides: tuple[int, ...]
    storage_offset: int
    format: aclFormat
    storage_shape: tuple[int, ...]
    data: int
    owner: object = field(default=None, repr=False)

    # -- derived properties
    @property
    def dim(self) -> int:
        return len(self.view_shape)

    @functools.cached_property
    def numel(self) -> int:
        return math.prod(self.view_shape)

    @functools.cached_property
    def extent(self) -> int:
        """One past the largest element index the view touches (0 for an empty view)."""
        return view_extent(self.view_shape, self.view_strides, self.storage_offset)

    @property
    def storage_numel(self) -> int:
        return math.prod(self.storage_shape)

    @functools.cached_property
    def itemsize(self) -> int:
        size = _dt.INFO[self.dtype].itemsize
        if size is None:
            raise _invalid(f"dtype {_dt.dt_name(self.dtype)} has no per-element storage")
        return size

    @property
    def storage_nbytes(self) -> int:
        return self.storage_numel * self.itemsize

    def is_empty(self) -> bool:
        return any(n == 0 for n in self.view_shape)

    def is_contiguous(self) -> bool:
        """Row-major contiguous: strides of size-1 dims do not matter (as in CANN/PyTorch)."""
        if self.is_empty():
            return True  # whatever its strides, as in PyTorch
        step = 1
        for n, s in zip(reversed(self.view_shape), reversed(self.view_strides)):
            if n == 1:
                continue
            if s != step:
                return False
            step *= n
        return True

    def is_private_format(self) -> bool:
        return is_private(self.format)

    def element_address(self, index: Sequence[int]) -> int:
        """Byte address of element `index` of the view (SPEC §6)."""
        return self.data + (self.storage_offset + sum(
            i * s for i, s in zip(index, self.view_strides))) * self.itemsize

    def with_data(self, data: int, owner: object = None) -> "Tensor":
        return replace(self, data=int(data), owner=owner)

    def __repr__(self) -> str:
        return (f"aclTensor(view_shape={list(self.view_shape)}, dtype={_dt.dt_name(self.dtype)}, "
                f"view_strides={list(self.view_strides)}, storage_offset={self.storage_offset}, "
                f"format={self.format.name}, storage_shape={list(self.storage_shape)}, "
                f"data=0x{self.data:x})")


def make_tensor(view_shape: object, dtype: object, view_strides: object = None,
                storage_offset: object = 0, format: object = aclFormat.ACL_FORMAT_ND,
                storage_shape: object = None, data: object = 0,
                owner: object = None) -> Tensor:
    """Validate and build a Tensor; raises AclnnError naming the parameter that is wrong.

    Defaults: contiguous strides for the view shape, storage shape = view shape.
    """
    shape = int_tuple(view_shape, "view_shape")
    dt = _dt.as_dtype(dtype, "dtype")
    if dt in (aclDataType.ACL_DT_UNDEFINED, aclDataType.ACL_STRING):
        raise _invalid(f"dtype={dt.name} cannot describe tensor elements")
    strides = contiguous_strides(shape) if view_strides is None else int_tuple(view_strides, "view_strides")
    if isinstance(storage_offset, (bool, np.bool_)) or not isinstance(storage_offset, numbers.Integral):
        raise _invalid(f"storage_offset={storage_offset!r} is not an int")
    offset = int(storage_offset)
    if offset < 0:
        raise _invalid(f"storage_offset={offset} is negative")
    fmt = as_format(format, "format")
    if fmt == aclFormat.ACL_FORMAT_UNDEFINED:
        raise _invalid("format=ACL_FORMAT_UNDEFINED cannot describe a tensor")
    storage = shape if storage_shape is None else int_tuple(storage_shape, "storage_shape")
    if data is None:
        data = 0  # a null pointer: allowed for a descriptor; operators refuse it for non-empty views
    if isinstance(data, (bool, np.bool_)) or not isinstance(data, numbers.Integral):
        raise _invalid(f"data={data!r} is not a pointer (an int)")
    if len(strides) != len(shape):
        raise _invalid(f"view_strides has {len(strides)} entries but view_shape has {len(shape)}; "
                       f"they must have the same rank")
    if len(shape) > MAX_DESCRIPTOR_RANK:
        raise _invalid(f"view_shape has {len(shape)} dims, more than {MAX_DESCRIPTOR_RANK}")
    extent = view_extent(shape, strides, offset)
    if extent > math.prod(storage):
        raise _invalid(
            f"the view (shape {list(shape)}, strides {list(strides)}, offset {offset}) reaches "
            f"element {extent - 1}, outside storage_shape {list(storage)} "
            f"({math.prod(storage)} elements): offset + sum((size_i - 1) * stride_i) must be "
            f"below the storage element count")
    return Tensor(shape, dt, strides, offset, fmt, storage, int(data), owner)


@dataclass(frozen=True)
class IntArray:
    """aclIntArray."""
    values: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        return iter(self.values)

    def __getitem__(self, i):
        return self.values[i]


def make_int_array(values: object, param: str = "value") -> IntArray:
    return IntArray(int_tuple(values, param, allow_negative=True))


@dataclass(frozen=True)
class Scalar:
    """aclScalar: a value held in its own dtype (a NumPy/ml_dtypes scalar)."""
    value: object
    dtype: aclDataType

    def to_python(self):
        v = self.value
        if isinstance(v, np.generic):
            kind = _dt.INFO[self.dtype].kind
            if kind == _dt.COMPLEX:
                return complex(v)
            if kind == _dt.FLOATING:
                return float(v)
            if kind == _dt.BOOL:
                return bool(v)
            return int(v)
        return v


def make_scalar(value: object, dtype: object) -> Scalar:
    dt = _dt.as_dtype(dtype, "dtype")
    info = _dt.INFO[dt]
    if value is None:
        raise AclnnError(ACLNN_ERR_PARAM_NULLPTR, "value is None, expected a number")
    if not isinstance(value, (numbers.Number, np.generic)):
        raise _invalid(f"value={value!r} is not a number")
    if info.host is None:
        raise _invalid(f"dtype={_dt.dt_name(dt)} has no host scalar type for aclCreateScalar")
    if info.kind != _dt.COMPLEX and isinstance(value, complex):
        raise _invalid(f"value={value!r} is complex but dtype is {_dt.dt_name(dt)}")
    if info.kind in (_dt.SIGNED, _dt.UNSIGNED) and isinstance(value, numbers.Integral):
        # Note: NumPy would wrap (or overflow deep inside); an int the dtype cannot hold is
        # the user's error, as -1 for DT_UINT8 or 2**40 for DT_INT32.
        limits = np.iinfo(info.host)
        if not limits.min <= int(value) <= limits.max:
            raise _invalid(f"value={value!r} is outside the range of {_dt.dt_name(dt)} "
                           f"[{limits.min}, {limits.max}]")
    with np.errstate(all="ignore"):
        try:
            held = np.asarray(value).astype(info.host)[()]
        except (TypeError, ValueError, OverflowError):
            # an int beyond 64 bits is an object array, which ml_dtypes cannot convert
            try:
                held = np.asarray(float(value)).astype(info.host)[()]
            except (TypeError, ValueError, OverflowError):
                raise _invalid(f"value={value!r} cannot be held in {_dt.dt_name(dt)}") from None
    return Scalar(held, dt)
