// RecordSampler (image_record_sample.h): one record of ImageRecordIter,
// following the per-image body of MXNet's ImageRecordIOParser2::ParseChunk
// and ProcessImage.
#include "train/image_record_sample.h"

#include <cstring>
#include <string>
#include <utility>

#include "weft/image.h"
#include "weft/status.h"

namespace weft {

RecordSampler::RecordSampler(const ImageRecordIterParams& params)
    : params_(params), aug_(params.aug) {
  data_bytes_ = size_t(params.data_shape.Size()) * DTypeSize(params.dtype);
}

RecordSampler::~RecordSampler() = default;

std::unique_ptr<RecordIOReader> RecordSampler::Acquire() {
  {
    MutexLock lock(&mu_);
    if (!readers_.empty()) {
      std::unique_ptr<RecordIOReader> r = std::move(readers_.back());
      readers_.pop_back();
      return r;
    }
  }
  return std::unique_ptr<RecordIOReader>(new RecordIOReader(params_.path_imgrec));
}

void RecordSampler::Release(std::unique_ptr<RecordIOReader> r) {
  MutexLock lock(&mu_);
  readers_.push_back(std::move(r));
}

void RecordSampler::Labels(const IRHeader& h, float* label) const {
  if (h.flag > 0) {
    if (h.labels.size() != size_t(params_.label_width))
      Fail(StatusCode::kInvalidArgument, "the record has ", h.labels.size(),
           " labels but label_width is ", params_.label_width);
    std::memcpy(label, h.labels.data(), h.labels.size() * sizeof(float));
    return;
  }
  if (params_.label_width != 1)
    Fail(StatusCode::kInvalidArgument, "the record has a scalar label but label_width is ",
         params_.label_width, " (label_width must be 1 unless the records hold label vectors)");
  label[0] = h.label;
}

// MXNet's ProcessImage: mirror and normalise into (channels, height, width).
void RecordSampler::Write(const Image& img, std::mt19937* rng, unsigned char* data) const {
  const ImageRecordIterParams& p = params_;
  const bool mirrored = (p.rand_mirror && std::bernoulli_distribution(0.5)(*rng)) || p.mirror;
  const int c = img.channels, h = img.height, w = img.width;
  if (p.dtype == DType::kUint8) {
    for (int k = 0; k < c; ++k)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          data[(size_t(k) * h + y) * w + (mirrored ? w - 1 - x : x)] = img.at(y, x)[k];
    return;
  }
  std::uniform_real_distribution<float> unit(0, 1);
  const float contrast =
      (unit(*rng) * p.max_random_contrast * 2 - p.max_random_contrast + 1) * p.scale;
  const float illumination =
      (unit(*rng) * p.max_random_illumination * 2 - p.max_random_illumination) * p.scale;
  const float mean[3] = {p.mean_r, p.mean_g, p.mean_b}, stdv[3] = {p.std_r, p.std_g, p.std_b};
  auto* out = reinterpret_cast<float*>(data);
  for (int k = 0; k < c; ++k) {
    const float mult = contrast / stdv[k], bias = illumination / stdv[k];
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float v = img.at(y, x)[k];
        out[(size_t(k) * h + y) * w + (mirrored ? w - 1 - x : x)] = (v - mean[k]) * mult + bias;
      }
  }
}

int64_t RecordSampler::Fill(int64_t record, uint64_t epoch, unsigned char* data, float* label) {
  const uint64_t offset = offsets_.at(static_cast<size_t>(record));
  std::string rec;
  int64_t id = -1;
  try {
    std::unique_ptr<RecordIOReader> reader = Acquire();
    reader->Seek(offset);
    const bool ok = reader->Next(&rec);
    Release(std::move(reader));
    if (!ok) Fail(StatusCode::kInvalidArgument, "no record at this offset (the file ends)");
    size_t at = 0;
    const IRHeader header = UnpackIRHeader(rec.data(), rec.size(), &at);
    id = static_cast<int64_t>(header.id);
    Labels(header, label);
    Image img =
        DecodeImage(rec.data() + at, rec.size() - at, static_cast<int>(params_.data_shape[0]));
    std::seed_seq seq{uint32_t(params_.seed), uint32_t(epoch), uint32_t(epoch >> 32),
                      uint32_t(record), uint32_t(uint64_t(record) >> 32)};
    std::mt19937 rng(seq);
    img = aug_.Process(std::move(img), &rng);
    WEFT_CHECK(img.height == params_.data_shape[1] && img.width == params_.data_shape[2]);
    Write(img, &rng, data);
  } catch (const Error& e) {
    const std::string who = id >= 0 ? StrCat(", id ", id) : std::string();
    throw Error(e.code(), StrCat("ImageRecordIter: record ", record, who, " (byte offset ", offset,
                                 " of ", params_.path_imgrec, "): ", e.what()));
  }
  return id;
}

}  // namespace weft
