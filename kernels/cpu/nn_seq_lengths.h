// Reading a `sequence_length` input (RNN, SequenceMask/Last/Reverse): one
// length per batch row in any numeric dtype (float16 excepted), truncated
// to an integer as MXNet's kernels do, and checked against [lo, hi].
#ifndef WEFT_KERNELS_CPU_NN_SEQ_LENGTHS_H_
#define WEFT_KERNELS_CPU_NN_SEQ_LENGTHS_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "weft/blob.h"
#include "weft/dtype.h"
#include "weft/status.h"

namespace weft {
namespace cpu {

inline std::vector<int64_t> ReadSequenceLengths(const TBlob& blob, int64_t n, int64_t lo,
                                                int64_t hi, const std::string& op) {
  std::vector<int64_t> len(static_cast<size_t>(n));
  DispatchDType(blob.dtype, [&](auto tag) {
    using I = decltype(tag);
    const I* p = blob.data<I>();
    for (int64_t b = 0; b < n; ++b) {
      const double v = ToDouble(p[b]);
      if (!(v >= static_cast<double>(lo) && v < static_cast<double>(hi) + 1))
        Fail(StatusCode::kInvalidArgument, "operator ", op, ": sequence_length[", b, "] = ", v,
             " must be in [", lo, ", ", hi, "]");
      len[static_cast<size_t>(b)] = static_cast<int64_t>(v);
    }
  });
  return len;
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_NN_SEQ_LENGTHS_H_
