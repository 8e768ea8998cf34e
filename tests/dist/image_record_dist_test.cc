// ImageRecordIter's num_parts / part_index across the processes of an MPI
// job (run under `mpirun -np 2`, CTest dist.image_record_parts): rank 0
// writes a .rec/.idx, every rank reads its part (num_parts = the number of
// workers, part_index = its rank) through the iterator factory as a
// data-parallel trainer does, and the ranks' per-record read counts, summed
// by the dist_sync KVStore's allreduce, must be exactly 1 for every record:
// the parts are disjoint and cover the file. Each rank's records must also
// be the contiguous block dmlc-core's indexed split gives it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/data_iter_factory.h"
#include "weft/image.h"
#include "weft/kvstore.h"
#include "weft/recordio.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::Array;
using test::Values;

constexpr int kRecords = 37;   // not a multiple of the workers or the batch
constexpr int64_t kId0 = 500;  // record i has id kId0 + 3 * i

int64_t IdOf(int i) { return kId0 + 3 * i; }

// Writes kRecords 4x5 gray PNG records (id IdOf(i), label i % 10) with
// their index at `rec` / `idx`.
void WriteFile(const std::string& rec, const std::string& idx) {
  RecordIOWriter w(rec, idx);
  for (int i = 0; i < kRecords; ++i) {
    Image img(4, 5, 1);
    for (size_t k = 0; k < img.data.size(); ++k) img.data[k] = uint8_t(i + k);
    const std::string png = EncodePng(img, 1);
    IRHeader h;
    h.label = float(i % 10);
    h.id = static_cast<uint64_t>(IdOf(i));
    const std::string bytes = PackIRHeader(h, png.data(), png.size());
    w.WriteIdx(i, bytes.data(), bytes.size());
  }
  w.Close();
}

TEST(DistImageRecord, PartsAreDisjointAndCoverTheFile) {
  KVStoreOptions opts;
  opts.timeout_seconds = 30;
  auto kv = KVStore::Create("dist_sync", opts);
  const int n = kv->num_workers(), r = kv->rank();
  ASSERT_EQ(n, 2) << "run under mpirun -np 2";
  // One file for every rank: its name carries rank 0's pid (Init gives
  // every rank rank 0's value).
  kv->Init({"pid"}, {Array({1}, {double(getpid())}, DType::kInt64)});
  NDArray pid = Array({1}, {0}, DType::kInt64);
  kv->Pull({"pid"}, {pid});
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string base = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/weft_dist_parts_" +
                           std::to_string(int64_t(Values(pid)[0]));
  const std::string rec = base + ".rec", idx = base + ".idx";
  if (r == 0) WriteFile(rec, idx);
  kv->Barrier();

  auto it = CreateDataIter("ImageRecordIter",
                           {{"path_imgrec", rec},
                            {"path_imgidx", idx},
                            {"data_shape", "(1, 4, 5)"},
                            {"batch_size", "4"},
                            {"shuffle", "True"},
                            {"seed", "7"},
                            {"preprocess_threads", "2"},
                            {"num_parts", std::to_string(n)},
                            {"part_index", std::to_string(r)}},
                           &Runtime::Global());
  std::vector<double> counts(kRecords, 0.0);
  std::vector<int64_t> mine;
  while (it->Next()) {
    const DataBatch& b = it->Value();
    const std::vector<double> labels = Values(b.label[0]);
    for (int row = 0; row + b.pad < static_cast<int>(b.index.size()); ++row) {
      const int64_t id = b.index[row];
      ASSERT_EQ((id - kId0) % 3, 0) << "rank " << r << " read id " << id;
      const int64_t i = (id - kId0) / 3;
      ASSERT_TRUE(i >= 0 && i < kRecords) << "rank " << r << " read id " << id;
      EXPECT_EQ(labels[row], double(i % 10)) << "label of id " << id;
      counts[i] += 1;
      mine.push_back(i);
    }
  }
  // dmlc-core's indexed split: ceil(37 / 2) = 19 records for rank 0, 18 for rank 1.
  const int per = (kRecords + n - 1) / n, lo = r * per, hi = std::min(kRecords, lo + per);
  ASSERT_EQ(static_cast<int>(mine.size()), hi - lo) << "rank " << r;
  for (int i = lo; i < hi; ++i) EXPECT_EQ(counts[i], 1.0) << "rank " << r << " record " << i;

  kv->Init({"counts"}, {Array({kRecords}, std::vector<double>(kRecords, 0.0), DType::kInt64)});
  NDArray total = Array({kRecords}, std::vector<double>(kRecords, 0.0), DType::kInt64);
  kv->PushPull({"counts"}, {Array({kRecords}, counts, DType::kInt64)}, {total});
  const std::vector<double> sum = Values(total);
  for (int i = 0; i < kRecords; ++i)
    EXPECT_EQ(sum[i], 1.0) << "record " << i << " (id " << IdOf(i) << ") read " << sum[i]
                           << " times over the ranks";
  it.reset();
  kv->Barrier();
  if (r == 0) {
    std::remove(rec.c_str());
    std::remove(idx.c_str());
  }
}

}  // namespace
}  // namespace weft
