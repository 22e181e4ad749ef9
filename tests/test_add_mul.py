"""aclnnAdd / aclnnMul and their Inplace forms (docs/dtypes.md, docs/views.md#broadcasting, docs/operators.md) against NumPy/ml_dtypes
computing in the promoted type, with CANN's alpha branches; the error rows."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, strategies as st

import npu_emu
from npu_emu import aclnn, device
from npu_emu.dtypes import INFO, aclDataType as DT
from npu_emu.status import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS
from npu_emu.tensor import make_tensor

from helpers import contiguous, bits, host_values, host_view, injective_views, readable_views, reference_convert, storage_tensor

ADD_910B = sorted(npu_emu.SOCS["Ascend910B"].dtypes_for("Add"))


def ws_run(get, run, *args):
    ws, ex, ret = get(*args)
    if ret != ACLNN_SUCCESS:
        return ret
    wsp = device.empty([ws], "u8") if ws else None
    return run(wsp.data if wsp else None, ws, ex, None)


def add(a, b, out, alpha=1.0, alpha_dt=DT.ACL_FLOAT):
    return ws_run(aclnn.aclnnAddGetWorkspaceSize, aclnn.aclnnAdd, a, b, aclnn.aclCreateScalar(alpha, alpha_dt), out)


def mul(a, b, out):
    return ws_run(aclnn.aclnnMulGetWorkspaceSize, aclnn.aclnnMul, a, b, out)


# ----------------------------------------------------------------- an independent reference

def host_dtype(dt):
    info = INFO[dt]
    return info.host if info.host is not None else info.storage


def as_compute(values, src, compute):
    """values (host dtype of src) converted to the compute dtype's host dtype."""
    raw_bits = reference_convert(values, src, compute)
    return raw_bits.view(INFO[compute].storage).view(host_dtype(compute)) if INFO[compute].itemsize <= 8 \
        else raw_bits.view(np.complex128)


def c_mul(a, b):
    """Textbook complex product, every step rounded (no fused multiply-add)."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    out = np.empty_like(a)
    out.real = ar * br - ai * bi
    out.imag = ar * bi + ai * br
    return out


def ref_mul(a, b, dt):
    if INFO[dt].kind == "complex":
        return c_mul(a, b)
    if dt == DT.ACL_BOOL:
        return a & b
    return (a * b).astype(a.dtype)


def ref_add(a, b, dt):
    if dt == DT.ACL_BOOL:
        return a | b
    return (a + b).astype(a.dtype)


def ref_binary(op, a, b, compute, alpha, soc):
    """a, b already in the compute type (host dtype), broadcast; alpha a Python number."""
    with np.errstate(all="ignore"):
        if op == "mul":
            return ref_mul(a, b, compute)
        alpha_f = np.float32(alpha.real if isinstance(alpha, complex) else alpha)
        is_950 = soc == "Ascend950"
        one = (alpha_f == 1) if not (is_950 and (isinstance(alpha, complex) or INFO[compute].kind == "complex")) else False
        if is_950 and compute == DT.ACL_DOUBLE and not isinstance(alpha, complex):
            one = float(alpha) == 1.0
        if one:
            return ref_add(a, b, compute)
        axpy = {DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_BF16} if is_950 else {DT.ACL_FLOAT, DT.ACL_FLOAT16, DT.ACL_INT32}
        if compute in axpy:  # CANN's Axpy golden
            if compute in (DT.ACL_FLOAT16, DT.ACL_BF16):
                r = a.astype(np.float32) + b.astype(np.float32) * alpha_f
                return r.astype(a.dtype)
            if compute == DT.ACL_FLOAT:
                return (a.astype(np.float64) + b.astype(np.float64) * np.float64(alpha_f)).astype(np.float32)
            r = a.astype(np.float32) + b.astype(np.float32) * alpha_f
            # float -> int32 truncates and saturates (npu_emu_convert.cuh; NumPy's is undefined)
            return np.clip(np.trunc(r.astype(np.float64)), -2**31, 2**31 - 1).astype(np.int32)
        value = alpha if INFO[compute].kind == "complex" else (alpha.real if isinstance(alpha, complex) else alpha)
        alpha_t = np.asarray(value).astype(np.float32 if compute in (DT.ACL_FLOAT16, DT.ACL_BF16) else host_dtype(compute)).astype(host_dtype(compute))
        return ref_add(a, ref_mul(b, np.broadcast_to(alpha_t, b.shape), compute), compute)


def small_values(rng, dt, n):
    """Values whose sums and products stay well inside every type's range."""
    kind = INFO[dt].kind
    if kind == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if kind in ("signed", "unsigned"):
        return host_values(rng, dt, n)  # integers wrap: any value is fine
    if kind == "complex":
        return (rng.uniform(-50, 50, n) + 1j * rng.uniform(-50, 50, n)).astype(INFO[dt].storage)
    return rng.uniform(-50, 50, n).astype(np.float32).astype(host_dtype(dt))


@st.composite
def binary_cases(draw, op):
    soc = draw(st.sampled_from(["Ascend910B", "Ascend910", "Ascend950"]))
    rules = draw(st.sampled_from(["documented", "implementation"]))
    dtypes = sorted(npu_emu.SOCS[soc].dtypes_for("Add" if op == "add" else "Mul"))
    a_dt, b_dt = draw(st.sampled_from(dtypes)), draw(st.sampled_from(dtypes))
    with npu_emu.promotion_rules(rules):
        try:
            compute = npu_emu.promote_types(a_dt, b_dt)
        except npu_emu.AclnnError:
            compute = None
        outs = [d for d in dtypes if compute is not None and npu_emu.can_cast(compute, d)]
    out_dt = draw(st.sampled_from(outs)) if outs else a_dt
    rank = draw(st.integers(0, 8))
    shape = draw(st.lists(st.integers(1, 3) if rank > 4 else st.integers(0, 4), min_size=rank, max_size=rank))
    a_shape = [1 if draw(st.booleans()) else n for n in shape[draw(st.integers(0, rank)):]]
    b_shape = [1 if draw(st.booleans()) else n for n in shape[draw(st.integers(0, rank)):]]
    if tuple(np.broadcast_shapes(tuple(a_shape), tuple(b_shape))) != tuple(shape):
        a_shape = list(shape)
    alpha = draw(st.sampled_from([1.0, 2.5, -1.0, 0.5, 3]))
    return (soc, rules, a_dt, b_dt, compute, out_dt, shape, a_shape, b_shape,
            draw(readable_views(a_shape)), draw(readable_views(b_shape)), draw(injective_views(shape)),
            alpha, draw(st.integers(0, 2**31)))


@pytest.mark.parametrize("op", ["add", "mul"])
@given(data=st.data())
def test_binary_matches_reference(backend, op, data):
    (soc, rules, a_dt, b_dt, compute, out_dt, shape, a_shape, b_shape, (sa, oa, la), (sb, ob, lb),
     (so, oo, lo), alpha, seed) = data.draw(binary_cases(op))
    rng = np.random.default_rng(seed)
    a_vals, b_vals = small_values(rng, a_dt, la), small_values(rng, b_dt, lb)
    a = storage_tensor(a_vals, a_dt, a_shape, sa, oa)
    b = storage_tensor(b_vals, b_dt, b_shape, sb, ob)
    out = storage_tensor(host_values(rng, out_dt, lo), out_dt, shape, so, oo)
    before = bits(device.storage_to_numpy(out)).copy()
    # alpha's dtype must cast to the compute type (docs/dtypes.md#result-conversion; integral for bool)
    kind = INFO[compute].kind if compute is not None else "floating"
    if kind in ("bool", "signed", "unsigned"):
        alpha, alpha_dt = int(alpha), DT.ACL_INT32
    elif kind == "complex":
        alpha, alpha_dt = complex(alpha), DT.ACL_COMPLEX64
    else:
        alpha_dt = DT.ACL_FLOAT
    with npu_emu.soc(soc), npu_emu.promotion_rules(rules):
        ret = add(a, b, out, alpha, alpha_dt) if op == "add" else mul(a, b, out)
    if compute is None:
        assert ret == ACLNN_ERR_PARAM_INVALID
        return
    assert ret == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    want = before
    if all(shape):
        av = as_compute(contiguous(host_view(np.asarray(a_vals), a_shape, sa, oa)), a_dt, compute)
        bv = as_compute(contiguous(host_view(np.asarray(b_vals), b_shape, sb, ob)), b_dt, compute)
        av, bv = np.broadcast_to(av, shape), np.broadcast_to(bv, shape)
        r = ref_binary(op, av, bv, compute, alpha, soc)
        host_view(want, shape, so, oo)[...] = reference_convert(contiguous(r), compute, out_dt).reshape(shape)
    np.testing.assert_array_equal(bits(device.storage_to_numpy(out)), want)


def _t(values, dt):
    return device.from_numpy(np.asarray(values), dt)


def test_documented_examples(backend):
    """docs/dtypes.md#type-promotion: f16 + f32 computes in f32; f32 + bool in f32."""
    a = _t([1.0, 2.0], DT.ACL_FLOAT16)
    b = _t([0.1, 0.2], DT.ACL_FLOAT)
    out = device.empty([2], DT.ACL_FLOAT)
    assert add(a, b, out) == ACLNN_SUCCESS
    np.testing.assert_array_equal(device.to_numpy(out), np.array([1.1, 2.2], np.float32))
    flags = _t([True, False], DT.ACL_BOOL)
    assert add(b, flags, out) == ACLNN_SUCCESS
    np.testing.assert_array_equal(device.to_numpy(out), np.float32([0.1, 0.2]) + np.float32([1, 0]))


def test_result_conversion_refused(backend):
    a = _t([1.5], DT.ACL_FLOAT)
    out = device.empty([1], DT.ACL_INT32)
    assert add(a, a, out) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclGetRecentErrMsg() == "Promote dtype DT_FLOAT can't be cast to the desired output type DT_INT32."
    assert mul(a, a, out) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclGetRecentErrMsg() == "Result type DT_FLOAT can't be cast to the desired output type DT_INT32."


def test_alpha_rules(backend):
    f = _t([1.0, 2.0], DT.ACL_FLOAT)
    out = device.empty([2], DT.ACL_FLOAT)
    assert add(f, f, out, alpha=1 + 2j, alpha_dt=DT.ACL_COMPLEX64) == ACLNN_ERR_PARAM_INVALID
    assert "Alpha dtype DT_COMPLEX64 can't be cast to the promote dtype DT_FLOAT" in aclnn.aclGetRecentErrMsg()
    flags = _t([True, False], DT.ACL_BOOL)
    bout = device.empty([2], DT.ACL_BOOL)
    assert add(flags, flags, bout, alpha=1.0, alpha_dt=DT.ACL_FLOAT) == ACLNN_ERR_PARAM_INVALID
    assert add(flags, flags, bout, alpha=1, alpha_dt=DT.ACL_INT32) == ACLNN_SUCCESS
    assert ws_run(aclnn.aclnnAddGetWorkspaceSize, aclnn.aclnnAdd, f, f, None, out) == ACLNN_ERR_PARAM_NULLPTR


@pytest.mark.parametrize("name,call,code", [
    ("add self None", lambda o: add(None, o, o), ACLNN_ERR_PARAM_NULLPTR),
    ("add out None", lambda o: add(o, o, None), ACLNN_ERR_PARAM_NULLPTR),
    ("mul other None", lambda o: mul(o, None, o), ACLNN_ERR_PARAM_NULLPTR),
    ("uint16 not in list", lambda o: add(_t([1], DT.ACL_UINT16), o, o), ACLNN_ERR_PARAM_INVALID),
    ("mul out not in list", lambda o: mul(o, o, device.empty([2], DT.ACL_UINT32)), ACLNN_ERR_PARAM_INVALID),
    ("broadcast mismatch", lambda o: add(_t([1, 2, 3], DT.ACL_FLOAT), o, o), ACLNN_ERR_PARAM_INVALID),
    ("out shape", lambda o: add(o, o, device.empty([3], DT.ACL_FLOAT)), ACLNN_ERR_PARAM_INVALID),
    ("9-D", lambda o: mul(device.empty([1] * 9, DT.ACL_FLOAT), o, device.empty([1] * 8 + [2], DT.ACL_FLOAT)), ACLNN_ERR_PARAM_INVALID),
])
def test_error_rows(backend, name, call, code):
    o = _t([1.0, 2.0], DT.ACL_FLOAT)
    keep = device.to_numpy(o).copy()
    assert call(o) == code
    assert aclnn.aclGetRecentErrMsg()
    np.testing.assert_array_equal(device.to_numpy(o), keep)


def test_inplace_forms(backend):
    x = _t([[1.0, 2.0], [3.0, 4.0]], DT.ACL_FLOAT16)
    y = _t([10.0, 20.0], DT.ACL_FLOAT)
    r = ws_run(aclnn.aclnnInplaceAddGetWorkspaceSize, aclnn.aclnnInplaceAdd, x, y, aclnn.aclCreateScalar(2.0, DT.ACL_FLOAT))
    assert r == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    np.testing.assert_array_equal(device.to_numpy(x), np.float16([[21, 42], [23, 44]]))
    r = ws_run(aclnn.aclnnInplaceMulGetWorkspaceSize, aclnn.aclnnInplaceMul, x, _t([2.0, 0.5], DT.ACL_FLOAT16))
    assert r == ACLNN_SUCCESS
    np.testing.assert_array_equal(device.to_numpy(x), np.float16([[42, 21], [46, 22]]))
    # selfRef must already have the broadcast shape
    small = _t([1.0, 2.0], DT.ACL_FLOAT)
    r = ws_run(aclnn.aclnnInplaceMulGetWorkspaceSize, aclnn.aclnnInplaceMul, small, _t([[1.0], [2.0]], DT.ACL_FLOAT))
    assert r == ACLNN_ERR_PARAM_INVALID


def test_overlapping_operands(backend):
    """out overlaps other with a shift: inputs are read before out is written."""
    store = device.from_numpy(np.arange(6, dtype=np.float32))
    a = make_tensor([5], "f32", [1], 0, "ND", [6], store.data, owner=store.owner)
    out = make_tensor([5], "f32", [1], 1, "ND", [6], store.data, owner=store.owner)
    assert mul(a, a, out) == ACLNN_SUCCESS
    np.testing.assert_array_equal(device.storage_to_numpy(store), [0, 0, 1, 4, 9, 16])


def test_bf16_add_is_correctly_rounded(backend):
    rng = np.random.default_rng(3)
    a = rng.normal(size=4096).astype(ml_dtypes.bfloat16)
    b = rng.normal(size=4096).astype(ml_dtypes.bfloat16)
    out = device.empty([4096], DT.ACL_BF16)
    assert add(_t(a, DT.ACL_BF16), _t(b, DT.ACL_BF16), out) == ACLNN_SUCCESS
    np.testing.assert_array_equal(bits(device.to_numpy(out)), bits((a.astype(np.float64) + b.astype(np.float64)).astype(np.float32).astype(ml_dtypes.bfloat16)))


@pytest.mark.parametrize("dt", [DT.ACL_FLOAT16, DT.ACL_BF16])
def test_half_rows_on_every_pattern(backend, dt):
    """fp16 / bf16 Add, Mul and Add with alpha on every 16-bit pattern, as a contiguous row,
    beside a broadcast row and a broadcast scalar (the cpu backend stages such rows through
    float buffers and F16C): each result is the float32 operation, a NaN made canonical,
    rounded to nearest even (NumPy's float16 cast and ml_dtypes' bfloat16 cast, 0.7.0: both
    round so)."""
    host = np.float16 if dt == DT.ACL_FLOAT16 else ml_dtypes.bfloat16
    nan_bits = 0x7E00 if dt == DT.ACL_FLOAT16 else 0x7FC0
    rng = np.random.default_rng(11)
    a_bits = np.arange(1 << 16, dtype=np.uint16)
    b_bits = rng.permutation(a_bits)
    a, b = a_bits.view(host), b_bits.view(host)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    alpha = np.float32(0.37)

    def want(r32):
        out = r32.astype(host).view(np.uint16).copy()
        out[np.isnan(r32)] = nan_bits
        return out

    def run(fn, other, *extra):
        out = device.empty([a.size], dt)
        assert fn(_t(a, dt), _t(other, dt), out, *extra) == ACLNN_SUCCESS
        return bits(device.to_numpy(out)).view(np.uint16)

    with np.errstate(all="ignore"):
        for other, o32 in ((b, b32), (b[:1], b32[:1])):       # a row, a scalar broadcast
            np.testing.assert_array_equal(run(add, other), want(a32 + o32))
            np.testing.assert_array_equal(run(mul, other), want(a32 * o32))
            # alpha: fp16 takes CANN's Axpy (float product and sum, one rounding); bf16 on
            # this SoC multiplies by alpha in bf16, then adds, each rounded to bf16 (the
            # plain loop)
            got = run(add, other, float(alpha))
            if dt == DT.ACL_FLOAT16:
                np.testing.assert_array_equal(got, want(a32 + o32 * alpha))
            else:
                alpha_t = np.float32(alpha).astype(host).astype(np.float32)
                prod = want(o32 * alpha_t).view(host).astype(np.float32)
                np.testing.assert_array_equal(got, want(a32 + prod))
