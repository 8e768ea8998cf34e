// Data iterators: batches of named arrays for training and scoring.
//
// `DataIter` is the interface the fit loop reads (MXNet's DataIter):
// Reset() starts an epoch, Next() advances to the next batch and returns
// false at the end of the epoch, Value() is the current batch. The
// batch's arrays are owned by the iterator and reused: they are rewritten
// by the next call to Next() (which first waits for pending engine reads
// of them), so copy what must outlive a batch. An iterator is not
// synchronised: use one from one thread at a time.
//
// `NDArrayIter` batches in-memory arrays like MXNet's NDArrayIter (1.x):
// samples are rows along the first axis; with `shuffle`, the sample order
// is permuted at construction and again at every Reset() by a
// Fisher-Yates shuffle driven by std::mt19937_64 seeded with `seed`
// (bit-identical for the same seed on every platform). The last, short
// batch of an epoch is handled by `LastBatch`:
//   kPad       padded with the first samples of the epoch's order
//              (wrapping again if the data is smaller than a batch);
//              `pad` is the number of padded rows.
//   kDiscard   dropped (with shuffle, a different tail every epoch).
//   kRollOver  not returned: its samples are carried to the front of the
//              next epoch's first batch (after Reset), completed by that
//              epoch's first samples. As in MXNet, that batch reports
//              `pad` = the number of carried samples although every row
//              is real data (roll_over is meant for training).
// Rows are gathered into preallocated cpu arrays (one memcpy per row).
#ifndef WEFT_DATA_ITER_H_
#define WEFT_DATA_ITER_H_

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "weft/ndarray.h"

namespace weft {

// The name, batch shape and dtype of one input.
struct DataDesc {
  std::string name;
  Shape shape;
  DType dtype = DType::kFloat32;
};

// One batch: arrays in provide_data()/provide_label() order; `pad` rows at
// the end are padding; `index` holds each row's sample index (row of the
// source arrays).
struct DataBatch {
  std::vector<NDArray> data, label;
  int pad = 0;
  std::vector<int64_t> index;
};

class DataIter {
 public:
  virtual ~DataIter();
  // Starts a new epoch.
  virtual void Reset() = 0;
  // Advances to the next batch; false at the end of an epoch.
  virtual bool Next() = 0;
  // The current batch. REQUIRES: the last Next() returned true.
  virtual const DataBatch& Value() const = 0;
  virtual std::vector<DataDesc> provide_data() const = 0;
  virtual std::vector<DataDesc> provide_label() const = 0;
  virtual int batch_size() const = 0;
  // Batches Next() returns in the current epoch, or -1 when unknown (the
  // progress bar's total).
  virtual int64_t num_batches() const { return -1; }
};

enum class LastBatch { kPad, kDiscard, kRollOver };
// "pad", "discard", "roll_over"; throws Error(kInvalidArgument) listing
// the valid names.
LastBatch ParseLastBatch(const std::string& s);
const char* LastBatchName(LastBatch b);

class NDArrayIter : public DataIter {
 public:
  // data/label: named arrays with equal first dimension (label may be
  // empty; data may not). Arrays must be on the cpu and hold at least one
  // sample. Throws Error(kInvalidArgument) for batch_size <= 0, empty data,
  // empty or repeated names, rank-0 or none arrays, or mismatched first
  // dimensions (naming both arrays and their extents); Error(kDevice) for
  // non-cpu arrays. The source arrays are shared, not copied.
  NDArrayIter(std::vector<std::pair<std::string, NDArray>> data,
              std::vector<std::pair<std::string, NDArray>> label, int batch_size,
              bool shuffle = false, LastBatch last_batch = LastBatch::kPad, uint64_t seed = 0);
  ~NDArrayIter() override;
  // Not copyable: a copy would share the batch arrays.
  NDArrayIter(const NDArrayIter&) = delete;
  NDArrayIter& operator=(const NDArrayIter&) = delete;

  // Starts an epoch: reshuffles (with shuffle) and, with kRollOver, carries
  // the samples left over by the epoch that just ended.
  void Reset() override;
  // Like Reset, but drops carried samples (MXNet's hard_reset).
  void HardReset();
  bool Next() override;
  const DataBatch& Value() const override;
  std::vector<DataDesc> provide_data() const override;
  std::vector<DataDesc> provide_label() const override;
  int batch_size() const override { return batch_size_; }

  // Restricts the iterator to part `part_index` of `num_parts` (MXNet's
  // num_parts / part_index: each worker of a data-parallel job reads its
  // part): the contiguous samples [n*part_index/num_parts,
  // n*(part_index+1)/num_parts) of the n source samples, then HardReset
  // (reshuffling within the part). Batch indices stay source rows. Throws
  // Error(kInvalidArgument) for num_parts < 1, part_index outside
  // [0, num_parts) or an empty part.
  void SelectPart(int num_parts, int part_index);

  // Number of samples iterated (the source arrays' first dimension, or the
  // selected part's size).
  int64_t num_data() const { return num_data_; }
  LastBatch last_batch() const { return last_batch_; }
  bool shuffle() const { return shuffle_; }
  // Batches Next() will return in the current epoch in total.
  int64_t num_batches() const override;

 private:
  void Shuffle();
  // Gathers the rows `rows` (source indices) into the batch arrays.
  void Fill(const std::vector<int64_t>& rows);

  std::vector<std::pair<std::string, NDArray>> data_, label_;
  int batch_size_;
  bool shuffle_;
  LastBatch last_batch_;
  std::mt19937_64 rng_;
  int64_t num_data_ = 0;
  std::vector<int64_t> order_;     // this epoch's sample order
  std::vector<int64_t> carry_;     // roll_over: samples carried into this epoch
  std::vector<int64_t> leftover_;  // roll_over: samples left at this epoch's end
  int64_t cursor_ = 0;             // next position in carry_ + order_
  bool has_value_ = false;
  DataBatch batch_;
};

}  // namespace weft

#endif  // WEFT_DATA_ITER_H_
