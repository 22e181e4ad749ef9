"""The parameter checks operators share, as small named steps (CANN's CheckNotNull,
CheckDtypeValid, CheckShape, CheckMaxDimension...). Each raises AclnnError with CANN's
status code and message template (docs/two-phase.md#the-two-phase-interface); an operator calls them in its documented order.
"""
from __future__ import annotations

import logging
from typing import Iterable, Sequence

from ..arch import SocInfo
from ..dtypes import aclDataType, dt_name
from ..formats import PUBLIC_FORMAT_RANKS, aclFormat, fmt_name, is_private
from ..status import AclnnError, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, nullptr
from ..tensor import IntArray, Scalar, Tensor, check_live

MAX_DIMS = 8


def check_not_null(value: object, name: str, kind: str = "aclTensor") -> None:
    if value is None:
        raise nullptr(kind, name)


def check_type(value: object, cls: type, name: str) -> None:
    """`value` is a live object of the C type `cls` (not another type, not destroyed)."""
    if not isinstance(value, cls):
        cname = getattr(cls, "KIND", cls.__name__)
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Expected a value of type [{cname}] for argument [{name}] but instead "
                         f"found {type(value).__name__}.", TypeError)
    check_live(value, name)


def check_tensors(named: Iterable[tuple[object, str]]) -> None:
    """CANN's CheckNotNull for every tensor first, then each one's type."""
    named = list(named)
    for t, name in named:
        check_not_null(t, name)
    for t, name in named:
        check_type(t, Tensor, name)


def dtype_list(dtypes: Iterable[aclDataType]) -> str:
    return "[" + ", ".join(dt_name(d) for d in sorted(dtypes)) + "]"


def check_dtype_in(t: Tensor, name: str, support: Iterable[aclDataType]) -> None:
    if not isinstance(support, frozenset):
        support = frozenset(support)
    if t.dtype not in support:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Tensor {name} not implemented for {dt_name(t.dtype)}, should be in "
                         f"dtype support list {dtype_list(support)}.", TypeError)


def check_same_dtype(a: Tensor, b: Tensor, name_a: str, name_b: str) -> None:
    if a.dtype != b.dtype:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Expected both tensors to have same dtype, but found {name_a} "
                         f"{dt_name(a.dtype)} and {name_b} {dt_name(b.dtype)}.", TypeError)


def check_max_dim(t: Tensor, name: str, limit: int = MAX_DIMS) -> None:
    if t.dim > limit:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"The {name} tensor cannot be larger than {limit} dimensions.")


def check_nd_format(t: Tensor, name: str) -> None:
    """ND, or a public format whose rank matches (treated as ND); private formats refused."""
    if is_private(t.format):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Tensor {name} has private format {fmt_name(t.format)}; this operator "
                         f"takes ND (or NCHW/NHWC/HWCN/NCDHW/NDHWC/NCL/NC of matching rank); "
                         f"convert it with aclnnNpuFormatCast first.")
    want = PUBLIC_FORMAT_RANKS.get(t.format, -1)
    if want == -1:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Tensor {name} has format {fmt_name(t.format)}, which this operator "
                         f"does not support.")
    if want is not None and want != t.dim:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Tensor {name} has format {fmt_name(t.format)} but {t.dim} dimensions; "
                         f"{fmt_name(t.format)} needs {want}.")


def check_private_offset(t: Tensor, name: str) -> None:
    """A private layout starts at its storage's first element: the kernels read and write the
    layout's whole storage from the data pointer, so an offset would reach past it."""
    if t.storage_offset:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"Tensor {name} is in a private layout with storage_offset "
                         f"{t.storage_offset}; a private layout's storage must start at the "
                         f"data pointer (storage_offset 0).")


def broadcast_shapes(a: Sequence[int], b: Sequence[int], name_a: str = "self",
                     name_b: str = "other") -> tuple[int, ...]:
    """docs/views.md#broadcasting: right-aligned; a 1 stretches; otherwise sizes must match."""
    if type(a) is tuple and a == b:       # equal shapes (the common case) broadcast to themselves
        return a
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + tuple(a)
    pb = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(pa, pb):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                             f"The size of tensor {name_a} {shape_str(a)} must match the size of "
                             f"tensor {name_b} {shape_str(b)}.")
    return tuple(out)


def ranges_meet(a0: int, a_bytes: int, b0: int, b_bytes: int) -> bool:
    """Whether two byte ranges (start, length) share a byte."""
    return a_bytes > 0 and b_bytes > 0 and a0 < b0 + b_bytes and b0 < a0 + a_bytes


def overlaps(a: Tensor, b: Tensor) -> bool:
    """Whether the byte ranges two views span intersect (conservative: spans, not elements)."""
    ea, eb = a.extent, b.extent
    if ea == 0 or eb == 0:
        return False
    return ranges_meet(a.data + a.storage_offset * a.itemsize, (ea - a.storage_offset) * a.itemsize,
                       b.data + b.storage_offset * b.itemsize, (eb - b.storage_offset) * b.itemsize)


def shape_str(shape: Sequence[int]) -> str:
    """CANN's op::ToString of a shape: [2,3]."""
    return "[" + ",".join(str(int(n)) for n in shape) + "]"


def check_soc_supports(op: str, soc: SocInfo) -> None:
    if not soc.supports(op):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"aclnn{op} is not supported on {soc.name} ({soc.products}).")


def warn_if_nz(t: Tensor, name: str) -> None:
    """CANN logs a warning (and goes on) for FRACTAL_NZ inputs of ND operators."""
    if t.format == aclFormat.ACL_FORMAT_FRACTAL_NZ:
        logging.getLogger("npu_emu").warning(
            "Format of input %s is [%s], this format may lead to precision failure",
            name, fmt_name(t.format))
