// Reductions and scans over a strided view, in one fixed order that does not depend on the
// launch geometry, the thread count or the backend (docs/reductions.md):
//   sum prod max min argmax argmin all any mean, the squared deviations of var/std, and the
//   scans cumulative_sum / cumulative_prod. Host side: npu_emu/kernels/reduce.py.
// This header holds the whole family; the build units reduce_*.cu (sum, prod, stats, extreme,
// bool, scan: reduce.py's MODULES) each instantiate their part of the catalog (a generated
// list), so each build stays short and the units build in parallel.
//
// The order. The K elements reduced into one output are numbered k = 0..K-1 in C order over
// the reduced axes (the last axis fastest), whatever the strides. Then:
//   1. Leaves: k is cut into leaves of L = 1024 consecutive elements (the last may be short).
//   2. Lanes: inside a leaf, element i goes to lane i mod W (W = 16); each lane combines its
//      elements in increasing i, starting from its first element (no identity value is ever
//      combined). The lanes then meet in a fixed tree: lane j takes lane j + h for
//      h = 8, 4, 2, 1, where lane j + h holds elements.
//   3. Leaf tree: the leaf results meet level by level, (0,1) (2,3) ...; an odd last node
//      moves up a level unchanged.
// A launch may split an output's leaves into aligned groups of G = 2^m leaves (phase 1) and
// combine the group results in a second launch (phase 2): an aligned group is a subtree of
// the leaf tree, so the result is the same for every G. Each thread keeps its nodes on a
// binary-counter stack (merge equal levels; at the end fold from the top), which builds the
// level-by-level tree exactly. No atomics, no shared-memory races: a thread owns each output
// (and each group) alone.
// The order matters to sum, prod, mean and var/std. max, min, argmax, argmin, all and any
// pick by a total order or read a truth, so no order changes their result: they are
// ORDER_FREE and fold their elements in the order that runs fastest (fold_body).
//
// Values. Integers wrap (two's complement). fp16/bf16 accumulate in float and are rounded to
// the output once (npu_emu_convert.cuh). Floating-point results that are NaN are stored as the
// canonical NaN (f32 0x7FC00000, f64 0x7FF8000000000000, f16 0x7E00, bf16 0x7FC0; complex
// part by part). max/min: NaN wins (propagates); among zeros, max prefers +0 and min -0, so
// the sign of a zero result does not depend on the order either. argmax/argmin: the first
// index of the best value; NaN is best; -0 == +0.
// Empty reductions (K == 0): sum 0, prod 1, all true, any false, mean/var/std NaN,
// max the type's lowest value (-inf), min its highest (+inf), argmax/argmin -1.
// Scans run sequentially along their axis, one thread per line. On the CPU, outputs side by
// side in memory (rows of at least R_MIN = 16) are reduced a row at a time where their lanes fit
// 16 KB, else in chunks of 256 bytes of lanes that start on a 64-byte boundary
// (reduce_side_by_side), each in its own order; the ORDER_FREE ops take up to RF = 1024 of
// them at a time (fold_side_by_side).
#pragma once
#include "npu_emu_common.cuh"
#include "npu_emu_convert.cuh"

namespace {

using npu_emu::bits_as_double;
using npu_emu::bits_as_float;
using npu_emu::double_as_bits;
using npu_emu::float_as_bits;

constexpr int RMAX_DIMS = 8;
constexpr int W = 16;           // lanes per leaf
constexpr int64_t L = 1024;     // elements per leaf
constexpr int STACK = 64;       // binary-counter depth: 2^64 nodes
template <bool WIDE> struct Wide { using type = int32_t; };   // an index as wide as an element
template <> struct Wide<true> { using type = int64_t; };

// Mirrored by reduce.py's params_dtype (8-byte fields first, no padding).
struct ReduceParams {
    int64_t nout;                    // outputs
    int64_t nred;                    // K: elements reduced into each output
    int64_t nleaves;                 // ceil(K / L)
    int64_t group;                   // G: leaves per group in phase 1 (a power of two)
    int64_t ngroups;                 // ceil(nleaves / G)
    int64_t scan_ystride;            // scans: the output's stride along the axis
    int64_t out_size[RMAX_DIMS];     // kept dims, innermost first
    int64_t out_xstride[RMAX_DIMS];  // the input's strides along them
    int64_t out_ystride[RMAX_DIMS];  // the output's strides along them
    int64_t red_size[RMAX_DIMS];     // reduced dims, innermost (the last axis) first
    int64_t red_stride[RMAX_DIMS];
    double correction;               // var/std: divide by max(K - correction, 0)
    int32_t out_ndim;
    int32_t red_ndim;
    int32_t phase;                   // 0: whole outputs; 1: group results; 2: combine them
    int32_t flags;                   // FLAG_SQRT (std), FLAG_INITIAL (scans)
};
constexpr int32_t FLAG_SQRT = 1;
constexpr int32_t FLAG_INITIAL = 2;

// ------------------------------------------------------------------ arithmetic
// Wrapping integer + and * (through the unsigned type: no signed overflow), IEEE for floats,
// the textbook complex product (no fused multiply-add on either backend).
#define NPU_EMU_WRAP(T, U)                                                                     \
    NPU_EMU_HD T add_(T a, T b) { return static_cast<T>(static_cast<U>(a) + static_cast<U>(b)); } \
    NPU_EMU_HD T mul_(T a, T b) { return static_cast<T>(static_cast<U>(a) * static_cast<U>(b)); }
NPU_EMU_WRAP(int8_t, uint32_t)
NPU_EMU_WRAP(uint8_t, uint32_t)
NPU_EMU_WRAP(int16_t, uint32_t)
NPU_EMU_WRAP(uint16_t, uint32_t)
NPU_EMU_WRAP(int32_t, uint32_t)
NPU_EMU_WRAP(uint32_t, uint32_t)
NPU_EMU_WRAP(int64_t, uint64_t)
NPU_EMU_WRAP(uint64_t, uint64_t)
#undef NPU_EMU_WRAP
NPU_EMU_HD float add_(float a, float b) { return a + b; }
NPU_EMU_HD float mul_(float a, float b) { return a * b; }
NPU_EMU_HD double add_(double a, double b) { return a + b; }
NPU_EMU_HD double mul_(double a, double b) { return a * b; }
template <typename C> NPU_EMU_HD C cadd(C a, C b) { C r; r.re = a.re + b.re; r.im = a.im + b.im; return r; }
template <typename C> NPU_EMU_HD C cmul(C a, C b) {
    C r;
    r.re = a.re * b.re - a.im * b.im;
    r.im = a.re * b.im + a.im * b.re;
    return r;
}
NPU_EMU_HD npu_emu::c64 add_(npu_emu::c64 a, npu_emu::c64 b) { return cadd(a, b); }
NPU_EMU_HD npu_emu::c64 mul_(npu_emu::c64 a, npu_emu::c64 b) { return cmul(a, b); }
NPU_EMU_HD npu_emu::c128 add_(npu_emu::c128 a, npu_emu::c128 b) { return cadd(a, b); }
NPU_EMU_HD npu_emu::c128 mul_(npu_emu::c128 a, npu_emu::c128 b) { return cmul(a, b); }

// The canonical NaN, applied to results only (intermediate NaN payloads differ between
// backends, NaN-ness does not).
NPU_EMU_HD float canonical(float x) { return npu_emu::canonical_nan(x); }
NPU_EMU_HD double canonical(double x) { return npu_emu::canonical_nan(x); }
template <typename T> NPU_EMU_HD T canonical(T x) { return x; }   // integers
NPU_EMU_HD npu_emu::c64 canonical(npu_emu::c64 x) { return npu_emu::c64{canonical(x.re), canonical(x.im)}; }
NPU_EMU_HD npu_emu::c128 canonical(npu_emu::c128 x) { return npu_emu::c128{canonical(x.re), canonical(x.im)}; }

NPU_EMU_HD float quiet_nan(float*) { return npu_emu::canonical_nan_f32(); }
NPU_EMU_HD double quiet_nan(double*) { return npu_emu::canonical_nan_f64(); }
NPU_EMU_HD npu_emu::c64 quiet_nan(npu_emu::c64*) { return npu_emu::c64{quiet_nan((float*)nullptr), quiet_nan((float*)nullptr)}; }
NPU_EMU_HD npu_emu::c128 quiet_nan(npu_emu::c128*) { return npu_emu::c128{quiet_nan((double*)nullptr), quiet_nan((double*)nullptr)}; }

NPU_EMU_HD float divide(float a, int64_t n) { return a / static_cast<float>(n); }
NPU_EMU_HD double divide(double a, int64_t n) { return a / static_cast<double>(n); }
NPU_EMU_HD npu_emu::c64 divide(npu_emu::c64 a, int64_t n) { return npu_emu::c64{divide(a.re, n), divide(a.im, n)}; }
NPU_EMU_HD npu_emu::c128 divide(npu_emu::c128 a, int64_t n) { return npu_emu::c128{divide(a.re, n), divide(a.im, n)}; }

NPU_EMU_HD float root(float x) { return sqrtf(x); }      // correctly rounded on both targets
NPU_EMU_HD double root(double x) { return sqrt(x); }

// The accumulation type of an output type: fp16/bf16 accumulate in float.
template <typename Out> struct AccOf { using type = Out; };
template <> struct AccOf<npu_emu::f16> { using type = float; };
template <> struct AccOf<npu_emu::bf16> { using type = float; };

// -------------------------------------------------------------- order keys
// max/min/argmax/argmin compare integer keys. A float's key is its bits mapped to a signed
// integer whose order is the float order with -0 < +0; a NaN's key lies beyond +inf's (max,
// argmax: nan_high) or below -inf's (min, argmin), so NaN wins. key() uses integer arithmetic
// only, so the CPU's loops vectorize (NaN keys keep their payloads: any NaN result is made
// canonical); arg_key() also gives every NaN one key and -0 the key of +0, for the first
// index among equals. Integers are their own keys.
template <typename In> struct Ordered {
    using Key = In;
    static NPU_EMU_HD Key key(In x, bool) { return x; }
    static NPU_EMU_HD Key arg_key(In x, bool) { return x; }
    static NPU_EMU_HD In value(Key k) { return k; }
    static NPU_EMU_HD Key lowest();
    static NPU_EMU_HD Key highest();
};
#define NPU_EMU_INT_LIMITS(T, LO, HI)                                       \
    template <> NPU_EMU_HD T Ordered<T>::lowest() { return LO; }             \
    template <> NPU_EMU_HD T Ordered<T>::highest() { return HI; }
NPU_EMU_INT_LIMITS(int8_t, -128, 127)
NPU_EMU_INT_LIMITS(uint8_t, 0, 255)
NPU_EMU_INT_LIMITS(int16_t, -32768, 32767)
NPU_EMU_INT_LIMITS(uint16_t, 0, 65535)
NPU_EMU_INT_LIMITS(int32_t, -2147483647 - 1, 2147483647)
NPU_EMU_INT_LIMITS(uint32_t, 0u, 4294967295u)
NPU_EMU_INT_LIMITS(int64_t, -9223372036854775807ll - 1, 9223372036854775807ll)
NPU_EMU_INT_LIMITS(uint64_t, 0ull, 18446744073709551615ull)
#undef NPU_EMU_INT_LIMITS

// F: the float type, B: its bits, K: the signed key; SIGN, MAG, INF: the bit masks.
template <typename F, typename B, typename K, B SIGN, B MAG, B INF> struct FloatKeys {
    static NPU_EMU_HD K from_bits(B b, bool nan_high) {
        const B mag = b & MAG;
        const B nan = static_cast<B>(static_cast<K>(INF - mag) >> (8 * sizeof(B) - 1));  // all ones iff NaN
        b = nan_high ? (b & ~(nan & SIGN)) : (b | (nan & SIGN));
        const K sb = static_cast<K>(b);
        return sb ^ ((sb >> (8 * sizeof(B) - 1)) & static_cast<K>(MAG));
    }
    static NPU_EMU_HD F to_float(K k) {
        const B b = static_cast<B>(k);
        return bits_of(k < 0 ? (b ^ MAG) : b);
    }
    static NPU_EMU_HD float bits_of(uint32_t b) { return bits_as_float(b); }
    static NPU_EMU_HD double bits_of(uint64_t b) { return bits_as_double(b); }
    static NPU_EMU_HD B bits(float x) { return float_as_bits(x); }
    static NPU_EMU_HD B bits(double x) { return double_as_bits(x); }
    static NPU_EMU_HD K key(F x, bool nan_high) { return from_bits(bits(x), nan_high); }
    static NPU_EMU_HD K arg_key(F x, bool nan_high) {
        const K top = static_cast<K>(MAG), bottom = static_cast<K>(~static_cast<B>(MAG));
        return x != x ? (nan_high ? top : bottom) : from_bits(bits(x + F(0)), nan_high);
    }
    static NPU_EMU_HD K lowest() { return from_bits(SIGN | INF, false); }
    static NPU_EMU_HD K highest() { return from_bits(INF, false); }
};
template <> struct Ordered<float>
    : FloatKeys<float, uint32_t, int32_t, 0x80000000u, 0x7FFFFFFFu, 0x7F800000u> {
    using Key = int32_t;
    static NPU_EMU_HD float value(Key k) { return to_float(k); }
};
template <> struct Ordered<double>
    : FloatKeys<double, uint64_t, int64_t, 0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull,
                0x7FF0000000000000ull> {
    using Key = int64_t;
    static NPU_EMU_HD double value(Key k) { return to_float(k); }
};
template <typename H> struct OrderedHalf {   // fp16 / bf16: the float key of the exact value
    using Key = int32_t;
    static NPU_EMU_HD Key key(H x, bool nan_high) { return Ordered<float>::key(npu_emu::convert<float>(x), nan_high); }
    static NPU_EMU_HD Key arg_key(H x, bool nan_high) {
        return Ordered<float>::arg_key(npu_emu::convert<float>(x), nan_high);
    }
    static NPU_EMU_HD H value(Key k) { return npu_emu::convert<H>(canonical(Ordered<float>::value(k))); }
    static NPU_EMU_HD Key lowest() { return Ordered<float>::lowest(); }
    static NPU_EMU_HD Key highest() { return Ordered<float>::highest(); }
};
template <> struct Ordered<npu_emu::f16> : OrderedHalf<npu_emu::f16> {};
template <> struct Ordered<npu_emu::bf16> : OrderedHalf<npu_emu::bf16> {};

// ------------------------------------------------------- the best of a block
// Best<In>: of<MAX>(q, n) is the largest (MAX) or smallest element of q[0..n), n >= 1, by the
// order of the keys above: a NaN if there is one, +0 over -0 for max and -0 over +0 for min
// (which NaN does not matter: results are made canonical). rows<MAX, N>(x, s, n, cols, out)
// is the same for `cols` <= N outputs side by side (n rows at stride s), out[r] for column r.
// find(q, n, v) is the first i with q[i] equal to v (an element of q) by argmax's rule: every
// NaN equal, -0 == +0; arg_rows<MAX, N>(x, s, n, cols, row) the first row of the best element
// of each column by that rule (n < 2^31, as the caller checks). The order of the comparisons does not change any result, so each type
// takes the loops that vectorize best.

// The first i < n (n < 2^31) with same(q[i]), n if none: a min over the matching indices
// (one pass, no early exit: the loop vectorizes; the index is as wide as the element).
template <typename In, class Same> NPU_EMU_HD int64_t first_same(const In* q, int64_t n, Same same) {
    using Idx = typename Wide<sizeof(In) == 8>::type;
    Idx first = static_cast<Idx>(n);
    for (Idx i = 0; i < static_cast<Idx>(n); ++i) {
        const Idx c = same(q[i]) ? i : static_cast<Idx>(n);
        first = c < first ? c : first;
    }
    return first;
}
template <typename In> struct Best {          // fp16 / bf16: fold the keys
    using Key = typename Ordered<In>::Key;
    template <bool MAX> static NPU_EMU_HD Key better(Key a, Key b) { return MAX ? (b > a ? b : a) : (b < a ? b : a); }
    template <bool MAX> static NPU_EMU_HD In of(const In* q, int64_t n) {
        Key k = Ordered<In>::key(q[0], MAX);
        for (int64_t i = 1; i < n; ++i) k = better<MAX>(k, Ordered<In>::key(q[i], MAX));
        return Ordered<In>::value(k);
    }
    template <bool MAX, int N>
    static NPU_EMU_HD void rows(const In* x, int64_t s, int64_t n, int cols, In* out) {
        Key k[N];
        for (int r = 0; r < cols; ++r) k[r] = Ordered<In>::key(x[r], MAX);
        for (int64_t i = 1; i < n; ++i)
            for (int r = 0; r < cols; ++r) k[r] = better<MAX>(k[r], Ordered<In>::key(x[i * s + r], MAX));
        for (int r = 0; r < cols; ++r) out[r] = Ordered<In>::value(k[r]);
    }
    static NPU_EMU_HD int64_t find(const In* q, int64_t n, In v) {
        const Key k = Ordered<In>::arg_key(v, true);
        return first_same(q, n, [k](In x) { return Ordered<In>::arg_key(x, true) == k; });
    }
    template <bool MAX, int N>
    static NPU_EMU_HD void arg_rows(const In* x, int64_t s, int64_t n, int cols, int64_t* row) {
        Key key[N];
        int32_t at[N];
        for (int r = 0; r < cols; ++r) { key[r] = Ordered<In>::arg_key(x[r], MAX); at[r] = 0; }
        for (int32_t i = 1; i < n; ++i)
            for (int r = 0; r < cols; ++r) {
                const Key c = Ordered<In>::arg_key(x[i * s + r], MAX);
                const bool b = MAX ? c > key[r] : c < key[r];
                key[r] = b ? c : key[r];
                at[r] = b ? i : at[r];
            }
        for (int r = 0; r < cols; ++r) row[r] = at[r];
    }
};
template <typename T> struct BestInt {        // integers: plain max / min
    template <bool MAX> static NPU_EMU_HD T better(T a, T b) { return MAX ? (b > a ? b : a) : (b < a ? b : a); }
    template <bool MAX> static NPU_EMU_HD T of(const T* q, int64_t n) {
        T m = q[0];
        for (int64_t i = 1; i < n; ++i) m = better<MAX>(m, q[i]);
        return m;
    }
    template <bool MAX, int N>
    static NPU_EMU_HD void rows(const T* x, int64_t s, int64_t n, int cols, T* out) {
        for (int r = 0; r < cols; ++r) out[r] = x[r];
        for (int64_t i = 1; i < n; ++i)
            for (int r = 0; r < cols; ++r) out[r] = better<MAX>(out[r], x[i * s + r]);
    }
    static NPU_EMU_HD int64_t find(const T* q, int64_t n, T v) {
        return first_same(q, n, [v](T x) { return x == v; });
    }
    template <bool MAX, int N>
    static NPU_EMU_HD void arg_rows(const T* x, int64_t s, int64_t n, int cols, int64_t* row) {
        using Idx = typename Wide<sizeof(T) == 8>::type;
        T m[N];
        Idx at[N];
        for (int r = 0; r < cols; ++r) { m[r] = x[r]; at[r] = 0; }
        for (Idx i = 1; i < static_cast<Idx>(n); ++i)
            for (int r = 0; r < cols; ++r) {
                const T v = x[i * s + r];
                const bool b = MAX ? v > m[r] : v < m[r];
                m[r] = b ? v : m[r];
                at[r] = b ? i : at[r];
            }
        for (int r = 0; r < cols; ++r) row[r] = at[r];
    }
};
template <> struct Best<int8_t> : BestInt<int8_t> {};
template <> struct Best<uint8_t> : BestInt<uint8_t> {};
template <> struct Best<int16_t> : BestInt<int16_t> {};
template <> struct Best<uint16_t> : BestInt<uint16_t> {};
template <> struct Best<int32_t> : BestInt<int32_t> {};
template <> struct Best<uint32_t> : BestInt<uint32_t> {};
template <> struct Best<int64_t> : BestInt<int64_t> {};
template <> struct Best<uint64_t> : BestInt<uint64_t> {};
// float / double: a running max (min) by IEEE comparison, which skips NaNs and takes -0 ==
// +0, and two flags: a NaN seen (then the result is NaN), and a zero of the preferred sign
// seen (+0 for max, -0 for min; a zero result takes that sign when it was seen, else the
// other). The flags are kept as integer extremes of the bits (Flags below): a NaN is seen
// iff the largest |bits| lies above inf's, and the preferred zero iff the smallest of the
// bits XOR that zero's bits is 0. That is two or three integer operations a vector, against
// five for compare-and-or flags (each compare makes a mask that is then widened and ORed): a
// float32 max of 256K elements in cache about 1.5x faster. AVX2 has no 64-bit unsigned
// max/min, so double lanes there keep the compare-and-or flags (FLAG_BITS false); the flags
// are the same either way.
template <typename F, typename B, B SIGN, B INF> struct BestFloat {
    template <bool MAX> struct Track {
        F m = Ordered<F>::bits_of(MAX ? (SIGN | INF) : INF);   // -inf, +inf
        B nan = 0, zero = 0;
        NPU_EMU_HD F value() const {
            if (nan) return quiet_nan(static_cast<F*>(nullptr));
            if (m == F(0)) return (zero != 0) == MAX ? F(0) : -F(0);
            return m;
        }
    };
#if defined(NPU_EMU_CPU) && defined(__x86_64__) && !defined(__AVX512F__)
    static constexpr bool FLAG_BITS = sizeof(B) == 4;
#else
    static constexpr bool FLAG_BITS = true;
#endif
    // One lane's NaN and zero flags in two words (arrays of each, not of pairs: pairs would
    // be shuffled apart in every vector): see() each element (its value and bits), then nan()
    // and zero() of the words. FLAG_BITS: hi the max of |bits|, lo the min of bits ^ ZERO;
    // else hi is 1 once a NaN is seen and lo 0 once the preferred zero is.
    template <bool MAX> struct Flags {
        static constexpr B ZERO = MAX ? B(0) : SIGN;          // the preferred zero's bits
        static constexpr B HI = 0, LO = ~B(0);                // the words' first values
        static NPU_EMU_HD void see(F v, B b, B& hi, B& lo) {
            if (FLAG_BITS) {
                const B a = b & static_cast<B>(~SIGN), z = b ^ ZERO;
                hi = a > hi ? a : hi;
                lo = z < lo ? z : lo;
            } else {
                hi |= v != v ? B(1) : B(0);
                lo &= b == ZERO ? B(0) : ~B(0);
            }
        }
        static NPU_EMU_HD B merge_hi(B a, B b) { return FLAG_BITS ? (a > b ? a : b) : (a | b); }
        static NPU_EMU_HD B merge_lo(B a, B b) { return FLAG_BITS ? (a < b ? a : b) : (a & b); }
        static NPU_EMU_HD B nan(B hi) { return FLAG_BITS ? (hi > INF ? B(1) : B(0)) : hi; }
        static NPU_EMU_HD B zero(B lo) { return lo == 0 ? B(1) : B(0); }
    };
    // Lanes of LW (g++ does not vectorize a float select reduction, but does these lanes;
    // the tail goes into the first lanes), then the lanes merged into one Track (below).
    // With AVX-512's 32 registers, 32 lanes: two or four independent max chains instead of
    // one or two (a float32 max of 256K elements about 1.3x faster); AVX2's 16 registers
    // would spill them. The result does not depend on the lanes (the running max, the NaN
    // and the zero flags are order-free).
    template <bool MAX> static NPU_EMU_HD F of(const F* q, int64_t n) {
#if defined(NPU_EMU_CPU) && defined(__AVX512F__)
        constexpr int LW = 32;
#else
        constexpr int LW = 16;
#endif
        const B* qb = reinterpret_cast<const B*>(q);
        const Track<MAX> init;
        using Fl = Flags<MAX>;
        F m[LW];
        B hi[LW], lo[LW];
        for (int j = 0; j < LW; ++j) { m[j] = init.m; hi[j] = Fl::HI; lo[j] = Fl::LO; }
        const int64_t full = n / LW * LW;
        for (int64_t i = 0; i < full; i += LW)
            for (int j = 0; j < LW; ++j) {
                const F v = q[i + j];
                m[j] = MAX ? (v > m[j] ? v : m[j]) : (v < m[j] ? v : m[j]);
                Fl::see(v, qb[i + j], hi[j], lo[j]);
            }
        for (int64_t i = full; i < n; ++i) {          // the tail, into the first lanes
            const int j = static_cast<int>(i - full);
            const F v = q[i];
            m[j] = MAX ? (v > m[j] ? v : m[j]) : (v < m[j] ? v : m[j]);
            Fl::see(v, qb[i], hi[j], lo[j]);
        }
        // The lanes merged, then one Track: their maxima by their integer keys (no lane holds
        // a NaN; -0 against +0 is the zero flag's to settle), the flags by max / min, each
        // an integer reduction that vectorizes. Read lane by lane instead (a float select),
        // each read waited for the vector store before it: a float32 max of rows of 256
        // took 1.7x as long.
        using O = Ordered<F>;
        typename O::Key k = MAX ? O::lowest() : O::highest();
        B h = Fl::HI, l = Fl::LO;
        for (int j = 0; j < LW; ++j) {
            const typename O::Key c = O::key(m[j], MAX);
            k = MAX ? (c > k ? c : k) : (c < k ? c : k);
            h = Fl::merge_hi(h, hi[j]);
            l = Fl::merge_lo(l, lo[j]);
        }
        Track<MAX> t;
        t.m = O::value(k); t.nan = Fl::nan(h); t.zero = Fl::zero(l);
        return t.value();
    }
    template <bool MAX, int N>
    static NPU_EMU_HD void rows(const F* x, int64_t s, int64_t n, int cols, F* out) {
        using Fl = Flags<MAX>;
        F m[N];
        B hi[N], lo[N];                     // Track's fields, each in an array of its own
        for (int r = 0; r < cols; ++r) { m[r] = Track<MAX>().m; hi[r] = Fl::HI; lo[r] = Fl::LO; }
        for (int64_t i = 0; i < n; ++i) {
            const F* q = x + i * s;
            const B* qb = reinterpret_cast<const B*>(q);
            for (int r = 0; r < cols; ++r) {
                const F v = q[r];
                m[r] = MAX ? (v > m[r] ? v : m[r]) : (v < m[r] ? v : m[r]);
                Fl::see(v, qb[r], hi[r], lo[r]);
            }
        }
        for (int r = 0; r < cols; ++r) {
            Track<MAX> t;
            t.m = m[r]; t.nan = Fl::nan(hi[r]); t.zero = Fl::zero(lo[r]);
            out[r] = t.value();
        }
    }
    static NPU_EMU_HD int64_t find(const F* q, int64_t n, F v) {   // == takes -0 as +0
        if (v != v) return first_same(q, n, [](F x) { return x != x; });
        return first_same(q, n, [v](F x) { return x == v; });
    }
    // IEEE comparisons: strictly better moves the row (-0 == +0 keeps the first); the first
    // NaN's row is kept apart and wins.
    template <bool MAX, int N>
    static NPU_EMU_HD void arg_rows(const F* x, int64_t s, int64_t n, int cols, int64_t* row) {
        using Idx = typename Wide<sizeof(F) == 8>::type;
        F m[N];
        Idx at[N], nan_at[N];
        const Idx none = static_cast<Idx>(n);
        for (int r = 0; r < cols; ++r) { m[r] = x[r]; at[r] = 0; nan_at[r] = x[r] != x[r] ? 0 : none; }
        for (Idx i = 1; i < none; ++i)
            for (int r = 0; r < cols; ++r) {
                const F v = x[i * s + r];
                const bool b = MAX ? v > m[r] : v < m[r];
                m[r] = b ? v : m[r];
                at[r] = b ? i : at[r];
                nan_at[r] = v != v && nan_at[r] == none ? i : nan_at[r];
            }
        for (int r = 0; r < cols; ++r) row[r] = nan_at[r] != none ? nan_at[r] : at[r];
    }
};
template <> struct Best<float> : BestFloat<float, uint32_t, 0x80000000u, 0x7F800000u> {};
template <> struct Best<double>
    : BestFloat<double, uint64_t, 0x8000000000000000ull, 0x7FF0000000000000ull> {};

// ------------------------------------------------------------------ the ops
// An ORDER_FREE op's fold of `cols` outputs side by side (n rows at stride s), by map / combine.
template <class Op>
NPU_EMU_HD void fold_rows(const typename Op::In* x, int64_t s, int64_t n, int cols, typename Op::Part* v) {
    for (int r = 0; r < cols; ++r) v[r] = Op::map(x[r], 0, typename Op::Acc());
    for (int64_t k = 1; k < n; ++k) {
        const typename Op::In* q = x + k * s;
        for (int r = 0; r < cols; ++r) v[r] = Op::combine(v[r], Op::map(q[r], k, typename Op::Acc()));
    }
}
// An op: In (stored input), Out (stored output), Acc (what var's center is kept in), Part
// (a partial result); map(x, k, center) turns element k into a Part, combine(a, b) merges the
// Parts of earlier (a) and later (b) elements, finish(part, p) makes the output, empty(p) is
// the output of an empty reduction, initial() the first output of an include_initial scan.
template <typename In_, typename Out_> struct Sum {
    using In = In_; using Out = Out_; using Acc = typename AccOf<Out_>::type; using Part = Acc;
    static constexpr bool ORDER_FREE = false;
    static NPU_EMU_HD Part map(In x, int64_t, Acc) { return npu_emu::convert<Acc>(x); }
    static NPU_EMU_HD Part combine(Part a, Part b) { return add_(a, b); }
    // The tree's sum plus +0, the additive identity NumPy, PyTorch and CuPy start from: a sum
    // of negative zeros alone is +0 (the tree alone gives -0, as -0 + -0 = -0 in IEEE); every
    // other result is unchanged (x + 0 = x), whatever the grouping.
    static NPU_EMU_HD Part plus_zero(Part v) { return add_(v, npu_emu::convert<Acc>(static_cast<int32_t>(0))); }
    static NPU_EMU_HD Out finish(Part v, const ReduceParams&) { return npu_emu::convert<Out>(canonical(plus_zero(v))); }
    // A scan's outputs are the running results themselves (NumPy's cumsum of -0 is -0).
    static NPU_EMU_HD Out scan_finish(Part v) { return npu_emu::convert<Out>(canonical(v)); }
    static NPU_EMU_HD Out empty(const ReduceParams&) { return initial(); }
    static NPU_EMU_HD Out initial() { return npu_emu::convert<Out>(static_cast<int32_t>(0)); }
};
template <typename In_, typename Out_> struct Prod : Sum<In_, Out_> {
    using Base = Sum<In_, Out_>;
    using typename Base::Part;
    using typename Base::Out;
    static NPU_EMU_HD Part combine(Part a, Part b) { return mul_(a, b); }
    // The tree's product as it is (1 * x = x: the identity changes nothing, -0 included).
    static NPU_EMU_HD Out finish(Part v, const ReduceParams&) { return npu_emu::convert<Out>(canonical(v)); }
    static NPU_EMU_HD Out empty(const ReduceParams&) { return initial(); }
    static NPU_EMU_HD Out initial() { return npu_emu::convert<Out>(static_cast<int32_t>(1)); }
};
template <typename In_, typename Out_> struct Mean : Sum<In_, Out_> {
    using Base = Sum<In_, Out_>;
    using typename Base::Part;
    using typename Base::Out;
    static NPU_EMU_HD Out finish(Part v, const ReduceParams& p) {
        return npu_emu::convert<Out>(canonical(divide(Base::plus_zero(v), p.nred)));
    }
    static NPU_EMU_HD Out empty(const ReduceParams&) { return npu_emu::convert<Out>(quiet_nan(static_cast<Part*>(nullptr))); }
};
// The sum of squares (vector_norm's 2-norm before its square root): element k squared in the
// accumulation type, then Sum's order and finish, so the bits are those of a multiply kernel
// (x * x, rounded once) followed by sum, in one pass with no intermediate array.
template <typename In_, typename Out_> struct SumSq : Sum<In_, Out_> {
    using Base = Sum<In_, Out_>;
    using typename Base::Part;
    using typename Base::Acc;
    using typename Base::In;
    static NPU_EMU_HD Part map(In x, int64_t, Acc) {
        const Acc v = npu_emu::convert<Acc>(x);
        return mul_(v, v);
    }
};
// Squared deviations from a center (var's first pass: the mean in this same order).
template <typename In_, typename Out_> struct SqDev {
    using In = In_; using Out = Out_; using Acc = typename AccOf<Out_>::type; using Part = Acc;
    static constexpr bool ORDER_FREE = false;
    static NPU_EMU_HD Part map(In x, int64_t, Acc c) {
        const Acc d = npu_emu::convert<Acc>(x) - c;
        return d * d;
    }
    static NPU_EMU_HD Part combine(Part a, Part b) { return a + b; }
    static NPU_EMU_HD Out finish(Part v, const ReduceParams& p) {
        double n = static_cast<double>(p.nred) - p.correction;
        n = n > 0.0 ? n : 0.0;
        Acc r = v / npu_emu::convert<Acc>(n);
        if (p.flags & FLAG_SQRT) r = root(r);
        return npu_emu::convert<Out>(canonical(r));
    }
    static NPU_EMU_HD Out empty(const ReduceParams&) { return npu_emu::convert<Out>(quiet_nan(static_cast<Acc*>(nullptr))); }
};
// ORDER_FREE ops pick by a total order (max, min, argmax, argmin) or take a truth (all, any):
// their result does not depend on the order of the elements, so they skip the leaves and run
// `run(q, n, k0)` over a contiguous range (elements k0 .. k0 + n - 1 at q), a plain fold
// elsewhere.
template <typename In_, bool MAX> struct Extreme {
    using In = In_; using Out = In_; using Acc = In_;
    using Part = typename Ordered<In_>::Key;
    static constexpr bool ORDER_FREE = true;
    static NPU_EMU_HD Part run(const In* q, int64_t n, int64_t) {
        return Ordered<In>::key(Best<In>::template of<MAX>(q, n), MAX);
    }
    template <int N> static NPU_EMU_HD void rows(const In* x, int64_t s, int64_t n, int cols, Part* v) {
        In best[N];
        Best<In>::template rows<MAX, N>(x, s, n, cols, best);
        for (int r = 0; r < cols; ++r) v[r] = Ordered<In>::key(best[r], MAX);
    }
    static NPU_EMU_HD Part map(In x, int64_t, Acc) { return Ordered<In>::key(x, MAX); }
    static NPU_EMU_HD Part combine(Part a, Part b) { return MAX ? (b > a ? b : a) : (b < a ? b : a); }
    static NPU_EMU_HD Out finish(Part v, const ReduceParams&) { return canonical(Ordered<In>::value(v)); }
    static NPU_EMU_HD Out empty(const ReduceParams&) {
        return Ordered<In>::value(MAX ? Ordered<In>::lowest() : Ordered<In>::highest());
    }
};
template <typename In_, typename Out_> struct Max : Extreme<In_, true> {};
template <typename In_, typename Out_> struct Min : Extreme<In_, false> {};

template <typename K> struct KeyIndex { K key; int64_t idx; };
template <typename In_, bool MAX> struct ArgExtreme {
    using In = In_; using Out = int64_t; using Acc = In_;
    using Key = typename Ordered<In_>::Key;
    using Part = KeyIndex<Key>;
    static constexpr bool ORDER_FREE = true;
    static constexpr int64_t CHUNK = 8192;
    // Chunk by chunk: the chunk's best value (vectorized); only a chunk that beats the best
    // so far is searched for the first index of that value (rare on most data). Chunks of
    // 8192: each ends in a merge of the lanes, which at 1024 cost a float32 argmax of 256K
    // elements a third of its time (39 -> 27 us); sorted data, where every chunk is
    // searched, reads each element twice at any chunk size.
    static NPU_EMU_HD Part run(const In* q, int64_t n, int64_t k0) {
        Part best{Key(), -1};
        for (int64_t c = 0; c < n; c += CHUNK) {
            const int64_t m = n - c < CHUNK ? n - c : CHUNK;
            const In v = Best<In>::template of<MAX>(q + c, m);
            const Key k = Ordered<In>::arg_key(v, MAX);
            if (best.idx >= 0 && !(MAX ? k > best.key : k < best.key)) continue;
            best = Part{k, k0 + c + Best<In>::find(q + c, m, v)};
        }
        return best;
    }
    template <int N> static NPU_EMU_HD void rows(const In* x, int64_t s, int64_t n, int cols, Part* v) {
        int64_t row[N];
        Best<In>::template arg_rows<MAX, N>(x, s, n, cols, row);
        for (int r = 0; r < cols; ++r) v[r] = Part{Ordered<In>::arg_key(x[row[r] * s + r], MAX), row[r]};
    }
    static NPU_EMU_HD Part map(In x, int64_t k, Acc) { return Part{Ordered<In>::arg_key(x, MAX), k}; }
    static NPU_EMU_HD Part combine(Part a, Part b) {
        const bool better = MAX ? b.key > a.key : b.key < a.key;
        return (better || (b.key == a.key && b.idx < a.idx)) ? b : a;
    }
    static NPU_EMU_HD Out finish(Part v, const ReduceParams&) { return v.idx; }
    static NPU_EMU_HD Out empty(const ReduceParams&) { return -1; }
};
template <typename In_, typename Out_> struct ArgMax : ArgExtreme<In_, true> {};
template <typename In_, typename Out_> struct ArgMin : ArgExtreme<In_, false> {};

template <typename In_, bool ALL> struct Truth {
    using In = In_; using Out = npu_emu::boolean; using Acc = uint8_t; using Part = uint8_t;
    static constexpr bool ORDER_FREE = true;
    static constexpr int64_t CHUNK = 4096;
    // Counts the true elements chunk by chunk; stops at the first chunk that decides.
    static NPU_EMU_HD Part run(const In* q, int64_t n, int64_t) {
        for (int64_t c = 0; c < n; c += CHUNK) {
            const int m = static_cast<int>(n - c < CHUNK ? n - c : CHUNK);
            int count = 0;
            for (int i = 0; i < m; ++i) count += map(q[c + i], 0, 0);
            if (ALL ? count != m : count != 0) return ALL ? 0 : 1;
        }
        return ALL ? 1 : 0;
    }
    template <int N> static NPU_EMU_HD void rows(const In* x, int64_t s, int64_t n, int cols, Part* v) {
        fold_rows<Truth>(x, s, n, cols, v);
    }
    static NPU_EMU_HD Part map(In x, int64_t, Acc) { return npu_emu::convert<npu_emu::boolean>(x).v != 0; }
    static NPU_EMU_HD Part combine(Part a, Part b) { return ALL ? (a & b) : (a | b); }
    static NPU_EMU_HD Out finish(Part v, const ReduceParams&) { npu_emu::boolean r; r.v = v; return r; }
    static NPU_EMU_HD Out empty(const ReduceParams&) { npu_emu::boolean r; r.v = ALL ? 1 : 0; return r; }
};
template <typename In_, typename Out_> struct All : Truth<In_, true> {};
template <typename In_, typename Out_> struct Any : Truth<In_, false> {};

// ---------------------------------------------------------------- the order
// The binary-counter stack: push nodes left to right; equal levels merge; result() folds what
// is left from the top (smallest) down. Equal to the level-by-level pairwise tree.
template <class Op> struct Tree {
    using Part = typename Op::Part;
    Part node[STACK];
    int level[STACK];
    int sp = 0;
    NPU_EMU_HD void push(Part v) {
        int lev = 0;
        while (sp > 0 && level[sp - 1] == lev) {
            v = Op::combine(node[sp - 1], v);
            --sp;
            ++lev;
        }
        node[sp] = v;
        level[sp] = lev;
        ++sp;
    }
    NPU_EMU_HD Part result() const {
        Part v = node[sp - 1];
        for (int i = sp - 2; i >= 0; --i) v = Op::combine(node[i], v);
        return v;
    }
};

// Lanes 0..used-1 hold elements; lane j takes lane j + h for h = W/2 .. 1.
template <class Op>
NPU_EMU_HD typename Op::Part lane_tree(typename Op::Part* lane, int used) {
    for (int h = W / 2; h >= 1; h >>= 1)
        for (int j = 0; j < h; ++j)
            if (j + h < used) lane[j] = Op::combine(lane[j], lane[j + h]);
    return lane[0];
}

// Element k's offset in a reduced space of several dims (C order: dim 0 fastest).
struct RedCursor {
    int64_t idx[RMAX_DIMS];
    int64_t off;
    NPU_EMU_HD void seek(const ReduceParams& p, int64_t k) {
        off = 0;
        for (int d = 0; d < p.red_ndim; ++d) {
            idx[d] = k % p.red_size[d];
            k /= p.red_size[d];
            off += idx[d] * p.red_stride[d];
        }
    }
    NPU_EMU_HD void step(const ReduceParams& p) {
        for (int d = 0; d < p.red_ndim; ++d) {
            off += p.red_stride[d];
            if (++idx[d] < p.red_size[d]) return;
            off -= p.red_size[d] * p.red_stride[d];
            idx[d] = 0;
        }
    }
};

// Elements k0 .. k0 + n - 1 (1 <= n <= L) of a leaf that lie on one line, at q, q + s, ...: rows
// of W elements (the CPU's loops vectorize), a tail.
template <class Op>
NPU_EMU_HD typename Op::Part leaf_line(const typename Op::In* q, int64_t s, int64_t k0, int64_t n,
                                       typename Op::Acc c) {
    using Part = typename Op::Part;
    Part lane[W];
    const int used = n < W ? static_cast<int>(n) : W;
    const int64_t rows_end = n / W * W;
    if (s == 1) {
        for (int j = 0; j < used; ++j) lane[j] = Op::map(q[j], k0 + j, c);
        for (int64_t i = W; i < rows_end; i += W)
            for (int j = 0; j < W; ++j) lane[j] = Op::combine(lane[j], Op::map(q[i + j], k0 + i + j, c));
    } else {
        for (int j = 0; j < used; ++j) lane[j] = Op::map(q[j * s], k0 + j, c);
        for (int64_t i = W; i < rows_end; i += W)
            for (int j = 0; j < W; ++j)
                lane[j] = Op::combine(lane[j], Op::map(q[(i + j) * s], k0 + i + j, c));
    }
    for (int64_t i = rows_end > W ? rows_end : W; i < n; ++i)
        lane[i - rows_end] = Op::combine(lane[i - rows_end], Op::map(q[i * s], k0 + i, c));
    return lane_tree<Op>(lane, used);
}

// One leaf: elements k0 .. k0 + n - 1 (1 <= n <= L) of the output whose elements start at x.
// Element i goes to lane i mod W whatever the path: one reduced dim, or a leaf inside one line
// of the innermost reduced dim (x[::2, ::2] summed: each leaf a line), take leaf_line; the
// rest walks the reduced dims with a cursor.
template <class Op>
NPU_EMU_HD typename Op::Part leaf(const ReduceParams& p, const typename Op::In* x, int64_t k0,
                                  int64_t n, typename Op::Acc c) {
    using Part = typename Op::Part;
    RedCursor cur;
    const typename Op::In* line = nullptr;      // one call of leaf_line: one copy of its loops
    if (p.red_ndim == 1) {
        line = x + k0 * p.red_stride[0];
    } else {
        cur.seek(p, k0);
        if (k0 % p.red_size[0] + n <= p.red_size[0]) line = x + cur.off;
    }
    if (line) return leaf_line<Op>(line, p.red_stride[0], k0, n, c);
    Part lane[W];
    const int used = n < W ? static_cast<int>(n) : W;
    for (int64_t i = 0; i < n; ++i) {
        const Part v = Op::map(x[cur.off], k0 + i, c);
        const int j = static_cast<int>(i % W);
        lane[j] = i < W ? v : Op::combine(lane[j], v);
        cur.step(p);
    }
    return lane_tree<Op>(lane, used);
}

#if defined(NPU_EMU_CPU)
// Leaves of K neighbouring lines at once: a reduced space of two dims whose lines (dim 0, of
// whole leaves: red_size[0] a multiple of L) lie side by side in memory (red_stride[1] == 1)
// while each line steps far (a full reduction of x.T: each line a column of x). Leaf h of
// line k is elements h L .. h L + L - 1 of that line; element t of every line's leaf is read
// as one run of K (a cache line), and goes to lane t mod W of its leaf, in order, as in
// leaf_line; each leaf's lanes then meet in lane_tree. So every leaf is leaf()'s, bit for
// bit: only the reads are reordered. Walked line by line a column of x touched a new cache
// line for each element (sum(x.T) of 2048 x 2048 float32: 13.7 ms, NumPy 0.93).
constexpr int LINES_MAX_LEAVES = 64;     // leaves per line this path takes (its buffer)
template <class Op> constexpr int line_block() {
    return 64 / static_cast<int>(sizeof(typename Op::Part)) >= 4 ? 64 / static_cast<int>(sizeof(typename Op::Part)) : 4;
}
template <class Op>
NPU_EMU_HD bool lines_side_by_side(const ReduceParams& p) {
    // Real accumulators only (float, double): the complex sums keep the plain path, and
    // their modules the build time this path's unrolled loops would add.
    if constexpr (!std::is_floating_point<typename Op::Part>::value) return false;
    return p.red_ndim == 2 && p.red_stride[1] == 1 && p.red_stride[0] > line_block<Op>() &&
           p.red_size[0] % L == 0 && p.red_size[0] / L <= LINES_MAX_LEAVES &&
           p.red_size[1] >= line_block<Op>();
}
// The leaves of lines i .. i + K - 1 (all their leaves, H a line) into part[k * H + h], in
// the order they are pushed.
template <class Op>
NPU_EMU_HD void leaves_of_lines(const ReduceParams& p, const typename Op::In* x, int64_t i,
                                typename Op::Acc c, typename Op::Part* part) {
    using Part = typename Op::Part;
    constexpr int K = line_block<Op>();
    const int64_t s0 = p.red_stride[0];
    const int64_t H = p.red_size[0] / L;
    for (int64_t h = 0; h < H; ++h) {
        const typename Op::In* q = x + i + h * L * s0;
        const int64_t k0 = h * L;            // the element index of the leaf's first element
        Part acc[W][K];
        for (int j = 0; j < W; ++j)
            for (int k = 0; k < K; ++k) acc[j][k] = Op::map(q[j * s0 + k], k0 + j, c);
        for (int64_t t = W; t < L; t += W)
            for (int j = 0; j < W; ++j)
                for (int k = 0; k < K; ++k)
                    acc[j][k] = Op::combine(acc[j][k], Op::map(q[(t + j) * s0 + k], k0 + t + j, c));
        for (int k = 0; k < K; ++k) {
            Part lane[W];
            for (int j = 0; j < W; ++j) lane[j] = acc[j][k];
            part[k * H + h] = lane_tree<Op>(lane, W);
        }
    }
}
#endif

// Output m's element offsets in the input and the output (kept dims, innermost first).
NPU_EMU_HD void out_offsets(const ReduceParams& p, int64_t m, int64_t* xo, int64_t* yo) {
    int64_t a = 0, b = 0;
    for (int d = 0; d < p.out_ndim; ++d) {
        const int64_t i = m % p.out_size[d];
        m /= p.out_size[d];
        a += i * p.out_xstride[d];
        b += i * p.out_ystride[d];
    }
    *xo = a;
    *yo = b;
}

// This thread's items: a contiguous range of [0, items), the same split for any geometry
// shape (the CPU's one-thread blocks each take a chunk; GPU threads one item or a few).
__device__ __forceinline__ void thread_range(int64_t items, int64_t* begin, int64_t* end) {
    const uint64_t threads = static_cast<uint64_t>(gridDim.x) * blockDim.x;
    const uint64_t t = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const uint64_t chunk = (static_cast<uint64_t>(items) + threads - 1) / threads;
    const uint64_t b = t * chunk;
    const uint64_t e = b + chunk;
    *begin = static_cast<int64_t>(b < static_cast<uint64_t>(items) ? b : items);
    *end = static_cast<int64_t>(e < static_cast<uint64_t>(items) ? e : items);
}

#if defined(NPU_EMU_CPU)
// The CPU's path for outputs side by side in memory (the kept inner dim contiguous in the
// input, e.g. the columns of a row-major matrix): the same order for each output, with the
// innermost loop across the outputs, so it vectorizes as a sum of rows. (A GPU's threads
// each take one of those outputs and read side by side already.) Which outputs go together
// is a work split only: every output follows its own order, so no split changes a bit.
//   - Rows of at most band_cols<Op>() outputs (their 16 lanes fit in 16 KB: 256 float32
//     columns, 128 float64) are taken whole (a thread's run of them, as a band): a matrix of
//     such rows, (4096, 256) float32, is read as one stream.
//   - Wider rows go in chunks of chunk_cols<Op>() outputs (256 bytes of lanes: 64 float32
//     columns, 32 float64), the first one cut short so that the others start on a 64-byte
//     boundary: a chunk's row is then whole cache lines (NumPy's arrays start 16 bytes past
//     one: 64 float32 columns that straddled five lines ran 1.5x slower than on four), and
//     each of its loads, unrolled, steps by the row stride, which the prefetcher follows.
// The leaf results of a run meet in one binary-counter tree whose levels all its outputs
// share (they push in step): at most SBS_DEPTH nodes, so runs of at most 2^SBS_DEPTH - 1
// leaves (K < 2^30) take this path.
constexpr int R = 64;             // the most outputs of a chunk
// The fewest side-by-side outputs that take these paths (a row of 16 float32 is one cache
// line; narrower rows go output by output). kernels/reduce.py's SIDE_BY_SIDE_MIN says the same.
constexpr int R_MIN = 16;
constexpr int SBS_BYTES = 16384;  // a band's lanes
constexpr int SBS_DEPTH = 20;
template <class Op> constexpr int band_cols() { return SBS_BYTES / (W * static_cast<int>(sizeof(typename Op::Part))); }
template <class Op> constexpr int chunk_cols() {
    constexpr int n = 256 / static_cast<int>(sizeof(typename Op::Part));
    return n > R ? R : n;
}
// Rows taken whole (band_cols) for float and double inputs only: each other type builds one
// instantiation of reduce_side_by_side (chunks) instead of two (each adds to a unit's build).
template <typename T> struct Banded { static constexpr bool value = false; };
template <> struct Banded<float> { static constexpr bool value = true; };
template <> struct Banded<double> { static constexpr bool value = true; };
template <class Op>
NPU_EMU_HD bool side_by_side(const ReduceParams& p) {
    return p.phase == 0 && p.red_ndim == 1 && p.out_ndim >= 1 && p.out_xstride[0] == 1 &&
           p.out_size[0] >= R_MIN && p.nred > 0 && p.nleaves < (int64_t(1) << SBS_DEPTH);
}
// a[r] = combine(a[r], b[r]) (B_FIRST: combine(b[r], a[r])) for r < N; a and b never overlap.
template <class Op, int N, bool B_FIRST>
NPU_EMU_HD void combine_into(typename Op::Part* __restrict__ a, const typename Op::Part* __restrict__ b) {
    for (int r = 0; r < N; ++r) a[r] = B_FIRST ? Op::combine(b[r], a[r]) : Op::combine(a[r], b[r]);
}
// cols (1 <= cols <= band_cols) outputs side by side at x, y; center: their means (var) or
// null. The outputs are taken in chunks of N = chunk_cols, the last one maybe short: its rows
// are copied into a row of N (the rest a copy of x[0], whose results are dropped), so that
// every loop has the constant count N (unrolled, each load steps by the row stride from one
// row to the next; no remainder loops to build). Lanes and tree nodes are kept by chunk.
template <class Op, int NC>
NPU_EMU_HD void reduce_side_by_side(const ReduceParams& p, const typename Op::In* x,
                                    typename Op::Out* y, const typename Op::Acc* center, int cols) {
    using Part = typename Op::Part;
    using Acc = typename Op::Acc;
    using In = typename Op::In;
    constexpr int N = chunk_cols<Op>();
    const int nc = (cols + N - 1) / N;
    const int full = cols / N, rest = cols - full * N;
    Part lane[NC][W][N];
    Part node[NC][SBS_DEPTH][N];   // the tree's nodes; their levels are the same for all
    int level[SBS_DEPTH];
    int sp = 0;
    Acc cr[NC][N];
    In pad[N];                     // the short chunk's row
    if (rest > 0)
        for (int r = 0; r < N; ++r) pad[r] = x[0];
    #pragma GCC unroll 1
    for (int c = 0; c < nc; ++c)
        for (int r = 0; r < N; ++r) cr[c][r] = center && c * N + r < cols ? center[c * N + r] : Acc();
    // Chunk c of the row at qrow.
    auto chunk = [&](const In* qrow, int c) -> const In* {
        if (c < full) return qrow + c * N;
        for (int r = 0; r < rest; ++r) pad[r] = qrow[c * N + r];
        return pad;
    };
    const int64_t s = p.red_stride[0];
    for (int64_t l = 0; l < p.nleaves; ++l) {
        const int64_t k0 = l * L;
        const int64_t n = p.nred - k0 < L ? p.nred - k0 : L;
        const int used = n < W ? static_cast<int>(n) : W;
        const In* q = x + k0 * s;
        for (int j = 0; j < used; ++j)
            #pragma GCC unroll 1
            for (int c = 0; c < nc; ++c) {
                const In* qc = chunk(q + j * s, c);
                for (int r = 0; r < N; ++r) lane[c][j][r] = Op::map(qc[r], k0 + j, cr[c][r]);
            }
        for (int64_t i = W; i < n; ++i) {
            const int j = static_cast<int>(i & (W - 1));
            #pragma GCC unroll 1
            for (int c = 0; c < nc; ++c) {
                const In* qc = chunk(q + i * s, c);
                Part* row = lane[c][j];
                for (int r = 0; r < N; ++r) row[r] = Op::combine(row[r], Op::map(qc[r], k0 + i, cr[c][r]));
            }
        }
        #pragma GCC unroll 1
        for (int c = 0; c < nc; ++c) {
            for (int h = W / 2; h >= 1; h >>= 1)
                for (int j = 0; j < h; ++j)
                    if (j + h < used)
                        combine_into<Op, N, false>(lane[c][j], lane[c][j + h]);
        }
        if (p.nleaves == 1) break;   // one leaf: its lanes' result is the outputs' (no tree)
        // Tree::push, every output at once: the nodes above `top` merge into the leaf's.
        int top = sp, lev = 0;
        while (top > 0 && level[top - 1] == lev) {
            --top;
            ++lev;
        }
        #pragma GCC unroll 1
        for (int c = 0; c < nc; ++c)
            for (int r = 0; r < N; ++r) {   // one output at a time (little work: not vectorized)
                Part v = lane[c][0][r];
                for (int t = sp - 1; t >= top; --t) v = Op::combine(node[c][t][r], v);
                node[c][top][r] = v;
            }
        level[top] = lev;
        sp = top + 1;
    }
    // Tree::result: fold from the top down.
    #pragma GCC unroll 1
    for (int c = 0; c < nc; ++c) {
        const int w = cols - c * N < N ? cols - c * N : N;
        for (int r = 0; r < w; ++r) {
            Part v = p.nleaves == 1 ? lane[c][0][r] : node[c][sp - 1][r];
            for (int t = sp - 2; t >= 0; --t) v = Op::combine(node[c][t][r], v);
            y[(c * N + r) * p.out_ystride[0]] = Op::finish(v, p);
        }
    }
}
// How many of the `run` outputs side by side at x (in a row of `row` outputs) the next
// side-by-side call takes: all of them where a row fits a band, else a chunk (the first cut
// short to the next 64-byte boundary, the last to the run's end).
template <class Op>
NPU_EMU_HD int side_by_side_cols(const typename Op::In* x, int64_t run, int64_t row) {
    constexpr int NB = band_cols<Op>(), N = chunk_cols<Op>();
    if (Banded<typename Op::In>::value && row <= NB) return static_cast<int>(run);
    constexpr int size = static_cast<int>(sizeof(typename Op::In));
    const int off = static_cast<int>(reinterpret_cast<uintptr_t>(x) & 63);
    const int head = off % size == 0 ? ((64 - off) & 63) / size : 0;
    const int cols = head > 0 && head < N ? head : N;
    return run < cols ? static_cast<int>(run) : cols;
}
#endif

// An ORDER_FREE op's part of elements k0 .. k0 + n - 1 (n >= 1) of the output at x.
template <class Op>
NPU_EMU_HD typename Op::Part fold(const ReduceParams& p, const typename Op::In* x, int64_t k0,
                                  int64_t n) {
    if (p.red_ndim == 1 && p.red_stride[0] == 1) return Op::run(x + k0, n, k0);
    RedCursor cur;
    cur.seek(p, k0);
    typename Op::Part v = Op::map(x[cur.off], k0, typename Op::Acc());
    for (int64_t i = 1; i < n; ++i) {
        cur.step(p);
        v = Op::combine(v, Op::map(x[cur.off], k0 + i, typename Op::Acc()));
    }
    return v;
}

#if defined(NPU_EMU_CPU)
// The CPU's path for an ORDER_FREE op's outputs side by side (as reduce_side_by_side): a fold
// of rows, the loop across `cols` (R .. RF) outputs innermost. (Wide rows: the hardware
// prefetcher follows a row, not a column of short pieces 4 KB apart.)
constexpr int RF = 1024;
template <class Op>
NPU_EMU_HD void fold_side_by_side(const ReduceParams& p, const typename Op::In* x,
                                  typename Op::Out* y, int cols) {
    typename Op::Part v[RF];
    Op::template rows<RF>(x, p.red_stride[0], p.nred, cols, v);
    for (int r = 0; r < cols; ++r) y[r * p.out_ystride[0]] = Op::finish(v[r], p);
}
#endif

// reduce_body of an ORDER_FREE op: the same items, a fold over each item's elements.
template <class Op>
__device__ __forceinline__ void fold_body(const ReduceParams& p, const typename Op::In* x,
                                          typename Op::Part* ws, typename Op::Out* y) {
    const int64_t items = p.phase == 1 ? p.nout * p.ngroups : p.nout;
    int64_t begin, end;
    thread_range(items, &begin, &end);
#if defined(NPU_EMU_CPU)
    const bool rows = side_by_side<Op>(p) && p.nred < (int64_t(1) << 31);
#endif
    for (int64_t it = begin; it < end; ++it) {
        const int64_t m = p.phase == 1 ? it / p.ngroups : it;
        int64_t xo, yo;
        out_offsets(p, m, &xo, &yo);
#if defined(NPU_EMU_CPU)
        const int64_t left = p.out_size[0] - m % p.out_size[0];   // outputs left in this row
        if (rows && left >= R_MIN && it + R_MIN <= end) {
            int64_t cols = left < end - it ? left : end - it;
            cols = cols < RF ? cols : RF;
            fold_side_by_side<Op>(p, x + xo, y + yo, static_cast<int>(cols));
            it += cols - 1;
            continue;
        }
#endif
        if (p.phase == 2) {
            typename Op::Part v = ws[m * p.ngroups];
            for (int64_t g = 1; g < p.ngroups; ++g) v = Op::combine(v, ws[m * p.ngroups + g]);
            y[yo] = Op::finish(v, p);
            continue;
        }
        if (p.nred == 0) {
            y[yo] = Op::empty(p);
            continue;
        }
        const int64_t k0 = p.phase == 1 ? (it % p.ngroups) * p.group * L : 0;
        const int64_t k1 = p.phase == 1 && k0 + p.group * L < p.nred ? k0 + p.group * L : p.nred;
        const typename Op::Part v = fold<Op>(p, x + xo, k0, k1 - k0);
        if (p.phase == 1)
            ws[it] = v;
        else
            y[yo] = Op::finish(v, p);
    }
}

// phase 0: each item is an output, reduced whole. phase 1: item (m, g) writes the node of
// output m's leaf group g to ws[m * ngroups + g]. phase 2: item m combines its ngroups nodes.
// center (var/std): output m's mean, by m; null otherwise.
template <class Op>
__device__ __forceinline__ void ordered_body(const ReduceParams& p, const typename Op::In* x,
                                             typename Op::Part* ws, typename Op::Out* y,
                                             const typename Op::Acc* center) {
    const int64_t items = p.phase == 1 ? p.nout * p.ngroups : p.nout;
    int64_t begin, end;
    thread_range(items, &begin, &end);
#if defined(NPU_EMU_CPU)
    const bool rows = side_by_side<Op>(p);
#endif
    for (int64_t it = begin; it < end; ++it) {
        const int64_t m = p.phase == 1 ? it / p.ngroups : it;
        int64_t xo, yo;
        out_offsets(p, m, &xo, &yo);
#if defined(NPU_EMU_CPU)
        const int64_t left = p.out_size[0] - m % p.out_size[0];   // outputs left in this row
        const int64_t run = left < end - it ? left : end - it;
        if (rows) {   // a run of outputs side by side: its first band or chunk
            const int cols = side_by_side_cols<Op>(x + xo, run, p.out_size[0]);
            const typename Op::Acc* c = center ? center + m : nullptr;
            if constexpr (Banded<typename Op::In>::value)
                if (p.out_size[0] <= band_cols<Op>()) {
                    reduce_side_by_side<Op, band_cols<Op>() / chunk_cols<Op>()>(p, x + xo, y + yo, c, cols);
                    it += cols - 1;
                    continue;
                }
            reduce_side_by_side<Op, 1>(p, x + xo, y + yo, c, cols);
            it += cols - 1;
            continue;
        }
#endif
        Tree<Op> tree;
        if (p.phase == 2) {
            for (int64_t g = 0; g < p.ngroups; ++g) tree.push(ws[m * p.ngroups + g]);
            y[yo] = Op::finish(tree.result(), p);
            continue;
        }
        if (p.nred == 0) {
            y[yo] = Op::empty(p);
            continue;
        }
        const typename Op::Acc c = center ? center[m] : typename Op::Acc();
        const int64_t l0 = p.phase == 1 ? (it % p.ngroups) * p.group : 0;
        const int64_t l1 = p.phase == 1 && l0 + p.group < p.nleaves ? l0 + p.group : p.nleaves;
        int64_t l = l0;
#if defined(NPU_EMU_CPU)
        if constexpr (std::is_floating_point<typename Op::Part>::value)
        if (lines_side_by_side<Op>(p)) {     // whole blocks of K lines: their leaves together
            constexpr int K = line_block<Op>();
            const int64_t H = p.red_size[0] / L;
            typename Op::Part part[K * LINES_MAX_LEAVES];
            for (; l < l1 && l % H != 0; ++l) tree.push(leaf<Op>(p, x + xo, l * L, L, c));
            for (; l + K * H <= l1; l += K * H) {
                leaves_of_lines<Op>(p, x + xo, l / H, c, part);
                for (int64_t k = 0; k < K * H; ++k) tree.push(part[k]);
            }
        }
#endif
        for (; l < l1; ++l) {
            const int64_t k0 = l * L;
            tree.push(leaf<Op>(p, x + xo, k0, p.nred - k0 < L ? p.nred - k0 : L, c));
        }
        if (p.phase == 1)
            ws[it] = tree.result();
        else
            y[yo] = Op::finish(tree.result(), p);
    }
}

template <class Op>
__device__ __forceinline__ void reduce_body(const ReduceParams& p, const typename Op::In* x,
                                            typename Op::Part* ws, typename Op::Out* y,
                                            const typename Op::Acc* center) {
    if constexpr (Op::ORDER_FREE)
        fold_body<Op>(p, x, ws, y);
    else
        ordered_body<Op>(p, x, ws, y, center);
}

// A scan along one axis (red dim 0): each item is a line, combined in order. On the CPU,
// where the axis is not the contiguous one (a cumulative sum down the columns), up to
// SCAN_LINES neighbouring lines go together, step k of each in turn: a row's elements then
// stream in order, where one line at a time read one element per row. Each line keeps its
// own order, so the grouping changes no bit (a test builds it with -DNPU_EMU_SCAN_LINES=1,
// the GPU's shape, and compares). On a GPU a thread takes one line.
#if !defined(NPU_EMU_SCAN_LINES)
#if defined(NPU_EMU_CPU)
#define NPU_EMU_SCAN_LINES 64
#else
#define NPU_EMU_SCAN_LINES 1
#endif
#endif
constexpr int SCAN_LINES = NPU_EMU_SCAN_LINES;

#if defined(NPU_EMU_CPU)
#define NPU_EMU_SCAN_LANES _Pragma("omp simd")   // the lines are independent
#else
#define NPU_EMU_SCAN_LANES
#endif

// Step k of `lines` lines, the j-th at x + j dx, y + j dy (k = 0 starts them).
template <class Op>
__device__ __forceinline__ void scan_step(const typename Op::In* x, typename Op::Out* y,
                                          typename Op::Part* acc, int lines, int64_t dx,
                                          int64_t dy, int64_t k) {
    if (k == 0) {
        NPU_EMU_SCAN_LANES
        for (int j = 0; j < lines; ++j) {
            acc[j] = Op::map(x[j * dx], 0, typename Op::Acc());
            y[j * dy] = Op::scan_finish(acc[j]);
        }
    } else {
        NPU_EMU_SCAN_LANES
        for (int j = 0; j < lines; ++j) {
            acc[j] = Op::combine(acc[j], Op::map(x[j * dx], k, typename Op::Acc()));
            y[j * dy] = Op::scan_finish(acc[j]);
        }
    }
}

// One line from x, its outputs from y: scan_step's arithmetic for a single line, its running
// result in a register (scan_step with one line kept it in memory: 3x slower on a contiguous
// axis).
template <class Op>
__device__ __forceinline__ void scan_line(const typename Op::In* x, typename Op::Out* y,
                                          int64_t xs, int64_t ys, int64_t n) {
    typename Op::Part acc = typename Op::Part();
    for (int64_t k = 0; k < n; ++k) {
        const typename Op::Part v = Op::map(x[k * xs], k, typename Op::Acc());
        acc = k == 0 ? v : Op::combine(acc, v);
        y[k * ys] = Op::scan_finish(acc);
    }
}

template <class Op>
__device__ __forceinline__ void scan_body(const ReduceParams& p, const typename Op::In* x,
                                          typename Op::Out* y) {
    int64_t begin, end;
    thread_range(p.nout, &begin, &end);
    const int64_t xs = p.red_stride[0], ys = p.scan_ystride;
    const int64_t first = (p.flags & FLAG_INITIAL) ? 1 : 0;
    const int64_t group = xs == 1 ? 1 : SCAN_LINES;
    for (int64_t m0 = begin; m0 < end; m0 += group) {
        const int lines = static_cast<int>(end - m0 < group ? end - m0 : group);
        int64_t xo[SCAN_LINES], yo[SCAN_LINES];
        for (int j = 0; j < lines; ++j) {
            out_offsets(p, m0 + j, &xo[j], &yo[j]);
            if (first) y[yo[j]] = Op::initial();
        }
        // Lines evenly spaced (a row's neighbours): one strided step of all each k, which
        // vectorizes; else (a contiguous axis, or lines across a wrap of the kept dims) one
        // line at a time.
        const int64_t dx = lines > 1 ? xo[1] - xo[0] : 0, dy = lines > 1 ? yo[1] - yo[0] : 0;
        bool even = lines > 1;
        for (int j = 2; j < lines; ++j)
            even = even && xo[j] - xo[j - 1] == dx && yo[j] - yo[j - 1] == dy;
        if (even) {
            typename Op::Part acc[SCAN_LINES];
            for (int64_t k = 0; k < p.nred; ++k)
                scan_step<Op>(x + xo[0] + k * xs, y + yo[0] + (k + first) * ys, acc, lines, dx, dy, k);
        } else {
            for (int j = 0; j < lines; ++j)
                scan_line<Op>(x + xo[j], y + yo[j] + first * ys, xs, ys, p.nred);
        }
    }
}

}  // namespace

#define NPU_EMU_REDUCE(NAME, OP, IN, IN_N, OUT, OUT_N)                                            \
    extern "C" __global__ void reduce_##NAME##_##IN_N##_##OUT_N(                                  \
        const ReduceParams p, const IN* x, OP<IN, OUT>::Part* ws, OP<IN, OUT>::Out* y,            \
        const OP<IN, OUT>::Acc* center) {                                                         \
        reduce_body<OP<IN, OUT>>(p, x, ws, y, center);                                            \
    }                                                                                             \
    NPU_EMU_EXPORT(reduce_##NAME##_##IN_N##_##OUT_N)

#define NPU_EMU_SCAN(NAME, OP, IN, IN_N, OUT, OUT_N)                                              \
    extern "C" __global__ void scan_##NAME##_##IN_N##_##OUT_N(const ReduceParams p, const IN* x,  \
                                                              OP<IN, OUT>::Out* y) {              \
        scan_body<OP<IN, OUT>>(p, x, y);                                                          \
    }                                                                                             \
    NPU_EMU_EXPORT(scan_##NAME##_##IN_N##_##OUT_N)
