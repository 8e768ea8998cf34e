// Softmax along one axis of a row-major array, shared by the softmax family
// (kernels/cpu/nn_softmax.cc) and SoftmaxOutput (kernels/cpu/nn_loss.cc).
// Contiguous lines (the normalised axis last, the common case) take loops
// that vectorise: a float exp the compiler can vectorise (FastExp), max and
// sum as OpenMP SIMD reductions, exp computed once per element. Lines are
// split over OpenMP threads by element count. Stateless; thread-safe.
#ifndef WEFT_KERNELS_CPU_NN_SOFTMAX_H_
#define WEFT_KERNELS_CPU_NN_SOFTMAX_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cpu/cpu_util.h"
#include "cpu/fast_math.h"
#include "softmax_view.h"

namespace weft {
namespace cpu {

// Lines of a softmax over `total` elements run on several threads when large.
inline bool ParallelLines(int64_t total) { return total >= kParallelGrain; }

// One contiguous line: y = softmax(x * scale) (or its log), written (kWrite).
// `y` may equal `x`.
template <bool kLog, typename T>
WEFT_SIMD_CLONES void SoftmaxLineContiguous(int64_t n, T scale, const T* x, T* y) {
  T mx = x[0] * scale;
#pragma omp simd reduction(max : mx)
  for (int64_t i = 0; i < n; ++i) mx = std::max(mx, x[i] * scale);
  T sum = T(0);
  if (kLog) {
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) sum += FastExp(x[i] * scale - mx);
    const T lse = mx + std::log(sum);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * scale - lse;
  } else {
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) {
      const T e = FastExp(x[i] * scale - mx);
      y[i] = e;
      sum += e;
    }
    const T inv = T(1) / sum;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  }
}

// One contiguous line of the softmax (or log_softmax) gradient from the
// output y: dx = y * (dy - sum(dy * y)) * inv_t, or (dy - exp(y) * sum(dy))
// * inv_t; written (kWrite). `dx` may equal `dy` or `y`.
template <bool kLog, typename T>
WEFT_SIMD_CLONES void SoftmaxGradLineContiguous(int64_t n, T inv_t, const T* dy, const T* y,
                                                T* dx) {
  T s = T(0);
  if (kLog) {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += dy[i];
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dx[i] = (dy[i] - FastExp(y[i]) * s) * inv_t;
  } else {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += dy[i] * y[i];
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dx[i] = y[i] * (dy[i] - s) * inv_t;
  }
}

// y = softmax(x * scale) (or its log when kLog) along n, stored with `req`.
// `y` may equal `x`.
template <bool kLog, typename T>
void SoftmaxLines(const SoftmaxView& v, T scale, const T* x, OpReq req, T* y) {
  const int64_t n = v.n, inner = v.inner, lines = v.outer * inner;
  if (req == OpReq::kNull || n == 0) return;
  if (inner == 1 && req != OpReq::kAdd) {
#pragma omp parallel for schedule(static) if (ParallelLines(lines * n))
    for (int64_t line = 0; line < lines; ++line)
      SoftmaxLineContiguous<kLog>(n, scale, x + line * n, y + line * n);
    return;
  }
#pragma omp parallel for schedule(static) if (ParallelLines(lines * n))
  for (int64_t line = 0; line < lines; ++line) {
    const int64_t base = (line / inner) * n * inner + line % inner;
    T mx = x[base] * scale;
    for (int64_t i = 1; i < n; ++i) mx = std::max(mx, x[base + i * inner] * scale);
    T sum = T(0);
    for (int64_t i = 0; i < n; ++i) sum += FastExp(x[base + i * inner] * scale - mx);
    if (kLog) {
      const T lse = mx + std::log(sum);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = base + i * inner;
        Store(req, &y[k], x[k] * scale - lse);
      }
    } else {
      const T inv = T(1) / sum;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = base + i * inner;
        Store(req, &y[k], FastExp(x[k] * scale - mx) * inv);
      }
    }
  }
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_NN_SOFTMAX_H_
