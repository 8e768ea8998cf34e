// ImageRecordIter (weft/image_record_iter.h): the record list and its
// parts, the epochs' batch plans, and the DataIter over a SamplePipeline
// whose fill (image_record_sample.cc) reads, decodes, augments and
// normalises one record.
#include "weft/image_record_iter.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>

#include "io/byte_io.h"
#include "train/image_record_sample.h"
#include "train/row_batcher.h"
#include "train/sample_pipeline.h"
#include "weft/recordio.h"
#include "weft/runtime.h"

namespace weft {
namespace {

void Check(bool ok, const char* name, const std::string& expected, double given) {
  if (!ok)
    Fail(StatusCode::kInvalidArgument, "ImageRecordIter: ", name, " must be ", expected, ", given ",
         given);
}

void CheckParams(const ImageRecordIterParams& p) {
  if (p.path_imgrec.empty())
    Fail(StatusCode::kInvalidArgument, "ImageRecordIter: path_imgrec (the .rec file) is required");
  Check(p.batch_size >= 1, "batch_size", ">= 1", p.batch_size);
  Check(p.label_width >= 1, "label_width", ">= 1", p.label_width);
  Check(p.preprocess_threads >= 1, "preprocess_threads", ">= 1", p.preprocess_threads);
  Check(p.prefetch_buffer >= 1, "prefetch_buffer", ">= 1", p.prefetch_buffer);
  Check(p.num_parts >= 1, "num_parts", ">= 1", p.num_parts);
  Check(p.part_index >= 0 && p.part_index < p.num_parts, "part_index",
        StrCat("in [0, num_parts = ", p.num_parts, ")"), p.part_index);
  Check(p.std_r != 0 && p.std_g != 0 && p.std_b != 0, "std_r, std_g and std_b", "nonzero", 0);
  if (p.dtype != DType::kFloat32 && p.dtype != DType::kUint8)
    Fail(StatusCode::kDType, "ImageRecordIter: dtype must be float32 or uint8, given ",
         DTypeName(p.dtype));
  if (p.shuffle && p.path_imgidx.empty())
    Fail(StatusCode::kInvalidArgument, "ImageRecordIter: shuffle needs path_imgidx (the .idx ",
         "index of ", p.path_imgrec, "; im2rec writes it): Weft shuffles records by the index");
}

// The byte offsets of the file's records in file order: the index's
// (sorted, as dmlc-core's indexed split sorts them), or a scan of the file.
std::vector<uint64_t> ListRecords(const ImageRecordIterParams& p) {
  std::vector<uint64_t> offsets;
  if (!p.path_imgidx.empty()) {
    const RecordIOIndex index = RecordIOIndex::Load(p.path_imgidx);
    for (int64_t key : index.keys()) offsets.push_back(index.Offset(key));
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    return offsets;
  }
  RecordIOReader reader(p.path_imgrec);
  std::string rec;
  for (uint64_t at = reader.Tell(); reader.Next(&rec); at = reader.Tell()) offsets.push_back(at);
  return offsets;
}

}  // namespace

struct ImageRecordIter::Impl {
  ImageRecordIterParams params;
  Runtime* rt;
  std::unique_ptr<RecordSampler> sampler;
  int64_t begin = 0, count = 0;  // the part: records [begin, begin + count)
  uint64_t epoch = 0;
  int64_t carry = 0;       // records of this epoch's order a wrapped batch already took
  int64_t next_carry = 0;  // what this epoch's wrapped last batch takes from the next
  int last_pad = 0;
  int64_t num_batches = 0, returned = 0;
  DataBatch batch;
  bool has_value = false;
  std::unique_ptr<SamplePipeline> pipeline;

  std::vector<int64_t> Order(uint64_t e) const;
  void Plan();
};

std::vector<int64_t> ImageRecordIter::Impl::Order(uint64_t e) const {
  std::vector<int64_t> order(count);
  std::iota(order.begin(), order.end(), begin);
  if (params.shuffle) {
    std::seed_seq seq{uint32_t(params.seed), uint32_t(e), uint32_t(e >> 32), 0x5eed1du};
    std::mt19937 rng(seq);
    std::shuffle(order.begin(), order.end(), rng);
  }
  return order;
}

void ImageRecordIter::Impl::Plan() {
  const int bs = params.batch_size;
  const std::vector<int64_t> order = Order(epoch);
  std::vector<std::vector<int64_t>> batches;
  for (int64_t i = carry; i < count; i += bs)
    batches.emplace_back(order.begin() + i, order.begin() + std::min<int64_t>(i + bs, count));
  last_pad = 0;
  next_carry = 0;
  if (!batches.empty() && batches.back().size() < size_t(bs)) {
    last_pad = bs - static_cast<int>(batches.back().size());
    if (params.round_batch) {
      const std::vector<int64_t> next = Order(epoch + 1);
      batches.back().insert(batches.back().end(), next.begin(), next.begin() + last_pad);
      next_carry = last_pad;
    }
  }
  num_batches = static_cast<int64_t>(batches.size());
  returned = 0;
  has_value = false;
  pipeline->Start(epoch, std::move(batches));
}

ImageRecordIter::ImageRecordIter(const ImageRecordIterParams& params, Runtime* rt)
    : impl_(new Impl) {
  CheckParams(params);
  Impl& m = *impl_;
  m.params = params;
  m.params.aug.data_shape = params.data_shape;
  m.rt = rt;
  io::CheckReadableFile(params.path_imgrec);
  m.sampler.reset(new RecordSampler(m.params));
  const std::vector<uint64_t> offsets = ListRecords(m.params);
  const int64_t n = static_cast<int64_t>(offsets.size());
  const int64_t step = (n + params.num_parts - 1) / params.num_parts;
  m.begin = std::min(n, step * params.part_index);
  m.count = std::min(n, m.begin + step) - m.begin;
  if (m.count == 0)
    Fail(StatusCode::kInvalidArgument, "ImageRecordIter: part ", params.part_index, " of ",
         params.num_parts, " of ", params.path_imgrec, " (", n, " records) is empty");
  if (params.round_batch && m.count < params.batch_size)
    Fail(StatusCode::kInvalidArgument, "ImageRecordIter: ", m.count, " records in ",
         params.path_imgrec, (params.num_parts > 1 ? "'s part" : ""), ", fewer than batch_size ",
         params.batch_size,
         " (round_batch: number of input images must be bigger than the batch size)");
  m.sampler->SetOffsets(offsets);
  m.batch.data.push_back(ZeroBatchArray(params.batch_size, params.data_shape, params.dtype, rt));
  m.batch.label.push_back(
      ZeroBatchArray(params.batch_size, Shape({params.label_width}), DType::kFloat32, rt));
  m.batch.index.assign(params.batch_size, 0);
  RecordSampler* sampler = m.sampler.get();
  m.pipeline.reset(new SamplePipeline(
      params.preprocess_threads, params.prefetch_buffer, params.batch_size, sampler->data_bytes(),
      static_cast<size_t>(params.label_width),
      [sampler](int64_t record, uint64_t epoch, unsigned char* data, float* label) {
        return sampler->Fill(record, epoch, data, label);
      }));
  m.Plan();
}

ImageRecordIter::~ImageRecordIter() = default;

void ImageRecordIter::Reset() {
  Impl& m = *impl_;
  // A wrapped last batch already took the next epoch's first records.
  m.carry = (m.params.round_batch && m.returned == m.num_batches) ? m.next_carry : 0;
  ++m.epoch;
  m.Plan();
}

bool ImageRecordIter::Next() {
  Impl& m = *impl_;
  m.has_value = false;
  if (m.returned >= m.num_batches) return false;
  ++m.returned;
  const SamplePipeline::Batch* b = m.pipeline->Take();
  if (b == nullptr) return false;
  const int rows = static_cast<int>(b->samples.size());
  NDArray& data = m.batch.data[0];
  NDArray& label = m.batch.label[0];
  data.WaitToWrite();
  label.WaitToWrite();
  const size_t row_bytes = m.sampler->data_bytes();
  std::copy_n(b->data.data(), row_bytes * rows, static_cast<unsigned char*>(data.dptr()));
  std::copy_n(b->label.data(), size_t(m.params.label_width) * rows,
              static_cast<float*>(label.dptr()));
  for (int i = 0; i < rows; ++i) m.batch.index[i] = b->tags[i];
  m.batch.pad = m.returned == m.num_batches ? m.last_pad : 0;
  m.has_value = true;
  return true;
}

const DataBatch& ImageRecordIter::Value() const {
  WEFT_CHECK(impl_->has_value) << "ImageRecordIter: Value() without a batch (call Next() first)";
  return impl_->batch;
}

std::vector<DataDesc> ImageRecordIter::provide_data() const {
  const ImageRecordIterParams& p = impl_->params;
  std::vector<int64_t> dims = {p.batch_size};
  for (int i = 0; i < p.data_shape.ndim(); ++i) dims.push_back(p.data_shape[i]);
  return {{p.data_name, Shape(dims), p.dtype}};
}

std::vector<DataDesc> ImageRecordIter::provide_label() const {
  const ImageRecordIterParams& p = impl_->params;
  return {{p.label_name, Shape({p.batch_size, p.label_width}), DType::kFloat32}};
}

int ImageRecordIter::batch_size() const { return impl_->params.batch_size; }
int64_t ImageRecordIter::num_batches() const { return impl_->num_batches; }
int64_t ImageRecordIter::num_records() const { return impl_->count; }
const ImageRecordIterParams& ImageRecordIter::params() const { return impl_->params; }

}  // namespace weft
