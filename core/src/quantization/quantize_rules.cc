#include "quantization/quantize_rules.h"

#include "weft/op.h"

namespace weft {
namespace quant {

Rule RuleFor(const Node& node, bool channel_wise) {
  const std::string& op = node.op()->name;
  const ParamValues& p = node.attrs.params;
  Rule r;
  if (op == "Convolution" || op == "FullyConnected") {
    r.qop = op == "Convolution" ? "_contrib_quantized_conv" : "_contrib_quantized_fully_connected";
    r.must = r.requantize = true;
  } else if (op == "elemwise_add" || op == "elemwise_mul") {
    r.qop = "_contrib_quantized_" + op;
    r.requantize = true;
  } else if (op == "Pooling") {
    const std::string& t = p.GetString("pool_type");
    if (t == "max" || t == "avg") r.qop = "_contrib_quantized_pooling";
  } else if (op == "Activation") {
    if (p.GetString("act_type") == "relu") r.qop = "_contrib_quantized_act";
  } else if (op == "Flatten") {
    r.qop = "_contrib_quantized_flatten";
  } else if (op == "Concat") {
    if (p.GetInt("dim") > 0) r.qop = "_contrib_quantized_concat";
  } else if (op == "BatchNorm") {
    r.qop = "_contrib_quantized_batch_norm";
    r.float_inputs = {1, 2, 3, 4};
  } else if (op == "Embedding") {
    if (p.GetDType("dtype") == DType::kFloat32) r.qop = "_contrib_quantized_embedding";
    r.float_inputs = {0};
  } else if (op == "_sg_mkldnn_conv" && !p.GetBool("quantized")) {
    // MXNet's SgMKLDNNConvQuantizedOp / SgMKLDNNAvoidConvQuantizeInput.
    r.qop = op;
    r.must = r.requantize = true;
    r.extra_params = {{"quantized", "true"}};
    const size_t n = static_cast<size_t>(p.GetInt("num_args"));
    const size_t sum = p.GetBool("with_sum") ? n - 1 : n;
    for (size_t i = 1; i < n; ++i)
      if (i != sum) r.float_inputs.insert(i);
  } else if (op == "_sg_mkldnn_fully_connected" && !p.GetBool("quantized")) {
    // MXNet's SgMKLDNNFCQuantizedOp, the channel_wise_quantize its
    // NeedQuantize adds, and SgMKLDNNAvoidFCQuantizeInput.
    r.qop = op;
    r.must = r.requantize = true;
    r.extra_params = {{"quantized", "true"}};
    if (channel_wise) {
      r.extra_params["channel_wise_quantize"] = "True";
      for (size_t i = 1; i < static_cast<size_t>(p.GetInt("num_args")); ++i)
        r.float_inputs.insert(i);
    }
  }
  return r;
}

}  // namespace quant
}  // namespace weft
