// NDArrayIter: batches of in-memory arrays (see weft/data_iter.h).
#include "weft/data_iter.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>

namespace weft {
namespace {

// Uniform in [0, n) from a 64-bit generator by rejection, so the result
// does not depend on the standard library's distribution implementation.
uint64_t UniformBelow(std::mt19937_64& g, uint64_t n) {
  const uint64_t threshold = (0 - n) % n;  // 2^64 mod n
  uint64_t x;
  do {
    x = g();
  } while (x < threshold);
  return x % n;
}

void CheckSources(const std::vector<std::pair<std::string, NDArray>>& arrays, const char* kind,
                  std::set<std::string>* names, int64_t* num, std::string* first_name) {
  for (size_t i = 0; i < arrays.size(); ++i) {
    const std::string& name = arrays[i].first;
    const NDArray& a = arrays[i].second;
    if (name.empty())
      Fail(StatusCode::kInvalidArgument, "NDArrayIter: ", kind, " ", i, " has an empty name");
    if (!names->insert(name).second)
      Fail(StatusCode::kInvalidArgument, "NDArrayIter: name '", name, "' is given twice");
    if (a.is_none())
      Fail(StatusCode::kInvalidArgument, "NDArrayIter: ", kind, " '", name,
           "' is an empty (none) array");
    if (a.shape().ndim() < 1)
      Fail(StatusCode::kInvalidArgument, "NDArrayIter: ", kind, " '", name,
           "' is a scalar (expected at least 1 dimension, samples along the first)");
    if (a.ctx().dev_type != DeviceType::kCPU)
      Fail(StatusCode::kDevice, "NDArrayIter: ", kind, " '", name, "' is on ", a.ctx().ToString(),
           " (expected cpu)");
    if (*num < 0) {
      *num = a.shape()[0];
      *first_name = name;
    } else if (a.shape()[0] != *num) {
      Fail(StatusCode::kInvalidArgument, "NDArrayIter: first dimensions differ: '", *first_name,
           "' has ", *num, " samples, ", kind, " '", name, "' has ", a.shape()[0], " (shape ",
           a.shape(), ")");
    }
  }
}

NDArray BatchArray(const NDArray& src, int batch_size) {
  std::vector<int64_t> dims = src.shape().dims();
  dims[0] = batch_size;
  return NDArray(Shape(dims), Context::CPU(), src.dtype(), src.runtime());
}

std::vector<DataDesc> Describe(const std::vector<std::pair<std::string, NDArray>>& arrays,
                               int batch_size) {
  std::vector<DataDesc> out;
  for (const auto& kv : arrays) {
    std::vector<int64_t> dims = kv.second.shape().dims();
    dims[0] = batch_size;
    out.push_back(DataDesc{kv.first, Shape(dims), kv.second.dtype()});
  }
  return out;
}

}  // namespace

DataIter::~DataIter() = default;

LastBatch ParseLastBatch(const std::string& s) {
  if (s == "pad") return LastBatch::kPad;
  if (s == "discard") return LastBatch::kDiscard;
  if (s == "roll_over") return LastBatch::kRollOver;
  Fail(StatusCode::kInvalidArgument, "last_batch_handle: unknown value '", s,
       "' (expected pad, discard or roll_over)");
}

const char* LastBatchName(LastBatch b) {
  switch (b) {
    case LastBatch::kPad:
      return "pad";
    case LastBatch::kDiscard:
      return "discard";
    case LastBatch::kRollOver:
      return "roll_over";
  }
  return "unknown";
}

NDArrayIter::NDArrayIter(std::vector<std::pair<std::string, NDArray>> data,
                         std::vector<std::pair<std::string, NDArray>> label, int batch_size,
                         bool shuffle, LastBatch last_batch, uint64_t seed)
    : data_(std::move(data)),
      label_(std::move(label)),
      batch_size_(batch_size),
      shuffle_(shuffle),
      last_batch_(last_batch),
      rng_(seed) {
  if (batch_size <= 0)
    Fail(StatusCode::kInvalidArgument, "NDArrayIter: batch_size must be positive, given ",
         batch_size);
  if (data_.empty())
    Fail(StatusCode::kInvalidArgument, "NDArrayIter: no data arrays given (expected at least one)");
  std::set<std::string> names;
  int64_t num = -1;
  std::string first;
  CheckSources(data_, "data", &names, &num, &first);
  CheckSources(label_, "label", &names, &num, &first);
  num_data_ = num;
  order_.resize(static_cast<size_t>(num_data_));
  std::iota(order_.begin(), order_.end(), int64_t{0});
  for (const auto& kv : data_) batch_.data.push_back(BatchArray(kv.second, batch_size_));
  for (const auto& kv : label_) batch_.label.push_back(BatchArray(kv.second, batch_size_));
  batch_.index.reserve(static_cast<size_t>(batch_size_));
  // MXNet's constructor calls reset(), which shuffles.
  if (shuffle_) Shuffle();
}

NDArrayIter::~NDArrayIter() = default;

void NDArrayIter::Shuffle() {
  for (size_t i = order_.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(UniformBelow(rng_, i));
    std::swap(order_[i - 1], order_[j]);
  }
}

void NDArrayIter::SelectPart(int num_parts, int part_index) {
  if (num_parts < 1 || part_index < 0 || part_index >= num_parts)
    Fail(StatusCode::kInvalidArgument, "NDArrayIter: part_index ", part_index, " of num_parts ",
         num_parts, " (expected num_parts >= 1 and 0 <= part_index < num_parts)");
  const int64_t total = data_[0].second.shape()[0];
  const int64_t begin = total * part_index / num_parts, end = total * (part_index + 1) / num_parts;
  if (end == begin)
    Fail(StatusCode::kInvalidArgument, "NDArrayIter: part ", part_index, " of ", num_parts, " of ",
         total, " samples is empty");
  num_data_ = end - begin;
  order_.resize(static_cast<size_t>(num_data_));
  std::iota(order_.begin(), order_.end(), begin);
  HardReset();
}

void NDArrayIter::Reset() {
  if (shuffle_) Shuffle();
  // A second Reset without Next drops the carried samples, as MXNet's does.
  carry_ = std::move(leftover_);
  leftover_.clear();
  cursor_ = 0;
  has_value_ = false;
}

void NDArrayIter::HardReset() {
  if (shuffle_) Shuffle();
  carry_.clear();
  leftover_.clear();
  cursor_ = 0;
  has_value_ = false;
}

int64_t NDArrayIter::num_batches() const {
  const int64_t total = static_cast<int64_t>(carry_.size()) + num_data_;
  if (last_batch_ == LastBatch::kPad) return (total + batch_size_ - 1) / batch_size_;
  return total / batch_size_;
}

bool NDArrayIter::Next() {
  has_value_ = false;
  const int64_t ncarry = static_cast<int64_t>(carry_.size());
  const int64_t total = ncarry + num_data_;
  auto at = [&](int64_t pos) { return pos < ncarry ? carry_[pos] : order_[pos - ncarry]; };
  const int64_t remaining = total - cursor_;
  if (remaining <= 0) return false;
  std::vector<int64_t> rows;
  rows.reserve(static_cast<size_t>(batch_size_));
  int pad = 0;
  if (remaining >= batch_size_) {
    for (int64_t k = 0; k < batch_size_; ++k) rows.push_back(at(cursor_ + k));
    // MXNet reports the carried samples of a roll_over batch as its pad.
    if (cursor_ < ncarry) pad = static_cast<int>(std::min<int64_t>(ncarry - cursor_, batch_size_));
    cursor_ += batch_size_;
  } else if (last_batch_ == LastBatch::kPad) {
    for (int64_t k = 0; k < remaining; ++k) rows.push_back(at(cursor_ + k));
    for (int64_t k = 0; k < batch_size_ - remaining; ++k) rows.push_back(order_[k % num_data_]);
    pad = static_cast<int>(batch_size_ - remaining);
    cursor_ = total;
  } else {
    if (last_batch_ == LastBatch::kRollOver)
      for (int64_t k = 0; k < remaining; ++k) leftover_.push_back(at(cursor_ + k));
    cursor_ = total;
    return false;
  }
  Fill(rows);
  batch_.pad = pad;
  batch_.index = std::move(rows);
  has_value_ = true;
  return true;
}

void NDArrayIter::Fill(const std::vector<int64_t>& rows) {
  auto gather = [&](const std::vector<std::pair<std::string, NDArray>>& src,
                    std::vector<NDArray>* dst) {
    for (size_t s = 0; s < src.size(); ++s) {
      const NDArray& from = src[s].second;
      NDArray& to = (*dst)[s];
      from.WaitToRead();
      to.WaitToWrite();
      const size_t row_bytes = from.Bytes() / static_cast<size_t>(from.shape()[0]);
      const auto* in = static_cast<const unsigned char*>(from.dptr());
      auto* out = static_cast<unsigned char*>(to.dptr());
      for (size_t i = 0; i < rows.size(); ++i)
        std::memcpy(out + i * row_bytes, in + static_cast<size_t>(rows[i]) * row_bytes, row_bytes);
    }
  };
  gather(data_, &batch_.data);
  gather(label_, &batch_.label);
}

const DataBatch& NDArrayIter::Value() const {
  if (!has_value_)
    Fail(StatusCode::kInvalidArgument,
         "NDArrayIter: no current batch (call Next() and check that it returned true)");
  return batch_;
}

std::vector<DataDesc> NDArrayIter::provide_data() const { return Describe(data_, batch_size_); }
std::vector<DataDesc> NDArrayIter::provide_label() const { return Describe(label_, batch_size_); }

}  // namespace weft
