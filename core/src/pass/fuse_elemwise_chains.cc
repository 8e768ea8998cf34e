// pass::FuseElemwiseChains: chains of pointwise ops as one _fused_elemwise.
// Linear in the graph: chains are found first, and each is built once, at
// its last node, from the rewritten inputs recorded for its members.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pass/rewrite.h"
#include "weft/fused_elemwise.h"
#include "weft/op.h"

namespace weft {
namespace pass {

namespace {

// Control dependencies are left alone: such nodes are never fused.
bool Pointwise(const Node& n) {
  return !n.is_variable() && n.op()->pointwise && n.control_deps.empty();
}

}  // namespace

RewriteResult FuseElemwiseChains(const OpRegistry& reg, const Graph& graph) {
  IndexedGraph g(graph);
  const uint32_t n_nodes = g.num_nodes();
  const std::vector<int> readers = EntryReaders(g);
  // prev_slot[nid]: the input whose producer the chain continues from (-1:
  // none); a node with a successor in its chain is no chain's last node.
  std::vector<int> prev_slot(n_nodes, -1);
  std::vector<bool> has_next(n_nodes, false);
  for (uint32_t nid = 0; nid < n_nodes; ++nid) {
    if (!Pointwise(g.node(nid))) continue;
    for (size_t k = 0; k < g[nid].inputs.size(); ++k) {
      const auto& in = g[nid].inputs[k];
      if (!Pointwise(g.node(in.node_id)) || readers[g.entry_id(in)] != 1) continue;
      prev_slot[nid] = static_cast<int>(k);
      has_next[in.node_id] = true;
      break;
    }
  }
  // The rewritten inputs of each chain member, recorded as RewriteGraph
  // reaches it (members before their last node are kept as they are; the
  // fused node replaces the last one and nothing reads the others then).
  std::vector<std::vector<NodeEntry>> member_inputs(n_nodes);
  return RewriteGraph(graph, [&](const NodePtr& node, const std::vector<NodeEntry>& inputs) {
    std::vector<NodeEntry> none;
    const uint32_t nid = g.node_id(node.get());
    if (has_next[nid]) member_inputs[nid] = inputs;
    if (has_next[nid] || prev_slot[nid] < 0) return none;
    std::vector<uint32_t> members{nid};  // last to first
    while (prev_slot[members.back()] >= 0)
      members.push_back(
          g[members.back()].inputs[static_cast<size_t>(prev_slot[members.back()])].node_id);
    member_inputs[nid] = inputs;
    std::vector<NodeEntry> fused_inputs;
    std::map<std::pair<const Node*, uint32_t>, int> input_index;
    auto input_of = [&](const NodeEntry& e) {
      auto it = input_index.emplace(std::make_pair(e.node.get(), e.index),
                                    static_cast<int>(fused_inputs.size()));
      if (it.second) fused_inputs.push_back(e);
      return it.first->second;
    };
    std::vector<ElemwiseStep> steps;
    for (auto it = members.rbegin(); it != members.rend(); ++it) {
      ElemwiseStep s;
      s.attrs = g.node(*it).attrs;
      const std::vector<NodeEntry>& in = member_inputs[*it];
      for (size_t k = 0; k < in.size(); ++k)
        s.args.push_back(static_cast<int>(k) == prev_slot[*it] ? -1 : input_of(in[k]));
      steps.push_back(std::move(s));
      member_inputs[*it].clear();
    }
    StringMap params{{"num_args", std::to_string(fused_inputs.size())},
                     {"steps", EncodeElemwiseSteps(steps)}};
    NodePtr fused =
        MakeOpNode(reg, "_fused_elemwise", node->attrs.name, std::move(fused_inputs), params);
    return std::vector<NodeEntry>{NodeEntry{fused, 0, 0}};
  });
}

}  // namespace pass
}  // namespace weft
