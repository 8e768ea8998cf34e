// Dependency-engine overhead and parallelism: empty ops pushed to
// completion in a dependent chain and as independent sets (per-op cost and
// ops/s with 1 and 2 CPU workers, naive engine as reference), and two
// independent branches of real work (chains of 256x256 sgemm) threaded vs
// naive. Run: ./dev bench --benchmark_filter=Engine
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <vector>

#include "weft/engine.h"

namespace weft {
namespace {

// Arg 0: 0 naive, 1 threaded; arg 1: CPU workers.
std::unique_ptr<Engine> MakeBenchEngine(const benchmark::State& state) {
  EngineOptions o;
  o.cpu_threads = static_cast<int>(state.range(1));
  return Engine::Create(state.range(0) ? EngineKind::kThreaded : EngineKind::kNaive, o);
}

void SetOpCounters(benchmark::State& state, int64_t ops_per_iter) {
  state.SetItemsProcessed(state.iterations() * ops_per_iter);
  // Seconds per op, printed with an SI prefix (u = microseconds).
  state.counters["s/op"] = benchmark::Counter(
      static_cast<double>(ops_per_iter),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

constexpr int kOps = 10000;

// kOps empty ops all writing one variable, then WaitForAll.
void BM_EngineChainEmpty(benchmark::State& state) {
  auto e = MakeBenchEngine(state);
  VarHandle v = e->NewVariable();
  for (auto _ : state) {
    for (int i = 0; i < kOps; ++i) e->PushSync([](RunContext) {}, Context::CPU(), {}, {v});
    e->WaitForAll();
  }
  SetOpCounters(state, kOps);
  e->DeleteVariable({}, Context::CPU(), v);
  e->WaitForAll();
}

// kOps empty ops, each writing its own variable, then WaitForAll.
void BM_EngineIndependentEmpty(benchmark::State& state) {
  auto e = MakeBenchEngine(state);
  std::vector<VarHandle> vars(kOps);
  for (auto& v : vars) v = e->NewVariable();
  for (auto _ : state) {
    for (int i = 0; i < kOps; ++i) e->PushSync([](RunContext) {}, Context::CPU(), {}, {vars[i]});
    e->WaitForAll();
  }
  SetOpCounters(state, kOps);
  for (auto& v : vars) e->DeleteVariable({}, Context::CPU(), v);
  e->WaitForAll();
}

// Two independent chains of `kLen` sgemms (n x n, single-threaded BLAS):
// x <- x * w in each branch. The threaded engine runs the branches in
// parallel; the naive one runs them one after the other.
void BM_EngineTwoBranchesSgemm(benchmark::State& state) {
  const int blas_threads = openblas_get_num_threads();
  openblas_set_num_threads(1);
  auto e = MakeBenchEngine(state);
  const int n = 256, kLen = 8;
  std::vector<float> w(n * n, 0.001f);
  std::vector<std::vector<float>> bufs(4, std::vector<float>(n * n, 1.f));
  VarHandle vw = e->NewVariable();
  std::vector<VarHandle> vb(4);
  for (auto& v : vb) v = e->NewVariable();
  for (auto _ : state) {
    for (int k = 0; k < kLen; ++k)
      for (int br = 0; br < 2; ++br) {
        const int src = br * 2 + (k % 2), dst = br * 2 + 1 - (k % 2);
        e->PushSync(
            [&, src, dst](RunContext) {
              cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, bufs[src].data(),
                          n, w.data(), n, 0.f, bufs[dst].data(), n);
            },
            Context::CPU(), {vb[src], vw}, {vb[dst]}, 0, "sgemm");
      }
    e->WaitForAll();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n * 2 * kLen * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  for (auto& v : vb) e->DeleteVariable({}, Context::CPU(), v);
  e->DeleteVariable({}, Context::CPU(), vw);
  e->WaitForAll();
  openblas_set_num_threads(blas_threads);
}

void EngineArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"threaded", "workers"});
  b->Args({0, 0});
  for (int workers : {1, 2}) b->Args({1, workers});
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_EngineChainEmpty)->Apply(EngineArgs);
BENCHMARK(BM_EngineIndependentEmpty)->Apply(EngineArgs);
BENCHMARK(BM_EngineTwoBranchesSgemm)->Apply(EngineArgs);

}  // namespace
}  // namespace weft
