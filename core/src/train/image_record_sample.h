// RecordSampler: what ImageRecordIter's workers do to one record (read it,
// unpack its IRHeader labels, decode, augment, mirror and normalise into an
// NCHW row), with a pool of RecordIO readers shared by the workers. Not
// installed. Fill is thread-safe; SetOffsets is called once before it.
#ifndef WEFT_CORE_SRC_TRAIN_IMAGE_RECORD_SAMPLE_H_
#define WEFT_CORE_SRC_TRAIN_IMAGE_RECORD_SAMPLE_H_

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "weft/image_aug.h"
#include "weft/image_record_iter.h"
#include "weft/mutex.h"
#include "weft/recordio.h"

namespace weft {

class RecordSampler {
 public:
  // Validates the augmenter's parameters (ImageAugmenter's errors).
  explicit RecordSampler(const ImageRecordIterParams& params);
  ~RecordSampler();
  // The byte offset of each record of the file, by position.
  void SetOffsets(std::vector<uint64_t> offsets) { offsets_ = std::move(offsets); }
  // Bytes of one data row (data_shape's elements in the dtype).
  size_t data_bytes() const { return data_bytes_; }

  // Fills record `record` (a position in the offsets) of epoch `epoch`:
  // `data` gets data_bytes(), `label` label_width floats; returns the
  // record's IRHeader id. Throws weft::Error naming the record, its id,
  // its byte offset and the file.
  int64_t Fill(int64_t record, uint64_t epoch, unsigned char* data, float* label);

 private:
  void Labels(const IRHeader& h, float* label) const;
  void Write(const Image& img, std::mt19937* rng, unsigned char* data) const;
  std::unique_ptr<RecordIOReader> Acquire() WEFT_EXCLUDES(mu_);
  void Release(std::unique_ptr<RecordIOReader> r) WEFT_EXCLUDES(mu_);

  const ImageRecordIterParams params_;
  const ImageAugmenter aug_;
  size_t data_bytes_ = 0;
  std::vector<uint64_t> offsets_;
  Mutex mu_;
  std::vector<std::unique_ptr<RecordIOReader>> readers_ WEFT_GUARDED_BY(mu_);
};

}  // namespace weft

#endif  // WEFT_CORE_SRC_TRAIN_IMAGE_RECORD_SAMPLE_H_
