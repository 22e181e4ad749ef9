// Test shim for kernels_cuda/npu_emu_math_exp.cuh: one contiguous loop per function and dtype
// (name_f32 / name_f64). On the CPU each is a plain C function over the whole array (one
// block of one thread), loaded by tests/test_math_exp.py with ctypes; NVRTC compiles the same
// loops as kernels, for the PTX checks.
#include "npu_emu_math_exp.cuh"

#define NPU_EMU_UNARY(NAME, T, SUFFIX)                                                      \
    extern "C" __global__ void NAME##_##SUFFIX(const T* x, T* y, long n) {                  \
        for (long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;                          \
             i += static_cast<long>(blockDim.x) * gridDim.x)                                 \
            y[i] = npu_emu::math::NAME(x[i]);                                                \
    }
#define NPU_EMU_BINARY(NAME, T, SUFFIX)                                                     \
    extern "C" __global__ void NAME##_##SUFFIX(const T* x, const T* z, T* y, long n) {      \
        for (long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;                          \
             i += static_cast<long>(blockDim.x) * gridDim.x)                                 \
            y[i] = npu_emu::math::NAME(x[i], z[i]);                                          \
    }
#define NPU_EMU_BOTH(KIND, NAME) KIND(NAME, float, f32) KIND(NAME, double, f64)

NPU_EMU_BOTH(NPU_EMU_UNARY, exp)
NPU_EMU_BOTH(NPU_EMU_UNARY, exp2)
NPU_EMU_BOTH(NPU_EMU_UNARY, expm1)
NPU_EMU_BOTH(NPU_EMU_UNARY, log)
NPU_EMU_BOTH(NPU_EMU_UNARY, log2)
NPU_EMU_BOTH(NPU_EMU_UNARY, log10)
NPU_EMU_BOTH(NPU_EMU_UNARY, log1p)
NPU_EMU_BOTH(NPU_EMU_UNARY, sinh)
NPU_EMU_BOTH(NPU_EMU_UNARY, cosh)
NPU_EMU_BOTH(NPU_EMU_UNARY, tanh)
NPU_EMU_BOTH(NPU_EMU_UNARY, asinh)
NPU_EMU_BOTH(NPU_EMU_UNARY, acosh)
NPU_EMU_BOTH(NPU_EMU_UNARY, atanh)
NPU_EMU_BOTH(NPU_EMU_BINARY, pow)
NPU_EMU_BOTH(NPU_EMU_BINARY, logaddexp)
