"""NaN results of the arithmetic kernels (kernels_cuda/elementwise.cuh) are canonical on every
backend: whatever the payloads and signs of the NaN inputs (quiet or signalling, positive or
negative, CuPy's/NVIDIA's 0x7FFFFFFF), a NaN result is stored as the positive quiet NaN of its
type, each part of a complex on its own; results that are not NaN are the IEEE results.
Inputs go through the public API (device.from_numpy, aclnnAdd, aclnnMul) as raw bits; the
reference is NumPy / ml_dtypes arithmetic with the canonicalization applied by hand."""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from npu_emu import aclnn, device
from npu_emu.dtypes import aclDataType as DT

# Per float type: bits of NaNs of many kinds, then ordinary and special values.
CASES = {
    DT.ACL_FLOAT: dict(
        uint=np.uint32, float=np.float32, canonical=0x7FC00000,
        nans=[0x7FC00000, 0xFFC00000, 0x7FC01234, 0xFFBFFFFF, 0x7F800001, 0x7FFFFFFF],
        others=[0x7F800000, 0xFF800000, 0x00000000, 0x3FC00000, 0xC0000000, 0x00000001]),
    DT.ACL_DOUBLE: dict(
        uint=np.uint64, float=np.float64, canonical=0x7FF8000000000000,
        nans=[0x7FF8000000000000, 0xFFF8000000000000, 0x7FF800000000ABCD, 0xFFF0000000000001,
              0x7FF0000000000001, 0x7FFFFFFFFFFFFFFF],
        others=[0x7FF0000000000000, 0xFFF0000000000000, 0, 0x3FF8000000000000,
                0xC000000000000000, 1]),
    DT.ACL_FLOAT16: dict(
        uint=np.uint16, float=np.float16, canonical=0x7E00,
        nans=[0x7E00, 0xFE00, 0x7E55, 0x7C01, 0xFD00, 0x7FFF],
        others=[0x7C00, 0xFC00, 0x0000, 0x3E00, 0xC000, 0x0001]),
    DT.ACL_BF16: dict(
        uint=np.uint16, float=ml_dtypes.bfloat16, canonical=0x7FC0,
        nans=[0x7FC0, 0xFFC0, 0x7FC1, 0x7F81, 0xFF81, 0x7FFF],
        others=[0x7F80, 0xFF80, 0x0000, 0x3FC0, 0xC000, 0x0001]),
}
COMPLEX = {DT.ACL_COMPLEX64: (DT.ACL_FLOAT, np.complex64), DT.ACL_COMPLEX128: (DT.ACL_DOUBLE, np.complex128)}


def _compute_type(real: DT):
    """Where the kernels compute a real type: f16 and bf16 in float32, the others in themselves."""
    return np.float32 if real in (DT.ACL_FLOAT16, DT.ACL_BF16) else CASES[real]["float"]


def _to_bits(values: np.ndarray, real: DT) -> np.ndarray:
    """Rounded (once, to nearest even) to the type's storage; NaN -> the canonical NaN."""
    c = CASES[real]
    with np.errstate(all="ignore"):
        out = values.astype(c["float"]).view(c["uint"])
    return np.where(np.isnan(values), c["uint"](c["canonical"]), out)


def _values(real: DT) -> np.ndarray:
    c = CASES[real]
    return np.array(c["nans"] + c["others"], dtype=c["uint"]).view(c["float"])


def _pairs(real: DT) -> tuple[np.ndarray, np.ndarray]:
    v = _values(real)
    a, b = zip(*itertools.product(range(v.size), repeat=2))
    return v[list(a)], v[list(b)]


def _run(op: str, a: np.ndarray, b: np.ndarray, dtype: DT, alpha: float | None = None) -> np.ndarray:
    """out = a op b on the current backend, as raw stored bytes."""
    ta, tb = device.from_numpy(a, dtype), device.from_numpy(b, dtype)
    out = device.empty([a.size], dtype)
    if op == "add":
        value = 1.0 if alpha is None else alpha
        scalar = (aclnn.aclCreateScalar(complex(value), dtype) if dtype in COMPLEX
                  else aclnn.aclCreateScalar(value, DT.ACL_FLOAT))
        ws, ex, ret = aclnn.aclnnAddGetWorkspaceSize(ta, tb, scalar, out)
        run = aclnn.aclnnAdd
    else:
        ws, ex, ret = aclnn.aclnnMulGetWorkspaceSize(ta, tb, out)
        run = aclnn.aclnnMul
    assert ret == 0, aclnn.aclGetRecentErrMsg()
    workspace = device.empty([ws], DT.ACL_UINT8) if ws else None
    assert run(workspace.data if workspace else None, ws, ex, None) == 0, aclnn.aclGetRecentErrMsg()
    return np.ascontiguousarray(device.to_numpy(out, raw=True)).view(np.uint8)


@pytest.mark.parametrize("op", ["add", "mul"])
@pytest.mark.parametrize("real", list(CASES), ids=lambda d: d.name)
def test_real_nan_results_are_canonical(backend, real, op):
    a, b = _pairs(real)
    ct = _compute_type(real)
    with np.errstate(all="ignore"):
        x, y = a.astype(ct), b.astype(ct)
        want = _to_bits(x + y if op == "add" else x * y, real)
    got = _run(op, a, b, real).view(CASES[real]["uint"])
    assert (want == CASES[real]["canonical"]).sum() > a.size // 2   # most results are NaN
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("real", list(CASES), ids=lambda d: d.name)
def test_alpha_routes_give_canonical_nans(backend, real):
    """aclnnAdd with alpha != 1 takes CANN's Axpy or Mul-then-Add route by dtype; NaNs come
    out canonical on each. Inputs are NaNs, infinities and small exact values, so every
    result that is not NaN is exact in every route."""
    c = CASES[real]
    pick = c["nans"] + [c["others"][i] for i in (0, 1, 2, 3, 4)]   # no subnormal: routes round it apart
    v = np.array(pick, dtype=c["uint"]).view(c["float"])
    a, b = (v[list(i)] for i in zip(*itertools.product(range(v.size), repeat=2)))
    with np.errstate(all="ignore"):
        exact = a.astype(np.float64) + b.astype(np.float64) * 2.5
    want = _to_bits(exact, real)
    np.testing.assert_array_equal(_run("add", a, b, real, alpha=2.5).view(c["uint"]), want)


def _complex_pairs(cx: DT) -> tuple[np.ndarray, np.ndarray]:
    real, ctype = COMPLEX[cx]
    parts = _values(real)[[0, 1, 2, 4, 6, 8, 9, 10]]          # NaNs of several kinds, inf, 0, 1.5, -2
    combos = np.array(list(itertools.product(parts, repeat=2)))  # (re, im)
    z = np.empty(len(combos), ctype)
    z.real, z.imag = combos[:, 0], combos[:, 1]                 # the NaN payloads exactly
    idx = np.array(list(itertools.product(range(z.size), repeat=2)))
    return z[idx[:, 0]], z[idx[:, 1]]


@pytest.mark.parametrize("op", ["add", "mul"])
@pytest.mark.parametrize("cx", list(COMPLEX), ids=lambda d: d.name)
def test_complex_parts_are_canonical_each_on_its_own(backend, cx, op):
    real, _ = COMPLEX[cx]
    a, b = _complex_pairs(cx)
    with np.errstate(all="ignore"):
        if op == "add":
            re, im = a.real + b.real, a.imag + b.imag
        else:   # the textbook formula, each product rounded (no FMA on either backend)
            re = a.real * b.real - a.imag * b.imag
            im = a.real * b.imag + a.imag * b.real
    want = np.stack([_to_bits(re, real), _to_bits(im, real)], axis=-1).reshape(-1)
    got = _run(op, a, b, cx).view(CASES[real]["uint"])
    assert (np.isnan(re) & ~np.isnan(im)).any()          # parts are independent cases
    np.testing.assert_array_equal(got, want)
