// Gradient: symbolic reverse-mode differentiation over the indexed graph.
#include <string>
#include <unordered_map>
#include <vector>

#include "weft/graph.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {
namespace pass {

namespace {

std::string EntryLabel(const NodeEntry& e) { return OutputEntryName(*e.node, e.index); }

// Sums the gradients flowing into one entry: one ElementWiseSum up to
// `cap` terms, a chain of elemwise_add beyond (each add may run in place).
NodeEntry Aggregate(const OpRegistry& reg, const std::vector<NodeEntry>& terms, size_t cap,
                    const std::string& base) {
  if (terms.size() == 1) return terms[0];
  if (terms.size() <= cap)
    return MakeOpEntry(reg, "ElementWiseSum", base + "_grad_sum", terms,
                       {{"num_args", std::to_string(terms.size())}});
  NodeEntry acc = terms[0];
  for (size_t i = 1; i < terms.size(); ++i)
    acc = MakeOpEntry(reg, "elemwise_add", base + "_grad_add" + std::to_string(i), {acc, terms[i]});
  return acc;
}

// Records `forward` as the differentiated node of every node reachable from
// `entries` that the pass has not seen yet (a node just created for it):
// control_deps = {forward}, unless the op's gradient set control deps
// itself. Such nodes are unpublished, so editing them is safe.
class BackwardMarker {
 public:
  // Marks every node reachable from `entries` (and their inputs) as seen.
  void Seen(const std::vector<NodeEntry>& entries) { Visit(entries, nullptr); }
  void Attach(const std::vector<NodeEntry>& entries, const NodePtr& forward) {
    Visit(entries, &forward);
  }

 private:
  void Visit(const std::vector<NodeEntry>& entries, const NodePtr* forward) {
    std::vector<Node*> stack;
    for (const NodeEntry& e : entries)
      if (e.node && Insert(e.node)) stack.push_back(e.node.get());
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (forward && n->control_deps.empty()) n->control_deps.push_back(*forward);
      for (const NodeEntry& in : n->inputs)
        if (Insert(in.node)) stack.push_back(in.node.get());
    }
  }
  // Holds every node it has seen: a gradient node the pass drops (one for
  // an input that needs no gradient) must not free its address for a later
  // node, which would then pass for seen and never get its forward node.
  bool Insert(const NodePtr& n) { return seen_.emplace(n.get(), n).second; }
  std::unordered_map<const Node*, NodePtr> seen_;
};

}  // namespace

std::vector<NodeEntry> HeadGradients(const OpRegistry& reg, const Graph& forward,
                                     std::vector<bool>* is_variable) {
  std::vector<NodeEntry> heads;
  if (is_variable) is_variable->clear();
  for (size_t i = 0; i < forward.outputs.size(); ++i) {
    const NodeEntry& out = forward.outputs[i];
    const bool loss = out.node->op() && out.node->op()->is_loss;
    if (loss) {
      heads.push_back(MakeOpEntry(reg, "ones_like", EntryLabel(out) + "_head_grad", {out}));
    } else {
      heads.push_back(NodeEntry{MakeVariable("_head_grad_" + std::to_string(i)), 0, 0});
    }
    if (is_variable) is_variable->push_back(!loss);
  }
  return heads;
}

Graph Gradient(const OpRegistry& reg, const Graph& forward, const GradientSpec& spec) {
  IndexedGraph g(forward);
  if (spec.head_grads.size() != forward.outputs.size())
    Fail(StatusCode::kInvalidArgument, "Gradient: expected one head gradient per output (",
         forward.outputs.size(), "), given ", spec.head_grads.size());
  const size_t cap = spec.sum_cap == 0 ? 1 : spec.sum_cap;

  // Which nodes depend on some x: only those are differentiated.
  std::vector<bool> depends(g.num_nodes(), false);
  for (const NodeEntry& x : spec.xs) {
    if (!x.node || !g.contains(x.node.get()))
      Fail(StatusCode::kInvalidArgument, "Gradient: '", x.node ? x.node->attrs.name : "(null)",
           "' is not a node of the graph");
    depends[g.node_id(x.node.get())] = true;
  }
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    for (const auto& in : g[nid].inputs)
      if (depends[in.node_id]) depends[nid] = true;

  BackwardMarker marker;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) marker.Seen({NodeEntry{g[nid].node, 0, 0}});
  marker.Seen(spec.head_grads);

  std::vector<std::vector<NodeEntry>> grads(g.num_node_entries());
  for (size_t i = 0; i < forward.outputs.size(); ++i)
    grads[g.entry_id(forward.outputs[i])].push_back(spec.head_grads[i]);

  for (uint32_t nid = static_cast<uint32_t>(g.num_nodes()); nid-- > 0;) {
    const NodePtr& node = g[nid].node;
    if (node->is_variable() || !depends[nid]) continue;
    const uint32_t n_out = node->num_outputs();
    bool any = false;
    for (uint32_t o = 0; o < n_out; ++o) any = any || !grads[g.entry_id(nid, o)].empty();
    if (!any) continue;  // nothing flows back through this node
    const OpDef* op = node->op();
    if (!op->gradient)
      Fail(StatusCode::kNotImplemented, "Gradient: operator ", op->name, " (node '",
           node->attrs.name,
           "') has no gradient, but it lies on a path from a differentiated argument to the "
           "outputs");
    std::vector<NodeEntry> out_grads(n_out);
    for (uint32_t o = 0; o < n_out; ++o) {
      NodeEntry out{node, o, 0};
      std::vector<NodeEntry>& terms = grads[g.entry_id(nid, o)];
      out_grads[o] = terms.empty()
                         ? MakeOpEntry(reg, "zeros_like", EntryLabel(out) + "_zero_grad", {out})
                         : Aggregate(reg, terms, cap, EntryLabel(out));
      terms.assign(1, out_grads[o]);
    }
    marker.Attach(out_grads, node);
    std::vector<NodeEntry> in_grads = op->gradient(reg, node, out_grads);
    marker.Attach(in_grads, node);
    if (in_grads.size() != node->inputs.size())
      Fail(StatusCode::kInternal, "Gradient: operator ", op->name, " (node '", node->attrs.name,
           "') returned ", in_grads.size(), " input gradients for ", node->inputs.size(),
           " inputs");
    for (size_t i = 0; i < node->inputs.size(); ++i) {
      const auto& in = g[nid].inputs[i];
      if (depends[in.node_id]) grads[g.entry_id(in)].push_back(in_grads[i]);
    }
  }

  Graph result;
  result.outputs = forward.outputs;
  for (const NodeEntry& x : spec.xs) {
    std::vector<NodeEntry>& terms = grads[g.entry_id(x)];
    result.outputs.push_back(terms.empty()
                                 ? MakeOpEntry(reg, "zeros_like", EntryLabel(x) + "_zero_grad", {x})
                                 : Aggregate(reg, terms, cap, EntryLabel(x)));
    marker.Attach({result.outputs.back()}, x.node);
  }
  return result;
}

}  // namespace pass
}  // namespace weft
