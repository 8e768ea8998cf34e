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
#include "softmax_view.h"

namespace weft {
namespace cpu {

// exp(x) in float to about 1 ulp for x in [-87.3, 88.3], clamped outside
// (so exp of very negative inputs is ~1e-38, not 0), branch-free so loops
// calling it vectorise: x = n ln2 + r with |r| <= ln2/2 (Cody-Waite split of
// ln2), exp(r) by its degree-7 Taylor polynomial (truncation < 1e-8
// relative), times 2^n built in the exponent bits. NaN in gives NaN out.
inline float FastExp(float x) {
  x = x < -87.3f ? -87.3f : x;
  x = x > 88.3f ? 88.3f : x;
  const float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float t = x * 1.44269504088896341f;
  const float n = (t + kRound) - kRound;
  const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}
// float64 keeps the library exp (gradient checks need its accuracy).
inline double FastExp(double x) { return std::exp(x); }

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
