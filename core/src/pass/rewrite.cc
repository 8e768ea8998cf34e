// Persistent graph rewriting for the inference passes (see rewrite.h).
#include "pass/rewrite.h"

#include <memory>

namespace weft {
namespace pass {

RewriteResult RewriteGraph(const Graph& graph, const RewriteFn& fn) {
  return RewriteGraph(graph, [&fn](const NodePtr& node, const std::vector<NodeEntry>& inputs,
                                   const std::vector<NodePtr>&) { return fn(node, inputs); });
}

RewriteResult RewriteGraph(const Graph& graph, const RewriteDepsFn& fn) {
  IndexedGraph g(graph);
  RewriteResult r;
  std::vector<std::vector<NodeEntry>> mapped(g.num_nodes());
  bool any_copy = false;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const NodePtr& old = g[nid].node;
    if (old->is_variable()) {
      mapped[nid] = {NodeEntry{old, 0, 0}};
      continue;
    }
    std::vector<NodeEntry> inputs;
    bool changed = false;
    for (size_t i = 0; i < g[nid].inputs.size(); ++i) {
      const auto& in = g[nid].inputs[i];
      NodeEntry e = mapped[in.node_id].at(in.index);
      changed = changed || e.node != old->inputs[i].node || e.index != old->inputs[i].index;
      inputs.push_back(std::move(e));
    }
    std::vector<NodePtr> deps;
    for (size_t i = 0; i < g[nid].control_deps.size(); ++i) {
      NodePtr d = mapped[g[nid].control_deps[i]].at(0).node;
      changed = changed || d != old->control_deps[i];
      deps.push_back(std::move(d));
    }
    std::vector<NodeEntry> replaced = fn(old, inputs, deps);
    if (!replaced.empty()) {
      mapped[nid] = std::move(replaced);
      ++r.changes;
      continue;
    }
    NodePtr node = old;
    if (changed) {
      node = std::make_shared<Node>(*old);
      node->inputs = std::move(inputs);
      node->control_deps = std::move(deps);
      any_copy = true;
    }
    for (uint32_t o = 0; o < old->num_outputs(); ++o) mapped[nid].push_back(NodeEntry{node, o, 0});
  }
  if (r.changes == 0 && !any_copy) {
    r.graph = graph;
    return r;
  }
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    const auto& out = g.outputs()[i];
    NodeEntry e = mapped[out.node_id].at(out.index);
    r.graph.outputs.push_back(std::move(e));
  }
  return r;
}

std::vector<int> EntryReaders(const IndexedGraph& g) {
  std::vector<int> readers(g.num_node_entries(), 0);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    for (const auto& in : g[nid].inputs) ++readers[g.entry_id(in)];
  for (const auto& out : g.outputs()) ++readers[g.entry_id(out)];
  return readers;
}

bool IsRelu(const Node& n) {
  const std::string& op = n.op()->name;
  return op == "relu" || (op == "Activation" && n.attrs.params.GetString("act_type") == "relu");
}

}  // namespace pass
}  // namespace weft
