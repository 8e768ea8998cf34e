// Executor memory plan and forward+backward time on three models: an MLP
// (784-512-256-10), LeNet and ResNet-18 (ImageNet-style basic blocks with
// BatchNorm). A plain harness (its own main, built as weft_bench_executor)
// printing two tables:
//   1. Executor::memory() of the inference graph (grad_req null) and the
//      training graph (grad_req write) for num_groups k = 1, 2, 4;
//   2. the median forward(is_train)+backward time per batch after warm-up.
// scripts/bench_executor_torch.py prints table 2 for PyTorch in the same
// format; scripts/bench_executor.sh runs both with 1 and 2 threads.
//
// Usage: weft_bench_executor [--resnet-size S] [--iters N] [--warmup W]
//                            [--no-time] [--no-memory]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "weft/runtime.h"
#include "weft/executor.h"
#include "weft/status.h"
#include "weft/symbol.h"

namespace weft {
namespace {

const Context kCpu = Context::CPU(0);

Symbol Var(const std::string& name) { return Symbol::CreateVariable(name); }

Symbol Op(const std::string& op, const std::vector<Symbol>& in, const StringMap& p,
          const std::string& name) {
  return Symbol::Apply(Runtime::Global().ops(), op, in, p, name);
}

Symbol Relu(const Symbol& x, const std::string& name) {
  return Op("Activation", {x}, {{"act_type", "relu"}}, name);
}

Symbol Fc(const Symbol& x, int n, const std::string& name) {
  return Op("FullyConnected", {x}, {{"num_hidden", std::to_string(n)}}, name);
}

Symbol Loss(const Symbol& x) {
  return Op("SoftmaxOutput", {x, Var("softmax_label")}, {}, "softmax");
}

Symbol Mlp() {
  Symbol h = Relu(Fc(Var("data"), 512, "fc1"), "relu1");
  h = Relu(Fc(h, 256, "fc2"), "relu2");
  return Loss(Fc(h, 10, "fc3"));
}

Symbol Conv(const Symbol& x, int filters, int k, int stride, int pad, bool bias,
            const std::string& name) {
  auto t = [](int v) { return "(" + std::to_string(v) + "," + std::to_string(v) + ")"; };
  return Op("Convolution", {x},
            {{"kernel", t(k)},
             {"stride", t(stride)},
             {"pad", t(pad)},
             {"num_filter", std::to_string(filters)},
             {"no_bias", bias ? "False" : "True"}},
            name);
}

Symbol MaxPool(const Symbol& x, int k, int stride, int pad, const std::string& name) {
  auto t = [](int v) { return "(" + std::to_string(v) + "," + std::to_string(v) + ")"; };
  return Op("Pooling", {x},
            {{"kernel", t(k)}, {"stride", t(stride)}, {"pad", t(pad)}, {"pool_type", "max"}}, name);
}

Symbol LeNet() {
  Symbol h =
      MaxPool(Relu(Conv(Var("data"), 20, 5, 1, 0, true, "conv1"), "relu1"), 2, 2, 0, "pool1");
  h = MaxPool(Relu(Conv(h, 50, 5, 1, 0, true, "conv2"), "relu2"), 2, 2, 0, "pool2");
  h = Op("Flatten", {h}, {}, "flatten");
  h = Relu(Fc(h, 500, "fc1"), "relu3");
  return Loss(Fc(h, 10, "fc2"));
}

Symbol Bn(const Symbol& x, const std::string& name) {
  return Op("BatchNorm", {x}, {{"fix_gamma", "False"}, {"eps", "1e-5"}}, name);
}

// conv3x3-bn-relu-conv3x3-bn (+ 1x1 conv-bn shortcut when the shape changes), relu.
Symbol BasicBlock(const Symbol& x, int filters, int stride, bool project, const std::string& name) {
  Symbol h = Relu(Bn(Conv(x, filters, 3, stride, 1, false, name + "_conv1"), name + "_bn1"),
                  name + "_relu1");
  h = Bn(Conv(h, filters, 3, 1, 1, false, name + "_conv2"), name + "_bn2");
  Symbol shortcut =
      project ? Bn(Conv(x, filters, 1, stride, 0, false, name + "_sc"), name + "_sc_bn") : x;
  return Relu(Op("elemwise_add", {h, shortcut}, {}, name + "_add"), name + "_relu2");
}

Symbol ResNet18() {
  Symbol h = Relu(Bn(Conv(Var("data"), 64, 7, 2, 3, false, "conv0"), "bn0"), "relu0");
  h = MaxPool(h, 3, 2, 1, "pool0");
  const int filters[4] = {64, 128, 256, 512};
  for (int s = 0; s < 4; ++s) {
    for (int b = 0; b < 2; ++b) {
      int stride = (s > 0 && b == 0) ? 2 : 1;
      h = BasicBlock(h, filters[s], stride, s > 0 && b == 0,
                     "stage" + std::to_string(s + 1) + "_unit" + std::to_string(b + 1));
    }
  }
  h = Op("Pooling", {h}, {{"global_pool", "True"}, {"pool_type", "avg"}, {"kernel", "(1,1)"}},
         "pool1");
  h = Op("Flatten", {h}, {}, "flatten");
  return Loss(Fc(h, 1000, "fc1"));
}

struct Model {
  std::string name;
  Symbol symbol;
  Shape data;
  int num_classes;
};

std::unique_ptr<Executor> BindModel(const Model& m, GradReq req, int groups) {
  ExecutorOptions o;
  o.num_groups = groups;
  pass::ShapeMap shapes = {{"data", m.data}, {"softmax_label", Shape{m.data[0]}}};
  return Executor::SimpleBind(&Runtime::Global(), m.symbol, kCpu, shapes, {}, GradReqSpec::All(req),
                              o);
}

void PrintMemory(const Model& m) {
  for (GradReq req : {GradReq::kNull, GradReq::kWrite}) {
    for (int k : {1, 2, 4}) {
      ExecutorMemory mem = BindModel(m, req, k)->memory();
      double ratio =
          mem.naive_bytes ? static_cast<double>(mem.planned_bytes) / mem.naive_bytes : 0.0;
      std::printf("| %-9s | %-9s | %d | %12.2f | %13.2f | %6.1f%% | %7zu | %6zu |\n",
                  m.name.c_str(), req == GradReq::kNull ? "inference" : "training", k,
                  mem.naive_bytes / 1048576.0, mem.planned_bytes / 1048576.0, 100.0 * ratio,
                  mem.num_inplace, mem.num_reused);
    }
  }
}

// Arguments: labels uniform in [0, classes), BatchNorm gamma 1, the rest
// uniform in [-a, a] with a = sqrt(3 / fan_in) (fan_in = size / first dim).
void FillArguments(Executor* ex, int num_classes, std::mt19937* rng) {
  for (size_t i = 0; i < ex->arg_names().size(); ++i) {
    NDArray a = ex->arg_arrays()[i];
    const std::string& name = ex->arg_names()[i];
    const Shape& s = a.shape();
    size_t n = static_cast<size_t>(s.Size());
    std::vector<float> v(n);
    if (name == "softmax_label") {
      std::uniform_int_distribution<int> d(0, num_classes - 1);
      for (float& x : v) x = static_cast<float>(d(*rng));
    } else if (name.size() > 6 && name.compare(name.size() - 6, 6, "_gamma") == 0) {
      std::fill(v.begin(), v.end(), 1.f);
    } else {
      double fan_in = s.ndim() > 1 ? static_cast<double>(n) / static_cast<double>(s[0]) : 1.0;
      std::uniform_real_distribution<float> d(-1.f, 1.f);
      float a_max = static_cast<float>(std::sqrt(3.0 / fan_in));
      for (float& x : v) x = a_max * d(*rng);
    }
    a.CopyFromHost(v.data(), n * sizeof(float));
  }
}

double TimeFwdBwd(const Model& m, int warmup, int iters) {
  auto ex = BindModel(m, GradReq::kWrite, 1);
  std::mt19937 rng(1);
  FillArguments(ex.get(), m.num_classes, &rng);
  std::vector<double> ms;
  for (int i = 0; i < warmup + iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    ex->Forward(true);
    ex->Backward();
    for (const NDArray& g : ex->grad_arrays())
      if (!g.is_none()) g.WaitToRead();
    auto t1 = std::chrono::steady_clock::now();
    if (i >= warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  // A timing of NaN/Inf arithmetic would mislead: every gradient must be finite.
  for (size_t i = 0; i < ex->grad_arrays().size(); ++i) {
    const NDArray& g = ex->grad_arrays()[i];
    if (g.is_none()) continue;
    std::vector<float> v(static_cast<size_t>(g.shape().Size()));
    g.CopyToHost(v.data(), v.size() * sizeof(float));
    for (float x : v)
      if (!std::isfinite(x))
        throw Error(StatusCode::kInternal,
                    m.name + ": non-finite gradient of " + ex->arg_names()[i]);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int Main(int argc, char** argv) {
  int resnet_size = 224, iters = 5, warmup = 2;
  bool time = true, memory = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--resnet-size" && i + 1 < argc) {
      resnet_size = std::atoi(argv[++i]);
    } else if (a == "--iters" && i + 1 < argc) {
      iters = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--warmup" && i + 1 < argc) {
      warmup = std::max(0, std::atoi(argv[++i]));
    } else if (a == "--no-time") {
      time = false;
    } else if (a == "--no-memory") {
      memory = false;
    } else {
      std::fprintf(
          stderr,
          "usage: %s [--resnet-size S] [--iters N] [--warmup W] [--no-time] [--no-memory]\n"
          "unknown or incomplete argument '%s'\n",
          argv[0], a.c_str());
      return 2;
    }
  }
  NameScope scope;
  std::vector<Model> models = {
      {"mlp", Mlp(), Shape{64, 784}, 10},
      {"lenet", LeNet(), Shape{64, 1, 28, 28}, 10},
      {"resnet18", ResNet18(), Shape{8, 3, resnet_size, resnet_size}, 1000},
  };
  const char* threads = std::getenv("OMP_NUM_THREADS");
  std::printf(
      "weft executor bench: mlp/lenet batch 64, resnet18 batch 8 at 3x%dx%d, "
      "OMP_NUM_THREADS=%s\n\n",
      resnet_size, resnet_size, threads ? threads : "(unset)");
  if (memory) {
    std::printf(
        "| model     | graph     | k |  naive (MiB) | planned (MiB) | planned | inplace | reused "
        "|\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const Model& m : models) PrintMemory(m);
    std::printf("\n");
  }
  if (time) {
    std::printf(
        "| engine | threads | model     | batch | fwd+bwd median (ms) |\n|---|---|---|---|---|\n");
    for (const Model& m : models) {
      double ms = TimeFwdBwd(m, warmup, iters);
      std::printf("| weft   | %7s | %-9s | %5d | %19.2f |\n", threads ? threads : "-",
                  m.name.c_str(), static_cast<int>(m.data[0]), ms);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) {
  try {
    return weft::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft_bench_executor: %s\n", e.what());
    return 1;
  }
}
