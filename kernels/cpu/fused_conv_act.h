// The activation of a _fused_Convolution (act_type, a_min, a_max) and its
// bias and sum flags, decoded once per node (ParamValues::Decoded) and
// shared by the CPU reference kernel and oneDNN's post-ops.
#ifndef WEFT_KERNELS_CPU_FUSED_CONV_ACT_H_
#define WEFT_KERNELS_CPU_FUSED_CONV_ACT_H_

#include <string>

#include "weft/param.h"

namespace weft {
namespace cpu {

struct FusedConvAct {
  enum Kind { kNone, kRelu, kClip } kind = kNone;
  float lo = 0, hi = 0;  // kClip's bounds
  bool bias = true, with_sum = false;

  static FusedConvAct Decode(const ParamValues& p) {
    FusedConvAct a;
    const std::string& act = p.GetString("act_type");
    if (act == "relu") a.kind = kRelu;
    if (act == "clip") {
      a.kind = kClip;
      a.lo = static_cast<float>(p.GetFloat("a_min"));
      a.hi = static_cast<float>(p.GetFloat("a_max"));
    }
    a.bias = !p.GetBool("no_bias");
    a.with_sum = p.GetBool("with_sum");
    return a;
  }

  // y as `clip` and `relu` compute it: a NaN passes through.
  template <typename T>
  T Apply(T v) const {
    if (kind == kRelu) return v < T(0) ? T(0) : v;
    if (kind == kClip) return v > T(hi) ? T(hi) : (v < T(lo) ? T(lo) : v);
    return v;
  }
};

inline const FusedConvAct& FusedConvActOf(const ParamValues& p) {
  return p.Decoded<FusedConvAct>();
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_FUSED_CONV_ACT_H_
