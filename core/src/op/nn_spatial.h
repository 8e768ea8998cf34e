// Parameter and geometry helpers shared by the spatial NN operators
// (Convolution, Deconvolution, Pooling): MXNet's kernel/stride/dilate/pad
// tuples, their defaults and validation. Internal to core/src/op.
#ifndef WEFT_CORE_SRC_OP_NN_SPATIAL_H_
#define WEFT_CORE_SRC_OP_NN_SPATIAL_H_

#include <string>
#include <vector>

#include "op_common.h"

namespace weft {
namespace op {

// Convolution's and Deconvolution's required "num_filter" (1 to 100000).
ParamDecl NumFilterParam();
// MXNet's optional "cudnn_tune" enum (accepted, ignored on CPU).
ParamDecl CudnnTuneParam();
// MXNet's optional "layout" enum (NCW ... NWC, default None); `doc` says
// which layouts the op supports (see CheckChannelFirstLayout).
ParamDecl LayoutParam(const std::string& doc);

// Spatial geometry of one op instance: `nsp` spatial axes (1 to 3) with
// per-axis kernel, stride, dilation and padding (MXNet defaults: stride 1,
// dilate 1, pad 0 when the tuple is empty).
struct SpatialGeom {
  int nsp = 0;
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilate[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  // Extent of the dilated kernel along axis i.
  int64_t Dilated(int i) const { return dilate[i] * (kernel[i] - 1) + 1; }
};

// Reads kernel/stride/pad (and dilate when `has_dilate`) of `attrs`.
// `kernel` must have 1 to `max_nsp` axes (kNotImplemented for 3 when
// max_nsp is 2); the other tuples are empty or of the same length; kernel,
// stride, dilate >= 1 and pad >= 0. Throws Error(kInvalidArgument) naming
// the op and the key.
SpatialGeom ReadSpatialGeom(const NodeAttrs& attrs, bool has_dilate, int max_nsp = 2);

// Fails with kNotImplemented unless the optional "layout" parameter is None
// or the channel-first layout for `nsp` spatial axes (NCW / NCHW / NCDHW).
void CheckChannelFirstLayout(const NodeAttrs& attrs, int nsp);

// Convolution's shape inference on (data, weight[, bias]) -> (output).
bool ConvolutionShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out);
// Inference of a backward op (ograd, data, weight) -> (data_grad,
// weight_grad[, bias_grad]) derived from the forward inference `fwd`.
InferShapeFn ConvLikeBackwardShape(InferShapeFn fwd);

// MXNet's BatchNorm dtypes (nn_norm.cc): the data entries (inputs
// `data_in`, outputs `data_out`) share one dtype; every other input and
// output is float32 for float16/bfloat16 data and the data's dtype
// otherwise. For BatchNorm, its gradient and _bn_fold.
bool BatchNormTypes(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out,
                    const std::vector<size_t>& data_in, const std::vector<size_t>& data_out);

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_NN_SPATIAL_H_
