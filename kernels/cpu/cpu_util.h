// Helpers shared by CPU kernels: parallel loops and request-aware stores.
#ifndef WEFT_KERNELS_CPU_CPU_UTIL_H_
#define WEFT_KERNELS_CPU_CPU_UTIL_H_

#include <cstdint>

#include "weft/op.h"

namespace weft {
namespace cpu {

// Loops shorter than this run on one thread.
constexpr int64_t kParallelGrain = 1 << 15;

// Runs body(i) for i in [0, n), split over OpenMP threads when n is large.
template <typename F>
inline void ParallelFor(int64_t n, F&& body) {
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) body(i);
}

// Stores `v` into `*dst` under request `req` (kNull skips, kAdd accumulates).
template <typename T>
inline void Store(OpReq req, T* dst, T v) {
  if (req == OpReq::kAdd) *dst += v;
  else if (req != OpReq::kNull) *dst = v;
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_CPU_UTIL_H_
