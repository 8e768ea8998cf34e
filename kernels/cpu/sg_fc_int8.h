// The quantized _sg_mkldnn_fully_connected (MXNet 1.9.1's SgMKLDNNFCOp,
// tensor-wise and channel-wise): the preparation (the int8 weights and the
// bias in the int32 sums' levels, with their scales; MXNet's output scales)
// and the epilogue that turns the int32 sums into the output.
#ifndef WEFT_KERNELS_CPU_SG_FC_INT8_H_
#define WEFT_KERNELS_CPU_SG_FC_INT8_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/quantized_nn.h"
#include "weft/graph.h"
#include "weft/op.h"

namespace weft {
namespace cpu {

struct SgFcCall {
  const Node* act = nullptr;  // the fused elementwise op, or null
  bool calibrated = false, float_out = false;
  int64_t rows = 0, k = 0, hidden = 0;
  float data_scale = 1, lo = 0, hi = 0;  // lo, hi: the range of an int8/uint8/int32 output
  // out = act(acc * scale[c]) * post_scale for output channel c (one entry
  // serves every channel when the weights have one scale).
  std::vector<float> scale;
  float post_scale = 1;
  const int8_t* w = nullptr;             // the weights the sums use (hidden rows of k)
  const int32_t* bias = nullptr;         // the bias in the sums' levels, or null
  std::shared_ptr<const Int8Weights> q;  // their scales; owns `w` unless it is the int8 input
  // Channel-wise: where a faster kernel keeps what it prepared from these
  // weights (its primitives, the weights in their layout), dropped with them;
  // null for tensor-wise weights, which are derived per call.
  std::shared_ptr<std::shared_ptr<void>> backend;
  float ScaleOf(int64_t i) const { return scale.size() == 1 ? scale[0] : scale[i % hidden]; }
};

// Throws Error(kNotImplemented) for an uncalibrated int32 output with a
// fused elementwise op, or a fused op the kernel does not compute. The
// channel-wise weights are kept in ctx.state while the parameters' versions
// and the data range are unchanged.
SgFcCall PrepareSgFc(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<TBlob>& out);

// Writes out[0] (and the range outputs) from the int32 sums `acc` (rows x
// hidden; may be out[0] itself when that is int32).
void FinishSgFc(const SgFcCall& c, const int32_t* acc, const std::vector<TBlob>& out);

void RegisterSgFcInt8Cpu(KernelRegistry* reg);

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_SG_FC_INT8_H_
