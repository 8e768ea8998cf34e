// The executor's training graph and its device placement (device groups,
// CPU fallback), shared by Init (the bound graph) and SimpleBind (where to
// allocate each array).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "executor/executor_impl.h"

namespace weft {

Graph TrainingGraph(const OpRegistry& reg, const Graph& forward, const std::vector<GradReq>& reqs,
                    std::vector<size_t>* x_args, std::vector<NodeEntry>* heads,
                    std::vector<bool>* head_is_var) {
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
                                   const std::map<std::string, Context>& fixed,
                                   const KernelRegistry* kernels) {
  pass::PlaceDeviceOptions o;
  o.default_ctx = ctx;
  o.group2ctx = group2ctx;
  o.fixed = fixed;
  if (kernels)
    o.has_kernel = [kernels](const OpDef& op, const Context& c) {
      return kernels->Find(op.name, c.dev_type) != nullptr;
    };
  return pass::PlaceTrainingGraph(reg, forward, train, heads, std::move(o));
}

bool NeedsFallback(const KernelRegistry& kernels, const Graph& g, Context ctx) {
  if (ctx.dev_type == DeviceType::kCPU) return false;
  const IndexedGraph idx(g);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const Node& node = idx.node(nid);
    if (node.is_variable()) continue;
    const std::string& op = node.op()->name;
    if (!kernels.Find(op, ctx.dev_type) && kernels.Find(op, DeviceType::kCPU)) return true;
  }
  return false;
}

}  // namespace weft
