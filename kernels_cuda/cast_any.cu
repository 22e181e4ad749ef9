// cast_any(params, src, dst, src_dtype, dst_dtype): any pair of cast.cuh's 20 types, 64-bit
// indices, both dtypes dispatched per element (two calls per element): the GPU's path for
// spaces past 2^31 elements, slower than cast_<src> but one small function instead of 400
// more pair loops. The tests run it on the CPU too. Beside it, the CPU's test hook of the
// F16C float32 -> fp16 path the cast kernels take.
#include "cast.cuh"

namespace {

// ------------------------------------------------------------------ cast_any
#if defined(NPU_EMU_CPU)
#define NPU_EMU_CAST_NOINLINE __attribute__((noinline))
#else
#define NPU_EMU_CAST_NOINLINE __noinline__
#endif

// A source element as the store side sees it: its loaded value (detail::load) and, for fp16
// parts, the bits (fp16 -> double keeps NaN payloads).
struct Value {
    double d, di;      // FLOAT64 kind; di: imaginary part of complex sources (FLOAT32/64)
    int64_t i;
    uint64_t u;
    float f, fi;
    int kind;          // detail::SIGNED_INT (int64_t i), UNSIGNED_INT (u), FLOAT32 (f), FLOAT64 (d)
    bool complex, half;
    uint16_t hre, him;
};

__device__ __forceinline__ void set(Value& v, int32_t x) { v.kind = detail::SIGNED_INT; v.i = x; }
__device__ __forceinline__ void set(Value& v, int64_t x) { v.kind = detail::SIGNED_INT; v.i = x; }
__device__ __forceinline__ void set(Value& v, uint64_t x) { v.kind = detail::UNSIGNED_INT; v.u = x; }
__device__ __forceinline__ void set(Value& v, float x) { v.kind = detail::FLOAT32; v.f = x; }
__device__ __forceinline__ void set(Value& v, double x) { v.kind = detail::FLOAT64; v.d = x; }
__device__ __forceinline__ void set_im(Value& v, float x) { v.fi = x; }
__device__ __forceinline__ void set_im(Value& v, double x) { v.di = x; }

template <typename T>
__device__ __forceinline__ Value load_value(T x) {
    Value v{};
    if constexpr (is_complex<T>) {
        set(v, detail::load(detail::re_of(x)));
        set_im(v, detail::load(detail::im_of(x)));
        v.complex = true;
        if constexpr (detail::is_same<T, npu_emu::c32>::value) {
            v.half = true;
            v.hre = x.re;
            v.him = x.im;
        }
    } else {
        set(v, detail::load(x));
        if constexpr (detail::is_same<T, npu_emu::f16>::value) {
            v.half = true;
            v.hre = x.bits;
        }
    }
    return v;
}

template <typename P>
__device__ __forceinline__ P part_of(const Value& v, bool imag) {
    using detail::Store;
    if constexpr (detail::is_same<P, double>::value) {
        if (v.half) return npu_emu::to_double(npu_emu::f16{imag ? v.him : v.hre});
    }
    if (imag) return v.kind == detail::FLOAT64 ? Store<P>::from(v.di) : Store<P>::from(v.fi);
    switch (v.kind) {
        case detail::SIGNED_INT: return Store<P>::from(v.i);
        case detail::UNSIGNED_INT: return Store<P>::from(v.u);
        case detail::FLOAT32: return Store<P>::from(v.f);
        default: return Store<P>::from(v.d);
    }
}

template <typename Dst>
__device__ __forceinline__ Dst store_value(const Value& v) {
    if constexpr (is_complex<Dst>) {
        using P = typename detail::Part<Dst>::type;
        return detail::make_complex(part_of<P>(v, false),
                                    v.complex ? part_of<P>(v, true) : npu_emu::convert<P>(0.0f),
                                    static_cast<Dst*>(nullptr));
    } else if constexpr (detail::Traits<Dst>::kind == detail::BOOLEAN) {
        return npu_emu::boolean{static_cast<uint8_t>(
            part_of<npu_emu::boolean>(v, false).v | (v.complex ? part_of<npu_emu::boolean>(v, true).v : 0))};
    } else {
        return part_of<Dst>(v, false);
    }
}

__device__ NPU_EMU_CAST_NOINLINE Value load_any(int dtype, const void* base, uint64_t i) {
    switch (dtype) {
#define NPU_EMU_CAST_LOAD(T, NAME, CODE) \
    case CODE: return load_value(static_cast<const T*>(base)[i]);
        NPU_EMU_CAST_TYPES(NPU_EMU_CAST_LOAD)
#undef NPU_EMU_CAST_LOAD
        default: return Value{};
    }
}

__device__ NPU_EMU_CAST_NOINLINE void store_any(int dtype, void* base, uint64_t i, const Value& v) {
    switch (dtype) {
#define NPU_EMU_CAST_STORE(T, NAME, CODE) \
    case CODE: static_cast<T*>(base)[i] = store_value<T>(v); break;
        NPU_EMU_CAST_TYPES(NPU_EMU_CAST_STORE)
#undef NPU_EMU_CAST_STORE
        default: break;
    }
}

__device__ __forceinline__ void copy_any(int itemsize, void* dst, uint64_t di, const void* src, uint64_t si) {
    switch (itemsize) {
        case 1: static_cast<uint8_t*>(dst)[di] = static_cast<const uint8_t*>(src)[si]; break;
        case 2: static_cast<uint16_t*>(dst)[di] = static_cast<const uint16_t*>(src)[si]; break;
        case 4: static_cast<uint32_t*>(dst)[di] = static_cast<const uint32_t*>(src)[si]; break;
        case 8: static_cast<uint64_t*>(dst)[di] = static_cast<const uint64_t*>(src)[si]; break;
        default: static_cast<npu_emu::c128*>(dst)[di] = static_cast<const npu_emu::c128*>(src)[si];
    }
}

__device__ __forceinline__ int itemsize_of(int dtype) {
    switch (dtype) {
#define NPU_EMU_CAST_SIZE(T, NAME, CODE) \
    case CODE: return static_cast<int>(sizeof(T));
        NPU_EMU_CAST_TYPES(NPU_EMU_CAST_SIZE)
#undef NPU_EMU_CAST_SIZE
        default: return 0;
    }
}

__device__ __forceinline__ void cast_any_body(const IterParams<2>& p, const void* src, void* dst,
                                              int src_dtype, int dst_dtype) {
    using I = uint64_t;
    const I numel = static_cast<I>(p.numel);
    const I run = static_cast<I>(p.run);
    const uint64_t thread = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (thread * run >= numel) return;
    const I begin = thread * run;
    I count = min(run, numel - begin);
    const int same_size = src_dtype == dst_dtype ? itemsize_of(src_dtype) : 0;

    Odometer<I, 2> od;
    I i0 = od.seek(p, begin);
    const I n0 = static_cast<I>(p.size[0]);
    const I ds = static_cast<I>(p.stride[0][0]);
    const I ss = static_cast<I>(p.stride[1][0]);
    for (;;) {
        const I n = min(n0 - i0, count);
        const I doff = od.off[0] + i0 * ds, soff = od.off[1] + i0 * ss;
        for (I j = 0; j < n; ++j) {
            if (same_size) {
                copy_any(same_size, dst, doff + j * ds, src, soff + j * ss);
            } else {
                store_any(dst_dtype, dst, doff + j * ds, load_any(src_dtype, src, soff + j * ss));
            }
        }
        count -= n;
        if (count == 0) return;
        i0 = 0;
        od.next_row(p);
    }
}

}  // namespace

extern "C" __global__ void cast_any(const IterParams<2> p, const void* src, void* dst,
                                    int src_dtype, int dst_dtype) {
    cast_any_body(p, src, dst, src_dtype, dst_dtype);
}
NPU_EMU_EXPORT(cast_any)

#if defined(NPU_EMU_CPU)
// Test hook of the F16C path (tests/test_cpu_fast_paths.py): how many of the float32 bit
// patterns lo, lo + step, ... (below hi) npu_emu::f16c_from_floats encodes differently from
// the integer rule from_float<f16>; the first such pattern goes to *first. zmm = 0 checks the
// ymm loops alone (where the CPU has AVX-512F, they otherwise carry only the tails); zmm = 1 the
// zmm loops, -2 where the CPU has none. -1: this build has no F16C path (the cast kernels use
// the rule alone).
extern "C" long long npu_emu_f16c_mismatches(unsigned long long lo, unsigned long long hi,
                                             unsigned long long step, unsigned long long* first,
                                             int zmm) {
#if defined(NPU_EMU_F16C)
    constexpr unsigned long long BLOCK = 4096;
    if (step == 0 || hi <= lo) return 0;
    if (zmm && !npu_emu::has_avx512f()) return -2;   // no zmm loops on this host
    struct Width {   // zmm = 0: the ymm loops alone, in this module, for this call
        explicit Width(int on) { npu_emu::zmm_allowed.store(on); }
        ~Width() { npu_emu::zmm_allowed.store(1); }
    } width(zmm);
    const unsigned long long count = (hi - lo + step - 1) / step;
    const long long blocks = static_cast<long long>((count + BLOCK - 1) / BLOCK);
    long long bad = 0;
    unsigned long long lowest = ~0ull;
#pragma omp parallel for schedule(static) reduction(+ : bad) reduction(min : lowest)
    for (long long blk = 0; blk < blocks; ++blk) {
        float x[BLOCK];
        npu_emu::f16 fast[BLOCK];
        const unsigned long long k0 = static_cast<unsigned long long>(blk) * BLOCK;
        const int64_t k = static_cast<int64_t>(min(BLOCK, count - k0));
        for (int64_t j = 0; j < k; ++j)
            x[j] = npu_emu::bits_as_float(static_cast<uint32_t>(lo + (k0 + j) * step));
        npu_emu::f16c_from_floats(fast, x, k);
        for (int64_t j = 0; j < k; ++j) {
            if (fast[j].bits != npu_emu::from_float<npu_emu::f16>(x[j]).bits) {
                ++bad;
                lowest = min(lowest, lo + (k0 + j) * step);
            }
        }
    }
    *first = lowest;
    return bad;
#else
    (void)lo; (void)hi; (void)step; (void)first; (void)zmm;
    return -1;
#endif
}

// Test hook of the fp16 decoders (tests/test_cpu_fast_paths.py): every fp16 code, at offsets
// 0..31 of a row (heads and tails of each width), through f16c_to_floats_keeping_nans (the
// casts: the rule's bits, NaN payloads included) and f16c_to_floats (the ufunc rows: the
// rule's bits but for NaNs, which must stay NaN); the codes that differ. zmm as above.
extern "C" long long npu_emu_f16c_decode_mismatches(int zmm) {
#if defined(NPU_EMU_F16C)
    if (zmm && !npu_emu::has_avx512f()) return -2;
    struct Width {
        explicit Width(int on) { npu_emu::zmm_allowed.store(on); }
        ~Width() { npu_emu::zmm_allowed.store(1); }
    } width(zmm);
    constexpr int64_t N = 65536;
    static npu_emu::f16 codes[N + 32];
    static float kept[N + 32], plain[N + 32];
    long long bad = 0;
    for (int64_t off = 0; off < 32; ++off) {
        for (int64_t c = 0; c < N; ++c) codes[off + c] = npu_emu::f16{static_cast<uint16_t>(c)};
        f16c_to_floats_keeping_nans(kept + off, codes + off, N);
        npu_emu::f16c_to_floats(plain + off, codes + off, N);
        for (int64_t c = 0; c < N; ++c) {
            const float want = npu_emu::to_float(codes[off + c]);
            const bool nan = want != want;
            bad += npu_emu::float_as_bits(kept[off + c]) != npu_emu::float_as_bits(want);
            bad += nan ? plain[off + c] == plain[off + c]
                       : npu_emu::float_as_bits(plain[off + c]) != npu_emu::float_as_bits(want);
        }
    }
    return bad;
#else
    (void)zmm;
    return -1;
#endif
}
#endif
