// The queue between a Predictor's callers and its batch collectors
// (batcher.h): many producers, a few consumers, never blocking. Two
// implementations behind one interface, so the dynamic-batching bench can
// compare them in one run: a Boost.Lockfree MPMC queue and a mutex around a
// deque. Internal to core/src/predictor.
#ifndef WEFT_CORE_SRC_PREDICTOR_REQUEST_QUEUE_H_
#define WEFT_CORE_SRC_PREDICTOR_REQUEST_QUEUE_H_

#include <memory>

#include "weft/predictor.h"

namespace weft {

struct BatchRequest;

class RequestQueue {
 public:
  virtual ~RequestQueue() = default;
  // Thread-safe; never blocks for long (the lock-free one may allocate a
  // node when its initial pool is exhausted).
  virtual void Push(BatchRequest* r) = 0;
  // The oldest request, or null when empty. Thread-safe.
  virtual BatchRequest* TryPop() = 0;
};

std::unique_ptr<RequestQueue> MakeRequestQueue(BatchQueue kind);

}  // namespace weft

#endif  // WEFT_CORE_SRC_PREDICTOR_REQUEST_QUEUE_H_
