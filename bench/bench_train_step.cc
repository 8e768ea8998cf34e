// One training step (forward, backward, SGD-momentum update) of a model
// exported by bench/infer_peers/export_models.py, on cpu(0) or gpu(0), timed
// through Module: the exported symbol's final softmax is replaced by
// SoftmaxOutput (softmax cross-entropy, as the PyTorch peer
// bench/gpu/torch_train_step.py), the weights come from the exported
// .params, and every step trains on the same random batch. Prints one line:
// the median and minimum step time over --iters steps after --warmup, each
// step ended by waiting for the updated weights, and images/s.
//
// Usage: weft_bench_train_step DATA_DIR MODEL BATCH [--ctx cpu|gpu] [--iters N] [--warmup W]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "weft/runtime.h"
#include "weft/initializer.h"
#include "weft/module.h"
#include "weft/ndarray_io.h"
#include "weft/optimizer.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

NDArray Random(const Shape& s, uint32_t seed, double lo, double hi) {
  std::vector<float> v(static_cast<size_t>(s.Size()));
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (float& f : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    f = static_cast<float>(lo + (hi - lo) * static_cast<double>(x >> 11) / 9007199254740992.0);
  }
  NDArray a(s, Context::CPU(0), DType::kFloat32, &Runtime::Global());
  a.CopyFromHost(v.data(), v.size() * sizeof(float));
  return a;
}

int Main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s DATA_DIR MODEL BATCH [--ctx cpu|gpu] [--iters N] [--warmup W]\n",
                 argv[0]);
    return 2;
  }
  const std::string dir = argv[1], model = argv[2];
  const int batch = std::atoi(argv[3]);
  Context ctx = Context::CPU(0);
  int iters = 20, warmup = 5;
  for (int i = 4; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--ctx")
      ctx = Context::Parse(argv[i + 1]);
    else if (a == "--iters")
      iters = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--warmup")
      warmup = std::max(0, std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  Symbol net = LoadJSONFile(dir + "/" + model + "-symbol.json", Runtime::Global().ops()).symbol;
  Symbol logits = net.GetChildren();  // the exported softmax's input
  Symbol sym = Symbol::Apply(Runtime::Global().ops(), "SoftmaxOutput",
                             {logits, Symbol::CreateVariable("softmax_label")}, {}, "softmax");
  const Shape in_shape = model == "resnet18" ? Shape{batch, 3, 224, 224}
                         : model == "lenet"  ? Shape{batch, 1, 28, 28}
                                             : Shape{batch, 784};
  const int classes = model == "resnet18" ? 1000 : 10;
  Module mod(&Runtime::Global(), sym, {"data"}, {"softmax_label"}, ctx);
  mod.Bind({{"data", in_shape}}, {{"softmax_label", Shape{batch}}}, true);
  const ParamMaps params =
      SplitParams(LoadNDArraysFile(dir + "/" + model + "-0000.params", &Runtime::Global()));
  mod.InitParams(nullptr, params.args, params.aux, false);
  mod.InitOptimizer(Optimizer::Create("sgd", {{"learning_rate", "0.01"}, {"momentum", "0.9"}}));
  DataBatch b;
  b.data = {Random(in_shape, 1, -1, 1)};
  std::vector<float> labels(static_cast<size_t>(batch));
  for (int i = 0; i < batch; ++i)
    labels[static_cast<size_t>(i)] = static_cast<float>((i * 37) % classes);
  NDArray l(Shape{batch}, Context::CPU(0), DType::kFloat32, &Runtime::Global());
  l.CopyFromHost(labels.data(), labels.size() * sizeof(float));
  b.label = {l};
  std::vector<double> ms;
  for (int i = 0; i < warmup + iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    mod.Forward(b, true);
    mod.Backward();
    mod.Update();
    for (const auto& kv : mod.arg_params()) kv.second.WaitToRead();
    const double t =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (i >= warmup) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  std::printf(
      "train engine=weft device=%s model=%s batch=%d median_ms=%.3f min_ms=%.3f "
      "images_per_s=%.1f\n",
      ctx.ToString().c_str(), model.c_str(), batch, median, ms[0], 1000.0 * batch / median);
  return 0;
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) {
  try {
    return weft::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft_bench_train_step: %s\n", e.what());
    return 1;
  }
}
