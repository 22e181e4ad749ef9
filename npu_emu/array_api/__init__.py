"""npu_emu.array_api: an array API (2024.12) namespace over the NPU's semantics.

    import npu_emu.array_api as xp
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=xp.float16)
    y = xp.expand(x[:1], (3, 2)) + 1          # aclnnExpand, then aclnnAdd
    np.asarray(y)                             # a view of the memory on the cpu backend

Arrays are aclTensor views over pool memory (or memory shared with NumPy, PyTorch, CuPy...
through DLPack and the array interfaces, without copies). Operations are eager and raise; the
NPU's operators run them through the same operator core as npu_emu.aclnn, with promotion by
the "array_api" rule set (docs/array-api.md). Modules follow the standard's chapters, as
array-api-strict's do.
"""
from __future__ import annotations

import math as _math

from . import _elementwise
from ._engine.array import Array, api_version as _api_version, set_api_version
from ._creation import (arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like,
                        linspace, meshgrid, ones, ones_like, tril, triu, zeros, zeros_like)
from ._data_type_functions import astype, can_cast, finfo, iinfo, isdtype, result_type
from ._engine.device import Device
from ._engine.dtypes import (DType, bfloat16, bool, complex64, complex128,  # noqa: A004
                             float8_e4m3fn, float8_e5m2, float16, float32, float64, hifloat8,
                             int8, int16, int32, int64, set_default_dtypes, uint8, uint16,
                             uint32, uint64)
from ._elementwise import (abs, acos, acosh, add, asin, asinh, atan, atan2, atanh,  # noqa: A004
                           bitwise_and, bitwise_invert, bitwise_left_shift, bitwise_or,
                           bitwise_right_shift, bitwise_xor, ceil, conj, copysign, cos, cosh,
                           divide, equal, exp, expm1, floor, floor_divide, greater, greater_equal,
                           hypot, imag, isfinite, isinf, isnan, less, less_equal, log, log10, log1p,
                           log2, logaddexp, logical_and, logical_not, logical_or, logical_xor,
                           maximum, minimum, multiply, negative, nextafter, not_equal, positive,
                           pow, real, reciprocal, remainder, round, sign, signbit, sin, sinh, sqrt,
                           square, subtract, tan, tanh, trunc)
from ._indexing import take, take_along_axis
from ._info import __array_namespace_info__
from ._linalg import matmul, matrix_transpose, tensordot, vecdot
from ._manipulation import (broadcast_arrays, broadcast_shapes, broadcast_to, clip, concat,
                            expand_dims, flip, moveaxis, permute_dims, repeat, reshape, roll,
                            squeeze, stack, tile, unstack)
from ._npu import as_strided, expand, format_cast, set_soc, soc, view_copy
from ._searching import argmax, argmin, count_nonzero, nonzero, searchsorted, where
from ._set_functions import isin, unique_all, unique_counts, unique_inverse, unique_values
from ._sorting import argsort, sort
from ._statistical import (cumulative_prod, cumulative_sum, max, mean, min, prod, std,  # noqa: A004
                           sum, var)
from ._utility import all, any, diff  # noqa: A004
from . import fft, linalg  # the extensions (submodules: xp.fft, xp.linalg)



def __getattr__(name: str) -> object:
    # __array_api_version__ follows the standard selected (set_api_version).
    if name == "__array_api_version__":
        return _api_version()
    raise AttributeError(f"module 'npu_emu.array_api' has no attribute {name!r}")


e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None

__all__ = [
    "__array_api_version__", "__array_namespace_info__", "Array", "DType", "Device",
    # dtypes
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
    "float16", "bfloat16", "float8_e5m2", "float8_e4m3fn", "hifloat8",
    # constants
    "e", "inf", "nan", "newaxis", "pi",
    # creation
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
    "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    # data type functions
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    # elementwise
    *_elementwise.__all__,
    # indexing
    "take", "take_along_axis",
    # linear algebra
    "matmul", "matrix_transpose", "tensordot", "vecdot",
    # manipulation
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "clip", "concat", "expand_dims",
    "flip", "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile",
    "unstack",
    # searching
    "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
    # sets
    "isin", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    # sorting
    "argsort", "sort",
    # statistical
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var",
    # utility
    "all", "any", "diff",
    # the extensions
    "fft", "linalg",
    # the NPU's operations
    "as_strided", "expand", "format_cast", "set_soc", "soc", "view_copy",
    # the switches: default floating dtypes, the standard's version
    "set_default_dtypes", "set_api_version",
]
