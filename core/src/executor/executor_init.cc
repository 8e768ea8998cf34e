// Executor::Init: an executor's own state bound to a compiled plan
// (executor_plan.cc compiles it), in named steps:
//   Allocate   the planned blocks and the array of every entry: bound
//              arguments, aux states and gradient arrays, head gradients,
//              planned blocks and aliases; content counters of constant
//              steps; staging arrays of cross-device gradient adds
//   BindCalls  one kernel call per step, bound to the entries
//   segments   the calls grouped into engine operations (executor_bulk.cc)
//   lendable   which arguments a caller's buffer may stand in for
//              (executor_borrow.cc)
#include <algorithm>

#include "executor/executor_impl.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

void Executor::Init(Runtime* rt, std::shared_ptr<const ExecutorPlan> plan) {
  Impl& m = *impl_;
  WEFT_CHECK(rt && plan) << "bind: no runtime or plan given";
  m.rt = rt;
  m.plan_ptr = std::move(plan);
  m.plan = &m.plan_ptr->impl();
  const ExecutorPlan::Impl& p = *m.plan;
  out_names_ = p.out_names;
  m.Allocate(*this);
  m.forward_calls = m.BindCalls(p.forward_steps);
  m.backward_calls = m.BindCalls(p.backward_steps);
  const IndexedGraph& g = *p.idx;
  outputs_.clear();
  for (size_t i = 0; i < p.n_out; ++i) outputs_.push_back(m.entries[g.entry_id(g.outputs()[i])]);
  // Bulk execution: the forward outputs and the gradient arrays are what a
  // caller reads, so segments end where they are produced.
  std::vector<bool> visible(g.num_node_entries(), false);
  for (const auto& o : g.outputs()) visible[g.entry_id(o)] = true;
  DeviceAPI* graphs = nullptr;  // recorded GPU segments (WEFT_CUDA_GRAPHS)
  if (ResolveCudaGraphs())
    for (const PlanStep& step : p.forward_steps)
      if (step.ctx.dev_type == DeviceType::kGPU) graphs = m.rt->device_api(DeviceType::kGPU);
  m.forward_segments = Impl::BulkSegments(p.forward_steps, m.forward_calls, g, visible,
                                          p.bulk_max_nodes, &p.constant, graphs);
  m.backward_segments =
      Impl::BulkSegments(p.backward_steps, m.backward_calls, g, visible, p.bulk_max_nodes);
  m.lendable = m.LendableArguments(*this);
}

void Executor::Impl::Allocate(const Executor& ex) {
  const ExecutorPlan::Impl& p = *plan;
  const IndexedGraph& g = *p.idx;
  const size_t n_entries = g.num_node_entries();
  content.assign(n_entries, nullptr);
  for (size_t e = 0; e < n_entries; ++e)
    if (p.versioned[e]) content[e] = std::make_shared<std::atomic<uint64_t>>(0);
  storage.clear();
  for (size_t sid = 0; sid < p.mem.storage_bytes.size(); ++sid)
    storage.emplace_back(Shape{static_cast<int64_t>(std::max<size_t>(p.mem.storage_bytes[sid], 1))},
                         p.device_list.at(static_cast<size_t>(p.mem.storage_device[sid])),
                         DType::kUint8, rt);
  entries.assign(n_entries, NDArray());
  auto bind_var = [&](int64_t nid, const NDArray& a) {
    if (nid >= 0) entries[g.entry_id(static_cast<uint32_t>(nid), 0)] = a;
  };
  for (size_t i = 0; i < ex.args_.size(); ++i) bind_var(p.arg_nid[i], ex.args_[i]);
  for (size_t i = 0; i < ex.aux_.size(); ++i) bind_var(p.aux_nid[i], ex.aux_[i]);
  for (int64_t hnid : p.head_grad_nid)
    if (hnid >= 0) {
      const uint32_t nid = static_cast<uint32_t>(hnid);
      const uint32_t e = g.entry_id(nid, 0);
      entries[e] = NDArray(p.shapes.shapes[e], p.devices[nid], p.types.dtypes[e], rt);
    }
  for (uint32_t e = 0; e < n_entries; ++e) {
    if (p.direct_arg[e] >= 0) entries[e] = ex.grads_[static_cast<size_t>(p.direct_arg[e])];
    const int sid = p.mem.storage_id[e];
    if (sid >= 0) entries[e] = storage[sid].AsType(p.shapes.shapes[e], p.types.dtypes[e]);
  }
  for (uint32_t e = 0; e < n_entries; ++e)
    if (p.mem.storage_id[e] == pass::MemoryPlan::kExternal && p.mem.alias[e] != e)
      entries[e] = entries[p.mem.alias[e]];
  grad_staging.clear();
  for (const auto& c : p.grad_copies) {
    const NDArray& src = entries[c.entry];
    const NDArray& dst = ex.grads_[c.arg];
    const bool cross = ex.reqs_[c.arg] == GradReq::kAdd && src.ctx() != dst.ctx();
    grad_staging.push_back(cross ? NDArray(dst.shape(), dst.ctx(), dst.dtype(), rt) : NDArray());
  }
}

std::vector<std::shared_ptr<const KernelCall>> Executor::Impl::BindCalls(
    const std::vector<PlanStep>& steps) const {
  const ExecutorPlan::Impl& p = *plan;
  const IndexedGraph& g = *p.idx;
  std::vector<std::shared_ptr<const KernelCall>> calls;
  for (const PlanStep& step : steps) {
    if (!step.kernel) {  // a copy between device types
      calls.push_back(nullptr);
      continue;
    }
    const Node& node = g.node(step.nid);
    std::vector<NDArray> in, out;
    CallVersions versions;
    versions.skip_unchanged = p.constant[step.nid];
    for (const auto& e : g[step.nid].inputs) {
      in.push_back(entries[g.entry_id(e)]);
      versions.inputs.push_back(content[g.entry_id(e)]);
    }
    for (uint32_t o = 0; o < node.num_outputs(); ++o) {
      const uint32_t e = g.entry_id(step.nid, o);
      versions.outputs.push_back(content[e]);
      out.push_back(entries[e]);
    }
    calls.push_back(PrepareKernel(rt, *step.kernel, node.attrs, step.ctx, in, out, step.reqs,
                                  step.name, &versions));
  }
  return calls;
}

}  // namespace weft
