"""Helpers the array API tests of manipulation, searching, sorting, sets and creation share:
every dtype of the namespace, arrays of each made from float32 values (converted by our
kernels), their stored bits, and a counter of the calls into the operator core."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu.array_api._engine import kernel as _calls

STANDARD = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float32", "float64", "complex64", "complex128"]
NARROW_FLOATS = ["float16", "bfloat16", "float8_e5m2", "float8_e4m3fn", "hifloat8"]
ALL = STANDARD + NARROW_FLOATS
REAL = [d for d in ALL if not d.startswith("complex")]
FLOATS = ["float32", "float64"] + NARROW_FLOATS
# Special values every float dtype holds (e4m3fn has no infinity: it gives NaN there).
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.0]


@pytest.fixture
def float32_defaults():
    """The NPU's float32 / complex64 as the default floating dtypes (the switch's other
    setting), for the tests written against it; the namespace's default is float64."""
    before = xp.set_default_dtypes(real_floating=xp.float32)
    yield
    xp.set_default_dtypes(real_floating=before["real floating"])


def make(values: object, dtype: str) -> xp.Array:
    """An array of `dtype` holding `values` (float32 for the narrow floats, converted by our
    cast kernels; the NumPy type otherwise)."""
    host = np.asarray(values).astype(np.float32 if dtype in NARROW_FLOATS else dtype)
    return xp.asarray(host, dtype=getattr(xp, dtype))


def sample(dtype: str, shape: tuple[int, ...], rng: np.random.Generator) -> xp.Array:
    """Small random values of `dtype` (repeats likely, for stability and uniqueness)."""
    n = int(np.prod(shape))
    if dtype == "bool":
        return make(rng.integers(0, 2, n).astype(bool).reshape(shape), dtype)
    if dtype.startswith(("int", "uint")):
        lo = 0 if dtype.startswith("u") else -5
        return make(rng.integers(lo, 6, n).reshape(shape), dtype)
    values = rng.integers(-6, 7, n) / 2
    if dtype.startswith("complex"):
        values = values + 1j * (rng.integers(-3, 4, n) / 2)
    return make(values.reshape(shape), dtype)


def bits(x: xp.Array) -> np.ndarray:
    """The stored bits of an array on the host (HiFloat8 has no host type)."""
    x._st.backend.default_stream.synchronize()
    raw = x._raw()
    return np.array(raw.get() if hasattr(raw, "get") else raw)


def values(x: xp.Array) -> np.ndarray:
    """The values on the host: NumPy / ml_dtypes types, float32 for HiFloat8."""
    return np.asarray(x)


def as_float(x: np.ndarray) -> np.ndarray:
    """Host values as float64 (complex128 for complex) for comparisons."""
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


@contextlib.contextmanager
def core_calls(monkeypatch):
    """The names of the operators run through the operator core inside the block."""
    seen: list[str] = []
    real = _calls.run

    def counting(op, *args, **kwargs):
        seen.append(op.name)
        return real(op, *args, **kwargs)

    monkeypatch.setattr(_calls, "run", counting)
    yield seen
    monkeypatch.setattr(_calls, "run", real)


__all__ = ["ALL", "FLOATS", "NARROW_FLOATS", "REAL", "SPECIAL", "STANDARD", "as_float", "bits",
           "core_calls", "float32_defaults", "make", "sample", "values"]
