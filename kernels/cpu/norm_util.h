// Vectorised row reductions shared by the normalisation kernels (LayerNorm,
// GroupNorm): sums over a contiguous row accumulated in double with OpenMP
// SIMD reductions, so the float-to-double conversions and adds vectorise,
// and the deterministic chunking used to reduce per-row partial sums.
#ifndef WEFT_KERNELS_CPU_NORM_UTIL_H_
#define WEFT_KERNELS_CPU_NORM_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cpu/cpu_util.h"

namespace weft {
namespace cpu {

// Mean and 1 / sqrt(biased variance + eps) of the row x[0, n), two-pass.
template <typename T>
WEFT_SIMD_CLONES void RowMoments(const T* x, int64_t n, double eps, double* mean, double* rstd) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i]);
  const double m = s / static_cast<double>(n);
  double v = 0;
#pragma omp simd reduction(+ : v)
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - m;
    v += d * d;
  }
  *mean = m;
  *rstd = 1.0 / std::sqrt(v / static_cast<double>(n) + eps);
}

// sum(dy) and sum(dy * (x - m)) over the row, in double.
template <typename T>
WEFT_SIMD_CLONES void RowDySums(const T* dy, const T* x, int64_t n, double m, double* sum_dy,
                                double* sum_dy_dev) {
  double a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(dy[i]);
    a += d;
    b += d * (static_cast<double>(x[i]) - m);
  }
  *sum_dy = a;
  *sum_dy_dev = b;
}

// Number of chunks that `rows` rows of `row_len` elements are split into for
// a parallel reduction: one chunk when the work is small, otherwise at most
// 64 (a fixed count, so results do not depend on the thread count).
inline int64_t ReduceChunks(int64_t rows, int64_t row_len) {
  if (rows * row_len < kParallelGrain) return 1;
  return std::max<int64_t>(1, std::min<int64_t>(rows, 64));
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_NORM_UTIL_H_
