"""CPU and GPU give the same bits: the same conversions, copies and arithmetic run on both
backends and are compared with each other (not only each with a reference). Runs where a GPU
answers; skips elsewhere, saying why."""
from __future__ import annotations

import numpy as np
import pytest

from npu_emu import aclnn, device, runtime
from npu_emu.dtypes import aclDataType as DT

pytestmark = pytest.mark.cuda

LOW = [DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN, DT.ACL_HIFLOAT8,
       DT.ACL_FLOAT8_E8M0]


def _probe_values() -> np.ndarray:
    """Every float32 within 4 ULP of a spread of values, plus specials and random bits."""
    rng = np.random.default_rng(0)
    centers = np.float32([0, 1, 1.5, 2**-14, 2**-24, 2**-22, 448, 480, 57344, 65504, 65520,
                          32768, 40960, 3.4e38, 1e-40]).view(np.uint32)
    near = (centers[:, None].astype(np.int64) + np.arange(-4, 5)).reshape(-1)
    near = near[(near >= 0) & (near < 2**32)].astype(np.uint32)
    bits = np.concatenate([near, near | 0x80000000, rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32),
                           np.uint32([0x7F800000, 0xFF800000, 0x7FC00001, 0xFFBFFFFF])])
    return bits.view(np.float32)


def _run_on(name: str, fn):
    previous = runtime._current
    runtime.use(name)
    try:
        return fn()
    finally:
        runtime._current = previous


@pytest.mark.parametrize("dt", LOW, ids=lambda d: d.name)
def test_conversions_match_bit_for_bit(dt):
    values = _probe_values()

    def cast_there():
        src = device.from_numpy(values)
        mid = device.empty([values.size], dt)
        ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(mid, src)
        assert ret == 0 and aclnn.aclnnInplaceCopy(None, ws, ex, None) == 0
        back = device.empty([values.size], DT.ACL_FLOAT)
        ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(back, mid)
        assert ret == 0 and aclnn.aclnnInplaceCopy(None, ws, ex, None) == 0
        return device.storage_to_numpy(mid).view(np.uint8), device.storage_to_numpy(back).view(np.uint32)

    cpu_codes, cpu_back = _run_on("cpu", cast_there)
    gpu_codes, gpu_back = _run_on("cuda", cast_there)
    np.testing.assert_array_equal(cpu_codes, gpu_codes)
    np.testing.assert_array_equal(cpu_back, gpu_back)


@pytest.mark.parametrize("dt", [DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT, DT.ACL_COMPLEX64])
def test_arithmetic_matches_bit_for_bit(dt):
    rng = np.random.default_rng(1)
    n = 100_000
    a = rng.normal(size=n) * 100
    b = rng.normal(size=n) * 100
    if dt == DT.ACL_COMPLEX64:
        a = a + 1j * rng.normal(size=n)
        b = b + 1j * rng.normal(size=n)

    def add_mul_there():
        ta, tb = device.from_numpy(a, dt), device.from_numpy(b, dt)
        out = device.empty([n], dt)
        alpha = aclnn.aclCreateScalar(1.75 if dt != DT.ACL_COMPLEX64 else 1.75 + 0.5j,
                                      DT.ACL_FLOAT if dt != DT.ACL_COMPLEX64 else DT.ACL_COMPLEX64)
        results = []
        for first, second, args in ((aclnn.aclnnAddGetWorkspaceSize, aclnn.aclnnAdd, (ta, tb, alpha, out)),
                                    (aclnn.aclnnMulGetWorkspaceSize, aclnn.aclnnMul, (ta, tb, out))):
            ws, ex, ret = first(*args)
            wsp = device.empty([ws], DT.ACL_UINT8) if ws else None
            assert ret == 0 and second(wsp.data if wsp else None, ws, ex, None) == 0
            results.append(device.storage_to_numpy(out).view(np.uint8).copy())
        return results

    for cpu, gpu in zip(_run_on("cpu", add_mul_there), _run_on("cuda", add_mul_there)):
        np.testing.assert_array_equal(cpu, gpu)


SUBNORMAL_F32 = np.uint32([1, 2, 3, 0x400000, 0x7FFFFF, 0x80000001, 0x807FFFFF, 0x00800000,
                           0x00800001, 0x3F800000]).view(np.float32)


def test_subnormals_survive_on_both_backends():
    """What CuPy's forced -ftz=true would flush on the GPU: f32 and bf16 subnormals cast to
    f64, and f32 add/mul/axpy with subnormal operands and results. Both backends keep them
    and agree with NumPy (each result here is exact)."""
    x = SUBNORMAL_F32
    bf = np.uint16([1, 2, 0x7F, 0x8001, 0x807F, 0x0080])   # bf16 subnormals (and the smallest normal)

    def there():
        results = {}
        for name, host, dt in (("f32", x, DT.ACL_FLOAT), ("bf16", bf, DT.ACL_BF16)):
            src = device.from_numpy(host, dt)
            out = device.empty([host.size], DT.ACL_DOUBLE)
            ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(out, src)
            assert ret == 0 and aclnn.aclnnInplaceCopy(None, ws, ex, None) == 0
            results[name + "->f64"] = device.to_numpy(out)
        a, b = device.from_numpy(x), device.from_numpy(x[::-1].copy())
        for alpha in (1.0, 0.5):   # add, then CANN's Axpy (f32 computes in f64)
            out = device.empty([x.size], DT.ACL_FLOAT)
            ws, ex, ret = aclnn.aclnnAddGetWorkspaceSize(a, b, aclnn.aclCreateScalar(alpha, DT.ACL_FLOAT), out)
            assert ret == 0 and aclnn.aclnnAdd(None, ws, ex, None) == 0
            results[f"add alpha={alpha}"] = device.to_numpy(out)
        out = device.empty([x.size], DT.ACL_FLOAT)
        ws, ex, ret = aclnn.aclnnMulGetWorkspaceSize(a, device.from_numpy(np.full(x.size, 0.5, np.float32)), out)
        assert ret == 0 and aclnn.aclnnMul(None, ws, ex, None) == 0
        results["mul 0.5"] = device.to_numpy(out)
        return results

    cpu, gpu = _run_on("cpu", there), _run_on("cuda", there)
    want = {"f32->f64": x.astype(np.float64),
            "bf16->f64": (bf.astype(np.uint32) << 16).view(np.float32).astype(np.float64),
            "add alpha=1.0": x + x[::-1], "add alpha=0.5": (x + x[::-1].astype(np.float64) * 0.5).astype(np.float32),
            "mul 0.5": x * np.float32(0.5)}
    for key, value in want.items():
        assert np.any((value != 0) & (np.abs(value) < 2.0**-126)), key   # subnormals are in play
        for name, got in (("cpu", cpu[key]), ("cuda", gpu[key])):
            np.testing.assert_array_equal(got.view(np.uint8), value.view(np.uint8), err_msg=f"{name} {key}")


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_scans_and_vector_norms_match_bit_for_bit(dtype):
    """The scans along every axis (the cpu kernel steps neighbouring lines together, a GPU
    thread one line) and vector_norm (the namespace's own functions): the same bytes on both
    backends."""
    import npu_emu.array_api as xp
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((130, 5, 67)) * 4).astype(dtype)

    def there():
        x = xp.asarray(a)
        outs = [xp.cumulative_sum(x, axis=k) for k in range(3)]
        outs += [xp.cumulative_prod(x / 8, axis=0), xp.linalg.vector_norm(x, axis=(0, 2))]
        return [np.asarray(o).tobytes() for o in outs]     # cuda: a host copy

    for cpu, gpu in zip(_run_on("cpu", there), _run_on("cuda", there)):
        assert cpu == gpu


@pytest.mark.parametrize("dtype", ["float32", "float16", "int16", "float64"])
def test_transposed_walks_clip_and_column_reductions_match_bit_for_bit(dtype):
    """What 7 December changed, on both backends: results in their operands' order, tiled
    walks of a transposed read (aclnnAdd, a ufunc, select, a cast), clip in one pass, and
    reductions down 16 to 256 columns."""
    import npu_emu.array_api as xp
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((256, 384)) * 40).astype(dtype)
    b = (rng.standard_normal((384, 256)) * 40).astype(dtype)
    c = (rng.standard_normal((4096, 48)) * 40).astype(dtype)

    def there():
        x, y, z = xp.asarray(a), xp.asarray(b), xp.asarray(c)
        lo, hi = (-20, 20) if dtype == "int16" else (-20.5, 20.25)
        outs = [x.T + y, xp.maximum(x.T, y), xp.where(y > 0, x.T, y), xp.astype(x.T, xp.float64),
                x.T * 2, xp.clip(x.T, lo, hi), xp.clip(y, x.T, hi), xp.sum(z, axis=0),
                xp.max(z, axis=0), xp.argmin(z, axis=0), xp.cumulative_sum(x.T, axis=0)]
        return [np.asarray(o).tobytes(order="A") + str(np.asarray(o).strides).encode()
                for o in outs]

    for cpu, gpu in zip(_run_on("cpu", there), _run_on("cuda", there)):
        assert cpu == gpu


@pytest.mark.parametrize("dtype", ["float64", "complex128", "complex64"])
def test_gemm_matmuls_match_bit_for_bit(dtype):
    """The array API's float64 and complex matmuls (the gemm kernels: the cpu's packed tiles
    in vector lanes, the GPU's shared-memory tiles and thin tiles): the same bytes, edges,
    a transposed operand, a batch, a matrix times a vector and vecdot included."""
    import npu_emu.array_api as xp
    rng = np.random.default_rng(13)
    a = rng.standard_normal((150, 300)) * 8
    b = rng.standard_normal((300, 97)) * 8
    if dtype != "float64":
        a, b = a + 1j * rng.standard_normal(a.shape), b + 1j * rng.standard_normal(b.shape)
    a, b = a.astype(dtype), b.astype(dtype)
    a[3, 5], b[7, 9] = np.inf, np.nan

    def there():
        x, y = xp.asarray(a), xp.asarray(b)
        outs = [x @ y, y.mT @ x.mT, xp.reshape(x[:120, :40], (3, 40, 40)) @ y[:40, :33],
                x @ y[:, 0], xp.vecdot(x[:97], y.mT)]
        return [np.asarray(o).tobytes() for o in outs]

    for cpu, gpu in zip(_run_on("cpu", there), _run_on("cuda", there)):
        assert cpu == gpu


def test_float_progressions_match_bit_for_bit():
    """arange and linspace of floats (computed on the host by one formula, then placed on
    the device; CuPy's own kernels for them fuse their multiply-add)."""
    import npu_emu.array_api as xp

    def there():
        outs = [xp.arange(0.1, 1000.3, 0.37, dtype=xp.float64),
                xp.arange(-3.0, 7e4, 0.3, dtype=xp.float32),
                xp.linspace(-1.3, 2.7, 10001, dtype=xp.float64),
                xp.linspace(-1.3, 2.7, 10001, dtype=xp.float32, endpoint=False),
                xp.linspace(0.5 - 1j, 2 + 3.1j, 777), xp.arange(0, 5, 0.5, dtype=xp.float16)]
        return [np.asarray(o).tobytes() for o in outs]

    for cpu, gpu in zip(_run_on("cpu", there), _run_on("cuda", there)):
        assert cpu == gpu
