// The split form of a math library function, for loops the CPU compiler vectorizes:
// Split<fn::NAME, T> (specialized by the function's header, next to NAME itself) has
//   static T fast(T x)    branch-free, and equal to NAME(x) bit for bit wherever
//   static bool rare(T x) is false (binary functions: fast(a, b), rare(a, b)).
// The CPU's contiguous rows (ufunc.cuh staged_row) compute fast() over a chunk and redo the
// rare lanes with NAME itself; the GPU always calls NAME. Writing NAME(x) as
// `rare(x) ? <the full path> : fast(x)` keeps the promise by construction.
// A split form may also declare `static constexpr bool canonical = true;`: fast(x) wherever
// rare(x) is false is never a NaN but the canonical quiet one (float 0x7FC00000, double
// 0x7FF8000000000000), so staged_row stores it without Store's canonicalization (a compare
// and blend per lane: 10 % of a float32 exp). Declared only where the code makes it plain:
// NaN arguments are rare (or fast() returns the canonical NaN for them), and no non-rare lane
// reaches inf - inf, 0 * inf, 0 / 0, inf / inf or the square root of a negative number in
// the value it returns (a lane that computes such a NaN and then selects another value is
// fine). tests/test_split_canonical.py checks every form that declares it.
#pragma once

namespace npu_emu {
namespace math {
namespace fn {}   // one tag per function (struct exp; ...), declared where it is specialized
template <typename Fn, typename T> struct Split {};   // no split form: every lane calls NAME
// CanonicalFast<S>::value: whether the split form S declares `canonical` true (above).
template <typename S, typename = void> struct CanonicalFast { static constexpr bool value = false; };
template <typename S> struct CanonicalFast<S, decltype(void(S::canonical))> {
    static constexpr bool value = S::canonical;
};
}  // namespace math
}  // namespace npu_emu
