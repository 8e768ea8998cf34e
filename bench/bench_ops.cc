// Operator throughput through the imperative path (weft::Invoke), each beside
// a raw baseline in the same run: sgemm via `dot` vs cblas_sgemm directly, and
// `elemwise_add` of 10M floats vs a plain loop. Run: ./dev bench
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <vector>

#include "weft/imperative.h"
#include "weft/runtime.h"

namespace weft {
namespace {

NDArray Filled(const Shape& s, float v) {
  NDArray a(s, Context::CPU(0), DType::kFloat32, &Runtime::Global());
  float* p = static_cast<float*>(a.dptr());
  for (int64_t i = 0; i < a.Size(); ++i) p[i] = v + static_cast<float>(i % 7) * 0.25f;
  return a;
}

void SetGemmCounters(benchmark::State& state, int64_t n) {
  double flops = 2.0 * n * n * n;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

void BM_DotSgemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  NDArray a = Filled({n, n}, 1.f), b = Filled({n, n}, 2.f);
  std::vector<NDArray> out{
      NDArray(Shape({n, n}), Context::CPU(0), DType::kFloat32, &Runtime::Global())};
  for (auto _ : state) {
    Invoke(&Runtime::Global(), "dot", {a, b}, {}, &out);
    benchmark::DoNotOptimize(out[0].dptr());
  }
  SetGemmCounters(state, n);
}
BENCHMARK(BM_DotSgemm)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RawCblasSgemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  NDArray a = Filled({n, n}, 1.f), b = Filled({n, n}, 2.f), c = Filled({n, n}, 0.f);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f,
                static_cast<float*>(a.dptr()), n, static_cast<float*>(b.dptr()), n, 0.f,
                static_cast<float*>(c.dptr()), n);
    benchmark::DoNotOptimize(c.dptr());
  }
  SetGemmCounters(state, n);
}
BENCHMARK(BM_RawCblasSgemm)
    ->Arg(256)
    ->Arg(512)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void SetStreamCounters(benchmark::State& state, int64_t n) {
  // Two reads and one write of n floats per iteration.
  state.counters["GB/s"] =
      benchmark::Counter(3.0 * 4.0 * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

constexpr int64_t kAddN = 10 * 1000 * 1000;

void BM_ElemwiseAdd10M(benchmark::State& state) {
  NDArray a = Filled({kAddN}, 1.f), b = Filled({kAddN}, 2.f);
  std::vector<NDArray> out{
      NDArray(Shape({kAddN}), Context::CPU(0), DType::kFloat32, &Runtime::Global())};
  for (auto _ : state) {
    Invoke(&Runtime::Global(), "elemwise_add", {a, b}, {}, &out);
    benchmark::DoNotOptimize(out[0].dptr());
  }
  SetStreamCounters(state, kAddN);
}
BENCHMARK(BM_ElemwiseAdd10M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RawLoopAdd10M(benchmark::State& state) {
  NDArray a = Filled({kAddN}, 1.f), b = Filled({kAddN}, 2.f), c = Filled({kAddN}, 0.f);
  const float* x = static_cast<const float*>(a.dptr());
  const float* y = static_cast<const float*>(b.dptr());
  float* z = static_cast<float*>(c.dptr());
  for (auto _ : state) {
    for (int64_t i = 0; i < kAddN; ++i) z[i] = x[i] + y[i];
    benchmark::DoNotOptimize(z);
  }
  SetStreamCounters(state, kAddN);
}
BENCHMARK(BM_RawLoopAdd10M)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace weft
