// Autograd's cost per recorded op: a small imperative op (elemwise_add of two
// 16-element arrays, waited for) with and without recording, and a recorded
// chain of 32 such ops back-propagated (Backward builds the gradient graph and
// runs it by Invoke). Run: ./dev bench --benchmark_filter=Autograd
#include <benchmark/benchmark.h>

#include <vector>

#include "weft/autograd.h"
#include "weft/imperative.h"
#include "weft/runtime.h"

namespace weft {
namespace {

NDArray Filled(float v) {
  NDArray a(Shape{16}, Context::CPU(0), DType::kFloat32, &Runtime::Global());
  std::vector<float> host(16, v);
  a.CopyFromHost(host.data(), host.size() * sizeof(float));
  return a;
}

// Arg 0: 0 not recording, 1 recording.
void BM_AutogradInvoke(benchmark::State& state) {
  Runtime* rt = &Runtime::Global();
  NDArray x = Filled(1), g = Filled(0);
  autograd::MarkVariables({&x}, {GradReq::kWrite}, {g});
  const bool record = state.range(0) != 0;
  for (auto _ : state) {
    autograd::RecordScope rec(false);
    if (!record) autograd::SetIsRecording(false);
    NDArray y = Invoke(rt, "elemwise_add", {x, x})[0];
    y.WaitToRead();
  }
}
BENCHMARK(BM_AutogradInvoke)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// 32 recorded elemwise_add ops, then Backward (per iteration: the record and the pass).
void BM_AutogradBackwardChain32(benchmark::State& state) {
  Runtime* rt = &Runtime::Global();
  NDArray x = Filled(1), g = Filled(0);
  autograd::MarkVariables({&x}, {GradReq::kWrite}, {g});
  for (auto _ : state) {
    NDArray y = x;
    {
      autograd::RecordScope rec;
      for (int i = 0; i < 32; ++i) y = Invoke(rt, "elemwise_add", {y, x})[0];
    }
    autograd::Backward(rt, {y});
    g.WaitToRead();
  }
}
BENCHMARK(BM_AutogradBackwardChain32)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace weft
