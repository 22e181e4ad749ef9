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

// the split forms: `name_fast_f32` (Split::fast, branch-free: a loop over it vectorizes) and
// `name_rare_f32` (1 where the full function takes its other path, else 0); _f64 likewise
#define NPU_EMU_SHIM_SPLIT_T(name, T) npu_emu::math::Split<npu_emu::math::fn::name, T>
#define NPU_EMU_SHIM_FAST(name, T, suffix)                                                \
    extern "C" __global__ void name##_fast_##suffix(const T* __restrict__ x, T* __restrict__ y, long n) { \
        NPU_EMU_SHIM_LOOP_BODY(NPU_EMU_SHIM_SPLIT_T(name, T)::fast(x[i]))                 \
    }
#define NPU_EMU_SHIM_RARE(name, T, suffix)                                                \
    extern "C" __global__ void name##_rare_##suffix(const T* __restrict__ x, T* __restrict__ y, long n) { \
        NPU_EMU_SHIM_LOOP_BODY(NPU_EMU_SHIM_SPLIT_T(name, T)::rare(x[i]) ? T(1) : T(0))   \
    }
NPU_EMU_SHIM_FAST(sin, float, f32)
NPU_EMU_SHIM_FAST(cos, float, f32)
NPU_EMU_SHIM_FAST(tan, float, f32)
NPU_EMU_SHIM_FAST(asin, float, f32)
NPU_EMU_SHIM_FAST(acos, float, f32)
NPU_EMU_SHIM_FAST(atan, float, f32)
extern "C" __global__ void atan2_fast_f32(const float* __restrict__ x, const float* __restrict__ x2, float* __restrict__ y, long n) {
    NPU_EMU_SHIM_LOOP_BODY(NPU_EMU_SHIM_SPLIT_T(atan2, float)::fast(x[i], x2[i]))
}
extern "C" __global__ void atan2_rare_f32(const float* __restrict__ x, const float* __restrict__ x2, float* __restrict__ y, long n) {
    NPU_EMU_SHIM_LOOP_BODY(NPU_EMU_SHIM_SPLIT_T(atan2, float)::rare(x[i], x2[i]) ? 1.0f : 0.0f)
}
NPU_EMU_SHIM_FAST(sin, double, f64)
NPU_EMU_SHIM_FAST(cos, double, f64)
NPU_EMU_SHIM_FAST(tan, double, f64)
NPU_EMU_SHIM_FAST(asin, double, f64)
NPU_EMU_SHIM_FAST(acos, double, f64)
NPU_EMU_SHIM_FAST(atan, double, f64)
extern "C" __global__ void atan2_fast_f64(const double* __restrict__ x, const double* __restrict__ x2, double* __restrict__ y, long n) {
    NPU_EMU_SHIM_LOOP_BODY(NPU_EMU_SHIM_SPLIT_T(atan2, double)::fast(x[i], x2[i]))
}
extern "C" __global__ void atan2_rare_f64(const double* __restrict__ x, const double* __restrict__ x2, double* __restrict__ y, long n) {
    NPU_EMU_SHIM_LOOP_BODY(NPU_EMU_SHIM_SPLIT_T(atan2, double)::rare(x[i], x2[i]) ? 1.0 : 0.0)
}
NPU_EMU_SHIM_RARE(sin, float, f32)
NPU_EMU_SHIM_RARE(cos, float, f32)
NPU_EMU_SHIM_RARE(tan, float, f32)
NPU_EMU_SHIM_RARE(asin, float, f32)
NPU_EMU_SHIM_RARE(acos, float, f32)
NPU_EMU_SHIM_RARE(atan, float, f32)
NPU_EMU_SHIM_RARE(sin, double, f64)
NPU_EMU_SHIM_RARE(cos, double, f64)
NPU_EMU_SHIM_RARE(tan, double, f64)
NPU_EMU_SHIM_RARE(asin, double, f64)
NPU_EMU_SHIM_RARE(acos, double, f64)
NPU_EMU_SHIM_RARE(atan, double, f64)

NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, sin)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, cos)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, tan)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, asin)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, acos)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_UNARY, atan)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_BINARY, atan2)
NPU_EMU_SHIM_BOTH(NPU_EMU_SHIM_BINARY, hypot)
