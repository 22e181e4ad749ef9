// The split form of a math library function, for loops the CPU compiler vectorizes:
// Split<fn::NAME, T> (specialized by the function's header, next to NAME itself) has
//   static T fast(T x)    branch-free, and equal to NAME(x) bit for bit wherever
//   static bool rare(T x) is false (binary functions: fast(a, b), rare(a, b)).
// The CPU's contiguous rows (ufunc.cuh staged_row) compute fast() over a chunk and redo the
// rare lanes with NAME itself; the GPU always calls NAME. Writing NAME(x) as
// `rare(x) ? <the full path> : fast(x)` keeps the promise by construction.
#pragma once

namespace npu_emu {
namespace math {
namespace fn {}   // one tag per function (struct exp; ...), declared where it is specialized
template <typename Fn, typename T> struct Split {};   // no split form: every lane calls NAME
}  // namespace math
}  // namespace npu_emu
