"""Test helpers: random strided views over device storages, host data per dtype, and
reading a whole storage back to check nothing outside a view changed; the slice of kernel
modules the machine-code checks read by default."""
from __future__ import annotations

import math
import os

import numpy as np
from hypothesis import strategies as st

from npu_emu import device
from npu_emu.dtypes import INFO, aclDataType as DT
from npu_emu.tensor import Tensor, make_tensor

# The checks that build every kernel module once more, or read its machine code (the cubins
# and their SASS, the battery at a lower ISA level), run on all modules with
# NPU_EMU_ALL_MODULES=1; by default on a slice with every kernel family in it, and the
# dtypes where the code differs most: float lanes (f32), the double path (f64), the
# converted narrow floats (f16), complex arithmetic. (The PTX of every module, and the cpu
# build of every module at this machine's ISA, are checked in every run.)
ALL_MODULES = os.environ.get("NPU_EMU_ALL_MODULES") == "1"
MODULE_SLICE = ("cast_float.cu", "elementwise_f16.cu", "elementwise_complex.cu", "gemm_complex.cu",
                "gemm_real.cu", "layout.cu", "matmul.cu", "reduce_stats_float.cu", "reduce_sum_complex.cu", "strided_copy.cu",
                "ufunc_binary_exp_f64.cu", "ufunc_compare_f16.cu", "ufunc_unary_exp_f32.cu",
                "ufunc_unary_trig_complex.cu", "ufunc_unary_trig_f64.cu")
GPU_ARCH = 90   # Hopper (the H200 the GPU checks run on); NVRTC needs no GPU to target it


def cubin_modules() -> list[str]:
    """The modules the machine-code checks build to an sm_90 cubin and read the SASS of:
    MODULE_SLICE, or every module with NPU_EMU_ALL_MODULES=1 (ptxas takes two thirds of
    NVRTC's time)."""
    from npu_emu.runtime.base import kernel_sources
    return [m for m in kernel_sources() if ALL_MODULES or m in MODULE_SLICE]


def nvrtc_builds():
    """The cuda backend's builds that the machine-code checks read, on disk (built in
    parallel where missing, kept in the usual cache folder between runs): the sm_90 cubins
    (and their PTX) of cubin_modules(), the compute_90 PTX of the others. Returns the cubin
    cache and the PTX cache."""
    from npu_emu.runtime import cuda
    from npu_emu.runtime.base import kernel_sources
    with_cubins = cubin_modules()
    cubins = cuda.CudaModuleCache(GPU_ARCH, real=True, loader=None)
    ptx_only = cuda.CudaModuleCache(GPU_ARCH, real=False, loader=None)
    cubins.build_all(with_cubins)
    ptx_only.build_all([m for m in kernel_sources() if m not in with_cubins])
    return cubins, ptx_only


# The battery's cases at the lower ISA level: every family, through its float32, float16
# and complex64 cases, vecdot, and the array API's float32 and complex64 functions, its
# float64 max and min where the NaN and zero flags decide, its float64 and complex matmuls
# and its integer division.
BATTERY_SLICE = ("cast/f32", "cast/f16", "cast/c64", "copy/f32->f16", "expand/", "add_mul/f16",
                 "add_mul/f32", "add_mul/c64", "format_cast/FRACTAL_NZ/f16", "matmul/f16",
                 "matmul/vecdot", "array_api/float32", "array_api/complex64",
                 "array_api/extremes/float64", "array_api/matmul/", "array_api/integers")


@st.composite
def injective_views(draw, shape):
    """(strides, offset, storage_len) of a view of `shape` whose elements are distinct
    (a permuted, stepped, padded layout), so it can be written to."""
    ndim = len(shape)
    order = draw(st.permutations(list(range(ndim))))
    strides = [0] * ndim
    acc = 1
    for d in reversed(order):
        strides[d] = acc * draw(st.integers(1, 2))
        acc = strides[d] * max(shape[d], 1) + draw(st.integers(0, 2))
    offset = draw(st.integers(0, 4))
    return strides, offset, offset + acc + draw(st.integers(0, 2))


@st.composite
def readable_views(draw, shape):
    """(strides, offset, storage_len) of any view of `shape` (strides may be 0: aliasing)."""
    strides = [draw(st.integers(0, 7)) for _ in shape]
    offset = draw(st.integers(0, 5))
    extent = offset + sum(max(n - 1, 0) * s for n, s in zip(shape, strides)) + 1
    return strides, offset, extent + draw(st.integers(0, 2))


def host_values(rng: np.random.Generator, dtype: DT, n: int) -> np.ndarray:
    """n values of `dtype` as its host dtype (raw storage where there is no host dtype)."""
    info = INFO[dtype]
    if info.kind == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if info.kind in ("signed", "unsigned"):
        lo, hi = (np.iinfo(info.storage).min, np.iinfo(info.storage).max)
        return rng.integers(lo, hi, n, dtype=info.storage, endpoint=True)
    if info.kind == "complex":
        return (rng.normal(size=n) * 10 + 1j * rng.normal(size=n) * 10).astype(info.storage)
    if info.host is None:  # HiFloat8 and friends: any code
        return rng.integers(0, 256, n, dtype=np.uint8)
    return (rng.normal(size=n) * 8).astype(np.float32).astype(info.host)


def storage_tensor(values: np.ndarray, dtype: DT, shape, strides, offset) -> Tensor:
    """A device tensor viewing `values` (the flat storage) with the given geometry."""
    base = device.from_numpy(np.ascontiguousarray(values).reshape(-1), dtype)
    return make_tensor(list(shape), dtype, list(strides), offset, "ND", [max(len(values), 1)],
                       base.data, owner=base.owner)


def host_view(storage: np.ndarray, shape, strides, offset) -> np.ndarray:
    """The NumPy equivalent of a view over a flat storage."""
    item = storage.itemsize
    if math.prod(shape) == 0:
        return np.empty(shape, storage.dtype)
    # as_strided goes through __array_interface__, which ml_dtypes' types do not survive:
    # stride the raw bytes and view the result back.
    flat = storage.view(np.dtype((np.void, item)))
    out = np.lib.stride_tricks.as_strided(flat[offset:], shape=shape,
                                          strides=[s * item for s in strides])
    return out.view(storage.dtype)


def contiguous(array: np.ndarray) -> np.ndarray:
    """A C-contiguous copy that keeps 0-d arrays 0-d (np.ascontiguousarray does not)."""
    return np.ascontiguousarray(array).reshape(np.shape(array))


def bits(array: np.ndarray) -> np.ndarray:
    """The same memory as unsigned integers (exact comparisons, NaN payloads included)."""
    size = array.dtype.itemsize
    return np.ascontiguousarray(array).reshape(np.shape(array)).view(np.dtype(f"u{size}") if size <= 8 else np.dtype((np.void, size)))


def raw(array: np.ndarray, dtype: DT) -> np.ndarray:
    """Bits of host values as stored for dtype."""
    return bits(device.storage_array(array, dtype))


LOW_PRECISION = frozenset({DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN,
                           DT.ACL_HIFLOAT8, DT.ACL_FLOAT8_E8M0})


def decode(raw_values: np.ndarray, dtype: DT) -> np.ndarray:
    """Stored elements of dtype as NumPy values (HiFloat8 decoded to float32)."""
    from npu_emu import codecs
    info = INFO[dtype]
    if dtype == DT.ACL_HIFLOAT8:
        return codecs.decode(raw_values, dtype)
    if info.host is not None and info.host != info.storage:
        return raw_values.view(info.host)
    return raw_values


def reference_convert(values: np.ndarray, src: DT, dst: DT) -> np.ndarray:
    """An independent statement of the conversion rules (npu_emu_convert.cuh's header comment)
    for values where NumPy/ml_dtypes are well defined: float -> int only within range and not
    NaN; double and integers reach the low-precision types through float32. Returns the
    stored bits of dst."""
    from npu_emu import codecs
    x = np.asarray(values)
    if INFO[src].kind == "complex" and INFO[dst].kind != "complex":
        if dst == DT.ACL_BOOL:
            return raw(x != 0, dst)
        x = x.real
    if dst == DT.ACL_BOOL:
        return raw(x != 0, dst)
    if dst in LOW_PRECISION:
        with np.errstate(all="ignore"):  # overflow to inf is the rule being checked
            x = x.astype(np.float32)
            if dst == DT.ACL_HIFLOAT8:
                return bits(codecs.encode(x, dst))
            return raw(x.astype(INFO[dst].host), dst)
    with np.errstate(all="ignore"):
        return raw(x.astype(INFO[dst].storage), dst)


def convertible_values(rng: np.random.Generator, src: DT, dst: DT, n: int) -> np.ndarray:
    """n host values of src whose conversion to dst is well defined in NumPy (see
    reference_convert): floats in [-100, 100), [0, 100) for an unsigned destination."""
    info = INFO[src]
    if info.kind in ("floating", "complex"):
        lo = 0.0 if INFO[dst].kind == "unsigned" else -100.0
        re = rng.uniform(lo, 100, n)
        if info.kind == "complex":
            return (re + 1j * rng.uniform(-100, 100, n)).astype(info.storage)
        if src == DT.ACL_HIFLOAT8:
            from npu_emu import codecs
            return codecs.decode(codecs.encode(re.astype(np.float32), src), src)
        if src == DT.ACL_FLOAT8_E8M0:
            return np.exp2(rng.integers(-10, 7, n)).astype(np.float32).astype(info.host)
        return re.astype(np.float32).astype(info.host)
    return host_values(rng, src, n)


def count_calls(monkeypatch, owner: object, *names: str) -> dict[str, int]:
    """Wrap each of `owner`'s attributes `names` (functions or bound methods) with monkeypatch
    so that each call is counted (then made): {name: calls so far}."""
    counts = {name: 0 for name in names}
    for name in names:
        real = getattr(owner, name)

        def counted(*a, _name=name, _real=real, **k):
            counts[_name] += 1
            return _real(*a, **k)
        monkeypatch.setattr(owner, name, counted)
    return counts


# A script's run with one cpu kernel module built in the GPU's work shape (a -D of its source,
# e.g. NPU_EMU_CUBE_STRIP=1): its first argument names the module and the define, or "-" for
# the default build. The script prints a repr() of what it computed, last.
_WITH_DEFINE = """
import sys
if sys.argv[1] != "-":
    from npu_emu.runtime import cpu
    modules, define = sys.argv[1].split(":")
    flags = cpu.CpuModuleCache.module_flags
    cpu.CpuModuleCache.module_flags = lambda self, m: flags(self, m) + (
        ("-D" + define,) if m in modules.split(",") else ())
"""


def run_built_as(script: str, module: "str | list[str] | None" = None,
                 define: str | None = None) -> object:
    """What `script` prints last (a repr, read back), run in a subprocess whose cpu backend
    builds `module` (or each of a list) with -D`define` (None: the default build)."""
    import ast
    import subprocess
    import sys
    arg = "-" if module is None else f"{module if isinstance(module, str) else ','.join(module)}:{define}"
    done = subprocess.run([sys.executable, "-c", _WITH_DEFINE + script, arg],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])


def pows_reference(c: float, x: np.ndarray) -> np.ndarray:
    """x ** c as CANN's Pows kernel computes it for c in {0.5, -0.5, 3, -1, -2} (pows_base.h):
    IEEE operations one at a time in float32 (NumPy's float32 ufuncs), a float16 argument
    computed in float32 and rounded once to float16; with the array API standard's values at
    -0 and -inf for +-0.5 (kernels_cuda/ufunc.cuh op_pows_*)."""
    if x.dtype == np.float16:
        return pows_reference(c, x.astype(np.float32)).astype(np.float16)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        r = {0.5: lambda: np.sqrt(x + t(0)), -0.5: lambda: t(1) / np.sqrt(x + t(0)),
             3: lambda: x * (x * x), -1: lambda: t(1) / x, -2: lambda: t(1) / (x * x)}[c]()
    if c in (0.5, -0.5):
        r = np.where(x == -np.inf, t(np.inf if c > 0 else 0), r)
    return r.astype(x.dtype)


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16 (to nearest, ties to even; NaN the quiet 0x7FC0), as
    their uint16 bits: the rule stated here, not taken from ml_dtypes."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    return np.where(nan, np.uint16(0x7FC0) | ((u >> 16) & 0x8000).astype(np.uint16), rounded)


def canonical_nan(x: np.ndarray) -> np.ndarray:
    """NaN as the canonical quiet NaN (positive, payload 0): the bits a NaN result takes."""
    return np.where(np.isnan(x), x.dtype.type(np.nan), x) if x.dtype.kind == "f" else x


def sequential_matmul(a: np.ndarray, b: np.ndarray, conj_a: bool = False) -> np.ndarray:
    """a @ b (matrices, batch dims broadcast) with every output summed from +0 in ascending k:
    acc = acc + a[i, k] * b[k, j]; complex products by the textbook formula from the parts
    (NumPy's own complex product may be computed another way); NaN canonical."""
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    with np.errstate(all="ignore"):
        if a.dtype.kind != "c":
            acc = np.zeros(shape, a.dtype)
            for k in range(a.shape[-1]):
                acc = acc + a[..., :, k:k + 1] * b[..., k:k + 1, :]
            return canonical_nan(acc)
        ar, ai = a.real, (-a.imag if conj_a else a.imag)
        re, im = np.zeros(shape, ar.dtype), np.zeros(shape, ar.dtype)
        for k in range(a.shape[-1]):
            xr, xi = ar[..., :, k:k + 1], ai[..., :, k:k + 1]
            yr, yi = b.real[..., k:k + 1, :], b.imag[..., k:k + 1, :]
            re = re + (xr * yr - xi * yi)
            im = im + (xr * yi + xi * yr)
    out = np.empty(shape, a.dtype)
    out.real, out.imag = canonical_nan(re), canonical_nan(im)
    return out
