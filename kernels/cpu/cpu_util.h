// Helpers shared by CPU kernels: parallel loops and request-aware stores.
#ifndef WEFT_KERNELS_CPU_CPU_UTIL_H_
#define WEFT_KERNELS_CPU_CPU_UTIL_H_

#include <cstdint>

#include "weft/op.h"

namespace weft {
namespace cpu {

// Marks a hot leaf loop function for an extra AVX2+FMA (x86-64-v3) clone that
// the dynamic loader picks on CPUs that have it (GCC function multiversioning;
// the library itself is built for baseline x86-64, i.e. SSE2 vectors). A
// macro because the attribute exists only for GCC on x86-64; elsewhere (and
// for clang, which the fuzz build uses) it is empty. Sanitizer builds get
// no clones either: the clones' resolvers are instrumented and run while
// the dynamic loader relocates libweft, before the sanitizer runtime is up,
// and ThreadSanitizer crashes there.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define WEFT_HAVE_TARGET_CLONES 1
#endif
#if WEFT_HAVE_TARGET_CLONES
#define WEFT_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define WEFT_SIMD_CLONES
#endif

// Loops shorter than this run on one thread.
constexpr int64_t kParallelGrain = 1 << 15;

// Runs body(i) for i in [0, n), split over OpenMP threads when n is large.
template <typename F>
inline void ParallelFor(int64_t n, F&& body) {
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) body(i);
}

// *dst += v; float16 and bfloat16 add in float and round once.
template <typename T>
inline void AddTo(T* dst, T v) {
  if constexpr (kIsReducedFloat<T>) {
    *dst = FromDouble<T>(ToDouble(*dst) + ToDouble(v));
  } else {
    *dst += v;
  }
}

// Stores `v` into `*dst` under request `req` (kNull skips, kAdd accumulates).
template <typename T>
inline void Store(OpReq req, T* dst, T v) {
  if (req == OpReq::kAdd)
    AddTo(dst, v);
  else if (req != OpReq::kNull)
    *dst = v;
}

// *y = v, or *y += v when kAdd.
template <bool kAdd, typename T>
inline void Put(T* y, T v) {
  if constexpr (kAdd) {
    *y += v;
  } else {
    *y = v;
  }
}

template <bool kAdd, typename T, typename F>
void MapLoop(const T* a, const T* b, T* y, int64_t n, F f) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) Put<kAdd>(y + i, f(a[i], b[i]));
}

// y[i] = f(a[i], b[i]) (or += under kAdd; kNull skips), in parallel and
// SIMD. `y` may equal `a` or `b` but must not partially overlap them; `f`
// is passed by value so the loop sees plain pointers (this vectorises at
// -O2, unlike a by-reference closure). Unary maps pass the input twice.
template <typename T, typename F>
void Map(OpReq req, const T* a, const T* b, T* y, int64_t n, F f) {
  if (req == OpReq::kAdd) {
    MapLoop<true>(a, b, y, n, f);
  } else if (req != OpReq::kNull) {
    MapLoop<false>(a, b, y, n, f);
  }
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_CPU_UTIL_H_
