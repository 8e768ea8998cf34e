// The worker queue of the threaded engine: a multi-producer multi-consumer
// queue of ready operations with blocking Pop. A mutex + condition variable
// deque; a Boost.Lockfree variant was measured and dropped (docs/engine.md).
#ifndef WEFT_CORE_SRC_ENGINE_TASK_QUEUE_H_
#define WEFT_CORE_SRC_ENGINE_TASK_QUEUE_H_

#include <atomic>
#include <condition_variable>
#include <deque>

#include "engine/engine_impl.h"
#include "engine/spin_wait.h"
#include "weft/mutex.h"

namespace weft {
namespace engine {

// Push notifies only when a worker sleeps, and not for the one op a worker
// of this queue pushes while it dispatches what its own op's completion made
// ready (it pops again right after: waking a sleeping sibling only for the
// sibling to find the queue empty cost 7.8 % of a 1-thread MobileNet-v2 run,
// where the two cpu(0) workers took turns on a chain of small ops).
// Thread-safe.
class TaskQueue {
 public:
  void Push(OprBlock* op) {
    bool wake;
    {
      MutexLock l(&mu_);
      queue_.push_back(op);
      size_.store(queue_.size(), std::memory_order_release);
      wake = sleepers_ > 0 && !(Completing() && WorkerQueue() == this && queue_.size() == 1);
    }
    if (wake) cv_.notify_one();
  }
  // Makes the calling thread a worker of `queue` (for its whole life).
  static void BindWorkerThread(const TaskQueue* queue) { WorkerQueue() = queue; }
  static bool OnWorkerThread() { return WorkerQueue() != nullptr; }
  // While alive, the calling thread dispatches the ops its op's completion
  // made ready, and returns to Pop afterwards.
  class CompletionScope {
   public:
    CompletionScope() : prev_(Completing()) { Completing() = true; }
    ~CompletionScope() { Completing() = prev_; }
    CompletionScope(const CompletionScope&) = delete;
    CompletionScope& operator=(const CompletionScope&) = delete;

   private:
    bool prev_;
  };
  // Blocks until an op is available (returned) or Stop was called (null);
  // polls for a moment (SpinWait) before it sleeps.
  OprBlock* Pop() {
    SpinWait([this] {
      return size_.load(std::memory_order_acquire) > 0 ||
             stop_flag_.load(std::memory_order_acquire);
    });
    MutexLock l(&mu_);
    while (!stop_ && queue_.empty()) {
      ++sleepers_;
      l.Wait(&cv_);
      --sleepers_;
    }
    if (stop_) return nullptr;
    OprBlock* op = queue_.front();
    queue_.pop_front();
    size_.store(queue_.size(), std::memory_order_release);
    return op;
  }
  // Wakes every Pop with null until Restart; queued ops are kept.
  void Stop() {
    {
      MutexLock l(&mu_);
      stop_ = true;
      stop_flag_.store(true, std::memory_order_release);
    }
    cv_.notify_all();
  }
  void Restart() {
    MutexLock l(&mu_);
    stop_ = false;
    stop_flag_.store(false, std::memory_order_release);
  }

 private:
  static const TaskQueue*& WorkerQueue() {
    thread_local const TaskQueue* queue = nullptr;
    return queue;
  }
  static bool& Completing() {
    thread_local bool completing = false;
    return completing;
  }

  Mutex mu_;
  std::condition_variable cv_;
  std::deque<OprBlock*> queue_ WEFT_GUARDED_BY(mu_);
  int sleepers_ WEFT_GUARDED_BY(mu_) = 0;
  bool stop_ WEFT_GUARDED_BY(mu_) = false;
  // Mirrors of queue_.size() and stop_ for the lock-free poll in Pop.
  std::atomic<size_t> size_{0};
  std::atomic<bool> stop_flag_{false};
};

}  // namespace engine
}  // namespace weft

#endif  // WEFT_CORE_SRC_ENGINE_TASK_QUEUE_H_
