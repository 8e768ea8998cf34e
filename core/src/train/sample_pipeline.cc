// SamplePipeline (sample_pipeline.h).
#include "train/sample_pipeline.h"

#include <utility>

#include "engine/engine_impl.h"

namespace weft {

SamplePipeline::SamplePipeline(int threads, int prefetch, int batch_size, size_t data_bytes,
                               size_t label_floats, Fill fill)
    : prefetch_(prefetch),
      batch_size_(batch_size),
      data_bytes_(data_bytes),
      label_floats_(label_floats),
      fill_(std::move(fill)) {
  WEFT_CHECK(threads >= 1 && prefetch >= 1 && batch_size >= 1);
  {
    MutexLock lock(&mu_);
    buffers_.resize(prefetch);
    for (Buffer& b : buffers_) {
      b.batch.data.assign(size_t(batch_size) * data_bytes, 0);
      b.batch.label.assign(size_t(batch_size) * label_floats, 0.f);
    }
  }
  try {
    for (int i = 0; i < threads; ++i) workers_.push_back(engine::StartThread([this] { Worker(); }));
  } catch (...) {
    {
      MutexLock lock(&mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : workers_) t.join();
    throw;
  }
}

SamplePipeline::~SamplePipeline() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void SamplePipeline::InitBuffer(int64_t b) {
  Buffer& buf = buffers_[b % prefetch_];
  buf.index = b;
  buf.batch.samples = batches_[b];
  buf.batch.tags.assign(batches_[b].size(), 0);
  buf.remaining = static_cast<int>(batches_[b].size());
  buf.error_sample = -1;
  buf.error_code = StatusCode::kOk;
  buf.error.clear();
}

bool SamplePipeline::Claimable() const {
  return next_task_ < total_tasks_ && next_task_ / batch_size_ < released_ + prefetch_;
}

void SamplePipeline::Start(uint64_t epoch, std::vector<std::vector<int64_t>> batches) {
  MutexLock lock(&mu_);
  total_tasks_ = 0;  // nothing more is claimed from the old epoch
  while (in_flight_ > 0) lock.Wait(&done_cv_);
  epoch_ = epoch;
  batches_ = std::move(batches);
  for (size_t b = 0; b < batches_.size(); ++b) {
    WEFT_CHECK(!batches_[b].empty() && batches_[b].size() <= size_t(batch_size_) &&
               (b + 1 == batches_.size() || batches_[b].size() == size_t(batch_size_)));
  }
  total_tasks_ = batches_.empty()
                     ? 0
                     : int64_t(batches_.size() - 1) * batch_size_ + int64_t(batches_.back().size());
  next_task_ = 0;
  next_batch_ = 0;
  released_ = 0;
  for (int64_t b = 0; b < int64_t(batches_.size()) && b < prefetch_; ++b) InitBuffer(b);
  lock.Unlock();
  work_cv_.notify_all();
  lock.Lock();
}

const SamplePipeline::Batch* SamplePipeline::Take() {
  MutexLock lock(&mu_);
  const int64_t k = next_batch_;
  if (k >= int64_t(batches_.size())) return nullptr;
  // Taking batch k gives back batch k - 1's buffer, for batch k - 1 + prefetch.
  if (k >= 1 && k - 1 + prefetch_ < int64_t(batches_.size())) InitBuffer(k - 1 + prefetch_);
  released_ = k;
  Buffer& buf = buffers_[k % prefetch_];
  WEFT_CHECK_EQ(buf.index, k);
  lock.Unlock();
  work_cv_.notify_all();
  lock.Lock();
  while (buf.remaining > 0) lock.Wait(&done_cv_);
  next_batch_ = k + 1;
  if (buf.error_sample >= 0) {
    // Waiting for the batch's other samples keeps its buffer out of the
    // workers' hands until the next Take.
    throw Error(buf.error_code, buf.error);
  }
  return &buf.batch;
}

void SamplePipeline::Finish(int64_t task, const Error* error) {
  MutexLock lock(&mu_);
  --in_flight_;
  Buffer& buf = buffers_[(task / batch_size_) % prefetch_];
  WEFT_CHECK(buf.index == task / batch_size_ && buf.remaining > 0)
      << "a sample finished into a buffer that is not its batch's";
  if (error != nullptr && (buf.error_sample < 0 || task < buf.error_sample)) {
    buf.error_sample = task;
    buf.error_code = error->code();
    buf.error = error->what();
  }
  --buf.remaining;
  if (buf.remaining == 0 || in_flight_ == 0) done_cv_.notify_all();
}

void SamplePipeline::Worker() {
  for (;;) {
    int64_t task = 0, sample = 0;
    uint64_t epoch = 0;
    unsigned char* data = nullptr;
    float* label = nullptr;
    int64_t* tag = nullptr;
    {
      MutexLock lock(&mu_);
      while (!stop_ && !Claimable()) lock.Wait(&work_cv_);
      if (stop_) return;
      task = next_task_++;
      ++in_flight_;
      const int64_t b = task / batch_size_, row = task % batch_size_;
      sample = batches_[b][row];
      epoch = epoch_;
      Buffer& buf = buffers_[b % prefetch_];
      data = buf.batch.data.data() + row * data_bytes_;
      label = buf.batch.label.data() + row * label_floats_;
      tag = &buf.batch.tags[row];
    }
    try {
      *tag = fill_(sample, epoch, data, label);
      Finish(task, nullptr);
    } catch (const Error& e) {
      Finish(task, &e);
    } catch (const std::exception& e) {
      const Error wrapped(StatusCode::kInternal, e.what());
      Finish(task, &wrapped);
    } catch (...) {
      const Error wrapped(StatusCode::kInternal, "a sample's fill threw a non-standard exception");
      Finish(task, &wrapped);
    }
  }
}

}  // namespace weft
