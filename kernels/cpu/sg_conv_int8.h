// The quantized _sg_mkldnn_conv's preparation, shared by its reference
// kernel (sg_conv_int8.cc, which states MXNet's rules) and the oneDNN one:
// the fused layers read from the nested graph, the int8 weights and int32
// biases derived from the float32 parameters (cached in the call's state
// while their versions and the data range are unchanged), and the
// requantization of the int32 sums.
#ifndef WEFT_KERNELS_CPU_SG_CONV_INT8_H_
#define WEFT_KERNELS_CPU_SG_CONV_INT8_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/quantized_nn.h"
#include "weft/graph.h"
#include "weft/op.h"

namespace weft {
namespace cpu {

// The fused layers' parameters, read from the nested graph.
struct SgConv {
  const Node* conv = nullptr;
  const Node* bn = nullptr;
  bool act = false, sum = false, postsum_act = false, calibrated = false, bias = false;
  // The first activation's bounds in real units: relu (0, inf), or clip
  // (a_min, a_max) (ReLU6: MXNet fuses clip before the sum only).
  float act_lo = 0, act_hi = 0;
  bool act_clip = false;
  // Byte tensors stored channels-last (NHWC under the logical NCHW shape),
  // as pass::Int8ChannelsLast marks them.
  bool data_nhwc = false, sum_nhwc = false, out_nhwc = false;
  size_t n_args = 0;
  // Throws Error(kNotImplemented) for an activation other than relu or
  // clip, or a clip after the sum.
  static SgConv Decode(const NodeAttrs& attrs);
};

// Weights and biases derived once per version of the float32 parameters
// (per-channel scales when calibrated).
struct SgDerived : Int8Weights {
  std::vector<uint64_t> versions;   // of the parameters but the moving statistics
  std::vector<float> moving_stats;  // BatchNorm's mean and variance
  float data_min = 0, data_max = 0;
  // What a faster kernel prepared from these (its primitive, its reordered
  // weights); dropped with them.
  std::shared_ptr<void> backend;
  // The node's fused layers (they depend on its attributes alone), so a
  // call decodes its nested graph once.
  SgConv conv;
};

// One call: the derived weights and how the int32 sums requantize into the
// output (out = acc * scale[channel], clamped to [act_lo, act_hi], + sum_scale *
// sum, relu).
struct SgCall {
  SgConv s;
  float data_scale = 1;
  const SgDerived* d = nullptr;
  std::shared_ptr<SgDerived> local;     // owns *d when the call has no state
  std::vector<float> scale;             // per output channel
  float sum_scale = 1, lo = 0, hi = 0;  // lo/hi: the output's range
  float act_lo = 0, act_hi = 0;         // the first activation's bounds in output levels
};

// REQUIRES: the node is quantized (quantized=true); `out_dtype` is
// out[0]'s dtype.
SgCall PrepareSgCall(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     DType out_dtype);

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_SG_CONV_INT8_H_
