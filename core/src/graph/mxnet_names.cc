#include "graph/mxnet_names.h"

#include <set>

#include "weft/op.h"

namespace weft {

namespace {

// The MXNet 1.9.1 operators that name their outputs (FListOutputNames; a
// scan of src/operator for the registrations setting it).
const std::set<std::string>& NamedOutputOps() {
  static const std::set<std::string> ops = {"Activation",
                                            "BatchNorm",
                                            "CTCLoss",
                                            "Convolution",
                                            "Deconvolution",
                                            "Dropout",
                                            "FullyConnected",
                                            "GroupNorm",
                                            "LRN",
                                            "LayerNorm",
                                            "LeakyReLU",
                                            "Pooling",
                                            "RNN",
                                            "SoftmaxActivation",
                                            "SoftmaxOutput",
                                            "UpSampling",
                                            "_contrib_BatchNormWithReLU",
                                            "_contrib_ROIAlign",
                                            "_contrib_index_array",
                                            "_contrib_interleaved_matmul_encdec_qk",
                                            "_contrib_interleaved_matmul_encdec_valatt",
                                            "_contrib_interleaved_matmul_selfatt_qk",
                                            "_contrib_interleaved_matmul_selfatt_valatt",
                                            "_sg_mkldnn_conv",
                                            "_sg_mkldnn_fully_connected",
                                            "elemwise_add",
                                            "make_loss",
                                            "softmax",
                                            "softmin"};
  return ops;
}

}  // namespace

std::string MXNetEntrySuffix(const NodeEntry& e) {
  if (e.node->is_variable()) return "";
  const OpDef* op = e.node->op();
  return "_" + (NamedOutputOps().count(op->name) ? op->OutputName(e.node->attrs.params, e.index)
                                                 : std::to_string(e.index));
}

}  // namespace weft
