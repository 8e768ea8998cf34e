// weft_symbol_place_device: the PlaceDevice pass over a symbol (or its
// training graph), returned as parallel string lists.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "c_api_symbol_internal.h"
#include "weft/graph.h"
#include "weft/pass.h"
#include "weft/runtime.h"

namespace weft {
namespace capi {

std::map<std::string, Context> ContextMap(size_t num, const char* const* names, const int* types,
                                          const int* ids, const std::string& prefix) {
  const std::string names_arg = prefix + "_names", types_arg = prefix + "_dev_types",
                    ids_arg = prefix + "_dev_ids";
  CheckArray(names, num, names_arg.c_str());
  CheckArray(types, num, types_arg.c_str());
  CheckArray(ids, num, ids_arg.c_str());
  std::map<std::string, Context> map;
  for (size_t i = 0; i < num; ++i) {
    if (!names[i]) Fail(StatusCode::kInvalidArgument, "argument '", names_arg, "[", i, "]' is NULL");
    if (map.count(names[i]))
      Fail(StatusCode::kInvalidArgument, "argument '", names_arg, "': '", names[i], "' is given twice");
    try {
      map[names[i]] = ContextArg(types[i], ids[i]);
    } catch (const Error& e) {
      Fail(e.code(), "'", names[i], "' (", types_arg, "[", i, "], ", ids_arg, "[", i, "]): ", e.what());
    }
  }
  return map;
}

namespace {

// The training graph: gradients of every argument, MXNet's head gradients.
Graph TrainingGraph(const OpRegistry& reg, const Graph& forward) {
  IndexedGraph g(forward);
  pass::GradientSpec spec;
  for (uint32_t nid : g.argument_nodes()) spec.xs.push_back(NodeEntry{g[nid].node, 0, 0});
  spec.head_grads = pass::HeadGradients(reg, forward);
  return pass::Gradient(reg, forward, spec);
}

// Fixes each head-gradient variable "_head_grad_<i>" (not fixed already) on
// the device of forward output i, as an executor allocates it there.
void PlaceHeadGradients(const OpRegistry& reg, const Graph& forward, const Graph& full,
                        pass::PlaceDeviceOptions* options) {
  IndexedGraph placed_in(forward), g(full);
  pass::PlaceDeviceOptions fwd_options = *options;
  fwd_options.fixed.clear();  // only the forward graph's variables
  for (uint32_t nid : placed_in.input_nodes()) {
    auto it = options->fixed.find(placed_in.node(nid).attrs.name);
    if (it != options->fixed.end()) fwd_options.fixed.insert(*it);
  }
  pass::Placement fwd = pass::PlaceDevice(reg, forward, fwd_options);
  IndexedGraph placed(fwd.graph);
  for (size_t i = 0; i < forward.outputs.size(); ++i) {
    const std::string name = "_head_grad_" + std::to_string(i);
    bool present = false;
    for (uint32_t nid : g.input_nodes()) present = present || g.node(nid).attrs.name == name;
    if (present && !options->fixed.count(name))
      options->fixed[name] = fwd.devices[placed.outputs()[i].node_id];
  }
}

}  // namespace
}  // namespace capi
}  // namespace weft

WeftStatus weft_symbol_place_device(const WeftSymbolHandle* sym, int train, int default_dev_type,
                                    int default_dev_id, size_t num_groups,
                                    const char* const* group_names, const int* group_dev_types,
                                    const int* group_dev_ids, size_t num_fixed,
                                    const char* const* fixed_names, const int* fixed_dev_types,
                                    const int* fixed_dev_ids, WeftStringList** out_names,
                                    WeftStringList** out_ops, WeftStringList** out_devices,
                                    size_t* out_num_copies) {
  WEFT_API_BEGIN();
  using namespace weft;  // NOLINT: the body is a thin adapter
  using namespace weft::capi;
  auto s = Get(sym, "sym");
  CheckNotNull(out_names, "out_names");
  CheckNotNull(out_ops, "out_ops");
  CheckNotNull(out_devices, "out_devices");
  CheckNotNull(out_num_copies, "out_num_copies");
  pass::PlaceDeviceOptions options;
  try {
    options.default_ctx = ContextArg(default_dev_type, default_dev_id);
  } catch (const Error& e) {
    Fail(e.code(), "default device (default_dev_type, default_dev_id): ", e.what());
  }
  options.group2ctx = ContextMap(num_groups, group_names, group_dev_types, group_dev_ids, "group");
  options.fixed = ContextMap(num_fixed, fixed_names, fixed_dev_types, fixed_dev_ids, "fixed");
  const OpRegistry& reg = Runtime::Global().ops();
  const Graph forward{s->sym.outputs};
  Graph graph = forward;
  if (train) {
    graph = TrainingGraph(reg, forward);
    PlaceHeadGradients(reg, forward, graph, &options);
  }
  pass::Placement p = pass::PlaceDevice(reg, graph, options);
  IndexedGraph g(p.graph);
  std::vector<std::string> names, ops, devices;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    names.push_back(n.attrs.name);
    ops.push_back(n.is_variable() ? "null" : n.op()->name);
    devices.push_back(p.devices[nid].ToString());
  }
  WeftStringList* lists[3] = {nullptr, nullptr, nullptr};
  try {
    lists[0] = NewStringList(std::move(names));
    lists[1] = NewStringList(std::move(ops));
    lists[2] = NewStringList(std::move(devices));
  } catch (...) {
    for (WeftStringList* l : lists) weft_string_list_free(l);
    throw;
  }
  *out_names = lists[0];
  *out_ops = lists[1];
  *out_devices = lists[2];
  *out_num_copies = p.num_copies;
  WEFT_API_END();
}
