// RequestQueue implementations (request_queue.h).
#include "predictor/request_queue.h"

#include <boost/lockfree/queue.hpp>
#include <deque>

#include "weft/mutex.h"

namespace weft {

namespace {

class LockfreeQueue final : public RequestQueue {
 public:
  void Push(BatchRequest* r) override {
    while (!q_.push(r)) {
    }  // push fails only when a node cannot be allocated; retry
  }
  BatchRequest* TryPop() override {
    BatchRequest* r = nullptr;
    return q_.pop(r) ? r : nullptr;
  }

 private:
  boost::lockfree::queue<BatchRequest*> q_{256};  // initial node pool; grows on demand
};

class MutexQueue final : public RequestQueue {
 public:
  void Push(BatchRequest* r) override {
    MutexLock l(&mu_);
    q_.push_back(r);
  }
  BatchRequest* TryPop() override {
    MutexLock l(&mu_);
    if (q_.empty()) return nullptr;
    BatchRequest* r = q_.front();
    q_.pop_front();
    return r;
  }

 private:
  Mutex mu_;
  std::deque<BatchRequest*> q_ WEFT_GUARDED_BY(mu_);
};

}  // namespace

std::unique_ptr<RequestQueue> MakeRequestQueue(BatchQueue kind) {
  if (kind == BatchQueue::kLockfree) return std::make_unique<LockfreeQueue>();
  return std::make_unique<MutexQueue>();
}

}  // namespace weft
