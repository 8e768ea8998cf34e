// The quantized _sg_mkldnn_fully_connected (MXNet 1.9.1's SgMKLDNNFCOp,
// tensor-wise), shared by its reference kernel and the oneDNN one: the
// preparation (scales, the int8 bias in the int32 sums' levels, the weights
// rescaled when the bias would overflow) and the epilogue that turns the
// int32 sums into the output.
#ifndef WEFT_KERNELS_CPU_SG_FC_INT8_H_
#define WEFT_KERNELS_CPU_SG_FC_INT8_H_

#include <cstdint>
#include <vector>

#include "weft/graph.h"
#include "weft/op.h"

namespace weft {
namespace cpu {

struct SgFcCall {
  const Node* act = nullptr;  // the fused elementwise op, or null
  bool calibrated = false, float_out = false;
  int64_t rows = 0, k = 0, hidden = 0;
  float data_scale = 1, weight_scale = 1, out_scale = 1, lo = 0, hi = 0;
  const int8_t* w = nullptr;     // the weights the sums use (rows of k)
  std::vector<int8_t> rescaled;  // owns `w` when MXNet's bias rule rescaled them
  std::vector<int32_t> bias;     // empty without bias
};

// Throws Error(kNotImplemented) for channel-wise quantization and for an
// uncalibrated int32 output with a fused elementwise op.
SgFcCall PrepareSgFc(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<TBlob>& out);

// Writes out[0] (and the range outputs) from the int32 sums `acc` (rows x
// hidden; may be out[0] itself when that is int32).
void FinishSgFc(const NodeAttrs& attrs, const SgFcCall& c, const int32_t* acc,
                const std::vector<TBlob>& out);

void RegisterSgFcInt8Cpu(KernelRegistry* reg);

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_SG_FC_INT8_H_
