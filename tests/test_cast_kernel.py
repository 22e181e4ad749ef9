"""The cast kernel (kernels_cuda/cast.cu via npu_emu.kernels.cast.plan_cast) on each backend:
every code of every low-precision type, float32 -> each type near every value and rounding
midpoint, and every pair of the 20 dtypes on contiguous, strided and broadcast views, against
npu_emu.codecs (our rules, themselves checked against rule tables in test_conversion_rules.py)
and the rules written in npu_emu/kernels/cast.py.
Outputs are compared bit for bit, NaN payloads included."""
from __future__ import annotations

import ctypes
import math
import subprocess

import ml_dtypes
import numpy as np
import pytest

from npu_emu import codecs
from npu_emu.dtypes import INFO, aclDataType as DT
from npu_emu.runtime import kernels_dir
from npu_emu.kernels.cast import CAST_DTYPES, KERNEL_NAMES, plan_cast
from npu_emu.kernels.copy import View
from npu_emu.runtime.cpu import CXX_FLAGS, _compiler

from test_codecs import SPECIAL_F32, f32_near_grid, random_f32, ref_hif8_encode

pytestmark = pytest.mark.filterwarnings("ignore:(invalid value|overflow) encountered in cast")

POISON = 0xA5

# ------------------------------------------------------------------ running the kernel


def raw_of(values: np.ndarray, dt: DT) -> np.ndarray:
    return np.ascontiguousarray(values).view(INFO[dt].storage)


def run_cast(be, src_store: np.ndarray, src_dt: DT, dst_dt: DT, dst_len: int,
             src_view: tuple, dst_view: tuple, generic: bool = False) -> np.ndarray:
    """Cast a view of src_store (raw storage, 1-D) into a view of a poisoned destination
    storage of dst_len elements; returns the whole destination storage. Views are
    (shape, strides, offset) in elements."""
    src_item, dst_item = INFO[src_dt].itemsize, INFO[dst_dt].itemsize
    src_store = np.ascontiguousarray(src_store)
    s = be.malloc(max(src_store.nbytes, 1))
    d = be.malloc(max(dst_len * dst_item, 1))
    try:
        be.copy_from_host(s, src_store)
        be.copy_from_host(d, np.full(dst_len * dst_item, POISON, dtype=np.uint8))
        (ss, st, so), (ds, dst_strides, do) = src_view, dst_view
        launches = plan_cast(be, View(d + do * dst_item, tuple(ds), tuple(dst_strides), dst_item),
                             View(s + so * src_item, tuple(ss), tuple(st), src_item), src_dt, dst_dt,
                             generic=generic)
        be.enqueue(launches, be.default_stream)
        be.synchronize()
        out = np.empty(dst_len, dtype=INFO[dst_dt].storage)
        be.copy_to_host(out, d)
        return out
    finally:
        be.free(s)
        be.free(d)


def cast_1d(be, src_raw: np.ndarray, src_dt: DT, dst_dt: DT, generic: bool = False) -> np.ndarray:
    """Contiguous cast of a whole 1-D raw array, with poisoned guard elements either side."""
    n = src_raw.size
    out = run_cast(be, src_raw, src_dt, dst_dt, n + 6, ((n,), (1,), 0), ((n,), (1,), 3), generic)
    guard = np.full(3 * INFO[dst_dt].itemsize, POISON, dtype=np.uint8)
    assert np.array_equal(out[:3].view(np.uint8), guard) and np.array_equal(out[n + 3:].view(np.uint8), guard)
    return out[3:n + 3]


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}[a.itemsize])


def assert_bits_equal(got: np.ndarray, want: np.ndarray, inputs: np.ndarray, what: str):
    g, w = bits(got), bits(want)
    bad = np.nonzero((g != w).reshape(len(got), -1).any(axis=1))[0]
    assert bad.size == 0, (f"{what}: {bad.size} of {len(got)} differ, e.g. "
                           + ", ".join(f"{bits(inputs[i:i + 1])[0]:#x}->{g.reshape(len(got), -1)[i]}"
                                       f" want {w.reshape(len(got), -1)[i]}" for i in bad[:6]))


# ------------------------------------------------------------------ the reference model

LOWP = {DT.ACL_FLOAT16: np.float16, DT.ACL_BF16: ml_dtypes.bfloat16,
        DT.ACL_FLOAT8_E5M2: ml_dtypes.float8_e5m2, DT.ACL_FLOAT8_E4M3FN: ml_dtypes.float8_e4m3fn,
        DT.ACL_FLOAT8_E8M0: ml_dtypes.float8_e8m0fnu, DT.ACL_HIFLOAT8: None}
INTS = {DT.ACL_INT8: np.int8, DT.ACL_INT16: np.int16, DT.ACL_INT32: np.int32,
        DT.ACL_INT64: np.int64, DT.ACL_UINT8: np.uint8, DT.ACL_UINT16: np.uint16,
        DT.ACL_UINT32: np.uint32, DT.ACL_UINT64: np.uint64}
COMPLEX_PART = {DT.ACL_COMPLEX32: DT.ACL_FLOAT16, DT.ACL_COMPLEX64: DT.ACL_FLOAT,
                DT.ACL_COMPLEX128: DT.ACL_DOUBLE}


def float_to_int(x: np.ndarray, dst: DT) -> np.ndarray:
    """The documented rule (npu_emu/kernels/cast.py): truncate; NaN -> 0; saturate a 32-bit
    intermediate for s8/s16/s32, a 64-bit one for u8/u16/u32/s64 and keep the low bits;
    u64 saturates at 2^64 - 1 and wraps the int64 result below 2^63."""
    f = x.astype(np.float64)
    t = np.trunc(np.where(np.isnan(f), 0.0, f))
    big, small = t >= 2.0**63, t < -(2.0**63)
    s64 = np.where(big | small, 0.0, t).astype(np.int64)
    s64[big], s64[small] = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    if dst in (DT.ACL_INT8, DT.ACL_INT16, DT.ACL_INT32):
        return np.clip(t, -(2.0**31), 2.0**31 - 1).astype(np.int64).astype(INTS[dst])
    if dst == DT.ACL_UINT64:
        out = s64.astype(np.uint64)
        upper = (t >= 2.0**63) & (t < 2.0**64)
        out[upper] = t[upper].astype(np.uint64)
        out[t >= 2.0**64] = np.iinfo(np.uint64).max
        return out
    return s64.astype(INTS[dst])


def convert_real(x: np.ndarray, dst: DT) -> np.ndarray:
    """Raw storage of dst for host values x of a real dtype (ints, bool, float16/32/64,
    ml_dtypes types, float32 values of HiFloat8)."""
    is_float = x.dtype.kind not in "biu"
    if dst == DT.ACL_BOOL:
        return (x.astype(np.float64) != 0) if is_float else (x != 0)
    if dst in INTS:
        return float_to_int(x, dst) if is_float else x.astype(INTS[dst])
    if dst == DT.ACL_FLOAT:
        return x.astype(np.float32)
    if dst == DT.ACL_DOUBLE:
        return x.astype(np.float64)       # float16 -> float64 directly, others via float32
    # Low precision: always through float32 (ints, float64: double rounding).
    return codecs.encode(x.astype(np.float32), dst)


def source_parts(raw: np.ndarray, src: DT) -> tuple[np.ndarray, np.ndarray | None]:
    """(real part, imaginary part or None) of raw source elements, as host arrays; complex32
    parts stay float16 so that they convert as float16 does."""
    if src == DT.ACL_COMPLEX32:
        return ((raw & 0xFFFF).astype(np.uint16).view(np.float16),
                (raw >> 16).astype(np.uint16).view(np.float16))
    values = codecs.decode(raw, src)
    if src in COMPLEX_PART:
        return values.real.copy(), values.imag.copy()
    return values, None


def reference(raw: np.ndarray, src: DT, dst: DT) -> np.ndarray:
    if src == dst:
        return raw.copy()
    re, im = source_parts(raw, src)
    if dst == DT.ACL_BOOL and im is not None:
        return convert_real(re, dst) | convert_real(im, dst)
    if dst not in COMPLEX_PART:
        return np.asarray(convert_real(re, dst)).astype(INFO[dst].storage)
    part = COMPLEX_PART[dst]
    out_re = raw_of(convert_real(re, part), part)
    out_im = raw_of(convert_real(im if im is not None else np.zeros(re.shape, np.float32), part), part)
    if dst == DT.ACL_COMPLEX32:
        return out_re.view(np.uint16).astype(np.uint32) | (out_im.view(np.uint16).astype(np.uint32) << 16)
    out = np.empty(re.shape, dtype=INFO[dst].storage)
    out.real, out.imag = out_re, out_im
    return out


# ------------------------------------------------------------------ every code of every type

EVERY_CODE = [DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN,
              DT.ACL_FLOAT8_E8M0, DT.ACL_HIFLOAT8]
BEYOND_MAX = {DT.ACL_FLOAT16: 65536.0, DT.ACL_BF16: 2.0**128, DT.ACL_FLOAT8_E5M2: 65536.0,
              DT.ACL_FLOAT8_E4M3FN: 480.0, DT.ACL_FLOAT8_E8M0: 2.0**128, DT.ACL_HIFLOAT8: 49152.0}


def all_codes(dt: DT) -> np.ndarray:
    n = 1 << (8 * INFO[dt].itemsize)
    return np.arange(n, dtype=np.uint64).astype(np.uint16 if n > 256 else np.uint8).view(INFO[dt].storage)


def host_float32(raw: np.ndarray, dt: DT) -> np.ndarray:
    return codecs.decode(raw, dt).astype(np.float32)


@pytest.mark.parametrize("dt", EVERY_CODE, ids=lambda d: d.name)
def test_decode_every_code(backend, dt):
    codes = all_codes(dt)
    got = cast_1d(backend, codes, dt, DT.ACL_FLOAT)
    assert_bits_equal(got, host_float32(codes, dt), codes, f"{dt.name} -> FLOAT")
    got = cast_1d(backend, codes, dt, DT.ACL_DOUBLE)
    assert_bits_equal(got, codecs.decode(codes, dt).astype(np.float64), codes, f"{dt.name} -> DOUBLE")


@pytest.mark.parametrize("dt", EVERY_CODE, ids=lambda d: d.name)
def test_roundtrip_every_code(backend, dt):
    codes = all_codes(dt)
    f32 = cast_1d(backend, codes, dt, DT.ACL_FLOAT)
    again = cast_1d(backend, f32, DT.ACL_FLOAT, dt)
    nan = np.isnan(f32)
    assert_bits_equal(again[~nan], codes[~nan], codes[~nan], f"{dt.name} round trip")
    # A NaN code comes back as the format's NaN (ml_dtypes' / NumPy's for the same float32).
    assert_bits_equal(again[nan], codecs.encode(f32[nan], dt), codes[nan], f"{dt.name} NaN round trip")


@pytest.mark.parametrize("dt", EVERY_CODE, ids=lambda d: d.name)
def test_encode_float32_near_every_value_and_midpoint(backend, dt):
    x = np.concatenate([f32_near_grid(host_float32(all_codes(dt), dt), BEYOND_MAX[dt]),
                        SPECIAL_F32, random_f32(1 << 20, seed=int(dt))])
    got = cast_1d(backend, x, DT.ACL_FLOAT, dt)
    # npu_emu.codecs: the documented rules (checked against tables computed from the rules
    # in test_conversion_rules.py, with ml_dtypes as a second opinion there).
    want = codecs.encode(x, dt)
    assert_bits_equal(got, want, x, f"FLOAT -> {dt.name}")
    if dt == DT.ACL_HIFLOAT8:   # and straight against the pure-Python reference of docs/conversions.md#hifloat8 (near values only)
        near = x.size - SPECIAL_F32.size - (1 << 20)
        want = np.array([ref_hif8_encode(float(v)) for v in x[:near]], dtype=np.uint8)
        assert_bits_equal(got[:near], want, x[:near], "FLOAT -> HIFLOAT8 vs the documented reference")


@pytest.mark.parametrize("dt", EVERY_CODE, ids=lambda d: d.name)
def test_encode_float64_rounds_through_float32(backend, dt):
    grid = np.unique(np.abs(host_float32(all_codes(dt), dt)[np.isfinite(host_float32(all_codes(dt), dt))]))
    mids = (grid[:-1].astype(np.float64) + grid[1:]) / 2
    rng = np.random.default_rng(11)
    x = np.concatenate([mids * (1 - 2.0**-35), mids * (1 + 2.0**-35), -mids * (1 - 2.0**-40),
                        rng.standard_normal(4096) * 10.0 ** rng.integers(-40, 40, 4096),
                        np.array([np.nan, -np.inf, np.inf, 1e300, -1e-300, 0.0, -0.0])])
    got = cast_1d(backend, x, DT.ACL_DOUBLE, dt)
    assert_bits_equal(got, codecs.encode(x.astype(np.float32), dt), x, f"DOUBLE -> {dt.name}")


def test_float64_to_float16_double_rounding_is_the_rule(backend):
    # 1 + 2^-11 + 2^-40: NumPy rounds once (up); CANN's AICPU / Eigen / PyTorch go through
    # float32, which lands on the midpoint, then ties to even (down).
    x = np.array([1 + 2.0**-11 + 2.0**-40], dtype=np.float64)
    got = cast_1d(backend, x, DT.ACL_DOUBLE, DT.ACL_FLOAT16)
    assert got.view(np.uint16)[0] == 0x3C00 and x.astype(np.float16).view(np.uint16)[0] == 0x3C01


# ------------------------------------------------------------------ every pair of dtypes

ALL = sorted(CAST_DTYPES)

FLOAT_VALUES = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.3, -0.7, 3.75, 100.7, -100.7, 127.5,
                128.0, -128.5, -129.0, 255.9, 256.0, 300.2, -300.2, 1000.3, 32767.9, 32768.0,
                -32769.0, 40960.0, 65504.0, 65520.0, 70000.7, -70000.7, 2147483520.0,
                2147483648.0, -2147483904.0, 4294967296.0, 6442450944.0, 1e10, -1e10, 2.0**53 + 1,
                2.0**63, -(2.0**63), 1.5 * 2.0**63, 1.8e19, 3e19, -3e19, 1e30, 3e38, -3e38,
                1e300, -1e300, math.inf, -math.inf, math.nan, -math.nan, 1e-5, -1e-8, 2.0**-20,
                1e-30, 1e-40, -1e-44, 5e-324, 16777217.0, 2.0**24 + 2.0**16 + 1]
INT_VALUES = [0, 1, -1, 2, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535,
              65536, 2**24 + 1, 2**24 + 2**16 + 1, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1,
              2**32 - 1, 2**32, 2**53 + 1, 2**62 + 2**38 + 1, 2**63 - 1, -(2**63), -(2**63) + 1]


def source_values(dt: DT) -> np.ndarray:
    """Raw source elements: every code of 8- and 16-bit types, chosen and random values else."""
    rng = np.random.default_rng(int(dt) + 100)
    kind = INFO[dt].kind
    if dt == DT.ACL_BOOL:
        return np.array([False, True, True, False, True])
    if INFO[dt].itemsize <= 2 and dt not in COMPLEX_PART:
        return all_codes(dt)
    if kind in ("signed", "unsigned"):
        host = INTS[dt]
        vals = np.array([v % 2**64 for v in INT_VALUES], dtype=np.uint64).view(np.int64).astype(host)
        rand = rng.integers(0, 2**64, 3000, dtype=np.uint64).view(np.int64).astype(host)
        small = rng.integers(-300, 300, 1000).astype(host)
        return np.concatenate([vals, rand, small])
    floats = np.array(FLOAT_VALUES, dtype=np.float64)
    if dt == DT.ACL_FLOAT:
        return np.concatenate([floats.astype(np.float32), random_f32(4000, seed=1)])
    if dt == DT.ACL_DOUBLE:
        rand = rng.integers(0, 2**64, 4000, dtype=np.uint64).view(np.float64)
        return np.concatenate([floats, rand, rng.standard_normal(2000) * 1e5])
    # complex: pairs of the float values, and random ones
    re = np.concatenate([floats, np.roll(floats, 7), rng.standard_normal(500) * 1e3])
    im = np.concatenate([np.roll(floats, 3), floats, rng.standard_normal(500) * 1e3])
    c = re + 0j
    c.imag = im
    if dt == DT.ACL_COMPLEX32:
        words = codecs.encode(c, dt)
        halves = np.arange(65536, dtype=np.uint32)           # plus every fp16 in both parts
        return np.concatenate([words, halves | (halves[::-1] << 16)])
    return c.astype(INFO[dt].storage)


LAYOUTS = {
    # name: (src view, dst view, dst storage length); views are (shape, strides, offset).
    # The contiguous layouts take every source value; the others a spread of them.
    "contiguous": None,
    "cast_any_contiguous": None,   # cast_any, the GPU's kernel for 64-bit spaces, forced
    "strided": ((12, 20), (41, 2), 3, (12, 20), (1, 13), 5, 5 + 11 + 19 * 13 + 4),
    "broadcast": ((12, 1), (3, 7), 1, (12, 20), (22, 1), 2, 2 + 11 * 22 + 20 + 3),
    "broadcast_row": ((20,), (2,), 0, (3, 12, 20), (260, 21, 1), 4, 4 + 2 * 260 + 11 * 21 + 20 + 3),
    "cast_any_strided": ((12, 20), (41, 2), 3, (12, 20), (1, 13), 5, 5 + 11 + 19 * 13 + 4),
}


def view_indices(shape, strides, offset) -> np.ndarray:
    idx = np.full(shape, offset, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(shape, strides)):
        idx += (np.arange(n) * s).reshape((n,) + (1,) * (len(shape) - axis - 1))
    return idx


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("src", ALL, ids=lambda d: d.name)
def test_every_pair(backend, src, layout):
    values = source_values(src)
    failures = []
    for dst in ALL:
        generic = layout.startswith("cast_any")
        if LAYOUTS[layout] is None:
            got = cast_1d(backend, values, src, dst, generic)
            want = reference(values, src, dst)
            inputs = values
        else:
            sshape, sstrides, soff, dshape, dstrides, doff, dlen = LAYOUTS[layout]
            sidx = view_indices(sshape, sstrides, soff)
            m = int(sidx.max()) + 1 + 3
            store = values[np.linspace(0, values.size - 1, m).astype(np.int64)]
            full = run_cast(backend, store, src, dst, dlen, (sshape, sstrides, soff),
                            (dshape, dstrides, doff), generic)
            didx = view_indices(dshape, dstrides, doff)
            inputs = np.broadcast_to(store[sidx], dshape).ravel()
            expect = np.full(dlen * INFO[dst].itemsize, POISON, dtype=np.uint8).view(INFO[dst].storage)
            expect[didx.ravel()] = reference(inputs, src, dst)
            got, want = full, expect
            inputs = np.zeros(dlen, dtype=values.dtype)          # for messages: by position
            inputs[didx.ravel()] = np.broadcast_to(store[sidx], dshape).ravel()
        try:
            assert_bits_equal(got, want, inputs, f"{src.name} -> {dst.name} ({layout})")
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("src", [DT.ACL_BOOL, DT.ACL_INT8, DT.ACL_UINT8, DT.ACL_INT16,
                                 DT.ACL_UINT16], ids=lambda d: d.name)
def test_narrow_integer_sources_in_one_pass(backend, src):
    """8- and 16-bit integer and bool sources into the integer, bool and float destinations:
    one pass over a contiguous row on the CPU (cast.cuh narrow_int_to_real), the same bits as
    the two steps. Each source's codes repeated past a few vectors, with an odd tail; a bool
    source holds every byte, as memory shared with another library may (any nonzero byte
    reads as true)."""
    codes = np.arange(1 << (8 * INFO[src].itemsize), dtype=np.uint64)
    raw = np.tile(codes.astype(np.uint16 if INFO[src].itemsize == 2 else np.uint8), 3)[:-5]
    raw = raw.view(INFO[src].storage)
    canonical = raw.view(np.uint8) != 0 if src == DT.ACL_BOOL else raw
    failures = []
    for dst in (DT.ACL_BOOL, DT.ACL_INT8, DT.ACL_UINT8, DT.ACL_INT16, DT.ACL_UINT16,
                DT.ACL_INT32, DT.ACL_UINT32, DT.ACL_INT64, DT.ACL_UINT64, DT.ACL_FLOAT,
                DT.ACL_DOUBLE):
        if dst == src:
            continue
        try:
            assert_bits_equal(cast_1d(backend, raw, src, dst), reference(canonical, src, dst),
                              raw, f"{src.name} -> {dst.name}")
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("dst", sorted(INTS), ids=lambda d: d.name)
def test_float32_to_integers_across_every_binade(backend, dst):
    """float32 -> each integer type over every exponent and both signs: the mantissa's edges
    and 200 random mantissas per binade, past a few vectors of each (the integer conversions
    take different steps per range: uint16's trunc-and-modulo, uint8's and float_low32's
    bits, the 32- and 64-bit saturations). All 2^32 float32 -> uint16 were compared with the
    same reference when its steps changed (7 December 2026)."""
    rng = np.random.default_rng(int(dst))
    mant = np.concatenate([np.array([0, 1, 2, 0x3FFFFF, 0x400000, 0x7FFFFE, 0x7FFFFF], np.uint32),
                           rng.integers(0, 1 << 23, 200).astype(np.uint32)])
    exps = np.arange(256, dtype=np.uint32)
    bits = (exps[:, None] << 23 | mant[None, :]).ravel()
    bits = np.concatenate([bits, bits | np.uint32(0x80000000)])
    values = bits.view(np.float32)
    assert_bits_equal(cast_1d(backend, values, DT.ACL_FLOAT, dst),
                      reference(values, DT.ACL_FLOAT, dst), values, f"FLOAT -> {dst.name}")


def test_zero_dim_and_single_element_views(backend):
    x = np.array([2.75, -1e9, 7.0], dtype=np.float32)
    out = run_cast(backend, x, DT.ACL_FLOAT, DT.ACL_INT8, 4, ((), (), 1), ((), (), 2))
    assert list(out.view(np.uint8)) == [POISON, POISON, 0x00, POISON]   # -1e9 -> INT32_MIN -> low byte 0
    out = run_cast(backend, x, DT.ACL_FLOAT, DT.ACL_FLOAT16, 3, ((1, 1), (5, 9), 0), ((1, 1), (1, 1), 1))
    assert out.view(np.uint16)[1] == 0x4180 and out.view(np.uint16)[0] == out.view(np.uint16)[2] == 0xA5A5


# ------------------------------------------------------------------ large outputs
# On the CPU an output of npu_emu_cpu.h's STREAM_MIN_BYTES (16 MiB) or more is written with
# non-temporal stores (cast.cu: stream_row, reached from each step that writes the
# destination). These casts are just past that size, start 3 elements past an aligned
# allocation (cast_1d's guard) and end in an odd tail; each source is its values of
# test_every_pair repeated, so the output must be the reference's of those values repeated.
STREAM_MIN_BYTES = 16 << 20

LARGE = [  # (src, dst, source stride): one case per step that writes the destination
    (DT.ACL_FLOAT, DT.ACL_FLOAT16, 1),      # store from the source itself (F16C in the buffer)
    (DT.ACL_FLOAT, DT.ACL_BF16, 1),
    (DT.ACL_FLOAT, DT.ACL_FLOAT16, 3),      # load chunk, store chunk
    (DT.ACL_FLOAT16, DT.ACL_FLOAT, 1),      # load straight into the destination
    (DT.ACL_BF16, DT.ACL_FLOAT, 1),
    (DT.ACL_INT32, DT.ACL_INT8, 1),         # 1-byte elements through the chunk buffer
    (DT.ACL_INT8, DT.ACL_INT16, 1),         # a narrow source streamed: the chunk path
    (DT.ACL_COMPLEX64, DT.ACL_COMPLEX128, 1),   # 16-byte elements, both parts
    (DT.ACL_FLOAT, DT.ACL_FLOAT16, 0),      # broadcast: fill
]


@pytest.mark.parametrize("src,dst,stride", LARGE,
                         ids=lambda v: v.name.removeprefix("ACL_") if isinstance(v, DT) else f"s{v}")
def test_large_output_streams_the_same_bits(backend, src, dst, stride):
    n = STREAM_MIN_BYTES // INFO[dst].itemsize + 4099       # odd: a tail after the last line
    base = source_values(src)
    want_base = reference(base, src, dst)
    if stride == 0:
        base, want_base = base[7:8], want_base[7:8]
        store = base
    else:
        store = np.resize(base, (n - 1) * stride + 1 + 2)
        store[:-2:stride] = np.resize(base, n)               # element j's source is base[j % m]
    out = run_cast(backend, store, src, dst, n + 6, ((n,), (stride,), 0), ((n,), (1,), 3))
    guard = np.full(3 * INFO[dst].itemsize, POISON, dtype=np.uint8)
    assert np.array_equal(out[:3].view(np.uint8), guard) and np.array_equal(out[n + 3:].view(np.uint8), guard)
    got, want = bits(out[3:n + 3]), bits(np.resize(want_base, n))
    bad = np.nonzero((got != want).reshape(n, -1).any(axis=1))[0]
    assert bad.size == 0, f"{src.name} -> {dst.name}: {bad.size} of {n} differ, first at {bad[:5]}"


# ------------------------------------------------------------------ the plan itself

def test_plan_cast_contract(cpu_backend):
    be = cpu_backend
    f32, f16 = DT.ACL_FLOAT, DT.ACL_FLOAT16
    v4, v2 = View(0x1000, (4,), (1,), 4), View(0x2000, (4,), (1,), 2)
    same = plan_cast(be, v4, View(0x3000, (4,), (1,), 4), f32, f32)
    assert [l.kernel.name for l in same] == ["strided_copy_b4_i32"]          # delegated to copy
    # Integers of one width keep their bits (they wrap): a copy too (test_every_pair checks
    # the values); bool and the floats of the same widths convert.
    for a, b, kernel in ((DT.ACL_INT8, DT.ACL_UINT8, "strided_copy_b1_i32"),
                         (DT.ACL_UINT32, DT.ACL_INT32, "strided_copy_b4_i32"),
                         (DT.ACL_INT64, DT.ACL_UINT64, "strided_copy_b8_i32"),
                         (DT.ACL_BOOL, DT.ACL_UINT8, "cast_bool"), (DT.ACL_INT8, DT.ACL_BOOL, "cast_s8"),
                         (DT.ACL_INT32, f32, "cast_s32"), (DT.ACL_INT16, f16, "cast_s16")):
        size = INFO[a].itemsize
        (launch,) = plan_cast(be, View(0x1000, (4,), (1,), INFO[b].itemsize),
                              View(0x2000, (4,), (1,), size), a, b)
        assert launch.kernel.name == kernel, (a, b)
    (launch,) = plan_cast(be, View(0x1000, (4,), (1,), 1), View(0x2000, (4,), (1,), 1),
                          DT.ACL_INT8, DT.ACL_UINT8, generic=True)
    assert launch.kernel.name == "cast_any"
    assert plan_cast(be, View(0x1000, (0, 3), (3, 1), 4), View(0x2000, (3,), (1,), 2), f16, f32) == []
    (launch,) = plan_cast(be, v2, v4, f32, f16)
    assert launch.kernel.name == "cast_f32" and int(launch.args[3]) == int(f16)
    big = View(0x1000, (2**31 + 5,), (1,), 4)
    (launch,) = plan_cast(be, big, View(0x2000, (1,), (0,), 2), f16, f32)
    assert launch.kernel.name == "cast_f16"                  # the CPU's kernels index in 64 bits
    (launch,) = plan_cast(be, v2, v4, f32, f16, generic=True)
    assert launch.kernel.name == "cast_any" and [int(a) for a in launch.args[3:]] == [int(f32), int(f16)]
    with pytest.raises(ValueError, match="ACL_INT4"):
        plan_cast(be, v4, View(0x2000, (4,), (1,), 1), DT.ACL_INT4, f32)
    with pytest.raises(ValueError, match="bytes per element"):
        plan_cast(be, v4, v4, f16, f32)


# ------------------------------------------------------------------ convert<Dst>(Src) itself
# The GPU kernel runs npu_emu::convert<Dst>(Src) per element; the CPU kernel runs the same
# rules as load-then-store steps. This compiles convert itself for the host (g++ -O1, all 400
# pairs in a few seconds) and checks it against the same reference, so that the GPU's code path
# is exercised on machines without a GPU too.

DIRECT_SOURCE = r"""
#include "npu_emu_convert.cuh"
template <typename Src>
static void from(const Src* s, void* d, long n, int dst) {
    switch (dst) {
#define CASE(T, CODE) case CODE: for (long j = 0; j < n; ++j) static_cast<T*>(d)[j] = npu_emu::convert<T>(s[j]); break;
        TYPES(CASE)
    }
}
extern "C" void convert_direct(int src, const void* s, void* d, long n, int dst) {
    switch (src) {
#define SRC(T, CODE) case CODE: from(static_cast<const T*>(s), d, n, dst); break;
        TYPES(SRC)
    }
}
"""
CXX_TYPES = {"f32": "float", "f16": "npu_emu::f16", "s8": "int8_t", "s32": "int32_t",
             "u8": "uint8_t", "s16": "int16_t", "u16": "uint16_t", "u32": "uint32_t",
             "s64": "int64_t", "u64": "uint64_t", "f64": "double", "bool": "npu_emu::boolean",
             "c64": "npu_emu::c64", "c128": "npu_emu::c128", "bf16": "npu_emu::bf16",
             "c32": "npu_emu::c32", "hif8": "npu_emu::hif8", "fp8e5m2": "npu_emu::fp8_e5m2",
             "fp8e4m3fn": "npu_emu::fp8_e4m3fn", "fp8e8m0": "npu_emu::fp8_e8m0"}


@pytest.fixture(scope="module")
def convert_direct(tmp_path_factory):
    types = " ".join(f"X({CXX_TYPES[name]}, {int(dt)})" for dt, name in KERNEL_NAMES.items())
    src = tmp_path_factory.mktemp("convert") / "direct.cpp"
    src.write_text(f"#define TYPES(X) {types}\n" + DIRECT_SOURCE)
    lib = src.with_suffix(".so")
    flags = [f for f in CXX_FLAGS if not f.startswith(("-O", "-march"))] + ["-O1"]
    result = subprocess.run([_compiler(), *flags, f"-I{kernels_dir()}", str(src), "-o", str(lib)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    fn = ctypes.CDLL(str(lib)).convert_direct
    fn.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_int)
    fn.restype = None

    def run(values: np.ndarray, src_dt: DT, dst_dt: DT) -> np.ndarray:
        values = np.ascontiguousarray(values)
        out = np.empty(values.size, dtype=INFO[dst_dt].storage)
        fn(int(src_dt), values.ctypes.data, out.ctypes.data, values.size, int(dst_dt))
        return out
    return run


@pytest.mark.parametrize("src", ALL, ids=lambda d: d.name)
def test_convert_function_every_pair(convert_direct, src):
    values = source_values(src)
    failures = []
    for dst in ALL:
        try:
            assert_bits_equal(convert_direct(values, src, dst), reference(values, src, dst), values,
                              f"convert<{dst.name}>({src.name})")
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("dt", EVERY_CODE, ids=lambda d: d.name)
def test_convert_function_encoders_near_boundaries(convert_direct, dt):
    codes = all_codes(dt)
    x = np.concatenate([f32_near_grid(host_float32(codes, dt), BEYOND_MAX[dt]), SPECIAL_F32,
                        random_f32(1 << 18, seed=int(dt) + 1)])
    assert_bits_equal(convert_direct(x, DT.ACL_FLOAT, dt), codecs.encode(x, dt), x, f"FLOAT -> {dt.name}")
    assert_bits_equal(convert_direct(codes, dt, DT.ACL_FLOAT), host_float32(codes, dt), codes,
                      f"{dt.name} -> FLOAT")
