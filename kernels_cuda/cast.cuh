// Dtype conversion: dst[dst_view] = convert(src[src_view]) for any pair of the 20 element types
// of aclnnCast / aclnnInplaceCopy, src broadcast (zero strides) to dst's shape, any dst view.
// Operand 0 of the parameters is dst, operand 1 is src; the walk (a division once per thread,
// then an odometer over rows) is the one of strided_copy.cu. The rules of every conversion are
// in npu_emu_convert.cuh.
//
// Kernels (dst_dtype, src_dtype: aclDataType values):
//   cast_<src>(params, src, dst, dst_dtype)   one per source type, NPU_EMU_CAST_KERNEL below,
//       instantiated by the compile units cast_<group>.cu (generated from the table of
//       npu_emu/kernels/cast.py: a first cast builds only its source type's unit). The switch
//       on dst_dtype sits outside the inner loops, so every (src, dst) pair runs straight-line
//       code. Index math is 32-bit on the GPU (the host plans it only when every offset fits)
//       and 64-bit on the CPU, where it costs nothing.
//   cast_any(params, src, dst, src_dtype, dst_dtype)   cast_any.cu: any pair, 64-bit indices,
//       both dtypes dispatched per element: the GPU's path for spaces past 2^31 elements.
//
// Compile time is what shapes this file (20 destinations for each source): on the CPU each row
// goes through a chunk buffer in two steps whose functions have one type each (see cast_row),
// and on the GPU only the 32-bit path is instantiated per pair.
#pragma once
#include "npu_emu_common.cuh"
#include "npu_emu_index.cuh"
#include "npu_emu_convert.cuh"

namespace {

using npu_emu::IterParams;
using npu_emu::Odometer;
namespace detail = npu_emu::detail;

// X(storage type, short name, aclDataType value)
#define NPU_EMU_CAST_TYPES(X)                                                                  \
    X(float, f32, 0) X(npu_emu::f16, f16, 1) X(int8_t, s8, 2) X(int32_t, s32, 3)               \
    X(uint8_t, u8, 4) X(int16_t, s16, 6) X(uint16_t, u16, 7) X(uint32_t, u32, 8)               \
    X(int64_t, s64, 9) X(uint64_t, u64, 10) X(double, f64, 11) X(npu_emu::boolean, bool, 12)   \
    X(npu_emu::c64, c64, 16) X(npu_emu::c128, c128, 17) X(npu_emu::bf16, bf16, 27)             \
    X(npu_emu::c32, c32, 33) X(npu_emu::hif8, hif8, 34) X(npu_emu::fp8_e5m2, fp8e5m2, 35)      \
    X(npu_emu::fp8_e4m3fn, fp8e4m3fn, 36) X(npu_emu::fp8_e8m0, fp8e8m0, 37)

template <typename T>
constexpr bool is_complex = detail::Traits<T>::kind == detail::COMPLEX;

// fp16 -> double keeps NaN payloads unquieted (NumPy): the one conversion that is not "load
// the source as int32/int64/uint64/float/double, then store that value".
template <typename Dst, typename Src>
constexpr bool half_to_double =
    (detail::is_same<Src, npu_emu::f16>::value || detail::is_same<Src, npu_emu::c32>::value) &&
    (detail::is_same<Dst, double>::value || detail::is_same<Dst, npu_emu::c128>::value);

// An 8- or 16-bit integer or bool source into an integer, bool, float or double destination:
// on the CPU a contiguous row that is not streamed is one pass (below).
template <typename Dst, typename Src>
constexpr bool narrow_int_to_real =
    sizeof(Src) <= 2 &&
    (detail::Traits<Src>::kind == detail::SIGNED_INT || detail::Traits<Src>::kind == detail::UNSIGNED_INT ||
     detail::Traits<Src>::kind == detail::BOOLEAN) &&
    (detail::Traits<Dst>::kind == detail::SIGNED_INT || detail::Traits<Dst>::kind == detail::UNSIGNED_INT ||
     detail::Traits<Dst>::kind == detail::BOOLEAN || detail::Traits<Dst>::kind == detail::FLOAT32 ||
     detail::Traits<Dst>::kind == detail::FLOAT64);

#if defined(NPU_EMU_CPU)
// CPU: a row goes through a chunk buffer in two steps, load (source -> int32, int64, uint64,
// float or double: detail::load) then store (that value -> destination: detail::Store), which
// is exactly convert<Dst>(). Both steps are unit-stride loops the compiler vectorizes (the
// buffer stays in L1), and each is a function of one type, shared by all pairs of a unit: a
// load per source and 20 stores per loaded type instead of 20 inlined pair loops per source,
// which took g++ minutes (this is also why the units group sources by their loaded type:
// npu_emu/kernels/cast.py). Where the source
// already is the loaded type (float, double, int64, uint64) or the destination is, one step
// works in place and the buffer is skipped. An 8- or 16-bit integer or bool source into a
// real destination (narrow_int_to_real) takes one pass over a contiguous row instead: the two
// steps through 32-bit lanes were 1.3-3x slower than NumPy's one loop there (bool -> int8 0.11
// ms for 1M on one thread, NumPy 0.04), and these 45 pair loops cost g++ little.
//
// A large output (npu_emu_cpu::streaming, the copies' threshold) is written with non-temporal
// stores: a store that misses the cache otherwise reads its line first (3 bytes of traffic per
// byte written instead of 2), and an output this large would not stay cached for its reader.
// The step that writes the destination (store_chunk, or load_chunk / fill where they write it)
// then makes its contiguous row 4 KiB at a time into an aligned buffer in L1 and streams that
// out (stream_row); the head up to the first 64-byte line and the tail are stored plainly. The
// values are the plain step's, so the bits are too (tests/test_cast_kernel.py). The streaming
// sits in those shared steps, not in the pair loops: a per-pair streaming loop cost g++ 40%
// more (measured on the single cast.cu of all 400 pairs).
constexpr int64_t CHUNK = 512;

template <typename T> struct ValueOf { using type = decltype(detail::load(T{})); };
template <> struct ValueOf<npu_emu::c32> { using type = float; };
template <> struct ValueOf<npu_emu::c64> { using type = float; };
template <> struct ValueOf<npu_emu::c128> { using type = double; };

// Elements [j, j + k) of a row, made by a plain step into out (contiguous); part is the
// step, ctx its operands.
using PartFn = void (*)(void* out, int64_t j, int64_t k, const void* ctx);

// 64-byte blocks from the 64-byte aligned buf to the 64-byte aligned d.
inline void stream_out(unsigned char* __restrict__ d, const unsigned char* __restrict__ buf, int64_t bytes) {
#if !defined(__AVX__)
    std::memcpy(d, buf, static_cast<std::size_t>(bytes));
#else
    const __m256i* from = reinterpret_cast<const __m256i*>(buf);
    __m256i* to = reinterpret_cast<__m256i*>(d);
    for (int64_t k = 0; k < bytes / 32; k += 2) {
        const __m256i v0 = _mm256_load_si256(from + k), v1 = _mm256_load_si256(from + k + 1);
        _mm256_stream_si256(to + k, v0);
        _mm256_stream_si256(to + k + 1, v1);
    }
#endif
}

// The contiguous row d[0, n) of `item`-byte elements (1 to 16, a power of two), made by part:
// whole 64-byte lines through the buffer with non-temporal stores, the rest plainly. One
// function for every type (a pointer call per 4 KiB). The caller fences (_mm_sfence).
__attribute__((noinline)) void stream_row(unsigned char* d, int64_t n, int64_t item, PartFn part,
                                          const void* ctx) {
    constexpr int64_t BYTES = 4096;
    const uint64_t at = reinterpret_cast<uint64_t>(d);
    if (at % static_cast<uint64_t>(item) != 0) {   // (never for an allocation's elements)
        part(d, 0, n, ctx);
        return;
    }
    alignas(64) unsigned char buf[BYTES];
    const int64_t line = 64 / item;
    int64_t j = min(n, static_cast<int64_t>((64u - (at & 63u)) & 63u) / item);
    if (j > 0) part(d, 0, j, ctx);
    while (n - j >= line) {
        const int64_t k = min(BYTES / item, (n - j) / line * line);
        part(buf, j, k, ctx);
        stream_out(d + j * item, buf, k * item);
        j += k;
    }
    if (j < n) part(d + j * item, j, n - j, ctx);
}

// Whether a row of n elements at stride ds goes through stream_row (x86 with AVX only).
inline bool stream_it(bool stream, int64_t ds, int64_t n, int64_t item) {
#if defined(__AVX__)
    return stream && ds == 1 && n * item >= 128;
#else
    (void)stream; (void)ds; (void)n; (void)item;
    return false;
#endif
}

// 8-bit formats decode through a table of their 256 values (made by to_float itself).
template <typename T>
const float* decode_table() {
    static const struct Table {
        float v[256];
        Table() {
            for (int i = 0; i < 256; ++i) v[i] = npu_emu::to_float(T{static_cast<uint8_t>(i)});
        }
    } table;
    return table.v;
}

#if defined(NPU_EMU_F16C)
// n fp16 -> float32: vcvtph2ps eight at a time (exact on every non-NaN code, denormals
// included: convert.cuh's f16c_to_floats), a group of eight with a NaN in it through the rule
// (to_float keeps a signalling NaN's payload unquieted, the instruction does not).
// tests/test_cast_kernel.py decodes every fp16 code through it.
// (16 lanes where the CPU has AVX-512F, as f16c_from_floats.)
__attribute__((target("avx512f"))) inline int64_t f16c_to_floats_keeping_nans_512(
    float* __restrict__ d, const npu_emu::f16* __restrict__ s, int64_t n) {   // the elements done
    const __m256i magnitude = _mm256_set1_epi16(0x7FFF), inf = _mm256_set1_epi16(0x7C00);
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + j));
        const __m256i nan = _mm256_cmpgt_epi16(_mm256_and_si256(h, magnitude), inf);   // both >= 0
        if (_mm256_testz_si256(nan, nan)) {
            _mm512_storeu_ps(d + j, _mm512_cvtph_ps(h));
        } else {
            for (int64_t k = j; k < j + 16; ++k) d[k] = npu_emu::to_float(s[k]);
        }
    }
    return j;
}
inline void f16c_to_floats_keeping_nans(float* __restrict__ d, const npu_emu::f16* __restrict__ s, int64_t n) {
    const __m128i magnitude = _mm_set1_epi16(0x7FFF), inf = _mm_set1_epi16(0x7C00);
    int64_t j = n >= 16 && npu_emu::has_avx512f() ? f16c_to_floats_keeping_nans_512(d, s, n) : 0;
    for (; j + 8 <= n; j += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j));
        const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, magnitude), inf);   // both >= 0
        if (_mm_testz_si128(nan, nan)) {
            _mm256_storeu_ps(d + j, _mm256_cvtph_ps(h));
        } else {
            for (int64_t k = j; k < j + 8; ++k) d[k] = npu_emu::to_float(s[k]);
        }
    }
    for (; j < n; ++j) d[j] = npu_emu::to_float(s[j]);
}
#endif

template <typename Src, typename V> struct LoadCtx { const Src* s; int64_t ss; };
template <typename Src, typename V>
__attribute__((noinline)) void load_part(void* out, int64_t j, int64_t k, const void* ctx);

// stream: the row re[0, k) is the destination itself (re a contiguous row of V, im null).
template <typename Src, typename V>
__attribute__((noinline)) void load_chunk(V* __restrict__ re, V* __restrict__ im,
                                          const Src* __restrict__ s, int64_t k, int64_t ss,
                                          bool stream = false) {
    using detail::load;
    if (stream_it(stream, 1, k, sizeof(V))) {
        const LoadCtx<Src, V> ctx{s, ss};
        stream_row(reinterpret_cast<unsigned char*>(re), k, sizeof(V), &load_part<Src, V>, &ctx);
        return;
    }
    if constexpr (is_complex<Src>) {
        if (!im) {   // complex -> real: the real part only
            for (int64_t j = 0; j < k; ++j) re[j] = load(detail::re_of(s[j * ss]));
            return;
        }
        for (int64_t j = 0; j < k; ++j) {
            re[j] = load(detail::re_of(s[j * ss]));
            im[j] = load(detail::im_of(s[j * ss]));
        }
    } else if constexpr (sizeof(Src) == 1 && detail::Traits<Src>::kind == detail::LOWP) {
        const float* table = decode_table<Src>();
        for (int64_t j = 0; j < k; ++j) re[j] = table[s[j * ss].bits];
    } else if (ss == 1) {
#if defined(NPU_EMU_F16C)
        if constexpr (detail::is_same<Src, npu_emu::f16>::value) {
            f16c_to_floats_keeping_nans(re, s, k);
            return;
        }
#endif
        for (int64_t j = 0; j < k; ++j) re[j] = load(s[j]);
    } else {
        for (int64_t j = 0; j < k; ++j) re[j] = load(s[j * ss]);
    }
}

template <typename Src, typename V>
__attribute__((noinline)) void load_part(void* out, int64_t j, int64_t k, const void* ctx) {
    const auto& c = *static_cast<const LoadCtx<Src, V>*>(ctx);
    load_chunk<Src, V>(static_cast<V*>(out), nullptr, c.s + j * c.ss, k, c.ss);
}

template <typename Dst, typename V> struct StoreCtx { const V* re; const V* im; };
template <typename Dst, typename V>
__attribute__((noinline)) void store_part(void* out, int64_t j, int64_t k, const void* ctx);

// im is null for a real source.
template <typename Dst, typename V>
__attribute__((noinline)) void store_chunk(Dst* __restrict__ d, int64_t ds, const V* __restrict__ re,
                                           const V* __restrict__ im, int64_t k, bool stream = false) {
    using detail::Store;
#if defined(NPU_EMU_F16C)
    if constexpr (detail::is_same<Dst, npu_emu::f16>::value && detail::is_same<V, float>::value) {
        if (stream_it(stream, ds, k, sizeof(Dst)) && npu_emu::f16c_from_floats_streamed(d, re, k)) return;
    }
#endif
    if (stream_it(stream, ds, k, sizeof(Dst))) {
        const StoreCtx<Dst, V> ctx{re, im};
        stream_row(reinterpret_cast<unsigned char*>(d), k, sizeof(Dst), &store_part<Dst, V>, &ctx);
        return;
    }
    // (Tests of im stay outside the loops, which then vectorize.)
    if constexpr (is_complex<Dst>) {
        using P = typename detail::Part<Dst>::type;
        constexpr Dst* tag = nullptr;
        if (im) {
            for (int64_t j = 0; j < k; ++j)
                d[j * ds] = detail::make_complex(Store<P>::from(re[j]), Store<P>::from(im[j]), tag);
        } else {
            const P zero = npu_emu::convert<P>(0.0f);
            for (int64_t j = 0; j < k; ++j) d[j * ds] = detail::make_complex(Store<P>::from(re[j]), zero, tag);
        }
    } else if constexpr (detail::Traits<Dst>::kind == detail::BOOLEAN) {
        if (im) {
            for (int64_t j = 0; j < k; ++j)
                d[j * ds] = npu_emu::boolean{static_cast<uint8_t>((re[j] != 0) | (im[j] != 0))};
        } else {
            for (int64_t j = 0; j < k; ++j) d[j * ds] = Store<Dst>::from(re[j]);
        }
    } else if (ds == 1) {
#if defined(NPU_EMU_F16C)
        if constexpr (detail::is_same<Dst, npu_emu::f16>::value && detail::is_same<V, float>::value) {
            npu_emu::f16c_from_floats(d, re, k);   // vcvtps2ph: the same bits (convert.cuh)
            return;
        }
#endif
        for (int64_t j = 0; j < k; ++j) d[j] = Store<Dst>::from(re[j]);
    } else {
        for (int64_t j = 0; j < k; ++j) d[j * ds] = Store<Dst>::from(re[j]);
    }
}

template <typename Dst, typename V>
__attribute__((noinline)) void store_part(void* out, int64_t j, int64_t k, const void* ctx) {
    const auto& c = *static_cast<const StoreCtx<Dst, V>*>(ctx);
    store_chunk<Dst, V>(static_cast<Dst*>(out), 1, c.re + j, c.im ? c.im + j : nullptr, k);
}

template <typename T> struct FillCtx { T v; };
template <typename T>
__attribute__((noinline)) void fill_part(void* out, int64_t j, int64_t k, const void* ctx);

template <typename T>
__attribute__((noinline)) void fill(T* __restrict__ d, int64_t ds, T v, int64_t n, bool stream = false) {
    if (stream_it(stream, ds, n, sizeof(T))) {
        const FillCtx<T> ctx{v};
        stream_row(reinterpret_cast<unsigned char*>(d), n, sizeof(T), &fill_part<T>, &ctx);
    } else if (ds == 1) {
        for (int64_t j = 0; j < n; ++j) d[j] = v;
    } else {
        for (int64_t j = 0; j < n; ++j) d[j * ds] = v;
    }
}

template <typename T>
__attribute__((noinline)) void fill_part(void* out, int64_t, int64_t k, const void* ctx) {
    fill<T>(static_cast<T*>(out), 1, static_cast<const FillCtx<T>*>(ctx)->v, k);
}

// stream: the output is large (npu_emu_cpu::streaming); the caller fences. fp16 -> double
// (four pairs of rare types) is not streamed: its loop is the pair's own.
template <typename Dst, typename Src, typename I>
__device__ __forceinline__ void cast_row(Dst* d, const Src* s, I n, I ds, I ss, bool stream) {
    if constexpr (half_to_double<Dst, Src>) {
        for (I j = 0; j < n; ++j) d[j * ds] = npu_emu::convert<Dst>(s[j * ss]);
    } else {
        using V = typename ValueOf<Src>::type;
        V re[CHUNK], im[CHUNK];
        // The imaginary part matters to complex and bool destinations only.
        constexpr bool want_im = is_complex<Src> &&
            (is_complex<Dst> || detail::Traits<Dst>::kind == detail::BOOLEAN);
        V* const imp = want_im ? im : nullptr;
        if constexpr (!is_complex<Src> && detail::is_same<Src, V>::value) {
            if (ss == 1) {   // the source is already the loaded value: store straight from it
                store_chunk<Dst, V>(d, static_cast<int64_t>(ds), s, nullptr, static_cast<int64_t>(n), stream);
                return;
            }
        }
        if constexpr (detail::is_same<Dst, V>::value) {
            if (ds == 1 && ss != 0) {   // the loaded value is the destination: load straight into it
                load_chunk<Src, V>(d, nullptr, s, static_cast<int64_t>(n), static_cast<int64_t>(ss), stream);
                return;
            }
        }
        if constexpr (narrow_int_to_real<Dst, Src>) {
            if (ss == 1 && ds == 1 && !stream) {   // one pass, no int32 chunk between
                for (I j = 0; j < n; ++j) d[j] = detail::Store<Dst>::from(detail::load(s[j]));
                return;
            }
        }
        if (ss == 0) {   // broadcast: convert once, fill
            Dst v;
            load_chunk<Src, V>(re, imp, s, 1, 1);
            store_chunk<Dst, V>(&v, 1, re, imp, 1);
            fill<Dst>(d, static_cast<int64_t>(ds), v, static_cast<int64_t>(n), stream);
            return;
        }
        for (I j = 0; j < n; j += CHUNK) {
            const int64_t k = min(static_cast<int64_t>(n - j), CHUNK);
            load_chunk<Src, V>(re, imp, s + j * ss, k, static_cast<int64_t>(ss));
            store_chunk<Dst, V>(d + j * ds, static_cast<int64_t>(ds), re, imp, k, stream);
        }
    }
}
using CastIndex = uint64_t;
#else
// GPU: a thread converts a few elements (about 16 bytes) straight through convert<Dst>(); one
// loop for every stride pattern keeps the module small.
template <typename Dst, typename Src, typename I>
__device__ __forceinline__ void cast_row(Dst* __restrict__ d, const Src* __restrict__ s, I n, I ds, I ss, bool) {
    for (I j = 0; j < n; ++j) d[j * ds] = npu_emu::convert<Dst>(s[j * ss]);
}
using CastIndex = uint32_t;
#endif
#if defined(NPU_EMU_CPU)
#define NPU_EMU_CAST_STREAMING(bytes) npu_emu_cpu::streaming(bytes)
#else
#define NPU_EMU_CAST_STREAMING(bytes) false
#endif

// A row segment. On the GPU, when it is one aligned vector in both operands (its geometry's
// runs, npu_emu_index.cuh), the source is read with one load, converted in registers and
// written with one store. The CPU always takes cast_row: a second call site of its pair
// instantiations would cost 40% more compile time, and the vector helpers are the ones the
// cpu-run GPU-geometry tests exercise in the other kernels.
template <typename Dst, typename Src, typename I>
__device__ __forceinline__ void cast_run(Dst* d, const Src* s, I n, I ds, I ss, bool stream) {
#if !defined(NPU_EMU_CPU)
    constexpr int V = npu_emu::vec_elems(sizeof(Dst) > sizeof(Src) ? sizeof(Dst) : sizeof(Src));
    if (npu_emu::vec_dest<V>(d, n, ds) && npu_emu::vec_source<V>(s, n, ss)) {
        Src sv[V];
        Dst dv[V];
        if (ss == 1) {
            npu_emu::load_vec<V>(sv, s);
        } else {
            for (int j = 0; j < V; ++j) sv[j] = *s;
        }
        for (int j = 0; j < V; ++j) dv[j] = npu_emu::convert<Dst>(sv[j]);
        npu_emu::store_vec<V>(d, dv);
        return;
    }
#endif
    cast_row<Dst, Src, I>(d, s, n, ds, ss, stream);
}

// One row segment: n elements from dst + doff (in elements of the destination type).
template <typename Src, typename I>
__device__ __forceinline__ void cast_segment(void* dst, int dst_dtype, I doff, const Src* s, I n,
                                             I ds, I ss, int64_t numel) {
    switch (dst_dtype) {
#define NPU_EMU_CAST_CASE(T, NAME, CODE)                                                       \
    case CODE:                                                                                 \
        cast_run<T, Src, I>(static_cast<T*>(dst) + doff, s, n, ds, ss,                         \
                            NPU_EMU_CAST_STREAMING(numel * static_cast<int64_t>(sizeof(T))));  \
        break;
        NPU_EMU_CAST_TYPES(NPU_EMU_CAST_CASE)
#undef NPU_EMU_CAST_CASE
        default:
            break;   // the host never plans an unknown destination
    }
}

template <typename Src, typename I>
__device__ __forceinline__ void cast_from(const IterParams<2>& p, const Src* __restrict__ src,
                                          void* dst, int dst_dtype) {
    const I ds = static_cast<I>(p.stride[0][0]);
    const I ss = static_cast<I>(p.stride[1][0]);
    npu_emu::for_each_segment<I, 2>(p, [&](const I* off, I n) {
        cast_segment<Src, I>(dst, dst_dtype, off[0], src + off[1], n, ds, ss, p.numel);
    });
#if defined(NPU_EMU_CPU) && defined(__AVX__)
    _mm_sfence();   // non-temporal stores of a large output are visible before the kernel returns
#endif
}

}  // namespace

// The kernel of one source type: NPU_EMU_CAST_KERNEL(float, f32) defines cast_f32.
#define NPU_EMU_CAST_KERNEL(T, NAME)                                                           \
    extern "C" __global__ void cast_##NAME(const npu_emu::IterParams<2> p, const T* src,       \
                                           void* dst, int dst_dtype) {                         \
        cast_from<T, CastIndex>(p, src, dst, dst_dtype);                                       \
    }                                                                                          \
    NPU_EMU_EXPORT(cast_##NAME)
