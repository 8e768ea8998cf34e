// CachedOp's recorded path (cached_op.h): one _CachedOp node on the tape,
// run by a training executor taken from its signature's pool for as long as
// the tape holds the call.
#include <algorithm>

#include "imperative/autograd_tape.h"
#include "weft/autograd.h"
#include "weft/cached_op.h"
#include "weft/executor_plan.h"
#include "weft/param.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

// One bound training executor and the arrays it is bound to.
struct CachedOp::TrainSlot {
  std::unique_ptr<Executor> ex;
  BoundInputs in;
  uint64_t monitor_version = 0;
};

// The executors of one recorded signature: the plan compiled by the first,
// and the slots no tape holds.
struct CachedOp::TrainPool {
  Mutex mu;
  std::shared_ptr<const ExecutorPlan> plan WEFT_GUARDED_BY(mu);
  std::vector<std::unique_ptr<TrainSlot>> free WEFT_GUARDED_BY(mu);
};

// A slot the tape holds; back to its pool when the tape lets it go.
struct CachedOp::Lease {
  std::shared_ptr<TrainPool> pool;
  std::unique_ptr<TrainSlot> slot;
  ~Lease() {
    MutexLock lock(&pool->mu);
    pool->free.push_back(std::move(slot));
  }
};

std::unique_ptr<CachedOp::TrainSlot> CachedOp::BindTrainSlot(
    const std::vector<NDArray>& inputs, const std::vector<bool>& needs,
    std::shared_ptr<const ExecutorPlan>* plan) {
  auto slot = std::make_unique<TrainSlot>();
  std::vector<NDArray> args, aux;
  BindInputs(inputs, &slot->in, &args, &aux);
  std::vector<NDArray> grads(args.size());
  std::vector<GradReq> reqs(args.size(), GradReq::kNull);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!needs[i]) continue;  // needs: an argument autograd knows
    const int arg = arg_of_input_[i];
    reqs[arg] = GradReq::kWrite;
    grads[arg] = NDArray(args[arg].shape(), args[arg].ctx(), args[arg].dtype(), rt_);
  }
  if (*plan) {
    slot->ex = Executor::Bind(rt_, *plan, args, grads, aux);
  } else {
    ExecutorOptions o;
    o.optimize_inference = false;
    const Context ctx = inputs.empty() ? Context::CPU(0) : inputs[0].ctx();
    slot->ex = Executor::Bind(rt_, symbol_, ctx, args, grads, reqs, aux, o);
    *plan = slot->ex->plan();
  }
  return slot;
}

std::vector<NDArray> CachedOp::ForwardRecorded(const std::vector<NDArray>& inputs) {
  if (inline_) return ForwardInlined(inputs);
  const bool is_train = autograd::IsTraining();
  const size_t n = inputs.size();
  std::vector<bool> needs(n);
  std::string key = is_train ? "record-train" : "record-infer";
  for (size_t i = 0; i < n; ++i) {
    needs[i] = arg_of_input_[i] >= 0 && inputs[i].autograd_entry() != nullptr;
    key += StrCat("|", inputs[i].shape().ToString(), DTypeName(inputs[i].dtype()),
                  inputs[i].ctx().ToString(), needs[i] ? "g" : "");
  }
  std::shared_ptr<TrainPool> pool;
  {
    MutexLock lock(&mu_);
    std::shared_ptr<TrainPool>& p = train_pools_[key];
    if (!p) p = std::make_shared<TrainPool>();
    pool = p;
  }
  autograd::PauseRecording pause;
  auto lease = std::make_shared<Lease>();
  lease->pool = pool;
  {
    MutexLock lock(&pool->mu);
    auto it =
        std::find_if(pool->free.begin(), pool->free.end(),
                     [&](const std::unique_ptr<TrainSlot>& s) { return s->in.Binds(inputs); });
    if (it != pool->free.end()) {
      lease->slot = std::move(*it);
      pool->free.erase(it);
    } else {
      if (!pool->free.empty()) pool->free.pop_back();  // bound to other parameters
      lease->slot = BindTrainSlot(inputs, needs, &pool->plan);
    }
  }
  TrainSlot& slot = *lease->slot;
  for (size_t i = 0; i < n; ++i)
    if (!slot.in.data[i].is_none()) inputs[i].CopyTo(&slot.in.data[i]);
  monitor_.Apply(slot.ex.get(), &slot.monitor_version);
  slot.ex->Forward(is_train);
  std::vector<NDArray> out;
  for (const NDArray& o : slot.ex->outputs()) out.push_back(o.Copy(o.ctx()));

  NodeAttrs attrs;
  attrs.op = &rt_->ops().Get("_CachedOp");
  attrs.name = attrs.op->name;
  attrs.dict = {{"num_inputs", std::to_string(n)}, {"num_outputs", std::to_string(out.size())}};
  attrs.params = ParseParams(attrs.op->name, &attrs.op->params, attrs.dict);
  std::vector<int> grad_arg(n, -1);
  for (size_t i = 0; i < n; ++i)
    if (needs[i]) grad_arg[i] = arg_of_input_[i];
  autograd::RecordFunction(attrs, inputs, &out,
                           [lease, grad_arg](const std::vector<NDArray>& out_grads) {
                             Executor& ex = *lease->slot->ex;
                             ex.Backward(out_grads);
                             std::vector<NDArray> grads(grad_arg.size());
                             for (size_t i = 0; i < grad_arg.size(); ++i)
                               if (grad_arg[i] >= 0) grads[i] = ex.grad_arrays()[grad_arg[i]];
                             return grads;
                           });
  return out;
}

}  // namespace weft
