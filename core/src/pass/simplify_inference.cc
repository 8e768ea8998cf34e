// pass::SimplifyInference: Dropout (mode "training") and identity-like ops
// removed for inference; their readers read the input instead.
#include <string>

#include "pass/rewrite.h"
#include "weft/op.h"

namespace weft {
namespace pass {

namespace {

// True when `node` computes its first input in inference (output 0 only).
bool PassesThrough(const Node& node) {
  const std::string& op = node.op()->name;
  if (op == "identity" || op == "BlockGrad") return true;  // also _copy, stop_gradient
  return op == "Dropout" && node.attrs.params.GetString("mode") == "training";
}

}  // namespace

RewriteResult SimplifyInference(const OpRegistry& reg, const Graph& graph) {
  (void)reg;
  IndexedGraph g(graph);
  const std::vector<int> readers = EntryReaders(g);
  std::vector<bool> is_output(g.num_node_entries(), false);
  for (const auto& out : g.outputs()) is_output[g.entry_id(out)] = true;
  return RewriteGraph(graph, [&](const NodePtr& node, const std::vector<NodeEntry>& inputs) {
    std::vector<NodeEntry> none;
    if (!PassesThrough(*node) || inputs.empty()) return none;
    const uint32_t nid = g.node_id(node.get());
    if (is_output[g.entry_id(nid, 0)]) return none;
    // Dropout's mask must be unread.
    for (uint32_t o = 1; o < node->num_outputs(); ++o)
      if (readers[g.entry_id(nid, o)] > 0) return none;
    std::vector<NodeEntry> out(node->num_outputs(), inputs[0]);
    return out;
  });
}

}  // namespace pass
}  // namespace weft
