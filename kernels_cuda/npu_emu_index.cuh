// The one indexing header of all kernels: the parameter struct that describes an iteration
// space over N operands (operand 0 is the output), 32-bit magic-number division, and the
// odometer that walks a multi-index without dividing.
//
// The host (npu_emu/runtime/indexing.py) has already broadcast (stride 0), ordered dims by the
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
