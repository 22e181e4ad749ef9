"""The select family (kernels_cuda/select.cuh, npu_emu/kernels/select.py): where(condition,
x1, x2) moves the chosen element's bits (NaN payloads and signed zeros included), for every
dtype width, broadcast, strided and reversed views, Python scalar branches, the repeated
call's short way, and the GPU's launch geometry run by the cpu backend. Reference: NumPy's
np.where, compared bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu.array_api._engine.kernel import clear_family_plans
from npu_emu.kernels import select as S
from npu_emu.kernels.copy import View

from npu_emu.runtime import cuda
from npu_emu.runtime.base import row_geometry

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.float16, np.int32, np.float32,
          np.int64, np.float64, np.complex64, np.complex128]
SHAPES = [((7,), (7,), (7,)), ((3, 1), (1, 4), (4,)), ((2, 3, 4), (4,), ()),
          ((), (5,), (1,)), ((3000,), (3000,), (3000,)), ((0, 3), (3,), (0, 1))]


def _values(dt, rng, shape) -> np.ndarray:
    """Values of dtype dt with the bits a select must keep: NaNs with payloads, -0.0, inf."""
    if dt is np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    real = np.float64 if dt is np.complex128 else np.float32 if dt is np.complex64 else dt
    special = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5], real)
    if real is np.float32:
        special[0] = np.uint32(0x7FC12345).view(np.float32)   # a payload
    v = (rng.standard_normal(shape) * 100).astype(real)
    flat = v.reshape(-1)
    if flat.size:
        flat[rng.integers(0, flat.size, min(flat.size, 6))] = special[:min(flat.size, 6)]
    if dt in (np.complex64, np.complex128):
        with np.errstate(invalid="ignore"):
            return (v + 1j * np.flip(v)).astype(dt)
    return v


def _same_bits(got, want) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(np.ascontiguousarray(got).view(np.uint8),
                          np.ascontiguousarray(want).view(np.uint8))


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_where_moves_the_chosen_elements_bits(dt):
    rng = np.random.default_rng(np.dtype(dt).num)
    for cs, s1, s2 in SHAPES:
        c, a, b = rng.random(cs) > 0.5, _values(dt, rng, s1), _values(dt, rng, s2)
        for _ in range(2):          # the full path, then the short way
            _same_bits(xp.where(xp.asarray(c), xp.asarray(a), xp.asarray(b)), np.where(c, a, b))


def test_strided_and_reversed_views():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((6, 10))
    c = rng.random((6, 10)) > 0.3
    xa, xc = xp.asarray(a), xp.asarray(c)
    cases = [(np.s_[::-1, ::2], np.s_[::-1, ::2], np.s_[:, 1::2]),
             (np.s_[::2, ::-3], np.s_[::2, ::-3], np.s_[1::2, ::3]),
             (np.s_[2], np.s_[3], np.s_[5])]
    for ic, i1, i2 in cases:
        want = np.where(c[ic], a[i1], a[i2])
        for _ in range(2):
            _same_bits(xp.where(xc[ic], xa[i1], xa[i2]), want)
    _same_bits(xp.where(xc.T, xa.T, -xa.T), np.where(c.T, a.T, -a.T))


def test_python_scalar_branches_and_the_short_way_keeps_each_scalar():
    x = np.arange(8, dtype=np.float32) - 3
    c = x > 0
    X, C = xp.asarray(x), xp.asarray(c)
    for value in (0.5, 0.5, -2.0, 7):
        got = xp.where(C, X, value)
        assert got.dtype == xp.float32
        _same_bits(got, np.where(c, x, np.float32(value)))
        _same_bits(xp.where(C, value, X), np.where(c, np.float32(value), x))
    i = xp.asarray(np.arange(5, dtype=np.int16))
    _same_bits(xp.where(i > 2, i, 9), np.where(np.arange(5) > 2, np.arange(5, dtype=np.int16),
                                               np.int16(9)))


def test_branches_of_two_dtypes_are_promoted_then_selected():
    c = np.array([True, False, True])
    a, b = np.array([1.5, 2.5, 3.5], np.float32), np.array([10, 20, 30], np.int8)
    got = xp.where(xp.asarray(c), xp.asarray(a), xp.asarray(a.astype(np.float64)))
    _same_bits(got, np.where(c, a.astype(np.float64), a.astype(np.float64)))
    got = xp.where(xp.asarray(c), xp.asarray(b), xp.asarray(np.array([1, 2, 3], np.int32)))
    _same_bits(got, np.where(c, b.astype(np.int32), np.array([1, 2, 3], np.int32)))


def test_a_non_bool_condition_means_non_zero():
    got = xp.where(xp.asarray(np.array([0, 2, 0, -1])), xp.asarray(np.arange(4.0)),
                   xp.asarray(np.full(4, 9.0)))
    np.testing.assert_array_equal(np.asarray(got), [9.0, 1.0, 9.0, 3.0])


def test_past_the_kernels_dims_the_library_selects():
    shape = (1, 2) + (1,) * 7              # 9 dims
    c = np.ones(shape, bool)
    c[0, 1] = False
    a, b = np.ones(shape), np.zeros(shape)
    _same_bits(xp.where(xp.asarray(c), xp.asarray(a), xp.asarray(b)), np.where(c, a, b))


def test_gpu_geometry(cpu_backend, monkeypatch):
    """The cuda backend's grid (one element per thread: the select kernel moves no vectors),
    run by the cpu backend (a cpu block is one thread: the GPU's global thread indices), over
    contiguous, misaligned and reversed rows."""
    runs = []

    def space(sp, itemsize, operands=None, pointers=()):
        grid, block, run = row_geometry(cuda.gpu_geometry(sp.numel, itemsize), sp, operands, pointers)
        runs.append(run)
        return grid * block, 1, run

    monkeypatch.setattr(cpu_backend, "space_geometry", space)
    clear_family_plans()
    rng = np.random.default_rng(9)
    try:
        for dt in (np.int8, np.float32, np.float64, np.complex128):
            base = _values(dt, rng, 7 * 48 + 1)
            x = base[:7 * 48].reshape(7, 48)
            c = rng.random((7, 48)) > 0.5
            for view in (x, base[1:].reshape(7, 48), x[:, ::-2]):
                cc = c[:, :view.shape[1]]
                got = xp.where(xp.asarray(cc), xp.asarray(view), xp.asarray(view[0, ::-1].copy()))
                _same_bits(got, np.where(cc, view, view[0, ::-1]))
        assert runs and max(runs) > 1      # contiguous rows: several elements a thread
    finally:
        clear_family_plans()


def test_plans_refuse_views_that_break_the_rule(cpu_backend):
    v4, v1 = View(1 << 20, (4,), (1,), 4), View(1 << 21, (4,), (1,), 1)
    with pytest.raises(ValueError, match="out has 3-byte elements; the select kernels move"):
        S.plan(cpu_backend, View(0, (4,), (1,), 3), v1, v4, v4)
    with pytest.raises(ValueError, match="cond has 4-byte elements; it must be bool"):
        S.plan(cpu_backend, v4, v4, v4, v4)
    with pytest.raises(ValueError, match="x2 has 8-byte elements, out 4-byte ones"):
        S.plan(cpu_backend, v4, v1, v4, View(0, (4,), (1,), 8))
    with pytest.raises(ValueError, match=r"x1 of shape \[3\] does not broadcast to out's shape \[4\]"):
        S.plan(cpu_backend, v4, v1, View(0, (3,), (1,), 4), v4)
    empty4 = View(0, (0,), (1,), 4)
    assert S.plan(cpu_backend, empty4, View(0, (0,), (1,), 1), empty4, empty4) == []


def test_plans_pick_the_64_bit_body_for_negative_strides(cpu_backend):
    fwd, back = View(1 << 20, (4, 8), (8, 1), 4), View(1 << 20, (4, 8), (-8, 1), 4)
    cond = View(1 << 22, (4, 8), (8, 1), 1)
    (launch,) = S.plan(cpu_backend, fwd, cond, back, fwd)
    assert launch.args[0]["flags"] == S.WIDE_INDEX
    (launch,) = S.plan(cpu_backend, fwd, cond, fwd, fwd)
    assert launch.args[0]["flags"] == 0 and launch.kernel.name == S.kernel_name(4)
