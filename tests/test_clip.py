"""The clip family (kernels_cuda/clip.cuh, npu_emu/kernels/clip.py): clip(x, min, max) in one
pass gives the bits of maximum(x, min) then minimum(..., max) (our ufunc kernels, launched
apart: NaNs, signed zeros and infinities included), for every dtype it has, Python and array
bounds (broadcast, of another dtype), strided and transposed x, the repeated call's short
way; NumPy's np.clip where the two agree (no NaN, no zero of either sign)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu.array_api._engine import kernel as engine_kernel
from npu_emu.dtypes import INFO
from npu_emu.kernels import clip as C

HOST = {"bf16": ml_dtypes.bfloat16}
DTYPES = [INFO[d].short for d in C.DTYPES]


def _host(short: str):
    return np.dtype(HOST.get(short, {"f16": np.float16, "f32": np.float32, "f64": np.float64,
                                     "s8": np.int8, "s16": np.int16, "s32": np.int32,
                                     "s64": np.int64, "u8": np.uint8, "u16": np.uint16,
                                     "u32": np.uint32, "u64": np.uint64}.get(short)))


def _values(dt: np.dtype, rng, shape) -> np.ndarray:
    """Values of dt with the cases clip must keep: NaNs, -0.0, +-inf, the extremes."""
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    v = (rng.standard_normal(shape) * 4).astype(np.float32).astype(dt)
    flat = v.reshape(-1)
    special = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, -np.nan], np.float32).astype(dt)
    k = min(flat.size, special.size)
    flat[rng.permutation(flat.size)[:k]] = special[:k]
    return v


def _bits(x) -> bytes:
    a = np.asarray(x)
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


def test_the_catalog_is_maximum_s_and_minimum_s_dtypes():
    assert set(C.DTYPES) == set(C.BY_NAME["maximum"].dtypes & C.BY_NAME["minimum"].dtypes)


@pytest.mark.parametrize("short", DTYPES)
def test_clip_gives_the_bits_of_maximum_then_minimum(cpu_backend, short):
    dt = _host(short)
    rng = np.random.default_rng(len(short) * 7 + dt.itemsize)
    a = _values(dt, rng, (37, 29))
    x = xp.asarray(a)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo_py, hi_py = int(info.min) // 3, int(info.max) // 3
    else:
        lo_py, hi_py = -1.5, 2.25
    lo_arr = xp.asarray(_values(dt, rng, (29,)))                  # broadcast along rows
    hi_arr = xp.asarray(_values(dt, rng, (37, 1)))                # and along columns
    cases = [(lo_py, hi_py), (lo_arr, hi_py), (lo_py, hi_arr), (lo_arr, hi_arr)]
    for lo, hi in cases:
        want = xp.minimum(xp.maximum(x, lo), hi)                   # two launches, apart
        for _ in range(2):                                         # full path, short way
            got = xp.clip(x, lo, hi)
            assert got.dtype == x.dtype and got.shape == want.shape
            assert _bits(got) == _bits(want), (lo, hi)
    if dt.kind in "iu":                                            # NumPy: the same values
        np.testing.assert_array_equal(np.asarray(xp.clip(x, lo_py, hi_py)),
                                      np.clip(a, lo_py, hi_py))
    else:
        finite = np.isfinite(a.astype(np.float64)) & (a != 0)
        got = np.asarray(xp.clip(x, lo_py, hi_py)).astype(np.float64)
        want = np.clip(a.astype(np.float64), lo_py, hi_py)
        np.testing.assert_array_equal(got[finite], want[finite])


def _edge_values(dt: np.dtype) -> np.ndarray:
    """Every kind of float the scalar-bound loop must keep: NaNs with payloads (quiet and
    signalling, both signs), signed zeros, infinities, subnormals, the extremes, values equal
    to the bounds, random ones."""
    u = np.uint32 if dt == np.float32 else np.uint64
    e = 23 if dt == np.float32 else 52
    exp_all = u((1 << (dt.itemsize * 8 - 1 - e)) - 1) << u(e)
    sign = u(1) << u(dt.itemsize * 8 - 1)
    nans = np.array([exp_all | u(1), exp_all | u(1) << u(e - 1), exp_all | u(12345),
                     sign | exp_all | u(7), sign | exp_all | u(1) << u(e - 1)], u).view(dt)
    info = np.finfo(dt)
    plain = np.array([0.0, -0.0, np.inf, -np.inf, info.max, -info.max, info.tiny, -info.tiny,
                      info.smallest_subnormal, -info.smallest_subnormal, 1.5, -1.5, 2.25, -2.25,
                      -1.0, 1.0, 3.0, -3.0], dt)
    rand = (np.random.default_rng(11).standard_normal(4093) * 3).astype(dt)
    return np.concatenate([nans, plain, rand])


@pytest.mark.parametrize("short", ["f32", "f64"])
@pytest.mark.parametrize("lo, hi", [(-1.5, 2.25), (-2.25, -1.0), (1.0, 3.0), (3.0, -1.0),
                                    (-np.inf, 1.5), (-1.5, np.inf), (0.0, 1.5), (-0.0, 1.5),
                                    (-1.5, 0.0), (-1.5, -0.0), (np.nan, 1.5), (-1.5, np.nan),
                                    (2.25, 2.25)])
def test_clip_with_python_bounds_keeps_every_float_s_bits(cpu_backend, short, lo, hi):
    """clip(x, lo, hi) with Python bounds on a contiguous float32/float64 x: the cpu backend's
    loop in selects where the bounds are neither NaN nor zero, clip_one's otherwise. Both
    give the bits of maximum then minimum (our kernels, apart), and where the bounds are plain,
    NumPy's minimum(maximum(x, lo), hi) with every NaN as the canonical one."""
    dt = _host(short)
    a = _edge_values(dt)
    x = xp.asarray(a)
    got = xp.clip(x, lo, hi)
    assert _bits(got) == _bits(xp.minimum(xp.maximum(x, lo), hi)), (lo, hi)
    if lo == lo and hi == hi and lo != 0 and hi != 0:
        with np.errstate(invalid="ignore"):
            want = np.minimum(np.maximum(a, dt.type(lo)), dt.type(hi))
        canonical = np.array([0x7FC00000], np.uint32).view(np.float32)[0] if dt == np.float32 \
            else np.array([0x7FF8000000000000], np.uint64).view(np.float64)[0]
        want[np.isnan(a)] = canonical
        assert _bits(got) == _bits(want), (lo, hi)


def test_clip_is_one_launch_and_keeps_the_layout_of_x(cpu_backend, monkeypatch):
    launched = []
    real = engine_kernel.launch

    def counted(be, launches, arrays):
        launched.append(len(launches))
        return real(be, launches, arrays)
    from npu_emu.array_api._engine import ufunc
    monkeypatch.setattr(ufunc, "launch", counted)
    a = np.random.default_rng(3).standard_normal((300, 200)).astype(np.float32)
    x = xp.asarray(a)
    got = xp.clip(x.T, -0.5, 0.5)
    assert launched == [1]
    g = np.asarray(got)
    assert g.flags.f_contiguous and np.array_equal(g, np.clip(a.T, -0.5, 0.5))
    got = xp.clip(x[::3, 1::2], -0.25, xp.asarray(np.float64(0.75)))   # a bound to convert
    assert np.array_equal(np.asarray(got), np.clip(a[::3, 1::2], -0.25, 0.75))


def test_a_bound_that_binds_nothing_and_one_bound_take_the_composed_path(cpu_backend):
    a = np.arange(-5, 5, dtype=np.int8)
    x = xp.asarray(a)
    np.testing.assert_array_equal(np.asarray(xp.clip(x, -1000, 3)), np.clip(a, -128, 3))
    np.testing.assert_array_equal(np.asarray(xp.clip(x, None, 3)), np.clip(a, None, 3))
    np.testing.assert_array_equal(np.asarray(xp.clip(x, -2)), np.clip(a, -2, None))
    with pytest.raises(TypeError):
        xp.clip(x, 0.5, 3)                     # a float bound on an integer array
