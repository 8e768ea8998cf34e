// weft_symbol_place_device(_graph): the PlaceDevice pass over a symbol (or
// its training graph), returned as parallel string lists or as the placed
// graph with a "__device__" attribute on every node.
#include <map>
#include <memory>
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
    if (!names[i])
      Fail(StatusCode::kInvalidArgument, "argument '", names_arg, "[", i, "]' is NULL");
    if (map.count(names[i]))
      Fail(StatusCode::kInvalidArgument, "argument '", names_arg, "': '", names[i],
           "' is given twice");
    try {
      map[names[i]] = ContextArg(types[i], ids[i]);
    } catch (const Error& e) {
      Fail(e.code(), "'", names[i], "' (", types_arg, "[", i, "], ", ids_arg, "[", i,
           "]): ", e.what());
    }
  }
  return map;
}

namespace {

// The PlaceDevice pass over `s` (or its training graph: the gradient of
// every argument with MXNet's head gradients) for the C arguments.
pass::Placement PlaceSymbol(const Symbol& s, int train, int default_dev_type, int default_dev_id,
                            size_t num_groups, const char* const* group_names,
                            const int* group_dev_types, const int* group_dev_ids, size_t num_fixed,
                            const char* const* fixed_names, const int* fixed_dev_types,
                            const int* fixed_dev_ids) {
  pass::PlaceDeviceOptions options;
  try {
    options.default_ctx = ContextArg(default_dev_type, default_dev_id);
  } catch (const Error& e) {
    Fail(e.code(), "default device (default_dev_type, default_dev_id): ", e.what());
  }
  options.group2ctx = ContextMap(num_groups, group_names, group_dev_types, group_dev_ids, "group");
  options.fixed = ContextMap(num_fixed, fixed_names, fixed_dev_types, fixed_dev_ids, "fixed");
  const OpRegistry& reg = Runtime::Global().ops();
  const Graph forward{s.outputs};
  if (!train) return pass::PlaceDevice(reg, forward, options);
  IndexedGraph fidx(forward);
  pass::GradientSpec spec;
  for (uint32_t nid : fidx.argument_nodes()) spec.xs.push_back(NodeEntry{fidx[nid].node, 0, 0});
  spec.head_grads = pass::HeadGradients(reg, forward);
  const Graph graph = pass::Gradient(reg, forward, spec);
  return pass::PlaceTrainingGraph(reg, forward, graph, spec.head_grads, std::move(options));
}

// A deep copy of the placed graph whose every node carries its device in
// the "__device__" attribute (the placement shares nodes with the input
// symbol, which must not change).
Symbol DeviceAnnotated(const pass::Placement& p) {
  IndexedGraph g(p.graph);
  std::vector<NodePtr> fresh(g.num_nodes());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    auto n = std::make_shared<Node>();
    n->attrs = g.node(nid).attrs;
    n->attrs.dict["__device__"] = p.devices[nid].ToString();
    for (const auto& in : g[nid].inputs)
      n->inputs.push_back(NodeEntry{fresh[in.node_id], in.index, in.version});
    for (uint32_t c : g[nid].control_deps) n->control_deps.push_back(fresh[c]);
    fresh[nid] = std::move(n);
  }
  Symbol out;
  for (const auto& e : g.outputs())
    out.outputs.push_back(NodeEntry{fresh[e.node_id], e.index, e.version});
  return out;
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
  auto s = GetObject(sym, "sym");
  CheckNotNull(out_names, "out_names");
  CheckNotNull(out_ops, "out_ops");
  CheckNotNull(out_devices, "out_devices");
  CheckNotNull(out_num_copies, "out_num_copies");
  const pass::Placement p = PlaceSymbol(s->sym, train, default_dev_type, default_dev_id, num_groups,
                                        group_names, group_dev_types, group_dev_ids, num_fixed,
                                        fixed_names, fixed_dev_types, fixed_dev_ids);
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

WeftStatus weft_symbol_place_device_graph(const WeftSymbolHandle* sym, int train,
                                          int default_dev_type, int default_dev_id,
                                          size_t num_groups, const char* const* group_names,
                                          const int* group_dev_types, const int* group_dev_ids,
                                          size_t num_fixed, const char* const* fixed_names,
                                          const int* fixed_dev_types, const int* fixed_dev_ids,
                                          WeftSymbolHandle** out_placed, size_t* out_num_copies) {
  WEFT_API_BEGIN();
  using namespace weft::capi;  // NOLINT: the body is a thin adapter
  auto s = GetObject(sym, "sym");
  CheckNotNull(out_placed, "out_placed");
  CheckNotNull(out_num_copies, "out_num_copies");
  const weft::pass::Placement p = PlaceSymbol(
      s->sym, train, default_dev_type, default_dev_id, num_groups, group_names, group_dev_types,
      group_dev_ids, num_fixed, fixed_names, fixed_dev_types, fixed_dev_ids);
  *out_placed = NewSymbol(DeviceAnnotated(p));
  *out_num_copies = p.num_copies;
  WEFT_API_END();
}
