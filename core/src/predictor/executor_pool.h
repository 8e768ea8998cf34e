// ExecutorPool: the predictor's bound executors, per set of input shapes.
// Acquire hands out a Lease, an RAII handle on one executor: it waits for
// a free executor (binding one while fewer than max_executors exist, first
// come first served after that), and its destructor waits until nothing
// reads the caller's input buffers any more and gives the executor back
// (to the longest-waiting caller of its shape set, else to the idle list),
// so every exit path of a call returns it the same way. Shape sets beyond
// max_shapes are evicted, least recently used first, once none of their
// executors is in use. A shape set's executors share one compiled
// ExecutorPlan: its first bind compiles it (binds arriving meanwhile wait
// for it), the others only allocate and bind. A slot without an executor
// (a node-by-node run) brings no plan: its set's slots are made one at a
// time. Thread-safe.
#ifndef WEFT_CORE_SRC_PREDICTOR_EXECUTOR_POOL_H_
#define WEFT_CORE_SRC_PREDICTOR_EXECUTOR_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "weft/executor.h"
#include "weft/monitor.h"
#include "weft/mutex.h"
#include "weft/ndarray.h"

namespace weft {

// One bound executor and its per-call input arrays (in input order); for a
// model of data-dependent output shape (predictor/dynamic_model.h) no
// executor, but the arrays its node-by-node run takes.
struct PoolSlot {
  std::unique_ptr<Executor> ex;  // null in a node-by-node slot
  std::vector<NDArray> inputs;
  std::vector<size_t> input_args;  // per input: its index among ex's arguments
  uint64_t monitor_version = 0;    // the pool's monitor last set on `ex`
  // Node-by-node slots: the run's inputs (DynamicModel::Run), `inputs`
  // among the weights.
  std::vector<NDArray> run_inputs;
};

struct PoolStats {
  size_t executors = 0, shape_sets = 0, in_use = 0, activation_bytes = 0;
  // Compiled plans the executors are bound to: one per shape set when its
  // executors share it (exact while no bind is in flight).
  size_t plans = 0;
};

class ExecutorPool {
 public:
  // bind(shapes, plan): a new slot for these input shapes, its executor
  // bound to `plan` (the shape set's, compiled by its first bind), or
  // compiling one when `plan` is null (may throw).
  using BindFn = std::function<std::unique_ptr<PoolSlot>(
      const std::vector<Shape>&, const std::shared_ptr<const ExecutorPlan>&)>;
  struct ShapeSet;

  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    ~Lease();                                    // waits for the input copies, then releases
    Executor& ex() const { return *slot_->ex; }  // REQUIRES: an executor slot
    const PoolSlot& slot() const { return *slot_; }
    const std::vector<NDArray>& inputs() const { return slot_->inputs; }
    const std::vector<size_t>& input_args() const { return slot_->input_args; }

   private:
    friend class ExecutorPool;
    Lease(ExecutorPool* pool, std::shared_ptr<ShapeSet> set, std::unique_ptr<PoolSlot> slot);
    ExecutorPool* pool_;
    std::shared_ptr<ShapeSet> set_;
    std::unique_ptr<PoolSlot> slot_;
  };

  ExecutorPool(size_t max_executors, size_t max_shapes, BindFn bind);

  // An executor for `shapes` (already validated); blocks while
  // max_executors are in use. Throws when closed or when binding fails.
  Lease Acquire(const std::vector<Shape>& shapes) WEFT_EXCLUDES(mu_);
  // The output shapes of an executor bound for `shapes`, when one was.
  bool KnownOutputShapes(const std::vector<Shape>& shapes, std::vector<Shape>* out) const
      WEFT_EXCLUDES(mu_);
  // Fails waiting and later Acquire calls, waits until every lease is
  // back, drops the executors.
  void Close() WEFT_EXCLUDES(mu_);
  PoolStats stats() const WEFT_EXCLUDES(mu_);
  // The monitor every leased executor gets (Executor::SetMonitorCallback;
  // empty: none), set on each before its next lease.
  void SetMonitor(Executor::MonitorCallback callback, bool monitor_all);

 private:
  using Key = std::vector<std::vector<int64_t>>;
  static Key KeyOf(const std::vector<Shape>& shapes);
  void Release(const std::shared_ptr<ShapeSet>& set, std::unique_ptr<PoolSlot> slot)
      WEFT_EXCLUDES(mu_);
  void EvictLocked() WEFT_REQUIRES(mu_);
  // A lease of `slot`, its executor given the current monitor.
  Lease LeaseLocked(const std::shared_ptr<ShapeSet>& set, std::unique_ptr<PoolSlot> slot)
      WEFT_REQUIRES(mu_);

  const size_t max_executors_, max_shapes_;
  const BindFn bind_;
  mutable Mutex mu_;
  std::condition_variable cv_;  // an executor came back, or closed
  std::map<Key, std::shared_ptr<ShapeSet>> sets_ WEFT_GUARDED_BY(mu_);
  bool closed_ WEFT_GUARDED_BY(mu_) = false;
  size_t in_use_ WEFT_GUARDED_BY(mu_) = 0;
  uint64_t clock_ WEFT_GUARDED_BY(mu_) = 0;
  SharedMonitor monitor_;
};

}  // namespace weft

#endif  // WEFT_CORE_SRC_PREDICTOR_EXECUTOR_POOL_H_
