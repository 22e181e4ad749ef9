// Reductions and scans over a strided view, in one fixed order that does not depend on the
// launch geometry, the thread count or the backend (docs/reductions.md):
//   sum prod max min argmax argmin all any mean, the squared deviations of var/std, and the
//   scans cumulative_sum / cumulative_prod. Host side: npu_emu/kernels/reduce.py.
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
// side in memory are reduced 16 at a time (reduce_side_by_side), each in its own order.
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
NPU_EMU_HD float canonical(float x) { return x != x ? bits_as_float(0x7FC00000u) : x; }
NPU_EMU_HD double canonical(double x) { return x != x ? bits_as_double(0x7FF8000000000000ull) : x; }
template <typename T> NPU_EMU_HD T canonical(T x) { return x; }   // integers
NPU_EMU_HD npu_emu::c64 canonical(npu_emu::c64 x) { return npu_emu::c64{canonical(x.re), canonical(x.im)}; }
NPU_EMU_HD npu_emu::c128 canonical(npu_emu::c128 x) { return npu_emu::c128{canonical(x.re), canonical(x.im)}; }

NPU_EMU_HD float quiet_nan(float*) { return bits_as_float(0x7FC00000u); }
NPU_EMU_HD double quiet_nan(double*) { return bits_as_double(0x7FF8000000000000ull); }
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

// ------------------------------------------------------------------ the ops
// An op: In (stored input), Out (stored output), Acc (what var's center is kept in), Part
// (a partial result); map(x, k, center) turns element k into a Part, combine(a, b) merges the
// Parts of earlier (a) and later (b) elements, finish(part, p) makes the output, empty(p) is
// the output of an empty reduction, initial() the first output of an include_initial scan.
template <typename In_, typename Out_> struct Sum {
    using In = In_; using Out = Out_; using Acc = typename AccOf<Out_>::type; using Part = Acc;
    static NPU_EMU_HD Part map(In x, int64_t, Acc) { return npu_emu::convert<Acc>(x); }
    static NPU_EMU_HD Part combine(Part a, Part b) { return add_(a, b); }
    static NPU_EMU_HD Out finish(Part v, const ReduceParams&) { return npu_emu::convert<Out>(canonical(v)); }
    static NPU_EMU_HD Out empty(const ReduceParams&) { return initial(); }
    static NPU_EMU_HD Out initial() { return npu_emu::convert<Out>(static_cast<int32_t>(0)); }
};
template <typename In_, typename Out_> struct Prod : Sum<In_, Out_> {
    using Base = Sum<In_, Out_>;
    using typename Base::Part;
    using typename Base::Out;
    static NPU_EMU_HD Part combine(Part a, Part b) { return mul_(a, b); }
    static NPU_EMU_HD Out empty(const ReduceParams&) { return initial(); }
    static NPU_EMU_HD Out initial() { return npu_emu::convert<Out>(static_cast<int32_t>(1)); }
};
template <typename In_, typename Out_> struct Mean : Sum<In_, Out_> {
    using Base = Sum<In_, Out_>;
    using typename Base::Part;
    using typename Base::Out;
    static NPU_EMU_HD Out finish(Part v, const ReduceParams& p) {
        return npu_emu::convert<Out>(canonical(divide(v, p.nred)));
    }
    static NPU_EMU_HD Out empty(const ReduceParams&) { return npu_emu::convert<Out>(quiet_nan(static_cast<Part*>(nullptr))); }
};
// Squared deviations from a center (var's first pass: the mean in this same order).
template <typename In_, typename Out_> struct SqDev {
    using In = In_; using Out = Out_; using Acc = typename AccOf<Out_>::type; using Part = Acc;
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
template <typename In_, bool MAX> struct Extreme {
    using In = In_; using Out = In_; using Acc = In_;
    using Part = typename Ordered<In_>::Key;
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

// One leaf: elements k0 .. k0 + n - 1 (1 <= n <= L) of the output whose elements start at x.
template <class Op>
NPU_EMU_HD typename Op::Part leaf(const ReduceParams& p, const typename Op::In* x, int64_t k0,
                                  int64_t n, typename Op::Acc c) {
    using Part = typename Op::Part;
    Part lane[W];
    const int used = n < W ? static_cast<int>(n) : W;
    if (p.red_ndim == 1) {   // one dim: rows of W elements (the CPU's loops vectorize), a tail
        const int64_t s = p.red_stride[0];
        const int64_t rows_end = n / W * W;
        const typename Op::In* q = x + k0 * s;
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
    RedCursor cur;
    cur.seek(p, k0);
    for (int64_t i = 0; i < n; ++i) {
        const Part v = Op::map(x[cur.off], k0 + i, c);
        const int j = static_cast<int>(i % W);
        lane[j] = i < W ? v : Op::combine(lane[j], v);
        cur.step(p);
    }
    return lane_tree<Op>(lane, used);
}

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
// The CPU's path for R outputs side by side in memory (the kept inner dim contiguous in the
// input, e.g. the columns of a row-major matrix): the same order for each output, with the
// innermost loop across the R outputs, so it vectorizes as a sum of rows. (A GPU's threads
// each take one of those outputs and read side by side already.)
constexpr int R = 16;
template <class Op>
NPU_EMU_HD bool side_by_side(const ReduceParams& p) {
    return p.phase == 0 && p.red_ndim == 1 && p.out_ndim >= 1 && p.out_xstride[0] == 1 &&
           p.out_size[0] >= R && p.nred > 0;
}
template <class Op>
NPU_EMU_HD void reduce_side_by_side(const ReduceParams& p, const typename Op::In* x,
                                    typename Op::Out* y, const typename Op::Acc* center) {
    using Part = typename Op::Part;
    using Acc = typename Op::Acc;
    Tree<Op> trees[R];
    Acc cr[R];
    for (int r = 0; r < R; ++r) cr[r] = center ? center[r] : Acc();
    const int64_t s = p.red_stride[0];
    for (int64_t l = 0; l < p.nleaves; ++l) {
        const int64_t k0 = l * L;
        const int64_t n = p.nred - k0 < L ? p.nred - k0 : L;
        const int used = n < W ? static_cast<int>(n) : W;
        const typename Op::In* q = x + k0 * s;
        Part lane[W][R];
        for (int j = 0; j < used; ++j)
            for (int r = 0; r < R; ++r) lane[j][r] = Op::map(q[j * s + r], k0 + j, cr[r]);
        for (int64_t i = W; i < n; ++i) {
            Part* row = lane[i & (W - 1)];
            const typename Op::In* qi = q + i * s;
            for (int r = 0; r < R; ++r) row[r] = Op::combine(row[r], Op::map(qi[r], k0 + i, cr[r]));
        }
        for (int h = W / 2; h >= 1; h >>= 1)
            for (int j = 0; j < h; ++j)
                if (j + h < used)
                    for (int r = 0; r < R; ++r) lane[j][r] = Op::combine(lane[j][r], lane[j + h][r]);
        for (int r = 0; r < R; ++r) trees[r].push(lane[0][r]);
    }
    for (int r = 0; r < R; ++r) y[r * p.out_ystride[0]] = Op::finish(trees[r].result(), p);
}
#endif

// phase 0: each item is an output, reduced whole. phase 1: item (m, g) writes the node of
// output m's leaf group g to ws[m * ngroups + g]. phase 2: item m combines its ngroups nodes.
// center (var/std): output m's mean, by m; null otherwise.
template <class Op>
__device__ __forceinline__ void reduce_body(const ReduceParams& p, const typename Op::In* x,
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
        if (rows && m % p.out_size[0] + R <= p.out_size[0] && it + R <= end) {
            reduce_side_by_side<Op>(p, x + xo, y + yo, center ? center + m : nullptr);
            it += R - 1;
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
        for (int64_t l = l0; l < l1; ++l) {
            const int64_t k0 = l * L;
            tree.push(leaf<Op>(p, x + xo, k0, p.nred - k0 < L ? p.nred - k0 : L, c));
        }
        if (p.phase == 1)
            ws[it] = tree.result();
        else
            y[yo] = Op::finish(tree.result(), p);
    }
}

// A scan along one axis (red dim 0): each item is a line, combined in order.
template <class Op>
__device__ __forceinline__ void scan_body(const ReduceParams& p, const typename Op::In* x,
                                          typename Op::Out* y) {
    int64_t begin, end;
    thread_range(p.nout, &begin, &end);
    const int64_t xs = p.red_stride[0], ys = p.scan_ystride;
    const int64_t first = (p.flags & FLAG_INITIAL) ? 1 : 0;
    for (int64_t m = begin; m < end; ++m) {
        int64_t xo, yo;
        out_offsets(p, m, &xo, &yo);
        if (first) y[yo] = Op::initial();
        typename Op::Part acc = typename Op::Part();
        for (int64_t k = 0; k < p.nred; ++k) {
            const typename Op::Part v = Op::map(x[xo + k * xs], k, typename Op::Acc());
            acc = k == 0 ? v : Op::combine(acc, v);
            y[yo + (k + first) * ys] = Op::finish(acc, p);
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

// The instantiation list: generated from the catalog (python -m npu_emu.kernels.reduce);
// tests/test_reduce.py fails when it is stale.
// BEGIN GENERATED
NPU_EMU_REDUCE(sum, Sum, int8_t, s8, int8_t, s8)
NPU_EMU_REDUCE(sum, Sum, int16_t, s16, int16_t, s16)
NPU_EMU_REDUCE(sum, Sum, int32_t, s32, int32_t, s32)
NPU_EMU_REDUCE(sum, Sum, int64_t, s64, int64_t, s64)
NPU_EMU_REDUCE(sum, Sum, uint8_t, u8, uint8_t, u8)
NPU_EMU_REDUCE(sum, Sum, uint16_t, u16, uint16_t, u16)
NPU_EMU_REDUCE(sum, Sum, uint32_t, u32, uint32_t, u32)
NPU_EMU_REDUCE(sum, Sum, uint64_t, u64, uint64_t, u64)
NPU_EMU_REDUCE(sum, Sum, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(sum, Sum, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(sum, Sum, float, f32, float, f32)
NPU_EMU_REDUCE(sum, Sum, double, f64, double, f64)
NPU_EMU_REDUCE(sum, Sum, npu_emu::c64, c64, npu_emu::c64, c64)
NPU_EMU_REDUCE(sum, Sum, npu_emu::c128, c128, npu_emu::c128, c128)
NPU_EMU_REDUCE(sum, Sum, npu_emu::boolean, bool, int64_t, s64)
NPU_EMU_REDUCE(sum, Sum, int8_t, s8, int64_t, s64)
NPU_EMU_REDUCE(sum, Sum, int16_t, s16, int64_t, s64)
NPU_EMU_REDUCE(sum, Sum, int32_t, s32, int64_t, s64)
NPU_EMU_REDUCE(sum, Sum, uint8_t, u8, uint64_t, u64)
NPU_EMU_REDUCE(sum, Sum, uint16_t, u16, uint64_t, u64)
NPU_EMU_REDUCE(sum, Sum, uint32_t, u32, uint64_t, u64)
NPU_EMU_REDUCE(sum, Sum, npu_emu::f16, f16, float, f32)
NPU_EMU_REDUCE(sum, Sum, npu_emu::bf16, bf16, float, f32)
NPU_EMU_REDUCE(sum, Sum, float, f32, double, f64)
NPU_EMU_REDUCE(sum, Sum, npu_emu::c64, c64, npu_emu::c128, c128)
NPU_EMU_REDUCE(prod, Prod, int8_t, s8, int8_t, s8)
NPU_EMU_REDUCE(prod, Prod, int16_t, s16, int16_t, s16)
NPU_EMU_REDUCE(prod, Prod, int32_t, s32, int32_t, s32)
NPU_EMU_REDUCE(prod, Prod, int64_t, s64, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, uint8_t, u8, uint8_t, u8)
NPU_EMU_REDUCE(prod, Prod, uint16_t, u16, uint16_t, u16)
NPU_EMU_REDUCE(prod, Prod, uint32_t, u32, uint32_t, u32)
NPU_EMU_REDUCE(prod, Prod, uint64_t, u64, uint64_t, u64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(prod, Prod, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(prod, Prod, float, f32, float, f32)
NPU_EMU_REDUCE(prod, Prod, double, f64, double, f64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::c64, c64, npu_emu::c64, c64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::c128, c128, npu_emu::c128, c128)
NPU_EMU_REDUCE(prod, Prod, npu_emu::boolean, bool, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, int8_t, s8, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, int16_t, s16, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, int32_t, s32, int64_t, s64)
NPU_EMU_REDUCE(prod, Prod, uint8_t, u8, uint64_t, u64)
NPU_EMU_REDUCE(prod, Prod, uint16_t, u16, uint64_t, u64)
NPU_EMU_REDUCE(prod, Prod, uint32_t, u32, uint64_t, u64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::f16, f16, float, f32)
NPU_EMU_REDUCE(prod, Prod, npu_emu::bf16, bf16, float, f32)
NPU_EMU_REDUCE(prod, Prod, float, f32, double, f64)
NPU_EMU_REDUCE(prod, Prod, npu_emu::c64, c64, npu_emu::c128, c128)
NPU_EMU_REDUCE(max, Max, int8_t, s8, int8_t, s8)
NPU_EMU_REDUCE(max, Max, int16_t, s16, int16_t, s16)
NPU_EMU_REDUCE(max, Max, int32_t, s32, int32_t, s32)
NPU_EMU_REDUCE(max, Max, int64_t, s64, int64_t, s64)
NPU_EMU_REDUCE(max, Max, uint8_t, u8, uint8_t, u8)
NPU_EMU_REDUCE(max, Max, uint16_t, u16, uint16_t, u16)
NPU_EMU_REDUCE(max, Max, uint32_t, u32, uint32_t, u32)
NPU_EMU_REDUCE(max, Max, uint64_t, u64, uint64_t, u64)
NPU_EMU_REDUCE(max, Max, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(max, Max, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(max, Max, float, f32, float, f32)
NPU_EMU_REDUCE(max, Max, double, f64, double, f64)
NPU_EMU_REDUCE(min, Min, int8_t, s8, int8_t, s8)
NPU_EMU_REDUCE(min, Min, int16_t, s16, int16_t, s16)
NPU_EMU_REDUCE(min, Min, int32_t, s32, int32_t, s32)
NPU_EMU_REDUCE(min, Min, int64_t, s64, int64_t, s64)
NPU_EMU_REDUCE(min, Min, uint8_t, u8, uint8_t, u8)
NPU_EMU_REDUCE(min, Min, uint16_t, u16, uint16_t, u16)
NPU_EMU_REDUCE(min, Min, uint32_t, u32, uint32_t, u32)
NPU_EMU_REDUCE(min, Min, uint64_t, u64, uint64_t, u64)
NPU_EMU_REDUCE(min, Min, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(min, Min, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(min, Min, float, f32, float, f32)
NPU_EMU_REDUCE(min, Min, double, f64, double, f64)
NPU_EMU_REDUCE(argmax, ArgMax, int8_t, s8, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, int16_t, s16, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, int32_t, s32, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, int64_t, s64, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, uint8_t, u8, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, uint16_t, u16, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, uint32_t, u32, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, uint64_t, u64, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, npu_emu::f16, f16, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, npu_emu::bf16, bf16, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, float, f32, int64_t, s64)
NPU_EMU_REDUCE(argmax, ArgMax, double, f64, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, int8_t, s8, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, int16_t, s16, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, int32_t, s32, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, int64_t, s64, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, uint8_t, u8, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, uint16_t, u16, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, uint32_t, u32, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, uint64_t, u64, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, npu_emu::f16, f16, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, npu_emu::bf16, bf16, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, float, f32, int64_t, s64)
NPU_EMU_REDUCE(argmin, ArgMin, double, f64, int64_t, s64)
NPU_EMU_REDUCE(all, All, npu_emu::boolean, bool, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int8_t, s8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int16_t, s16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int32_t, s32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, int64_t, s64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint8_t, u8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint16_t, u16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint32_t, u32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, uint64_t, u64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, npu_emu::f16, f16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, npu_emu::bf16, bf16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, float, f32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, double, f64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, npu_emu::c64, c64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(all, All, npu_emu::c128, c128, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::boolean, bool, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int8_t, s8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int16_t, s16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int32_t, s32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, int64_t, s64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint8_t, u8, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint16_t, u16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint32_t, u32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, uint64_t, u64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::f16, f16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::bf16, bf16, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, float, f32, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, double, f64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::c64, c64, npu_emu::boolean, bool)
NPU_EMU_REDUCE(any, Any, npu_emu::c128, c128, npu_emu::boolean, bool)
NPU_EMU_REDUCE(mean, Mean, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(mean, Mean, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(mean, Mean, float, f32, float, f32)
NPU_EMU_REDUCE(mean, Mean, double, f64, double, f64)
NPU_EMU_REDUCE(mean, Mean, npu_emu::c64, c64, npu_emu::c64, c64)
NPU_EMU_REDUCE(mean, Mean, npu_emu::c128, c128, npu_emu::c128, c128)
NPU_EMU_REDUCE(mean, Mean, npu_emu::f16, f16, float, f32)
NPU_EMU_REDUCE(mean, Mean, npu_emu::bf16, bf16, float, f32)
NPU_EMU_REDUCE(sqdev, SqDev, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_REDUCE(sqdev, SqDev, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_REDUCE(sqdev, SqDev, float, f32, float, f32)
NPU_EMU_REDUCE(sqdev, SqDev, double, f64, double, f64)
NPU_EMU_SCAN(sum, Sum, int8_t, s8, int8_t, s8)
NPU_EMU_SCAN(sum, Sum, int16_t, s16, int16_t, s16)
NPU_EMU_SCAN(sum, Sum, int32_t, s32, int32_t, s32)
NPU_EMU_SCAN(sum, Sum, int64_t, s64, int64_t, s64)
NPU_EMU_SCAN(sum, Sum, uint8_t, u8, uint8_t, u8)
NPU_EMU_SCAN(sum, Sum, uint16_t, u16, uint16_t, u16)
NPU_EMU_SCAN(sum, Sum, uint32_t, u32, uint32_t, u32)
NPU_EMU_SCAN(sum, Sum, uint64_t, u64, uint64_t, u64)
NPU_EMU_SCAN(sum, Sum, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_SCAN(sum, Sum, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_SCAN(sum, Sum, float, f32, float, f32)
NPU_EMU_SCAN(sum, Sum, double, f64, double, f64)
NPU_EMU_SCAN(sum, Sum, npu_emu::c64, c64, npu_emu::c64, c64)
NPU_EMU_SCAN(sum, Sum, npu_emu::c128, c128, npu_emu::c128, c128)
NPU_EMU_SCAN(sum, Sum, npu_emu::boolean, bool, int64_t, s64)
NPU_EMU_SCAN(sum, Sum, int8_t, s8, int64_t, s64)
NPU_EMU_SCAN(sum, Sum, int16_t, s16, int64_t, s64)
NPU_EMU_SCAN(sum, Sum, int32_t, s32, int64_t, s64)
NPU_EMU_SCAN(sum, Sum, uint8_t, u8, uint64_t, u64)
NPU_EMU_SCAN(sum, Sum, uint16_t, u16, uint64_t, u64)
NPU_EMU_SCAN(sum, Sum, uint32_t, u32, uint64_t, u64)
NPU_EMU_SCAN(sum, Sum, npu_emu::f16, f16, float, f32)
NPU_EMU_SCAN(sum, Sum, npu_emu::bf16, bf16, float, f32)
NPU_EMU_SCAN(sum, Sum, float, f32, double, f64)
NPU_EMU_SCAN(sum, Sum, npu_emu::c64, c64, npu_emu::c128, c128)
NPU_EMU_SCAN(prod, Prod, int8_t, s8, int8_t, s8)
NPU_EMU_SCAN(prod, Prod, int16_t, s16, int16_t, s16)
NPU_EMU_SCAN(prod, Prod, int32_t, s32, int32_t, s32)
NPU_EMU_SCAN(prod, Prod, int64_t, s64, int64_t, s64)
NPU_EMU_SCAN(prod, Prod, uint8_t, u8, uint8_t, u8)
NPU_EMU_SCAN(prod, Prod, uint16_t, u16, uint16_t, u16)
NPU_EMU_SCAN(prod, Prod, uint32_t, u32, uint32_t, u32)
NPU_EMU_SCAN(prod, Prod, uint64_t, u64, uint64_t, u64)
NPU_EMU_SCAN(prod, Prod, npu_emu::f16, f16, npu_emu::f16, f16)
NPU_EMU_SCAN(prod, Prod, npu_emu::bf16, bf16, npu_emu::bf16, bf16)
NPU_EMU_SCAN(prod, Prod, float, f32, float, f32)
NPU_EMU_SCAN(prod, Prod, double, f64, double, f64)
NPU_EMU_SCAN(prod, Prod, npu_emu::c64, c64, npu_emu::c64, c64)
NPU_EMU_SCAN(prod, Prod, npu_emu::c128, c128, npu_emu::c128, c128)
NPU_EMU_SCAN(prod, Prod, npu_emu::boolean, bool, int64_t, s64)
NPU_EMU_SCAN(prod, Prod, int8_t, s8, int64_t, s64)
NPU_EMU_SCAN(prod, Prod, int16_t, s16, int64_t, s64)
NPU_EMU_SCAN(prod, Prod, int32_t, s32, int64_t, s64)
NPU_EMU_SCAN(prod, Prod, uint8_t, u8, uint64_t, u64)
NPU_EMU_SCAN(prod, Prod, uint16_t, u16, uint64_t, u64)
NPU_EMU_SCAN(prod, Prod, uint32_t, u32, uint64_t, u64)
NPU_EMU_SCAN(prod, Prod, npu_emu::f16, f16, float, f32)
NPU_EMU_SCAN(prod, Prod, npu_emu::bf16, bf16, float, f32)
NPU_EMU_SCAN(prod, Prod, float, f32, double, f64)
NPU_EMU_SCAN(prod, Prod, npu_emu::c64, c64, npu_emu::c128, c128)
// END GENERATED
