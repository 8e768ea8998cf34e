// The executor's monitor and Monitor (MXNet's mx.monitor): every internal
// output of the MLP seen with the values GetInternals computes; inputs with
// monitor_all; Monitor's pattern, interval and norm statistic; gradients
// seen in Backward.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/pass/inference_test_util.h"
#include "util/bench_models.h"
#include "util/test_util.h"
#include "weft/cached_op.h"
#include "weft/monitor.h"

namespace weft {
namespace {

const pass::ShapeMap kShapes{{"data", Shape{4, 784}}, {"softmax_label", Shape{4}}};

TEST(ExecutorMonitor, SeesEveryInternalOutputWithGetInternalsValues) {
  const Symbol net = test::bench::Mlp();
  auto ex = test::BindInference(net, kShapes, false);
  test::FillRandom(ex.get(), 7);
  std::map<std::string, NDArray> seen;
  ex->SetMonitorCallback([&](const std::string& name, const NDArray& v) { seen[name] = v; });
  ex->Forward(false);
  auto internals = test::BindInference(net.GetInternals(), kShapes, false);
  test::CopyArrays(*ex, internals.get());
  internals->Forward(false);
  const std::vector<std::string> names = net.GetInternals().ListOutputs();
  const std::vector<std::string> args = net.ListArguments();
  size_t compared = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if (std::find(args.begin(), args.end(), names[i]) != args.end()) continue;  // a variable
    ASSERT_TRUE(seen.count(names[i])) << names[i] << " not monitored";
    EXPECT_EQ(test::Values(seen[names[i]]), test::Values(internals->outputs()[i])) << names[i];
    ++compared;
  }
  EXPECT_EQ(compared, seen.size());  // outputs only: no inputs without monitor_all
  EXPECT_EQ(compared, 6u);           // 3 FullyConnected, 2 Activation, SoftmaxOutput
  seen.clear();
  ex->SetMonitorCallback({});  // removed: nothing reported
  ex->Forward(false);
  ex->outputs()[0].WaitToRead();
  EXPECT_TRUE(seen.empty());
}

TEST(ExecutorMonitor, MonitorAllReportsInputsAndBackwardReportsGradients) {
  auto ex = Executor::SimpleBind(&Runtime::Global(), test::bench::Mlp(), Context::CPU(0), kShapes);
  test::FillRandom(ex.get(), 3);
  const auto& names = ex->arg_names();
  NDArray label = ex->arg_arrays()[static_cast<size_t>(
      std::find(names.begin(), names.end(), "softmax_label") - names.begin())];
  test::Array(Shape{4}, {1, 0, 3, 9}).CopyTo(&label);
  std::map<std::string, int> seen;
  ex->SetMonitorCallback([&](const std::string& name, const NDArray&) { seen[name]++; }, true);
  ex->Forward(true);
  EXPECT_EQ(seen["data"], 1);
  EXPECT_EQ(seen["fc1_weight"], 1);
  EXPECT_EQ(seen["fc1_output"], 2);  // fc1's output, then relu1's input
  const size_t forward = seen.size();
  ex->Backward();
  EXPECT_GT(seen.size(), forward);  // the gradient nodes' entries
  Engine::Get()->WaitForAll();
}

TEST(ExecutorMonitor, MonitorSamplesEveryIntervalAndMatchesThePattern) {
  auto ex = test::BindInference(test::bench::Mlp(), kShapes, false);
  test::FillRandom(ex.get(), 11);
  Monitor mon(2, "fc[0-9]_output", /*sort=*/true);
  mon.Install(ex.get());
  auto internals = test::BindInference(test::bench::Mlp().GetInternals(), kShapes, false);
  test::CopyArrays(*ex, internals.get());
  internals->Forward(false);
  const std::vector<std::string> names = test::bench::Mlp().GetInternals().ListOutputs();
  for (int batch = 0; batch < 4; ++batch) {
    mon.Tic();
    ex->Forward(false);
    const std::vector<Monitor::Stat> stats = mon.Toc();
    if (batch % 2) {
      EXPECT_TRUE(stats.empty()) << "batch " << batch;
      continue;
    }
    ASSERT_EQ(stats.size(), 3u) << "batch " << batch;
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(stats[k].step, batch);
      EXPECT_EQ(stats[k].name, "fc" + std::to_string(k + 1) + "_output");
      const size_t at =
          static_cast<size_t>(std::find(names.begin(), names.end(), stats[k].name) - names.begin());
      double sum = 0;
      const std::vector<double> v = test::Values(internals->outputs().at(at));
      for (double x : v) sum += x * x;
      EXPECT_NEAR(stats[k].value, std::sqrt(sum / static_cast<double>(v.size())), 1e-9);
    }
  }
  Engine::Get()->WaitForAll();  // the unsampled last batch
  test::ExpectError([] { Monitor(0); }, StatusCode::kInvalidArgument, {"interval"});
  test::ExpectError([] { Monitor(1, "fc[("); }, StatusCode::kInvalidArgument, {"not a regex"});
}

TEST(ExecutorMonitor, CachedOpReportsItsExecutorsNodes) {
  const Symbol net = test::bench::Mlp();
  CachedOp op(&Runtime::Global(), net);
  std::vector<NDArray> inputs;
  const pass::ShapeMap shapes{{"data", Shape{2, 784}},  {"fc1_weight", Shape{512, 784}},
                              {"fc1_bias", Shape{512}}, {"fc2_weight", Shape{256, 512}},
                              {"fc2_bias", Shape{256}}, {"fc3_weight", Shape{10, 256}},
                              {"fc3_bias", Shape{10}},  {"softmax_label", Shape{2}}};
  for (const std::string& name : op.input_names())
    inputs.push_back(name == "softmax_label"
                         ? test::Array(Shape{2}, {1, 3})
                         : test::RandomArray(shapes.at(name), DType::kFloat32, -0.1, 0.1, 5));
  std::map<std::string, NDArray> seen;
  op.SetMonitorCallback([&](const std::string& name, const NDArray& v) { seen[name] = v; });
  const std::vector<NDArray> out = op.Forward(inputs);
  // The nodes of its inference executor: fc1 and fc2 carry their relus
  // (pass::FuseDenseActivation), then fc3 and the softmax.
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_TRUE(seen.count("fc1_output") && seen.count("fc2_output")) << seen.size();
  ASSERT_TRUE(seen.count("softmax_output"));
  EXPECT_EQ(test::Values(seen["softmax_output"]), test::Values(out[0]));
  op.SetMonitorCallback({});
  seen.clear();
  op.Forward(inputs)[0].WaitToRead();
  EXPECT_TRUE(seen.empty());
}

}  // namespace
}  // namespace weft
