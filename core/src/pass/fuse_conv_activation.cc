// pass::FuseConvActivation: Convolution [-> elemwise_add] [-> relu | clip]
// fused into one _fused_Convolution (oneDNN post-ops on CPU; MobileNet's ReLU6
// is clip(0, 6)).
#include <map>
#include <memory>
#include <string>

#include "pass/rewrite.h"
#include "weft/op.h"

namespace weft {
namespace pass {

namespace {

// The activation `n` applies, as _fused_Convolution's attributes (act_type,
// and a_min / a_max for clip), or none when it is not one the fusion takes.
std::map<std::string, std::string> ActivationOf(const Node& n) {
  if (IsRelu(n)) return {{"act_type", "relu"}};
  if (n.op()->name == "clip")
    return {{"act_type", "clip"},
            {"a_min", n.attrs.dict.at("a_min")},
            {"a_max", n.attrs.dict.at("a_max")}};
  return {};
}

// A _fused_Convolution computing `conv` (a Convolution or an unactivated
// fused one) followed by the activation `act` (ActivationOf; may be empty)
// and/or a sum with `sum`.
NodePtr Fuse(const OpRegistry& reg, const Node& conv, const std::map<std::string, std::string>& act,
             const NodeEntry* sum) {
  const OpDef& fused = reg.Get("_fused_Convolution");
  auto n = std::make_shared<Node>(conv);
  n->attrs.op = &fused;
  for (const auto& [key, value] : act) n->attrs.dict[key] = value;
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
        return std::vector<NodeEntry>{NodeEntry{Fuse(reg, *conv.node, {}, &inputs[1 - k]), 0, 0}};
      }
      return none;
    }
    const std::map<std::string, std::string> act = ActivationOf(*node);
    if (act.empty() || !single(node->inputs[0])) return none;
    const Node& prev = *inputs[0].node;
    const bool fusable =
        prev.op()->name == "Convolution" || (prev.op()->name == "_fused_Convolution" &&
                                             prev.attrs.params.GetString("act_type").empty());
    if (!fusable) return none;
    return std::vector<NodeEntry>{NodeEntry{Fuse(reg, prev, act, nullptr), 0, 0}};
  });
}

}  // namespace pass
}  // namespace weft
