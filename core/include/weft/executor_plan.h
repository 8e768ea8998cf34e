// ExecutorPlan: what binding a symbol decides before any array is
// allocated, compiled once and shared by every executor bound to the same
// facts (a predictor's pool of one input shape set; a cached graph later).
//
// A plan depends only on the symbol and a BindSignature: the bind device,
// every bound array's shape, dtype and device, the gradient requests (and
// where the gradient arrays are) and the ExecutorOptions. Compile runs the
// bind-time passes as pure functions of these: the training graph
// (pass::Gradient), the inference passes, placement, shape and dtype
// inference, gradient routing, the memory plan (pass::PlanMemory) and one
// step (kernel, output requests) per op node. Executor::Bind(plan, ...)
// then allocates the planned blocks, binds each step's kernel call to the
// executor's own arrays and groups the calls into engine operations; an
// executor owns its memory and run state, the plan owns none.
//
// A plan is immutable after Compile; share it (std::shared_ptr<const>) and
// read it from any thread.
#ifndef WEFT_EXECUTOR_PLAN_H_
#define WEFT_EXECUTOR_PLAN_H_

#include <memory>
#include <string>
#include <vector>

#include "weft/executor.h"

namespace weft {

// The facts about the bound arrays a plan is compiled for.
struct BindSignature {
  struct Array {
    Shape shape;
    DType dtype = DType::kUnknown;
    Context ctx;
  };
  Context ctx;              // the bind device
  std::vector<Array> args;  // per argument (Symbol::ListArguments order)
  std::vector<Array> aux;   // per auxiliary state
  std::vector<GradReq> reqs;
  std::vector<Context> grad_ctx;  // per argument: its gradient array's device (reqs not null)
  ExecutorOptions options;

  // The signature of these arrays (as Executor::Bind takes them, after its
  // checks: one request and one gradient slot per argument).
  static BindSignature Of(Context ctx, const std::vector<NDArray>& args,
                          const std::vector<NDArray>& grads, const std::vector<GradReq>& reqs,
                          const std::vector<NDArray>& aux, const ExecutorOptions& options);
};

class ExecutorPlan {
 public:
  // Compiles `symbol` for `sig` (the checks of Executor::Bind's arrays
  // already done). Throws Error naming the node, array or device that
  // cannot be planned (an unknown shape, an operator without a kernel, a
  // device that does not exist).
  static std::shared_ptr<const ExecutorPlan> Compile(Runtime* rt, const Symbol& symbol,
                                                     const BindSignature& sig);
  ~ExecutorPlan();
  ExecutorPlan(const ExecutorPlan&) = delete;
  ExecutorPlan& operator=(const ExecutorPlan&) = delete;

  const Symbol& symbol() const;
  const BindSignature& signature() const;
  const std::vector<Shape>& output_shapes() const;  // per output of the symbol
  const Graph& graph() const;                       // the bound (rewritten, placed) graph
  const std::vector<Context>& node_devices() const;
  ExecutorMemory memory() const;  // the planned blocks (every executor allocates them)
  ExecutorPlacement placement() const;

  // The compiled data (core/src/executor/executor_impl.h).
  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  explicit ExecutorPlan(std::unique_ptr<Impl> impl);
  std::unique_ptr<const Impl> impl_;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_PLAN_H_
