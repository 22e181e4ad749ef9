"""Host side of the low-precision types: NumPy arrays to and from the raw elements stored on the
device. ml_dtypes has bf16 and the FP8 types; HiFloat8 (docs/conversions.md#hifloat8) and complex32 (two fp16
halves) have no library, so they are encoded here with vectorized integer arithmetic, by the
same rules as `kernels_cuda/npu_emu_convert.cuh`.

    raw = encode(values, dtype)      # values: any NumPy array; raw: INFO[dtype].storage
    values = decode(raw, dtype)      # INFO[dtype].host (float32 for HiFloat8, complex64 for
                                     # complex32)

Types with a host dtype convert with NumPy/ml_dtypes `astype` (e.g. float64 -> float16 rounds
once, as NumPy does). HiFloat8 encodes from float32; other inputs are first converted to
float32 with `astype`, which is what the cast kernel does for them (double rounding for
float64, see npu_emu/runtime/cast.py). complex32 encodes through complex64 likewise.
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
    if dt == aclDataType.ACL_HIFLOAT8:
        return hif8_from_float32(_as_float32(a, dt))
    if dt == aclDataType.ACL_COMPLEX32:
        return complex32_from_complex64(a)
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
    if a.dtype == np.float32:
        return a
    with np.errstate(invalid="ignore", over="ignore"):
        return a.astype(np.float32)


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
        re = c.real.astype(np.float16).view(np.uint16).astype(np.uint32)
        im = c.imag.astype(np.float16).view(np.uint16).astype(np.uint32)
    return re | (im << 16)


def complex32_to_complex64(words: np.ndarray) -> np.ndarray:
    """complex32 words -> complex64 (exact)."""
    w = np.asarray(words, dtype=np.uint32)
    out = np.empty(w.shape, dtype=np.complex64)
    out.real = (w & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float32)
    out.imag = (w >> 16).astype(np.uint16).view(np.float16).astype(np.float32)
    return out
