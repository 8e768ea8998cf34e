// Executor: running the bound graph (Forward, Backward) and describing it;
// building it is executor_init.cc.
#include <algorithm>
#include <functional>
#include <sstream>

#include "executor/executor_impl.h"
#include "weft/engine.h"
#include "weft/imperative.h"
#include "weft/profiler.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

Executor::Executor() : impl_(new Impl) {}
Executor::~Executor() = default;

void Executor::Impl::Push(const std::shared_ptr<const Segment>& seg, bool is_train) const {
  if (seg->copy_nid >= 0) {  // a _CrossDeviceCopy between device types: the engine's copy pools
    const IndexedGraph& g = *plan->idx;
    const uint32_t nid = static_cast<uint32_t>(seg->copy_nid);
    NDArray out = entries[g.entry_id(nid, 0)];
    entries[g.entry_id(g[nid].inputs.at(0))].CopyTo(&out);
    return;
  }
  // The segment's kernels, or the replay of their recording (SegmentGraph)
  // for an inference-mode run.
  auto run = [seg, is_train](const RunContext& rc, const std::function<void()>& calls) {
    if (seg->graph && !is_train)
      seg->graph->Run(rc.stream, calls);
    else
      calls();
  };
  if (seg->calls.size() == 1) {  // the engine names the node itself
    Engine::Get()->PushSync(
        [seg, is_train, run](RunContext rc) {
          profiler::SymbolicScope symbolic;
          run(rc, [&] { seg->calls[0]->Run(rc, is_train); });
        },
        seg->ctx, seg->reads, seg->writes, 0, seg->name);
    return;
  }
  Engine::Get()->PushSync(
      [seg, is_train, run](RunContext rc) {
        profiler::SymbolicScope symbolic;
        const bool timed = profiler::Active(profiler::Category::kExecutor);
        const int64_t begin = timed ? profiler::NowNs() : 0;
        run(rc, [&] {
          for (const auto& call : seg->calls) {
            try {
              call->Run(rc, is_train);
            } catch (const Error& e) {
              throw OpPartError(e.code(), e.what(), call->name());
            } catch (const std::exception& e) {
              throw OpPartError(StatusCode::kInternal, e.what(), call->name());
            }
          }
        });
        if (timed)
          profiler::RecordComplete(profiler::Category::kExecutor, "segment", seg->name, {}, rc.ctx,
                                   begin, profiler::NowNs(),
                                   static_cast<int64_t>(seg->calls.size()));
      },
      seg->ctx, seg->reads, seg->writes, 0, seg->name);
}

// Forward and Backward push one engine operation per segment of nodes
// (BulkSegments; each node's kernel call was bound at Init): it reads the
// entries its nodes read from outside it and writes their outputs. Every
// entry planned into one storage block is a view of that block's NDArray,
// so they all share the block's engine variable, and the engine orders
// every use of a block in push order, which is the order the memory plan
// assumed: a node reusing a freed block waits for the last reader of the
// block's previous entry. Bound arrays carry their own variables, so work
// the caller pushed on them before Forward (copies, updates) is ordered
// too, and nothing here waits.
void Executor::Forward(bool is_train) {
  Impl& m = *impl_;
  MutexLock lock(&m.call_mu);
  if (is_train && !m.plan->passes.empty())
    Fail(StatusCode::kInvalidArgument,
         "Forward(is_train=true): the graph was optimised for inference (",
         JoinNames(m.plan->passes),
         "); bind with optimize_inference=false to run a training-mode forward");
  if (m.monitor)
    m.PushMonitored(m.plan->forward_steps, m.monitor_forward, is_train);
  else
    for (const auto& seg : m.forward_segments) m.Push(seg, is_train);
  m.forward_done = true;
  m.last_is_train = is_train;
}

void Executor::Backward(const std::vector<NDArray>& head_grads) {
  Impl& m = *impl_;
  const ExecutorPlan::Impl& p = *m.plan;
  MutexLock lock(&m.call_mu);
  if (!p.has_grads)
    Fail(StatusCode::kInvalidArgument,
         "Backward: the executor has no gradients (every grad_req is null)");
  if (!m.forward_done) Fail(StatusCode::kInvalidArgument, "Backward: Forward must run first");
  if (!head_grads.empty() && head_grads.size() != outputs_.size())
    Fail(StatusCode::kInvalidArgument, "Backward: expected ", outputs_.size(),
         " head gradient(s), given ", head_grads.size());
  const IndexedGraph& g = *p.idx;
  // Check every head gradient before pushing anything.
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (p.head_grad_nid[i] < 0) continue;
    if (head_grads.empty())
      Fail(StatusCode::kInvalidArgument, "Backward: output '", out_names_[i],
           "' is not a loss, so a head gradient is required (none given)");
    const NDArray& dst = m.entries[g.entry_id(static_cast<uint32_t>(p.head_grad_nid[i]), 0)];
    const NDArray& src = head_grads[i];
    if (src.is_none() || src.shape() != dst.shape() || src.dtype() != dst.dtype())
      Fail(StatusCode::kShape, "Backward: head gradient ", i, " (output '", out_names_[i], "') is ",
           src.is_none() ? std::string("empty")
                         : src.shape().ToString() + " " + DTypeName(src.dtype()),
           ", expected ", dst.shape().ToString(), " ", DTypeName(dst.dtype()));
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (p.head_grad_nid[i] < 0) continue;
    NDArray& dst = m.entries[g.entry_id(static_cast<uint32_t>(p.head_grad_nid[i]), 0)];
    head_grads[i].CopyTo(&dst);
  }
  if (m.monitor)
    m.PushMonitored(p.backward_steps, m.monitor_backward, m.last_is_train);
  else
    for (const auto& seg : m.backward_segments) m.Push(seg, m.last_is_train);
  for (size_t k = 0; k < p.grad_copies.size(); ++k) {
    const ExecutorPlan::Impl::GradCopy& c = p.grad_copies[k];
    NDArray& grad = grads_[c.arg];
    if (reqs_[c.arg] == GradReq::kAdd) {
      NDArray src = m.entries[c.entry];
      if (!m.grad_staging[k].is_none()) {  // from another device: copied here first
        NDArray staging = m.grad_staging[k];
        src.CopyTo(&staging);
        src = staging;
      }
      std::vector<NDArray> outs{grad};
      Invoke(m.rt, "elemwise_add", {grad, src}, {}, &outs);
    } else {
      m.entries[c.entry].CopyTo(&grad);
    }
  }
}

const Graph& Executor::graph() const { return impl_->plan->graph; }
const std::vector<Context>& Executor::node_devices() const { return impl_->plan->devices; }
ExecutorMemory Executor::memory() const { return impl_->plan_ptr->memory(); }
ExecutorPlacement Executor::placement() const { return impl_->plan_ptr->placement(); }
const std::shared_ptr<const ExecutorPlan>& Executor::plan() const { return impl_->plan_ptr; }

std::string Executor::DebugString() const {
  const Impl& m = *impl_;
  const ExecutorPlan::Impl& p = *m.plan;
  const IndexedGraph& g = *p.idx;
  bool several = false;
  for (const Context& c : p.devices) several = several || c != ctx_;
  std::ostringstream os;
  os << "Executor on " << ctx_.ToString() << ": " << g.num_nodes() << " nodes ("
     << p.num_forward_nodes << " forward), " << args_.size() << " arguments, " << aux_.size()
     << " aux states\n";
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    os << (nid < p.num_forward_nodes ? "  F " : "  B ") << nid << " ";
    if (several) os << "[" << p.devices[nid].ToString() << "] ";
    if (node.is_variable()) {
      os << "Variable:" << node.attrs.name << "\n";
      continue;
    }
    os << "Op:" << node.op()->name << ", Name=" << node.attrs.name
       << (p.mem.noop[nid] ? " (no-op)" : "") << (p.constant[nid] ? " (constant)" : "") << "\n";
    for (const auto& in : g[nid].inputs)
      os << "      arg[" << g.entry_name(g.entry_id(in)) << "]\n";
    for (uint32_t o = 0; o < node.num_outputs(); ++o) {
      const uint32_t e = g.entry_id(nid, o);
      const int sid = p.mem.storage_id[e];
      os << "      out " << g.entry_name(e) << " " << p.shapes.shapes[e].ToString() << " ";
      if (sid >= 0)
        os << "storage " << sid << (p.mem.inplace[e] ? " (in place)" : "")
           << (p.mem.unread[e] ? " (unread)" : "");
      else
        os << "in bound array of '" << g.entry_name(p.mem.alias[e]) << "'";
      os << "\n";
    }
  }
  if (several) {
    const ExecutorPlacement pl = placement();
    os << "Placement: " << pl.num_copies << " copies, " << pl.forward_copy_bytes
       << " bytes copied per forward; " << pl.fallback_nodes.size() << " nodes fall back to cpu(0)"
       << (pl.fallback_nodes.empty() ? "" : ": " + JoinNames(pl.fallback_nodes)) << "\n";
  }
  if (!p.float32_nodes.empty())
    os << "float32 fallback: " << p.float32_nodes.size()
       << " nodes compute in float32 for want of a float16/bfloat16 kernel: "
       << JoinNames(p.float32_nodes) << "\n";
  os << "Inference passes: "
     << (p.optimize ? p.passes.empty() ? "none changed the graph" : JoinNames(p.passes) : "off")
     << "\n";
  const ExecutorMemory mem = memory();
  os << "Memory: planned " << mem.planned_bytes << " bytes in " << mem.num_storage
     << " blocks, naive " << mem.naive_bytes << " bytes; " << mem.num_inplace << " in place, "
     << mem.num_reused << " reused; match_range " << mem.match_range << "\n";
  os << "Engine operations: " << m.forward_segments.size() << " forward, "
     << m.backward_segments.size() << " backward (bulk_max_nodes " << p.bulk_max_nodes << ")\n";
  const size_t recordable = RecordableSegments();
  if (recordable > 0) {
    os << "Device graphs (WEFT_CUDA_GRAPHS): " << RecordedSegments() << " of " << recordable
       << " forward operations recorded\n";
    for (const auto& seg : m.forward_segments)
      if (seg->graph && !seg->graph->failure().empty())
        os << "  " << seg->name << ": recording failed: " << seg->graph->failure() << "\n";
  }
  return os.str();
}

size_t Executor::RecordableSegments() const {
  size_t n = 0;
  for (const auto& seg : impl_->forward_segments) n += seg->graph ? 1 : 0;
  return n;
}

size_t Executor::RecordedSegments() const {
  size_t n = 0;
  for (const auto& seg : impl_->forward_segments) n += seg->graph && seg->graph->recorded() ? 1 : 0;
  return n;
}

}  // namespace weft
