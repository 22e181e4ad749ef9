"""Creation functions against NumPy: arange and linspace (the standard's default dtypes; the
narrow floats computed in float32 and rounded by our casts), eye (one diagonal write),
meshgrid (new arrays, both indexings), tril / triu (bits kept), and asarray's dtype
inference of Python scalars and nested sequences, copy= and device=."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, strategies as st

import npu_emu.array_api as xp

from ._support import ALL, NARROW_FLOATS, as_float, bits, core_calls, make, sample, values

from ._support import float32_defaults  # noqa: F401 (the fixture)

# These tests were written against the NPU's float32 defaults: they run with that setting
# of the switch (test_defaults.py checks the namespace's own, float64).
pytestmark = pytest.mark.usefixtures("float32_defaults")

RNG = np.random.default_rng(16)


@pytest.fixture(autouse=True)
def _backend(backend):
    yield backend


def rounded(v: np.ndarray, dtype: str) -> np.ndarray:
    """float32 values rounded to a narrow float as our cast kernels round (round to nearest
    even; HiFloat8 through our codec)."""
    return as_float(values(make(v.astype(np.float32), dtype)))


# ------------------------------------------------------------------------- arange

@given(start=st.integers(-20, 20), stop=st.integers(-20, 20) | st.none(),
       step=st.integers(-5, 5).filter(bool))
def test_arange_of_ints_matches_python_range(start, stop, step):
    got = xp.arange(start, stop, step)
    want = list(range(start, stop, step) if stop is not None else range(0, start, step))
    assert got.dtype == xp.int64
    assert values(got).tolist() == want


@pytest.mark.parametrize("args", [(0.0, 1.0, 0.1), (5,), (-1.5, 2.0, 0.5), (3.0, -3.0, -0.7),
                                  (0, 1, 0.25), (1.0, 1.0, 1.0)])
def test_arange_of_floats_gives_the_default_float(args):
    got = xp.arange(*args)
    want_dtype = xp.float32 if any(isinstance(a, float) for a in args) else xp.int64
    assert got.dtype == want_dtype
    want = np.arange(*args, dtype=np.float32 if want_dtype == xp.float32 else np.int64)
    np.testing.assert_allclose(values(got), want, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float64"] + NARROW_FLOATS)
def test_arange_with_a_dtype(dtype):
    got = xp.arange(0, 6, 0.5 if dtype not in ("int8", "uint16") else 1,
                    dtype=getattr(xp, dtype))
    assert got.dtype == getattr(xp, dtype)
    host = np.arange(0, 6, 0.5 if dtype not in ("int8", "uint16") else 1, dtype=np.float64)
    want = rounded(host, dtype) if dtype in NARROW_FLOATS else host
    np.testing.assert_array_equal(as_float(values(got)), want)


def test_arange_refuses_bad_arguments():
    with pytest.raises(ValueError, match="step=0"):
        xp.arange(0, 5, 0)
    with pytest.raises(TypeError, match="not an int or a float"):
        xp.arange(True)
    with pytest.raises(TypeError, match="real numeric"):
        xp.arange(3, dtype=xp.complex64)


# ----------------------------------------------------------------------- linspace

@pytest.mark.parametrize("num", [0, 1, 2, 7])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_matches_numpy(num, endpoint):
    got = xp.linspace(-1.0, 3, num, endpoint=endpoint)
    assert got.dtype == xp.float32 and got.shape == (num,)
    np.testing.assert_array_equal(values(got), np.linspace(-1.0, 3, num, endpoint=endpoint,
                                                           dtype=np.float32))
    c = xp.linspace(0, 1 + 2j, num, endpoint=endpoint)
    assert c.dtype == xp.complex64
    np.testing.assert_allclose(values(c), np.linspace(0, 1 + 2j, num, endpoint=endpoint),
                               rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float64"] + NARROW_FLOATS)
def test_linspace_in_other_float_dtypes(dtype):
    got = xp.linspace(0, 1, 9, dtype=getattr(xp, dtype))
    want = np.linspace(0, 1, 9)
    want = rounded(want, dtype) if dtype in NARROW_FLOATS else want
    np.testing.assert_array_equal(as_float(values(got)), want)


def test_float_progressions_round_once_per_operation():
    """arange and linspace of floats follow NumPy's formulas with each operation rounded once
    (no fused multiply-add), so the same bits on every host and backend: references derived
    by hand and from the formulas, not from NumPy's arange and linspace."""
    # ceil((1.3 - 1) / 0.1) = ceil(3.0000000000000004): four values, 1.3 among them; then
    # 1 + i * delta with delta = 1.1 - 1 = 0.10000000000000009, not 0.1
    assert values(xp.arange(1.0, 1.3, 0.1, dtype=xp.float64)).tolist() == \
        [1.0, 1.1, 1.2000000000000002, 1.3000000000000003]
    # float32: start + i * delta in float32, i itself rounded to float32 past 2^24, delta the
    # float32 difference of the first two values
    got = values(xp.arange(3.0, 3.0 + 0.75 * (2**24 + 40), 0.75, dtype=xp.float32))
    first, second = np.float32(3.0), np.float32(3.0 + 0.75)
    want = first + np.arange(got.size).astype(np.float32) * (second - first)
    want[:2] = first, second
    assert got.size == 2**24 + 40 and got.tobytes() == want.tobytes()
    # linspace: i * step + start in float64, rounded once to the dtype; where the step
    # underflows to 0, (i / div) * (stop - start): 5e-324 / 3 is 0, 2/3 of 5e-324 rounds up
    assert values(xp.linspace(0.0, 5e-324, 4, dtype=xp.float64)).tolist() == [0.0, 0.0, 5e-324, 5e-324]
    got = values(xp.linspace(-1.3, 2.7, 11, dtype=xp.float32))
    want = (np.arange(11.0) * ((2.7 - -1.3) / 10) + -1.3).astype(np.float32)
    want[-1] = np.float32(2.7)
    assert got.tobytes() == want.tobytes()


def test_float_arange_edges():
    """A step so long that (stop - start) / step rounds to 0 still gives start; no finite
    count of values is a ValueError naming the arguments (NumPy's own: ValueError too)."""
    assert values(xp.arange(0.0, 1.0, float("inf"), dtype=xp.float64)).tolist() == [0.0]
    assert values(xp.arange(0.0, 1e-300, 1e300, dtype=xp.float64)).tolist() == [0.0]
    assert values(xp.arange(1.0, 0.0, float("inf"), dtype=xp.float64)).tolist() == []
    for args in ((0, float("inf")), (0, float("nan")), (float("-inf"), 1.0)):
        with pytest.raises(ValueError, match="no finite number of values"):
            xp.arange(*args)


def test_linspace_refuses_bad_arguments():
    with pytest.raises(ValueError, match="num=-1"):
        xp.linspace(0, 1, -1)
    with pytest.raises(TypeError, match="cannot hold"):
        xp.linspace(0, 1j, 3, dtype=xp.float32)
    with pytest.raises(TypeError, match="not a number"):
        xp.linspace("0", 1, 3)


# ---------------------------------------------------------------------------- eye

@given(n=st.integers(0, 5), m=st.integers(0, 5) | st.none(), k=st.integers(-6, 6))
def test_eye_matches_numpy(n, m, k):
    got = xp.eye(n, m, k=k)
    assert got.dtype == xp.float32
    np.testing.assert_array_equal(values(got), np.eye(n, m, k=k, dtype=np.float32))


@pytest.mark.parametrize("dtype", ALL)
def test_eye_of_every_dtype_is_one_diagonal_write(dtype, monkeypatch):
    with core_calls(monkeypatch) as seen:
        got = xp.eye(3, 4, k=-1, dtype=getattr(xp, dtype))
    # Note: InplaceCopy takes no complex into a strided view; the library writes those.
    assert seen == ([] if dtype.startswith("complex") else ["InplaceCopy"])
    assert got.dtype == getattr(xp, dtype)
    want = np.eye(3, 4, k=-1)
    np.testing.assert_array_equal(as_float(values(got)), want)


# ----------------------------------------------------------------------- meshgrid

@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sizes", [(), (3,), (2, 3), (2, 0, 4), (1, 2, 3)])
def test_meshgrid_matches_numpy(sizes, indexing):
    hosts = [np.arange(n, dtype=np.int16) * (10 ** i) for i, n in enumerate(sizes)]
    got = xp.meshgrid(*[xp.asarray(h) for h in hosts], indexing=indexing)
    want = np.meshgrid(*hosts, indexing=indexing)
    assert isinstance(got, list) and len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == xp.int16
        np.testing.assert_array_equal(values(g), w)


def test_meshgrid_outputs_are_new_arrays():
    a = xp.asarray([1.0, 2.0, 3.0])[::-1]        # a reversed view as input
    gx, gy = xp.meshgrid(a, xp.asarray([5.0, 6.0]))
    gx[0, 0] = -1.0
    assert float(gx[1, 0]) == 3.0 and float(a[0]) == 3.0
    with pytest.raises(TypeError, match="one dtype"):
        xp.meshgrid(xp.asarray([1.0]), xp.asarray([1]))
    with pytest.raises(ValueError, match="1-D"):
        xp.meshgrid(xp.zeros((2, 2)))
    with pytest.raises(ValueError, match="indexing"):
        xp.meshgrid(a, indexing="yx")


# -------------------------------------------------------------------- tril, triu

@pytest.mark.parametrize("dtype", ["int32", "bfloat16", "hifloat8", "complex64", "bool"])
@pytest.mark.parametrize("k", [-2, 0, 1, 5])
def test_tril_triu_keep_bits_of_stacks(dtype, k):
    x = sample(dtype, (2, 3, 4), RNG)
    for fname in ("tril", "triu"):
        got = getattr(xp, fname)(x, k=k)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(bits(got), getattr(np, fname)(bits(x), k=k))
    with pytest.raises(ValueError, match="at least 2"):
        xp.tril(xp.zeros(3))


@pytest.mark.parametrize("dtype", ["bool", "float16", "float32", "float64", "complex128",
                                   "float8_e4m3fn"])
def test_tril_triu_on_the_kernels_keep_bits_of_every_width(dtype, backend, monkeypatch):
    """The cpu backend's tril and triu are our triangle kernel (1- to 16-byte elements):
    NumPy's tril of x's bits, for every k (past either corner too), stacks, transposed,
    reversed and strided views, and leading axes that do not merge (one launch per index of
    the first)."""
    rng = np.random.default_rng(29)
    base = sample(dtype, (3, 9, 14), rng)
    four = sample(dtype, (2, 3, 5, 7), rng)
    views = {"stack": base, "T": xp.permute_dims(base, (0, 2, 1)), "reversed": base[:, ::-1, :],
             "strided": base[1, 1::2, ::3], "one row": base[0, :1, :], "one column": base[0, :, :1],
             "axes apart": xp.permute_dims(four, (1, 0, 2, 3))}
    for name, x in views.items():
        rows, cols = x.shape[-2:]
        for k in (-2**63, -rows - 3, -rows, -3, -1, 0, 1, 4, cols, cols + 7, 2**70):
            for fname in ("tril", "triu"):
                got = getattr(xp, fname)(x, k=k)
                assert got.dtype == x.dtype
                want = getattr(np, fname)(bits(x), k=max(min(k, 99), -99))
                np.testing.assert_array_equal(bits(got), want, err_msg=f"{fname} {name} k={k}")


def test_tril_of_a_large_matrix_keeps_zeros_and_nan_payloads(backend):
    """A float32 stack, on each backend (the triangle kernel on cpu, the library's tril on
    cuda): NumPy's bits, signed zeros and NaN payloads kept on their side of the diagonal,
    +0 on the other."""
    rng = np.random.default_rng(30)
    v = rng.standard_normal((2, 300, 310)).astype(np.float32)
    v[v > 1.5] = -0.0
    raw = v.view(np.uint32)
    raw[v < -1.5] = 0x7FC01234
    x = xp.asarray(v, copy=True)       # on the backend the fixture made current
    for fname, k in (("tril", -1), ("triu", 3)):
        got = np.asarray(getattr(xp, fname)(x, k=k))
        np.testing.assert_array_equal(got.view(np.uint32), getattr(np, fname)(raw, k=k))


# ------------------------------------------------------------------------ asarray

@pytest.mark.parametrize("obj,dtype", [
    (True, xp.bool), (3, xp.int64), (2.5, xp.float32), (1j, xp.complex64),
    ([1, 2], xp.int64), ([1, 2.0], xp.float32), ([[1.0], [2j]], xp.complex64),
    ([True, False], xp.bool), ([], xp.float32), ([[], []], xp.float32),
    ((1, (2, 3))[1], xp.int64), (np.float64(2.5), xp.float64),
    (np.array([1, 2], dtype=np.uint16), xp.uint16),
    (np.array([1.0], dtype=ml_dtypes.bfloat16), xp.bfloat16),
])
def test_asarray_infers_the_standards_dtypes(obj, dtype):
    got = xp.asarray(obj)
    assert got.dtype == dtype
    np.testing.assert_array_equal(as_float(values(got)), as_float(np.asarray(obj, dtype=None)))


def test_asarray_python_ints_beyond_the_default_integer():
    with pytest.raises(OverflowError, match="int64"):
        xp.asarray([1, 2**63])
    with pytest.raises(OverflowError, match="uint8"):
        xp.asarray([1, 300], dtype=xp.uint8)
    got = xp.asarray([1, 2**63 + 1], dtype=xp.uint64)     # exact: no float on the way
    assert values(got).tolist() == [1, 2**63 + 1]
    assert values(xp.asarray([1.0, 2**63])).dtype == np.float32   # a float asked for it



def test_asarray_python_ints_beyond_int64_into_a_float_dtype():
    """With a floating or complex dtype asked for, ints of any size become floats (through a
    correctly rounded float64, as NumPy); beyond float64's range is an OverflowError. With
    bool, nonzero is true."""
    assert values(xp.asarray(2**64, dtype=xp.float64)).tolist() == float(2**64)
    np.testing.assert_array_equal(values(xp.asarray([2**70, 3], dtype=xp.float32)),
                                  np.array([2**70, 3], dtype=np.float64).astype(np.float32))
    assert values(xp.asarray([2**64], dtype=xp.complex64)).tolist() == [complex(2**64)]
    assert values(xp.asarray(-2**100, dtype=xp.float16)).tolist() == -np.inf
    with pytest.raises(OverflowError, match="float64's range"):
        xp.asarray(2**2000, dtype=xp.float32)
    assert values(xp.asarray([2**64, 0, -2**70], dtype=xp.bool)).tolist() == [True, False, True]


def test_asarray_copy_and_device():
    host = np.arange(4.0, dtype=np.float32)
    shared = xp.asarray(host, copy=False)
    host[0] = 9.0
    assert float(shared[0]) == 9.0
    copied = xp.asarray(host, copy=True)
    host[1] = 8.0
    assert float(copied[1]) == 1.0
    x = xp.asarray([1, 2])
    assert xp.asarray(x) is x and xp.asarray(x, copy=True) is not x
    assert xp.asarray(x, device=x.device, copy=False) is x
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray(x, dtype=xp.int8, copy=False)
    with pytest.raises(ValueError, match="not a device"):
        xp.asarray([1], device="tpu")
    got = xp.asarray(x, dtype=xp.float16)
    assert got.dtype == xp.float16 and values(got).tolist() == [1.0, 2.0]
    dl = xp.from_dlpack(host, copy=False)
    host[2] = 7.0
    assert float(dl[2]) == 7.0


def test_asarray_copies_keep_the_sources_order_as_numpys_do(cpu_backend):
    """asarray(x, copy=True) and asarray(x, dtype=...) of a transposed or permuted array: laid
    out in its order, as np.array (order "K") lays out its copy; the values exact."""
    a = np.random.default_rng(3).standard_normal((4, 6, 5)).astype(np.float32)
    x = xp.asarray(a)
    for ours, theirs in ((xp.permute_dims(x, (2, 0, 1)), np.transpose(a, (2, 0, 1))),
                         (x[1].T, a[1].T), (x[:, ::2], a[:, ::2])):
        for got, want in ((xp.asarray(ours, copy=True), np.array(theirs)),
                          (xp.asarray(ours, dtype=xp.float64), np.array(theirs, np.float64))):
            g = np.asarray(got)
            assert np.array_equal(g, want) and g.dtype == want.dtype
            assert g.strides == want.strides
            assert got._st is not x._st


@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16", "int8", "uint64", "bool",
                                   "complex64", "float8_e4m3fn", "hifloat8"])
@pytest.mark.parametrize("shape", [(3, 5), (1024, 1025)])
def test_zeros_are_zero_bits_in_reused_memory(dtype, shape):
    """zeros clears by memset, or from 1 MiB on (standard dtypes) by the copy kernel from a
    0-d zero: either way every byte is 0, in pool memory that held other values just before
    (the same block handed out again)."""
    dt = getattr(xp, dtype)
    for _ in range(2):
        junk = xp.full(shape, True if dtype == "bool" else 7, dtype=dt)
        del junk
        z = xp.zeros(shape, dtype=dt)
        assert z.shape == shape and z.dtype == dt
        assert not bits(z).view(np.uint8).any()
