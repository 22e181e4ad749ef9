"""Every kernel source builds for the GPU on machines without one, through the cuda backend's
own compile path (`runtime.cuda.compile_module`: NVRTC through CuPy's binding, our options
only, the module cache), and what it would load is checked: no flush-to-zero instruction
(CuPy's RawModule forces -ftz=true), no fused multiply-add, 16-byte vector memory accesses,
the parameter structs laid out as the host packs them. Every module's PTX is checked; the
cubins, and the SASS in them, of a slice with every kernel family (tests/helpers.py
MODULE_SLICE; every module with NPU_EMU_ALL_MODULES=1). The cpu build is checked for FMA too.

Needs CuPy and NVRTC (the `test` extra installs both: pip install -e '.[test]'); without
them the NVRTC tests skip, saying why, and nvcc (when present) compiles the sources instead.
"""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess

import pytest
from helpers import GPU_ARCH, cubin_modules, nvrtc_builds

from npu_emu.runtime import cuda, kernels_dir
from npu_emu.runtime.base import KernelBuildError, kernel_sources
from npu_emu.runtime.cpu import FUSED_CPU, fused_instructions
from npu_emu.kernels.gemm import params_dtype as gemm_params_dtype
from npu_emu.kernels.indexing import params_dtype
from npu_emu.kernels.layout import layout_params_dtype

SOURCES = kernel_sources()
ARCH = GPU_ARCH
CUBINS = cubin_modules()   # built to an sm_90 cubin, whose SASS the checks read

try:
    cuda.import_cupy()
    cuda.nvrtc_version()
    NO_NVRTC = ""
except Exception as exc:  # CudaUnavailable, or NVRTC's library missing
    NO_NVRTC = f"CuPy with NVRTC is not installed ({exc}); pip install -e '.[test]'"
needs_nvrtc = pytest.mark.skipif(bool(NO_NVRTC), reason=NO_NVRTC or "-")


def _nvdisasm() -> str | None:
    try:
        from cuda import pathfinder
        found = pathfinder.find_nvidia_binary_utility("nvdisasm")
    except Exception:
        found = None
    return found or shutil.which("nvdisasm")


NVDISASM = _nvdisasm()


def test_there_are_kernel_sources():
    assert "strided_copy.cu" in SOURCES


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """{module: (cubin or None, PTX)} as the cuda backend's caches build them (nvrtc_builds:
    a whole run builds them first, tests/conftest.py): the sm_90 cubin and its PTX for a
    slice with every kernel family (all modules with NPU_EMU_ALL_MODULES=1; ptxas takes two
    thirds of NVRTC's time), the compute_90 PTX (what a GPU newer than this NVRTC loads) for
    the rest."""
    cubins, ptx_only = nvrtc_builds()
    return {m: (cubins.path(m).read_bytes(), cubins.ptx_path(m).read_text()) if m in CUBINS
            else (None, ptx_only.path(m).read_text()) for m in SOURCES}


# PTX instructions that flush subnormals, and contraction into fused multiply-adds.
FTZ = re.compile(r"^\s*[a-z][\w.]*\.ftz\b.*$", re.M)
FMA = re.compile(r"^\s*(?:fma|mad)\.[\w.]*\b(?:f16|f16x2|bf16|bf16x2|f32|f64)\b.*$", re.M)


def _sass(cubin: bytes, tmp_path) -> str:
    path = tmp_path / "module.cubin"
    path.write_bytes(cubin)
    result = subprocess.run([NVDISASM, str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def sass(built, tmp_path_factory):
    """{module: SASS of its cubin}, disassembled in parallel (nvdisasm takes about a second a
    module, and a cold run has 76)."""
    from concurrent.futures import ThreadPoolExecutor
    if NVDISASM is None:
        pytest.skip("nvdisasm not found (pip install nvidia-cuda-nvdisasm)")
    work = [(m, tmp_path_factory.mktemp("sass")) for m in CUBINS]
    with ThreadPoolExecutor(max(2, os.cpu_count() or 2)) as pool:
        texts = pool.map(lambda job: _sass(built[job[0]][0], job[1]), work)
        return dict(zip(CUBINS, texts))


@needs_nvrtc
@pytest.mark.parametrize("source", SOURCES)
def test_ptx_has_no_flush_to_zero_and_no_contraction(built, source):
    _, ptx = built[source]
    assert ".entry" in ptx
    assert not FTZ.findall(ptx)[:5]
    assert not FMA.findall(ptx)[:5]


IEEE_SUBROUTINE = re.compile(r"^\$__internal_\d+_\$__cuda_sm\w*?_(?:div|sqrt|dsqrt|rcp|drcp)\w*:")


def own_code(sass: str) -> str:
    """The SASS lines outside ptxas's div.rn / sqrt.rn expansions."""
    out, in_subroutine, in_expansion = [], False, False
    for line in sass.splitlines():
        label = re.match(r"^(\S+):", line)
        if label:
            if IEEE_SUBROUTINE.match(line):
                in_subroutine = True
            elif not label.group(1).startswith(".L"):   # the next function
                in_subroutine = False
            continue
        if in_subroutine:
            continue
        if re.search(r"\bMUFU\.(?:RCP|RSQ)(?:64H)?\b", line):
            in_expansion = True
        elif in_expansion and re.search(r"\bBSYNC\b", line):
            in_expansion = False
        if not in_expansion:
            out.append(line)
    return "\n".join(out)


@needs_nvrtc
@pytest.mark.skipif(NVDISASM is None, reason="nvdisasm not found (pip install nvidia-cuda-nvdisasm)")
@pytest.mark.parametrize("source", CUBINS)
def test_cubin_has_no_flush_to_zero_and_no_fma(sass, source):
    """The SASS of the cubin the backend loads, outside ptxas's own expansions of correctly
    rounded division and square root (own_code). F2I.FTZ is allowed: it is the float-to-int
    step of ptxas's integer division, where flushing cannot change the integer; HFMA2.MMA
    with zero operands is its way to set a register."""
    sass = own_code(sass[source])
    assert "Function :" in sass or ".text." in sass
    ftz = sorted({m for m in re.findall(r"\b([A-Z][A-Z0-9]*)(?:\.[A-Z0-9_]+)*\.FTZ\b", sass)} - {"F2I"})
    assert not ftz
    assert not re.findall(r"\b[FD]FMA\b", sass)
    assert not [line for line in re.findall(r"HFMA2[^;]*;", sass) if ", -RZ, RZ," not in line]


@needs_nvrtc
def test_the_checks_see_what_cupys_forced_flag_does():
    """The same checks on a kernel compiled with CuPy's RawModule options (-ftz=true appended,
    contraction allowed) find what they look for, so the tests above can fail."""
    src = ('extern "C" __global__ void k(float* x, const float* y) '
           '{ x[threadIdx.x] = x[threadIdx.x] * y[threadIdx.x] + y[0]; }\n')
    _, ours = cuda.compile_source(src, "k.cu", ARCH)
    _, cupys = cuda.compile_source(src, "k.cu", ARCH, extra=("-ftz=true", "--fmad=true"))
    assert not FTZ.findall(ours) and not FMA.findall(ours)
    assert FTZ.findall(cupys) and FMA.findall(cupys)


@needs_nvrtc
# (elementwise_complex.cu is not here: a complex element is 8 or 16 bytes, loaded as parts.)
@pytest.mark.parametrize("source", ["strided_copy.cu", "elementwise_f32.cu", "elementwise_s32.cu",
                                    "cast_float.cu", "layout.cu", "ufunc_unary_basic_f32.cu",
                                    "ufunc_binary_basic_int32.cu", "ufunc_compare_int8.cu"])
def test_row_kernels_move_16_byte_vectors(built, source):
    """The GPU geometry's runs are one 16-byte load and store per operand (coalesced)."""
    _, ptx = built[source]
    # (bits, unsigned or float words: a unit of one float type moves its own type)
    assert re.search(r"\bld\.global(\.nc)?\.v(4\.[buf]32|2\.[buf]64)\b", ptx)
    assert re.search(r"\bst\.global\.v(4\.[buf]32|2\.[buf]64)\b", ptx)


@needs_nvrtc
@pytest.mark.skipif(NVDISASM is None, reason="nvdisasm not found (pip install nvidia-cuda-nvdisasm)")
def test_own_code_drops_only_the_division_and_square_root_expansions(tmp_path):
    """A contracted multiply-add beside a division and a square root stays visible; the
    expansions themselves (FFMA inside) do not."""
    src = ('extern "C" __global__ void k(float* x, const float* y) { int i = threadIdx.x; '
           'x[i] = __fsqrt_rn(x[i] / y[i]) * y[i] + x[i + 1]; }\n'
           'extern "C" __global__ void d(double* x, const double* y) { int i = threadIdx.x; '
           'x[i] = __dsqrt_rn(x[i] / y[i]); }\n')
    fused, _ = cuda.compile_source(src, "k.cu", ARCH, extra=("--fmad=true",))
    plain, _ = cuda.compile_source(src.replace(" * y[i] + x[i + 1]", ""), "k.cu", ARCH)
    assert re.findall(r"\bFFMA\b", own_code(_sass(fused, tmp_path)))
    sass = _sass(plain, tmp_path)
    assert re.findall(r"\b[FD]FMA\b", sass) and not re.findall(r"\b[FD]FMA\b|\.FTZ\b", own_code(sass))


@needs_nvrtc
def test_cubin_image_is_whole(built, tmp_path):
    """CuPy's getCUBIN drops the image's last byte; complete_cubin restores the length the ELF
    header declares (nvdisasm refuses a short one)."""
    image = built["matmul.cu"][0]
    assert cuda.complete_cubin(image) == image
    assert cuda.complete_cubin(image[:-1]) == image
    assert image[:4] == b"\x7fELF"
    if NVDISASM is not None:
        _sass(image, tmp_path)


@needs_nvrtc
def test_cache_key_follows_sources_options_nvrtc_and_arch(monkeypatch):
    paths = {cuda.CudaModuleCache(ARCH).path("cast_float.cu"), cuda.CudaModuleCache(80).path("cast_float.cu"),
             cuda.CudaModuleCache(ARCH, real=False).path("cast_float.cu")}
    monkeypatch.setattr(cuda, "nvrtc_version", lambda: (99, 0))
    paths.add(cuda.CudaModuleCache(ARCH).path("cast_float.cu"))
    monkeypatch.setattr(cuda, "NVRTC_OPTIONS", cuda.NVRTC_OPTIONS + ("-DX",))
    paths.add(cuda.CudaModuleCache(ARCH).path("cast_float.cu"))
    assert len(paths) == 5


@needs_nvrtc
def test_a_compile_error_is_a_kernel_build_error_with_the_log():
    with pytest.raises(KernelBuildError, match=r"(?s)NVRTC failed to compile bad\.cu.*undefined"):
        cuda.compile_source('extern "C" __global__ void k() { undefined_thing(); }\n', "bad.cu", ARCH)
    with pytest.raises(KernelBuildError, match="no kernel source"):
        cuda.compile_module("nope.cu", ARCH)


def _struct_checks() -> list[tuple[str, object]]:
    """(C++ type, NumPy dtype) of every parameter struct the plans pack."""
    checks = [(f"npu_emu::IterParams<{n}>", params_dtype(n)) for n in (2, 3, 4)]
    checks.append(("npu_emu::LayoutParams", layout_params_dtype()))
    checks.append(("npu_emu::GemmParams", gemm_params_dtype()))
    try:
        from npu_emu.ops.matmul import cube_params_dtype
        checks.append(("npu_emu::CubeParams", cube_params_dtype()))
    except ImportError:   # the operator layer may move it; the index structs are the core
        pass
    return checks


def struct_layout_source() -> str:
    lines = ['#include "npu_emu_index.cuh"', '#include "layout.cu"', '#include "matmul.cu"',
             '#include "gemm.cuh"']
    for ctype, dtype in _struct_checks():
        lines.append(f'static_assert(sizeof({ctype}) == {dtype.itemsize}, "sizeof {ctype}");')
        for name, (sub, offset, *_) in dtype.fields.items():
            lines.append(f'static_assert(__builtin_offsetof({ctype}, {name}) == {offset}, '
                         f'"{ctype}::{name}");')
    return "\n".join(lines) + "\n"


@needs_nvrtc
def test_parameter_structs_match_the_host_packing_on_the_gpu():
    """NVRTC agrees with the NumPy dtypes the host packs (sizes and field offsets); CuPy
    passes those bytes unchanged (test_cuda_backend.py checks its packer)."""
    cuda.compile_source(struct_layout_source(), "layout_check.cu", ARCH)


def test_parameter_structs_match_the_host_packing_on_the_cpu(tmp_path):
    from npu_emu.runtime.cpu import CXX_FLAGS
    src = tmp_path / "layout_check.cpp"
    src.write_text(struct_layout_source())
    flags = [f for f in CXX_FLAGS if f not in ("-shared", "-fopenmp")]
    result = subprocess.run(["g++", *flags, "-fsyntax-only", "-fopenmp", f"-I{kernels_dir()}", str(src)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed on this machine")
@pytest.mark.skipif(not NO_NVRTC, reason="NVRTC through CuPy compiles every source above (the "
                                         "path the backend takes); nvcc is the fallback check")
@pytest.mark.parametrize("source", SOURCES)
def test_nvcc_builds_sm90_cubin(source, tmp_path):
    out = tmp_path / (source + ".cubin")
    result = subprocess.run(
        ["nvcc", "-arch=sm_90", "-cubin", "-std=c++17", "--fmad=false", "-ftz=false",
         f"-I{kernels_dir()}", str(kernels_dir() / source), "-o", str(out)],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0


@pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump (binutils) is not installed")
@pytest.mark.parametrize("source", SOURCES)
def test_cpu_kernels_contain_no_fused_multiply_add(source):
    """The GPU compiles with --fmad=false; the CPU build must not fuse either, on any ISA:
    x86 FMA3/FMA4/AVX-512 (vfmadd..., vfmaddsub..., vfnmadd...), aarch64 (fmadd, fmla,
    fcmla, ...). GCC's complex-multiply pattern emits vfmaddsub even under
    -ffp-contract=off, so the x86 build takes FMA3 and FMA4 away from the target, and AVX-512F
    from modules with complex kernels and from any whose AVX-512 build fused."""
    from npu_emu import runtime
    be = runtime.backend("cpu")
    be._modules.load(source)
    fused = fused_instructions(be._modules.library_path(source))
    assert fused == [], fused[:5]


def test_fused_pattern_recognizes_both_isas():
    """runtime/cpu.py's FUSED_CPU is what the checks rest on: it must see each fused mnemonic and
    none of the plain ones."""
    fused = ["\tvfmaddsub132ps %zmm3,%zmm27,%zmm0", "\tvfmadd231sd %xmm1,%xmm2,%xmm3",
             "\tvfnmsub213ps %ymm1,%ymm2,%ymm3", "\tfmadd d0, d1, d2, d3",
             "\tfmla v0.4s, v1.4s, v2.4s", "\tfcmla v0.4s, v1.4s, v2.4s, #90",
             "\tbfmlalb v0.4s, v1.8h, v2.8h"]
    plain = ["\tvmulps %ymm1,%ymm2,%ymm3", "\tvaddsubps %ymm1,%ymm2,%ymm3", "\tfmul d0, d1, d2",
             "\tfmov d0, d1", "\tfadd v0.4s, v1.4s, v2.4s", "\tvfixupimmps $0,%zmm1,%zmm2,%zmm3"]
    assert all(FUSED_CPU.search(line) for line in fused)
    assert not any(FUSED_CPU.search(line) for line in plain)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64") or shutil.which("objdump") is None,
                    reason="the AVX-512 build and its check are x86 with objdump")
def test_a_module_whose_avx512_build_fuses_is_built_again_without(monkeypatch, tmp_path):
    """Complex kernels never get AVX-512; a real-only module does, unless its machine code
    shows a fused instruction: then it is rebuilt with -mno-avx512f under another cache key,
    and a `.fused` file keeps the verdict for the next process."""
    from npu_emu.runtime import cpu
    monkeypatch.setenv("NPU_EMU_CACHE_DIR", str(tmp_path))
    cache = cpu.CpuModuleCache()
    assert "-mno-avx512f" in cache.module_flags("elementwise_complex.cu")
    assert "-mno-avx512f" in cache.module_flags("reduce_prod_complex.cu")        # complex products
    wide = cache.path("strided_copy.cu")
    assert "-mno-avx512f" not in cache.module_flags("strided_copy.cu")
    monkeypatch.setattr(cpu, "fused_instructions", lambda lib: ["vfmadd231ps %zmm1,%zmm2,%zmm3"])
    lib = cache.load("strided_copy.cu")
    assert lib.npu_emu_max_threads() >= 1
    assert wide.with_suffix(".fused").read_text().startswith("vfmadd231ps")
    narrow = cache.path("strided_copy.cu")
    assert narrow != wide and narrow.exists() and not wide.exists()
    assert "-mno-avx512f" in cpu.CpuModuleCache().module_flags("strided_copy.cu")
