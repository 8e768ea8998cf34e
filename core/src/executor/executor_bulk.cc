// Bulk execution: grouping an executor's steps into engine operations.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "executor/executor_impl.h"
#include "weft/status.h"

namespace weft {

namespace {

constexpr int kDefaultBulkMaxNodes = 64;

bool Contains(const std::vector<VarHandle>& v, VarHandle x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

void AddUnique(std::vector<VarHandle>* v, VarHandle x) {
  if (!Contains(*v, x)) v->push_back(x);
}

// The push order: the constant steps that can go first (`hoisted`: none
// reads what a step staying in place writes), then the others as planned.
std::vector<size_t> PushOrder(const std::vector<PlanStep>& steps,
                              const std::vector<std::shared_ptr<const KernelCall>>& calls,
                              const std::vector<bool>* constant, std::vector<bool>* hoisted) {
  hoisted->assign(steps.size(), false);
  if (constant) {
    std::set<VarHandle> written_later;  // by steps that stay in place
    auto is_const = [&](size_t i) { return calls[i] && (*constant)[steps[i].nid]; };
    for (size_t i = 0; i < steps.size(); ++i)
      if (calls[i] && !is_const(i))
        written_later.insert(calls[i]->writes().begin(), calls[i]->writes().end());
    for (size_t i = 0; i < steps.size(); ++i) {  // a constant step after one that stays, stays
      if (!is_const(i)) continue;
      bool h = true;
      for (VarHandle r : calls[i]->reads()) h = h && !written_later.count(r);
      if (!h) written_later.insert(calls[i]->writes().begin(), calls[i]->writes().end());
      (*hoisted)[i] = h;
    }
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < steps.size(); ++i)
    if ((*hoisted)[i]) order.push_back(i);
  for (size_t i = 0; i < steps.size(); ++i)
    if (!(*hoisted)[i]) order.push_back(i);
  return order;
}

}  // namespace

int ResolveBulkMaxNodes(int option) {
  if (option >= 0) return option;
  const char* env = std::getenv("WEFT_EXEC_BULK_MAX_NODES");
  if (!env || !*env) return kDefaultBulkMaxNodes;
  char* end = nullptr;
  const long v = std::strtol(env, &end, 10);
  if (*end != '\0' || v < 0 || v > 1000000)
    Fail(StatusCode::kInvalidArgument, "WEFT_EXEC_BULK_MAX_NODES is '", env,
         "', expected a node count from 0 (no bulking) to 1000000");
  return static_cast<int>(v);
}

std::vector<std::shared_ptr<const Executor::Impl::Segment>> Executor::Impl::BulkSegments(
    const std::vector<PlanStep>& steps, const std::vector<std::shared_ptr<const KernelCall>>& calls,
    const IndexedGraph& g, const std::vector<bool>& visible, int max_nodes,
    const std::vector<bool>* constant, DeviceAPI* graphs) {
  std::vector<bool> hoisted;
  const std::vector<size_t> order = PushOrder(steps, calls, constant, &hoisted);
  std::vector<Segment> segs;
  std::vector<bool> seg_hoisted;  // per segment: it holds hoisted steps
  std::vector<VarHandle> reads;   // every variable the open segment's steps read
  // Finishes `seg`: its reads are what its steps read and none of them writes.
  auto Close = [](Segment* seg, std::vector<VarHandle>* all_reads) {
    for (VarHandle r : *all_reads)
      if (!Contains(seg->writes, r)) AddUnique(&seg->reads, r);
    all_reads->clear();
    if (seg->calls.size() > 1) seg->name += ".." + seg->calls.back()->name();
  };
  // owner: the segment that last wrote a variable (in this list); deps: the
  // segments each segment already waits for. A step joins the open segment
  // only when it depends on it and on nothing the segment does not already
  // wait for: joining must never make the segment's earlier steps wait for
  // more (an independent branch would otherwise be chained to its twin by
  // the node that joins them).
  std::map<VarHandle, int> owner;
  std::vector<std::set<int>> deps;
  auto owners_of = [&owner](const KernelCall& call) {
    std::set<int> o;
    for (const auto* vars : {&call.reads(), &call.writes()})
      for (VarHandle v : *vars) {
        auto it = owner.find(v);
        if (it != owner.end()) o.insert(it->second);
      }
    return o;
  };
  bool open = false, ends = false;
  for (size_t i : order) {
    const PlanStep& step = steps[i];
    const std::shared_ptr<const KernelCall>& call = calls[i];
    const bool copy = !call;
    const int cur = static_cast<int>(segs.size()) - 1;
    std::set<int> mine;
    if (!copy) mine = owners_of(*call);
    // Hoisted steps chain without a length limit (one operation; a later
    // step reading two of their segments would otherwise split its chain).
    const bool room = open && (static_cast<int>(segs.back().calls.size()) < max_nodes ||
                               (hoisted[i] && max_nodes > 1));
    bool join = open && !copy && !ends && step.ctx == segs.back().ctx && room &&
                (mine.count(cur) > 0 || (hoisted[i] && seg_hoisted.back()));
    for (int o : mine) join = join && (o == cur || deps[static_cast<size_t>(cur)].count(o) > 0);
    join = join && (!open || seg_hoisted.back() == hoisted[i]);
    if (!join) {
      if (open) Close(&segs.back(), &reads);
      segs.emplace_back();
      seg_hoisted.push_back(hoisted[i]);
      segs.back().ctx = step.ctx;
      segs.back().name = step.name;
      segs.back().constant = hoisted[i];
      deps.push_back(mine);
      open = true;
    }
    Segment& seg = segs.back();
    const int id = static_cast<int>(segs.size()) - 1;
    ends = copy;
    if (copy) {
      seg.copy_nid = step.nid;
    } else {
      seg.calls.push_back(call);
      for (VarHandle w : call->writes()) {
        AddUnique(&seg.writes, w);
        owner[w] = id;
      }
      for (VarHandle r : call->reads()) AddUnique(&reads, r);
    }
    const Node& node = g.node(step.nid);
    for (uint32_t o = 0; o < node.num_outputs(); ++o)
      ends = ends || visible[g.entry_id(step.nid, o)];
  }
  if (open) Close(&segs.back(), &reads);
  return Seal(std::move(segs), graphs);
}

std::vector<std::shared_ptr<const Executor::Impl::Segment>> Executor::Impl::Seal(
    std::vector<Segment> segs, DeviceAPI* graphs) {
  std::vector<std::shared_ptr<const Segment>> out;
  for (auto& seg : segs) {
    if (graphs && MayRecord(seg)) seg.graph = std::make_shared<SegmentGraph>(graphs, seg.ctx);
    out.push_back(std::make_shared<const Segment>(std::move(seg)));
  }
  return out;
}

bool Executor::Impl::MayRecord(const Segment& seg) {
  if (seg.ctx.dev_type != DeviceType::kGPU || seg.copy_nid >= 0 || seg.calls.empty() ||
      seg.constant)
    return false;
  for (const auto& call : seg.calls) {
    const NodeAttrs& a = call->attrs();
    if (!a.op || a.op->uses_rng || (a.op->mutate_inputs && !a.op->mutate_inputs(a.params).empty()))
      return false;
  }
  return true;
}

}  // namespace weft
