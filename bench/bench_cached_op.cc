// CachedOp inference beside the Predictor on one exported model (issue 43's
// bench): the same symbol, weights and input; the Predictor copies the input
// in and the output out through host memory as its callers do, the CachedOp
// (static_alloc, not recording: Gluon's hybridized block in predict mode)
// takes the parameters as inputs and its output is read back to host.
// Interleaved: each round times --iters calls of each; prints per round the
// median of each and the ratio, then the median over rounds.
//
// Usage: weft_bench_cached_op DATA_DIR MODEL BATCH [--iters N] [--rounds R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "weft/cached_op.h"
#include "weft/ndarray_io.h"
#include "weft/predictor.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

double MedianMs(const std::function<void()>& f, int iters) {
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

Shape InputShape(const std::string& model, int64_t batch) {
  if (model == "lenet") return Shape{batch, 1, 28, 28};
  if (model == "mlp") return Shape{batch, 784};
  return Shape{batch, 3, 224, 224};
}

int Main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s DATA_DIR MODEL BATCH [--iters N] [--rounds R]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1], model = argv[2];
  const int64_t batch = std::atoi(argv[3]);
  int iters = 30, rounds = 3;
  for (int i = 4; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--iters")
      iters = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--rounds")
      rounds = std::max(1, std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  Runtime* rt = &Runtime::Global();
  const Symbol sym = LoadJSONFile(dir + "/" + model + "-symbol.json", rt->ops()).symbol;
  const ParamMaps params = SplitParams(LoadNDArraysFile(dir + "/" + model + "-0000.params", rt));
  const Shape shape = InputShape(model, batch);
  std::vector<float> x(static_cast<size_t>(shape.Size()));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 2000) / 1000.f - 1;

  auto pred = Predictor::Create(rt, sym, params, {{"data", shape}}, Context::CPU(0));
  const Shape out_shape = pred->OutputShapes({shape})[0];
  std::vector<float> y(static_cast<size_t>(out_shape.Size())), z(y.size());
  auto predict = [&] {
    pred->Predict({HostInput(x.data(), x.size() * sizeof(float), shape)},
                  {HostOutput(y.data(), y.size() * sizeof(float))});
  };

  CachedOpFlags flags;
  flags.static_alloc = true;
  CachedOp op(rt, sym, flags);
  NDArray data(shape, Context::CPU(0), DType::kFloat32, rt);
  std::vector<NDArray> inputs;
  for (const std::string& name : op.input_names()) {
    if (name == "data") {
      inputs.push_back(data);
      continue;
    }
    auto a = params.args.find(name);
    inputs.push_back(a != params.args.end() ? a->second : params.aux.at(name));
  }
  auto cached = [&] {
    data.CopyFromHost(x.data(), x.size() * sizeof(float));
    op.Forward(inputs)[0].CopyToHost(z.data(), z.size() * sizeof(float));
  };
  predict();
  cached();
  double diff = 0;
  for (size_t i = 0; i < y.size(); ++i) diff = std::max(diff, double(std::abs(y[i] - z[i])));
  std::vector<double> ratios;
  for (int r = 0; r < rounds; ++r) {
    const double p = MedianMs(predict, iters), c = MedianMs(cached, iters);
    ratios.push_back(c / p);
    std::printf("round %d model=%s batch=%lld predictor_ms=%.3f cached_op_ms=%.3f ratio=%.3f\n", r,
                model.c_str(), static_cast<long long>(batch), p, c, c / p);
  }
  std::sort(ratios.begin(), ratios.end());
  std::printf("cached_op/predictor median ratio %.3f (max |output difference| %.2e)\n",
              ratios[ratios.size() / 2], diff);
  return 0;
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) {
  try {
    return weft::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft_bench_cached_op: %s\n", e.what());
    return 1;
  }
}
