"""Cases of the handle constructors and destructors (worker side): aclCreateTensor (and its
getters), aclCreateScalar, aclCreateIntArray / FloatArray / BoolArray / TensorList.

Expected behaviour (docs/views.md#tensors-and-views, issue 9): a valid call returns the handle and the getters give
back what went in; NumPy integers (and tuples, integer arrays for lists) act as the plain
ints; bools, floats, strings, sizes past int64, negative sizes/strides/offsets and views past
the storage return None with a message; a wrong argument count returns None; destroying a
handle twice, or using it after its destroy, is refused with 161002.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from npu_emu import aclnn

from . import spec as S
from .harness import ESCAPED, Block, Ctx, contiguous_strides, host_of
from .values import decode, describe, kind_of

GETTERS = ("aclGetViewShape", "aclGetViewStrides", "aclGetViewOffset", "aclGetStorageShape",
           "aclGetFormat", "aclGetDataType")


def _create(ctx: Ctx, name: str, *args: Any) -> Any:
    out = ctx.call(name, getattr(aclnn, name), *args, result="object")
    return None if out is ESCAPED else out


def _expect_handle(ctx: Ctx, name: str, handle: Any, accept: bool | None, what: str,
                   sort: str | None = None) -> None:
    """accept True: must be a handle; False: must be None; None: either. `sort` (default
    `what`) names the input in the defect's signature, `what` in its detail."""
    sort = sort or what
    if accept is True and handle is None:
        ctx.defect("wrong_code", name, f"{ctx.mut_kind}: refused {sort}",
                   f"refused {what}: {ctx.last_msg[:200]}")
    elif accept is False and handle is not None:
        ctx.defect("wrong_code", name, f"{ctx.mut_kind}: accepted {sort} (expected None)",
                   f"accepted {what}")


def _destroy_twice(ctx: Ctx, name: str, handle: Any) -> None:
    fn = getattr(aclnn, name)
    ctx.expect(name, ctx.call(name, fn, handle), {0}, "destroying a live handle")
    ctx.expect(name, ctx.call(name, fn, handle), {S.INVALID}, "destroying a handle twice")


# ------------------------------------------------------------------------ aclCreateTensor

def create_tensor(ctx: Ctx) -> None:
    a, m = ctx.case["args"], ctx.case.get("mut") or {}
    kind = m.get("kind") or "valid"
    item = S.ITEMSIZE.get(a["data_type"], 1)
    numel = math.prod(a["storage_dims"])
    blk = Block(ctx, numel * item, a["guard"], "tensor data")
    blk.upload()
    ptr = blk.data if a["data"] == "live" else None
    params = {"view_dims": list(a["view_dims"]), "data_type": a["data_type"], "stride": a["stride"],
              "offset": a["offset"], "format": a["format"], "storage_dims": list(a["storage_dims"]),
              "tensor_data": ptr}
    canonical = dict(params)
    accept: bool | None = True
    what = "a valid descriptor"
    if kind == "param":
        p = m["param"]
        value = decode(m["value"], lambda name: np.int64(ptr or blk.data) if name == "live_np" else None)
        if "index" in m:
            lst = list(params[p] if params[p] is not None else contiguous_strides(params["view_dims"]))
            lst[m["index"]] = value
            params[p] = lst
            if p == "stride":
                canonical["stride"] = list(contiguous_strides(params["view_dims"])) if a["stride"] is None else a["stride"]
        else:
            params[p] = value
            if m["value"] == {"$": "obj", "v": "live_np"}:
                canonical["tensor_data"] = ptr or blk.data
        accept = {"equiv": True, "hostile": False, "any": None}[m["class"]]
        what = f"{p}{'[%d]' % m['index'] if 'index' in m else ''}={describe(m['value'])}"
    elif kind == "list":
        p = m["param"]
        tag = m["value"]
        base = params[p] if params[p] is not None else contiguous_strides(params["view_dims"])
        if isinstance(tag, dict) and tag.get("$") == "tuple":
            params[p], accept = tuple(base), True
        elif isinstance(tag, dict) and tag.get("$") == "arr" and tag.get("v") is None:
            params[p], accept = np.array(base, dtype=np.int64), True
        else:
            params[p], accept = decode(tag), False
            if p == "stride" and tag is None:
                # None strides: contiguous, a view that must still fit the storage (the
                # case's own strides may have reached less of it)
                dims = params["view_dims"]
                reach = params["offset"] + sum((n - 1) * st for n, st in
                                               zip(dims, contiguous_strides(dims)))
                accept = any(n == 0 for n in dims) or reach < numel
                canonical["stride"] = None
            elif p == "storage_dims" and tag is None:
                accept = None                 # None storage: the view's shape, or refused
                canonical["storage_dims"] = list(params["view_dims"])
        if accept and p == "stride" and canonical["stride"] is None and tag is not None:
            canonical["stride"] = list(base)
        what = f"{p}={describe(tag)}"
    elif kind == "past_storage":
        shape = params["view_dims"]
        params["offset"] = params["offset"] + math.prod(params["storage_dims"])
        accept = False if not any(n == 0 for n in shape) else None
        what = "a view past its storage"
    elif kind == "negative":
        p = m["param"]
        if p == "offset":
            params["offset"] = -1
        else:
            lst = list(params[p] if params[p] is not None else contiguous_strides(params["view_dims"]))
            if not lst:
                lst = [1]
                if p == "stride":
                    params["view_dims"] = [1]
                    params["storage_dims"] = [1] if params["storage_dims"] == [] else params["storage_dims"]
                elif p == "view_dims":
                    params["stride"] = [1]
            lst[0] = -1
            params[p] = lst
        accept, what = False, f"a negative {p}"
    elif kind == "overflow":
        how = m["how"]
        if how == "numel":
            params.update(view_dims=[2**32, 2**32, 2**32], stride=[0, 0, 0], offset=0, storage_dims=[1])
            accept, what = None, "a view of 2**96 elements over one element"
        elif how == "stride":
            params.update(view_dims=[2], stride=[2**62], offset=0, storage_dims=[2**63 - 1])
            accept, what = None, "a storage of 2**63-1 elements (its bytes fit only in uint64)"
        elif how == "storage":
            params.update(storage_dims=[2**32, 2**32])
            accept, what = False, "storage_dims whose product is past int64"
        else:
            params.update(offset=2**63 - 1)
            # an empty view reaches no element: nothing to check (docs/views.md#tensors-and-views)
            accept = None if any(n == 0 for n in params["view_dims"]) else False
            what = "offset 2**63-1"
    elif kind == "arg_count":
        args = list(params.values())
        args = args[:m["delta"]] if m["delta"] < 0 else args + [None] * m["delta"]
        h = _create(ctx, "aclCreateTensor", *args)
        _expect_handle(ctx, "aclCreateTensor", h, False, f"{len(args)} arguments")
        return
    h = _create(ctx, "aclCreateTensor", *params.values())
    _expect_handle(ctx, "aclCreateTensor", h, accept, what)
    if h is None:
        return
    if accept is not False:
        # an ambiguous value that is accepted must act as the plain int
        _check_getters(ctx, h, canonical if kind in ("valid", "param", "list", "destroyed_use",
                                                     "double_destroy") else None)
    if kind == "destroyed_use":
        ctx.expect("aclDestroyTensor", ctx.call("aclDestroyTensor", aclnn.aclDestroyTensor, h), {0}, "destroy")
        out = ctx.call(m["getter"], getattr(aclnn, m["getter"]), h, result="pair")
        if out is not ESCAPED:
            ctx.expect(m["getter"], ctx.last_code, {S.INVALID}, "a getter on a destroyed tensor")
    elif kind == "double_destroy":
        _destroy_twice(ctx, "aclDestroyTensor", h)
    else:
        ctx.expect("aclDestroyTensor", ctx.call("aclDestroyTensor", aclnn.aclDestroyTensor, h), {0}, "destroy")


def _check_getters(ctx: Ctx, h: Any, want: dict | None) -> None:
    values = {}
    for g in GETTERS:
        out = ctx.call(g, getattr(aclnn, g), h, result="pair")
        if out is ESCAPED or not isinstance(out, tuple):
            return
        ctx.expect(g, ctx.last_code, {0}, "a getter on a live tensor")
        values[g] = out[0]
    if want is None:
        return
    strides = want["stride"] if want["stride"] is not None else contiguous_strides(want["view_dims"])
    expected = {"aclGetViewShape": [int(v) for v in want["view_dims"]],
                "aclGetViewStrides": [int(v) for v in strides],
                "aclGetViewOffset": int(want["offset"]),
                "aclGetStorageShape": [int(v) for v in want["storage_dims"]],
                "aclGetFormat": int(want["format"]), "aclGetDataType": int(want["data_type"])}
    ctx.values_compared = True
    for g, v in expected.items():
        got = values.get(g)
        plain = [int(x) for x in got] if isinstance(got, (list, tuple)) else got
        if plain != v or (isinstance(got, (list, tuple)) and any(type(x) is not int for x in got)):
            ctx.defect("wrong_result", g, f"{ctx.mut_kind}: getter disagrees with aclCreateTensor's input",
                       f"{g} -> {got!r}, want {v!r}")


# ------------------------------------------------------------------------ aclCreateScalar

INT_RANGE = {S.S8: (-128, 127), S.U8: (0, 255), S.S16: (-2**15, 2**15 - 1), S.U16: (0, 2**16 - 1),
             S.S32: (-2**31, 2**31 - 1), S.U32: (0, 2**32 - 1), S.S64: (-2**63, 2**63 - 1),
             S.U64: (0, 2**64 - 1)}


def _expected_scalar(value: Any, d: int) -> np.ndarray:
    host = host_of(d)
    v = np.asarray(value)
    if d in S.INTS:
        return np.asarray(int(v.item() if v.ndim == 0 else v), dtype=host)
    with np.errstate(all="ignore"):
        return np.asarray(v).astype(host)


def create_scalar(ctx: Ctx) -> None:
    a, m = ctx.case["args"], ctx.case.get("mut") or {}
    d, cls = a["dtype"], a["class"]
    value = decode(a["value"])
    kind = m.get("kind")
    ctx.mut_kind = f"{cls} value" if kind != "dtype" else "hostile dtype"
    if kind == "arg_count":
        args = [value, d][:m["delta"]] if m["delta"] < 0 else [value, d, None]
        _expect_handle(ctx, "aclCreateScalar", _create(ctx, "aclCreateScalar", *args), False,
                       f"{len(args)} arguments")
        return
    dtype_arg = decode(m["value"]) if kind == "dtype" else d
    s = _create(ctx, "aclCreateScalar", value, dtype_arg)
    accept = False if kind == "dtype" else {"valid": True, "equiv": True, "hostile": False, "any": None}[cls]
    _expect_handle(ctx, "aclCreateScalar", s, accept,
                   f"value {describe(a['value'])} for dtype {d}" + (f", dtype={describe(m['value'])}" if kind == "dtype" else ""),
                   f"a {kind_of(a['value'])} for dtype {d}" + (f", dtype {kind_of(m['value'])}" if kind == "dtype" else ""))
    if s is None:
        return
    if accept:
        held = getattr(s, "value", None)
        want = _expected_scalar(value, d)
        try:
            got = np.asarray(held).astype(want.dtype)
            same = (got.tobytes() == want.tobytes()) or (
                want.dtype.kind in "fc" and bool(np.all(np.isnan(got) == np.isnan(want))) and bool(np.isnan(want).all()))
        except (TypeError, ValueError):
            same = False
        ctx.values_compared = True
        if not same:
            ctx.defect("wrong_result", "aclCreateScalar", f"{ctx.mut_kind}: held value differs ({cls})",
                       f"value {describe(a['value'])} dtype {d}: holds {held!r}, want {want!r}")
    if kind == "double_destroy":
        _destroy_twice(ctx, "aclDestroyScalar", s)
    else:
        ctx.expect("aclDestroyScalar", ctx.call("aclDestroyScalar", aclnn.aclDestroyScalar, s), {0}, "destroy")


# ------------------------------------------------------------------------ arrays, lists

ARRAYS = {"aclCreateIntArray": "aclDestroyIntArray", "aclCreateFloatArray": "aclDestroyFloatArray",
          "aclCreateBoolArray": "aclDestroyBoolArray", "aclCreateTensorList": "aclDestroyTensorList"}


def create_array(ctx: Ctx) -> None:
    entry = ctx.case["entry"]
    a, m = ctx.case["args"], ctx.case.get("mut") or {}
    destroy = ARRAYS[entry]
    tensors: list = []
    spare: list = []

    def objects(name: str) -> Any:
        if name in ("tensor", "destroyed_tensor"):
            blk = Block(ctx, 4, 64, "list tensor")
            blk.upload()
            t = aclnn.aclCreateTensor([1], S.F32, None, 0, S.ND, [1], blk.data)
            if name == "destroyed_tensor":
                aclnn.aclDestroyTensor(t)
                spare.append(t)
            else:
                tensors.append(t)
            return t
        if name == "scalar":
            s = aclnn.aclCreateScalar(1.0, S.F32)
            spare.append(s)
            return s
        raise KeyError(name)

    value = decode(a["value"], objects)
    kind = m.get("kind")
    ctx.mut_kind = f"{a['class']} value"
    if kind == "arg_count":
        args = [] if m["delta"] < 0 else [value, None]
        _expect_handle(ctx, entry, _create(ctx, entry, *args), False, f"{len(args)} arguments")
        _cleanup_tensors(ctx, tensors)
        return
    h = _create(ctx, entry, value)
    accept = {"valid": True, "equiv": True, "hostile": False}[a["class"]]
    _expect_handle(ctx, entry, h, accept, f"value={describe(a['value'])}", f"a {kind_of(a['value'])}")
    if h is not None and accept:
        _check_items(ctx, entry, h, a, tensors)
    if h is not None:
        if kind == "double_destroy":
            _destroy_twice(ctx, destroy, h)
        elif kind == "wrong_destroy":
            other = "aclDestroyScalar" if entry != "aclCreateTensorList" else "aclDestroyIntArray"
            ctx.expect(other, ctx.call(other, getattr(aclnn, other), h), {S.INVALID}, f"{other} on an {entry[9:]}")
            ctx.expect(destroy, ctx.call(destroy, getattr(aclnn, destroy), h), {0}, "destroy")
        else:
            ctx.expect(destroy, ctx.call(destroy, getattr(aclnn, destroy), h), {0}, "destroy")
    _cleanup_tensors(ctx, tensors)


def _check_items(ctx: Ctx, entry: str, h: Any, a: dict, tensors: list) -> None:
    try:
        got = list(h)
    except TypeError:
        return                                # an opaque handle: nothing to compare
    ctx.values_compared = True
    if entry == "aclCreateTensorList":
        ok = len(got) == len(tensors) and all(x is y for x, y in zip(got, tensors))
    elif entry == "aclCreateFloatArray":
        value = decode(a["value"])
        want = [float(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
        ok = len(got) == len(want) and all(float(x) == y or (np.isnan(float(x)) and np.isnan(y))
                                           for x, y in zip(got, want))
    else:
        want = a["items"]
        ok = [int(x) if entry == "aclCreateIntArray" else bool(x) for x in got] == list(want)
    if not ok:
        ctx.defect("wrong_result", entry, f"{ctx.mut_kind}: items differ from the input ({kind_of(a['value'])})",
                   f"{entry}({describe(a['value'])}) holds {got!r}")


def _cleanup_tensors(ctx: Ctx, tensors: list) -> None:
    for t in tensors:
        ctx.expect("aclDestroyTensor", ctx.call("aclDestroyTensor", aclnn.aclDestroyTensor, t), {0}, "destroy")
