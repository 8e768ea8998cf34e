// KernelCall: a kernel bound to its arrays once, run by engine operations
// (PushKernel for one imperative call, the executor's bulked segments).
#include "weft/imperative.h"

#include "base/address_range.h"
#include "weft/profiler.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

namespace {

bool Contains(const std::vector<VarHandle>& v, VarHandle x) {
  for (VarHandle y : v)
    if (y == x) return true;
  return false;
}

}  // namespace

bool KernelCall::WritesWithin(const char* from, size_t bytes) const {
  for (const TBlob& b : out_)
    if (RangesOverlap(b.dptr, b.Bytes(), from, bytes)) return true;
  for (const auto& [tmp, dst] : add_later_)
    if (RangesOverlap(tmp.dptr, tmp.Bytes(), from, bytes) ||
        RangesOverlap(dst.dptr, dst.Bytes(), from, bytes))
      return true;
  return false;
}

void KernelCall::RepointInputs(const char* from, size_t bytes, char* to) const {
  for (TBlob& b : in_)
    if (RangesOverlap(b.dptr, b.Bytes(), from, bytes))
      b.dptr = to + (static_cast<const char*>(b.dptr) - from);
}

void KernelCall::Run(const RunContext& rc, bool is_train) const {
  OpContext o = octx_;
  o.stream = rc.stream;
  o.is_train = is_train;
  Engine* engine = Engine::Get();
  for (size_t i = 0; i < in_vars_.size(); ++i) {
    const auto* counter = i < counters_.inputs.size() ? counters_.inputs[i].get() : nullptr;
    versions_[i] = counter       ? counter->load(std::memory_order_acquire)
                   : in_vars_[i] ? engine->VarVersion(in_vars_[i])
                                 : 0;
  }
  if (counters_.skip_unchanged && ran_ && last_is_train_ == is_train && last_versions_ == versions_)
    return;
  o.state = &state_;
  o.input_versions = versions_.data();
  const profiler::Category cat = profiler::SymbolicScope::Current()
                                     ? profiler::Category::kSymbolic
                                     : profiler::Category::kImperative;
  const int64_t begin = profiler::Active(cat) ? profiler::NowNs() : -1;
  fn_(o, attrs_, in_, reqs_, out_);
  // dst += temporary, with the elemwise_add kernel.
  for (const auto& [tmp, dst] : add_later_)
    add_fn_(o, add_attrs_, {dst, tmp}, {OpReq::kWrite}, {dst});
  if (begin >= 0) {
    if (shapes_.empty())
      for (const TBlob& b : in_) shapes_ += (shapes_.empty() ? "" : ",") + b.shape.ToString();
    profiler::RecordComplete(cat, attrs_.op ? std::string_view(attrs_.op->name) : name_, name_,
                             shapes_, rc.ctx, begin, profiler::NowNs());
  }
  if (counters_.skip_unchanged) {
    last_versions_ = versions_;
    last_is_train_ = is_train;
    ran_ = true;
    for (const auto& c : counters_.outputs)
      if (c) c->fetch_add(1, std::memory_order_release);
  }
}

std::shared_ptr<const KernelCall> PrepareKernel(
    Runtime* rt, const Kernel& kernel, const NodeAttrs& attrs, Context ctx,
    const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
    const std::vector<OpReq>& reqs, const std::string& name, const CallVersions* versions) {
  WEFT_CHECK(rt) << "PushKernel " << name << ": no runtime given";
  auto call = std::make_shared<KernelCall>();
  if (versions) call->counters_ = *versions;
  call->name_ = !name.empty() ? name : attrs.op ? attrs.op->name : attrs.name;
  const std::string& op_name = call->name_;
  WEFT_CHECK(reqs.size() == outputs.size()) << "PushKernel " << op_name << ": " << reqs.size()
                                            << " requests for " << outputs.size() << " outputs";
  call->fn_ = kernel.fn;
  call->attrs_ = attrs;
  call->octx_.ctx = ctx;
  call->reqs_ = reqs;
  std::vector<VarHandle>& reads = call->reads_;
  std::vector<VarHandle>& writes = call->writes_;
  if (attrs.op && attrs.op->uses_rng) {
    call->octx_.rng = rt->rng(ctx);
    writes.push_back(call->octx_.rng->var);
  }
  for (const auto& a : inputs) {
    call->in_.push_back(a.blob());
    call->in_vars_.push_back(a.is_none() ? nullptr : a.var());
  }
  call->versions_.resize(inputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NDArray& out = outputs[i];
    WEFT_CHECK(!out.is_none()) << "PushKernel " << op_name << ": output " << i
                               << " is not allocated";
    if (reqs[i] == OpReq::kAdd && !kernel.supports_add) {
      if (!call->add_fn_) {
        const OpDef& add = rt->ops().Get("elemwise_add");
        const Kernel* k = rt->kernels().Find(add.name, ctx.dev_type);
        if (!k)
          Fail(StatusCode::kNotImplemented, "operator ", op_name,
               ": req=add needs elemwise_add on ", ctx.ToString());
        call->add_fn_ = k->fn;
        call->add_attrs_.op = &add;
        call->add_attrs_.name = add.name;
        call->add_attrs_.params = ParseParams(add.name, &add.params, {});
      }
      NDArray tmp(out.shape(), ctx, out.dtype(), rt);
      call->keep_.push_back(tmp);
      call->out_.push_back(tmp.blob());
      call->add_later_.emplace_back(tmp.blob(), out.blob());
      call->reqs_[i] = OpReq::kWrite;
    } else {
      call->out_.push_back(out.blob());
    }
    // A kNull output is declared written too: kernels may still use it
    // (as scratch, or by ignoring the request), and an executor's planned
    // block behind it may be reused by a later node.
    if (!Contains(writes, out.var())) writes.push_back(out.var());
    call->keep_.push_back(out);
  }
  // Inputs the op mutates (BatchNorm's moving statistics, assign's lhs)
  // are written, so waits on them see the update.
  if (attrs.op && attrs.op->mutate_inputs) {
    for (int i : attrs.op->mutate_inputs(attrs.params)) {
      WEFT_CHECK(i >= 0 && static_cast<size_t>(i) < inputs.size())
          << "PushKernel " << op_name << ": mutated input " << i << " of " << inputs.size();
      if (!inputs[i].is_none() && !Contains(writes, inputs[i].var()))
        writes.push_back(inputs[i].var());
    }
  }
  for (const auto& a : inputs) {
    if (!Contains(writes, a.var()) && !Contains(reads, a.var())) reads.push_back(a.var());
    call->keep_.push_back(a);
  }
  return call;
}

void PushKernel(Runtime* rt, const Kernel& kernel, const NodeAttrs& attrs, Context ctx,
                const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                const std::vector<OpReq>& reqs, bool is_train, const std::string& name) {
  std::shared_ptr<const KernelCall> call =
      PrepareKernel(rt, kernel, attrs, ctx, inputs, outputs, reqs, name);
  Engine::Get()->PushSync([call, is_train](RunContext rc) { call->Run(rc, is_train); }, ctx,
                          call->reads(), call->writes(), 0, call->name());
}

}  // namespace weft
