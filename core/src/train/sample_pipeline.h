// SamplePipeline: batches whose samples worker threads fill in parallel, a
// bounded number of batches ahead of the consumer (ImageRecordIter's
// decoding and augmentation; MXNet's preprocess_threads and
// prefetch_buffer). Not installed.
//
// An epoch is a list of batches, each a list of sample ids. Workers claim
// samples in epoch order, but only of the `prefetch` batches from the one
// the consumer holds: buffer b % prefetch serves batch b, and is refilled
// for batch b + prefetch once the consumer takes batch b + 1. What a sample
// becomes depends only on its fill call's arguments, so a batch holds the
// same bytes whatever the thread count. A fill that throws marks its batch
// failed; Take() rethrows the error of the batch's first failing sample.
// Take and Start are the consumer's (one thread); the workers synchronise
// with it through one mutex.
#ifndef WEFT_CORE_SRC_TRAIN_SAMPLE_PIPELINE_H_
#define WEFT_CORE_SRC_TRAIN_SAMPLE_PIPELINE_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "weft/mutex.h"
#include "weft/status.h"

namespace weft {

class SamplePipeline {
 public:
  // fill(sample, epoch, data, label): writes one sample's `data_bytes` and
  // `label_floats` and returns a tag for it (ImageRecordIter: the record's
  // id); throws weft::Error on bad input.
  using Fill =
      std::function<int64_t(int64_t sample, uint64_t epoch, unsigned char* data, float* label)>;
  struct Batch {
    std::vector<unsigned char> data;  // batch_size rows of data_bytes
    std::vector<float> label;         // batch_size rows of label_floats
    std::vector<int64_t> samples;     // the batch's sample ids (its real rows)
    std::vector<int64_t> tags;        // what fill returned for each real row
  };

  // Starts `threads` workers (>= 1) and `prefetch` (>= 1) batch buffers.
  SamplePipeline(int threads, int prefetch, int batch_size, size_t data_bytes, size_t label_floats,
                 Fill fill);
  // Stops the workers (waiting for the samples in flight) and joins them.
  ~SamplePipeline();
  SamplePipeline(const SamplePipeline&) = delete;
  SamplePipeline& operator=(const SamplePipeline&) = delete;

  // Drops what is left of the current epoch (waiting for samples in
  // flight) and starts `batches` (each of 1..batch_size samples).
  void Start(uint64_t epoch, std::vector<std::vector<int64_t>> batches);
  // The next batch of the epoch, once all its samples are filled, or null
  // at the end of the epoch. Valid until the next Take or Start. Rethrows a
  // failed sample's error (the batch is then skipped).
  const Batch* Take();

 private:
  struct Buffer {
    Batch batch;
    int64_t index = -1;  // the batch it holds or is being filled for
    int remaining = 0;   // samples not filled yet
    int64_t error_sample = -1;
    StatusCode error_code = StatusCode::kOk;
    std::string error;
  };
  void Worker();
  void InitBuffer(int64_t b) WEFT_REQUIRES(mu_);
  bool Claimable() const WEFT_REQUIRES(mu_);
  void Finish(int64_t task, const Error* error) WEFT_EXCLUDES(mu_);

  const int prefetch_, batch_size_;
  const size_t data_bytes_, label_floats_;
  const Fill fill_;
  Mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  bool stop_ WEFT_GUARDED_BY(mu_) = false;
  uint64_t epoch_ WEFT_GUARDED_BY(mu_) = 0;
  std::vector<std::vector<int64_t>> batches_ WEFT_GUARDED_BY(mu_);
  int64_t total_tasks_ WEFT_GUARDED_BY(mu_) = 0;
  int64_t next_task_ WEFT_GUARDED_BY(mu_) = 0;   // task t: batch t / batch_size, row t % batch_size
  int64_t next_batch_ WEFT_GUARDED_BY(mu_) = 0;  // the batch Take returns next
  // Batches whose buffers the consumer gave back: Take(k) gives back batch
  // k - 1's, so workers fill batches below released_ + prefetch_.
  int64_t released_ WEFT_GUARDED_BY(mu_) = 0;
  int in_flight_ WEFT_GUARDED_BY(mu_) = 0;
  std::vector<Buffer> buffers_ WEFT_GUARDED_BY(mu_);
  std::vector<std::thread> workers_;
};

}  // namespace weft

#endif  // WEFT_CORE_SRC_TRAIN_SAMPLE_PIPELINE_H_
