// tril / triu: out[b, i, j] = x[b, i, j] where j - i <= k (tril) or j - i >= k (triu), zero
// bits elsewhere (npu_emu/kernels/triangle.py plans it). out is contiguous (batch, rows, cols);
// x any strides (any sign). Each row is a run of zeros and a run of x's elements, so a row
// reads only the elements it keeps: a wide matrix's tril reads its square, not the rest.
// Elements move as bits of their width (1, 2, 4, 8 or 16 bytes): the result is x's own
// element or all zero bits (+0 in every float type), the same on both targets by construction.
//
// A block writes rows_per_block consecutive rows of the batch * rows; the GPU's threads split
// each row's columns, the CPU's one thread runs each part as a loop it vectorizes.
#pragma once
#include "npu_emu_common.cuh"

namespace npu_emu {
namespace triangle_kernels {

// Mirrored by triangle.py's params_dtype.
struct TriangleParams {
    int64_t batch, rows, cols;     // out's shape (one batch dim; the host merges or loops)
    int64_t xb, xr, xc;            // x's element strides along them (any sign)
    int64_t k;                     // the diagonal, clamped to [-rows - 1, cols + 1]
    int64_t rows_per_block;        // rows of batch * rows that a block writes
    int32_t lower;                 // 1: tril, 0: triu
};

template <typename T>
__device__ __forceinline__ void triangle_block(const TriangleParams& p, const T* __restrict__ x,
                                               T* __restrict__ out) {
    const int64_t total = p.batch * p.rows;
    const int64_t r0 = static_cast<int64_t>(blockIdx.x) * p.rows_per_block;
    const int64_t r1 = r0 + p.rows_per_block < total ? r0 + p.rows_per_block : total;
    const int64_t t = threadIdx.x, step = blockDim.x;
    T zero;
    memset(&zero, 0, sizeof(T));
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = r / p.rows, i = r - b * p.rows;
        const T* xs = x + b * p.xb + i * p.xr;
        T* o = out + r * p.cols;
        // the first column of the second run: tril keeps [0, edge), triu [edge, cols)
        int64_t edge = i + p.k + (p.lower ? 1 : 0);
        edge = edge < 0 ? 0 : edge > p.cols ? p.cols : edge;
        const int64_t keep0 = p.lower ? 0 : edge, keep1 = p.lower ? edge : p.cols;
        for (int64_t j = t; j < keep0; j += step) o[j] = zero;
        if (p.xc == 1) {
            for (int64_t j = keep0 + t; j < keep1; j += step) o[j] = xs[j];
        } else {
            for (int64_t j = keep0 + t; j < keep1; j += step) o[j] = xs[j * p.xc];
        }
        for (int64_t j = keep1 + t; j < p.cols; j += step) o[j] = zero;
    }
}

}  // namespace triangle_kernels
}  // namespace npu_emu

// One kernel per element width (the catalog in npu_emu/kernels/triangle.py).
#define NPU_EMU_TRIANGLE_KERNEL(NAME, T)                                                         \
    extern "C" __global__ void NAME(const npu_emu::triangle_kernels::TriangleParams p,           \
                                    const T* x, T* out) {                                        \
        npu_emu::triangle_kernels::triangle_block<T>(p, x, out);                                 \
    }                                                                                            \
    NPU_EMU_EXPORT(NAME)
