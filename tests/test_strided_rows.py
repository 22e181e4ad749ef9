"""Rows whose output is contiguous and whose operands step through memory (x[::2, ::2] + 1,
exp(x.T[::2]), atan2 of every other column): the elementwise kernels (aclnnAdd / aclnnMul)
and the ufunc family run them as rows, the split math functions gathering the strided
operands into their L1 chunks and running fast() over them. The bits are those of the same
call on contiguous copies of the operands (whose kernels the other tests hold to the
references): rare lanes (NaN, infinities, huge arguments) included, every step, a scalar
operand, fp16 through its float32 staging."""
from __future__ import annotations

import numpy as np
import pytest

import npu_emu.array_api as xp


def _data(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 3).astype(np.float64)
    flat = a.reshape(-1)
    flat[::97] = np.nan                    # rare lanes of the split functions
    flat[5::89] = np.inf
    flat[7::83] = -np.inf
    flat[11::79] = 1e30
    flat[13::71] = -0.0
    with np.errstate(over="ignore"):      # 1e30 is inf in float16: a rare lane all the same
        return a.astype(dtype)


VIEWS = {"steps": lambda a: a[::2, ::3], "columns": lambda a: a[:, ::2],
         "transposed steps": lambda a: a.T[::2], "reversed columns": lambda a: a[:, ::-2]}
UNARY = ["exp", "expm1", "log", "tan", "atan", "tanh", "sqrt", "abs", "negative", "floor",
         "isnan", "sign"]
BINARY = ["atan2", "pow", "logaddexp", "maximum", "hypot", "divide", "less", "copysign"]


def _same_bits(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes(), what


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_strided_rows_give_the_contiguous_bits(cpu_backend, dtype):
    a = _data(dtype, (300, 260), 1)
    b = _data(dtype, (300, 260), 2)
    x, y = xp.asarray(a), xp.asarray(b)
    with np.errstate(all="ignore"):
        for name, view in VIEWS.items():
            vx, vy = view(x), view(y)
            cx, cy = xp.asarray(np.ascontiguousarray(view(a))), xp.asarray(np.ascontiguousarray(view(b)))
            for f in UNARY:
                _same_bits(getattr(xp, f)(vx), getattr(xp, f)(cx), f"{f} {name}")
            for f in BINARY:
                _same_bits(getattr(xp, f)(vx, vy), getattr(xp, f)(cx, cy), f"{f} {name}")
                _same_bits(getattr(xp, f)(vx, 1.5), getattr(xp, f)(cx, 1.5), f"{f} {name} scalar")
                _same_bits(getattr(xp, f)(0.5, vy), getattr(xp, f)(0.5, cy), f"{f} scalar {name}")
            for op in ("__add__", "__mul__", "__sub__"):       # aclnnAdd / aclnnMul rows
                _same_bits(getattr(vx, op)(vy), getattr(cx, op)(cy), f"{op} {name}")
                _same_bits(getattr(vx, op)(2.0), getattr(cx, op)(2.0), f"{op} {name} scalar")


def test_strided_rows_of_integers_and_mixed_kinds(cpu_backend):
    a = np.arange(300 * 260, dtype=np.int32).reshape(300, 260) % 1000 - 500
    x = xp.asarray(a)
    f = xp.asarray(_data(np.float32, (300, 260), 3))
    for name, view in VIEWS.items():
        c = xp.asarray(np.ascontiguousarray(view(a)))
        _same_bits(view(x) + 7, c + 7, f"int add {name}")
        _same_bits(view(x) * view(x), c * c, f"int mul {name}")
        _same_bits(xp.abs(view(x)), xp.abs(c), f"int abs {name}")
        cf = xp.asarray(np.ascontiguousarray(view(np.asarray(f))))
        _same_bits(view(x) + view(f), c + cf, f"int + float {name}")
    np.testing.assert_array_equal(np.asarray(x[::2, ::3] + 7), a[::2, ::3] + 7)
