// Test shim for the split forms of both math headers (npu_emu_math_split.cuh), cpu build only:
// for each form `name_fast_f32` (Split::fast over the array), `name_rare_f32` (Split::rare, 1
// or 0) and `name_canonical_f32()` (1 where the form declares `canonical`, which lets the
// cpu backend's rows store fast()'s results without canonicalizing them); _f64 likewise.
// Loaded by tests/test_split_canonical.py with ctypes.
#include "npu_emu_math_exp.cuh"
#include "npu_emu_math_trig.cuh"

#define NPU_EMU_SPLIT_T(name, T) npu_emu::math::Split<npu_emu::math::fn::name, T>
#define NPU_EMU_SPLIT1(name, T, suffix)                                                            \
    extern "C" void name##_fast_##suffix(const T* __restrict__ x, T* __restrict__ y, long n) {     \
        for (long i = 0; i < n; ++i) y[i] = NPU_EMU_SPLIT_T(name, T)::fast(x[i]);                  \
    }                                                                                              \
    extern "C" void name##_rare_##suffix(const T* __restrict__ x, T* __restrict__ y, long n) {     \
        for (long i = 0; i < n; ++i) y[i] = NPU_EMU_SPLIT_T(name, T)::rare(x[i]) ? T(1) : T(0);    \
    }                                                                                              \
    extern "C" int name##_canonical_##suffix() {                                                   \
        return npu_emu::math::CanonicalFast<NPU_EMU_SPLIT_T(name, T)>::value ? 1 : 0;              \
    }
#define NPU_EMU_SPLIT2(name, T, suffix)                                                            \
    extern "C" void name##_fast_##suffix(const T* __restrict__ x, const T* __restrict__ z,         \
                                         T* __restrict__ y, long n) {                              \
        for (long i = 0; i < n; ++i) y[i] = NPU_EMU_SPLIT_T(name, T)::fast(x[i], z[i]);            \
    }                                                                                              \
    extern "C" void name##_rare_##suffix(const T* __restrict__ x, const T* __restrict__ z,         \
                                         T* __restrict__ y, long n) {                              \
        for (long i = 0; i < n; ++i) y[i] = NPU_EMU_SPLIT_T(name, T)::rare(x[i], z[i]) ? T(1) : T(0); \
    }                                                                                              \
    extern "C" int name##_canonical_##suffix() {                                                   \
        return npu_emu::math::CanonicalFast<NPU_EMU_SPLIT_T(name, T)>::value ? 1 : 0;              \
    }
#define NPU_EMU_SPLIT_BOTH(kind, name) kind(name, float, f32) kind(name, double, f64)

NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, exp)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, expm1)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, log)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, log2)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, log10)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, log1p)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, sinh)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, cosh)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, tanh)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, asinh)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, acosh)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, atanh)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, sin)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, cos)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, tan)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, asin)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, acos)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT1, atan)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT2, pow)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT2, logaddexp)
NPU_EMU_SPLIT_BOTH(NPU_EMU_SPLIT2, atan2)
