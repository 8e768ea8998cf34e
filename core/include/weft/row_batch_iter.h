// RowBatchIter: the DataIter that CSVIter and LibSVMIter are, MXNet's
// BatchLoader over fixed-size rows a subclass has read into memory
// (core/src/train/row_batcher.h does the batching: round_batch, pad,
// index). A subclass's constructor parses its files and hands the rows over
// with SetRows. Not synchronised.
#ifndef WEFT_ROW_BATCH_ITER_H_
#define WEFT_ROW_BATCH_ITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weft/data_iter.h"

namespace weft {

class RowBatcher;

class RowBatchIter : public DataIter {
 public:
  ~RowBatchIter() override;
  RowBatchIter(const RowBatchIter&) = delete;
  RowBatchIter& operator=(const RowBatchIter&) = delete;

  void Reset() override;
  // Throws kInvalidArgument when round_batch must wrap a file with fewer
  // rows than the batch needs (MXNet: "number of input must be bigger than
  // batch size").
  bool Next() override;
  const DataBatch& Value() const override;
  std::vector<DataDesc> provide_data() const override;
  std::vector<DataDesc> provide_label() const override;
  int batch_size() const override;
  // Number of data rows.
  int64_t num_data() const;

 protected:
  // Batches named `data_name`/`label_name` of `dtype`.
  RowBatchIter(std::string data_name, std::string label_name, DType dtype);
  void SetRows(std::unique_ptr<RowBatcher> rows);

 private:
  std::string data_name_, label_name_;
  DType dtype_;
  std::unique_ptr<RowBatcher> rows_;
};

}  // namespace weft

#endif  // WEFT_ROW_BATCH_ITER_H_
