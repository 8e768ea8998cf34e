// The executor's monitor (MXNet's monitor callback): every node pushed on
// its own, its outputs (and with monitor_all its inputs) copied by the
// engine right after (before) it runs and handed to the callback.
#include "executor/executor_impl.h"
#include "weft/status.h"

namespace weft {

void Executor::SetMonitorCallback(MonitorCallback callback, bool monitor_all) {
  Impl& m = *impl_;
  MutexLock lock(&m.call_mu);
  if (callback && m.monitor_forward.empty()) {
    const ExecutorPlan::Impl& p = *m.plan;
    const std::vector<bool> none(p.idx->num_node_entries(), false);
    m.monitor_forward = Impl::BulkSegments(p.forward_steps, m.forward_calls, *p.idx, none, 1);
    m.monitor_backward = Impl::BulkSegments(p.backward_steps, m.backward_calls, *p.idx, none, 1);
  }
  m.monitor = std::move(callback);
  m.monitor_all = monitor_all;
}

void Executor::Impl::PushMonitored(const std::vector<PlanStep>& steps,
                                   const std::vector<std::shared_ptr<const Segment>>& segs,
                                   bool is_train) {
  WEFT_CHECK(steps.size() == segs.size())
      << "monitor: " << segs.size() << " segments for " << steps.size() << " steps";
  const IndexedGraph& g = *plan->idx;
  const Executor::MonitorCallback callback = monitor;  // a copy: the lambda runs unannotated
  const bool inputs_too = monitor_all;
  auto report = [&](uint32_t entry) {
    const NDArray& src = entries[entry];
    if (src.is_none()) return;
    NDArray copy(src.shape(), src.ctx(), src.dtype(), rt);
    src.CopyTo(&copy);
    callback(g.entry_name(entry), copy);
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    const uint32_t nid = steps[i].nid;
    if (inputs_too)
      for (const auto& in : g[nid].inputs) report(g.entry_id(in));
    Push(segs[i], is_train);
    for (uint32_t o = 0; o < g.node(nid).num_outputs(); ++o) report(g.entry_id(nid, o));
  }
}

}  // namespace weft
