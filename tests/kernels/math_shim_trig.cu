// Test shim for kernels_cuda/npu_emu_math_trig.cuh: one contiguous loop per function and
// type, `name_f32` / `name_f64`. The block-stride loop is a plain loop on the cpu build (one
// block of one thread) and a kernel under NVRTC, so both compilers see the same code.
#include "npu_emu_math_trig.cuh"

// one block of threads striding over the array (on the cpu build: one plain loop)
#define NPU_EMU_SHIM_LOOP_BODY(expr)                                                      \
    for (long i = threadIdx.x; i < n; i += blockDim.x) {                                  \
        y[i] = expr;                                                                      \
    }
#define NPU_EMU_SHIM_UNARY(fn, T, suffix)                                                 \
    extern "C" __global__ void fn##_##suffix(const T* __restrict__ x, T* __restrict__ y, long n) {                  \
        NPU_EMU_SHIM_LOOP_BODY(npu_emu::math::fn(x[i]))                                   \
    }
#define NPU_EMU_SHIM_BINARY(fn, T, suffix)                                                \
    extern "C" __global__ void fn##_##suffix(const T* __restrict__ x, const T* __restrict__ x2, T* __restrict__ y, long n) {     \
        NPU_EMU_SHIM_LOOP_BODY(npu_emu::math::fn(x[i], x2[i]))                            \
    }
#define NPU_EMU_SHIM_BOTH(kind, fn) kind(fn, float, f32) kind(fn, double, f64)

// float through the float64 algorithm, rounded: the second opinion of the float32 sweep
#define NPU_EMU_SHIM_VIA_F64(fn)                                                          \
    extern "C" __global__ void fn##_f32_via_f64(const float* __restrict__ x, float* __restrict__ y, long n) {       \
        NPU_EMU_SHIM_LOOP_BODY(static_cast<float>(npu_emu::math::fn(static_cast<double>(x[i])))) \
    }

NPU_EMU_SHIM_VIA_F64(sin)
NPU_EMU_SHIM_VIA_F64(cos)
NPU_EMU_SHIM_VIA_F64(tan)
NPU_EMU_SHIM_VIA_F64(asin)
NPU_EMU_SHIM_VIA_F64(acos)
NPU_EMU_SHIM_VIA_F64(atan)

// the branch-free float paths (`name_small_f32`): same bits as the full function on their range
#define NPU_EMU_SHIM_SMALL(fn) NPU_EMU_SHIM_UNARY(fn##_small, float, f32)
NPU_EMU_SHIM_SMALL(sin)
NPU_EMU_SHIM_SMALL(cos)
NPU_EMU_SHIM_SMALL(tan)
NPU_EMU_SHIM_SMALL(asin)
NPU_EMU_SHIM_SMALL(acos)
NPU_EMU_SHIM_SMALL(atan)
NPU_EMU_SHIM_BINARY(atan2_small, float, f32)

NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, sin)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, cos)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, tan)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, asin)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, acos)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, atan)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_BINARY, atan2)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_BINARY, hypot)
