// The activation of a _fused_FullyConnected (act_type: "", "relu", "gelu"),
// decoded once per node (ParamValues::Decoded) and shared by the CPU
// reference kernel and oneDNN's post-op (kernels/dnnl/nn_dense_dnnl.cc).
#ifndef WEFT_KERNELS_CPU_FUSED_DENSE_ACT_H_
#define WEFT_KERNELS_CPU_FUSED_DENSE_ACT_H_

#include <cmath>
#include <string>

#include "weft/param.h"

namespace weft {
namespace cpu {

struct FusedDenseAct {
  enum Kind { kNone, kRelu, kGelu } kind = kNone;

  static FusedDenseAct Decode(const ParamValues& p) {
    FusedDenseAct a;
    const std::string& act = p.GetString("act_type");
    if (act == "relu") a.kind = kRelu;
    if (act == "gelu") a.kind = kGelu;
    return a;
  }

  // relu as `relu` computes it (a NaN passes through); GELU's erf form,
  // 0.5 v (1 + erf(v / sqrt(2))), evaluated in double.
  template <typename T>
  T Apply(T v) const {
    if (kind == kRelu) return v < T(0) ? T(0) : v;
    if (kind == kGelu) {
      const double x = static_cast<double>(v);
      return static_cast<T>(0.5 * x * (1.0 + std::erf(x * 0.70710678118654752440)));
    }
    return v;
  }
};

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_FUSED_DENSE_ACT_H_
