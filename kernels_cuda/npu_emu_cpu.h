// CPU portability header: lets the CUDA C sources of kernels_cuda/ compile with g++ -fopenmp.
//
// The model is "one thread per block": threadIdx is {0,0,0} and blockDim {1,1,1} at compile
// time, so `for (i = threadIdx.x; i < n; i += blockDim.x)` becomes a plain unit-stride loop
// the compiler vectorizes, __syncthreads() is a legal no-op, and __shared__ arrays are
// per-thread statics. The grid's blocks run on the calling thread and the workers of
// npu_emu_cpu_pool.h (blocks handed out one at a time). Every kernel must therefore be correct for
// any block size, including 1.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <omp.h>
#include "npu_emu_cpu_pool.h"
#if defined(__AVX__)
#include <immintrin.h>
#endif

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __shared__ static thread_local
#define __launch_bounds__(...)
#define __syncthreads() ((void)0)

struct uint3 { unsigned x, y, z; };
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

constexpr uint3 threadIdx = {0, 0, 0};
constexpr dim3 blockDim = dim3(1, 1, 1);
constexpr int warpSize = 1;
inline thread_local uint3 blockIdx = {0, 0, 0};
inline thread_local dim3 gridDim;

using std::max;
using std::min;

inline unsigned __umulhi(unsigned a, unsigned b) {
    return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
template <typename T> inline T __ldg(const T* p) { return *p; }

namespace npu_emu_cpu {

template <typename... A, std::size_t... I>
inline void call(void (*kernel)(A...), void** args, std::index_sequence<I...>) {
    kernel(*static_cast<std::remove_cv_t<std::remove_reference_t<A>>*>(args[I])...);
}

// Threads of a grid: 0 = OpenMP's default count (OMP_NUM_THREADS, else the CPUs), else this
// many (the backend's set_threads; each module has its own copy, set by the backend on load).
inline std::atomic<int> grid_threads{0};

// The runner of the process's one worker pool (the backend gives every module it loads the
// same one: npu_emu_set_runner); null: the blocks run in order on the calling thread.
using GridRunner = void (*)(pool::BlockFn, void*, long long, int);
inline std::atomic<GridRunner> grid_runner{nullptr};

// A launch's grid and arguments, and one block of it (what the pool's threads run: each
// sets its own thread-local gridDim and blockIdx first).
template <typename... A> struct Grid {
    void (*kernel)(A...);
    void** args;
    long long gx, gy, gz;
    static void block(void* self, long long b) {
        const Grid& g = *static_cast<const Grid*>(self);
        gridDim = dim3(static_cast<unsigned>(g.gx), static_cast<unsigned>(g.gy), static_cast<unsigned>(g.gz));
        blockIdx = uint3{static_cast<unsigned>(b % g.gx), static_cast<unsigned>((b / g.gx) % g.gy),
                         static_cast<unsigned>(b / (g.gx * g.gy))};
        call(g.kernel, g.args, std::index_sequence_for<A...>{});
    }
};

// Run a grid: blocks handed out one at a time, to the calling thread and the pool's workers
// (npu_emu_cpu_pool.h: each its own contiguous part first, then the others'), so a thread
// that shares its core with another process takes fewer blocks instead of holding the others
// at the end, and the launch ends when its blocks
// are done, not when every worker has been scheduled. A block is at least ~16 KiB of work
// (elementwise_geometry) or a 32x32 tile, so taking one costs a few hundredths of its time.
// Blocks never depend on which thread runs them, so the results are those of any schedule.
template <typename... A>
inline void run(void (*kernel)(A...), const unsigned* grid, void** args) {
    Grid<A...> g{kernel, args, grid[0], grid[1], grid[2]};
    const long long total = g.gx * g.gy * g.gz;
    const int wanted = grid_threads.load(std::memory_order_relaxed);
    const int threads = total == 1 ? 1 : wanted > 0 ? wanted : omp_get_max_threads();
    const GridRunner runner = grid_runner.load(std::memory_order_acquire);
    if (runner != nullptr && threads > 1)
        runner(&Grid<A...>::block, &g, total, threads);
    else   // one block, one thread, or no pool: in order, here
        for (long long b = 0; b < total; ++b) Grid<A...>::block(&g, b);
    // The calling thread ran blocks too: give it back the one-block grid, so that code run
    // later on it as a plain function (a test shim's loop over blockIdx / gridDim) sees a
    // grid of one block, not the last block of this one.
    gridDim = dim3(1, 1, 1);
    blockIdx = uint3{0, 0, 0};
}

// Outputs of at least this many bytes (one launch) are written with non-temporal stores by
// the copies (strided_copy.cu), the binary elementwise kernels (elementwise.cuh) and the
// casts (cast.cuh: a row converted 4 KiB at a time into an L1 buffer, then streamed): a
// store that misses the cache otherwise reads its line first (3 bytes of traffic per byte
// written instead of 2), and an output this large would not stay cached for its reader.
constexpr long long STREAM_MIN_BYTES = 16ll << 20;
inline bool streaming(long long out_bytes) { return out_bytes >= STREAM_MIN_BYTES; }
// The ufunc family's rows (ufunc.cuh) stream from 64 MiB on: the math functions spend long
// enough per element that an output below that still helps its reader from the cache. On
// the 2-core Xeon of 7 December 2026 (float32 exp, log1p, tanh, two threads), streaming cost
// 15-20 % at 16 MiB, was even at 32 MiB, and saved 35-45 % at 64 MiB (log1p 0.55 -> 0.35 ns
// an element, where it had been 2x its time at 4M elements).
constexpr long long STREAM_MIN_BYTES_UFUNC = 64ll << 20;

// Row d[0, n) of a large output: make(buf, j, k) writes elements j..j+k-1 of the row to
// buf[0, k); the row goes through a 2 KiB staging buffer (in L1) and reaches memory with
// non-temporal 32-byte stores, the unaligned head and the tail with plain ones. The values
// are make's, so the bits are those of the plain loop.
template <typename T, typename Make>
inline void stream_row(T* __restrict__ d, long long n, Make&& make) {
#if defined(__AVX__)
    constexpr long long CH = 2048 / static_cast<long long>(sizeof(T));
    const unsigned long long mis = reinterpret_cast<unsigned long long>(d) & 31u;
    if (CH < 1 || mis % sizeof(T) != 0 || n < 2 * CH) {
        make(d, 0, n);
        return;
    }
    long long j = std::min<long long>(n, static_cast<long long>(((32u - mis) & 31u) / sizeof(T)));
    if (j > 0) make(d, 0, j);
    alignas(32) T buf[CH];
    for (; j + CH <= n; j += CH) {
        make(buf, j, CH);
        const __m256i* from = reinterpret_cast<const __m256i*>(buf);
        __m256i* to = reinterpret_cast<__m256i*>(d + j);
        for (long long k = 0; k < CH * static_cast<long long>(sizeof(T)) / 32; ++k)
            _mm256_stream_si256(to + k, _mm256_load_si256(from + k));
    }
    if (j < n) make(d + j, j, n - j);
    _mm_sfence();   // the non-temporal stores are visible before the kernel returns
#else
    make(d, 0, n);
#endif
}

// n bytes from s to d, both contiguous, for a large output: as stream_row, without the
// staging buffer (the bytes are the source's): unaligned loads, aligned non-temporal stores
// four 32-byte vectors at a time, the unaligned head and the tail copied plainly.
inline void stream_copy(void* __restrict__ dst, const void* __restrict__ src, long long n) {
#if defined(__AVX__)
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    long long head = std::min<long long>(n, static_cast<long long>((32u - (reinterpret_cast<unsigned long long>(d) & 31u)) & 31u));
    std::memcpy(d, s, static_cast<std::size_t>(head));
    long long j = head;
    // Four pages at a time, a line of each in turn (as glibc's large memcpy does): the
    // hardware prefetcher follows four streams, none of which crosses a page boundary early.
    constexpr long long PAGE = 4096;
    for (; j + 4 * PAGE <= n; j += 4 * PAGE) {
        for (long long k = 0; k < PAGE; k += 64) {
            for (int q = 0; q < 4; ++q) {
                const __m256i* from = reinterpret_cast<const __m256i*>(s + j + q * PAGE + k);
                __m256i* to = reinterpret_cast<__m256i*>(d + j + q * PAGE + k);
                const __m256i v0 = _mm256_loadu_si256(from), v1 = _mm256_loadu_si256(from + 1);
                _mm256_stream_si256(to, v0);
                _mm256_stream_si256(to + 1, v1);
            }
        }
    }
    for (; j + 128 <= n; j += 128) {
        const __m256i* from = reinterpret_cast<const __m256i*>(s + j);
        __m256i* to = reinterpret_cast<__m256i*>(d + j);
        const __m256i v0 = _mm256_loadu_si256(from), v1 = _mm256_loadu_si256(from + 1);
        const __m256i v2 = _mm256_loadu_si256(from + 2), v3 = _mm256_loadu_si256(from + 3);
        _mm256_stream_si256(to, v0);
        _mm256_stream_si256(to + 1, v1);
        _mm256_stream_si256(to + 2, v2);
        _mm256_stream_si256(to + 3, v3);
    }
    std::memcpy(d + j, s + j, static_cast<std::size_t>(n - j));
    _mm_sfence();   // the non-temporal stores are visible before the kernel returns
#else
    std::memcpy(dst, src, static_cast<std::size_t>(n));
#endif
}

#if defined(__AVX__)
// d[c * dstride + r] = s[r * sstride + c] for r, c < 8: eight rows of eight 4-byte elements
// transposed in registers (unpack, shuffle and lane permutes move bits only: NaN payloads
// and signalling NaNs pass unchanged). The tiled copies' inner step.
inline void transpose8x8(float* d, int64_t dstride, const float* s, int64_t sstride) {
    __m256 r0 = _mm256_loadu_ps(s + 0 * sstride), r1 = _mm256_loadu_ps(s + 1 * sstride);
    __m256 r2 = _mm256_loadu_ps(s + 2 * sstride), r3 = _mm256_loadu_ps(s + 3 * sstride);
    __m256 r4 = _mm256_loadu_ps(s + 4 * sstride), r5 = _mm256_loadu_ps(s + 5 * sstride);
    __m256 r6 = _mm256_loadu_ps(s + 6 * sstride), r7 = _mm256_loadu_ps(s + 7 * sstride);
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(d + 0 * dstride, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps(d + 1 * dstride, _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps(d + 2 * dstride, _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps(d + 3 * dstride, _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps(d + 4 * dstride, _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps(d + 5 * dstride, _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps(d + 6 * dstride, _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps(d + 7 * dstride, _mm256_permute2f128_ps(u3, u7, 0x31));
}

// The same for 2-byte elements (float16, bfloat16, int16): three rounds of unpacks in SSE2
// registers, 16-, 32- then 64-bit, bits moved only.
inline void transpose8x8(uint16_t* d, int64_t dstride, const uint16_t* s, int64_t sstride) {
    auto row = [&](int r) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + r * sstride)); };
    const __m128i a0 = row(0), a1 = row(1), a2 = row(2), a3 = row(3);
    const __m128i a4 = row(4), a5 = row(5), a6 = row(6), a7 = row(7);
    const __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
    const __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
    const __m128i b4 = _mm_unpacklo_epi16(a4, a5), b5 = _mm_unpackhi_epi16(a4, a5);
    const __m128i b6 = _mm_unpacklo_epi16(a6, a7), b7 = _mm_unpackhi_epi16(a6, a7);
    const __m128i c0 = _mm_unpacklo_epi32(b0, b2), c1 = _mm_unpackhi_epi32(b0, b2);
    const __m128i c2 = _mm_unpacklo_epi32(b1, b3), c3 = _mm_unpackhi_epi32(b1, b3);
    const __m128i c4 = _mm_unpacklo_epi32(b4, b6), c5 = _mm_unpackhi_epi32(b4, b6);
    const __m128i c6 = _mm_unpacklo_epi32(b5, b7), c7 = _mm_unpackhi_epi32(b5, b7);
    auto put = [&](int r, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(d + r * dstride), v); };
    put(0, _mm_unpacklo_epi64(c0, c4)); put(1, _mm_unpackhi_epi64(c0, c4));
    put(2, _mm_unpacklo_epi64(c1, c5)); put(3, _mm_unpackhi_epi64(c1, c5));
    put(4, _mm_unpacklo_epi64(c2, c6)); put(5, _mm_unpackhi_epi64(c2, c6));
    put(6, _mm_unpacklo_epi64(c3, c7)); put(7, _mm_unpackhi_epi64(c3, c7));
}
#endif

}  // namespace npu_emu_cpu

// Each kernel names itself once after its definition; on the CPU this emits the C entry point
// the runtime calls (grid as 3 unsigned, arguments as an array of pointers to their values,
// the convention of cuLaunchKernel). On the GPU it expands to nothing.
#define NPU_EMU_EXPORT(name)                                                              \
    extern "C" void npu_emu_launch_##name(const unsigned* grid, void** args) {            \
        npu_emu_cpu::run(name, grid, args);                                               \
    }

extern "C" int npu_emu_max_threads() { return omp_get_max_threads(); }
extern "C" void npu_emu_set_threads(int n) { npu_emu_cpu::grid_threads.store(n > 0 ? n : 0); }
// This module's pool runner, and the runner this module's grids use (the backend gives every
// module one module's runner: one pool per process).
extern "C" void* npu_emu_pool_runner() {
    return reinterpret_cast<void*>(&npu_emu_cpu::pool::run_blocks);
}
// The CPUs of this module's pool's workers (the one whose runner the backend hands out).
extern "C" void npu_emu_pool_cpus(const int* cpus, int n) { npu_emu_cpu::pool::set_cpus(cpus, n); }
// How long (microseconds) that pool's idle workers spin before they sleep (0: at once), and
// the value in force.
extern "C" void npu_emu_pool_set_spin(long long us) { npu_emu_cpu::pool::set_spin(us); }
extern "C" long long npu_emu_pool_spin() { return npu_emu_cpu::pool::spin(); }
extern "C" void npu_emu_set_runner(void* runner) {
    npu_emu_cpu::grid_runner.store(reinterpret_cast<npu_emu_cpu::GridRunner>(runner),
                                   std::memory_order_release);
}
