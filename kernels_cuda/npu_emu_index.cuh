// The one indexing header of all kernels: the parameter struct that describes an iteration
// space over N operands (operand 0 is the output), 32-bit magic-number division, and the
// odometer that walks a multi-index without dividing.
//
// The host (npu_emu/kernels/indexing.py) has already broadcast (stride 0), ordered dims by the
// output's strides, dropped size-1 dims and merged dims contiguous in every operand. Dims are
// stored innermost first. The struct travels by value; its layout is mirrored by a NumPy
// structured dtype on the host (8-byte fields first, natural alignment).
#pragma once
#include "npu_emu_common.cuh"

namespace npu_emu {

constexpr int MAX_DIMS = 8;

template <int N>
struct IterParams {
    int64_t numel;               // elements in the iteration space
    int64_t run;                 // consecutive elements per thread
    int64_t size[MAX_DIMS];      // innermost first
    int64_t stride[N][MAX_DIMS]; // in elements, per operand
    uint32_t magic[MAX_DIMS];    // n / size[d] == (umulhi(n, magic) + n) >> shift (n < 2^31)
    uint32_t shift[MAX_DIMS];
    int32_t ndim;
    int32_t flags;
};

// Quotient and remainder by size[d]: magic numbers on the 32-bit path, division otherwise.
template <typename I, int N>
NPU_EMU_HD I div_size(const IterParams<N>& p, int d, I n) {
    if (sizeof(I) == 4) {
        uint32_t t = __umulhi(static_cast<uint32_t>(n), p.magic[d]);
        return static_cast<I>((t + static_cast<uint32_t>(n)) >> p.shift[d]);
    }
    return n / static_cast<I>(p.size[d]);
}

// A multi-index over dims 1..ndim-1 (the "row"), plus each operand's offset of the row start.
// Dim 0 is walked by the kernels' inner loops.
template <typename I, int N>
struct Odometer {
    I idx[MAX_DIMS];
    I off[N];

    // Position at linear element `linear`; returns the index inside dim 0.
    NPU_EMU_HD I seek(const IterParams<N>& p, I linear) {
        for (int k = 0; k < N; ++k) off[k] = 0;
        I rem = linear;
        I i0 = 0;
        for (int d = 0; d < p.ndim; ++d) {
            I q = div_size<I, N>(p, d, rem);
            I i = rem - q * static_cast<I>(p.size[d]);
            rem = q;
            if (d == 0) {
                i0 = i;
            } else {
                idx[d] = i;
                for (int k = 0; k < N; ++k) off[k] += i * static_cast<I>(p.stride[k][d]);
            }
        }
        return i0;
    }

    // Advance to the start of the next row (carry increments, no division).
    NPU_EMU_HD void next_row(const IterParams<N>& p) {
        for (int d = 1; d < p.ndim; ++d) {
            for (int k = 0; k < N; ++k) off[k] += static_cast<I>(p.stride[k][d]);
            if (++idx[d] < static_cast<I>(p.size[d])) return;
            for (int k = 0; k < N; ++k) off[k] -= static_cast<I>(p.size[d]) * static_cast<I>(p.stride[k][d]);
            idx[d] = 0;
        }
    }
};

// ---------------------------------------------------------------- vector moves
// The GPU's geometry (runtime/base.py space_geometry) gives a thread `run` = 16 / itemsize
// consecutive elements only when they form one aligned, contiguous vector in every operand;
// the kernels then move each operand's run with one load or store of up to 16 bytes (a warp
// touches 512 consecutive bytes per instruction) instead of `run` scalar accesses 16 bytes
// apart. Every row function checks the segment length, strides and pointer alignment first
// and falls back to its scalar loop, so the CPU's long runs never take this path and any
// geometry stays correct.
struct alignas(8) Vec8 { uint32_t a, b; };
struct alignas(16) Vec16 { uint32_t a, b, c, d; };
template <int BYTES> struct VecOf;
template <> struct VecOf<1> { using type = uint8_t; };
template <> struct VecOf<2> { using type = uint16_t; };
template <> struct VecOf<4> { using type = uint32_t; };
template <> struct VecOf<8> { using type = Vec8; };
template <> struct VecOf<16> { using type = Vec16; };

// Elements per vector for an element of `bytes` bytes: the run the GPU geometry gives.
NPU_EMU_HD constexpr int vec_elems(int bytes) { return bytes >= 16 ? 1 : 16 / bytes; }

template <int N, typename T>
NPU_EMU_HD bool vec_aligned(const T* p) {
    return (reinterpret_cast<uint64_t>(p) & static_cast<uint64_t>(N * sizeof(T) - 1)) == 0;
}

template <int N, typename T>
NPU_EMU_HD void load_vec(T* out, const T* p) {
    using V = typename VecOf<N * static_cast<int>(sizeof(T))>::type;
    union { V v; T t[N]; } u;
    u.v = *reinterpret_cast<const V*>(p);
    for (int j = 0; j < N; ++j) out[j] = u.t[j];
}

template <int N, typename T>
NPU_EMU_HD void store_vec(T* p, const T* in) {
    using V = typename VecOf<N * static_cast<int>(sizeof(T))>::type;
    union { V v; T t[N]; } u;
    for (int j = 0; j < N; ++j) u.t[j] = in[j];
    *reinterpret_cast<V*>(p) = u.v;
}

// A run of n elements at stride s is one aligned vector of N (s == 0: a broadcast scalar,
// read once, never a vector).
template <int N, typename T, typename I>
NPU_EMU_HD bool vec_source(const T* p, I n, I s) {
    return n == static_cast<I>(N) && (s == 0 || (s == 1 && vec_aligned<N>(p)));
}
template <int N, typename T, typename I>
NPU_EMU_HD bool vec_dest(const T* p, I n, I s) {
    return n == static_cast<I>(N) && s == 1 && vec_aligned<N>(p);
}

// IterParams::flags: the launch's offsets need 64 bits (spaces past 2^31 elements, negative
// strides), set by the host (npu_emu/kernels/ufunc.py row_launch, WIDE_INDEX there too).
constexpr int32_t WIDE_INDEX = 1;

// A kernel's body at its launch's index width: body(I()) with I the index type. The CPU's one
// body takes 64-bit indices (its index division is paid once a row); a GPU's takes 32-bit ones
// unless the host set WIDE_INDEX. One choice for every family (ufunc, select, clip).
template <typename Body>
__device__ __forceinline__ void with_index_width(int32_t flags, Body&& body) {
#if defined(NPU_EMU_CPU)
    (void)flags;
    body(uint64_t());
#else
    if (flags & WIDE_INDEX)
        body(uint64_t());
    else
        body(uint32_t());
#endif
}

// Walk the `run` consecutive elements of the iteration space that belong to this thread, one
// row segment (a stretch along dim 0) at a time: row(off, n) gets each operand's element
// offset of the segment's first element and the segment's length (its elements step by
// stride[k][0]). Index division is paid once, in seek; rows advance by carries.
template <typename I, int N, typename Row>
__device__ __forceinline__ void for_each_segment(const IterParams<N>& p, Row&& row) {
    const I numel = static_cast<I>(p.numel);
    const I run = static_cast<I>(p.run);
    const uint64_t thread = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (thread * static_cast<uint64_t>(run) >= static_cast<uint64_t>(numel)) return;
    const I begin = static_cast<I>(thread) * run;
    I count = min(run, static_cast<I>(numel - begin));
    Odometer<I, N> od;
    I i0 = od.seek(p, begin);
    const I n0 = static_cast<I>(p.size[0]);
    for (;;) {
        const I n = min(static_cast<I>(n0 - i0), count);
        I off[N];
        for (int k = 0; k < N; ++k) off[k] = od.off[k] + i0 * static_cast<I>(p.stride[k][0]);
        row(off, n);
        count -= n;
        if (count == 0) return;
        i0 = 0;
        od.next_row(p);
    }
}

}  // namespace npu_emu
