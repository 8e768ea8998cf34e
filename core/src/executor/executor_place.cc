// The executor's training graph and its device placement, shared by Init
// (the bound graph) and SimpleBind (where to allocate each array).
#include <map>
#include <string>
#include <vector>

#include "executor/executor_impl.h"

namespace weft {

Graph TrainingGraph(const OpRegistry& reg, const Graph& forward, const std::vector<GradReq>& reqs,
                    std::vector<size_t>* x_args, std::vector<NodeEntry>* heads, std::vector<bool>* head_is_var) {
  IndexedGraph fidx(forward);
  std::vector<NodeEntry> xs;
  x_args->clear();
  heads->clear();
  head_is_var->clear();
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i] == GradReq::kNull) continue;
    xs.push_back(NodeEntry{fidx[fidx.argument_nodes()[i]].node, 0, 0});
    x_args->push_back(i);
  }
  if (xs.empty()) return forward;
  *heads = pass::HeadGradients(reg, forward, head_is_var);
  return pass::Gradient(reg, forward, {xs, *heads});
}

pass::Placement PlaceTrainingGraph(const OpRegistry& reg, const Graph& forward, const Graph& train,
                                   const std::vector<NodeEntry>& heads, Context ctx,
                                   const std::map<std::string, Context>& group2ctx,
                                   const std::map<std::string, Context>& fixed) {
  pass::PlaceDeviceOptions o;
  o.default_ctx = ctx;
  o.group2ctx = group2ctx;
  o.fixed = fixed;
  // A head gradient variable lives on its output's device (Backward copies
  // the caller's head gradient there), as `weft place --train` shows it.
  bool head_vars = false;
  for (const auto& h : heads) head_vars = head_vars || h.node->is_variable();
  if (head_vars) {
    pass::Placement fwd = pass::PlaceDevice(reg, forward, o);
    IndexedGraph placed(fwd.graph), full(train);
    for (size_t i = 0; i < heads.size() && i < forward.outputs.size(); ++i) {
      if (!heads[i].node->is_variable()) continue;
      bool used = false;
      for (uint32_t nid : full.input_nodes()) used = used || &full.node(nid) == heads[i].node.get();
      if (used) o.fixed[heads[i].node->attrs.name] = fwd.devices[placed.outputs()[i].node_id];
    }
  }
  return pass::PlaceDevice(reg, train, o);
}

}  // namespace weft
