"""The cpu backend's fast paths give the bits of the plain code they replace.

Large outputs of the copies and binary elementwise kernels (npu_emu_cpu.h STREAM_MIN_BYTES
and up) are written with non-temporal stores (through a staging buffer, or straight from the
source for a contiguous copy), with a plain head up to 32-byte alignment and a plain tail:
copies, broadcasts and adds past that size, at unaligned offsets, against NumPy (and large casts, which take the F16C path, against our codec).

On x86 with F16C, float32 -> fp16 casts use vcvtps2ph (kernels_cuda/npu_emu_convert.cuh,
f16c_from_floats; 16 lanes at a time where the CPU has AVX-512F, 8 else: both are checked
where both run); the rule is from_float<f16>. cast_any.cu exports a hook that runs both on a set of
float32 bit patterns and counts the differences. By default every pattern whose rounding is
delicate is checked exhaustively (float32 denormals, the exponents of fp16 denormals and their
boundaries, the overflow boundary, inf/NaN, both signs), plus every low-mantissa pattern of
every exponent and a stride through all 2^32; NPU_EMU_F16C_SWEEP=1 checks all 2^32.
"""
from __future__ import annotations

import ctypes
import os

import numpy as np
import pytest

from npu_emu.runtime import cpu
from npu_emu.kernels.copy import View, plan_copy

MANTISSA = 1 << 23


@pytest.fixture(scope="module", params=["ymm", "zmm"])
def mismatches(request):
    # Both widths of the path: the ymm loops (F16C), and the zmm ones (AVX-512F) that carry
    # the bulk of a row where the CPU has them.
    lib = cpu.CpuModuleCache().load("cast_any.cu")
    fn = lib.npu_emu_f16c_mismatches
    fn.argtypes = (ctypes.c_ulonglong,) * 3 + (ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_int)
    fn.restype = ctypes.c_longlong
    zmm = int(request.param == "zmm")

    def check(lo: int, hi: int, step: int = 1) -> tuple[int, int]:
        first = ctypes.c_ulonglong(0)
        return fn(lo, hi, step, ctypes.byref(first), zmm), first.value

    found = check(0, 1)[0]
    if found == -1:
        pytest.skip("this host's build has no F16C path (the cast kernels use the integer rule alone)")
    if found == -2:
        pytest.skip("this CPU has no AVX-512F: the zmm loops never run here")
    return check


def exponent_range(sign: int, e: int) -> tuple[int, int]:
    lo = (sign << 31) | (e << 23)
    return lo, lo + MANTISSA


# float32 exponent fields: 0 (float32 denormals -> +-0), 101..113 (below the smallest fp16
# denormal, the fp16 denormals, the first fp16 normal), 141..143 (the largest fp16 binade and
# the overflow to inf), 255 (inf, quiet and signalling NaNs).
DELICATE = (0, *range(101, 114), 141, 142, 143, 255)


@pytest.mark.parametrize("sign", [0, 1])
def test_f16c_matches_the_rule_on_delicate_exponents(mismatches, sign):
    for e in DELICATE:
        bad, first = mismatches(*exponent_range(sign, e))
        assert bad == 0, f"exponent {e}, sign {sign}: {bad} patterns differ, first {first:#010x}"


def test_f16c_matches_the_rule_on_every_exponent(mismatches):
    # Every exponent and sign: all 2^14 lowest mantissa patterns (the fp16 rounding bits and
    # the sticky bits below them) under a top part of zeros and of ones.
    for sign in (0, 1):
        for e in range(256):
            lo, hi = exponent_range(sign, e)
            for start in (lo, hi - (1 << 14)):
                bad, first = mismatches(start, start + (1 << 14))
                assert bad == 0, f"{bad} patterns differ, first {first:#010x}"
    # A stride through all 2^32 (odd, so every mantissa bit varies).
    bad, first = mismatches(0, 1 << 32, 4099)
    assert bad == 0, f"{bad} patterns differ, first {first:#010x}"


def test_f16c_nan_rule_is_the_integer_one(mismatches):
    # vcvtps2ph alone would quiet these; the path must give the rule's sign | 0x7C00 | top
    # payload (at least 1). Checked through the hook on the patterns themselves.
    for bits in (0x7F800001, 0x7F802000, 0x7FBFFFFF, 0xFF800001, 0x7FC00000, 0xFFFFFFFF):
        assert mismatches(bits, bits + 1) == (0, mismatches(bits, bits + 1)[1])


@pytest.mark.skipif(not os.environ.get("NPU_EMU_F16C_SWEEP"),
                    reason="all 2^32 float32 patterns: set NPU_EMU_F16C_SWEEP=1")
def test_f16c_matches_the_rule_on_all_float32(mismatches):
    bad, first = mismatches(0, 1 << 32)
    assert bad == 0, f"{bad} patterns differ, first {first:#010x}"


@pytest.mark.parametrize("width", ["ymm", "zmm"])
def test_f16c_decoders_match_the_rule_on_every_code(width):
    # fp16 -> float32 (vcvtph2ps): every code at every offset of a 32-element group, through
    # the casts' decoder (NaN payloads kept) and the ufunc rows' (NaNs stay NaN).
    fn = cpu.CpuModuleCache().load("cast_any.cu").npu_emu_f16c_decode_mismatches
    fn.argtypes, fn.restype = (ctypes.c_int,), ctypes.c_longlong
    bad = fn(int(width == "zmm"))
    if bad == -1:
        pytest.skip("this host's build has no F16C path (the cast kernels use the integer rule alone)")
    if bad == -2:
        pytest.skip("this CPU has no AVX-512F: the zmm loops never run here")
    assert bad == 0


def test_f16_cast_kernel_keeps_signalling_nan_payloads():
    # End to end through aclnnCast's kernel (the F16C path on this host where it has one):
    # a NaN group among ordinary values, against the documented rule worked by hand.
    from npu_emu import array_api as xp
    bits = np.array([0x3F800000, 0x7F800001, 0x7F802000, 0xFF800001, 0x7FC00001, 0x33000001,
                     0x477FF000, 0x00000001, 0x38800000, 0x387FF000] * 3, dtype=np.uint32)
    want = np.array([0x3C00, 0x7C01, 0x7C01, 0xFC01, 0x7E00, 0x0001,
                     0x7C00, 0x0000, 0x0400, 0x0400] * 3, dtype=np.uint16)
    got = xp.astype(xp.asarray(bits.view(np.float32)), xp.float16)
    assert np.array_equal(np.asarray(got).view(np.uint16), want)


# ------------------------------------------------------------- non-temporal stores
STREAM_ELEMS = (16 << 20) // 4 + 4099      # float32 elements just past the streaming size


def _device_copy(be, dst_elems: int, dst_off: int, shape, dst_strides, src: np.ndarray, src_strides,
                 src_off: int = 0) -> np.ndarray:
    sp, dp = be.malloc(src.nbytes), be.malloc(dst_elems * 4)
    try:
        be.copy_from_host(sp, src)
        be.memset(dp, 0xA5, dst_elems * 4)
        be.enqueue(plan_copy(be, View(dp + 4 * dst_off, tuple(shape), tuple(dst_strides), 4),
                             View(sp + 4 * src_off, tuple(shape), tuple(src_strides), 4)),
                   be.default_stream)
        be.default_stream.synchronize()
        out = np.empty(dst_elems, np.uint32)
        be.copy_to_host(out, dp)
        return out
    finally:
        be.free(sp)
        be.free(dp)


@pytest.mark.parametrize("dst_off", [0, 1, 3])
def test_large_contiguous_copy_streams_every_element(cpu_backend, dst_off):
    n = STREAM_ELEMS
    src = np.random.default_rng(dst_off).integers(0, 2**32, n + 2, dtype=np.uint32)
    out = _device_copy(cpu_backend, n + 8, dst_off, (n,), (1,), src, (1,), src_off=2)
    want = np.full(n + 8, 0xA5A5A5A5, np.uint32)
    want[dst_off:dst_off + n] = src[2:]
    assert np.array_equal(out, want)


def test_large_broadcast_copy_streams_every_row(cpu_backend):
    rows, cols = 1031, 4099                   # rows of 4099: every row starts at another alignment
    row = np.random.default_rng(1).integers(0, 2**32, cols, dtype=np.uint32)
    out = _device_copy(cpu_backend, rows * cols + 1, 1, (rows, cols), (cols, 1), row, (0, 1))
    assert out[0] == 0xA5A5A5A5
    assert np.array_equal(out[1:].reshape(rows, cols), np.broadcast_to(row, (rows, cols)))


def test_large_casts_and_adds_stream_the_same_bits(cpu_backend):
    from npu_emu import array_api as xp
    from npu_emu import dtypes
    rng = np.random.default_rng(3)
    n = 2 * STREAM_ELEMS + 5                  # float16 output past the streaming size
    bits = rng.integers(0, 2**32, n, dtype=np.uint32)   # NaNs, denormals, infinities included
    x = bits.view(np.float32)
    for dtype, name in ((xp.float16, dtypes.aclDataType.ACL_FLOAT16), (xp.bfloat16, dtypes.aclDataType.ACL_BF16)):
        got = np.asarray(xp.astype(xp.asarray(x[1:]), dtype)).view(np.uint16)
        want = np.ascontiguousarray(dtypes.encode(x[1:], name)).view(np.uint16)
        assert np.array_equal(got, want), name
    a = rng.standard_normal((1031, 4099), dtype=np.float32)
    col = rng.standard_normal((1031, 1), dtype=np.float32)
    got = np.asarray(xp.add(xp.asarray(a), xp.asarray(col)))
    assert np.array_equal(got.view(np.uint32), (a + col).view(np.uint32))
    got = np.asarray(xp.add(xp.asarray(a), xp.asarray(a[:1, :])))
    assert np.array_equal(got.view(np.uint32), (a + a[:1, :]).view(np.uint32))
