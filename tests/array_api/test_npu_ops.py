"""The NPU's operations through the array API: each eager operation is one call into the
operator core, on our kernels where the SoC's dtype lists have the dtypes and on the backend
library otherwise, with values checked against NumPy / ml_dtypes / the host codecs."""
from __future__ import annotations

import contextlib

import ml_dtypes
import numpy as np
import pytest

import npu_emu
import npu_emu.array_api as xp
from npu_emu import codecs
from npu_emu.array_api._engine import kernel as _calls
from npu_emu.dtypes import aclDataType as DT
from npu_emu.ops import format_cast as format_cast_module
from npu_emu.status import AclnnError

from ._support import float32_defaults  # noqa: F401 (the fixture)

# These tests were written against the NPU's float32 defaults: they run with that setting
# of the switch (test_defaults.py checks the namespace's own, float64).
pytestmark = pytest.mark.usefixtures("float32_defaults")

RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


@contextlib.contextmanager
def core_calls(monkeypatch, module=_calls):
    """Count the calls into npu_emu.ops._core.run made through `module`."""
    seen = []
    real = module.run

    def counting(op, *args, **kwargs):
        seen.append(op.name)
        return real(op, *args, **kwargs)

    monkeypatch.setattr(module, "run", counting)
    yield seen
    monkeypatch.setattr(module, "run", real)


def bits(x: xp.Array) -> np.ndarray:
    """The stored bits of an array (HiFloat8 has no host type), after its queued work."""
    x._st.backend.default_stream.synchronize()
    return np.array(x._raw().get() if hasattr(x._raw(), "get") else x._raw())


def host(dtype_name: str, n: int = 12) -> np.ndarray:
    """Values of a dtype as its NumPy (ml_dtypes) host type, small enough for every op."""
    if dtype_name == "bool":
        return RNG.integers(0, 2, n).astype(bool)
    if dtype_name.startswith(("int", "uint")):
        return RNG.integers(0 if dtype_name.startswith("u") else -20, 20, n).astype(dtype_name)
    values = RNG.uniform(-4, 4, n).astype(np.float32)
    if dtype_name in ("bfloat16", "float8_e5m2", "float8_e4m3fn"):
        return values.astype(getattr(ml_dtypes, dtype_name))
    if dtype_name.startswith("complex"):
        return (values + 1j * RNG.uniform(-4, 4, n)).astype(dtype_name)
    return values.astype(dtype_name)


KERNEL_DTYPES = ["float32", "float16", "float64", "bfloat16", "int8", "int16", "int32",
                 "int64", "uint8", "complex64", "complex128"]
LIBRARY_DTYPES = ["uint16", "uint32", "uint64", "float8_e5m2", "float8_e4m3fn"]


@pytest.mark.parametrize("name", ["add", "subtract", "multiply"])
@pytest.mark.parametrize("dtype", KERNEL_DTYPES + LIBRARY_DTYPES)
def test_add_subtract_multiply(monkeypatch, name, dtype):
    a, b = host(dtype), host(dtype)
    with core_calls(monkeypatch) as calls:
        got = getattr(xp, name)(xp.asarray(a), xp.asarray(b))
    want = getattr(np, name)(a, b)
    assert got.dtype == getattr(xp, dtype)
    if dtype.startswith(("float8", "bfloat16")):
        np.testing.assert_array_equal(np.asarray(got).view(np.uint8 if "8_" in dtype else np.uint16),
                                      want.view(np.uint8 if "8_" in dtype else np.uint16))
    elif dtype.startswith("complex") and name == "multiply":
        # the kernel's complex product rounds its own way (tests/test_add_mul.py has its bits)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6 if dtype == "complex64" else 1e-15)
    else:
        np.testing.assert_array_equal(np.asarray(got), want)
    # subtract off Add: int32 (the Axpy branch's float32 alpha) and complex (alpha -1 times
    # a complex value is not its negation: test_elementwise.py has the special values)
    on_kernel = dtype in KERNEL_DTYPES and not (
        name == "subtract" and (dtype == "int32" or dtype.startswith("complex")))
    # off Add / Mul, our ufunc kernel: bfloat16 computes in float32 inside it; float8
    # operands are converted to float32 by InplaceCopy and the result rounded back by it
    narrow = ["InplaceCopy"] * 3 if dtype.startswith("float8") else []
    assert calls == ([{"multiply": "Mul"}.get(name, "Add")] if on_kernel else narrow)


def test_hifloat8_arithmetic_computes_in_float32():
    a = np.array([1.5, -3.0, 0.75, 100.0], dtype=np.float32)
    b = np.array([0.125, 2.0, -0.5, 28.0], dtype=np.float32)
    x = xp.astype(xp.asarray(a), xp.hifloat8)
    y = xp.astype(xp.asarray(b), xp.hifloat8)
    fa, fb = (codecs.decode(codecs.encode(v, DT.ACL_HIFLOAT8), DT.ACL_HIFLOAT8) for v in (a, b))
    for op in ("add", "multiply", "subtract"):
        got = getattr(xp, op)(x, y)
        assert got.dtype == xp.hifloat8
        np.testing.assert_array_equal(bits(got), codecs.encode(getattr(np, op)(fa, fb), DT.ACL_HIFLOAT8))


def test_unsigned_subtraction_wraps_on_the_kernel():
    a = np.array([0, 5, 255], dtype=np.uint8)
    b = np.array([1, 9, 255], dtype=np.uint8)
    np.testing.assert_array_equal(np.asarray(xp.asarray(a) - xp.asarray(b)), a - b)


def test_int32_subtraction_is_exact():
    a = xp.asarray([16777217, 2 ** 31 - 1], dtype=xp.int32)
    np.testing.assert_array_equal(np.asarray(a - xp.asarray([0, 1], dtype=xp.int32)),
                                  [16777217, 2 ** 31 - 2])


def test_mixed_dtypes_compute_in_the_promoted_type(monkeypatch):
    a16 = np.array([1.5, 2.25, -3.0], dtype=np.float16)
    b32 = np.array([0.1, 1e-4, 65504.0], dtype=np.float32)
    with core_calls(monkeypatch) as calls:
        got = xp.asarray(a16) + xp.asarray(b32)
    assert calls == ["Add"] and got.dtype == xp.float32
    np.testing.assert_array_equal(np.asarray(got), a16.astype(np.float32) + b32)
    s8, u8 = np.array([-100, 7], dtype=np.int8), np.array([200, 3], dtype=np.uint8)
    got = xp.asarray(s8) * xp.asarray(u8)
    assert got.dtype == xp.int16
    np.testing.assert_array_equal(np.asarray(got), s8.astype(np.int16) * u8.astype(np.int16))


def test_bfloat16_add_with_and_without_soc_support(monkeypatch):
    a, b = host("bfloat16"), host("bfloat16")
    want = (a + b).view(np.uint16)
    for soc, kernel in (("Ascend910B", True), ("Ascend910", False)):
        with xp.soc(soc), core_calls(monkeypatch) as calls:
            got = xp.asarray(a) + xp.asarray(b)
        np.testing.assert_array_equal(np.asarray(got).view(np.uint16), want)
        assert calls == (["Add"] if kernel else [])   # else our ufunc kernel, in float32


def _wide(dtype_name: str, shape: tuple[int, int]) -> np.ndarray:
    """Values over a dtype's range (integers that wrap, floats that round, overflow and hit
    the special values), as its NumPy (ml_dtypes) host type."""
    n = int(np.prod(shape))
    if dtype_name == "bool":
        return RNG.integers(0, 2, n).astype(bool).reshape(shape)
    if dtype_name.startswith(("int", "uint")):
        info = np.iinfo(dtype_name)
        return RNG.integers(info.min, info.max, n, dtype=dtype_name, endpoint=True).reshape(shape)
    values = RNG.standard_normal(n) * 10.0 ** RNG.integers(-8, 9, n)
    values[:7] = [0.0, -0.0, np.inf, -np.inf, np.nan, 6e4, -3.4e38]
    if dtype_name.startswith("complex"):
        with np.errstate(invalid="ignore"):       # inf * 1j: a NaN real part, meant
            values = values + 1j * RNG.permutation(values)
    if dtype_name == "bfloat16":
        return values.astype(np.float32).astype(ml_dtypes.bfloat16).reshape(shape)
    with np.errstate(over="ignore"):
        return values.astype(dtype_name).reshape(shape)


@pytest.mark.parametrize("soc", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("da, db", [
    ("float32", "float32"), ("float16", "float16"), ("bfloat16", "bfloat16"),
    ("float64", "float64"), ("float16", "float32"), ("int32", "float32"), ("int8", "int8"),
    ("int32", "int32"), ("int8", "uint8"), ("int64", "int64"), ("bool", "float32"),
    ("complex64", "complex64"), ("complex128", "complex128"), ("complex64", "float32")])
def test_reversed_operands_run_on_our_ufunc_kernel_with_the_operators_bits(
        monkeypatch, soc, da, db):
    # A view with a reversed axis (x[::-1], flip) is not an aclTensor: beside aclnnAdd or
    # aclnnMul it took a copy first. Our ufunc kernel reads it in place, with the operator's
    # bits: the same bytes as the operator on contiguous copies of the same values.
    a, b = xp.asarray(_wide(da, (6, 10))), xp.asarray(_wide(db, (6, 10)))
    row = xp.asarray(_wide(db, (1, 10)))

    def contiguous(v):
        return v if isinstance(v, (int, float)) else xp.asarray(np.array(np.asarray(v)))

    views = [(a[::-1], b), (a[:, ::-1], b[:, ::-1]), (a[::-2, ::-3], b[1::2, ::3]),
             (xp.flip(a), row), (b, a[::-1]), (a[::-1, :], 3 if db != "bool" else True)]
    muladd = soc == "Ascend950" and "complex" in da
    materialized = []
    real = type(a)._materialized
    monkeypatch.setattr(type(a), "_materialized",
                        lambda self: materialized.append(1) or real(self))
    with xp.soc(soc), np.errstate(all="ignore"):
        for op in ("__add__", "__sub__", "__mul__"):
            if op == "__sub__" and "bool" in (da, db):
                continue          # the standard's subtract takes no bool
            for x, y in views:
                materialized.clear()
                with core_calls(monkeypatch) as calls:
                    got = getattr(x, op)(y)
                # (a mixed pair converts its narrower operand first, as the operator would;
                # complex Add on Ascend950 multiplies by alpha, 1 + 0j, which is not the plain
                # sum at infinities: the operator, on a copy)
                if muladd and op == "__add__":
                    assert "Add" in calls, calls
                else:
                    assert not {"Add", "Mul"} & set(calls) and materialized == [], (op, calls)
                cx, cy = contiguous(x), contiguous(y)
                assert cx._flip is None
                want = getattr(cx, op)(cy)
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_array_equal(bits(got).view(np.uint8),
                                              bits(want).view(np.uint8), err_msg=op)
    # in place: a reversed operand or destination, the same way (the ufunc kernel writes
    # x's view; bytes checked by tests/array_api/test_random_views.py)
    if da == db and da != "bool":
        x = xp.asarray(np.array(np.asarray(a)))
        with xp.soc(soc), np.errstate(all="ignore"):   # (complex * 1 is not the identity at inf)
            want = bits((x + contiguous(b[::-1])) * 1)
        materialized.clear()
        with xp.soc(soc), core_calls(monkeypatch) as calls, np.errstate(all="ignore"):
            x += b[::-1]
            x[::-1] *= 1
        # (the scalar 1 becomes a 0-d array of x's dtype: an InplaceCopy of one element)
        assert not {"InplaceMul"} & set(calls), calls
        assert ("InplaceAdd" in calls) == muladd and (materialized == []) != muladd, calls
        np.testing.assert_array_equal(bits(x).view(np.uint8), want.view(np.uint8))
    # the operator still runs where nothing is reversed, as for the references above
    if da == db:
        with core_calls(monkeypatch) as calls:
            a + a
        assert calls == ["Add"]


def test_inplace_kernel_ops(monkeypatch):
    h = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float16)
    x = xp.asarray(h)
    with core_calls(monkeypatch) as calls:
        x += xp.asarray([0.5, 0.25], dtype=xp.float16)
        x *= 2
    assert calls == ["InplaceAdd", "InplaceMul"]
    np.testing.assert_array_equal(h, (np.array([[1, 2], [3, 4]], np.float16)
                                      + np.array([0.5, 0.25], np.float16)) * np.float16(2))


def test_errors_of_the_core_pass_through():
    with pytest.raises(AclnnError) as info:
        xp.expand(xp.ones(2, dtype=xp.float64), (3, 2))
    assert isinstance(info.value, TypeError) and "DT_DOUBLE" in str(info.value)
    with xp.soc("Ascend310B"):
        with pytest.raises(ValueError, match="not supported on Ascend310B"):
            xp.expand(xp.ones(2), (3, 2))


# ------------------------------------------------------------------ expand, views

def test_expand_follows_cann(monkeypatch):
    h = np.arange(3, dtype=np.int32).reshape(1, 3)
    with core_calls(monkeypatch) as calls:
        got = xp.expand(xp.asarray(h), (2, -1, 3))
    assert calls == ["Expand"] and got.shape == (2, 1, 3)
    np.testing.assert_array_equal(np.asarray(got), np.broadcast_to(h, (2, 1, 3)))
    np.testing.assert_array_equal(np.asarray(xp.expand(xp.asarray(h), (4, 3))),
                                  np.broadcast_to(h, (4, 3)))
    assert xp.expand(xp.ones((1, 2)), (0, 2)).shape == (0, 2)
    with pytest.raises(ValueError, match="not match"):
        xp.expand(xp.asarray(h), (2, 2))
    with pytest.raises(ValueError, match="leading"):
        xp.expand(xp.asarray(h), (-1, 1, 3))


def test_broadcast_to_is_a_view():
    h = np.arange(3, dtype=np.float32)
    x = xp.asarray(h)
    b = xp.broadcast_to(x, (4, 3))
    assert np.shares_memory(np.asarray(b), h)
    np.testing.assert_array_equal(np.asarray(b + 1), np.broadcast_to(h, (4, 3)) + 1)
    with pytest.raises(ValueError, match="overlap"):
        b[...] = 1.0                        # its elements share memory: not a destination
    with pytest.raises(ValueError):
        xp.broadcast_to(x, (4, 2))
    p, q = xp.broadcast_arrays(xp.ones((2, 1)), xp.zeros(3))
    assert p.shape == q.shape == (2, 3)


def test_view_functions():
    h = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = xp.asarray(h)
    np.testing.assert_array_equal(np.asarray(xp.permute_dims(x, (2, 0, 1))), h.transpose(2, 0, 1))
    np.testing.assert_array_equal(np.asarray(xp.expand_dims(x, axis=-1)), h[..., None])
    np.testing.assert_array_equal(np.asarray(xp.squeeze(x[:, :1], axis=1)), h[:, 0])
    np.testing.assert_array_equal(np.asarray(xp.matrix_transpose(x)), h.swapaxes(-1, -2))
    r = xp.reshape(x, (4, -1))
    assert np.shares_memory(np.asarray(r), h)
    np.testing.assert_array_equal(np.asarray(r), h.reshape(4, 6))
    t = xp.reshape(xp.permute_dims(x, (0, 2, 1)), (2, 12))        # needs a copy
    np.testing.assert_array_equal(np.asarray(t), h.transpose(0, 2, 1).reshape(2, 12))
    assert not np.shares_memory(np.asarray(t), h)
    with pytest.raises(ValueError, match="copy"):
        xp.reshape(xp.permute_dims(x, (0, 2, 1)), (2, 12), copy=False)
    assert np.shares_memory(np.asarray(xp.reshape(x[:, ::-1], (2, 3, 2, 2))), h)
    with pytest.raises(ValueError):
        xp.squeeze(x, axis=0)
    with pytest.raises(ValueError):
        xp.permute_dims(x, (0, 0, 1))
    with pytest.raises(ValueError):
        xp.reshape(x, (5, -1))


def test_view_copy(monkeypatch):
    src = xp.asarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    h = np.zeros((3, 4), dtype=np.int32)
    dst = xp.asarray(h)
    with core_calls(monkeypatch) as calls:
        assert xp.view_copy(dst[::-1, 1:4][:2], src) is not None
    assert calls == ["InplaceCopy"]
    want = np.zeros((3, 4), dtype=np.int32)
    want[::-1, 1:4][:2] = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(h, want)
    with pytest.raises(ValueError, match="equal shapes"):
        xp.view_copy(dst, src)
    with pytest.raises(TypeError, match="convert"):
        xp.view_copy(dst[:2, :3], xp.astype(src, xp.int64))
    with pytest.raises(TypeError, match="float64"):
        xp.view_copy(xp.zeros(2, dtype=xp.float64), xp.ones(2, dtype=xp.float64))


def test_as_strided_views_of_the_documented_example():
    # A 10x10 storage: shape (6, 5) strides (10, 1) offset 22 covers rows 2..7, columns 2..6;
    # shape (4, 3) strides (20, 2) offset 22 covers rows 2, 4, 6, 8 and columns 2, 4, 6.
    h = np.arange(100, dtype=np.int64).reshape(10, 10)
    x = xp.asarray(h)
    np.testing.assert_array_equal(np.asarray(xp.as_strided(x, (6, 5), (10, 1), 22)), h[2:8, 2:7])
    v = xp.as_strided(x, (4, 3), (20, 2), 22)
    np.testing.assert_array_equal(np.asarray(v), h[2:9:2, 2:7:2])
    v[...] = 0
    assert h[8, 6] == 0 and h[8, 7] == 87
    with pytest.raises(ValueError, match="outside storage"):
        xp.as_strided(x, (10, 10), (10, 1), 1)
    with pytest.raises(ValueError):
        xp.as_strided(x, (2,), (-1,))


# -------------------------------------------------------------------- astype

@pytest.mark.parametrize("target", ["float16", "bfloat16", "float8_e5m2", "float8_e4m3fn"])
def test_astype_is_bit_exact(target):
    values = np.concatenate([RNG.standard_normal(200).astype(np.float32) * 100,
                             np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, 6e4],
                                      dtype=np.float32)])
    got = xp.astype(xp.asarray(values), getattr(xp, target))
    ref = values.astype(getattr(ml_dtypes, target, np.float16))
    width = np.uint16 if ref.itemsize == 2 else np.uint8
    np.testing.assert_array_equal(np.asarray(got).view(width), ref.view(width))


def test_astype_hifloat8_and_back():
    values = np.array([0.3, -1000.0, 40960.0, 2 ** -23, 1.0625], dtype=np.float32)
    h8 = xp.astype(xp.asarray(values), xp.hifloat8)
    np.testing.assert_array_equal(bits(h8), codecs.encode(values, DT.ACL_HIFLOAT8))
    np.testing.assert_array_equal(np.asarray(xp.astype(h8, xp.float32)),
                                  codecs.decode(codecs.encode(values, DT.ACL_HIFLOAT8),
                                                DT.ACL_HIFLOAT8))


def test_astype_paths(monkeypatch):
    x = xp.asarray([1.7, -2.9, 300.0])
    with core_calls(monkeypatch) as calls:
        i = xp.astype(x, xp.int8)                     # Cast: float -> int truncates, low bits
        f8 = xp.astype(x, xp.float8_e5m2)             # not in Ascend910B's Cast list
    assert calls == ["Cast", "InplaceCopy"]
    np.testing.assert_array_equal(np.asarray(i), [1, -2, 300 - 256])
    with xp.soc("Ascend950"), core_calls(monkeypatch) as calls:
        f8b = xp.astype(x, xp.float8_e5m2)
    assert calls == ["Cast"]
    np.testing.assert_array_equal(np.asarray(f8).view(np.uint8), np.asarray(f8b).view(np.uint8))
    assert xp.astype(x, xp.float32, copy=False) is x
    c = xp.astype(x, xp.float32)
    assert c is not x and np.asarray(c).tolist() == np.asarray(x).tolist()
    with pytest.raises(TypeError, match="imaginary"):
        xp.astype(xp.asarray([1j]), xp.float32)
    assert xp.astype(xp.asarray([1j]), xp.complex128).dtype == xp.complex128


# --------------------------------------------------------------- format_cast

def test_format_cast_nz_worked_example(monkeypatch):
    # A 20x28 float16 matrix pads to 32x32: 2x2 fractals (N1, M1, 16, 16). The first
    # fractal's rows start with elements 0, 28, 56, ...; the second (N1 = 1) with 16, 17, ...
    # and zeros after column 27.
    h = np.arange(560, dtype=np.float16).reshape(20, 28)
    with core_calls(monkeypatch, format_cast_module) as calls:
        nz = xp.format_cast(xp.asarray(h), "NZ")
    assert calls == ["LayoutCast"]
    assert nz.shape == (2, 2, 16, 16) and nz.format is npu_emu.fractal.Layout.FRACTAL_NZ
    s = np.asarray(nz)
    np.testing.assert_array_equal(s[0, 0, :3, 0], [0, 28, 56])
    np.testing.assert_array_equal(s[1, 0, 0, :13], [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 0])
    assert not s[0, 1, 4:].any()                # rows 20..31 are padding
    assert "logical shape=(20, 28)" in repr(nz)
    back = xp.format_cast(nz, "ND")
    assert back.shape == (20, 28) and back.format is npu_emu.fractal.Layout.ND
    np.testing.assert_array_equal(np.asarray(back), h)


def test_format_cast_other_layouts():
    h = RNG.standard_normal((3, 5, 7)).astype(np.float32)
    x = xp.asarray(h)
    for fmt in ("Zz", "Zn", "DN", "NZ"):
        y = xp.format_cast(x, fmt)
        assert str(y.format) == {"NZ": "FRACTAL_NZ"}.get(fmt, fmt)
        np.testing.assert_array_equal(np.asarray(xp.format_cast(y, "ND")), h)
    zz = xp.format_cast(x, "Zz")
    np.testing.assert_array_equal(np.asarray(xp.format_cast(zz, "Zn")),
                                  np.asarray(xp.format_cast(x, "Zn")))
    wide = xp.format_cast(x, "NZ", c0=16)         # torch_npu's fp32 C0
    assert wide.shape[-1] == 16
    np.testing.assert_array_equal(np.asarray(xp.format_cast(wide, "ND")), h)
    nc = xp.format_cast(xp.asarray(RNG.standard_normal((2, 3, 4, 4)).astype(np.float16)),
                        "NC1HWC0")
    assert nc.shape == (2, 1, 4, 4, 16)
    t = xp.format_cast(x[:, ::-1], "NZ")          # a reversed view converts too
    np.testing.assert_array_equal(np.asarray(xp.format_cast(t, "ND")), h[:, ::-1])
    plain = (nz := xp.format_cast(x, "NZ")) + 0   # arithmetic sees the storage: an ND result
    assert plain.format is npu_emu.fractal.Layout.ND and plain.shape == nz.shape


# -------------------------------------------------------------------- matmul

def test_matmul_on_the_cube(monkeypatch):
    a = RNG.standard_normal((2, 5, 40)).astype(np.float32)
    b = RNG.standard_normal((40, 3)).astype(np.float32)
    with core_calls(monkeypatch) as calls:
        got = xp.matmul(xp.asarray(a), xp.asarray(b))
    assert calls == ["Matmul"] and got.dtype == xp.float32
    np.testing.assert_allclose(np.asarray(got), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    v = xp.asarray(b[:, 0]) @ xp.asarray(b)                  # 1-D operands
    np.testing.assert_allclose(np.asarray(v), b[:, 0].astype(np.float64) @ b, rtol=1e-5)
    h = xp.matmul(xp.asarray(a.astype(np.float16)), xp.asarray(b.astype(np.float16)))
    assert h.dtype == xp.float16                             # fp32 accumulation, one rounding
    ref = (a.astype(np.float16).astype(np.float64) @ b.astype(np.float16)).astype(np.float16)
    assert np.mean(np.asarray(h) == ref) > 0.95


def test_matmul_cube_math_type_and_soc_rules():
    a = xp.asarray(RNG.standard_normal((4, 4)).astype(np.float32))
    hf32 = xp.matmul(a, a, cube_math_type=3)                  # HF32 on Ascend910B
    np.testing.assert_allclose(np.asarray(hf32), np.asarray(a) @ np.asarray(a), rtol=1e-2)
    with xp.soc("Ascend910"), pytest.raises(ValueError, match="KEEP_DTYPE"):
        xp.matmul(a, a)                                       # no fp32 cube on Ascend910
    with pytest.raises(ValueError, match="0-d"):
        xp.matmul(xp.asarray(1.0), a)


def test_matmul_on_the_library_for_other_dtypes(monkeypatch):
    a = RNG.integers(-9, 9, (3, 4)).astype(np.int32)
    b = RNG.integers(-9, 9, (4, 2)).astype(np.int64)
    with core_calls(monkeypatch) as calls:
        got = xp.asarray(a) @ xp.asarray(b)
    assert calls == [] and got.dtype == xp.int64
    np.testing.assert_array_equal(np.asarray(got), a @ b)
    with pytest.raises(ValueError):
        xp.asarray(a) @ xp.asarray(a)


# ------------------------------------------------------------ one call, creation

def test_each_eager_operation_is_one_core_call(monkeypatch):
    x, y = xp.ones((3, 4)), xp.ones((4, 2))
    ops = {
        "full": lambda: xp.full((2, 2), 3.0),
        "setitem": lambda: x.__setitem__((slice(None), 0), 5.0),
        "astype": lambda: xp.astype(x, xp.float16),
        "add": lambda: x + x,
        "expand": lambda: xp.expand(x[:1], (5, 4)),
        "matmul": lambda: x @ y,
        "copy": lambda: xp.asarray(x, copy=True),
    }
    for name, fn in ops.items():
        with core_calls(monkeypatch) as calls:
            fn()
        assert len(calls) == 1, (name, calls)
    with core_calls(monkeypatch) as calls:
        xp.zeros((3, 3))
        xp.reshape(x, (12,))
        x[1:, ::2]
    assert calls == []


def test_set_soc_is_the_package_switch():
    assert xp.set_soc is npu_emu.set_soc and xp.soc is npu_emu.soc
    with xp.soc("Ascend950") as s:
        assert npu_emu.current_soc() is s
    assert npu_emu.current_soc().name == "Ascend910B"
