// pass::FuseDenseActivation: FullyConnected -> relu | GELU fused into one
// _fused_FullyConnected (oneDNN's inner product with an eltwise post-op on
// CPU; a transformer's feed-forward GELU, an MLP's relu).
#include <memory>
#include <string>

#include "pass/rewrite.h"
#include "weft/op.h"

namespace weft {
namespace pass {

namespace {

// The act_type of _fused_FullyConnected that `n` computes, or "" when it is
// not an activation the fusion takes.
std::string ActivationOf(const Node& n) {
  if (IsRelu(n)) return "relu";
  if (n.op()->name == "LeakyReLU" && n.attrs.params.GetString("act_type") == "gelu") return "gelu";
  return "";
}

}  // namespace

RewriteResult FuseDenseActivation(const OpRegistry& reg, const Graph& graph) {
  IndexedGraph g(graph);
  const std::vector<int> readers = EntryReaders(g);
  const OpDef& fused = reg.Get("_fused_FullyConnected");
  return RewriteGraph(graph, [&](const NodePtr& node, const std::vector<NodeEntry>& inputs) {
    std::vector<NodeEntry> none;
    const std::string act = ActivationOf(*node);
    if (act.empty()) return none;
    // The dense layer's output feeds this activation alone.
    const NodeEntry& old = node->inputs[0];
    if (old.node->is_variable() || old.index != 0 || readers[g.entry_id(old)] != 1) return none;
    const Node& dense = *inputs[0].node;
    if (dense.op()->name != "FullyConnected") return none;
    auto n = std::make_shared<Node>(dense);
    n->attrs.op = &fused;
    n->attrs.dict["act_type"] = act;
    n->attrs.params = ParseParams(fused.name, &fused.params, n->attrs.dict);
    return std::vector<NodeEntry>{NodeEntry{n, 0, 0}};
  });
}

}  // namespace pass
}  // namespace weft
