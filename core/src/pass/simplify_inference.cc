// pass::SimplifyInference: Dropout (mode "training") and identity-like ops
// removed for inference, their readers reading the input instead; a scalar
// division or product before a softmax folded into its temperature.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

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

// The factor a softmax's temperature is multiplied by to absorb `scale`
// (an entry of _div_scalar or _mul_scalar read by that softmax alone), or 0
// when it cannot: a positive finite scalar keeps the line's order, so the
// kernel's max subtraction stays what it was.
double TemperatureFactor(const Node& scale) {
  const std::string& op = scale.op()->name;
  if (op != "_div_scalar" && op != "_mul_scalar") return 0;
  const double c = scale.attrs.params.GetFloat("scalar");
  if (!std::isfinite(c) || c <= 0) return 0;
  return op == "_div_scalar" ? c : 1 / c;
}

// softmax(x / c) as softmax(x) with temperature t * c (log_softmax alike).
NodePtr FoldedSoftmax(const Node& softmax, std::vector<NodeEntry> inputs, const NodeEntry& x,
                      double factor) {
  auto n = std::make_shared<Node>(softmax);
  n->inputs = std::move(inputs);
  n->inputs[0] = x;
  const ParamValues& p = softmax.attrs.params;
  const double t = p.Has("temperature") && !p.IsNone("temperature") ? p.GetFloat("temperature") : 1;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", t * factor);
  n->attrs.dict["temperature"] = buf;
  n->attrs.params = ParseParams(softmax.op()->name, &softmax.op()->params, n->attrs.dict);
  return n;
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
    const std::string& op = node->op()->name;
    if ((op == "softmax" || op == "log_softmax") && !inputs.empty()) {
      const NodeEntry& old = node->inputs[0];
      if (old.node->is_variable() || readers[g.entry_id(old)] != 1) return none;
      const Node& scale = *inputs[0].node;
      const double factor = TemperatureFactor(scale);
      if (factor == 0) return none;
      return std::vector<NodeEntry>{
          NodeEntry{FoldedSoftmax(*node, inputs, scale.inputs[0], factor), 0, 0}};
    }
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
