// Vectorised row reductions shared by the normalisation kernels (LayerNorm,
// GroupNorm): sums over a contiguous row accumulated in double with OpenMP
// SIMD reductions, so the float-to-double conversions and adds vectorise,
// and the deterministic chunkings used to reduce partial sums (rows over
// chunks of rows; long rows over chunks of one row).
#ifndef WEFT_KERNELS_CPU_NORM_UTIL_H_
#define WEFT_KERNELS_CPU_NORM_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cpu/cpu_util.h"

namespace weft {
namespace cpu {

// Sum of x[0, n) and sum of (x - m)^2, in double.
template <typename T>
WEFT_SIMD_CLONES double SumOf(const T* x, int64_t n) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i]);
  return s;
}

template <typename T>
WEFT_SIMD_CLONES double SumSqDev(const T* x, int64_t n, double m) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - m;
    s += d * d;
  }
  return s;
}

// Mean and 1 / sqrt(biased variance + eps) of the row x[0, n), two-pass.
template <typename T>
void RowMoments(const T* x, int64_t n, double eps, double* mean, double* rstd) {
  const double m = SumOf(x, n) / static_cast<double>(n);
  *mean = m;
  *rstd = 1.0 / std::sqrt(SumSqDev(x, n, m) / static_cast<double>(n) + eps);
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

// Chunks each of `rows` rows of n elements is split into so that few long
// rows (GroupNorm of a small batch) still spread over threads: 1 when the
// work is small or rows are many, otherwise enough for about 64 pieces of
// at least 1024 elements. Depends on the shape only.
inline int64_t ChunksPerRow(int64_t rows, int64_t n) {
  if (rows * n < kParallelGrain || rows >= 64) return 1;
  return std::max<int64_t>(1, std::min<int64_t>((64 + rows - 1) / rows, n / 1024));
}

// Element range [*lo, *hi) of chunk k of `per` over a row of n elements.
inline void ChunkRange(int64_t n, int64_t per, int64_t k, int64_t* lo, int64_t* hi) {
  *lo = n * k / per;
  *hi = n * (k + 1) / per;
}

// mean[r] and rstd[r] = 1 / sqrt(var + eps) of each row of x (rows x n),
// two-pass, with `per` = ChunksPerRow(rows, n) chunks per row reduced in a
// fixed order (OpenMP-parallel over all chunks).
template <typename T>
void RowsMoments(const T* x, int64_t rows, int64_t n, double eps, double* mean, double* rstd) {
  const int64_t per = ChunksPerRow(rows, n), units = rows * per;
  std::vector<double> part(units);
#pragma omp parallel for schedule(static) if (rows * n >= kParallelGrain)
  for (int64_t u = 0; u < units; ++u) {
    int64_t lo, hi;
    ChunkRange(n, per, u % per, &lo, &hi);
    part[u] = SumOf(x + (u / per) * n + lo, hi - lo);
  }
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t k = 0; k < per; ++k) s += part[r * per + k];
    mean[r] = s / static_cast<double>(n);
  }
#pragma omp parallel for schedule(static) if (rows * n >= kParallelGrain)
  for (int64_t u = 0; u < units; ++u) {
    int64_t lo, hi;
    ChunkRange(n, per, u % per, &lo, &hi);
    part[u] = SumSqDev(x + (u / per) * n + lo, hi - lo, mean[u / per]);
  }
  for (int64_t r = 0; r < rows; ++r) {
    double v = 0;
    for (int64_t k = 0; k < per; ++k) v += part[r * per + k];
    rstd[r] = 1.0 / std::sqrt(v / static_cast<double>(n) + eps);
  }
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
