// `weft train`: trains a symbol on an MNIST-format dataset (IDX files, as
// Debian's dataset-fashion-mnist installs them) through the C ABI's module
// API, prints progress, the test accuracy and throughput, and writes an
// MXNet checkpoint.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_util.h"
#include "weft/c_api.h"

namespace weft_cli {
namespace {

using Iter = Owned<WeftDataIter, weft_data_iter_free>;
using Init = Owned<WeftInitializer, weft_initializer_free>;
using Opt = Owned<WeftOptimizer, weft_optimizer_free>;
using MetricH = Owned<WeftMetric, weft_metric_free>;
using Mod = Owned<WeftModule, weft_module_free>;

struct TrainOptions {
  std::string symbol, data_dir = "/usr/share/datasets/fashion-mnist", save, optimizer = "sgd", init = "xavier";
  std::string lr, momentum = "0.9", wd = "0";
  int epochs = 1, batch = 64, progress = WEFT_PROGRESS_AUTO;
  long limit = 0;
  uint64_t seed = 1;
};

long ParseInt(const std::string& text, const char* opt, long min) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < min)
    Usage(std::string(opt) + " expects an integer >= " + std::to_string(min) + ", given '" + text + "'");
  return v;
}

int ParseProgress(const std::string& text) {
  const char* names[] = {"auto", "bar", "lines", "epoch", "none"};
  for (int i = 0; i < 5; ++i)
    if (text == names[i]) return i;
  Usage("--progress expects auto, bar, lines, epoch or none, given '" + text + "'");
}

TrainOptions ParseTrain(int argc, char** argv) {
  TrainOptions o;
  for (Args a{argc, argv}; a.i < argc; ++a.i) {
    std::string s = argv[a.i];
    if (a.Is(s, "--symbol")) {
      o.symbol = a.Value(s, "--symbol");
    } else if (a.Is(s, "--data-dir")) {
      o.data_dir = a.Value(s, "--data-dir");
    } else if (a.Is(s, "--epochs")) {
      o.epochs = static_cast<int>(ParseInt(a.Value(s, "--epochs"), "--epochs", 1));
    } else if (a.Is(s, "--batch-size")) {
      o.batch = static_cast<int>(ParseInt(a.Value(s, "--batch-size"), "--batch-size", 1));
    } else if (a.Is(s, "--optimizer")) {
      o.optimizer = a.Value(s, "--optimizer");
    } else if (a.Is(s, "--lr")) {
      o.lr = a.Value(s, "--lr");
    } else if (a.Is(s, "--momentum")) {
      o.momentum = a.Value(s, "--momentum");
    } else if (a.Is(s, "--wd")) {
      o.wd = a.Value(s, "--wd");
    } else if (a.Is(s, "--init")) {
      o.init = a.Value(s, "--init");
    } else if (a.Is(s, "--seed")) {
      o.seed = static_cast<uint64_t>(ParseInt(a.Value(s, "--seed"), "--seed", 0));
    } else if (a.Is(s, "--save")) {
      o.save = a.Value(s, "--save");
    } else if (a.Is(s, "--progress")) {
      o.progress = ParseProgress(a.Value(s, "--progress"));
    } else if (a.Is(s, "--limit")) {
      o.limit = ParseInt(a.Value(s, "--limit"), "--limit", 1);
    } else {
      Usage("train: unexpected argument '" + s + "'");
    }
  }
  if (o.symbol.empty()) Usage("train: --symbol S.json is required");
  return o;
}

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
  Check(weft_data_iter_create_ndarray(1, &data_name, &data, 1, &label_name, &label, batch, shuffle ? 1 : 0,
                                      "pad", seed, it.out()),
        "train");
  return it;
}

}  // namespace

int Train(int argc, char** argv) {
  TrainOptions o = ParseTrain(argc, argv);
  Sym sym;
  Check(weft_symbol_from_json_file(o.symbol.c_str(), sym.out()), "train");
  const std::string dir = o.data_dir + "/";
  Array train_x, train_y, test_x, test_y;
  Check(weft_mnist_load((dir + "train-images-idx3-ubyte.gz").c_str(), (dir + "train-labels-idx1-ubyte.gz").c_str(),
                        train_x.out(), train_y.out()),
        "train");
  Check(weft_mnist_load((dir + "t10k-images-idx3-ubyte.gz").c_str(), (dir + "t10k-labels-idx1-ubyte.gz").c_str(),
                        test_x.out(), test_y.out()),
        "train");
  Limit(&train_x, o.limit);
  Limit(&train_y, o.limit);
  const int64_t num_train = Rows(train_x), num_test = Rows(test_x);
  Iter train = MakeIter(train_x, train_y, o.batch, true, o.seed);
  Iter test = MakeIter(test_x, test_y, o.batch, false, 0);

  const char* data_name = "data";
  const char* label_name = "softmax_label";
  Mod mod;
  Check(weft_module_create(sym.get(), 1, &data_name, 1, &label_name, WEFT_CPU, 0, mod.out()), "train");
  Check(weft_module_bind(mod.get(), train.get(), 1), "train");
  Init init;
  Check(weft_initializer_create(o.init.c_str(), nullptr, nullptr, 0, o.seed, init.out()), "train");
  Check(weft_module_init_params(mod.get(), init.get(), nullptr, nullptr, 1), "train");

  std::vector<const char*> keys, vals;
  const std::string lr = o.lr.empty() ? (o.optimizer == "adam" ? "0.001" : "0.05") : o.lr;
  keys.push_back("learning_rate");
  vals.push_back(lr.c_str());
  keys.push_back("wd");
  vals.push_back(o.wd.c_str());
  if (o.optimizer == "sgd") {
    keys.push_back("momentum");
    vals.push_back(o.momentum.c_str());
  }
  Opt opt;
  Check(weft_optimizer_create(o.optimizer.c_str(), keys.data(), vals.data(), keys.size(), opt.out()), "train");
  Check(weft_module_init_optimizer(mod.get(), opt.get()), "train");

  std::printf("training %s on %s: %lld images, batch %d, %d epoch(s), %s lr %s\n", o.symbol.c_str(),
              o.data_dir.c_str(), static_cast<long long>(num_train), o.batch, o.epochs, o.optimizer.c_str(),
              lr.c_str());
  std::fflush(stdout);
  MetricH acc;
  Check(weft_metric_create("acc", nullptr, nullptr, 0, acc.out()), "train");
  double samples_per_sec = 0;
  Check(weft_module_fit(mod.get(), train.get(), nullptr, acc.get(), 0, o.epochs, o.progress,
                        o.save.empty() ? nullptr : o.save.c_str(), &samples_per_sec),
        "train");
  Check(weft_module_score(mod.get(), test.get(), acc.get()), "train");
  double value = 0;
  size_t num = 0;
  StrList names;
  Check(weft_metric_get(acc.get(), names.out(), &value, 1, &num), "train");
  std::printf("test accuracy: %.4f (%lld images)\n", value, static_cast<long long>(num_test));
  std::printf("training throughput: %.0f images/s (last epoch)\n", samples_per_sec);
  if (!o.save.empty()) {
    char params[32];
    std::snprintf(params, sizeof params, "-%04d.params", o.epochs);
    std::printf("checkpoint: %s-symbol.json, %s%s\n", o.save.c_str(), o.save.c_str(), params);
  }
  return 0;
}

}  // namespace weft_cli
