// One training step (forward, backward, SGD-momentum update) of a model
// exported by bench/infer_peers/export_models.py, on cpu(0) or gpu(0), timed
// through Module: the exported symbol's final softmax is replaced by
// SoftmaxOutput (softmax cross-entropy, as the PyTorch peer
// bench/gpu/torch_train_step.py), the weights come from the exported
// .params, and every step trains on the same random batch. Prints one line:
// the median and minimum step time over --iters steps after --warmup, each
// step ended by waiting for the updated weights, and images/s.
// --mode autograd times Gluon's path instead: the same symbol as a CachedOp
// (a hybridized block) invoked while recording, autograd::Backward into the
// parameters' gradient buffers, and a Trainer step (same optimizer).
//
// Usage: weft_bench_train_step DATA_DIR MODEL BATCH [--ctx cpu|gpu] [--iters N] [--warmup W]
//                              [--mode module|autograd]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weft/autograd.h"
#include "weft/cached_op.h"
#include "weft/initializer.h"
#include "weft/module.h"
#include "weft/ndarray_io.h"
#include "weft/optimizer.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"
#include "weft/trainer.h"

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

std::unique_ptr<Optimizer> Sgd() {
  return Optimizer::Create("sgd", {{"learning_rate", "0.01"}, {"momentum", "0.9"}});
}

// Gluon's step: returns a function running one recorded forward, backward
// and Trainer step on (data, label).
std::function<void()> AutogradStep(const Symbol& sym, const ParamMaps& params, Context ctx,
                                   const NDArray& data, const NDArray& label) {
  auto op = std::make_shared<CachedOp>(&Runtime::Global(), sym);
  auto inputs = std::make_shared<std::vector<NDArray>>();
  std::vector<std::pair<std::string, NDArray>> trained;
  for (const std::string& name : op->input_names()) {
    if (name == "data" || name == "softmax_label") {
      inputs->push_back((name == "data" ? data : label).Copy(ctx));
      continue;
    }
    auto a = params.args.find(name);
    const bool is_arg = a != params.args.end();
    NDArray v = (is_arg ? a->second : params.aux.at(name)).Copy(ctx);
    if (is_arg) {
      NDArray grad(v.shape(), ctx, v.dtype(), &Runtime::Global());
      autograd::MarkVariables({&v}, {GradReq::kWrite}, {grad});
      trained.emplace_back(name, v);
    }
    inputs->push_back(v);
  }
  auto trainer = std::make_shared<Trainer>(trained, Sgd());
  const int batch = static_cast<int>(data.shape()[0]);
  return [op, inputs, trainer, batch] {
    std::vector<NDArray> out;
    {
      autograd::RecordScope rec;
      out = op->Forward(*inputs);
    }
    autograd::Backward(&Runtime::Global(), {out[0]});
    trainer->Step(batch);
    for (const auto& kv : trainer->params()) kv.second.WaitToRead();
  };
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
  std::string mode = "module";
  for (int i = 4; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--ctx")
      ctx = Context::Parse(argv[i + 1]);
    else if (a == "--iters")
      iters = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--warmup")
      warmup = std::max(0, std::atoi(argv[i + 1]));
    else if (a == "--mode" &&
             (std::string(argv[i + 1]) == "module" || std::string(argv[i + 1]) == "autograd"))
      mode = argv[i + 1];
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
  const ParamMaps params =
      SplitParams(LoadNDArraysFile(dir + "/" + model + "-0000.params", &Runtime::Global()));
  const NDArray data = Random(in_shape, 1, -1, 1);
  std::vector<float> labels(static_cast<size_t>(batch));
  for (int i = 0; i < batch; ++i)
    labels[static_cast<size_t>(i)] = static_cast<float>((i * 37) % classes);
  NDArray l(Shape{batch}, Context::CPU(0), DType::kFloat32, &Runtime::Global());
  l.CopyFromHost(labels.data(), labels.size() * sizeof(float));
  std::function<void()> step;
  std::unique_ptr<Module> mod;
  if (mode == "autograd") {
    step = AutogradStep(sym, params, ctx, data, l);
  } else {
    mod = std::make_unique<Module>(&Runtime::Global(), sym, std::vector<std::string>{"data"},
                                   std::vector<std::string>{"softmax_label"}, ctx);
    mod->Bind({{"data", in_shape}}, {{"softmax_label", Shape{batch}}}, true);
    mod->InitParams(nullptr, params.args, params.aux, false);
    mod->InitOptimizer(Sgd());
    auto b = std::make_shared<DataBatch>();
    b->data = {data};
    b->label = {l};
    Module* m = mod.get();
    step = [m, b] {
      m->Forward(*b, true);
      m->Backward();
      m->Update();
      for (const auto& kv : m->arg_params()) kv.second.WaitToRead();
    };
  }
  std::vector<double> ms;
  for (int i = 0; i < warmup + iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    const double t =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (i >= warmup) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  std::printf(
      "train engine=weft%s device=%s model=%s batch=%d median_ms=%.3f min_ms=%.3f "
      "images_per_s=%.1f\n",
      mode == "autograd" ? "-autograd" : "", ctx.ToString().c_str(), model.c_str(), batch, median,
      ms[0], 1000.0 * batch / median);
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
