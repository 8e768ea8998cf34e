// Which axes a reduction (sum, mean, max, min, prod, nansum, nanprod, norm
// and their gradients) reduces, from its `axis`/`exclude` parameters, and
// norm's order, shared by the CPU (kernels/cpu/reduce.cc) and CUDA
// (kernels/cuda/reduce.cu) kernels. The op's shape inference has already
// validated `axis`.
#ifndef WEFT_KERNELS_REDUCE_AXES_H_
#define WEFT_KERNELS_REDUCE_AXES_H_

#include <string>
#include <vector>

#include "weft/op.h"

namespace weft {

// A reduction's `axis` and `exclude`, decoded once per node
// (ParamValues::Decoded): `all` when axis is absent or empty; exclude only
// where the op declares it.
struct ReduceAxesParams {
  bool all = true;
  Shape axis;
  bool exclude = false;
  static ReduceAxesParams Decode(const ParamValues& p) {
    ReduceAxesParams q;
    q.all = p.IsNone("axis") || p.GetShape("axis").ndim() == 0;
    if (!q.all) q.axis = p.GetShape("axis");
    q.exclude = p.Has("exclude") && p.GetBool("exclude");
    return q;
  }
};

// Flags of the axes of a rank-`ndim` input that the op reduces: every axis
// when `axis` is absent or empty, else the listed ones (negative counted
// from the end), flipped by exclude=True (norm has no `exclude`).
inline std::vector<bool> ReducedAxisFlags(const NodeAttrs& attrs, int ndim) {
  const ReduceAxesParams& q = attrs.params.Decoded<ReduceAxesParams>();
  if (q.all) return std::vector<bool>(ndim, true);
  const Shape& axis = q.axis;
  std::vector<bool> flags(ndim, false);
  for (int i = 0; i < axis.ndim(); ++i) flags[axis[i] < 0 ? axis[i] + ndim : axis[i]] = true;
  const bool has_exclude = attrs.op->name.find("norm") == std::string::npos;
  if (has_exclude && q.exclude) flags.flip();
  return flags;
}

// norm's order (1 or 2), decoded once per node (ParamValues::Decoded).
struct NormOrdParams {
  int64_t ord = 2;
  static NormOrdParams Decode(const ParamValues& p) { return {p.GetInt("ord")}; }
};

}  // namespace weft

#endif  // WEFT_KERNELS_REDUCE_AXES_H_
