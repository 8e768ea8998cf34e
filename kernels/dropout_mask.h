// The shape of Dropout's random mask, shared by the CPU
// (kernels/cpu/nn_activation.cc) and CUDA (kernels/cuda/nn_dropout_embedding.cu)
// kernels: the data's shape with every axis in `axes` collapsed to 1 (the
// mask is broadcast along them); an axis out of range fails naming it.
#ifndef WEFT_KERNELS_DROPOUT_MASK_H_
#define WEFT_KERNELS_DROPOUT_MASK_H_

#include "weft/op.h"
#include "weft/status.h"

namespace weft {

// Dropout's axes, decoded once per node (ParamValues::Decoded).
struct DropoutAxes {
  Shape axes;
  static DropoutAxes Decode(const ParamValues& p) { return {p.GetShape("axes")}; }
};

inline Shape DropoutMaskShape(const ParamValues& p, const Shape& data) {
  const int nd = data.ndim();
  Shape mask = data;
  const Shape& axes = p.Decoded<DropoutAxes>().axes;
  for (int k = 0; axes.ndim_known() && k < axes.ndim(); ++k) {
    const int64_t a = axes[k] < 0 ? axes[k] + nd : axes[k];
    if (a < 0 || a >= nd)
      Fail(StatusCode::kInvalidArgument, "operator Dropout: axis ", axes[k],
           " is out of range for data ", data.ToString());
    mask[static_cast<int>(a)] = 1;
  }
  return mask;
}

}  // namespace weft

#endif  // WEFT_KERNELS_DROPOUT_MASK_H_
