// pass::ExpandSubgraphs: subgraph operators' nodes replaced by their nested
// graphs (see pass.h).
#include <memory>
#include <unordered_map>

#include "pass/rewrite.h"
#include "weft/control_flow.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {
namespace pass {

namespace {

std::string Label(const Node& n) {
  return StrCat("node '", n.attrs.name, "' (", n.op()->name, ")");
}

// Copies of the op nodes of `sub` reading `inputs` where `sub` reads its
// variables; returns the entries standing for `sub`'s outputs.
std::vector<NodeEntry> Inline(const OpRegistry& reg, const Node& owner, const Graph& sub,
                              const std::vector<NodeEntry>& inputs) {
  const Graph inner = ExpandSubgraphs(reg, sub).graph;
  const IndexedGraph g(inner);
  if (g.input_nodes().size() != inputs.size())
    Fail(StatusCode::kInvalidArgument, Label(owner), " has ", inputs.size(),
         " inputs, but its subgraph reads ", g.input_nodes().size(), " variables");
  if (g.outputs().size() != owner.num_outputs())
    Fail(StatusCode::kInvalidArgument, Label(owner), " has ", owner.num_outputs(),
         " outputs, but its subgraph has ", g.outputs().size(), " heads");
  std::unordered_map<uint32_t, NodeEntry> var_input;
  for (size_t i = 0; i < g.input_nodes().size(); ++i) var_input[g.input_nodes()[i]] = inputs[i];
  std::vector<NodePtr> copies(g.num_nodes());
  auto entry = [&](const IndexedGraph::EntryRef& e) {
    if (g.node(e.node_id).is_variable()) return var_input.at(e.node_id);
    return NodeEntry{copies[e.node_id], e.index, 0};
  };
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (g.node(nid).is_variable()) continue;
    auto n = std::make_shared<Node>(g.node(nid));
    n->inputs.clear();
    n->control_deps.clear();
    for (const auto& e : g[nid].inputs) n->inputs.push_back(entry(e));
    for (uint32_t d : g[nid].control_deps)
      if (!g.node(d).is_variable()) n->control_deps.push_back(copies[d]);
    copies[nid] = std::move(n);
  }
  std::vector<NodeEntry> out;
  for (const auto& e : g.outputs()) out.push_back(entry(e));
  return out;
}

}  // namespace

RewriteResult ExpandSubgraphs(const OpRegistry& reg, const Graph& graph) {
  return RewriteGraph(graph, [&](const NodePtr& node, const std::vector<NodeEntry>& inputs) {
    if (node->attrs.subgraphs.empty()) return std::vector<NodeEntry>{};
    // Control-flow operators run their nested graphs themselves.
    if (IsControlFlowOp(node->op())) return std::vector<NodeEntry>{};
    // int8 subgraph operators run as one node (their kernel derives the
    // int8 weights from the nested graph's float32 ones).
    const ParamValues& p = node->attrs.params;
    if (p.Has("quantized") && p.GetBool("quantized")) return std::vector<NodeEntry>{};
    if (!node->op()->check_subgraphs)
      Fail(StatusCode::kInvalidArgument, Label(*node),
           " carries subgraphs, but its operator takes none");
    if (node->attrs.subgraphs.size() != 1 || !node->attrs.subgraphs[0])
      Fail(StatusCode::kInvalidArgument, Label(*node), " must carry one subgraph, has ",
           node->attrs.subgraphs.size());
    return Inline(reg, *node, *node->attrs.subgraphs[0], inputs);
  });
}

}  // namespace pass
}  // namespace weft
