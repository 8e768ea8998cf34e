// MXNet's ImageRecordIter (src/io/iter_image_recordio_2.cc): batches of
// images decoded from a RecordIO file (weft/recordio.h) that MXNet's
// im2rec wrote, augmented (weft/image_aug.h) and normalised on worker
// threads, as NCHW arrays with labels from each record's IRHeader.
//
// Records: the `.rec` records in file order, or with `path_imgidx` the
// records its `.idx` lists, in file-offset order (dmlc-core's indexed
// split). `num_parts` / `part_index` select part k of n: records
// [k * ceil(N / n), (k + 1) * ceil(N / n)) (dmlc-core's indexed split; MXNet
// splits an unindexed file by bytes instead, Weft by records in both cases).
// `shuffle` permutes the part's records every epoch (std::mt19937 seeded
// with `seed` and the epoch) and needs `path_imgidx` (MXNet shuffles
// chunks of an unindexed file; Weft refuses it).
//
// Per record, on one of `preprocess_threads` workers: DecodeImage with
// data_shape[0] channels, ImageAugmenter::Process, then MXNet's mirror and
// normalisation: mirrored when `mirror`, or by a coin flip with
// `rand_mirror`; out = (pixel - mean_c) * (contrast / std_c) + illumination /
// std_c with contrast = (1 + U(-max_random_contrast, +)) * scale and
// illumination = U(-max_random_illumination, +) * scale (dtype uint8: the
// pixels as they are). Every random draw comes from a std::mt19937 seeded
// with (seed, epoch, the record's position in the file), so a batch holds
// the same values for any thread count (MXNet seeds per thread and is not
// reproducible across thread counts). Up to `prefetch_buffer` batches are
// prepared ahead of the trainer.
//
// Batches follow MXNet's: a short last batch is completed with the first
// records of the next epoch's order when round_batch (pad = their number;
// that epoch then starts after them), else it keeps the previous batch's
// values in its last `pad` rows. `index` holds each row's record id (the
// IRHeader's id). Errors of a record (corrupt image, label count) are
// thrown by Next() naming the record (its position, id and byte offset) and
// the file. Not synchronised (one consumer thread); the workers are its own.
#ifndef WEFT_IMAGE_RECORD_ITER_H_
#define WEFT_IMAGE_RECORD_ITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weft/data_iter.h"
#include "weft/image_aug.h"

namespace weft {

class Runtime;

// MXNet's ImageRecordIter parameters with its defaults; `aug` holds the
// augmenter's (its data_shape is taken from `data_shape`).
struct ImageRecordIterParams {
  std::string path_imgrec, path_imgidx;
  Shape data_shape;  // (channels 1 or 3, height, width)
  int batch_size = 0;
  int label_width = 1;
  bool shuffle = false;
  int seed = 0;
  bool round_batch = true;
  int num_parts = 1, part_index = 0;
  int preprocess_threads = 4;
  int prefetch_buffer = 4;
  DType dtype = DType::kFloat32;  // float32 or uint8
  bool mirror = false, rand_mirror = false;
  float mean_r = 0, mean_g = 0, mean_b = 0;
  float std_r = 1, std_g = 1, std_b = 1;
  float scale = 1;
  float max_random_contrast = 0, max_random_illumination = 0;
  ImageAugParams aug;
  std::string data_name = "data";
  std::string label_name = "softmax_label";
};

class ImageRecordIter : public DataIter {
 public:
  // Opens the files, lists the part's records and starts the workers.
  // Throws Error(kIO) for an unreadable file; kInvalidArgument for a bad
  // parameter (naming it), shuffle without path_imgidx, an empty part, or
  // a part with fewer records than a round_batch batch needs; kDType for
  // another dtype; kNotImplemented as ImageAugmenter does.
  ImageRecordIter(const ImageRecordIterParams& params, Runtime* rt);
  ~ImageRecordIter() override;
  ImageRecordIter(const ImageRecordIter&) = delete;
  ImageRecordIter& operator=(const ImageRecordIter&) = delete;

  void Reset() override;
  // Throws the first error among the batch's records (the batch is then
  // skipped; the next call goes on with the following batch).
  bool Next() override;
  const DataBatch& Value() const override;
  std::vector<DataDesc> provide_data() const override;
  std::vector<DataDesc> provide_label() const override;
  int batch_size() const override;
  int64_t num_batches() const override;
  // Records in this part.
  int64_t num_records() const;
  const ImageRecordIterParams& params() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace weft

#endif  // WEFT_IMAGE_RECORD_ITER_H_
