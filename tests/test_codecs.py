"""Host codecs of the low-precision types (npu_emu.codecs): every code of every type, and
HiFloat8 against an independent pure-Python reference written from docs/conversions.md#hifloat8's table."""
from __future__ import annotations

import bisect
import math

import ml_dtypes
import numpy as np
import pytest

from npu_emu import codecs
from npu_emu.dtypes import INFO, aclDataType as DT

# NaN, inf and out-of-range values are the point of these tests.
pytestmark = pytest.mark.filterwarnings("ignore:(invalid value|overflow) encountered in cast")

# ------------------------------------------------------------------ HiFloat8 reference
# Written from docs/conversions.md#hifloat8's table only: bit 7 sign; bits 6..3 a prefix ("dot") that fixes the
# exponent width D and mantissa width M; the exponent field is sign-magnitude with an implicit
# leading 1. Slow and obvious on purpose.

_PREFIXES = [  # (prefix bits, prefix length, D, M), from the table
    ("0001", 4, 0, 3),
    ("001", 3, 1, 3),
    ("01", 2, 2, 3),
    ("10", 2, 3, 2),
    ("11", 2, 4, 1),
]


def ref_hif8_decode(code: int) -> float:
    sign = -1.0 if code & 0x80 else 1.0
    if code == 0x80:
        return math.nan
    if code & 0x7F == 0x6F:
        return sign * math.inf
    body = format(code & 0x7F, "07b")
    if body.startswith("0000"):                  # denormal: 3-bit payload v, 2^(v-23)
        v = int(body[4:], 2)
        return 0.0 if v == 0 else sign * 2.0 ** (v - 23)
    for prefix, plen, d, m in _PREFIXES:
        if body.startswith(prefix):
            field = body[plen:plen + d]
            mant = int(body[plen + d:], 2)
            if d == 0:
                e = 0
            else:
                magnitude = int("1" + field[1:], 2)      # MSB forced to 1
                e = -magnitude if field[0] == "1" else magnitude
            return sign * 2.0 ** e * (1 + mant / 2 ** m)
    raise AssertionError(f"no prefix matches {body}")


# Non-negative grid: every finite value of a positive code, and 0; beyond the largest finite
# value (32768) the next step of its binade (49152) stands for infinity.
_POSITIVE = sorted({ref_hif8_decode(c) for c in range(0x80)} - {math.inf})
_CODE_OF = {ref_hif8_decode(c): c for c in range(0x80)}
_GRID = _POSITIVE + [49152.0]


def ref_hif8_encode(x: float) -> int:
    """Nearest value of the grid, ties away from zero (docs/conversions.md#hifloat8)."""
    if math.isnan(x):
        return 0x80
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    if a == math.inf:
        return sign | 0x6F
    i = bisect.bisect_right(_GRID, a)
    if i == len(_GRID):
        return sign | 0x6F
    lo, hi = _GRID[i - 1], _GRID[i]
    value = hi if a >= (lo + hi) / 2 else lo
    if value == 0.0:
        return 0x00                              # 0x00 is the only zero
    if value == 49152.0:
        return sign | 0x6F
    return sign | _CODE_OF[value]


def test_reference_matches_spec_facts():
    # The facts docs/conversions.md#hifloat8 states, checked on the reference itself.
    assert ref_hif8_decode(0x6E) == 32768.0 == max(_POSITIVE)
    assert ref_hif8_decode(0x01) == 2.0 ** -22 == min(v for v in _POSITIVE if v > 0)
    assert [c for c in range(256) if ref_hif8_decode(c) == 0] == [0x00]
    assert math.isnan(ref_hif8_decode(0x80))
    assert ref_hif8_decode(0x6F) == math.inf and ref_hif8_decode(0xEF) == -math.inf
    assert ref_hif8_encode(40960.0) == 0x6F and ref_hif8_encode(np.nextafter(40960.0, 0)) == 0x6E
    assert ref_hif8_encode(2.0 ** -23) == 0x01 and ref_hif8_encode(np.nextafter(2.0 ** -23, 0)) == 0
    assert ref_hif8_encode(-0.0) == 0x00 and ref_hif8_encode(-1e-30) == 0x00
    assert ref_hif8_encode(1.0625) == 0x09          # half away from zero (1 + 1/16 -> 1.125)
    assert ref_hif8_encode(-1.0625) == 0x89
    assert len(set(_POSITIVE)) == 128 - 1           # 0x00..0x7F minus the inf code


def f32_near_grid(values: np.ndarray, beyond: float, ulps: int = 4) -> np.ndarray:
    """float32 values within +-ulps ULP of every non-negative finite value of a format and of
    every midpoint between neighbours (including the one towards `beyond`, the first value
    past the largest finite one), both signs."""
    grid = np.unique(values[np.isfinite(values) & (values >= 0)].astype(np.float64))
    grid = np.concatenate([grid, [beyond]])
    points = np.concatenate([grid[:-1], (grid[:-1] + grid[1:]) / 2])
    bits = points.astype(np.float32).view(np.uint32).astype(np.int64)
    assert np.array_equal(bits.view(np.int64).astype(np.uint32).view(np.float32).astype(np.float64), points)
    near = (bits[:, None] + np.arange(-ulps, ulps + 1)[None, :]).ravel()
    near = np.unique(near[(near >= 0) & (near <= 0x7F800000)]).astype(np.uint32)
    return np.concatenate([near, near | 0x80000000]).view(np.float32)


def random_f32(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)


SPECIAL_F32 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 40960.0, -40960.0,
                        32768.0, 49152.0, 2.0 ** -23, 2.0 ** -22, 1.5 * 2.0 ** -22, 2.0 ** -16,
                        1.5 * 2.0 ** -16, 2.0 ** -15, 3e38, 1e-45], dtype=np.float32)


# ------------------------------------------------------------------ HiFloat8 codec

def test_hif8_decode_every_code_matches_reference():
    codes = np.arange(256, dtype=np.uint8)
    got = codecs.decode(codes, DT.ACL_HIFLOAT8)
    assert got.dtype == np.float32
    for c in range(256):
        want = ref_hif8_decode(c)
        if math.isnan(want):
            assert c == 0x80 and got[c].view(np.uint32) == 0x7FC00000
        else:
            assert float(got[c]) == want, hex(c)
    assert got[0].view(np.uint32) == 0        # +0, never -0


def test_hif8_roundtrip_every_code():
    codes = np.arange(256, dtype=np.uint8)
    again = codecs.encode(codecs.decode(codes, DT.ACL_HIFLOAT8), DT.ACL_HIFLOAT8)
    assert again.dtype == np.uint8
    np.testing.assert_array_equal(again, codes)   # 0x80 (NaN) -> NaN -> 0x80 too


def test_hif8_encode_near_every_value_and_midpoint():
    x = np.concatenate([f32_near_grid(codecs.decode(np.arange(256, dtype=np.uint8), DT.ACL_HIFLOAT8),
                                      beyond=49152.0), SPECIAL_F32, random_f32(20000, seed=5)])
    got = codecs.encode(x, DT.ACL_HIFLOAT8)
    want = np.array([ref_hif8_encode(float(v)) for v in x], dtype=np.uint8)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, [(hex(int(x[i:i + 1].view(np.uint32)[0])), hex(got[i]), hex(want[i])) for i in bad[:10]]


def test_hif8_encode_from_float64_goes_through_float32():
    rng = np.random.default_rng(7)
    mids = (np.array(_POSITIVE[:-1]) + np.array(_POSITIVE[1:])) / 2
    x = np.concatenate([mids * (1 - 2.0 ** -30), mids * (1 + 2.0 ** -30), -mids * (1 - 2.0 ** -40),
                        rng.standard_normal(5000) * 1000.0])
    got = codecs.encode(x, DT.ACL_HIFLOAT8)
    want = np.array([ref_hif8_encode(float(np.float32(v))) for v in x], dtype=np.uint8)
    np.testing.assert_array_equal(got, want)
    # Double rounding is visible: just below a midpoint, float32 rounds onto it, then away.
    assert codecs.encode(np.array([1.0625 - 2.0 ** -40]), DT.ACL_HIFLOAT8)[0] == 0x09


# ------------------------------------------------------------------ ml_dtypes-backed types

ML_TYPES = [
    (DT.ACL_FLOAT16, np.float16, np.uint16),
    (DT.ACL_BF16, ml_dtypes.bfloat16, np.uint16),
    (DT.ACL_FLOAT8_E5M2, ml_dtypes.float8_e5m2, np.uint8),
    (DT.ACL_FLOAT8_E4M3FN, ml_dtypes.float8_e4m3fn, np.uint8),
    (DT.ACL_FLOAT8_E8M0, ml_dtypes.float8_e8m0fnu, np.uint8),
]


@pytest.mark.parametrize("dt,host,bits", ML_TYPES, ids=lambda v: getattr(v, "name", None))
def test_every_code_decodes_as_ml_dtypes_and_roundtrips(dt, host, bits):
    codes = np.arange(np.iinfo(bits).max + 1, dtype=np.uint64).astype(bits)
    raw = codes.view(INFO[dt].storage)
    values = codecs.decode(raw, dt)
    assert values.dtype == np.dtype(host)
    f32 = values.astype(np.float32)
    np.testing.assert_array_equal(f32.view(np.uint32), codes.view(host).astype(np.float32).view(np.uint32))
    again = codecs.encode(f32, dt).view(bits)
    nan = np.isnan(f32)
    np.testing.assert_array_equal(again[~nan], codes[~nan])
    # NaN codes come back as the type's NaN (sign kept where the format has one).
    np.testing.assert_array_equal(again[nan], f32[nan].astype(host).view(bits))
    assert np.isnan(again[nan].view(host).astype(np.float32)).all()


def test_complex32_roundtrip_every_half():
    halves = np.arange(65536, dtype=np.uint32)
    words = halves | (halves[::-1] << 16)
    values = codecs.decode(words, DT.ACL_COMPLEX32)
    assert values.dtype == np.complex64
    re = (words & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float32)
    np.testing.assert_array_equal(values.real.view(np.uint32), re.view(np.uint32))
    np.testing.assert_array_equal(codecs.encode(values, DT.ACL_COMPLEX32), words)


def test_complex32_encode_rounds_each_part_like_float16():
    rng = np.random.default_rng(3)
    c = (rng.standard_normal(1000) * 300 + 1j * rng.standard_normal(1000) * 1e5).astype(np.complex64)
    words = codecs.encode(c, DT.ACL_COMPLEX32)
    np.testing.assert_array_equal(words & 0xFFFF, c.real.astype(np.float16).view(np.uint16))
    np.testing.assert_array_equal(words >> 16, c.imag.astype(np.float16).view(np.uint16))
    # Real input: imaginary +0.
    np.testing.assert_array_equal(codecs.encode(np.array([1.5, -2.0]), DT.ACL_COMPLEX32),
                                  np.array([0x3E00, 0xC000], dtype=np.uint32))


def test_plain_types_pass_through():
    a = np.array([1, -2, 300], dtype=np.int64)
    np.testing.assert_array_equal(codecs.encode(a, DT.ACL_INT16), a.astype(np.int16))
    np.testing.assert_array_equal(codecs.decode(np.array([1, 0], np.uint8), DT.ACL_BOOL), [True, False])
    with pytest.raises(ValueError):
        codecs.encode(a, DT.ACL_INT4)
    with pytest.raises(ValueError):
        codecs.encode(np.array([1j]), DT.ACL_HIFLOAT8)


def test_dtypes_reexports_the_codecs():
    """npu_emu.dtypes.encode / decode are the user-facing names (issue 5)."""
    import npu_emu.dtypes as dtypes
    from npu_emu import codecs
    assert dtypes.encode is codecs.encode and dtypes.decode is codecs.decode
