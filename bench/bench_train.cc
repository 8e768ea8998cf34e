// Training throughput on Fashion-MNIST: the MLP (784-128-64-10) and LeNet
// of examples/models/, trained by Module (forward, backward, SGD-momentum
// update, accuracy metric: the whole fit step) on shuffled batches of 64 and
// 128. A plain harness (its own main, built as weft_bench_train) printing
// one table row per (model, batch): images/s over --batches batches after
// --warmup, and the projected time of one 60000-image epoch; --epoch also
// times one real epoch through Module::Fit.
// scripts/bench_train_torch.py prints the same table for PyTorch;
// scripts/bench_train.sh runs both with 1 and 2 threads.
//
// Usage: weft_bench_train [--data-dir D] [--batches N] [--warmup W] [--epoch]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "weft/runtime.h"
#include "weft/data_iter.h"
#include "weft/idx.h"
#include "weft/initializer.h"
#include "weft/metric.h"
#include "weft/module.h"
#include "weft/optimizer.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

struct Config {
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  int batches = 200, warmup = 20;
  bool epoch = false;
};

Symbol LoadModel(const std::string& name) {
  return LoadJSONFile(std::string(WEFT_SOURCE_DIR) + "/examples/models/" + name + "-symbol.json",
                      Runtime::Global().ops())
      .symbol;
}

void Run(const Config& cfg, const MNISTData& train, const std::string& model, int batch,
         const char* threads) {
  Symbol sym = LoadModel(model);
  NDArrayIter it({{"data", train.images}}, {{"softmax_label", train.labels}}, batch, true,
                 LastBatch::kDiscard, 1);
  Module mod(&Runtime::Global(), sym);
  mod.Bind(it.provide_data(), it.provide_label(), true);
  auto init = Initializer::Create("xavier", {}, 7);
  mod.InitParams(init.get());
  mod.InitOptimizer(Optimizer::Create("sgd", {{"learning_rate", "0.05"}, {"momentum", "0.9"}}));
  auto metric = Metric::Create("acc");
  auto step = [&]() {
    if (!it.Next()) {
      it.Reset();
      it.Next();
    }
    const DataBatch& b = it.Value();
    mod.Forward(b, true);
    mod.Backward();
    mod.Update();
    mod.UpdateMetric(metric.get(), b.label, b.pad);
  };
  for (int i = 0; i < cfg.warmup; ++i) step();
  for (const auto& kv : mod.arg_params()) kv.second.WaitToRead();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < cfg.batches; ++i) step();
  for (const auto& kv : mod.arg_params()) kv.second.WaitToRead();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double ips = cfg.batches * static_cast<double>(batch) / s;
  double epoch_s = -1;
  if (cfg.epoch) {
    FitOptions fo;
    fo.progress = ProgressMode::kNone;
    std::ostringstream quiet;
    fo.log = &quiet;
    epoch_s = mod.Fit(&it, nullptr, metric.get(), fo)[0].seconds;
  }
  std::printf("| weft   | %7s | %-5s | %5d | %10.0f | %14.2f | %13.1f | %12s |\n", threads,
              model.c_str(), batch, ips, 1000.0 * s / cfg.batches, 60000.0 / ips,
              epoch_s < 0 ? "-" : std::to_string(epoch_s).substr(0, 6).c_str());
  std::fflush(stdout);
}

int Main(int argc, char** argv) {
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--data-dir" && i + 1 < argc) {
      cfg.data_dir = argv[++i];
    } else if (a == "--batches" && i + 1 < argc) {
      cfg.batches = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--warmup" && i + 1 < argc) {
      cfg.warmup = std::max(0, std::atoi(argv[++i]));
    } else if (a == "--epoch") {
      cfg.epoch = true;
    } else {
      std::fprintf(
          stderr,
          "usage: %s [--data-dir D] [--batches N] [--warmup W] [--epoch]\nbad argument '%s'\n",
          argv[0], a.c_str());
      return 2;
    }
  }
  MNISTData train = LoadMNIST(cfg.data_dir + "/train-images-idx3-ubyte.gz",
                              cfg.data_dir + "/train-labels-idx1-ubyte.gz", &Runtime::Global());
  const char* env = std::getenv("OMP_NUM_THREADS");
  const char* threads = env ? env : "-";
  std::printf(
      "| engine | threads | model | batch | images/s   | ms/batch       | epoch est (s) | epoch "
      "(s)    |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const char* model : {"mlp", "lenet"})
    for (int batch : {64, 128}) Run(cfg, train, model, batch, threads);
  return 0;
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) {
  try {
    return weft::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft_bench_train: %s\n", e.what());
    return 1;
  }
}
