// pass::FuseConvActivation: Convolution [-> elemwise_add] [-> relu] fused
// into one _fused_Convolution (oneDNN post-ops on CPU).
#include <memory>
#include <string>

#include "pass/rewrite.h"
#include "weft/op.h"

namespace weft {
namespace pass {

namespace {

bool IsRelu(const Node& n) {
  const std::string& op = n.op()->name;
  return op == "relu" || (op == "Activation" && n.attrs.params.GetString("act_type") == "relu");
}

// A _fused_Convolution computing `conv` (a Convolution or an unactivated
// fused one) followed by relu and/or a sum with `sum`.
NodePtr Fuse(const OpRegistry& reg, const Node& conv, bool relu, const NodeEntry* sum) {
  const OpDef& fused = reg.Get("_fused_Convolution");
  auto n = std::make_shared<Node>(conv);
  n->attrs.op = &fused;
  if (relu) n->attrs.dict["act_type"] = "relu";
  if (sum) {
    n->attrs.dict["with_sum"] = "True";
    n->inputs.push_back(*sum);
  }
  n->attrs.params = ParseParams(fused.name, &fused.params, n->attrs.dict);
  return n;
}

}  // namespace

RewriteResult FuseConvActivation(const OpRegistry& reg, const Graph& graph) {
  IndexedGraph g(graph);
  const std::vector<int> readers = EntryReaders(g);
  // Output 0 of a node the fusion may absorb: read once (by this node only).
  auto single = [&](const NodeEntry& old) {
    return !old.node->is_variable() && old.index == 0 && readers[g.entry_id(old)] == 1;
  };
  return RewriteGraph(graph, [&](const NodePtr& node, const std::vector<NodeEntry>& inputs) {
    std::vector<NodeEntry> none;
    const std::string& op = node->op()->name;
    if (op == "elemwise_add") {
      for (int k = 0; k < 2; ++k) {
        const NodeEntry& conv = inputs[k];
        if (!single(node->inputs[k]) || conv.node->op()->name != "Convolution") continue;
        return std::vector<NodeEntry>{
            NodeEntry{Fuse(reg, *conv.node, false, &inputs[1 - k]), 0, 0}};
      }
      return none;
    }
    if (!IsRelu(*node) || !single(node->inputs[0])) return none;
    const Node& prev = *inputs[0].node;
    const bool fusable =
        prev.op()->name == "Convolution" || (prev.op()->name == "_fused_Convolution" &&
                                             prev.attrs.params.GetString("act_type").empty());
    if (!fusable) return none;
    return std::vector<NodeEntry>{NodeEntry{Fuse(reg, prev, true, nullptr), 0, 0}};
  });
}

}  // namespace pass
}  // namespace weft
