// PlaceDevice: assigns every node a device from group attributes, bound
// variables and its neighbours, then rewrites the graph so that each edge
// between two devices goes through a shared _CrossDeviceCopy node.
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "weft/graph.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {
namespace pass {

namespace {

constexpr const char* kCopyOp = "_CrossDeviceCopy";

bool IsCopy(const Node& n) { return n.op() && n.op()->name == kCopyOp; }

std::string GroupList(const std::map<std::string, Context>& group2ctx) {
  if (group2ctx.empty()) return "group2ctx is empty";
  std::ostringstream os;
  os << "group2ctx has";
  for (const auto& kv : group2ctx) os << " " << kv.first << "=" << kv.second.ToString();
  return os.str();
}

// The device of every node of `g` (see PlaceDevice in pass.h).
std::vector<Context> AssignDevices(const IndexedGraph& g, const PlaceDeviceOptions& o) {
  const uint32_t n = static_cast<uint32_t>(g.num_nodes());
  std::vector<std::optional<Context>> dev(n);
  std::set<std::string> bound;
  for (uint32_t nid : g.input_nodes()) {
    auto it = o.fixed.find(g.node(nid).attrs.name);
    if (it == o.fixed.end()) continue;
    dev[nid] = it->second;
    bound.insert(it->first);
  }
  for (const auto& kv : o.fixed)
    if (!bound.count(kv.first))
      Fail(StatusCode::kInvalidArgument, "PlaceDevice: a device is fixed for '", kv.first,
           "', which is no variable of the graph");
  for (uint32_t nid = 0; nid < n; ++nid) {
    const std::string* group = DeviceGroupOf(g.node(nid));
    if (dev[nid] || !group) continue;
    auto it = o.group2ctx.find(*group);
    if (it == o.group2ctx.end())
      Fail(StatusCode::kDevice, "PlaceDevice: node '", g.node(nid).attrs.name,
           "' is in device group '", *group, "', which group2ctx does not map (",
           GroupList(o.group2ctx), ")");
    dev[nid] = it->second;
  }
  // The forward node a backward node differentiates (Gradient's control_deps[0]).
  auto forward_of = [&](uint32_t nid) -> std::optional<uint32_t> {
    if (g.node(nid).is_variable() || g[nid].control_deps.empty()) return std::nullopt;
    return g[nid].control_deps[0];
  };
  // Backward nodes follow their forward node, others their first placed input.
  auto from_neighbours = [&](uint32_t nid) -> std::optional<Context> {
    if (auto f = forward_of(nid)) return dev[*f];
    if (IsCopy(g.node(nid))) return std::nullopt;
    for (const auto& in : g[nid].inputs)
      if (dev[in.node_id]) return dev[in.node_id];
    return std::nullopt;
  };
  for (uint32_t nid = 0; nid < n; ++nid)
    if (!dev[nid]) dev[nid] = from_neighbours(nid);
  for (uint32_t nid = n; nid-- > 0;) {
    if (!dev[nid] || IsCopy(g.node(nid))) continue;
    for (const auto& in : g[nid].inputs)
      if (!dev[in.node_id] && !forward_of(in.node_id)) dev[in.node_id] = dev[nid];
  }
  std::vector<Context> result(n);
  for (uint32_t nid = 0; nid < n; ++nid) {
    if (!dev[nid]) dev[nid] = from_neighbours(nid);
    result[nid] = dev[nid] ? *dev[nid] : o.default_ctx;
    dev[nid] = result[nid];
  }
  return result;
}

// Moves op nodes without a kernel on their device to o.fallback_ctx when it
// has one; returns their names.
std::vector<std::string> ApplyFallback(const IndexedGraph& g, const PlaceDeviceOptions& o,
                                       std::vector<Context>* dev) {
  std::vector<std::string> moved;
  if (!o.has_kernel) return moved;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable() || IsCopy(node) || (*dev)[nid] == o.fallback_ctx) continue;
    if (o.has_kernel(*node.op(), (*dev)[nid]) || !o.has_kernel(*node.op(), o.fallback_ctx))
      continue;
    (*dev)[nid] = o.fallback_ctx;
    moved.push_back(node.attrs.name);
  }
  return moved;
}

// An op writing an input cannot reach it through a copy.
void CheckMutatedInputs(const IndexedGraph& g, const std::vector<Context>& dev) {
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable() || !node.op()->mutate_inputs) continue;
    for (int i : node.op()->mutate_inputs(node.attrs.params)) {
      const auto& in = g[nid].inputs.at(static_cast<size_t>(i));
      if (dev[in.node_id] == dev[nid]) continue;
      Fail(StatusCode::kDevice, "PlaceDevice: node '", node.attrs.name, "' (", node.op()->name,
           ") writes its input '", node.op()->InputNames(node.attrs.params).at(i), "' ('",
           g.entry_name(g.entry_id(in)), "') placed on ", dev[in.node_id].ToString(),
           ", but the node is placed on ", dev[nid].ToString(),
           "; a mutable state cannot cross devices");
    }
  }
}

}  // namespace

const std::string* DeviceGroupOf(const Node& n) {
  for (const char* key : {"__ctx_group__", "ctx_group"}) {
    auto it = n.attrs.dict.find(key);
    if (it != n.attrs.dict.end()) return &it->second;
  }
  return nullptr;
}

Placement PlaceDevice(const OpRegistry& reg, const Graph& graph,
                      const PlaceDeviceOptions& options) {
  IndexedGraph g(graph);
  std::vector<Context> dev = AssignDevices(g, options);
  Placement out;
  out.fallback_nodes = ApplyFallback(g, options, &dev);
  CheckMutatedInputs(g, dev);
  bool single = true;
  for (const Context& c : dev) single = single && c == dev[0];
  if (single) {
    out.graph = graph;
    out.devices = dev;
    return out;
  }

  // Persistent rewrite: remap[nid] is the rebuilt node, or null when the old
  // node is kept as it is.
  std::vector<NodePtr> remap(g.num_nodes());
  std::map<std::tuple<uint32_t, uint32_t, Context>, NodePtr> copies;
  std::unordered_map<const Node*, Context> where;
  auto current = [&](const IndexedGraph::EntryRef& e, const NodeEntry& old) {
    return remap[e.node_id] ? NodeEntry{remap[e.node_id], e.index, e.version} : old;
  };
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const auto& inode = g[nid];
    const Node& node = *inode.node;
    const bool boundary = IsCopy(node);  // an existing copy reads any device
    bool changed = false;
    for (const auto& e : inode.inputs)
      changed = changed || remap[e.node_id] || (!boundary && dev[e.node_id] != dev[nid]);
    for (uint32_t c : inode.control_deps) changed = changed || remap[c];
    if (!changed) {
      where[&node] = dev[nid];
      continue;
    }
    auto fresh = std::make_shared<Node>();
    fresh->attrs = node.attrs;
    for (size_t i = 0; i < inode.inputs.size(); ++i) {
      const auto& e = inode.inputs[i];
      NodeEntry src = current(e, node.inputs[i]);
      if (!boundary && dev[e.node_id] != dev[nid]) {
        NodePtr& copy = copies[std::make_tuple(e.node_id, e.index, dev[nid])];
        if (!copy) {
          copy = MakeOpNode(
              reg, kCopyOp,
              node.inputs[i].node->attrs.name + "_" + std::to_string(e.index) + "_copy", {src});
          where[copy.get()] = dev[nid];
          ++out.num_copies;
        }
        src = NodeEntry{copy, 0, 0};
      }
      fresh->inputs.push_back(std::move(src));
    }
    for (size_t i = 0; i < inode.control_deps.size(); ++i) {
      const uint32_t c = inode.control_deps[i];
      fresh->control_deps.push_back(remap[c] ? remap[c] : node.control_deps[i]);
    }
    where[fresh.get()] = dev[nid];
    remap[nid] = std::move(fresh);
  }
  for (size_t i = 0; i < graph.outputs.size(); ++i)
    out.graph.outputs.push_back(current(g.outputs()[i], graph.outputs[i]));
  IndexedGraph placed(out.graph);
  out.devices.reserve(placed.num_nodes());
  for (uint32_t nid = 0; nid < placed.num_nodes(); ++nid)
    out.devices.push_back(where.at(&placed.node(nid)));
  return out;
}

}  // namespace pass
}  // namespace weft
