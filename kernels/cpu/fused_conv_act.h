// The activation of a _fused_Convolution (act_type, a_min, a_max), decoded
// once per call and shared by the CPU reference kernel and oneDNN's post-ops.
#ifndef WEFT_KERNELS_CPU_FUSED_CONV_ACT_H_
#define WEFT_KERNELS_CPU_FUSED_CONV_ACT_H_

#include <string>

#include "weft/param.h"

namespace weft {
namespace cpu {

struct FusedConvAct {
  enum Kind { kNone, kRelu, kClip } kind = kNone;
  float lo = 0, hi = 0;  // kClip's bounds

  // y as `clip` and `relu` compute it: a NaN passes through.
  template <typename T>
  T Apply(T v) const {
    if (kind == kRelu) return v < T(0) ? T(0) : v;
    if (kind == kClip) return v > T(hi) ? T(hi) : (v < T(lo) ? T(lo) : v);
    return v;
  }
};

inline FusedConvAct FusedConvActOf(const ParamValues& p) {
  FusedConvAct a;
  const std::string& act = p.GetString("act_type");
  if (act == "relu") a.kind = FusedConvAct::kRelu;
  if (act == "clip") {
    a.kind = FusedConvAct::kClip;
    a.lo = static_cast<float>(p.GetFloat("a_min"));
    a.hi = static_cast<float>(p.GetFloat("a_max"));
  }
  return a;
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_FUSED_CONV_ACT_H_
