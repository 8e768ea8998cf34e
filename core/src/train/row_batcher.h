// Batches of fixed-size rows held in memory, as MXNet's BatchLoader makes
// them from an instance iterator (src/io/iter_batchloader.h): the shared
// batching of CSVIter and LibSVMIter. Not installed; not synchronised.
#ifndef WEFT_CORE_SRC_TRAIN_ROW_BATCHER_H_
#define WEFT_CORE_SRC_TRAIN_ROW_BATCHER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "weft/data_iter.h"

namespace weft {

class RowBatcher {
 public:
  // `data`/`label`: `num_rows` packed rows of `data_row_bytes` and
  // `label_row_bytes`; `batch` holds one data and one label array of
  // batch_size rows of those sizes (zeroed; rewritten by Next). `what` names
  // the source in errors ("CSVIter: data.csv").
  RowBatcher(std::vector<unsigned char> data, size_t data_row_bytes,
             std::vector<unsigned char> label, size_t label_row_bytes, int64_t num_rows,
             int batch_size, bool round_batch, DataBatch batch, std::string what);

  // BatchLoader::BeforeFirst: rewinds unless the last batch wrapped around
  // with round_batch, in which case the next epoch continues after the rows
  // that batch took from the start.
  void Reset();
  // BatchLoader::Next: fills the next batch; a short last batch is completed
  // from the first rows (round_batch; pad = rows added, then the epoch ends)
  // or keeps its stale last rows (pad = their count). Throws
  // kInvalidArgument when round_batch needs more rows than there are.
  bool Next();
  // REQUIRES: the last Next() returned true.
  const DataBatch& Value() const;
  int64_t num_rows() const { return num_rows_; }
  const DataBatch& batch() const { return batch_; }

 private:
  void CopyRow(int64_t row, int slot);

  std::vector<unsigned char> data_, label_;
  size_t data_row_bytes_, label_row_bytes_;
  int64_t num_rows_;
  int batch_size_;
  bool round_batch_;
  DataBatch batch_;
  std::string what_;
  int64_t pos_ = 0;       // the next row the instance iterator reads
  int64_t overflow_ = 0;  // rows a round_batch wrap took from the start
  bool has_value_ = false;
};

// A zeroed cpu(0) array of shape (batch_size, shape...).
NDArray ZeroBatchArray(int batch_size, const Shape& shape, DType dtype, Runtime* rt);

}  // namespace weft

#endif  // WEFT_CORE_SRC_TRAIN_ROW_BATCHER_H_
