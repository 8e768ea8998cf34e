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

// Push notifies only when a worker sleeps. Thread-safe.
class TaskQueue {
 public:
  void Push(OprBlock* op) {
    bool wake;
    {
      MutexLock l(&mu_);
      queue_.push_back(op);
      size_.store(queue_.size(), std::memory_order_release);
      wake = sleepers_ > 0;
    }
    if (wake) cv_.notify_one();
  }
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
