// ExecutorPool (executor_pool.h).
#include "predictor/executor_pool.h"

#include <algorithm>

#include "weft/engine.h"
#include "weft/executor_plan.h"
#include "weft/status.h"

namespace weft {

namespace {

// A caller waiting for an executor of a shape set; Release hands a slot to
// the longest waiting one. Its fields, and a ShapeSet's, are guarded by the
// pool's mutex (the analysis cannot name another object's mutex).
struct Waiter {
  std::condition_variable cv;
  std::unique_ptr<PoolSlot> slot;
  bool retry = false;  // a bind failed: try binding again
};

// Waits until the input copies pushed into `inputs` are done (they cannot
// fail: a failure would be the forward's, reported by its outputs).
void WaitInputCopies(const std::vector<NDArray>& inputs) {
  for (const NDArray& a : inputs) {
    try {
      Engine::Get()->WaitForVar(a.var());
    } catch (...) {
    }
  }
}

}  // namespace

// The executors bound for one set of input shapes.
struct ExecutorPool::ShapeSet {
  std::deque<Waiter*> waiters;
  // The plan every executor of the set is bound to: compiled by the first
  // bind (later binds wait for it while it compiles), shared by the rest.
  std::shared_ptr<const ExecutorPlan> plan;
  bool compiling = false;
  std::vector<std::unique_ptr<PoolSlot>> idle;
  size_t bound = 0;  // executors created or being created (idle + in use)
  uint64_t last_use = 0;
};

ExecutorPool::Lease::Lease(ExecutorPool* pool, std::shared_ptr<ShapeSet> set,
                           std::unique_ptr<PoolSlot> slot)
    : pool_(pool), set_(std::move(set)), slot_(std::move(slot)) {}

ExecutorPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), set_(std::move(other.set_)), slot_(std::move(other.slot_)) {}

ExecutorPool::Lease::~Lease() {
  if (!slot_) return;
  WaitInputCopies(slot_->inputs);  // the caller's buffers are read until here
  pool_->Release(set_, std::move(slot_));
}

ExecutorPool::ExecutorPool(size_t max_executors, size_t max_shapes, BindFn bind)
    : max_executors_(max_executors), max_shapes_(max_shapes), bind_(std::move(bind)) {}

ExecutorPool::Key ExecutorPool::KeyOf(const std::vector<Shape>& shapes) {
  Key key;
  for (const Shape& s : shapes) key.push_back(s.dims());
  return key;
}

void ExecutorPool::SetMonitor(Executor::MonitorCallback callback, bool monitor_all) {
  monitor_.Set(std::move(callback), monitor_all);
}

ExecutorPool::Lease ExecutorPool::LeaseLocked(const std::shared_ptr<ShapeSet>& set,
                                              std::unique_ptr<PoolSlot> slot) {
  if (slot->ex) monitor_.Apply(slot->ex.get(), &slot->monitor_version);
  return Lease(this, set, std::move(slot));
}

ExecutorPool::Lease ExecutorPool::Acquire(const std::vector<Shape>& shapes) {
  const Key key = KeyOf(shapes);
  MutexLock lock(&mu_);
  for (;;) {
    if (closed_) Fail(StatusCode::kInvalidArgument, "predictor: the predictor is closed");
    auto it = sets_.find(key);
    if (it == sets_.end()) it = sets_.emplace(key, std::make_shared<ShapeSet>()).first;
    std::shared_ptr<ShapeSet> set = it->second;
    set->last_use = ++clock_;
    if (!set->idle.empty()) {
      std::unique_ptr<PoolSlot> slot = std::move(set->idle.back());
      set->idle.pop_back();
      ++in_use_;
      return LeaseLocked(set, std::move(slot));
    }
    if (set->bound < max_executors_) {
      if (!set->plan && set->compiling) {  // the first bind is compiling the plan
        lock.Wait(&cv_);
        continue;
      }
      const bool compiles = !set->plan;
      set->compiling = compiles;
      const std::shared_ptr<const ExecutorPlan> plan = set->plan;
      ++set->bound;
      ++in_use_;
      lock.Unlock();
      std::unique_ptr<PoolSlot> slot;
      std::exception_ptr error;
      try {
        slot = bind_(shapes, plan);
      } catch (...) {
        error = std::current_exception();
      }
      lock.Lock();
      if (compiles) set->compiling = false;
      if (error) {
        --set->bound;
        --in_use_;
        for (Waiter* w : set->waiters) {
          w->retry = true;
          w->cv.notify_one();
        }
        if (set->bound == 0 && set->waiters.empty() && sets_.count(key) && sets_[key] == set)
          sets_.erase(key);
        cv_.notify_all();
        std::rethrow_exception(error);
      }
      if (!set->plan && slot->ex) set->plan = slot->ex->plan();
      cv_.notify_all();  // binds waiting for the plan
      EvictLocked();
      return LeaseLocked(set, std::move(slot));
    }
    // Queue for the next executor that comes back (handed over with in_use
    // already counted).
    Waiter w;
    set->waiters.push_back(&w);
    while (!w.slot && !w.retry && !closed_) lock.Wait(&w.cv);
    auto pos = std::find(set->waiters.begin(), set->waiters.end(), &w);
    if (pos != set->waiters.end()) set->waiters.erase(pos);
    if (w.slot && !closed_) return LeaseLocked(set, std::move(w.slot));
    if (w.slot) {  // closed meanwhile: the executor goes back unused
      set->idle.push_back(std::move(w.slot));
      --in_use_;
      cv_.notify_all();
    }
  }
}

bool ExecutorPool::KnownOutputShapes(const std::vector<Shape>& shapes,
                                     std::vector<Shape>* out) const {
  MutexLock lock(&mu_);
  auto it = sets_.find(KeyOf(shapes));
  if (it == sets_.end() || !it->second->plan) return false;
  *out = it->second->plan->output_shapes();
  return true;
}

void ExecutorPool::Release(const std::shared_ptr<ShapeSet>& set, std::unique_ptr<PoolSlot> slot) {
  MutexLock lock(&mu_);
  if (!closed_ && !set->waiters.empty()) {
    Waiter* w = set->waiters.front();
    set->waiters.pop_front();
    w->slot = std::move(slot);
    w->cv.notify_one();
    return;
  }
  set->idle.push_back(std::move(slot));
  --in_use_;
  EvictLocked();
  cv_.notify_all();
}

void ExecutorPool::EvictLocked() {
  while (sets_.size() > max_shapes_) {
    auto victim = sets_.end();
    for (auto it = sets_.begin(); it != sets_.end(); ++it) {
      const ShapeSet& s = *it->second;
      if (s.idle.size() != s.bound) continue;  // in use
      if (victim == sets_.end() || s.last_use < victim->second->last_use) victim = it;
    }
    if (victim == sets_.end()) return;  // every set is in use: drop later
    sets_.erase(victim);
  }
}

void ExecutorPool::Close() {
  MutexLock lock(&mu_);
  closed_ = true;
  for (auto& [key, set] : sets_)
    for (Waiter* w : set->waiters) w->cv.notify_one();
  cv_.notify_all();
  while (in_use_ != 0) lock.Wait(&cv_);
  sets_.clear();
}

PoolStats ExecutorPool::stats() const {
  MutexLock lock(&mu_);
  PoolStats s;
  s.shape_sets = sets_.size();
  s.in_use = in_use_;
  for (const auto& [key, set] : sets_) {
    s.executors += set->bound;
    if (!set->plan) continue;
    // The set's plan, and one of its own for each executor not bound to it
    // (use_count: the set's reference and its executors').
    const size_t sharing = static_cast<size_t>(set->plan.use_count()) - 1;
    s.plans += 1 + (set->bound > sharing ? set->bound - sharing : 0);
    s.activation_bytes += set->bound * set->plan->memory().planned_bytes;
  }
  return s;
}

}  // namespace weft
