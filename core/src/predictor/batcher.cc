// Batcher (batcher.h).
#include "predictor/batcher.h"

#include <deque>

#include "weft/status.h"

namespace weft {

namespace {

using Clock = std::chrono::steady_clock;

// The largest power of two <= n (n >= 1).
int64_t FloorPow2(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

std::exception_ptr ClosedError() {
  return std::make_exception_ptr(
      Error(StatusCode::kInvalidArgument, "predictor: the predictor is closed"));
}

}  // namespace

void BatchRequest::Finish() {
  MutexLock l(&mu_);
  done_ = true;
  cv_.notify_one();
}

void BatchRequest::Wait() {
  {
    MutexLock l(&mu_);
    while (!done_) l.Wait(&cv_);
  }
  if (error) std::rethrow_exception(error);
}

Batcher::Batcher(int max_batch, std::chrono::microseconds max_delay, int workers, BatchQueue queue,
                 RunFn run)
    : max_batch_(max_batch),
      max_delay_(max_delay),
      run_(std::move(run)),
      queue_(MakeRequestQueue(queue)) {
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { Collect(); });
}

Batcher::~Batcher() { Close(); }

void Batcher::Submit(BatchRequest* r) {
  submitting_.fetch_add(1);
  if (closed_.load()) {
    submitting_.fetch_sub(1);
    std::rethrow_exception(ClosedError());
  }
  r->arrival = Clock::now();
  queue_->Push(r);
  submitting_.fetch_sub(1);
  // Pairs with the fence in Pop: either the sleeper sees the request or we
  // see the sleeper.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (sleepers_.load() > 0) {
    MutexLock l(&mu_);
    cv_.notify_one();
  }
  r->Wait();
}

BatchRequest* Batcher::Pop(Clock::time_point deadline) {
  for (;;) {
    if (BatchRequest* r = queue_->TryPop()) return r;
    MutexLock l(&mu_);
    sleepers_.fetch_add(1);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    BatchRequest* r = queue_->TryPop();
    bool timed_out = false;
    if (!r && !closed_.load()) {
      if (deadline == Clock::time_point::max())
        l.Wait(&cv_);
      else
        timed_out = !l.WaitUntil(&cv_, deadline);
    }
    sleepers_.fetch_sub(1);
    if (r) return r;
    if (closed_.load() || timed_out) return queue_->TryPop();
  }
}

void Batcher::Collect() {
  std::deque<BatchRequest*> held;  // popped while gathering a batch of other shapes
  for (;;) {
    BatchRequest* first = nullptr;
    if (!held.empty()) {
      first = held.front();
      held.pop_front();
    } else {
      first = Pop(Clock::time_point::max());
    }
    if (!first) break;  // closed and drained
    if (closed_.load()) {
      first->error = ClosedError();
      first->Finish();
      continue;
    }
    std::vector<BatchRequest*> batch = {first};
    int64_t total = first->samples;
    for (auto it = held.begin(); it != held.end() && total < max_batch_;) {
      if ((*it)->sample_key == first->sample_key && total + (*it)->samples <= max_batch_) {
        total += (*it)->samples;
        batch.push_back(*it);
        it = held.erase(it);
      } else {
        ++it;
      }
    }
    const Clock::time_point deadline = first->arrival + max_delay_;
    while (total < max_batch_ && !closed_.load()) {
      BatchRequest* r = Pop(deadline);
      if (!r) break;
      if (r->sample_key == first->sample_key && total + r->samples <= max_batch_) {
        total += r->samples;
        batch.push_back(r);
      } else {
        held.push_back(r);
      }
    }
    // Batches of a power-of-two number of samples, so single-sample calls
    // bind at most log2(max_batch) + 1 shape sets (executors); the calls
    // beyond it lead the next batch.
    if (FloorPow2(total) != total) {
      const int64_t p2 = FloorPow2(total);
      int64_t kept = 0;
      size_t n = 0;
      while (n < batch.size() && kept + batch[n]->samples <= p2) kept += batch[n++]->samples;
      if (n == 0) kept = batch[n++]->samples;
      held.insert(held.begin(), batch.begin() + static_cast<std::ptrdiff_t>(n), batch.end());
      batch.resize(n);
      total = kept;
    }
    run_(batch, total);
    for (BatchRequest* r : batch) r->Finish();
  }
  for (BatchRequest* r : held) {
    r->error = ClosedError();
    r->Finish();
  }
}

void Batcher::Close() {
  {
    MutexLock l(&mu_);
    if (closed_.exchange(true)) return;
    cv_.notify_all();
  }
  for (std::thread& t : workers_) t.join();
  // Requests pushed after the collectors left: a caller that passed its
  // closed check before Close has pushed once `submitting_` is 0.
  for (;;) {
    const bool last = submitting_.load() == 0;
    while (BatchRequest* r = queue_->TryPop()) {
      r->error = ClosedError();
      r->Finish();
    }
    if (last) break;
    std::this_thread::yield();
  }
}

}  // namespace weft
