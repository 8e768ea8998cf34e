// Which float32 operators quantization replaces, and how (MXNet 1.9.1's
// FQuantizedOp, FQuantizable, FNeedRequantize and FAvoidQuantizeInput
// registrations in src/operator/quantization/quantized_*.cc).
#ifndef WEFT_CORE_SRC_QUANTIZATION_QUANTIZE_RULES_H_
#define WEFT_CORE_SRC_QUANTIZATION_QUANTIZE_RULES_H_

#include <cstddef>
#include <set>
#include <string>

#include "weft/node.h"

namespace weft {
namespace quant {

struct Rule {
  std::string qop;          // the quantized operator; empty: not quantizable
  bool must = false;        // kMust (Convolution, FullyConnected), else kSupport
  bool requantize = false;  // int32 output: a requantize follows
  // Inputs passed in float32, without a quantize node or a range
  // (BatchNorm's parameters, Embedding's indices, a fused convolution's
  // weights, bias and BatchNorm parameters).
  std::set<size_t> float_inputs;
  // Parameters the quantized node adds to the float node's (quantized=true
  // for a fused convolution, which keeps its subgraph).
  StringMap extra_params;

  bool keeps_float(size_t i) const { return float_inputs.count(i) > 0; }
};

// The rule for `node` (a non-variable), depending on its parameters where
// MXNet's does (Activation relu only, Pooling max/avg, Concat dim > 0,
// Embedding of float32, 2-D fused convolutions). `channel_wise`: MXNet's
// quantize_granularity channel-wise, which keeps a fused fully connected
// layer's weight and bias float32.
Rule RuleFor(const Node& node, bool channel_wise);

}  // namespace quant
}  // namespace weft

#endif  // WEFT_CORE_SRC_QUANTIZATION_QUANTIZE_RULES_H_
