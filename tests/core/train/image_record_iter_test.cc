// ImageRecordIter (weft/image_record_iter.h) over .rec/.idx files written
// here with Weft's RecordIO framing and IRHeader packing (lossless PNG
// payloads, so every expected value is computed from the source pixels):
// batches, labels, ids, padding and MXNet's normalisation; the same
// batches for 1 and 4 threads; disjoint parts; errors naming the record.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/image.h"
#include "weft/image_aug.h"
#include "weft/data_iter_factory.h"
#include "weft/image_record_iter.h"
#include "weft/recordio.h"
#include "weft/runtime.h"

namespace weft {
namespace {

// Image i: 12x10 (w x h), pixel (x, y) = (10 * i + x, 20 + y, 3 * x + y).
Image Source(int i) {
  Image img(10, 12, 3);
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 12; ++x) {
      img.at(y, x)[0] = uint8_t(10 * i + x);
      img.at(y, x)[1] = uint8_t(20 + y);
      img.at(y, x)[2] = uint8_t(3 * x + y);
    }
  return img;
}

struct RecFiles {
  test::TempFiles files;
  std::string rec, idx;
};

// Writes records of `payloads` with ids 100 + i and `labels[i]` (one value:
// a scalar label; more: a label vector), and their index.
void WriteRec(RecFiles* f, const std::string& name, const std::vector<std::string>& payloads,
              const std::vector<std::vector<float>>& labels) {
  std::string bytes, index;
  for (size_t i = 0; i < payloads.size(); ++i) {
    IRHeader h;
    if (labels[i].size() == 1)
      h.label = labels[i][0];
    else
      h.labels = labels[i];
    h.id = 100 + i;
    const std::string rec = PackIRHeader(h, payloads[i].data(), payloads[i].size());
    index += StrCat(i, "\t", bytes.size(), "\n");
    AppendRecordIO(rec.data(), rec.size(), &bytes);
  }
  f->rec = f->files.Write(name + ".rec", bytes);
  f->idx = f->files.Write(name + ".idx", index);
}

void WritePngs(RecFiles* f, const std::string& name, int n) {
  std::vector<std::string> payloads;
  std::vector<std::vector<float>> labels;
  for (int i = 0; i < n; ++i) {
    payloads.push_back(EncodePng(Source(i), 3));
    labels.push_back({float(i % 3)});
  }
  WriteRec(f, name, payloads, labels);
}

ImageRecordIterParams Params(const RecFiles& f, int batch) {
  ImageRecordIterParams p;
  p.path_imgrec = f.rec;
  p.data_shape = Shape({3, 8, 8});
  p.batch_size = batch;
  return p;
}

// The batches of one epoch: (data values, labels, ids, pad) per batch.
struct Epoch {
  std::vector<std::vector<double>> data, label;
  std::vector<std::vector<int64_t>> ids;
  std::vector<int> pads;
};

Epoch ReadEpoch(ImageRecordIter* it) {
  Epoch e;
  while (it->Next()) {
    const DataBatch& b = it->Value();
    e.data.push_back(test::Values(b.data[0]));
    e.label.push_back(test::Values(b.label[0]));
    e.ids.push_back(b.index);
    e.pads.push_back(b.pad);
  }
  return e;
}

TEST(ImageRecordIter, CenterCropsNormalisesAndWrapsTheLastBatch) {
  RecFiles f;
  WritePngs(&f, "center", 10);
  ImageRecordIterParams p = Params(f, 4);
  p.mean_r = 10;
  p.std_g = 2;
  p.scale = 0.5f;
  ImageRecordIter it(p, &Runtime::Global());
  EXPECT_EQ(it.provide_data()[0].shape, Shape({4, 3, 8, 8}));
  EXPECT_EQ(it.provide_label()[0].shape, Shape({4, 1}));
  const Epoch e = ReadEpoch(&it);
  ASSERT_EQ(e.data.size(), 3u);
  EXPECT_EQ(e.pads, (std::vector<int>{0, 0, 2}));
  // round_batch: the last batch is records 8, 9 and then 0, 1 again.
  EXPECT_EQ(e.ids[2], (std::vector<int64_t>{108, 109, 100, 101}));
  const int order[3][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 0, 1}};
  for (int b = 0; b < 3; ++b)
    for (int r = 0; r < 4; ++r) {
      const int i = order[b][r];
      EXPECT_EQ(e.label[b][r], i % 3);
      // Center crop of 12x10 to 8x8: x from 2, y from 1; (v - mean) * scale / std.
      const double* row = e.data[b].data() + r * 192;
      for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) {
          ASSERT_FLOAT_EQ(row[0 * 64 + y * 8 + x], (10 * i + x + 2 - 10) * 0.5);
          ASSERT_FLOAT_EQ(row[1 * 64 + y * 8 + x], (20 + y + 1) * 0.5 / 2);
          ASSERT_FLOAT_EQ(row[2 * 64 + y * 8 + x], (3 * (x + 2) + y + 1) * 0.5);
        }
    }
  // The next epoch starts after the two records the wrapped batch took.
  it.Reset();
  const Epoch e2 = ReadEpoch(&it);
  ASSERT_EQ(e2.ids.size(), 2u);
  EXPECT_EQ(e2.ids[0], (std::vector<int64_t>{102, 103, 104, 105}));
  EXPECT_EQ(e2.ids[1], (std::vector<int64_t>{106, 107, 108, 109}));
}

TEST(ImageRecordIter, WithoutRoundBatchTheLastRowsKeepThePreviousBatch) {
  RecFiles f;
  WritePngs(&f, "noround", 6);
  ImageRecordIterParams p = Params(f, 4);
  p.round_batch = false;
  p.dtype = DType::kUint8;
  p.mirror = true;
  ImageRecordIter it(p, &Runtime::Global());
  const Epoch e = ReadEpoch(&it);
  ASSERT_EQ(e.pads, (std::vector<int>{0, 2}));
  for (size_t i = 2 * 192; i < 4 * 192; ++i) EXPECT_EQ(e.data[1][i], e.data[0][i]);
  // uint8: raw pixels; mirror: column x holds source column 2 + 7 - x.
  EXPECT_EQ(e.data[0][0], 10 * 0 + 2 + 7);
  EXPECT_EQ(e.data[1][7], 10 * 4 + 2);
}

// Every random augmentation on, shuffled: the batches depend only on the seed.
Epoch AugmentedEpochs(const RecFiles& f, int threads, int prefetch, int seed) {
  ImageRecordIterParams p = Params(f, 3);
  p.path_imgidx = f.idx;
  p.shuffle = true;
  p.seed = seed;
  p.rand_mirror = true;
  p.preprocess_threads = threads;
  p.prefetch_buffer = prefetch;
  p.max_random_contrast = 0.2f;
  p.max_random_illumination = 5;
  p.aug.resize = 9;
  p.aug.random_resized_crop = true;
  p.aug.min_random_area = 0.3f;
  p.aug.max_aspect_ratio = 1.25f;
  p.aug.min_aspect_ratio = 0.8f;
  p.aug.brightness = p.aug.contrast = p.aug.saturation = 0.3f;
  p.aug.pca_noise = 0.1f;
  p.aug.max_rotate_angle = 15;
  p.aug.max_shear_ratio = 0.2f;
  p.aug.fill_value = 0;
  p.aug.random_h = 10;
  p.aug.random_s = p.aug.random_l = 20;
  ImageRecordIter it(p, &Runtime::Global());
  Epoch all;
  for (int epoch = 0; epoch < 3; ++epoch) {
    if (epoch > 0) it.Reset();
    Epoch e = ReadEpoch(&it);
    all.data.insert(all.data.end(), e.data.begin(), e.data.end());
    all.ids.insert(all.ids.end(), e.ids.begin(), e.ids.end());
  }
  return all;
}

TEST(ImageRecordIter, SameBatchesForOneAndFourThreads) {
  RecFiles f;
  WritePngs(&f, "threads", 11);
  const Epoch one = AugmentedEpochs(f, 1, 1, 7);
  const Epoch four = AugmentedEpochs(f, 4, 3, 7);
  ASSERT_EQ(one.data.size(), four.data.size());
  EXPECT_EQ(one.ids, four.ids);
  for (size_t b = 0; b < one.data.size(); ++b) ASSERT_EQ(one.data[b], four.data[b]) << b;
  // The seed matters: another seed shuffles and augments differently.
  const Epoch other = AugmentedEpochs(f, 2, 2, 8);
  EXPECT_NE(one.ids, other.ids);
  // Shuffled epochs differ from each other.
  EXPECT_NE(one.ids[0], one.ids[4]);
}

TEST(ImageRecordIter, PartsAreDisjointAndCoverTheFile) {
  RecFiles f;
  WritePngs(&f, "parts", 10);
  std::multiset<int64_t> seen;
  for (int part = 0; part < 3; ++part) {
    ImageRecordIterParams p = Params(f, 2);
    p.round_batch = false;
    p.num_parts = 3;
    p.part_index = part;
    if (part == 1) p.path_imgidx = f.idx;  // by index or by scan: the same parts
    ImageRecordIter it(p, &Runtime::Global());
    EXPECT_EQ(it.num_records(), part < 2 ? 4 : 2);  // ceil(10 / 3) = 4 per part
    const Epoch e = ReadEpoch(&it);
    for (size_t b = 0; b < e.ids.size(); ++b)
      for (size_t r = 0; r < e.ids[b].size() - e.pads[b]; ++r) seen.insert(e.ids[b][r]);
  }
  ASSERT_EQ(seen.size(), 10u);
  EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), 10u);
}

TEST(ImageRecordIter, BadRecordsFailNamingTheRecord) {
  RecFiles f;
  const std::string good = EncodePng(Source(0), 3);
  const std::string jpeg = EncodeJpeg(Source(1), 90);
  WriteRec(&f, "bad", {good, jpeg.substr(0, jpeg.size() - 20), good},
           {{1.f, 2.f, 3.f}, {1.f, 2.f, 3.f}, {4.f}});
  ImageRecordIterParams p = Params(f, 1);
  p.label_width = 3;
  ImageRecordIter it(p, &Runtime::Global());
  ASSERT_TRUE(it.Next());
  EXPECT_EQ(test::Values(it.Value().label[0]), (std::vector<double>{1, 2, 3}));
  test::ExpectError([&] { it.Next(); }, StatusCode::kInvalidArgument,
                    {"record 1, id 101", f.rec, "JPEG", "Premature end"});
  test::ExpectError([&] { it.Next(); }, StatusCode::kInvalidArgument,
                    {"record 2, id 102", "scalar label but label_width is 3"});
  EXPECT_FALSE(it.Next());
  p.label_width = 2;
  ImageRecordIter narrow(p, &Runtime::Global());
  test::ExpectError([&] { narrow.Next(); }, StatusCode::kInvalidArgument,
                    {"record 0, id 100", "has 3 labels but label_width is 2"});
}

TEST(ImageRecordIter, BadParametersAreRefused) {
  RecFiles f;
  WritePngs(&f, "params", 3);
  ImageRecordIterParams p = Params(f, 2);
  p.shuffle = true;
  test::ExpectError([&] { ImageRecordIter it(p, &Runtime::Global()); },
                    StatusCode::kInvalidArgument, {"shuffle needs path_imgidx", f.rec});
  p = Params(f, 4);
  test::ExpectError([&] { ImageRecordIter it(p, &Runtime::Global()); },
                    StatusCode::kInvalidArgument, {"3 records", "fewer than batch_size 4"});
  p = Params(f, 2);
  p.part_index = 1;
  test::ExpectError([&] { ImageRecordIter it(p, &Runtime::Global()); },
                    StatusCode::kInvalidArgument, {"part_index", "given 1"});
  p = Params(f, 2);
  p.dtype = DType::kFloat16;
  test::ExpectError([&] { ImageRecordIter it(p, &Runtime::Global()); }, StatusCode::kDType,
                    {"float32 or uint8"});
  p = Params(f, 2);
  p.path_imgrec = f.rec + ".missing";
  test::ExpectError([&] { ImageRecordIter it(p, &Runtime::Global()); }, StatusCode::kIO,
                    {".missing"});
}

// The iterator factory builds the same iterator from MXNet's parameter
// names (strings, as mx.io.ImageRecordIter(**kwargs) passes them).
TEST(ImageRecordIter, TheFactoryBuildsItFromMXNetsNames) {
  RecFiles f;
  WritePngs(&f, "factory", 5);
  ImageRecordIterParams p = Params(f, 2);
  p.mean_r = 10;
  p.scale = 0.5f;
  ImageRecordIter direct(p, &Runtime::Global());
  std::unique_ptr<DataIter> made = CreateDataIter("ImageRecordIter",
                                                  {{"path_imgrec", f.rec},
                                                   {"data_shape", "(3,8,8)"},
                                                   {"batch_size", "2"},
                                                   {"mean_r", "10"},
                                                   {"scale", "0.5"}},
                                                  &Runtime::Global());
  const Epoch a = ReadEpoch(&direct);
  Epoch b;
  while (made->Next()) {
    b.data.push_back(test::Values(made->Value().data[0]));
    b.label.push_back(test::Values(made->Value().label[0]));
  }
  ASSERT_EQ(a.data.size(), 3u);
  EXPECT_EQ(a.data, b.data);
  EXPECT_EQ(a.label, b.label);
  test::ExpectError(
      [&] {
        CreateDataIter("ImageRecordIter", {{"data_shape", "(3,8,8)"}}, &Runtime::Global());
      },
      StatusCode::kInvalidArgument, {"path_imgrec"});
}

}  // namespace
}  // namespace weft
