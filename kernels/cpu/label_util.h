// Reading class labels and integer lengths in CPU kernels (losses, CTC,
// masked softmax): validated conversions to int64 with errors that name the
// op and the position.
#ifndef WEFT_KERNELS_CPU_LABEL_UTIL_H_
#define WEFT_KERNELS_CPU_LABEL_UTIL_H_

#include <cstdint>
#include <type_traits>
#include <vector>

#include "weft/dtype.h"
#include "weft/op.h"
#include "weft/status.h"

namespace weft {
namespace cpu {

// label[i] as a class index; fails (kInvalidArgument) unless it is a whole
// number in [0, classes).
template <typename T>
int64_t ClassIndex(const char* op, const T* label, int64_t i, int64_t classes) {
  const double l = static_cast<double>(label[i]);
  const int64_t li = static_cast<int64_t>(l);
  if (l != static_cast<double>(li) || li < 0 || li >= classes)
    Fail(StatusCode::kInvalidArgument, "operator ", op, ": label ", l, " at position ", i,
         " is not a class index in [0, ", classes, ")");
  return li;
}

// The values of input `what` (`op` names the caller) of any dtype,
// truncated to int64.
inline std::vector<int64_t> IntValues(const TBlob& b, const char* /*op*/, const char* /*what*/) {
  std::vector<int64_t> v(b.Size());
  DispatchDType(b.dtype, [&](auto t) {
    using L = decltype(t);
    const L* p = b.data<L>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(ToDouble(p[i]));
  });
  return v;
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_LABEL_UTIL_H_
