// Float-float pieces the float-lane math functions share (npu_emu_math_exp.cuh,
// npu_emu_math_trig.cuh): an unevaluated sum hi + lo, its exact fast two-sum, the 12-bit
// split whose products are exact (no FMA on either target), the correctly rounded sqrt.
#pragma once
#include "npu_emu_common.cuh"
#include "npu_emu_convert.cuh"

namespace npu_emu {
namespace math {
struct ff {
    float hi, lo;
};
NPU_EMU_HD ff fast_two_sum_f(float a, float b) {  // needs |a| >= |b| (or a == 0)
    const float s = a + b;
    return {s, b - (s - a)};
}
NPU_EMU_HD float top12_f(float v) {  // v's 12 leading significant bits: a product of two is exact
    return bits_as_float(float_as_bits(v) & 0xFFFFF000u);
}
// IEEE's correctly rounded float square root on both targets (sqrt.rn.f32 under
// -prec-sqrt=true; the instruction on the CPU).
NPU_EMU_HD float sqrt_rn_f(float x) {
#if defined(__CUDA_ARCH__)
    return ::sqrtf(x);
#else
    return __builtin_sqrtf(x);
#endif
}
}  // namespace math
}  // namespace npu_emu
