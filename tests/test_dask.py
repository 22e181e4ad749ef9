"""npu_emu.dask: every operation on dask arrays equals the single-process result of
npu_emu.array_api bit for bit, with chunkings that do not divide the shape; chunks are
wrapped without a copy; HiFloat8 travels as its bits and says so; without Dask the import
says how to install it. Behaviour asserted against dask 2026.8.0."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="npu_emu.dask needs the dask extra")

import npu_emu.array_api as xp  # noqa: E402
import npu_emu.dask as nd  # noqa: E402
from npu_emu import codecs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RNG = np.random.default_rng(22)
# The namespace's dtypes: every one an astype may target.
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "bfloat16", "float8_e5m2", "float8_e4m3fn",
          "hifloat8", "complex64", "complex128"]


@pytest.fixture
def lib(backend):
    """The chunks' library of the backend under test: NumPy on cpu, CuPy on cuda."""
    if backend.name == "cuda":
        import cupy
        return cupy
    return np


def whole(arr) -> np.ndarray:
    """A single-process result of the namespace as a host chunk (HiFloat8 as bits)."""
    if arr.dtype == xp.hifloat8:
        return codecs.encode(np.asarray(arr), "hif8")
    return np.asarray(arr) if arr.device == "cpu" else np.asarray(arr.to_device("cpu"))


def host(x: "da.Array") -> np.ndarray:
    out = x.compute(scheduler="threads")
    return out.get() if hasattr(out, "get") and not isinstance(out, np.ndarray) else out


def assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    assert got.dtype.itemsize == want.dtype.itemsize
    g = np.ascontiguousarray(got).view(np.uint8)
    w = np.ascontiguousarray(want).view(np.uint8)
    assert np.array_equal(g, w), f"{np.count_nonzero(g != w)} bytes differ"


def values(shape, scale=8.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def chunked(a: np.ndarray, chunks, lib=np) -> "da.Array":
    return da.from_array(lib.asarray(a), chunks=chunks, asarray=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_astype_to_every_dtype_is_the_single_process_result(dtype, cpu_backend):
    a = values((37, 45), 40.0)
    got = nd.astype(chunked(a, (10, 17)), dtype)
    want = whole(xp.astype(xp.asarray(a), getattr(xp, dtype)))
    assert_same_bits(host(got), want)
    assert nd.npu_dtype(got) == getattr(xp, dtype)
    if dtype == "hifloat8":          # its bits, said so in the metadata of dtype and chunks
        assert got.dtype == np.uint8 and got.dtype.metadata == {nd.DTYPE_KEY: "hifloat8"}
        assert got.blocks[1, 2].compute().dtype.metadata == {nd.DTYPE_KEY: "hifloat8"}
    elif dtype in ("bfloat16", "float8_e5m2", "float8_e4m3fn"):
        import ml_dtypes
        assert got.dtype == np.dtype(getattr(ml_dtypes, dtype))


def test_astype_from_narrow_dtypes_back_to_float32(backend, lib):
    a = values((29, 33))
    src = nd.astype(chunked(a, (8, 7), lib), "float16")
    for target in ("float32", "int32", "float64"):
        got = nd.astype(src, target)
        ref = xp.astype(xp.astype(xp.asarray(a), xp.float16), getattr(xp, target))
        assert_same_bits(host(got), whole(ref))


def test_hifloat8_bits_in_and_out(cpu_backend):
    codes = np.arange(256, dtype=np.uint8).reshape(16, 16)
    x = nd.with_dtype(chunked(codes, (5, 7)), "hifloat8")
    assert nd.npu_dtype(x) == xp.hifloat8
    back = nd.astype(nd.astype(x, "float32"), "hifloat8")   # every code, there and back
    assert_same_bits(host(back), codes)
    f32 = host(nd.astype(x, "float32"))
    want = codecs.decode(codes, "hif8")                     # the codec's own table
    assert np.array_equal(np.isnan(f32), np.isnan(want))
    assert np.array_equal(f32[~np.isnan(f32)], want[~np.isnan(want)])
    with pytest.raises(TypeError, match="hifloat8 travels as uint8 bits"):
        nd.with_dtype(chunked(codes.astype(np.int16), 8), "hifloat8")


def test_chunks_are_wrapped_without_a_copy(cpu_backend):
    a = values((8, 8))
    block = np.ascontiguousarray(a[2:6])
    wrapped = nd._wrap(block, "float32")
    assert np.shares_memory(np.asarray(wrapped), block)
    result = nd._unwrap(xp.astype(wrapped, xp.float16))
    assert isinstance(result, np.ndarray) and result.dtype == np.float16
    assert np.shares_memory(result, np.asarray(xp.asarray(result)))     # a view, handed on


@pytest.mark.parametrize("x_shape,size,chunks", [
    ((1, 45), (50, 45), (1, 20)),
    ((37, 1), (3, 37, 9), (7, 1)),
    ((5, 1, 6), (4, 5, 7, 6), (2, 1, 4)),
    ((1, 45), (23, -1), (1, 11)),
])
def test_expand_is_the_single_process_result(x_shape, size, chunks, backend, lib):
    a = values(x_shape)
    got = nd.expand(chunked(a, chunks, lib), size)
    assert_same_bits(host(got), whole(xp.expand(xp.asarray(a), size)))


def test_expand_keeps_the_chunks_asked_for(cpu_backend):
    a = values((1, 45))
    got = nd.expand(chunked(a, (1, 20)), (50, 45), chunks=(13, 9))
    assert got.chunks == ((13, 13, 13, 11), (9,) * 5)
    assert_same_bits(host(got), np.broadcast_to(a, (50, 45)))
    with pytest.raises(ValueError, match="does not broadcast to size"):
        nd.expand(chunked(values((2, 45)), 1), (50, 45))


@pytest.mark.parametrize("op", ["add", "multiply"])
@pytest.mark.parametrize("d1,d2,s1,s2", [
    ("float16", "float32", (37, 45), (37, 45)),
    ("float16", "float16", (37, 45), (45,)),
    ("int8", "uint8", (37, 1), (1, 45)),
    ("bfloat16", "float16", (37, 45), (1, 45)),
    ("float8_e4m3fn", "float8_e4m3fn", (37, 45), (37, 45)),
    ("hifloat8", "hifloat8", (37, 45), (37, 1)),
])
def test_add_and_multiply_promote_and_broadcast_as_one_process(op, d1, d2, s1, s2, cpu_backend):
    a, b = values(s1, 4.0), values(s2, 4.0)
    x = nd.astype(chunked(a, tuple(min(n, c) for n, c in zip(s1, (10, 17)))), d1)
    y = nd.astype(chunked(b, tuple(min(n, c) for n, c in zip(s2[-2:], (9, 13)))[-len(s2):]), d2)
    got = getattr(nd, op)(x, y)
    ref = getattr(xp, op)(xp.astype(xp.asarray(a), getattr(xp, d1)),
                          xp.astype(xp.asarray(b), getattr(xp, d2)))
    assert nd.npu_dtype(got) == ref.dtype               # the NPU's promotion
    assert_same_bits(host(got), whole(ref))


def test_add_with_a_python_scalar_and_on_the_backend(backend, lib):
    a = values((29, 31))
    x = chunked(a, (8, 9), lib)
    assert_same_bits(host(nd.add(x, 1.5)), whole(xp.add(xp.asarray(a), 1.5)))
    assert_same_bits(host(nd.multiply(3, x)), whole(xp.multiply(3, xp.asarray(a))))


@pytest.mark.parametrize("layout", ["FRACTAL_NZ", "Zz", "Zn", "DN"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "int8", "hifloat8"])
def test_format_cast_there_and_back(layout, dtype, cpu_backend):
    a = values((37, 45))
    x = nd.astype(chunked(a, (10, 17)), dtype)       # chunks that cut fractal tiles
    ref = xp.format_cast(xp.astype(xp.asarray(a), getattr(xp, dtype)), layout)
    private = nd.format_cast(x, layout)
    assert private.shape == ref.shape
    name, c0, view_shape = nd.layout_of(private)
    assert (name, view_shape) == (ref.format.value, (37, 45))
    assert_same_bits(host(private), whole(ref))
    back = nd.format_cast(private, "ND")
    assert nd.layout_of(back) is None
    assert_same_bits(host(back), whole(xp.astype(xp.asarray(a), getattr(xp, dtype))))


def test_format_cast_blocks_are_whole_tiles(backend, lib):
    a = values((100, 70))
    x = nd.astype(chunked(a, (33, 30), lib), "float16")
    nz = nd.format_cast(x, "FRACTAL_NZ")
    # (N1, M1, M0, N0): the tile axes chunked by whole 16-wide tiles, the inner axes whole.
    assert nz.chunks[2:] == ((16,), (16,)) and sum(nz.chunks[0]) == 5 and sum(nz.chunks[1]) == 7
    ref = xp.format_cast(xp.astype(xp.asarray(a), xp.float16), "FRACTAL_NZ")
    assert_same_bits(host(nz), whole(ref))
    # a storage array cut inside the tiles is rechunked back to whole tiles
    back = nd.format_cast(nz.rechunk((2, 3, 5, 7)), "ND")
    assert_same_bits(host(back), whole(xp.astype(xp.asarray(a), xp.float16)))
    with pytest.raises(ValueError, match="ND already"):
        nd.format_cast(x, "ND")


@pytest.mark.parametrize("dtype", ["float16", "float32", "bfloat16"])
def test_matmul_by_blocks_of_m_and_n_is_the_single_process_result(dtype, cpu_backend):
    m, k, n = 45, 70, 38
    a, b = values((m, k), 1.0), values((k, n), 1.0)
    x = nd.astype(chunked(a, (10, 30)), dtype)    # K chunked too: made whole per block
    y = nd.astype(chunked(b, (25, 11)), dtype)
    got = nd.matmul(x, y)
    assert got.chunks == ((10, 10, 10, 10, 5), (11, 11, 11, 5))
    ref = xp.matmul(xp.astype(xp.asarray(a), getattr(xp, dtype)),
                    xp.astype(xp.asarray(b), getattr(xp, dtype)))
    assert nd.npu_dtype(got) == ref.dtype
    assert_same_bits(host(got), whole(ref))


def test_matmul_on_the_backend(backend, lib):
    a, b = values((33, 40), 1.0), values((40, 19), 1.0)
    got = nd.matmul(chunked(a, (7, 40), lib), chunked(b, (40, 6), lib), cube_math_type=1)
    ref = xp.matmul(xp.asarray(a), xp.asarray(b), cube_math_type=1)
    assert_same_bits(host(got), whole(ref))
    with pytest.raises(ValueError, match="do not match"):
        nd.matmul(chunked(a, 8, lib), chunked(a, 8, lib))


def test_bad_dtypes_are_refused_when_the_graph_is_built(cpu_backend):
    x = chunked(values((4, 4)), 2)
    with pytest.raises(TypeError, match="float17"):
        nd.astype(x, "float17")
    f64 = nd.astype(x, "float64")
    with pytest.raises(Exception, match="(?i)float64|DOUBLE"):   # Expand has no float64
        nd.expand(f64[:1], (3, 4))


def test_without_dask_the_import_says_how_to_install_it():
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'dask':\n"
            "            raise ModuleNotFoundError('blocked for the test: ' + name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "import npu_emu.dask\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    assert r.returncode == 1
    assert "ImportError: npu_emu.dask needs Dask: pip install 'npu-emu[dask]'" in r.stderr
