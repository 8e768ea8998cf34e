// Which axes a reduction (sum, mean, max, min, prod, nansum, nanprod, norm
// and their gradients) reduces, from its `axis`/`exclude` parameters, shared
// by the CPU (kernels/cpu/reduce.cc) and CUDA (kernels/cuda/reduce.cu)
// kernels. The op's shape inference has already validated `axis`.
#ifndef WEFT_KERNELS_REDUCE_AXES_H_
#define WEFT_KERNELS_REDUCE_AXES_H_

#include <string>
#include <vector>

#include "weft/op.h"

namespace weft {

// Flags of the axes of a rank-`ndim` input that the op reduces: every axis
// when `axis` is absent or empty, else the listed ones (negative counted
// from the end), flipped by exclude=True (norm has no `exclude`).
inline std::vector<bool> ReducedAxisFlags(const NodeAttrs& attrs, int ndim) {
  const ParamValues& p = attrs.params;
  if (p.IsNone("axis") || p.GetShape("axis").ndim() == 0) return std::vector<bool>(ndim, true);
  const Shape& axis = p.GetShape("axis");
  std::vector<bool> flags(ndim, false);
  for (int i = 0; i < axis.ndim(); ++i) flags[axis[i] < 0 ? axis[i] + ndim : axis[i]] = true;
  const bool has_exclude = attrs.op->name.find("norm") == std::string::npos;
  if (has_exclude && p.GetBool("exclude")) flags.flip();
  return flags;
}

}  // namespace weft

#endif  // WEFT_KERNELS_REDUCE_AXES_H_
