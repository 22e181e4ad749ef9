"""Conversions against tables computed from the documented rules (docs/conversions.md), not
from a library: every code of every 8- and 16-bit float type decoded, and float32 near every
value and rounding midpoint of each type encoded, by the cast kernel (each backend) and by the
host codecs. ml_dtypes is a second opinion only: the version whose behaviour was checked is
named below; another version that disagrees gives a warning naming both, not a failure.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest

from npu_emu import codecs
from npu_emu.dtypes import INFO, aclDataType as DT

from test_cast_kernel import all_codes, assert_bits_equal, cast_1d
from test_codecs import SPECIAL_F32, ref_hif8_decode, ref_hif8_encode

pytestmark = pytest.mark.filterwarnings("ignore:(invalid value|overflow) encountered")

# The ml_dtypes release whose results were compared code by code with the rules below and
# found equal (E8M0's float32-denormal inputs round by value from 0.7.0 on; 0.5 rounded
# 0x400001 up).
ML_DTYPES_CHECKED = "0.7.0"


@dataclass(frozen=True)
class Format:
    """An IEEE-like binary format as docs/conversions.md describes it."""
    bits: int          # storage width
    eb: int            # exponent bits
    mb: int            # mantissa bits
    inf: bool          # has infinities (else the top code of each sign is NaN: E4M3FN)
    nan: int           # the NaN an encoder writes (magnitude bits; the sign is kept)

    @property
    def bias(self) -> int:
        return (1 << (self.eb - 1)) - 1

    def value(self, code: int) -> float:
        """The exact value of a code (float64 holds every one of them), NaN for NaN codes."""
        sign = -1.0 if code >> (self.bits - 1) & 1 else 1.0
        mag = code & ((1 << (self.bits - 1)) - 1)
        e, m = mag >> self.mb, mag & ((1 << self.mb) - 1)
        top = (1 << self.eb) - 1
        if self.inf and e == top:
            return sign * np.inf if m == 0 else np.nan
        if not self.inf and e == top and m == (1 << self.mb) - 1:
            return np.nan
        if e == 0:
            return sign * m * 2.0 ** (1 - self.bias - self.mb)
        return sign * (1 + m / 2 ** self.mb) * 2.0 ** (e - self.bias)


FORMATS = {
    DT.ACL_FLOAT16: Format(16, 5, 10, True, 0x7E00),
    DT.ACL_BF16: Format(16, 8, 7, True, 0x7FC0),
    DT.ACL_FLOAT8_E5M2: Format(8, 5, 2, True, 0x7E),
    DT.ACL_FLOAT8_E4M3FN: Format(8, 4, 3, False, 0x7F),
}


def positive_grid(fmt: Format) -> tuple[np.ndarray, np.ndarray]:
    """(values, codes) of the finite non-negative codes, ascending, plus one virtual step past
    the largest finite value standing for overflow (its code is the next one: it decides a
    tie by its parity, as IEEE rounding does)."""
    codes = np.arange(1 << (fmt.bits - 1))
    values = np.array([fmt.value(int(c)) for c in codes])
    keep = np.isfinite(values)
    values, codes = values[keep], codes[keep]
    ulp = values[-1] - values[-2]
    return np.append(values, values[-1] + ulp), np.append(codes, codes[-1] + 1)


def rule_encode(x: np.ndarray, dt: DT) -> np.ndarray:
    """float32 -> codes by the documented rule: the nearest value, ties to the even code,
    denormals kept; overflow past the largest finite value + half a step gives infinity (or
    NaN where there is none); NaN gives the format's NaN with the sign."""
    fmt = FORMATS[dt]
    values, codes = positive_grid(fmt)
    a = np.abs(x.astype(np.float64))
    sign = (np.signbit(x).astype(np.int64)) << (fmt.bits - 1)
    i = np.clip(np.searchsorted(values, a, side="right"), 1, len(values) - 1)
    lo, hi = values[i - 1], values[i]
    mid = (lo + hi) / 2                     # exact in float64
    clo, chi = codes[i - 1], codes[i]
    pick_hi = (a > mid) | ((a == mid) & (chi % 2 == 0)) | (a >= values[-1])
    code = np.where(pick_hi, chi, clo)
    overflow = np.where(fmt.inf, (1 << fmt.mb) * ((1 << fmt.eb) - 1), fmt.nan)
    code = np.where((code == codes[-1]) | np.isinf(a), overflow, code)
    out = sign | code
    out = np.where(np.isnan(x), sign | fmt.nan, out)
    if dt == DT.ACL_FLOAT16:   # f16 NaN keeps its top payload bits, at least one (NumPy's rule)
        payload = (x.view(np.uint32).astype(np.int64) & 0x7FFFFF) >> 13
        out = np.where(np.isnan(x), sign | 0x7C00 | payload | (payload == 0), out)
    return out.astype(np.uint16 if fmt.bits == 16 else np.uint8)


def e8m0_value(code: int) -> float:
    return np.nan if code == 0xFF else 2.0 ** (code - 127)


def rule_encode_e8m0(x: np.ndarray) -> np.ndarray:
    """The nearest power of two 2^-127..2^127, ties (1.5 * 2^k) up; below 2^-127 code 0;
    zero, negative values, infinity, NaN and 1.5 * 2^127 and beyond give 0xFF (NaN)."""
    values = np.array([e8m0_value(c) for c in range(255)])
    a = x.astype(np.float64)
    i = np.clip(np.searchsorted(values, a, side="right"), 1, 254)
    lo, hi = values[i - 1], values[i]
    code = np.where(a >= (lo + hi) / 2, i, i - 1)
    code = np.where(a < values[0], 0, code)
    code = np.where(a >= 1.5 * 2.0 ** 127, 0xFF, code)
    bad = np.isnan(x) | np.signbit(x) | (x == 0) | np.isinf(x)
    return np.where(bad, 0xFF, code).astype(np.uint8)


def rule_encode_any(x: np.ndarray, dt: DT) -> np.ndarray:
    if dt == DT.ACL_FLOAT8_E8M0:
        return rule_encode_e8m0(x)
    if dt == DT.ACL_HIFLOAT8:
        return np.array([ref_hif8_encode(float(v)) for v in x], dtype=np.uint8)
    return rule_encode(x, dt)


def rule_value(code: int, dt: DT) -> float:
    if dt == DT.ACL_FLOAT8_E8M0:
        return e8m0_value(code)
    if dt == DT.ACL_HIFLOAT8:
        return ref_hif8_decode(code)
    return FORMATS[dt].value(code)


def boundary_inputs(dt: DT, near: int = 3) -> np.ndarray:
    """float32 at, and `near` float32 steps either side of, every value and every midpoint
    between neighbouring values of the type (both signs), the overflow threshold, and the
    special values."""
    codes = range(1 << (8 * INFO[dt].itemsize))
    v = np.unique(np.abs([rule_value(c, dt) for c in codes]))
    v = v[np.isfinite(v)]
    points = np.concatenate([v, (v[:-1] + v[1:]) / 2, [v[-1] * 1.5, v[-1] * 2]])
    points = points[points < 3.4e38].astype(np.float32)    # exact: every point fits float32
    bits = points.view(np.uint32).astype(np.int64)
    steps = np.arange(-near, near + 1)
    around = (bits[:, None] + steps[None, :]).ravel()
    around = around[(around >= 0) & (around < 0x7F800000)].astype(np.uint32)
    x = np.unique(around).view(np.float32)
    return np.concatenate([x, -x, SPECIAL_F32]).astype(np.float32)


TYPES = [DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN,
         DT.ACL_FLOAT8_E8M0, DT.ACL_HIFLOAT8]
# HiFloat8's reference is pure Python: its boundary set is small (256 codes), so one step.
NEAR = {DT.ACL_HIFLOAT8: 1}


@pytest.fixture(scope="module")
def inputs():
    return {dt: boundary_inputs(dt, NEAR.get(dt, 3)) for dt in TYPES}


@pytest.fixture(scope="module")
def expected(inputs):
    return {dt: rule_encode_any(x, dt) for dt, x in inputs.items()}


@pytest.mark.parametrize("dt", TYPES, ids=lambda d: d.name)
def test_decode_every_code_is_the_rule(backend, dt):
    codes = all_codes(dt)
    got = cast_1d(backend, codes, dt, DT.ACL_DOUBLE).astype(np.float64)
    want = np.array([rule_value(int(c), dt) for c in codes.view(f"u{INFO[dt].itemsize}")])
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), f"{dt.name}: NaN codes differ"
    assert np.array_equal(got[~nan], want[~nan]), f"{dt.name}: decoded values differ"
    assert np.array_equal(np.signbit(got[~nan]), np.signbit(want[~nan])), f"{dt.name}: signs"
    host = codecs.decode(codes, dt).astype(np.float64)
    assert np.array_equal(host[~nan], want[~nan]) and np.isnan(host[nan]).all()


@pytest.mark.parametrize("dt", TYPES, ids=lambda d: d.name)
def test_encode_near_every_boundary_is_the_rule(backend, dt, inputs, expected):
    x, want = inputs[dt], expected[dt]
    got = cast_1d(backend, x, DT.ACL_FLOAT, dt).view(want.dtype)
    assert_bits_equal(got, want, x, f"FLOAT -> {dt.name} (kernel) vs the rule")
    host = codecs.encode(x, dt).view(want.dtype)
    assert_bits_equal(host, want, x, f"FLOAT -> {dt.name} (npu_emu.codecs) vs the rule")


def test_e8m0_rounds_float32_denormals_by_value():
    # The decision of docs/conversions.md: the true nearest of 2^-127 (code 0) and 2^-126.
    b = np.array([0x000001, 0x400000, 0x400001, 0x5FFFFC, 0x5FFFFF, 0x600000, 0x7FFFFF],
                 dtype=np.uint32)
    want = np.array([0, 0, 0, 0, 0, 1, 1], dtype=np.uint8)
    assert np.array_equal(rule_encode_e8m0(b.view(np.float32)), want)
    assert np.array_equal(codecs.encode(b.view(np.float32), DT.ACL_FLOAT8_E8M0), want)


def test_rule_tables_hold_known_facts():
    # Hand-checked values that anchor the reference itself.
    f16 = FORMATS[DT.ACL_FLOAT16]
    assert f16.value(0x7BFF) == 65504.0 and f16.value(0x0001) == 2.0 ** -24
    assert FORMATS[DT.ACL_FLOAT8_E4M3FN].value(0x7E) == 448.0
    assert np.isnan(FORMATS[DT.ACL_FLOAT8_E4M3FN].value(0x7F))
    assert FORMATS[DT.ACL_FLOAT8_E5M2].value(0x7B) == 57344.0
    x = np.array([65519.996, 65520.0, 2.0 ** -25, 2.0 ** -25 * 1.0000001, 1 + 2.0 ** -11],
                 dtype=np.float32)
    assert rule_encode(x, DT.ACL_FLOAT16).tolist() == [0x7BFF, 0x7C00, 0x0000, 0x0001, 0x3C00]
    assert rule_encode(np.float32([464.0, 480.0]), DT.ACL_FLOAT8_E4M3FN).tolist() == [0x7E, 0x7F]


@pytest.mark.parametrize("dt", [d for d in TYPES if d != DT.ACL_HIFLOAT8], ids=lambda d: d.name)
def test_ml_dtypes_second_opinion(dt, inputs, expected):
    """ml_dtypes agrees with the rule: a failure with the checked release, a warning naming
    both versions with another one (a library release changes a message, not the verdict)."""
    x, want = inputs[dt], expected[dt]
    lib = {DT.ACL_FLOAT16: np.float16, DT.ACL_BF16: ml_dtypes.bfloat16,
           DT.ACL_FLOAT8_E5M2: ml_dtypes.float8_e5m2, DT.ACL_FLOAT8_E4M3FN: ml_dtypes.float8_e4m3fn,
           DT.ACL_FLOAT8_E8M0: ml_dtypes.float8_e8m0fnu}[dt]
    theirs = x.astype(lib).view(want.dtype)
    differ = np.nonzero(theirs != want)[0]
    if not differ.size:
        return
    msg = (f"{lib.__name__}: {differ.size} of {x.size} float32 inputs differ from npu_emu's rule "
           f"with ml_dtypes {ml_dtypes.__version__} (checked equal: {ML_DTYPES_CHECKED}), e.g. "
           + ", ".join(f"{x[i:i+1].view(np.uint32)[0]:#x}->{theirs[i]:#x} (rule {want[i]:#x})"
                       for i in differ[:3]))
    if ml_dtypes.__version__ == ML_DTYPES_CHECKED:
        pytest.fail(msg)
    warnings.warn(msg)
