// Optimizer update ops through the imperative path (weft::Invoke, written in
// place as the Optimizer does), each beside a raw single-threaded loop of the
// same formula in the same run: sgd_mom_update and adam_update on 4M floats.
// These are memory-bound (SGD-momentum touches 4 arrays, Adam 6), so the
// counter is bytes moved per second. Run: ./dev bench (or weft_bench
// --benchmark_filter=Update).
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "weft/imperative.h"
#include "weft/runtime.h"

namespace weft {
namespace {

constexpr int64_t kN = 1 << 22;

NDArray Filled(float v) {
  NDArray a(Shape({kN}), Context::CPU(0), DType::kFloat32, &Runtime::Global());
  float* p = static_cast<float*>(a.dptr());
  for (int64_t i = 0; i < kN; ++i) p[i] = v + static_cast<float>(i % 7) * 0.25f;
  return a;
}

void SetBytes(benchmark::State& state, int arrays) {
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(arrays) * kN * sizeof(float) *
                                                  static_cast<double>(state.iterations()) / 1e9,
                                              benchmark::Counter::kIsRate);
}

void BM_SGDMomUpdate4M(benchmark::State& state) {
  NDArray w = Filled(1.f), g = Filled(0.01f), m = Filled(0.f);
  std::vector<NDArray> out{w};
  const StringMap p{{"lr", "0.01"}, {"momentum", "0.9"}, {"wd", "0.0001"}};
  for (auto _ : state) {
    Invoke(&Runtime::Global(), "sgd_mom_update", {w, g, m}, p, &out);
    w.WaitToRead();
  }
  SetBytes(state, 5);  // read w, g, m; write m, w
}
BENCHMARK(BM_SGDMomUpdate4M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RawLoopSGDMom4M(benchmark::State& state) {
  std::vector<float> w(kN, 1.f), g(kN, 0.01f), m(kN, 0.f);
  const float lr = 0.01f, mom = 0.9f, wd = 0.0001f;
  for (auto _ : state) {
    for (int64_t i = 0; i < kN; ++i) {
      m[i] = mom * m[i] - lr * wd * w[i] - lr * g[i];
      w[i] += m[i];
    }
    benchmark::DoNotOptimize(w.data());
  }
  SetBytes(state, 5);
}
BENCHMARK(BM_RawLoopSGDMom4M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AdamUpdate4M(benchmark::State& state) {
  NDArray w = Filled(1.f), g = Filled(0.01f), mean = Filled(0.f), var = Filled(0.f);
  std::vector<NDArray> out{w};
  const StringMap p{{"lr", "0.001"}, {"wd", "0.0001"}};
  for (auto _ : state) {
    Invoke(&Runtime::Global(), "adam_update", {w, g, mean, var}, p, &out);
    w.WaitToRead();
  }
  SetBytes(state, 7);  // read w, g, mean, var; write mean, var, w
}
BENCHMARK(BM_AdamUpdate4M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RawLoopAdam4M(benchmark::State& state) {
  std::vector<float> w(kN, 1.f), g(kN, 0.01f), mean(kN, 0.f), var(kN, 0.f);
  const float lr = 0.001f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, wd = 0.0001f;
  for (auto _ : state) {
    for (int64_t i = 0; i < kN; ++i) {
      const float gi = g[i] + wd * w[i];
      mean[i] = b1 * mean[i] + (1 - b1) * gi;
      var[i] = b2 * var[i] + (1 - b2) * gi * gi;
      w[i] -= lr * mean[i] / (std::sqrt(var[i]) + eps);
    }
    benchmark::DoNotOptimize(w.data());
  }
  SetBytes(state, 7);
}
BENCHMARK(BM_RawLoopAdam4M)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace weft
