// `weft train`'s data (cli_train.h): MNIST-format IDX files batched by the
// NDArray iterator, or RecordIO files read by ImageRecordIter through the
// iterator factory (weft_data_iter_create) with MXNet's parameter names.
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "cli_train.h"

namespace weft_cli {
namespace {

// The first extent of `arr`.
int64_t Rows(const Array& arr) {
  int64_t dims[8];
  Check(weft_ndarray_shape(arr.get(), dims, 8), "train");
  return dims[0];
}

// The first `limit` samples of `arr` (all when limit is 0 or larger).
void Limit(Array* arr, long limit) {
  if (limit <= 0 || limit >= Rows(*arr)) return;
  Array view;
  Check(weft_ndarray_slice(arr->get(), 0, limit, view.out()), "train");
  *arr = std::move(view);
}

Iter MakeIter(const Array& images, const Array& labels, int batch, bool shuffle, uint64_t seed) {
  const char* data_name = "data";
  const char* label_name = "softmax_label";
  WeftNDArray* data = images.get();
  WeftNDArray* label = labels.get();
  Iter it;
  Check(weft_data_iter_create_ndarray(1, &data_name, &data, 1, &label_name, &label, batch,
                                      shuffle ? 1 : 0, "pad", seed, it.out()),
        "train");
  return it;
}

TrainData OpenIdx(const TrainOptions& o, int rank, int workers) {
  const std::string dir = o.data_dir + "/";
  Array train_x, train_y, test_x, test_y;
  Check(weft_mnist_load((dir + "train-images-idx3-ubyte.gz").c_str(),
                        (dir + "train-labels-idx1-ubyte.gz").c_str(), train_x.out(), train_y.out()),
        "train");
  Check(weft_mnist_load((dir + "t10k-images-idx3-ubyte.gz").c_str(),
                        (dir + "t10k-labels-idx1-ubyte.gz").c_str(), test_x.out(), test_y.out()),
        "train");
  Limit(&train_x, o.limit);
  Limit(&train_y, o.limit);
  TrainData d;
  d.source = o.data_dir;
  d.count = std::to_string(Rows(train_x)) + " images";
  d.train = MakeIter(train_x, train_y, o.batch, true, o.seed);
  if (workers > 1) Check(weft_data_iter_select_part(d.train.get(), workers, rank), "train");
  d.test = MakeIter(test_x, test_y, o.batch, false, 0);
  d.test_count = std::to_string(Rows(test_x)) + " images";
  return d;
}

// "DIR/x.idx" for "DIR/x.rec" when that file is readable, else "".
std::string IdxBeside(const std::string& rec) {
  const bool ext = rec.size() > 4 && rec.compare(rec.size() - 4, 4, ".rec") == 0;
  const std::string idx = (ext ? rec.substr(0, rec.size() - 4) : rec) + ".idx";
  return access(idx.c_str(), R_OK) == 0 ? idx : std::string();
}

// Lines of the .idx (one per record), as "N records".
std::string CountRecords(const std::string& idx) {
  if (idx.empty()) return "? records";
  std::ifstream in(idx);
  long n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return std::to_string(n) + " records";
}

// Iterator parameters in order; a later value of a key replaces the earlier.
class ParamList {
 public:
  void Set(const std::string& key, const std::string& value) {
    for (auto& kv : kv_)
      if (kv.first == key) {
        kv.second = value;
        return;
      }
    kv_.emplace_back(key, value);
  }
  void SetAll(const std::vector<std::string>& assigns, const char* flag) {
    for (const auto& a : assigns) {
      auto kv = SplitAssign(a, flag);
      Set(kv.first, kv.second);
    }
  }
  Iter Create() const {
    std::vector<const char*> keys, vals;
    for (const auto& kv : kv_) {
      keys.push_back(kv.first.c_str());
      vals.push_back(kv.second.c_str());
    }
    Iter it;
    Check(weft_data_iter_create("ImageRecordIter", keys.data(), vals.data(), kv_.size(), it.out()),
          "train");
    return it;
  }

 private:
  std::vector<std::pair<std::string, std::string>> kv_;
};

// ImageRecordIter over `rec`: the training one shuffled (when the .idx is
// there), seeded by --seed and reading part `rank` of `workers`.
Iter MakeRecIter(const TrainOptions& o, const std::string& rec, bool train, int rank, int workers) {
  ParamList p;
  const std::string idx = IdxBeside(rec);
  p.Set("path_imgrec", rec);
  if (!idx.empty()) p.Set("path_imgidx", idx);
  const char c = o.data_shape[0];
  p.Set("data_shape", c == '(' || c == '[' ? o.data_shape : "(" + o.data_shape + ")");
  p.Set("batch_size", std::to_string(o.batch));
  if (train) {
    p.Set("shuffle", idx.empty() ? "0" : "1");
    p.Set("seed", std::to_string(o.seed));
    p.Set("num_parts", std::to_string(workers));
    p.Set("part_index", std::to_string(rank));
    if (idx.empty() && rank == 0)
      std::fprintf(stderr, "weft train: no .idx beside %s: records read in file order\n",
                   rec.c_str());
  }
  p.SetAll(o.rec_params, "--rec-param");
  if (train) p.SetAll(o.rec_train_params, "--rec-train-param");
  return p.Create();
}

}  // namespace

TrainData OpenTrainData(const TrainOptions& o, int rank, int workers) {
  if (o.data.empty()) {
    if (!o.data_val.empty()) Usage("--data-val needs --data");
    return OpenIdx(o, rank, workers);
  }
  if (o.data_shape.empty()) Usage("--data needs --data-shape C,H,W (e.g. 3,224,224)");
  if (o.limit > 0) Usage("--limit applies to IDX data, not to --data");
  TrainData d;
  d.source = o.data;
  d.count = CountRecords(IdxBeside(o.data));
  d.train = MakeRecIter(o, o.data, true, rank, workers);
  if (!o.data_val.empty()) {
    d.test = MakeRecIter(o, o.data_val, false, 0, 1);
    d.test_count = CountRecords(IdxBeside(o.data_val));
  }
  return d;
}

}  // namespace weft_cli
