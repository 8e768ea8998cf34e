// PlanMemory: static storage assignment for every op output of a graph.
//
// Walks nodes in topological order with a reference count per entry. An
// output first tries to take over an input's storage (the op's in-place
// pairs, when this node is that input's last reader), then a free block of
// a matching size (within match_range), else a new block. Storage returns
// to its group's free list when the entry's last reader has run.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "weft/pass.h"
#include "weft/storage.h"
#include "weft/status.h"

namespace weft {
namespace pass {

namespace {

class Allocator {
 public:
  // Free lists are kept per key (colour group x device), so a block is
  // handed out again only within its key.
  Allocator(int match_range, int keys, std::vector<size_t>* bytes)
      : match_range_(match_range), free_(keys), bytes_(bytes) {}

  // A storage id of at least `size` bytes for `group`; `*reused` tells
  // whether it came from the free list.
  int Request(size_t size, int group, bool* reused) {
    auto& f = free_[group];
    const size_t range = static_cast<size_t>(match_range_);
    auto begin = f.lower_bound(size / range);
    auto mid = f.lower_bound(size);
    auto end = f.upper_bound(size * range);
    auto pick = f.end();
    if (mid != end) {
      pick = mid;  // the smallest block that is large enough
    } else if (mid != begin) {
      pick = std::prev(mid);  // the largest smaller block, grown
    }
    *reused = pick != f.end();
    if (*reused) {
      int id = pick->second;
      f.erase(pick);
      (*bytes_)[id] = std::max((*bytes_)[id], size);
      return id;
    }
    bytes_->push_back(size);
    group_.push_back(group);
    return static_cast<int>(bytes_->size() - 1);
  }
  // A block of its own for `group`, never handed out again.
  int Dedicated(size_t size, int group) {
    bytes_->push_back(size);
    group_.push_back(group);
    return static_cast<int>(bytes_->size() - 1);
  }
  void Release(int id) { free_[group_[id]].emplace((*bytes_)[id], id); }
  int group_of(int id) const { return group_[id]; }

 private:
  int match_range_;
  std::vector<std::multimap<size_t, int>> free_;
  std::vector<size_t>* bytes_;
  std::vector<int> group_;
};

// Colours op nodes [0, n) into k groups: the k-1 longest chains of
// uncoloured op nodes get colours 0..k-2, the rest colour k-1.
std::vector<int> ColourNodes(const IndexedGraph& g, uint32_t n, int k) {
  std::vector<int> colour(g.num_nodes(), 0);
  if (k <= 1) return colour;
  std::fill(colour.begin(), colour.begin() + n, -1);
  for (int c = 0; c + 1 < k; ++c) {
    std::vector<int> length(n, 0), prev(n, -1);
    int best = -1;
    for (uint32_t nid = 0; nid < n; ++nid) {
      if (g.node(nid).is_variable() || colour[nid] != -1) continue;
      length[nid] = 1;
      for (const auto& in : g[nid].inputs)
        if (in.node_id < n && colour[in.node_id] == -1 && !g.node(in.node_id).is_variable() &&
            length[in.node_id] + 1 > length[nid]) {
          length[nid] = length[in.node_id] + 1;
          prev[nid] = static_cast<int>(in.node_id);
        }
      if (best < 0 || length[nid] > length[best]) best = static_cast<int>(nid);
    }
    if (best < 0) break;
    for (int v = best; v >= 0; v = prev[v]) colour[v] = c;
  }
  for (uint32_t nid = 0; nid < n; ++nid)
    if (colour[nid] == -1) colour[nid] = g.node(nid).is_variable() ? 0 : k - 1;
  return colour;
}

size_t EntryBytes(const IndexedGraph& g, const ShapeResult& s, const TypeResult& t, uint32_t eid) {
  const Shape& shape = s.shapes[eid];
  if (!shape.ndim_known() || (shape.ndim() > 0 && !shape.is_known()))
    Fail(StatusCode::kShape, "PlanMemory: the shape of '", g.entry_name(eid), "' is not known (",
         shape.ToString(), ")");
  if (t.dtypes[eid] == DType::kUnknown)
    Fail(StatusCode::kDType, "PlanMemory: the dtype of '", g.entry_name(eid), "' is not known");
  size_t bytes = 0;
  try {
    bytes = ShapeBytes(shape, DTypeSize(t.dtypes[eid]));
  } catch (const Error& e) {
    Fail(e.code(), "PlanMemory: '", g.entry_name(eid), "': ", e.what());
  }
  // Every entry must fit one allocation, so the plan's sums cannot wrap.
  CheckAllocBytes(bytes, StrCat("'", g.entry_name(eid), "' of shape ", shape.ToString(), " ",
                                DTypeName(t.dtypes[eid])));
  return bytes;
}

MemoryPlan PlanWithRange(const IndexedGraph& g, const ShapeResult& s, const TypeResult& t,
                         const MemoryPlanOptions& opt, int match_range) {
  const size_t num_entries = g.num_node_entries();
  const uint32_t n = opt.plan_nodes == 0 ? static_cast<uint32_t>(g.num_nodes())
                                         : std::min<uint32_t>(opt.plan_nodes, g.num_nodes());
  MemoryPlan p;
  p.match_range = match_range;
  p.storage_id.assign(num_entries, MemoryPlan::kNone);
  p.alias.resize(num_entries);
  for (uint32_t e = 0; e < num_entries; ++e) p.alias[e] = e;
  p.inplace.assign(num_entries, false);
  p.unread.assign(num_entries, false);
  p.noop.assign(g.num_nodes(), false);
  p.group = ColourNodes(g, n, std::max(1, opt.num_groups));

  std::vector<int> refs(num_entries, 0);
  for (uint32_t nid = 0; nid < n; ++nid)
    for (const auto& in : g[nid].inputs) ++refs[g.entry_id(in)];
  for (const auto& out : g.outputs())
    if (out.node_id < n) ++refs[g.entry_id(out)];
  for (uint32_t nid = 0; nid < n; ++nid)
    if (g.node(nid).is_variable()) p.storage_id[g.entry_id(nid, 0)] = MemoryPlan::kExternal;
  for (uint32_t e = 0; e < opt.external.size() && e < num_entries; ++e)
    if (opt.external[e]) p.storage_id[e] = MemoryPlan::kExternal;

  // assign(lhs, rhs): the output lives in lhs; a temporary rhs read only by
  // the assign is computed into lhs directly and the assign does nothing.
  std::vector<int64_t> into_lhs(num_entries, -1);
  for (uint32_t nid = 0; nid < n; ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable() || node.op()->name != "assign") continue;
    const auto& lhs = g[nid].inputs[0];
    const auto& rhs = g[nid].inputs[1];
    if (!g.node(lhs.node_id).is_variable())
      Fail(StatusCode::kInvalidArgument, "PlanMemory: assign node '", node.attrs.name,
           "' must write a variable, but its lhs is '", g.entry_name(g.entry_id(lhs)), "'");
    const uint32_t lhs_e = g.entry_id(lhs), rhs_e = g.entry_id(rhs), out_e = g.entry_id(nid, 0);
    p.storage_id[out_e] = MemoryPlan::kExternal;
    p.alias[out_e] = p.alias[lhs_e];
    if (!g.node(rhs.node_id).is_variable() && refs[rhs_e] == 1 &&
        p.storage_id[rhs_e] == MemoryPlan::kNone && s.shapes[rhs_e] == s.shapes[lhs_e] &&
        t.dtypes[rhs_e] == t.dtypes[lhs_e]) {
      into_lhs[rhs_e] = lhs_e;
      p.noop[nid] = true;
    }
  }

  // The allocator's key: colour group x device.
  const int groups = std::max(1, opt.num_groups);
  int num_devices = 1;
  if (!opt.node_device.empty()) {
    if (opt.node_device.size() != g.num_nodes())
      Fail(StatusCode::kInvalidArgument, "PlanMemory: node_device has ", opt.node_device.size(),
           " entries for ", g.num_nodes(), " nodes");
    for (int d : opt.node_device) {
      if (d < 0)
        Fail(StatusCode::kInvalidArgument, "PlanMemory: node_device holds ", d, ", expected >= 0");
      num_devices = std::max(num_devices, d + 1);
    }
  }
  auto device_of = [&](uint32_t nid) { return opt.node_device.empty() ? 0 : opt.node_device[nid]; };
  auto key_of = [&](uint32_t nid) { return p.group[nid] * num_devices + device_of(nid); };
  auto dedicated = [&](uint32_t e) { return e < opt.dedicated.size() && opt.dedicated[e]; };
  Allocator alloc(match_range, groups * num_devices, &p.storage_bytes);
  for (uint32_t nid = 0; nid < n; ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable()) continue;
    const auto& inputs = g[nid].inputs;
    std::vector<bool> taken(inputs.size(), false);
    std::vector<std::pair<int, int>> pairs;
    if (node.op()->inplace) pairs = node.op()->inplace(node.attrs.params);
    for (uint32_t o = 0; o < node.num_outputs(); ++o) {
      const uint32_t e = g.entry_id(nid, o);
      if (p.storage_id[e] == MemoryPlan::kExternal) continue;
      if (into_lhs[e] >= 0) {
        p.storage_id[e] = MemoryPlan::kExternal;
        p.alias[e] = p.alias[into_lhs[e]];
        continue;
      }
      const size_t size = EntryBytes(g, s, t, e);
      p.naive_bytes += size;
      if (dedicated(e)) {
        p.storage_id[e] = alloc.Dedicated(size, key_of(nid));
        continue;
      }
      for (const auto& pr : pairs) {
        if (pr.second != static_cast<int>(o) || pr.first < 0 ||
            pr.first >= static_cast<int>(inputs.size()))
          continue;
        const uint32_t ie = g.entry_id(inputs[pr.first]);
        const int sid = p.storage_id[ie];
        const auto readers =
            std::count_if(inputs.begin(), inputs.end(),
                          [&](const IndexedGraph::EntryRef& r) { return g.entry_id(r) == ie; });
        if (sid >= 0 && !dedicated(ie) && !taken[pr.first] && refs[ie] == 1 && readers == 1 &&
            t.dtypes[ie] == t.dtypes[e] && EntryBytes(g, s, t, ie) == size &&
            alloc.group_of(sid) == key_of(nid)) {
          p.storage_id[e] = sid;
          p.inplace[e] = true;
          taken[pr.first] = true;
          ++p.num_inplace;
          break;
        }
      }
      if (!p.inplace[e]) {
        bool reused = false;
        p.storage_id[e] = alloc.Request(size, key_of(nid), &reused);
        if (reused) ++p.num_reused;
      }
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      const uint32_t ie = g.entry_id(inputs[i]);
      if (--refs[ie] == 0 && p.storage_id[ie] >= 0 && !dedicated(ie)) {
        bool handed_over = false;
        for (size_t j = 0; j < inputs.size(); ++j)
          handed_over = handed_over || (taken[j] && g.entry_id(inputs[j]) == ie);
        if (!handed_over) alloc.Release(p.storage_id[ie]);
      }
    }
    for (uint32_t o = 0; o < node.num_outputs(); ++o) {
      const uint32_t e = g.entry_id(nid, o);
      if (refs[e] == 0 && p.storage_id[e] >= 0) {
        p.unread[e] = true;
        if (!dedicated(e)) alloc.Release(p.storage_id[e]);
      }
    }
  }
  for (size_t b : p.storage_bytes) p.planned_bytes += b;
  p.storage_device.resize(p.storage_bytes.size());
  for (size_t id = 0; id < p.storage_bytes.size(); ++id)
    p.storage_device[id] = alloc.group_of(static_cast<int>(id)) % num_devices;
  return p;
}

}  // namespace

MemoryPlan PlanMemory(const IndexedGraph& g, const ShapeResult& shapes, const TypeResult& types,
                      const MemoryPlanOptions& options) {
  if (options.match_range < 0)
    Fail(StatusCode::kInvalidArgument, "PlanMemory: match_range must be >= 0 (0 = search), given ",
         options.match_range);
  if (options.num_groups < 1)
    Fail(StatusCode::kInvalidArgument, "PlanMemory: num_groups must be >= 1, given ",
         options.num_groups);
  if (options.match_range > 0) return PlanWithRange(g, shapes, types, options, options.match_range);
  MemoryPlan best;
  for (int range = 1; range <= 16; range *= 2) {
    MemoryPlan p = PlanWithRange(g, shapes, types, options, range);
    if (range == 1 || p.planned_bytes < best.planned_bytes) best = std::move(p);
  }
  return best;
}

}  // namespace pass
}  // namespace weft
