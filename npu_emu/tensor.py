"""The aclTensor model (docs/views.md#tensors-and-views): a view (shape, strides in elements, storage offset) over a
storage (storage shape, data pointer), with dtype and format; plus aclIntArray and aclScalar.

Descriptors are validated when created and immutable afterwards; operators only read them.
"""
from __future__ import annotations

import functools
import itertools
import math
import numbers
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np

from . import dtypes as _dt
from ._params import INT64_MAX, as_int, as_pointer, check_count_fits, int_sequence
from .dtypes import aclDataType
from .formats import aclFormat, as_format, is_private
from .status import AclnnError, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR

MAX_DESCRIPTOR_RANK = 64  # operators enforce their own (8) limit with their own message


def _invalid(message: str, kind: type | None = None) -> AclnnError:
    return AclnnError(ACLNN_ERR_PARAM_INVALID, message, kind)


def int_tuple(values: object, param: str, allow_negative: bool = False) -> tuple[int, ...]:
    """A tuple of Python ints from a sequence of integers, naming `param` when it is not one
    (each in [0, 2^63), or (-2^63, 2^63) with allow_negative)."""
    return int_sequence(values, param, lo=-INT64_MAX - 1 if allow_negative else 0,
                        what="a sequence of ints" + ("" if allow_negative else " >= 0"))


class Handle:
    """An object of the C-style layer with a lifetime, ended by its aclDestroyXxx; any use
    after that is refused (an emulator should catch what would be a use-after-free in C)."""

    __slots__ = ()
    KIND = "handle"
    DESTROY = ""   # its aclDestroyXxx, where that is not "aclDestroy" + KIND[3:]

    @property
    def destroyed(self) -> bool:
        return getattr(self, "_destroyed", False)

    def mark_destroyed(self) -> None:
        object.__setattr__(self, "_destroyed", True)
        # A destroyed handle has no plan-cache key: a call with it misses the cache and takes
        # the full checks, which refuse it (so the cache's lookup need not ask).
        if hasattr(self, "__dict__"):
            self.__dict__["plan_key"] = self.__dict__["geometry_key"] = None
            self.__dict__["geometry_id"] = None


def check_live(obj: object, name: str) -> None:
    """161002 when `obj` is a handle already destroyed."""
    if isinstance(obj, Handle) and obj.destroyed:
        raise _invalid(f"{name} is an {obj.KIND} that was already destroyed "
                       f"({obj.DESTROY or 'aclDestroy' + obj.KIND[3:]}); create a new one")


@functools.lru_cache(maxsize=4096)
def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(int(size), 1)
    return tuple(reversed(strides))


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides (in elements) of a shape."""
    return _contiguous_strides(tuple(shape))


# Small ints standing for geometry keys (Tensor.geometry_id): a front end that keys its own
# memo by the geometry of each operand (the array API's repeated calls) hashes a few ints, not
# a nested tuple per operand per call. An id is never given to two geometries; a geometry
# may get a second id after the table was started over (its calls then miss once).
_GEOMETRY_IDS: dict[tuple, int] = {}
_GEOMETRY_IDS_KEPT = 1 << 16
_next_geometry_id = itertools.count(1)


def geometry_id_of(key: tuple) -> int:
    """The id of a geometry key (Tensor.geometry_key)."""
    gid = _GEOMETRY_IDS.get(key)
    if gid is None:
        if len(_GEOMETRY_IDS) >= _GEOMETRY_IDS_KEPT:
            _GEOMETRY_IDS.clear()
        gid = _GEOMETRY_IDS.setdefault(key, next(_next_geometry_id))
    return gid


def view_extent(shape: Sequence[int], strides: Sequence[int], offset: int) -> int:
    """One past the largest element index the view touches (0 for an empty view)."""
    if any(s == 0 for s in shape):
        return 0
    return offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1


@dataclass(frozen=True, eq=False)
class Tensor(Handle):
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
    KIND = "aclTensor"

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

    @functools.cached_property
    def storage_numel(self) -> int:
        return math.prod(self.storage_shape)

    @functools.cached_property
    def geometry_key(self) -> tuple:
        """Everything a plan may depend on but the address (the eager layers' plan cache
        keys this and reads what it needs of the address itself: ops._bindings)."""
        return (type(self), self.view_shape, self.view_strides, self.storage_offset, self.dtype,
                self.format, self.storage_shape, getattr(self, "layout", None),
                getattr(self, "origin", None))

    @functools.cached_property
    def geometry_id(self) -> int | None:
        """A small int that stands for geometry_key (equal ids: equal keys); None for a
        destroyed handle."""
        g = self.geometry_key
        return None if g is None else geometry_id_of(g)

    @functools.cached_property
    def plan_key(self) -> tuple:
        """Everything a plan may depend on (the plan cache's key for this tensor)."""
        return (*self.geometry_key, self.data)

    @classmethod
    def trusted(cls, view_shape: tuple[int, ...], dtype: aclDataType,
                view_strides: tuple[int, ...], storage_offset: int, format: aclFormat,
                storage_shape: tuple[int, ...], data: int, owner: object = None) -> "Tensor":
        """A plain Tensor from values already valid (derived from a valid view, or checked
        by the caller): the fields and the plan key set at once, none of make_tensor's
        checks. The eager layers make one per result; the frozen dataclass's __init__ (a
        setattr per field) and the key's first computation would cost more than the rest
        of a tiny operation's host work. Its geometry_id is set too."""
        self = object.__new__(cls)
        d = self.__dict__
        d["view_shape"], d["dtype"], d["view_strides"] = view_shape, dtype, view_strides
        d["storage_offset"], d["format"], d["storage_shape"] = storage_offset, format, storage_shape
        d["data"], d["owner"] = data, owner
        g = d["geometry_key"] = (cls, view_shape, view_strides, storage_offset, dtype, format,
                                 storage_shape, None, None)
        d["plan_key"] = (*g, data)
        # Set here, not on first use: the array API's calls key nearly every such tensor, and
        # a cached_property's first read costs three times the lookup.
        d["geometry_id"] = geometry_id_of(g)
        return self

    @classmethod
    def of_geometry(cls, geometry_key: tuple, geometry_id: int, data: int,
                    owner: object = None) -> "Tensor":
        """A plain Tensor of a plain Tensor's geometry_key (and its geometry_id) at `data`:
        what trusted makes from the same fields, with nothing to rebuild (the array API's
        repeated calls make their results so); the plan key follows when asked for."""
        self = object.__new__(cls)
        d = self.__dict__
        (_, d["view_shape"], d["view_strides"], d["storage_offset"], d["dtype"], d["format"],
         d["storage_shape"], _, _) = geometry_key
        d["data"], d["owner"] = data, owner
        d["geometry_key"], d["geometry_id"] = geometry_key, geometry_id
        return self

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
        return 0 in self.view_shape

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
        """Byte address of element `index` of the view (docs/views.md#tensors-and-views)."""
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

    Defaults: contiguous strides for the view shape, storage shape = view shape. Every
    size, stride and the offset is an integer in [0, 2^63); the data pointer one in
    [0, 2^64) or None (null: allowed for a descriptor; operators refuse it for a non-empty
    view). Element counts past int64 are left to the operators, which refuse them.
    """
    shape = int_tuple(view_shape, "view_shape")
    dt = _dt.as_dtype(dtype, "dtype")
    if dt in (aclDataType.ACL_DT_UNDEFINED, aclDataType.ACL_STRING):
        raise _invalid(f"dtype={dt.name} cannot describe tensor elements", TypeError)
    strides = contiguous_strides(shape) if view_strides is None else int_tuple(view_strides, "view_strides")
    if storage_offset is None:
        raise _invalid("storage_offset=None is not an int", TypeError)
    offset = as_int(storage_offset, "storage_offset", 0, INT64_MAX, "an element offset")
    fmt = as_format(format, "format")
    if fmt == aclFormat.ACL_FORMAT_UNDEFINED:
        raise _invalid("format=ACL_FORMAT_UNDEFINED cannot describe a tensor")
    storage = shape if storage_shape is None else int_tuple(storage_shape, "storage_shape")
    ptr = as_pointer(data, "data")
    if len(strides) != len(shape):
        raise _invalid(f"view_strides has {len(strides)} entries but view_shape has {len(shape)}; "
                       f"they must have the same rank")
    if len(shape) > MAX_DESCRIPTOR_RANK:
        raise _invalid(f"view_shape has {len(shape)} dims, more than {MAX_DESCRIPTOR_RANK}")
    storage_numel = math.prod(storage)
    if storage_numel * (_dt.INFO[dt].itemsize or 1) > INT64_MAX:
        raise _invalid(f"storage_shape {list(storage)} holds {storage_numel} elements, more "
                       f"bytes than int64 counts: a storage must fit in int64")
    extent = view_extent(shape, strides, offset)
    if extent > storage_numel:
        raise _invalid(
            f"the view (shape {list(shape)}, strides {list(strides)}, offset {offset}) reaches "
            f"element {extent - 1}, outside storage_shape {list(storage)} "
            f"({math.prod(storage)} elements): offset + sum((size_i - 1) * stride_i) must be "
            f"below the storage element count")
    return Tensor(shape, dt, strides, offset, fmt, storage, ptr, owner)


def check_geometry(t: Tensor, name: str) -> None:
    """What an operator needs of any tensor before it plans: element counts, the view's
    extent and its byte size within int64, as CANN computes them."""
    item = t.itemsize
    if t.numel <= INT64_MAX and t.storage_numel * item <= INT64_MAX and t.extent * item <= INT64_MAX:
        return
    check_count_fits(t.numel, f"Tensor {name} (view shape {list(t.view_shape)})", "elements")
    check_count_fits(t.storage_numel * item, f"Tensor {name}'s storage "
                     f"{list(t.storage_shape)}", "bytes")
    check_count_fits(t.extent * item, f"Tensor {name}'s view", "bytes to its last element")


@dataclass(frozen=True)
class IntArray(Handle):
    """aclIntArray."""
    values: tuple[int, ...]
    KIND = "aclIntArray"

    @functools.cached_property
    def plan_key(self) -> tuple:
        """The plan cache's key for this attribute (the handle is immutable: kept once)."""
        return ("IntArray", self.values)

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        return iter(self.values)

    def __getitem__(self, i):
        return self.values[i]


def make_int_array(values: object, param: str = "value") -> IntArray:
    return IntArray(int_tuple(values, param, allow_negative=True))


@dataclass(frozen=True)
class FloatArray(Handle):
    """aclFloatArray."""
    values: tuple[float, ...]
    KIND = "aclFloatArray"

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        return iter(self.values)


@dataclass(frozen=True)
class BoolArray(Handle):
    """aclBoolArray."""
    values: tuple[bool, ...]
    KIND = "aclBoolArray"

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        return iter(self.values)


@dataclass(frozen=True, eq=False)
class TensorList(Handle):
    """aclTensorList."""
    tensors: tuple[Tensor, ...]
    KIND = "aclTensorList"

    def __len__(self) -> int:
        return len(self.tensors)

    def __iter__(self):
        return iter(self.tensors)

    def __getitem__(self, i):
        return self.tensors[i]


@dataclass(frozen=True)
class Scalar(Handle):
    """aclScalar: a value held in its own dtype (a NumPy/ml_dtypes scalar)."""
    value: object
    dtype: aclDataType
    KIND = "aclScalar"

    @functools.cached_property
    def plan_key(self) -> tuple | None:
        """The plan cache's key for this attribute, by its bits (-0.0 is not 0.0); None for
        a value that is not a NumPy scalar (no key: the operator's checks report it)."""
        v = self.value
        if not isinstance(v, np.generic):
            return None
        return ("Scalar", self.dtype, v.dtype.str, v.tobytes())

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


def _scalar_number(value: object) -> object:
    """A Python number from what aclCreateScalar may take: a Python or NumPy number or a 0-d
    numeric array (C's `&value`); strings, dates, voids and objects are refused."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (np.datetime64, np.timedelta64)):   # integers to NumPy, not numbers
        raise _invalid(f"value={value!r} is a {type(value).__name__}, not a number", TypeError)
    if isinstance(value, np.generic):
        if isinstance(value, np.integer):
            return int(value)
        if isinstance(value, np.complexfloating):
            return complex(value)
        if isinstance(value, np.floating) or _dt.is_ml_dtypes_scalar(value):
            return float(value)
        raise _invalid(f"value={value!r} is a {type(value).__name__}, not a number", TypeError)
    if isinstance(value, numbers.Number) and not isinstance(value, (str, bytes)):
        if isinstance(value, numbers.Integral):
            return int(value)
        if isinstance(value, numbers.Real):
            return float(value)
        if isinstance(value, numbers.Complex):
            return complex(value)
    raise _invalid(f"value={value!r} is a {type(value).__name__}, not a number", TypeError)


def make_scalar(value: object, dtype: object) -> Scalar:
    """aclCreateScalar: `value` held in `dtype`. A value the dtype cannot hold is refused,
    never wrapped: an integer or a float outside an integer dtype's range, a NaN or an
    infinity for an integer dtype, a finite value that overflows a float dtype, a complex
    value for a real dtype. In range, floats truncate toward zero into integer dtypes."""
    dt = _dt.as_dtype(dtype, "dtype")
    info = _dt.INFO[dt]
    if value is None:
        raise AclnnError(ACLNN_ERR_PARAM_NULLPTR, "value is None, expected a number")
    number = _scalar_number(value)
    if info.host is None:
        raise _invalid(f"dtype={_dt.dt_name(dt)} has no host scalar type for aclCreateScalar",
                       TypeError)
    if info.kind != _dt.COMPLEX and isinstance(number, complex):
        raise _invalid(f"value={value!r} is complex but dtype is {_dt.dt_name(dt)}", TypeError)
    if info.kind in (_dt.SIGNED, _dt.UNSIGNED):
        if isinstance(number, float):
            if not math.isfinite(number):
                raise _invalid(f"value={value!r} cannot be held in {_dt.dt_name(dt)} "
                               f"(an integer dtype has no NaN or infinity)")
            number = int(number)   # truncation toward zero, as C's conversion
        limits = np.iinfo(info.host)
        if not limits.min <= number <= limits.max:
            raise _invalid(f"value={value!r} is outside the range of {_dt.dt_name(dt)} "
                           f"[{limits.min}, {limits.max}]")
        return Scalar(np.asarray(number).astype(info.host)[()], dt)
    # Float and complex dtypes take the conversion the NPU applies (round to nearest even;
    # overflow to inf, or NaN for E4M3FN), as Cast does.
    if info.kind == _dt.BOOL:
        return Scalar(np.bool_(bool(number)), dt)   # nonzero is true
    try:
        held_value = complex(number) if info.kind == _dt.COMPLEX else float(number)
    except OverflowError:
        raise _invalid(f"value={value!r} is too large for {_dt.dt_name(dt)} (beyond float64)") from None
    with np.errstate(all="ignore"):
        return Scalar(np.asarray(held_value).astype(info.host)[()], dt)
