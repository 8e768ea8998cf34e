// Executor::BorrowArgument: the kernels of a bound executor read an
// argument from a caller's buffer instead of its array (the predictor's
// input without a copy).
#include "base/address_range.h"
#include "executor/executor_impl.h"
#include "weft/status.h"

namespace weft {

namespace {

bool Overlaps(const NDArray& a, const char* from, size_t bytes) {
  return !a.is_none() && RangesOverlap(a.dptr(), a.Bytes(), from, bytes);
}

}  // namespace

std::vector<bool> Executor::Impl::LendableArguments(const Executor& ex) const {
  const ExecutorPlan::Impl& p = *plan;
  const IndexedGraph& g = *p.idx;
  std::vector<bool> lendable(ex.args_.size(), false);
  for (size_t i = 0; i < ex.args_.size(); ++i) {
    const NDArray& a = ex.args_[i];
    const char* own = static_cast<const char*>(a.dptr());
    const size_t bytes = a.Bytes();
    if (a.ctx().dev_type != DeviceType::kCPU || bytes == 0) continue;
    bool ok = true;
    for (const auto* arrays : {&ex.outputs_, &ex.grads_, &ex.aux_})
      for (const NDArray& o : *arrays) ok = ok && !Overlaps(o, own, bytes);
    for (const auto* calls : {&forward_calls, &backward_calls})
      for (const auto& call : *calls) ok = ok && !(call && call->WritesWithin(own, bytes));
    for (const auto* steps : {&p.forward_steps, &p.backward_steps})
      for (const PlanStep& step : *steps)
        if (!step.kernel)  // a cross-device copy reads the bound arrays
          for (const auto& e : g[step.nid].inputs)
            ok = ok && !Overlaps(entries[g.entry_id(e)], own, bytes);
    lendable[i] = ok;
  }
  return lendable;
}

bool Executor::BorrowArgument(size_t index, const void* data) {
  Impl& m = *impl_;
  MutexLock lock(&m.call_mu);
  if (index >= args_.size())
    Fail(StatusCode::kInvalidArgument, "BorrowArgument: argument ", index, " of ", args_.size());
  const NDArray& a = args_[index];
  char* own = static_cast<char*>(a.dptr());
  auto it = m.borrowed.find(index);
  char* current = it == m.borrowed.end() ? own : it->second;
  char* target = data ? static_cast<char*>(const_cast<void*>(data)) : own;
  if (target == current) return true;
  if (data && (!m.lendable[index] || m.monitor)) return false;  // a monitor copies bound entries
  for (const auto* calls : {&m.forward_calls, &m.backward_calls})
    for (const auto& call : *calls)
      if (call) call->RepointInputs(current, a.Bytes(), target);
  for (const auto& seg : m.forward_segments)  // recordings hold the old addresses
    if (seg->graph) seg->graph->Invalidate();
  if (data)
    m.borrowed[index] = target;
  else
    m.borrowed.erase(index);
  return true;
}

}  // namespace weft
