// Dynamic batching for a Predictor (PredictorOptions::max_batch > 1):
// callers' requests meet in a RequestQueue; `workers` collector threads
// each take the oldest request, gather more of the same per-sample shapes
// until the batch holds max_batch samples or max_delay has passed since
// that first request arrived (0: only the requests already queued), and
// run the batch through `run` (which concatenates along the first axis,
// runs one executor and splits the outputs). A batch holds a power-of-two
// number of samples when its requests allow (the rest lead the next
// batch), so single-sample requests bind few shape sets. Requests of other
// shapes wait for a later batch of their own.
// Internal to core/src/predictor.
#ifndef WEFT_CORE_SRC_PREDICTOR_BATCHER_H_
#define WEFT_CORE_SRC_PREDICTOR_BATCHER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "predictor/request_queue.h"
#include "weft/mutex.h"
#include "weft/predictor.h"

namespace weft {

// One caller's Predict call, waiting in the batcher.
struct BatchRequest {
  const std::vector<HostInput>* inputs = nullptr;
  const std::vector<HostOutput>* outputs = nullptr;
  int64_t samples = 0;                           // every input's first extent
  std::vector<std::vector<int64_t>> sample_key;  // every input's extents after the first
  std::chrono::steady_clock::time_point arrival;

  std::exception_ptr error;  // set by the batch run (or Close)
  // Marks the request finished (with `error` set or not) and wakes its caller.
  void Finish();
  // Blocks until Finish, then rethrows `error`.
  void Wait();

 private:
  Mutex mu_;
  std::condition_variable cv_;
  bool done_ WEFT_GUARDED_BY(mu_) = false;
};

class Batcher {
 public:
  // run(batch, total samples): runs the batch and sets each request's
  // error where it failed; Finish is the batcher's. It must not throw.
  using RunFn = std::function<void(const std::vector<BatchRequest*>&, int64_t)>;

  Batcher(int max_batch, std::chrono::microseconds max_delay, int workers, BatchQueue queue,
          RunFn run);
  ~Batcher();  // closes

  // Queues `r` and blocks until its batch ran; rethrows its error. Fails
  // with "closed" after Close.
  void Submit(BatchRequest* r);
  // Fails every queued request and later ones with "closed"; waits for the
  // batches running now and joins the collectors. Idempotent.
  void Close();

 private:
  void Collect();
  // The next request, waiting until `deadline` (max(): without limit);
  // null on time-out or when closed with nothing left.
  BatchRequest* Pop(std::chrono::steady_clock::time_point deadline);

  const int max_batch_;
  const std::chrono::microseconds max_delay_;
  const RunFn run_;
  std::unique_ptr<RequestQueue> queue_;
  Mutex mu_;  // orders the sleep/wake hand-shake and Close (the state is atomic)
  std::condition_variable cv_;
  std::atomic<int> sleepers_{0};
  std::atomic<int> submitting_{0};  // callers between their closed check and their push
  std::atomic<bool> closed_{false};
  std::vector<std::thread> workers_;
};

}  // namespace weft

#endif  // WEFT_CORE_SRC_PREDICTOR_BATCHER_H_
