// Softmax along one axis of a row-major array, shared by the softmax family
// (kernels/cpu/nn_softmax.cc) and SoftmaxOutput (kernels/cpu/nn_loss.cc).
// Stateless; thread-safe.
#ifndef WEFT_KERNELS_CPU_NN_SOFTMAX_H_
#define WEFT_KERNELS_CPU_NN_SOFTMAX_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cpu/cpu_util.h"

namespace weft {
namespace cpu {

// The array viewed as (outer, n, inner), normalised over n.
struct SoftmaxView {
  int64_t outer = 1, n = 1, inner = 1;
};

// The view normalising `axis` (negative counts from the end) of `s`.
SoftmaxView SoftmaxAxisView(const Shape& s, int64_t axis);

// y = softmax(x * scale) (or its log when kLog) along n, stored with `req`.
// `y` may equal `x`.
template <bool kLog, typename T>
void SoftmaxLines(const SoftmaxView& v, T scale, const T* x, OpReq req, T* y) {
  const int64_t n = v.n, inner = v.inner;
  ParallelFor(v.outer * inner, [&](int64_t line) {
    const int64_t base = (line / inner) * n * inner + line % inner;
    T mx = x[base] * scale;
    for (int64_t i = 1; i < n; ++i) mx = std::max(mx, x[base + i * inner] * scale);
    T sum = T(0);
    for (int64_t i = 0; i < n; ++i) sum += std::exp(x[base + i * inner] * scale - mx);
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
        Store(req, &y[k], std::exp(x[k] * scale - mx) * inv);
      }
    }
  });
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_NN_SOFTMAX_H_
