"""The C-style aclnn facade (docs/c-api.md): CANN's names, output parameters returned as values
with the status code last, and no exceptions: a failing call returns its code (or None where
C returns a null pointer) and keeps the message for `aclGetRecentErrMsg()`.

Every operator is one row of OPERATORS below; its `aclnnXxxGetWorkspaceSize` /
`aclnnXxx` pair is built from the row, with CANN's parameter names as the signature.
"""
from __future__ import annotations

import inspect
import operator
from typing import Any, Sequence

import numpy as np

from . import _state, check, status
from ._capi import c_function, resolve_stream
from ._params import as_pointer
from .dtypes import aclDataType  # noqa: F401 (CANN's spelling: aclnn.aclDataType)
from .executor import Executor
from .formats import aclFormat  # noqa: F401
from .ops import add, cast, expand, format_cast, inplace_copy, matmul, mul
from .ops._core import OpDef, cached_plan, current_context, prepare
from .ops._checks import check_type
from .status import ACLNN, AclnnError, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_RUNTIME_ERROR
from .tensor import (BoolArray, FloatArray, IntArray, Scalar, Tensor, TensorList, check_live,
                     make_int_array, make_scalar, make_tensor)

# Every operator of the C-style layer: aclnn name -> its definition in npu_emu/ops.
OPERATORS: dict[str, OpDef] = {
    "aclnnExpand": expand.EXPAND,
    "aclnnInplaceCopy": inplace_copy.INPLACE_COPY,
    "aclnnCast": cast.CAST,
    "aclnnAdd": add.ADD,
    "aclnnInplaceAdd": add.INPLACE_ADD,
    "aclnnMul": mul.MUL,
    "aclnnInplaceMul": mul.INPLACE_MUL,
    "aclnnNpuFormatCast": format_cast.NPU_FORMAT_CAST,
    "aclnnMatmul": matmul.MATMUL,
    "aclnnCubeMatmul": matmul.CUBE_MATMUL,
}


def aclGetRecentErrMsg() -> str:
    """The messages of the failed calls on this thread since the last read, latest first
    ("" if none); reading clears them, as in CANN."""
    return status.recent_error()


# ------------------------------------------------------------------------- operators

def _phase_one(aclnn_name: str, op: OpDef):
    params = [inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in op.params]
    sig = inspect.Signature(params, return_annotation=tuple[int, Executor | None, int])
    fname = aclnn_name + "GetWorkspaceSize"

    # The arguments in the plan key's order (ops._core.canonical: inputs, outputs,
    # attributes), picked from CANN's order by one C call.
    position = {p.name: i for i, p in enumerate(op.params)}
    attr_names = op.attr_names
    pick = _picker([position[n] for n in (*op.input_names, *op.output_names, *attr_names)])
    n_in, n_out = op.arity
    n_tensors = n_in + n_out
    require = _state.require_initialized

    def get_workspace_size(*args: Any) -> tuple[int, Executor]:
        require(fname, ACLNN_ERR_RUNTIME_ERROR)
        ctx = current_context()
        picked = pick(args)
        plan = cached_plan(op, picked, ctx)          # a call seen before
        if plan is None:
            plan = prepare(op, picked[:n_in], picked[n_in:n_tensors],
                           dict(zip(attr_names, picked[n_tensors:])), ctx)
        ex = Executor(op, picked, ctx, plan)
        if check.ON:
            check.hook.created(ex)
        return plan.workspace_size, ex

    get_workspace_size.__name__ = get_workspace_size.__qualname__ = fname
    get_workspace_size.__doc__ = _doc(aclnn_name, op)
    return c_function(ACLNN, failure=(0, None), n_values=2, name=fname, signature=sig)(get_workspace_size)


def _picker(at: list[int]):
    """args -> the tuple of args at these positions (one C call: a comprehension would be a
    function call of its own, and a tiny call is a few microseconds in all)."""
    if not at:
        return lambda args: ()
    if len(at) == 1:
        i = at[0]
        return lambda args: (args[i],)
    return operator.itemgetter(*at)


def _phase_two(aclnn_name: str):
    require = _state.require_initialized

    def launch(workspace, workspaceSize, executor, stream) -> None:
        require(aclnn_name, ACLNN_ERR_RUNTIME_ERROR)
        if check.ON:
            check.hook.phase_two(aclnn_name, executor, workspace, workspaceSize, stream)
        ex = executor if executor.__class__ is Executor else _executor(executor)
        ex.run(workspace, workspaceSize, None if stream is None else resolve_stream(stream))

    launch.__name__ = launch.__qualname__ = aclnn_name
    launch.__doc__ = (f"{aclnn_name}(workspace, workspaceSize, executor, stream) -> ret\n\n"
                      f"Phase two: enqueue the executor of {aclnn_name}GetWorkspaceSize on "
                      f"`stream` (None: the default stream) with `workspace` (device memory of "
                      f"at least the workspace size it returned, or None when that is 0).")
    return c_function(ACLNN, n_values=0, internal=ACLNN_ERR_RUNTIME_ERROR)(launch)


def _doc(aclnn_name: str, op: OpDef) -> str:
    args = ", ".join(p.name for p in op.params)
    lines = [f"{aclnn_name}GetWorkspaceSize({args}) -> (workspace_size, executor, ret)", "",
             op.summary, "", "Parameters (CANN's names and order):"]
    roles = {"in": "input", "out": "output", "inout": "input and output", "attr": "attribute"}
    lines += [f"  {p.name}: {p.ctype} ({roles[p.role]})" for p in op.params]
    lines += ["", f"Returns (workspace_size, executor, ret): ret is 0 or the status code "
              f"(161001 null, 161002 invalid, ...) with the reason in aclGetRecentErrMsg(). "
              f"Run it with {aclnn_name}(workspace, workspace_size, executor, stream)."]
    return "\n".join(lines)


def _executor(executor: object) -> Executor:
    """The executor argument of phase two, type-checked (Executor.run checks it is live)."""
    if executor is None:
        raise status.nullptr("aclOpExecutor", "executor")
    if not isinstance(executor, Executor):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"executor is a {type(executor).__name__}, expected an aclOpExecutor "
                         f"from an aclnnXxxGetWorkspaceSize call", TypeError)
    return executor


for _name, _op in OPERATORS.items():
    globals()[_name + "GetWorkspaceSize"] = _phase_one(_name, _op)
    globals()[_name] = _phase_two(_name)


@c_function(ACLNN, n_values=2, failure=(None, None))
def aclnnNpuFormatCastCalculateSizeAndFormat(srcTensor, dstFormat, additionalDtype):
    """(dst_shape, actual_format, ret): the storage shape and actual aclFormat of
    srcTensor converted to dstFormat (additionalDtype -1: srcTensor's dtype), for
    aclCreateTensor of aclnnNpuFormatCast's destination. A pure shape computation: it
    needs no initialized runtime, as aclCreateTensor does not."""
    shape, actual = format_cast.calculate_size_and_format(srcTensor, dstFormat, additionalDtype,
                                                          current_context())
    return shape, actual


# -------------------------------------------------------------------------- executors

@c_function(ACLNN, n_values=0)
def aclSetAclOpExecutorRepeatable(executor):
    """Let the executor run more than once (and have its addresses rebound)."""
    ex = _executor(executor)
    ex.check_usable()
    ex.repeatable = True


@c_function(ACLNN, n_values=0)
def aclDestroyAclOpExecutor(executor):
    """End an executor (a repeatable one, or one that never ran); using it later is refused."""
    ex = _executor(executor)
    check_live(ex, "executor")
    if ex.runs and not ex.repeatable:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         "the executor already ran once and was released by its phase two; only "
                         "a repeatable executor (or one that never ran) is destroyed")
    ex.destroy()
    if check.ON:
        check.hook.gone(ex)


@c_function(ACLNN, n_values=0)
def aclSetInputTensorAddr(executor, index, tensor, addr):
    """Rebind input `index` of a repeatable executor to device memory at `addr`."""
    _executor(executor).rebind("input", index, tensor, addr)


@c_function(ACLNN, n_values=0)
def aclSetOutputTensorAddr(executor, index, tensor, addr):
    """Rebind output `index` of a repeatable executor to device memory at `addr`."""
    _executor(executor).rebind("output", index, tensor, addr)


# ------------------------------------------------------------------- tensors and friends

@c_function(ACLNN)
def aclCreateTensor(viewDims, dataType, stride, offset, format, storageDims, tensorData):
    """aclCreateTensor(viewDims, dataType, stride, offset, format, storageDims, tensorData)
    -> aclTensor or None.

    Python passes the arrays whole (their lengths are implied). `stride` None means
    contiguous. `tensorData` is a device pointer (an int from acl.rt.malloc) or None."""
    data = as_pointer(tensorData, "tensorData")
    if check.ON:
        check.hook.device_pointer(data, "tensorData", "aclCreateTensor")
    return _created(make_tensor(viewDims, dataType, stride, offset, format, storageDims, data))


def _created(obj):
    """A handle the program must destroy (the sanitizer's leak records)."""
    if check.ON:
        check.hook.created(obj)
    return obj


def _destroyer(cls: type, what: str):
    def destroy(obj):
        if obj is None:       # destroying null is fine, as in CANN
            return
        check_type(obj, cls, what)
        obj.mark_destroyed()
        if check.ON:
            check.hook.gone(obj)
    destroy.__name__ = f"aclDestroy{cls.KIND[3:]}"
    destroy.__doc__ = (f"End the {cls.KIND}; using or destroying it again is refused (161002). "
                       f"None is accepted, as in CANN.")
    return c_function(ACLNN, n_values=0)(destroy)


def _getter(attr: str):
    def get(tensor):
        if tensor is None:
            raise status.nullptr("aclTensor", "tensor")
        check_type(tensor, Tensor, "tensor")
        value = getattr(tensor, attr)
        return list(value) if isinstance(value, tuple) else value
    name = {"view_shape": "aclGetViewShape", "view_strides": "aclGetViewStrides",
            "storage_offset": "aclGetViewOffset", "storage_shape": "aclGetStorageShape",
            "format": "aclGetFormat", "dtype": "aclGetDataType"}[attr]
    get.__name__ = name
    get.__doc__ = f"{name}(tensor) -> (value, ret): the tensor's {attr}."
    return c_function(ACLNN, n_values=1)(get)


aclDestroyTensor = _destroyer(Tensor, "tensor")
aclGetViewShape = _getter("view_shape")
aclGetViewStrides = _getter("view_strides")
aclGetViewOffset = _getter("storage_offset")
aclGetStorageShape = _getter("storage_shape")
aclGetFormat = _getter("format")
aclGetDataType = _getter("dtype")


@c_function(ACLNN)
def aclCreateIntArray(value):
    """aclCreateIntArray(value) -> aclIntArray or None (a sequence of ints in int64)."""
    return _created(make_int_array(value))


@c_function(ACLNN)
def aclCreateScalar(value, dataType):
    """aclCreateScalar(value, dataType) -> aclScalar or None. `value` is a number (Python or
    NumPy, or a 0-d array, C's `&value`) that `dataType` can hold: out-of-range values are
    refused, never wrapped."""
    return _created(make_scalar(value, dataType))


def _sequence(value: object, name: str, kind: str) -> list:
    if value is None:
        raise status.nullptr(kind, name)
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (str, bytes, bytearray)) or not isinstance(value, Sequence):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"{name}={value!r} is not a sequence", TypeError)
    return list(value)


@c_function(ACLNN)
def aclCreateFloatArray(value):
    """aclCreateFloatArray(value) -> aclFloatArray or None (a sequence of real numbers)."""
    items = _sequence(value, "value", "aclFloatArray")
    for i, v in enumerate(items):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.floating, np.integer)):
            raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"value[{i}]={v!r} is not a real number",
                             TypeError)
    return _created(FloatArray(tuple(float(v) for v in items)))


@c_function(ACLNN)
def aclCreateBoolArray(value):
    """aclCreateBoolArray(value) -> aclBoolArray or None (a sequence of bools)."""
    items = _sequence(value, "value", "aclBoolArray")
    for i, v in enumerate(items):
        if not isinstance(v, (bool, np.bool_)):
            raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"value[{i}]={v!r} is not a bool", TypeError)
    return _created(BoolArray(tuple(bool(v) for v in items)))


@c_function(ACLNN)
def aclCreateTensorList(tensors):
    """aclCreateTensorList(tensors) -> aclTensorList or None (a sequence of live aclTensors)."""
    items = _sequence(tensors, "tensors", "aclTensorList")
    for i, t in enumerate(items):
        if t is None:
            raise status.nullptr("aclTensor", f"tensors[{i}]")
        check_type(t, Tensor, f"tensors[{i}]")
    return _created(TensorList(tuple(items)))


aclDestroyIntArray = _destroyer(IntArray, "array")
aclDestroyScalar = _destroyer(Scalar, "scalar")
aclDestroyFloatArray = _destroyer(FloatArray, "array")
aclDestroyBoolArray = _destroyer(BoolArray, "array")
aclDestroyTensorList = _destroyer(TensorList, "tensors")

__all__ = [n for n in dir() if n.startswith("acl") and not n.startswith("aclDataType")] + [
    "aclDataType", "aclFormat", "OPERATORS"]
del _name, _op
