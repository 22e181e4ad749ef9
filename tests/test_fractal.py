"""Private layouts (docs/formats.md#private-layouts): the shape math of npu_emu.fractal, and the layout kernels
(kernels_cuda/layout.cuh) against an independent NumPy pad -> reshape -> transpose reference
written here from docs/formats.md#private-layouts -- for every layout, dtypes of 1, 2 and 4 bytes, shapes that are
and are not multiples of the fractal, batch dims, 1-element dims and non-contiguous sources.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import npu_emu
from npu_emu import device
from npu_emu.dtypes import INFO, aclDataType as DT
from npu_emu.formats import aclFormat as F
from npu_emu.fractal import (L, L0C_FRACTAL, LayoutTensor, default_c0, fractal_shape,
                             layout_spec, parse_layout, storage_shape, tensor_spec)
from npu_emu.ops._core import clear_plan_cache
from npu_emu.ops.format_cast import format_cast
from npu_emu.kernels import indexing
from npu_emu.status import AclnnError

# ------------------------------------------------------------------ independent reference

CONV_SOURCE = {"NC1HWC0": "NCHW", "NC1HWC0_C04": "NCHW", "FRACTAL_Z": "NCHW",
               "NDC1HWC0": "NCDHW", "FRACTAL_Z_3D": "NCDHW"}


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def ref_to_layout(x: np.ndarray, layout: str, c0: int, origin: str | None = None) -> np.ndarray:
    """docs/formats.md#private-layouts by hand: pad with zeros, reshape, transpose (batch dims kept)."""
    x = np.asarray(x)
    if layout == "ND":
        return x.copy()
    if layout == "DN":
        return np.ascontiguousarray(np.swapaxes(x, -1, -2))
    if layout in ("FRACTAL_NZ", "Zz", "Zn"):
        *batch, rows, cols = x.shape
        r0, k0 = (c0, 16) if layout == "Zn" else (16, c0)   # Zn: (K, N), K0 = C0, N0 = 16
        r1, k1 = _ceil(rows, r0), _ceil(cols, k0)
        nb = len(batch)
        p = np.pad(x, [(0, 0)] * nb + [(0, r1 * r0 - rows), (0, k1 * k0 - cols)])
        p = p.reshape(*batch, r1, r0, k1, k0)
        b = list(range(nb))
        perm = {"FRACTAL_NZ": [nb + 2, nb, nb + 1, nb + 3],   # (N1, M1, M0, N0)
                "Zz": [nb, nb + 2, nb + 1, nb + 3],           # (M1, K1, M0, K0)
                "Zn": [nb, nb + 2, nb + 3, nb + 1]}[layout]   # (K1, N1, N0, K0)
        return np.ascontiguousarray(p.transpose(b + perm))
    src = origin or CONV_SOURCE[layout]
    canon = "NCDHW" if len(src) == 5 else "NCHW"
    x = np.transpose(x, [src.index(letter) for letter in canon])     # to NCHW / NCDHW
    if layout in ("NC1HWC0", "NC1HWC0_C04"):
        n, c, h, w = x.shape
        c1 = _ceil(c, c0)
        p = np.pad(x, [(0, 0), (0, c1 * c0 - c), (0, 0), (0, 0)]).reshape(n, c1, c0, h, w)
        return np.ascontiguousarray(p.transpose(0, 1, 3, 4, 2))
    if layout == "NDC1HWC0":
        n, c, d, h, w = x.shape
        c1 = _ceil(c, c0)
        p = np.pad(x, [(0, 0), (0, c1 * c0 - c), (0, 0), (0, 0), (0, 0)]).reshape(n, c1, c0, d, h, w)
        return np.ascontiguousarray(p.transpose(0, 3, 1, 4, 5, 2))
    if layout == "FRACTAL_Z":
        n, c, h, w = x.shape
        n1, c1 = _ceil(n, 16), _ceil(c, c0)
        p = np.pad(x, [(0, n1 * 16 - n), (0, c1 * c0 - c), (0, 0), (0, 0)])
        p = p.reshape(n1, 16, c1, c0, h, w).transpose(2, 4, 5, 0, 1, 3)
        return np.ascontiguousarray(p).reshape(c1 * h * w, n1, 16, c0)
    if layout == "FRACTAL_Z_3D":
        n, c, d, h, w = x.shape
        n1, c1 = _ceil(n, 16), _ceil(c, c0)
        p = np.pad(x, [(0, n1 * 16 - n), (0, c1 * c0 - c), (0, 0), (0, 0), (0, 0)])
        p = p.reshape(n1, 16, c1, c0, d, h, w).transpose(4, 2, 5, 6, 0, 1, 3)
        return np.ascontiguousarray(p).reshape(d * c1 * h * w, n1, 16, c0)
    raise ValueError(layout)


def random_raw(shape, dtype: DT, rng: np.random.Generator) -> np.ndarray:
    """Random bit patterns in the dtype's storage type (never zero, so padding shows)."""
    storage = INFO[dtype].storage
    bits = rng.integers(1, 2 ** (8 * storage.itemsize), size=shape, dtype=np.uint64)
    return bits.astype(f"u{storage.itemsize}").view(storage)


def upload(raw: np.ndarray, dtype: DT):
    return device.from_numpy(raw, dtype)


def storage_of(t) -> np.ndarray:
    return device.storage_to_numpy(t).reshape(t.storage_shape)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    u = f"u{a.dtype.itemsize}"
    return a.shape == b.shape and np.array_equal(a.view(u), b.view(u))


# ------------------------------------------------------------------------- shape math

@pytest.mark.parametrize("dtype,shape", [
    (DT.ACL_FLOAT, (16, 8)), (DT.ACL_FLOAT16, (16, 16)), (DT.ACL_BF16, (16, 16)),
    (DT.ACL_INT8, (16, 32)), (DT.ACL_UINT8, (16, 32)), (DT.ACL_FLOAT8_E4M3FN, (16, 32)),
    (DT.ACL_HIFLOAT8, (16, 32)), (DT.ACL_INT4, (16, 64)), (DT.ACL_INT32, (16, 8)),
])
def test_fractal_sizes_by_bit_width(dtype, shape):
    assert fractal_shape(dtype) == shape
    assert default_c0(dtype) == shape[1]
    assert shape[0] * shape[1] * INFO[dtype].bits // 8 == 512   # every fractal is 512 bytes


def test_l0c_fractal_is_16x16():
    assert L0C_FRACTAL == (16, 16)


@pytest.mark.parametrize("layout,shape,dtype,origin,expected", [
    ("FRACTAL_NZ", (20, 28), DT.ACL_FLOAT16, None, (2, 2, 16, 16)),
    ("FRACTAL_NZ", (3, 20, 28), DT.ACL_FLOAT, None, (3, 4, 2, 16, 8)),
    ("FRACTAL_NZ", (40, 56), DT.ACL_FLOAT16, None, (4, 3, 16, 16)),      # the document's M40 K56
    ("FRACTAL_NZ", (2, 1, 33, 65), DT.ACL_INT8, None, (2, 1, 3, 3, 16, 32)),
    ("Zz", (20, 28), DT.ACL_FLOAT, None, (2, 4, 16, 8)),
    ("Zz", (5, 17, 40), DT.ACL_INT8, None, (5, 2, 2, 16, 32)),
    ("Zn", (28, 20), DT.ACL_FLOAT16, None, (2, 2, 16, 16)),
    ("Zn", (28, 20), DT.ACL_FLOAT, None, (4, 2, 16, 8)),
    ("DN", (4, 20, 28), DT.ACL_FLOAT16, None, (4, 28, 20)),
    ("NC1HWC0", (2, 19, 5, 7), DT.ACL_FLOAT16, "NCHW", (2, 2, 5, 7, 16)),
    ("NC1HWC0", (2, 5, 7, 19), DT.ACL_INT8, "NHWC", (2, 1, 5, 7, 32)),
    ("NC1HWC0_C04", (2, 3, 5, 7), DT.ACL_FLOAT16, "NCHW", (2, 1, 5, 7, 4)),
    ("NDC1HWC0", (2, 19, 3, 5, 7), DT.ACL_FLOAT, "NCDHW", (2, 3, 3, 5, 7, 8)),
    ("FRACTAL_Z", (20, 19, 3, 3), DT.ACL_FLOAT16, "NCHW", (18, 2, 16, 16)),
    ("FRACTAL_Z", (3, 3, 19, 20), DT.ACL_FLOAT16, "HWCN", (18, 2, 16, 16)),
    ("FRACTAL_Z_3D", (20, 19, 2, 3, 3), DT.ACL_FLOAT, "NCDHW", (2 * 3 * 9, 2, 16, 8)),
])
def test_storage_shapes(layout, shape, dtype, origin, expected):
    assert storage_shape(layout, shape, dtype, origin=origin) == expected


def test_padding_and_padded_shape():
    spec = layout_spec("NZ", (20, 28), DT.ACL_FLOAT16)
    assert spec.padded_shape == (32, 32)
    assert spec.padding == (12, 4)
    assert spec.fractal == (16, 16)
    assert layout_spec("Zn", (20, 28), DT.ACL_FLOAT).fractal == (16, 8)
    assert layout_spec("NC1HWC0", (1, 3, 2, 2), DT.ACL_FLOAT16).padding == (0, 13, 0, 0)


def test_c0_override_for_torch_npu_conventions():
    # torch_npu: fp32 in FRACTAL_NZ treated as 2-byte (C0 16); NC1HWC0 with C0 16 for every dtype
    assert storage_shape("NZ", (20, 28), DT.ACL_FLOAT, c0=16) == (2, 2, 16, 16)
    assert storage_shape("NC1HWC0", (1, 19, 2, 2), DT.ACL_INT8, c0=16) == (1, 2, 2, 2, 16)
    with pytest.raises(AclnnError):
        storage_shape("NC1HWC0_C04", (1, 3, 2, 2), DT.ACL_FLOAT16, c0=16)


@pytest.mark.parametrize("name,layout,c0", [
    ("NZ", L.FRACTAL_NZ, None), ("nz", L.FRACTAL_NZ, None), ("FRACTAL_NZ", L.FRACTAL_NZ, None),
    (F.ACL_FORMAT_FRACTAL_NZ, L.FRACTAL_NZ, None), (29, L.FRACTAL_NZ, None),
    (F.ACL_FORMAT_FRACTAL_NZ_C0_16, L.FRACTAL_NZ, 16), (52, L.FRACTAL_NZ, 2),
    ("Zz", L.ZZ, None), ("ZZ", L.ZZ, None), ("FRACTAL_ZZ", L.ZZ, None), ("zn", L.ZN, None),
    ("DN", L.DN, None), ("NC1HWC0", L.NC1HWC0, None), (F.ACL_FRACTAL_Z_3D, L.FRACTAL_Z_3D, None),
    ("ND", L.ND, None), ("NCHW", L.ND, None), (F.ACL_FORMAT_NHWC, L.ND, None), (L.ZN, L.ZN, None),
])
def test_layout_names(name, layout, c0):
    assert parse_layout(name) == (layout, c0)


@pytest.mark.parametrize("bad", ["NQ", "", -1, 999, None, 2.5])
def test_bad_layout_names_are_161002(bad):
    with pytest.raises(AclnnError) as err:
        parse_layout(bad)
    assert err.value.code == 161002


def test_shape_errors_are_161002():
    for args in [("NZ", (5,)), ("NC1HWC0", (2, 3, 4)), ("FRACTAL_Z_3D", (1, 2, 3, 4))]:
        with pytest.raises(AclnnError) as err:
            layout_spec(args[0], args[1], DT.ACL_FLOAT16)
        assert err.value.code == 161002
    with pytest.raises(AclnnError):
        layout_spec("NC1HWC0", (1, 2, 3, 4), DT.ACL_FLOAT16, origin="HWCN")   # not an NC1HWC0 source


def test_fractal_sizes_follow_the_soc_record():
    for name in npu_emu.SOCS:
        assert fractal_shape(DT.ACL_FLOAT16, soc=name) == (16, 16)


# ------------------------------------------------------------ the document's 20 x 28 example

def test_document_20x28_float16_nd_to_nz(backend):
    """分形格式详解: data = range(20*28) as float16, (20, 28) -> NZ (2, 2, 16, 16)."""
    a = np.arange(20 * 28).astype(np.float16).reshape(20, 28)
    nz = format_cast(device.from_numpy(a), "NZ")
    assert isinstance(nz, LayoutTensor) and nz.format == F.ACL_FORMAT_FRACTAL_NZ
    assert nz.view_shape == (20, 28) and nz.storage_shape == (2, 2, 16, 16)
    s = storage_of(nz)
    # first fractal (N1=0, M1=0): rows start 0, 28, 56, ... and run 16 columns
    assert list(s[0, 0, :, 0]) == [28 * r for r in range(16)]
    assert list(s[0, 0, 0]) == list(range(16))
    assert list(s[0, 0, 2, :3]) == [56, 57, 58]
    # second fractal (N1=1): 16, 17, ... 27 then zeros (columns 28..31 are padding)
    assert list(s[1, 0, 0]) == list(range(16, 28)) + [0] * 4
    assert list(s[1, 0, 1, :3]) == [44, 45, 46]
    # M1=1: rows 16..19 of the matrix, then padding rows
    assert list(s[0, 1, 3, :3]) == [532, 533, 534]
    assert not s[:, 1, 4:].any() and not s[1, :, :, 12:].any()
    # element by element against the document's pseudo-code
    doc = np.pad(a, [[0, 12], [0, 4]]).reshape(2, 16, 2, 16).transpose(2, 0, 1, 3)
    assert np.array_equal(s, doc)
    assert np.array_equal(device.to_numpy(format_cast(nz, "ND")), a)


# ------------------------------------------------------------------------ the kernels

MATRIX = ["FRACTAL_NZ", "Zz", "Zn", "DN"]
SIZES = st.sampled_from([1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 40])
DTYPES = st.sampled_from([DT.ACL_INT8, DT.ACL_UINT8, DT.ACL_FLOAT16, DT.ACL_BF16,
                          DT.ACL_INT16, DT.ACL_FLOAT, DT.ACL_INT32])


def check_round_trip(x: np.ndarray, dtype: DT, layout: str, c0: int | None = None,
                     origin: str | None = None, src=None) -> LayoutTensor:
    """ND -> layout equals the reference (padding zero), and layout -> ND gives x back."""
    t = upload(x, dtype) if src is None else src
    out = format_cast(t, layout, c0=c0, origin=origin)
    spec = tensor_spec(out)
    want = ref_to_layout(x, layout, spec.c0, origin)
    got = storage_of(out)
    assert got.shape == want.shape
    assert same_bits(got, want)
    pad = math.prod(spec.storage_shape) - x.size
    assert np.count_nonzero(got.view(f"u{got.dtype.itemsize}") == 0) == pad  # source has no zeros
    back = format_cast(out, "ND")
    assert back.format == F.ACL_FORMAT_ND and back.view_shape == x.shape
    assert same_bits(device.to_numpy(back, raw=True), x)
    return out


@given(data=st.data())
def test_matrix_layouts_match_reference(backend, data):
    layout = data.draw(st.sampled_from(MATRIX))
    dtype = data.draw(DTYPES)
    batch = data.draw(st.lists(st.sampled_from([1, 2, 3]), max_size=3))
    shape = (*batch, data.draw(SIZES), data.draw(SIZES))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    check_round_trip(random_raw(shape, dtype, rng), dtype, layout)


@given(data=st.data())
def test_conv_layouts_match_reference(backend, data):
    layout = data.draw(st.sampled_from(["NC1HWC0", "NC1HWC0_C04", "NDC1HWC0", "FRACTAL_Z",
                                        "FRACTAL_Z_3D"]))
    origins = {"NC1HWC0": ["NCHW", "NHWC"], "NC1HWC0_C04": ["NCHW", "NHWC"],
               "NDC1HWC0": ["NCDHW", "NDHWC"], "FRACTAL_Z": ["NCHW", "HWCN", "NHWC"],
               "FRACTAL_Z_3D": ["NCDHW", "DHWCN", "NDHWC"]}[layout]
    origin = data.draw(st.sampled_from(origins))
    dtype = data.draw(DTYPES)
    size = {"N": data.draw(st.sampled_from([1, 2, 15, 17])), "C": data.draw(SIZES)}
    for letter in "DHW":
        size[letter] = data.draw(st.sampled_from([1, 2, 3, 5]))
    shape = tuple(size[letter] for letter in origin)
    if layout == "NC1HWC0_C04":
        shape = tuple(min(n, 9) if letter == "C" else n for n, letter in zip(shape, origin))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    out = check_round_trip(random_raw(shape, dtype, rng), dtype, layout, origin=origin)
    assert out.origin == origin


@given(data=st.data())
def test_non_contiguous_sources(backend, data):
    """Sliced, stepped, transposed views with an offset read the right elements."""
    layout = data.draw(st.sampled_from(MATRIX + ["NC1HWC0"]))
    dtype = data.draw(st.sampled_from([DT.ACL_INT8, DT.ACL_FLOAT16, DT.ACL_FLOAT]))
    rank = 4 if layout == "NC1HWC0" else data.draw(st.integers(2, 3))
    shape = tuple(data.draw(SIZES) if i >= rank - 2 else data.draw(st.integers(1, 3)) for i in range(rank))
    steps = [data.draw(st.integers(1, 2)) for _ in range(rank)]
    perm = data.draw(st.permutations(list(range(rank))))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    # a bigger base, sliced with steps and an offset, then its dims permuted
    base_shape = [n * s + 1 for n, s in zip(shape, steps)]
    base = random_raw([base_shape[p] for p in perm], dtype, rng)
    inv = np.argsort(perm)
    host = base.transpose(inv)[tuple(slice(1, 1 + n * s, s) for n, s in zip(shape, steps))]
    item = host.dtype.itemsize
    base_t = upload(base, dtype)
    offset = (host.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    src = device.view(base_t, host.shape, [s // item for s in host.strides], offset)
    check_round_trip(np.ascontiguousarray(host), dtype, layout, src=src)


def test_all_kernels_and_both_index_widths(backend, monkeypatch):
    """FRACTAL_NZ / Zz / NHWC -> NC1HWC0 take the planes kernel, Zn / DN / NCHW -> NC1HWC0
    the tiled one, a one-axis space the gather one; with the 32-bit path disabled the 64-bit
    kernels give the same bits."""
    from npu_emu.kernels import layout as rl
    seen = []
    real = rl.plan_layout

    def spy(*args, **kwargs):
        launches = real(*args, **kwargs)
        seen.extend(l.kernel.name for l in launches)
        return launches

    monkeypatch.setattr("npu_emu.ops.format_cast.plan_layout", spy)
    rng = np.random.default_rng(7)
    x = random_raw((3, 45, 70), DT.ACL_FLOAT16, rng)
    y = random_raw((2, 33, 9, 11), DT.ACL_FLOAT, rng)
    z = random_raw((1, 5, 1, 1), DT.ACL_INT8, rng)

    def run_all():
        for layout in MATRIX:
            check_round_trip(x, DT.ACL_FLOAT16, layout)
        check_round_trip(y, DT.ACL_FLOAT, "NC1HWC0")
        check_round_trip(y, DT.ACL_FLOAT, "NC1HWC0", origin="NHWC")
        check_round_trip(z, DT.ACL_INT8, "NC1HWC0")

    run_all()
    assert {"layout_planes_b2_i32", "layout_tiled_b2_i32", "layout_tiled_b4_i32",
            "layout_planes_b4_i32", "layout_gather_b1_i32"} <= set(seen)
    seen.clear()
    monkeypatch.setattr(indexing.IterSpace, "fits_32bit", lambda self: False)
    # The plans kept by geometry (the pool gives the same addresses again) chose 32-bit
    # indices for these shapes; without them every call plans again.
    clear_plan_cache()
    run_all()
    assert seen and all(name.endswith("_i64") for name in seen)
    assert {"layout_planes_b2_i64", "layout_tiled_b2_i64", "layout_gather_b1_i64"} <= set(seen)


def test_c0_override_round_trip(backend):
    rng = np.random.default_rng(3)
    x = random_raw((20, 28), DT.ACL_FLOAT, rng)
    out = check_round_trip(x, DT.ACL_FLOAT, "FRACTAL_NZ", c0=16)
    assert out.storage_shape == (2, 2, 16, 16)
    y = random_raw((2, 19, 3, 3), DT.ACL_INT8, rng)
    assert check_round_trip(y, DT.ACL_INT8, "NC1HWC0", c0=16).storage_shape == (2, 2, 3, 3, 16)


def test_one_element_and_empty(backend):
    x = np.array([[7]], dtype=np.float16)
    out = check_round_trip(x, DT.ACL_FLOAT16, "FRACTAL_NZ")
    assert out.storage_shape == (1, 1, 16, 16)
    empty = format_cast(device.from_numpy(np.zeros((0, 5), np.float32)), "NZ")
    assert empty.storage_shape == (1, 0, 16, 8)
    assert format_cast(empty, "ND").view_shape == (0, 5)


def test_private_to_private_goes_through_nd(backend):
    rng = np.random.default_rng(5)
    x = random_raw((2, 37, 41), DT.ACL_FLOAT16, rng)
    zz = format_cast(upload(x, DT.ACL_FLOAT16), "Zz")
    nz = format_cast(zz, "NZ")
    assert same_bits(storage_of(nz), ref_to_layout(x, "FRACTAL_NZ", 16))



def test_gpu_geometry_on_the_cpu(cpu_backend, monkeypatch):
    """The launch shapes a GPU gets (gather with short runs instead of planes, one tile per
    block) give the same bits; the kernels do not depend on how work is split."""
    monkeypatch.setattr(cpu_backend, "is_cpu", False)
    monkeypatch.setattr(cpu_backend, "elementwise_geometry",
                        lambda numel, itemsize: (-(-numel // 3), 1, 3))
    rng = np.random.default_rng(12)
    x = random_raw((2, 45, 70), DT.ACL_FLOAT16, rng)
    for layout in MATRIX:
        check_round_trip(x, DT.ACL_FLOAT16, layout)
    y = random_raw((2, 33, 9, 11), DT.ACL_INT8, rng)
    for origin in ("NCHW", "NHWC"):
        check_round_trip(y, DT.ACL_INT8, "NC1HWC0", origin=origin)


@pytest.mark.parametrize("dtype,shape", [
    (DT.ACL_FLOAT16, (2, 32, 9, 11)),    # C0 16: whole C1 blocks, 3 full tiles of HW + a tail
    (DT.ACL_FLOAT, (1, 16, 8, 8)),       # C0 8: a full tile of 64 positions... in 32s
    (DT.ACL_INT8, (1, 64, 7, 10)),       # C0 32
    (DT.ACL_FLOAT16, (1, 20, 6, 7)),     # C padded in the last block: the generic tile path
])
def test_nc1hwc0_interleave_fast_paths(backend, dtype, shape):
    """NCHW <-> NC1HWC0 with long H*W: the cpu's C0 (de)interleave paths, full tiles and
    tails, against the NumPy reference both ways."""
    rng = np.random.default_rng(5)
    check_round_trip(random_raw(shape, dtype, rng), dtype, "NC1HWC0", origin="NCHW")
