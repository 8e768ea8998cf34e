// The executor and imperative NDArray ops on the dependency engine.
//
// "FC on NDArray two-branch": two independent branches, each FullyConnected
// (1024) -> relu -> FullyConnected (1024) -> relu on a 64x1024 batch, joined
// by elemwise_add; run as a bound executor (Forward, and Forward+Backward)
// and as the same ops invoked imperatively on NDArrays. Also a chain of 64
// tiny ops (per-node engine overhead, the case bulking would serve).
//
// The global engine is fixed per process, so run this binary once per
// engine (scripts/bench_executor_engine.sh does naive, threaded with 1 and
// 2 workers): WEFT_ENGINE=naive|threaded WEFT_ENGINE_THREADS=N. The label
// names the engine. OpenBLAS is set to one thread here so that the
// parallelism measured is the engine's, not BLAS's.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <string>
#include <vector>

#include "weft/runtime.h"
#include "weft/engine.h"
#include "weft/executor.h"
#include "weft/imperative.h"

namespace weft {
namespace {

const Context kCpu = Context::CPU(0);
constexpr int kBatch = 64, kHidden = 1024;

std::string EngineLabel() {
  Engine* e = Engine::Get();
  return e->kind() == EngineKind::kNaive ? "naive"
                                         : "threaded/" + std::to_string(e->num_cpu_workers());
}

Symbol Op(const std::string& op, const std::vector<Symbol>& in, const StringMap& p,
          const std::string& name) {
  return Symbol::Apply(Runtime::Global().ops(), op, in, p, name);
}

Symbol Branch(const Symbol& x, const std::string& b) {
  Symbol h = x;
  for (int i = 1; i <= 2; ++i) {
    const std::string n = b + std::to_string(i);
    h = Op("FullyConnected", {h}, {{"num_hidden", std::to_string(kHidden)}}, "fc" + n);
    h = Op("Activation", {h}, {{"act_type", "relu"}}, "relu" + n);
  }
  return h;
}

Symbol TwoBranches() {
  Symbol x = Symbol::CreateVariable("data");
  return Op("elemwise_add", {Branch(x, "a"), Branch(x, "b")}, {}, "join");
}

// Small values so that relu keeps about half the units.
void Fill(NDArray* a, unsigned seed) {
  std::vector<float> v(static_cast<size_t>(a->Size()));
  unsigned s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * 0.05f;
  }
  a->CopyFromHost(v.data(), v.size() * sizeof(float));
}

// FLOP of the four FCs (forward).
double ForwardFlop() { return 4.0 * 2.0 * kBatch * kHidden * kHidden; }

// Args: 0 forward only / 1 forward+backward; num_groups of the plan.
void BM_TwoBranchFcExecutor(benchmark::State& state) {
  const int blas_threads = openblas_get_num_threads();
  openblas_set_num_threads(1);
  const bool train = state.range(0) != 0;
  NameScope scope;
  ExecutorOptions opt;
  opt.num_groups = static_cast<int>(state.range(1));
  GradReqSpec req;
  req.all = train ? GradReq::kWrite : GradReq::kNull;
  auto ex = Executor::SimpleBind(&Runtime::Global(), TwoBranches(), kCpu,
                                 {{"data", Shape{kBatch, kHidden}}}, {}, req, opt);
  for (size_t i = 0; i < ex->arg_arrays().size(); ++i) {
    NDArray a = ex->arg_arrays()[i];
    Fill(&a, static_cast<unsigned>(i + 1));
  }
  NDArray head(Shape{kBatch, kHidden}, kCpu, DType::kFloat32, &Runtime::Global());
  Fill(&head, 99);
  for (auto _ : state) {
    ex->Forward(train);
    if (train) {
      ex->Backward({head});
      for (const NDArray& g : ex->grad_arrays())
        if (!g.is_none()) g.WaitToRead();
    }
    ex->outputs()[0].WaitToRead();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      ForwardFlop() * (train ? 3 : 1) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(EngineLabel());
  openblas_set_num_threads(blas_threads);
}

// The same forward as imperative Invoke calls on NDArrays (the engine
// orders them by their arrays' variables).
void BM_TwoBranchFcInvoke(benchmark::State& state) {
  const int blas_threads = openblas_get_num_threads();
  openblas_set_num_threads(1);
  NDArray x(Shape{kBatch, kHidden}, kCpu, DType::kFloat32, &Runtime::Global());
  Fill(&x, 1);
  std::vector<NDArray> w, b;
  for (int i = 0; i < 4; ++i) {
    w.emplace_back(Shape{kHidden, kHidden}, kCpu, DType::kFloat32, &Runtime::Global());
    b.emplace_back(Shape{kHidden}, kCpu, DType::kFloat32, &Runtime::Global());
    Fill(&w.back(), 10 + i);
    Fill(&b.back(), 20 + i);
  }
  const StringMap fc{{"num_hidden", std::to_string(kHidden)}}, relu{{"act_type", "relu"}};
  for (auto _ : state) {
    std::vector<NDArray> branch;
    for (int br = 0; br < 2; ++br) {
      NDArray h = x;
      for (int i = 0; i < 2; ++i) {
        h = Invoke(&Runtime::Global(), "FullyConnected", {h, w[br * 2 + i], b[br * 2 + i]}, fc)[0];
        h = Invoke(&Runtime::Global(), "Activation", {h}, relu)[0];
      }
      branch.push_back(h);
    }
    Invoke(&Runtime::Global(), "elemwise_add", branch)[0].WaitToRead();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(ForwardFlop() * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(EngineLabel());
  openblas_set_num_threads(blas_threads);
}

// A chain of 64 tiny ops (x + 1 on 16 floats) per Forward: the per-node
// cost of pushing through the engine, which bulking would amortise.
void BM_ExecutorTinyOpChain(benchmark::State& state) {
  NameScope scope;
  constexpr int kLen = 64;
  Symbol h = Symbol::CreateVariable("x");
  for (int i = 0; i < kLen; ++i)
    h = Op("_plus_scalar", {h}, {{"scalar", "1"}}, "p" + std::to_string(i));
  auto ex = Executor::SimpleBind(&Runtime::Global(), h, kCpu, {{"x", Shape{16}}}, {},
                                 GradReqSpec::All(GradReq::kNull));
  for (auto _ : state) {
    ex->Forward(false);
    ex->outputs()[0].WaitToRead();
  }
  state.counters["s/node"] = benchmark::Counter(
      kLen, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetLabel(EngineLabel());
}

BENCHMARK(BM_TwoBranchFcExecutor)
    ->ArgNames({"train", "groups"})
    ->Args({0, 1})
    ->Args({0, 2})
    ->Args({1, 1})
    ->Args({1, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TwoBranchFcInvoke)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExecutorTinyOpChain)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace weft
