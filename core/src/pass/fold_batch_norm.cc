// pass::FoldBatchNorm: BatchNorm after a Convolution or FullyConnected
// folded into the layer's weight and bias by a _bn_fold node.
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>

#include "pass/rewrite.h"
#include "weft/op.h"

namespace weft {
namespace pass {

namespace {

// True when `layer` (the producer of BatchNorm `bn`'s data) has its output
// channel on BatchNorm's axis and its weight's first axis.
bool ChannelsMatch(const Node& layer, const Node& bn) {
  const int64_t axis = bn.attrs.params.GetInt("axis");
  const std::string& op = layer.op()->name;
  if (op == "Convolution") {
    if (!layer.attrs.params.IsNone("layout")) {
      const std::string& l = layer.attrs.params.GetString("layout");
      if (l != "NCW" && l != "NCHW" && l != "NCDHW") return false;
    }
    return axis == 1;
  }
  if (op == "FullyConnected")
    return layer.attrs.params.GetBool("flatten") ? axis == 1 || axis == -1 : axis == -1;
  return false;
}

}  // namespace

RewriteResult FoldBatchNorm(const OpRegistry& reg, const Graph& graph) {
  IndexedGraph g(graph);
  const std::vector<int> readers = EntryReaders(g);
  return RewriteGraph(graph, [&](const NodePtr& bn, const std::vector<NodeEntry>& inputs) {
    std::vector<NodeEntry> none;
    if (bn->op()->name != "BatchNorm" || bn->attrs.params.GetBool("output_mean_var")) return none;
    const NodeEntry& old_data = bn->inputs[0];
    if (old_data.node->is_variable() || old_data.index != 0) return none;
    if (!bn->inputs[3].node->is_variable() || !bn->inputs[4].node->is_variable()) return none;
    if (readers[g.entry_id(old_data)] != 1 || !ChannelsMatch(*old_data.node, *bn)) return none;
    const NodePtr& layer = inputs[0].node;  // the layer with its inputs rewritten
    const bool no_bias = layer->attrs.params.GetBool("no_bias");
    std::vector<NodeEntry> fold_in{layer->inputs[1]};
    if (!no_bias) fold_in.push_back(layer->inputs[2]);
    for (int i = 1; i <= 4; ++i) fold_in.push_back(inputs[i]);
    const ParamValues& bp = bn->attrs.params;
    std::ostringstream eps;
    eps << std::setprecision(17) << bp.GetFloat("eps");
    StringMap fold_params{{"eps", eps.str()},
                          {"fix_gamma", bp.GetBool("fix_gamma") ? "True" : "False"},
                          {"no_bias", no_bias ? "True" : "False"}};
    NodePtr fold =
        MakeOpNode(reg, "_bn_fold", bn->attrs.name + "_fold", std::move(fold_in), fold_params);
    auto fused = std::make_shared<Node>(*layer);
    fused->attrs.name = layer->attrs.name + "_" + bn->attrs.name;
    fused->attrs.dict["no_bias"] = "False";
    fused->attrs.params = ParseParams(layer->op()->name, &layer->op()->params, fused->attrs.dict);
    fused->inputs = {layer->inputs[0], NodeEntry{fold, 0, 0}, NodeEntry{fold, 1, 0}};
    return std::vector<NodeEntry>{NodeEntry{fused, 0, 0}};
  });
}

}  // namespace pass
}  // namespace weft
