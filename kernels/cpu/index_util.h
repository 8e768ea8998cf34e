// Helpers shared by the CPU index, gather and sort kernels.
#ifndef WEFT_KERNELS_CPU_INDEX_UTIL_H_
#define WEFT_KERNELS_CPU_INDEX_UTIL_H_

#include <cstdint>
#include <type_traits>

#include "weft/dtype.h"
#include "weft/shape.h"

namespace weft {
namespace cpu {

// Calls f(T{}) for every dtype with arithmetic (not float16 or bfloat16),
// naming `op`.
template <typename F>
void DispatchNumeric(DType t, const char* op, F&& f) {
  DispatchDType(t, [&](auto v) {
    using T = decltype(v);
    if constexpr (kIsReducedFloat<T>) {
      Fail(StatusCode::kDType, "operator ", op, ": ", DTypeName(t), " is not supported");
    } else {
      f(v);
    }
  });
}

// An array viewed as (outer, n, inner) around one axis; axis < 0 views the
// whole array as one line (1, size, 1).
struct AxisView {
  int64_t outer = 1, n = 1, inner = 1;
  AxisView(const Shape& s, int axis) {
    if (axis < 0) {
      n = s.Size();
      return;
    }
    outer = s.ProdRange(0, axis);
    n = s[axis];
    inner = s.ProdRange(axis + 1, s.ndim());
  }
  int64_t lines() const { return outer * inner; }
  // Offset of element 0 of line `l` (stride between elements: inner).
  int64_t base(int64_t l) const { return (l / inner) * n * inner + l % inner; }
};

// Index `v` wrapped into [0, n) (mode "wrap") or clipped to [0, n-1].
inline int64_t FixIndex(double v, int64_t n, bool wrap) {
  int64_t i = static_cast<int64_t>(v);
  if (wrap) {
    i %= n;
    return i < 0 ? i + n : i;
  }
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_INDEX_UTIL_H_
