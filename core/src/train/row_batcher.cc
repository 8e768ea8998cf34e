// MXNet's BatchLoader over rows in memory (see row_batcher.h), and the
// RowBatchIter over it (row_batch_iter.h).
#include "train/row_batcher.h"

#include <cstring>
#include <utility>

#include "weft/row_batch_iter.h"

namespace weft {

RowBatcher::RowBatcher(std::vector<unsigned char> data, size_t data_row_bytes,
                       std::vector<unsigned char> label, size_t label_row_bytes, int64_t num_rows,
                       int batch_size, bool round_batch, DataBatch batch, std::string what)
    : data_(std::move(data)),
      label_(std::move(label)),
      data_row_bytes_(data_row_bytes),
      label_row_bytes_(label_row_bytes),
      num_rows_(num_rows),
      batch_size_(batch_size),
      round_batch_(round_batch),
      batch_(std::move(batch)),
      what_(std::move(what)) {
  WEFT_CHECK(batch_.data.size() == 1 && batch_.label.size() == 1) << what_;
  WEFT_CHECK(data_.size() == static_cast<size_t>(num_rows) * data_row_bytes) << what_;
  WEFT_CHECK(label_.size() == static_cast<size_t>(num_rows) * label_row_bytes) << what_;
  batch_.index.assign(batch_size, 0);
}

void RowBatcher::Reset() {
  if (!round_batch_ || overflow_ == 0) pos_ = 0;
  overflow_ = 0;
  has_value_ = false;
}

void RowBatcher::CopyRow(int64_t row, int slot) {
  auto* d = static_cast<unsigned char*>(batch_.data[0].dptr());
  auto* l = static_cast<unsigned char*>(batch_.label[0].dptr());
  std::memcpy(d + slot * data_row_bytes_, data_.data() + row * data_row_bytes_, data_row_bytes_);
  std::memcpy(l + slot * label_row_bytes_, label_.data() + row * label_row_bytes_,
              label_row_bytes_);
  batch_.index[slot] = row;
}

bool RowBatcher::Next() {
  has_value_ = false;
  if (overflow_ != 0) return false;  // the wrapped batch ended the epoch
  batch_.data[0].WaitToWrite();
  batch_.label[0].WaitToWrite();
  int top = 0;
  while (top < batch_size_ && pos_ < num_rows_) CopyRow(pos_++, top++);
  if (top == 0) return false;
  batch_.pad = 0;
  if (top < batch_size_ && round_batch_) {
    if (batch_size_ - top > num_rows_)
      Fail(StatusCode::kInvalidArgument, what_, ": round_batch needs ", batch_size_ - top,
           " rows from the start to complete the last batch, it has ", num_rows_,
           " (number of input must be bigger than batch size)");
    pos_ = 0;
    for (; top < batch_size_; ++top, ++overflow_) CopyRow(pos_++, top);
    batch_.pad = static_cast<int>(overflow_);
  } else if (top < batch_size_) {
    batch_.pad = batch_size_ - top;
  }
  has_value_ = true;
  return true;
}

const DataBatch& RowBatcher::Value() const {
  WEFT_CHECK(has_value_) << what_ << ": Value() without a batch (call Next() first)";
  return batch_;
}

NDArray ZeroBatchArray(int batch_size, const Shape& shape, DType dtype, Runtime* rt) {
  std::vector<int64_t> dims = {batch_size};
  for (int i = 0; i < shape.ndim(); ++i) dims.push_back(shape[i]);
  NDArray a(Shape(dims), Context::CPU(), dtype, rt);
  std::vector<unsigned char> zeros(a.Bytes(), 0);
  a.CopyFromHost(zeros.data(), zeros.size());
  return a;
}

// ------------------------------------------------------------ RowBatchIter

RowBatchIter::RowBatchIter(std::string data_name, std::string label_name, DType dtype)
    : data_name_(std::move(data_name)), label_name_(std::move(label_name)), dtype_(dtype) {}

RowBatchIter::~RowBatchIter() = default;

void RowBatchIter::SetRows(std::unique_ptr<RowBatcher> rows) { rows_ = std::move(rows); }

void RowBatchIter::Reset() { rows_->Reset(); }

bool RowBatchIter::Next() { return rows_->Next(); }

const DataBatch& RowBatchIter::Value() const { return rows_->Value(); }

int RowBatchIter::batch_size() const { return static_cast<int>(rows_->batch().data[0].shape()[0]); }

int64_t RowBatchIter::num_data() const { return rows_->num_rows(); }

std::vector<DataDesc> RowBatchIter::provide_data() const {
  return {{data_name_, rows_->batch().data[0].shape(), dtype_}};
}

std::vector<DataDesc> RowBatchIter::provide_label() const {
  return {{label_name_, rows_->batch().label[0].shape(), dtype_}};
}

}  // namespace weft
