"""The C-style aclnn facade (SPEC §1, §6, §8): CANN's names, output parameters returned as
values with the status code last, and no exceptions for user errors: a failing call returns
its code (or None where C returns a null pointer) and keeps the message for
`aclGetRecentErrMsg()`.
"""
from __future__ import annotations

import functools
import numbers
from typing import Any, Callable, Sequence

import numpy as np

from . import status
from .ops._api import check_executor, fail as _fail
from .status import AclnnError, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS
from .dtypes import aclDataType  # noqa: F401 (CANN's spelling: aclnn.aclDataType)
from .formats import aclFormat  # noqa: F401
from .tensor import (IntArray, Scalar, Tensor, make_int_array, make_scalar, make_tensor)


def aclGetRecentErrMsg() -> str:
    """The message of the last failed call on this thread ("" if none)."""
    return status.recent_error()


def _returns_status(fn: Callable[..., Any]) -> Callable[..., int]:
    """A facade function whose only result is a status code."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> int:
        try:
            fn(*args, **kwargs)
        except AclnnError as err:
            return _fail(err)
        return ACLNN_SUCCESS
    return wrapper


def _returns_object(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A facade constructor: the object, or None (C's null pointer) with the message kept."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AclnnError as err:
            _fail(err)
            return None
    return wrapper


# ------------------------------------------------------------------- tensors and friends

@_returns_object
def aclCreateTensor(view_dims, data_type, stride, offset, format, storage_dims, tensor_data):
    """aclCreateTensor(viewDims, dataType, stride, offset, format, storageDims, tensorData).

    Python passes the arrays whole (their lengths are implied). `stride` None means
    contiguous. `tensor_data` is a device pointer (int) or None."""
    if isinstance(tensor_data, np.integer):
        tensor_data = int(tensor_data)
    if tensor_data is not None and (not isinstance(tensor_data, int) or isinstance(tensor_data, bool)):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"tensorData={tensor_data!r} is not a device pointer (an int from "
                         f"acl.rt.malloc)")
    return make_tensor(view_dims, data_type, stride, offset, format, storage_dims, tensor_data)


def _check_is(obj: object, cls: type, name: str, kind: str) -> None:
    if obj is None:
        raise status.nullptr(kind, name)
    if not isinstance(obj, cls):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{name} is a {type(obj).__name__}, expected an {kind}")


@_returns_status
def aclDestroyTensor(tensor):
    # Descriptors hold no device memory; a None tensor is accepted as in CANN.
    if tensor is not None:
        _check_is(tensor, Tensor, "tensor", "aclTensor")


def _getter(attr: str, kind: str = "aclTensor", cls: type = Tensor):
    def get(obj):
        try:
            _check_is(obj, cls, "tensor", kind)
        except AclnnError as err:
            return None, _fail(err)
        value = getattr(obj, attr)
        return (list(value) if isinstance(value, tuple) else value), ACLNN_SUCCESS
    get.__name__ = attr
    get.__doc__ = f"(value, ret): the tensor's {attr}."
    return get


aclGetViewShape = _getter("view_shape")
aclGetViewStrides = _getter("view_strides")
aclGetViewOffset = _getter("storage_offset")
aclGetStorageShape = _getter("storage_shape")
aclGetFormat = _getter("format")
aclGetDataType = _getter("dtype")


@_returns_object
def aclCreateIntArray(value):
    return make_int_array(value)


@_returns_status
def aclDestroyIntArray(array):
    if array is not None:
        _check_is(array, IntArray, "array", "aclIntArray")


@_returns_object
def aclCreateScalar(value, data_type):
    return make_scalar(value, data_type)


@_returns_status
def aclDestroyScalar(scalar):
    if scalar is not None:
        _check_is(scalar, Scalar, "scalar", "aclScalar")


def _sequence(value: object, name: str, kind: str) -> list:
    if value is None:
        raise status.nullptr(kind, name)
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"{name}={value!r} is not a sequence")
    return list(value)


@_returns_object
def aclCreateFloatArray(value):
    items = _sequence(value, "value", "aclFloatArray")
    for i, v in enumerate(items):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.floating, np.integer)):
            raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"value[{i}]={v!r} is not a real number")
    return tuple(float(v) for v in items)


@_returns_object
def aclCreateBoolArray(value):
    items = _sequence(value, "value", "aclBoolArray")
    for i, v in enumerate(items):
        if not isinstance(v, (bool, np.bool_)):
            raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"value[{i}]={v!r} is not a bool")
    return tuple(bool(v) for v in items)


@_returns_object
def aclCreateTensorList(tensors):
    items = _sequence(tensors, "tensors", "aclTensorList")
    for i, t in enumerate(items):
        _check_is(t, Tensor, f"tensors[{i}]", "aclTensor")
    return tuple(items)


@_returns_status
def aclDestroyFloatArray(array):
    pass


@_returns_status
def aclDestroyBoolArray(array):
    pass


@_returns_status
def aclDestroyTensorList(tensors):
    pass


# -------------------------------------------------------------------------- executors

@_returns_status
def aclSetAclOpExecutorRepeatable(executor):
    check_executor(executor).repeatable = True


@_returns_status
def aclDestroyAclOpExecutor(executor):
    ex = check_executor(executor)
    ex.destroyed = True
    ex.plan.launches.clear()


def _rebind(which: str, executor, index, addr) -> None:
    ex = check_executor(executor)
    if not ex.repeatable:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"rebinding an {which} address needs a repeatable executor "
                         f"(aclSetAclOpExecutorRepeatable)")
    ex.rebind(which, int(index), int(addr))


@_returns_status
def aclSetInputTensorAddr(executor, index, tensor, addr):
    _rebind("input", executor, index, addr)


@_returns_status
def aclSetOutputTensorAddr(executor, index, tensor, addr):
    _rebind("output", executor, index, addr)


# ------------------------------------------------------------------------------ operators
# Every module of npu_emu.ops defines its aclnnXxxGetWorkspaceSize / aclnnXxx pair; they are
# gathered here so `aclnn.aclnnExpand...` reads as in CANN.

def _gather_operators() -> None:
    import importlib
    import pkgutil

    from . import ops
    for mod in pkgutil.iter_modules(ops.__path__):
        if mod.name.startswith("_"):
            continue
        module = importlib.import_module(f"{ops.__name__}.{mod.name}")
        for name in dir(module):
            if name.startswith("aclnn"):
                globals()[name] = getattr(module, name)


_gather_operators()
__all__ = [n for n in dir() if n.startswith("acl")]
