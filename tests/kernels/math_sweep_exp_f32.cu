// Every float32 bit pattern through a float function of kernels_cuda/npu_emu_math_exp.cuh (the
// full function, as the GPU calls it), held against the C library's double function rounded to
// float: how many results are correctly rounded, how many are more than 1 ulp off (0 expected)
// and the largest distance from the double value in float ulps. glibc's double log/exp family
// is within a few double ulps (2^-50 of the value), so a largest distance below 1 ulp puts
// every result within 1 ulp of the correctly rounded one; the count of correctly rounded
// results can be off only where the true value lies within ~2^-29 of a float midpoint (a few
// per function). CPU only:
// tests/test_math_exp.py builds it with the cpu backend's flags (NPU_EMU_MATH_EXHAUSTIVE=1).
#include "npu_emu_math_exp.cuh"

#include <cmath>
#include <cstring>

namespace {
inline int64_t ordered(float f) {  // the float's position on the number line (-0 and +0 equal)
    const int32_t i = static_cast<int32_t>(npu_emu::float_as_bits(f));
    return i < 0 ? static_cast<int64_t>(INT32_MIN) - i : i;
}
constexpr int BLOCK = 1 << 16;
}  // namespace

#define NPU_EMU_SWEEP_CASE(NAME)                                                             \
    if (!std::strcmp(name, #NAME)) {                                                         \
        for (int j = 0; j < BLOCK; ++j) got[j] = npu_emu::math::NAME(x[j]);                  \
        for (int j = 0; j < BLOCK; ++j) ref[j] = ::NAME(static_cast<double>(x[j]));          \
    }

// counts: [finite inputs, correctly rounded, more than 1 ulp off, NaN inputs or
// results that are not the canonical NaN]; worst: [max error in ulps, its argument]. Returns
// 0, or -1 for a name it does not know.
extern "C" int npu_emu_sweep_f32(const char* name, long long* counts, double* worst) {
    static float x[BLOCK], got[BLOCK];
    static double ref[BLOCK];
    const char* known[] = {"log", "log2", "log10", "log1p", "expm1", "exp", "sinh", "cosh", "tanh", "asinh", "acosh",
                           "atanh"};
    bool ok = false;
    for (const char* k : known) ok = ok || !std::strcmp(name, k);
    if (!ok) return -1;
    for (int i = 0; i < 4; ++i) counts[i] = 0;
    worst[0] = 0.0, worst[1] = 0.0;
    for (uint64_t b0 = 0; b0 < (1ull << 32); b0 += BLOCK) {
        for (int j = 0; j < BLOCK; ++j) x[j] = npu_emu::bits_as_float(static_cast<uint32_t>(b0 + j));
        NPU_EMU_SWEEP_CASE(log) NPU_EMU_SWEEP_CASE(log2) NPU_EMU_SWEEP_CASE(log10)
        NPU_EMU_SWEEP_CASE(log1p) NPU_EMU_SWEEP_CASE(expm1) NPU_EMU_SWEEP_CASE(exp)
        NPU_EMU_SWEEP_CASE(sinh) NPU_EMU_SWEEP_CASE(cosh) NPU_EMU_SWEEP_CASE(tanh)
        NPU_EMU_SWEEP_CASE(asinh) NPU_EMU_SWEEP_CASE(acosh) NPU_EMU_SWEEP_CASE(atanh)
        for (int j = 0; j < BLOCK; ++j) {
            const bool nan_result = x[j] != x[j] || ref[j] != ref[j];
            if (nan_result) {
                counts[3] += npu_emu::float_as_bits(got[j]) != 0x7FC00000u;
                if (x[j] != x[j]) continue;
            }
            if (std::isinf(x[j])) {  // not counted: the finite arguments are (as in the Python sweep)
                counts[2] += !nan_result && npu_emu::float_as_bits(got[j]) !=
                                                npu_emu::float_as_bits(static_cast<float>(ref[j]));
                continue;
            }
            ++counts[0];
            if (nan_result) {
                counts[1] += npu_emu::float_as_bits(got[j]) == 0x7FC00000u;
                continue;
            }
            const float want = static_cast<float>(ref[j]);
            if (npu_emu::float_as_bits(got[j]) == npu_emu::float_as_bits(want)) {
                ++counts[1];
                continue;
            }
            const int64_t d = ordered(got[j]) - ordered(want);
            if (d > 1 || d < -1 || want == 0.0f || std::isinf(want) || std::isinf(got[j])) {
                ++counts[2];
                continue;
            }
            const float a = std::fabs(want), ulp = std::nextafter(a, INFINITY) - a;
            const double e = std::fabs(static_cast<double>(got[j]) - ref[j]) / ulp;
            if (e > worst[0]) worst[0] = e, worst[1] = x[j];
        }
    }
    return 0;
}
