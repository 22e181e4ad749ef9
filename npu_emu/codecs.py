"""Host side of the low-precision types: NumPy arrays to and from the raw elements stored on the
device, by the rules of `kernels_cuda/npu_emu_convert.cuh` (docs/conversions.md), in vectorized
integer arithmetic: the encoders are ours, not a library's, so the bits do not change with the
version of ml_dtypes or NumPy installed. ml_dtypes supplies only the NumPy dtypes of bf16 and the
FP8 types (and is a second opinion in the tests).

    raw = encode(values, dtype)      # values: any NumPy array; raw: INFO[dtype].storage
    values = decode(raw, dtype)      # INFO[dtype].host (float32 for HiFloat8, complex64 for
                                     # complex32)

Every type narrower than float32 (f16, bf16, FP8, HiFloat8; complex32 part by part) encodes
from float32: other inputs are converted to float32 first, which is what the cast kernel does
(double rounding for float64, docs/conversions.md). Decoding is exact.
"""
from __future__ import annotations

import functools

import numpy as np

from .dtypes import INFO, aclDataType, as_dtype, dt_name

HIF8_NAN = 0x80
HIF8_INF = 0x6F
HIF8_OVERFLOW = 0x47200000     # float32 bits of 40960: |x| >= this encodes as inf
HIF8_UNDERFLOW = 0x34000000    # float32 bits of 2^-23: |x| < this encodes as zero


def encode(array: object, dtype: object) -> np.ndarray:
    """The device storage of `array`'s values as `dtype` (raw bits for bf16, FP8, HiFloat8,
    complex32; the NumPy dtype itself for the others)."""
    dt = as_dtype(dtype)
    info = INFO[dt]
    a = np.asarray(array)
    if dt == aclDataType.ACL_COMPLEX32:
        return complex32_from_complex64(a)
    encoder = _FROM_FLOAT32.get(dt)
    if encoder is not None:
        raw = encoder(_as_float32(a, dt).view(np.uint32))
        return raw.view(info.storage).reshape(a.shape)
    if info.host is None:
        raise ValueError(f"{dt_name(dt)} has no per-element storage to encode into")
    if a.dtype != info.host:
        with np.errstate(invalid="ignore", over="ignore"):   # NaN, inf, overflow are values here
            a = a.astype(info.host)
    return a.view(info.storage) if info.host != info.storage else a


def decode(raw: object, dtype: object) -> np.ndarray:
    """The values of raw device elements of `dtype`, as a host array (ml_dtypes types where
    they exist, float32 for HiFloat8, complex64 for complex32)."""
    dt = as_dtype(dtype)
    info = INFO[dt]
    if info.storage is None:
        raise ValueError(f"{dt_name(dt)} has no per-element storage to decode")
    r = np.asarray(raw)
    if r.dtype != info.storage:
        if r.dtype.itemsize != info.storage.itemsize:
            raise ValueError(f"raw {dt_name(dt)} elements are {info.storage} "
                             f"({info.storage.itemsize} bytes), got {r.dtype}")
        r = r.view(info.storage)
    if dt == aclDataType.ACL_HIFLOAT8:
        return hif8_to_float32(r)
    if dt == aclDataType.ACL_COMPLEX32:
        return complex32_to_complex64(r)
    return r.view(info.host) if info.host != info.storage else r


def _as_float32(a: np.ndarray, dt: aclDataType) -> np.ndarray:
    if a.dtype.kind == "c":
        raise ValueError(f"cannot encode complex values as {dt_name(dt)}")
    with np.errstate(invalid="ignore", over="ignore"):
        return np.ascontiguousarray(a, dtype=np.float32)


# -------------------------------------------------------- IEEE-like formats from float32 bits
# The same arithmetic as npu_emu_convert.cuh (uint32 wraps as C's unsigned does).

def _magnitude_to_small(a: np.ndarray, eb: int, mb: int) -> np.ndarray:
    """|x| (float32 bits, sign cleared) -> the magnitude code of a format with eb exponent and
    mb mantissa bits: round to nearest, ties to even, denormals kept; past the largest finite
    code on overflow (the callers clamp)."""
    bias = (1 << (eb - 1)) - 1
    sh = 23 - mb
    min_normal_e = 127 - bias + 1
    a = a.astype(np.uint32)
    r = a - np.uint32((127 - bias) << 23)
    normal = (r + np.uint32((1 << (sh - 1)) - 1) + ((r >> sh) & 1)) >> sh
    sig = (a & 0x7FFFFF) | 0x800000
    dsh = np.minimum(np.uint32(sh + min_normal_e) - (a >> 23), 31).astype(np.uint32)
    denormal = (sig + ((np.uint32(1) << (dsh - 1)) - 1) + ((sig >> dsh) & 1)) >> dsh
    return np.where(a >= np.uint32(min_normal_e << 23), normal, denormal).astype(np.uint32)


def f16_from_float32_bits(b: np.ndarray) -> np.ndarray:
    """Round to nearest even, denormals kept, overflow -> inf; NaN keeps its sign and top
    payload bits (at least one), as NumPy."""
    a = b & 0x7FFFFFFF
    code = np.minimum(_magnitude_to_small(a, 5, 10), 0x7C00)
    p = (a & 0x7FFFFF) >> 13
    nan = 0x7C00 | p | (p == 0)
    code = np.where(a > 0x7F800000, nan, code)
    return (((b >> 16) & 0x8000) | code).astype(np.uint16)


def bf16_from_float32_bits(b: np.ndarray) -> np.ndarray:
    """Round to nearest even (overflow -> inf); NaN -> sign | 0x7FC0."""
    rounded = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    nan = ((b >> 16) & 0x8000) | 0x7FC0
    return np.where((b & 0x7FFFFFFF) > 0x7F800000, nan, rounded).astype(np.uint16)


def e5m2_from_float32_bits(b: np.ndarray) -> np.ndarray:
    """Round to nearest even, overflow -> inf; NaN -> sign | 0x7E."""
    a = b & 0x7FFFFFFF
    code = np.minimum(_magnitude_to_small(a, 5, 2), 0x7C)
    code = np.where(a > 0x7F800000, 0x7E, code)
    return (((b >> 24) & 0x80) | code).astype(np.uint8)


def e4m3fn_from_float32_bits(b: np.ndarray) -> np.ndarray:
    """Round to nearest even; no infinity: overflow, +-inf and NaN -> sign | 0x7F (NaN)."""
    a = b & 0x7FFFFFFF
    code = _magnitude_to_small(a, 4, 3)
    code = np.where((code > 0x7E) | (a >= 0x7F800000), 0x7F, code)
    return (((b >> 24) & 0x80) | code).astype(np.uint8)


def e8m0_from_float32_bits(b: np.ndarray) -> np.ndarray:
    """The nearest power of two, ties (1.5 * 2^k) up, float32 denormals by value (the nearest
    of 2^-127 and 2^-126); zero, negatives, inf, NaN and overflow -> 0xFF (NaN)."""
    e, m = b >> 23, b & 0x7FFFFF
    code = np.where(e != 0, e + (m >= 0x400000), (m >= 0x600000).astype(np.uint32))
    nan = (b == 0) | (b >= 0x7F800000) | (code > 254)
    return np.where(nan, 0xFF, code).astype(np.uint8)


# ------------------------------------------------------------------------------ HiFloat8

def _hif8_exponent_bits(e: int) -> int:
    """Prefix ("dot") and exponent field of HiFloat8 for exponent e, |e| <= 15 (docs/conversions.md#hifloat8)."""
    neg, mag = int(e < 0), abs(e)
    if mag == 0:
        return 0x08
    if mag == 1:
        return 0x10 | neg << 3
    if mag <= 3:
        return 0x20 | neg << 4 | (mag & 1) << 3
    if mag <= 7:
        return 0x40 | neg << 4 | (mag - 4) << 2
    return 0x60 | neg << 4 | (mag - 8) << 1


_EXP_BITS = np.array([_hif8_exponent_bits(e) for e in range(-15, 17)], dtype=np.uint32)
_MAN_BITS = np.array([3 if abs(e) <= 3 else 2 if abs(e) <= 7 else 1 for e in range(-15, 16)],
                     dtype=np.uint32)


def hif8_from_float32(x: np.ndarray) -> np.ndarray:
    """float32 -> HiFloat8 codes (uint8): round half away from zero at the mantissa width of
    the exponent; |x| >= 40960 and inf -> S|0x6F; NaN -> 0x80; |x| < 2^-23 -> 0x00."""
    b = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    sign = (b >> 24) & 0x80
    a = b & 0x7FFFFFFF
    e = (a >> 23).astype(np.int32) - 127
    m = a & 0x7FFFFF
    # Normal range, exponents -15..15 (clipped elsewhere, fixed by the masks below).
    en = np.clip(e, -15, 15)
    mb = _MAN_BITS[en + 15]
    sh = 23 - mb
    man = (m >> sh) + ((m >> (sh - 1)) & 1)
    carry = (man >> mb).astype(np.int32)
    man = np.where(carry != 0, 0, man)
    normal = sign | _EXP_BITS[en + carry + 15] | man
    # Denormals 2^(v-23): between 2^e and 2^(e+1) the midpoint is 1.5 * 2^e; below 2^-22 the
    # grid is {0, 2^-22}. v = 8 is 2^-15, a normal code.
    v = np.where(e == -23, 1, e + 23 + (m >> 22).astype(np.int32))
    denormal = np.where(v >= 8, sign | _EXP_BITS[0], sign | v.astype(np.uint32))
    code = np.where(e <= -16, denormal, normal)
    code = np.where(a < HIF8_UNDERFLOW, 0, code)
    code = np.where(a >= HIF8_OVERFLOW, sign | HIF8_INF, code)
    code = np.where(a > 0x7F800000, HIF8_NAN, code)
    return code.astype(np.uint8).reshape(np.shape(x))


@functools.lru_cache(maxsize=None)
def _hif8_table() -> np.ndarray:
    """float32 value of every HiFloat8 code (docs/conversions.md#hifloat8's table)."""
    c = np.arange(256, dtype=np.int64)
    sign = (c & 0x80) << 24
    v = c & 0x7F
    d4 = v >= 0x60
    d3 = (v >= 0x40) & ~d4
    d2 = (v >= 0x20) & (v < 0x40)
    d1 = (v >= 0x10) & (v < 0x20)
    neg = np.where(d1, (v >> 3) & 1, (v >> 4) & 1)
    mag = np.select([d4, d3, d2, d1], [8 + ((v >> 1) & 7), 4 + ((v >> 2) & 3), 2 + ((v >> 3) & 1), 1], 0)
    mbits = np.select([d4, d3], [1, 2], 3)
    man = v & ((1 << mbits) - 1)
    biased = np.where(neg == 1, 127 - mag, 127 + mag)
    bits = sign | (biased << 23) | (man << (23 - mbits))
    bits = np.where(v < 0x08, sign | ((v + 104) << 23), bits)        # denormals 2^(v-23)
    bits = np.where(v == 0, sign, bits)
    bits = np.where(v == HIF8_INF, sign | 0x7F800000, bits)
    bits[0x00] = 0
    bits[HIF8_NAN] = 0x7FC00000
    table = bits.astype(np.uint32).view(np.float32)
    table.flags.writeable = False
    return table


def hif8_to_float32(codes: np.ndarray) -> np.ndarray:
    """HiFloat8 codes -> float32 (exact; 0x80 -> NaN 0x7FC00000)."""
    return _hif8_table()[np.asarray(codes, dtype=np.uint8)]


# ------------------------------------------------------------------------------ complex32

def complex32_from_complex64(values: np.ndarray) -> np.ndarray:
    """complex values -> complex32 words (uint32: real fp16 in the low half, imaginary in the
    high half). Inputs go through complex64 (float32 parts), then each part to fp16."""
    c = np.asarray(values)
    with np.errstate(invalid="ignore", over="ignore"):
        c = c if c.dtype == np.complex64 else c.astype(np.complex64)
    re = f16_from_float32_bits(np.ascontiguousarray(c.real).view(np.uint32)).astype(np.uint32)
    im = f16_from_float32_bits(np.ascontiguousarray(c.imag).view(np.uint32)).astype(np.uint32)
    return re | (im << 16)


def complex32_to_complex64(words: np.ndarray) -> np.ndarray:
    """complex32 words -> complex64 (exact)."""
    w = np.asarray(words, dtype=np.uint32)
    out = np.empty(w.shape, dtype=np.complex64)
    out.real = (w & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float32)
    out.imag = (w >> 16).astype(np.uint16).view(np.float16).astype(np.float32)
    return out


# float32 bits -> raw codes, one encoder per type (the table encode() reads).
_FROM_FLOAT32 = {
    aclDataType.ACL_FLOAT16: f16_from_float32_bits,
    aclDataType.ACL_BF16: bf16_from_float32_bits,
    aclDataType.ACL_FLOAT8_E5M2: e5m2_from_float32_bits,
    aclDataType.ACL_FLOAT8_E4M3FN: e4m3fn_from_float32_bits,
    aclDataType.ACL_FLOAT8_E8M0: e8m0_from_float32_bits,
    aclDataType.ACL_HIFLOAT8: lambda b: hif8_from_float32(b.view(np.float32)),
}
