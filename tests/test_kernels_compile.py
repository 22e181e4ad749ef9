"""Every kernel source builds for the GPU on machines without one: with nvcc to an sm_90
cubin, and with NVRTC (as a library, from the nvidia-cuda-nvrtc wheel) exactly as the cuda
backend's CuPy RawModule compiles it."""
from __future__ import annotations

import ctypes
import glob
import os
import shutil
import subprocess
import sys

import pytest

from npu_emu.runtime import kernels_dir
from npu_emu.runtime.cuda import NVRTC_OPTIONS

SOURCES = sorted(p.name for p in kernels_dir().glob("*.cu"))


def test_there_are_kernel_sources():
    assert "strided_copy.cu" in SOURCES


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed on this machine")
@pytest.mark.parametrize("source", SOURCES)
def test_nvcc_builds_sm90_cubin(source, tmp_path):
    out = tmp_path / (source + ".cubin")
    result = subprocess.run(
        ["nvcc", "-arch=sm_90", "-cubin", "-std=c++17", "--fmad=false", f"-I{kernels_dir()}",
         str(kernels_dir() / source), "-o", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0


def _load_nvrtc():
    patterns = []
    for base in sys.path:
        patterns += glob.glob(os.path.join(base, "nvidia", "cu1*", "lib", "libnvrtc.so.*"))
        patterns += glob.glob(os.path.join(base, "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.*"))
    for path in sorted(p for p in patterns if "builtins" not in p):
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


NVRTC = _load_nvrtc()


@pytest.mark.skipif(NVRTC is None, reason="libnvrtc not found (pip install nvidia-cuda-nvrtc)")
@pytest.mark.parametrize("source", SOURCES)
def test_nvrtc_compiles_like_cupy(source):
    """The cuda backend compiles `#include "<source>"` with NVRTC_OPTIONS and -I kernels_dir."""
    prog = ctypes.c_void_p()
    code = f'#include "{source}"\n'.encode()
    rc = NVRTC.nvrtcCreateProgram(ctypes.byref(prog), code, b"npu_emu.cu", 0, None, None)
    assert rc == 0
    opts = [o.encode() for o in (*NVRTC_OPTIONS, f"-I{kernels_dir()}", "--gpu-architecture=compute_90")]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = NVRTC.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    NVRTC.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    NVRTC.nvrtcGetProgramLog(prog, log)
    NVRTC.nvrtcDestroyProgram(ctypes.byref(prog))
    assert rc == 0, log.value.decode(errors="replace")


@pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump (binutils) is not installed")
@pytest.mark.parametrize("source", SOURCES)
def test_cpu_kernels_contain_no_fused_multiply_add(source):
    """The GPU compiles with --fmad=false; the CPU build must not fuse either (GCC's complex
    multiply pattern emits vfmaddsub even under -ffp-contract=off, hence -mno-fma)."""
    from npu_emu import runtime
    be = runtime.backend("cpu")
    be._modules.load(source)
    path = be._modules.library_path(source)
    asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(path)], capture_output=True,
                         text=True).stdout
    fused = [line for line in asm.splitlines() if "\tvfm" in line or "\tvfnm" in line]
    assert not fused, fused[:5]
