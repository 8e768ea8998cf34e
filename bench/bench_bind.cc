// Binding cost: a ResNet-50 (the shared test data's MXNet symbol file, batch
// 1, inference) bound from the symbol (compiling its plan: the inference
// passes, shape inference, memory planning) against binding a further
// executor to the compiled plan (what a predictor's pool does for its second
// and later executors of a shape set). Both allocate the planned blocks and
// prepare every kernel call. Run: ./dev bench --benchmark_filter=Bind
#include <benchmark/benchmark.h>

#include <fstream>
#include <string>

#include "weft/executor.h"
#include "weft/executor_plan.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

const char* const kModel =
    WEFT_SOURCE_DIR "/../shared/testdata/mxnet-models/pathak-ashutosh__resnet-50-symbol.json";

// The model's executor (zeroed arrays) or null when the file is absent.
std::unique_ptr<Executor> BindModel(benchmark::State& state) {
  if (!std::ifstream(kModel).good()) {
    state.SkipWithError("no ../shared/testdata/mxnet-models (the shared test data)");
    return nullptr;
  }
  Runtime* rt = &Runtime::Global();
  const Symbol sym = LoadJSONFile(kModel, rt->ops()).symbol;
  return Executor::SimpleBind(rt, sym, Context::CPU(0), {{"data", Shape{1, 3, 224, 224}}}, {},
                              GradReqSpec::All(GradReq::kNull));
}

void BM_BindCompilesThePlan(benchmark::State& state) {
  auto ex = BindModel(state);
  if (!ex) return;
  for (auto _ : state)
    benchmark::DoNotOptimize(Executor::Bind(&Runtime::Global(), ex->symbol(), ex->ctx(),
                                            ex->arg_arrays(), {}, {GradReq::kNull},
                                            ex->aux_arrays()));
}
BENCHMARK(BM_BindCompilesThePlan)->Unit(benchmark::kMillisecond);

void BM_BindToACompiledPlan(benchmark::State& state) {
  auto ex = BindModel(state);
  if (!ex) return;
  for (auto _ : state)
    benchmark::DoNotOptimize(
        Executor::Bind(&Runtime::Global(), ex->plan(), ex->arg_arrays(), {}, ex->aux_arrays()));
}
BENCHMARK(BM_BindToACompiledPlan)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace weft
