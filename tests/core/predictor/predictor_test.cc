// Predictor: a real model (MTCNN's P-Net with its real .params) against the
// outputs PyTorch computed (scripts/gen_det1_refs.py), at two input sizes
// through one predictor; a conv + BatchNorm net against an unoptimised
// executor; frozen weights; threads; errors; Close.
#include "weft/predictor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include "core/json/json_test_util.h"
#include "core/predictor/predictor_test_util.h"
#include "core/pass/inference_test_util.h"
#include "util/test_util.h"
#include "weft/npy.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

using test::Apply;
using namespace test::predictor;

TEST(Predictor, Det1MatchesPyTorchAtTwoInputSizes) {
  const std::string dir = test::ModelDir();
  if (!std::filesystem::exists(dir + "/deepinsight__det1-0001.params"))
    GTEST_SKIP() << "no det1 params";
  const std::string ref = test::TestDataDir() + "/det1";
  LoadedSymbol s = LoadJSONFile(dir + "/deepinsight__det1-symbol.json", Runtime::Global().ops());
  ParamMaps p =
      SplitParams(LoadNDArraysFile(dir + "/deepinsight__det1-0001.params", &Runtime::Global()));
  auto pred = Predictor::Create(&Runtime::Global(), s.symbol, p, {{"data", Shape{1, 3, 12, 12}}},
                                Context::CPU(0));
  ASSERT_EQ(pred->input_names(), std::vector<std::string>{"data"});
  ASSERT_EQ(pred->output_names().size(), 2u);
  for (const std::string tag : {"12x12", "24x36", "12x12"}) {
    NDArray input = LoadNpyFile(ref + "/input_" + tag + ".npy", &Runtime::Global());
    std::vector<float> in = Floats(input);
    const std::vector<Shape> out_shapes = pred->OutputShapes({input.shape()});
    NDArray conv = LoadNpyFile(ref + "/conv4_2_" + tag + ".npy", &Runtime::Global()),
            prob = LoadNpyFile(ref + "/prob1_" + tag + ".npy", &Runtime::Global());
    ASSERT_EQ(out_shapes[0], conv.shape()) << tag;
    ASSERT_EQ(out_shapes[1], prob.shape()) << tag;
    std::vector<float> o0(conv.Size()), o1(prob.Size());
    pred->Predict({In(in, input.shape())}, {Out(&o0), Out(&o1)});
    EXPECT_LT(MaxAbsDiff(o0, Floats(conv)), 1e-4) << "conv4_2 " << tag;
    EXPECT_LT(MaxAbsDiff(o1, Floats(prob)), 1e-4) << "prob1 " << tag;
  }
  EXPECT_EQ(pred->stats().shape_sets, 2u);
}

TEST(Predictor, FreezesFoldedWeightsAndMatchesTheUnoptimisedExecutor) {
  Net net(2);
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params,
                                {{"data", Shape{2, 3, 6, 6}}}, Context::CPU(0));
  // BatchNorm folded and its folded weights computed once: no _bn_fold or
  // BatchNorm node is left, the weights are frozen variables.
  std::vector<std::string> ops = test::OpNames(Graph{pred->symbol().outputs});
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "BatchNorm"), 0);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "_bn_fold"), 0);
  EXPECT_TRUE(pred->symbol().ListAuxiliaryStates().empty());
  const std::vector<float> in = net.Input();
  std::vector<float> out(2 * 5);
  pred->Predict({In(in, Shape{2, 3, 6, 6})}, {Out(&out)});
  const std::vector<float> want = net.Expected();
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_NEAR(out[i], want[i], 1e-5 * (1 + std::fabs(want[i])));
  // The predictor copied the weights: writing the caller's arrays changes nothing.
  NDArray w = net.params.args.at("conv1_weight");
  std::vector<float> zeros(static_cast<size_t>(w.Size()), 0.0f);
  w.CopyFromHost(zeros.data(), zeros.size() * sizeof(float));
  std::vector<float> again(out.size());
  pred->Predict({In(in, Shape{2, 3, 6, 6})}, {Out(&again)});
  EXPECT_EQ(again, out);
}

// A CPU input given as a buffer is read in place (lent to the executor's
// kernels, not copied); one with a fill callback, or while a monitor is
// set, is copied. Each call's result is the reference's, including a call
// with new values in the same buffer and one with another buffer.
TEST(Predictor, CallersInputBufferIsReadInPlace) {
  Net net(1);
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params,
                                {{"data", Shape{1, 3, 6, 6}}}, Context::CPU(0));
  std::vector<float> in = net.Input(), out(5);
  auto expect_reference = [&net, &out](int call) {
    const std::vector<float> want = net.Expected();
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(out[i], want[i], 1e-5) << call;
  };
  pred->Predict({In(in, Shape{1, 3, 6, 6})}, {Out(&out)});
  expect_reference(0);
  EXPECT_EQ(pred->stats().inputs_lent, 1u);
  EXPECT_EQ(pred->stats().inputs_copied, 0u);
  for (float& v : in) v = 1.5f * v + 0.25f;  // the same buffer, new values
  NDArray ref_data = net.ref->arg_arrays()[0];
  ref_data.CopyFromHost(in.data(), in.size() * sizeof(float));
  pred->Predict({In(in, Shape{1, 3, 6, 6})}, {Out(&out)});
  expect_reference(1);
  std::vector<float> other(in.size(), 0.5f);  // another buffer
  ref_data.CopyFromHost(other.data(), other.size() * sizeof(float));
  pred->Predict({In(other, Shape{1, 3, 6, 6})}, {Out(&out)});
  expect_reference(2);
  EXPECT_EQ(pred->stats().inputs_lent, 3u);
  HostInput fill(nullptr, other.size() * sizeof(float), Shape{1, 3, 6, 6});
  fill.fill = [&other](void* dst, size_t bytes) { std::memcpy(dst, other.data(), bytes); };
  pred->Predict({fill}, {Out(&out)});
  expect_reference(3);
  pred->SetMonitorCallback([](const std::string&, const NDArray&) {}, false);
  pred->Predict({In(other, Shape{1, 3, 6, 6})}, {Out(&out)});
  expect_reference(4);
  EXPECT_EQ(pred->stats().inputs_lent, 3u);
  EXPECT_EQ(pred->stats().inputs_copied, 2u);
}

TEST(Predictor, WithoutCopyParamsBindsTheCallersArrays) {
  Net net(1);
  PredictorOptions opts;
  opts.copy_params = false;
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params,
                                {{"data", Shape{1, 3, 6, 6}}}, Context::CPU(0), opts);
  const std::vector<float> in = net.Input();
  std::vector<float> before(5), after(5);
  pred->Predict({In(in, Shape{1, 3, 6, 6})}, {Out(&before)});
  // fc1_weight is bound as it is (not folded): zeroing it gives uniform probabilities
  // when the bias is zeroed too.
  for (const char* name : {"fc1_weight", "fc1_bias"}) {
    NDArray w = net.params.args.at(name);
    std::vector<float> zeros(static_cast<size_t>(w.Size()), 0.0f);
    w.CopyFromHost(zeros.data(), zeros.size() * sizeof(float));
  }
  pred->Predict({In(in, Shape{1, 3, 6, 6})}, {Out(&after)});
  for (float p : after) EXPECT_NEAR(p, 0.2f, 1e-6);
  EXPECT_NE(before, after);
}

TEST(Predictor, BatchSizesInterleavedGiveEachSamplesResult) {
  Net net(3);
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params,
                                {{"data", Shape{1, 3, 6, 6}}}, Context::CPU(0));
  const std::vector<float> in = net.Input();  // 3 samples
  const size_t sample = 3 * 6 * 6;
  std::vector<float> batch(3 * 5);
  for (int round = 0; round < 2; ++round) {
    pred->Predict({In(in, Shape{3, 3, 6, 6})}, {Out(&batch)});
    for (int b = 0; b < 3; ++b) {
      std::vector<float> one(in.begin() + b * sample, in.begin() + (b + 1) * sample), out(5);
      pred->Predict({In(one, Shape{1, 3, 6, 6})}, {Out(&out)});
      for (int k = 0; k < 5; ++k) EXPECT_NEAR(out[k], batch[b * 5 + k], 1e-6) << "sample " << b;
    }
  }
  EXPECT_EQ(pred->stats().shape_sets, 2u);
}

TEST(Predictor, ManyThreadsGiveTheSingleThreadResultsAndShareTheWeights) {
  Net net(1);
  PredictorOptions opts;
  opts.max_executors = 4;
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params,
                                {{"data", Shape{1, 3, 6, 6}}}, Context::CPU(0), opts);
  const int kInputs = 6;
  std::vector<std::vector<float>> inputs, expected;
  for (int i = 0; i < kInputs; ++i) {
    inputs.push_back(Floats(test::RandomArray(Shape{1, 3, 6, 6}, DType::kFloat32, -1, 1, 100 + i)));
    expected.emplace_back(5);
    pred->Predict({In(inputs[i], Shape{1, 3, 6, 6})}, {Out(&expected[i])});
  }
  const PredictorStats before = pred->stats();
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      std::vector<float> out(5);
      for (int r = 0; r < 25; ++r) {
        const int i = (t + r) % kInputs;
        pred->Predict({In(inputs[i], Shape{1, 3, 6, 6})}, {Out(&out)});
        if (out != expected[i]) ++mismatches;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  const PredictorStats after = pred->stats();
  EXPECT_LE(after.executors, 4u);
  EXPECT_GE(after.executors, before.executors);
  EXPECT_EQ(after.weight_bytes, before.weight_bytes);  // weights held once
  EXPECT_EQ(after.in_use, 0u);
  EXPECT_EQ(after.plans, 1u);  // every executor of the shape set bound to one compiled plan
}

TEST(Predictor, SelectsInternalOutputs) {
  Net net(1);
  PredictorOptions opts;
  opts.outputs = {"fc1", "relu1_output"};
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params,
                                {{"data", Shape{1, 3, 6, 6}}}, Context::CPU(0), opts);
  EXPECT_EQ(pred->output_names(), (std::vector<std::string>{"fc1_output", "relu1_output"}));
  std::vector<float> fc(5), relu(8 * 36);
  const std::vector<float> in = net.Input();
  pred->Predict({In(in, Shape{1, 3, 6, 6})}, {Out(&fc), Out(&relu)});
  for (float v : relu) EXPECT_GE(v, 0.0f);
  // softmax of fc1 is the model's output.
  const std::vector<float> want = net.Expected();
  double sum = 0;
  for (float v : fc) sum += std::exp(double(v));
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(std::exp(double(fc[k])) / sum, want[k], 1e-5);
  opts.outputs = {"nope"};
  test::ExpectWeftError(
      [&] {
        Predictor::Create(&Runtime::Global(), net.sym, net.params, {{"data", Shape{1, 3, 6, 6}}},
                          Context::CPU(0), opts);
      },
      StatusCode::kInvalidArgument, {"output 'nope'", "fc1_output"});
}

TEST(Predictor, MonitorSeesTheExecutorsNodesOnThePredictingThread) {
  Net net(1);
  PredictorOptions opts;
  opts.outputs = {"fc1"};
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params,
                                {{"data", Shape{1, 3, 6, 6}}}, Context::CPU(0), opts);
  std::map<std::string, std::vector<float>> seen;
  std::thread::id where;
  pred->SetMonitorCallback([&](const std::string& name, const NDArray& v) {
    seen[name] = Floats(v);
    where = std::this_thread::get_id();
  });
  std::vector<float> fc(5);
  const std::vector<float> in = net.Input();
  pred->Predict({In(in, Shape{1, 3, 6, 6})}, {Out(&fc)});
  EXPECT_EQ(where, std::this_thread::get_id());
  ASSERT_TRUE(seen.count("fc1_output"));
  EXPECT_EQ(seen["fc1_output"], fc);  // the monitored value is the output
  pred->SetMonitorCallback({});
  seen.clear();
  pred->Predict({In(in, Shape{1, 3, 6, 6})}, {Out(&fc)});
  EXPECT_TRUE(seen.empty());
}

TEST(Predictor, ErrorsNameTheInputOutputOrWeight) {
  Net net(1);
  const Shape s{1, 3, 6, 6};
  ParamMaps missing = net.params;
  missing.args.erase("fc1_weight");
  test::ExpectWeftError(
      [&] {
        Predictor::Create(&Runtime::Global(), net.sym, missing, {{"data", s}}, Context::CPU(0));
      },
      StatusCode::kInvalidArgument, {"weight 'fc1_weight'", "missing"});
  test::ExpectWeftError(
      [&] {
        Predictor::Create(&Runtime::Global(), net.sym, net.params, {{"images", s}},
                          Context::CPU(0));
      },
      StatusCode::kInvalidArgument, {"input 'images'", "no argument"});
  auto pred =
      Predictor::Create(&Runtime::Global(), net.sym, net.params, {{"data", s}}, Context::CPU(0));
  std::vector<float> in = net.Input(), out(5), small(4);
  test::ExpectWeftError([&] { pred->Predict({}, {Out(&out)}); }, StatusCode::kInvalidArgument,
                        {"expected 1 input(s), given 0"});
  test::ExpectWeftError(
      [&] {
        pred->Predict({{in.data(), 8, s}}, {Out(&out)});
      },
      StatusCode::kInvalidArgument, {"input 'data'", "needs 432 bytes, given 8"});
  test::ExpectWeftError([&] { pred->Predict({In(in, s)}, {Out(&small)}); },
                        StatusCode::kInvalidArgument,
                        {"output 'softmax_output'", "20 bytes, given 16"});
  test::ExpectWeftError(
      [&] {
        pred->Predict({In(in, Shape{1, 4, 6, 6})}, {Out(&out)});
      },
      StatusCode::kShape, {"conv1", "data"});
  test::ExpectWeftError(
      [&] {
        pred->Predict({In(in, Shape{1, 0, 6, 6})}, {Out(&out)});
      },
      StatusCode::kShape, {"input 'data'", "every extent > 0"});
  // Still usable.
  pred->Predict({In(in, s)}, {Out(&out)});
  EXPECT_LT(MaxAbsDiff(out, net.Expected()), 1e-5);
}

TEST(Predictor, ForgetsTheLeastRecentlyUsedShapes) {
  Net net(1);
  PredictorOptions opts;
  opts.max_shapes = 2;
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params,
                                {{"data", Shape{1, 3, 6, 6}}}, Context::CPU(0), opts);
  for (int b : {2, 3, 4, 1}) {
    std::vector<float> in(static_cast<size_t>(b) * 108, 0.5f), out(static_cast<size_t>(b) * 5);
    pred->Predict({In(in, Shape{b, 3, 6, 6})}, {Out(&out)});
    EXPECT_LE(pred->stats().shape_sets, 2u);
  }
}

// Output shapes come from a bound shape set or from shape inference: the
// question takes no executor, binds none, and answers while the only
// executor is busy elsewhere.
TEST(Predictor, OutputShapesTakeNoExecutor) {
  Net net(1);
  PredictorOptions opts;
  opts.max_executors = 1;
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params,
                                {{"data", Shape{1, 3, 6, 6}}}, Context::CPU(0), opts);
  EXPECT_EQ(pred->OutputShapes({Shape{1, 3, 6, 6}}), (std::vector<Shape>{Shape{1, 5}}));
  EXPECT_EQ(pred->OutputShapes({Shape{7, 3, 6, 6}}), (std::vector<Shape>{Shape{7, 5}}));
  const PredictorStats s = pred->stats();
  EXPECT_EQ(s.executors, 1u);
  EXPECT_EQ(s.shape_sets, 1u);
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_THROW(pred->OutputShapes({Shape{7, 3, 0, 6}}), Error);
  EXPECT_THROW(pred->OutputShapes({}), Error);
}

TEST(Predictor, CloseWhileCallsRunFailsLaterCallsOnly) {
  Net net(1);
  PredictorOptions opts;
  opts.max_executors = 1;  // callers queue for the one executor
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params,
                                {{"data", Shape{1, 3, 6, 6}}}, Context::CPU(0), opts);
  const std::vector<float> in = net.Input();
  std::vector<float> want(5);
  pred->Predict({In(in, Shape{1, 3, 6, 6})}, {Out(&want)});
  std::atomic<int> ok{0}, closed{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      std::vector<float> out(5);
      for (int r = 0; r < 200; ++r) {
        try {
          pred->Predict({In(in, Shape{1, 3, 6, 6})}, {Out(&out)});
          (out == want ? ok : other)++;
        } catch (const Error& e) {
          (std::string(e.what()).find("closed") != std::string::npos ? closed : other)++;
        }
      }
    });
  while (ok.load() + other.load() < 4) std::this_thread::yield();
  pred->Close();
  EXPECT_EQ(pred->stats().in_use, 0u);
  for (auto& t : threads) t.join();
  EXPECT_EQ(other.load(), 0);
  EXPECT_GT(closed.load(), 0);
  EXPECT_EQ(ok.load() + closed.load(), 800);
  std::vector<float> out(5);
  test::ExpectWeftError(
      [&] {
        pred->Predict({In(in, Shape{1, 3, 6, 6})}, {Out(&out)});
      },
      StatusCode::kInvalidArgument, {"closed"});
}

}  // namespace
}  // namespace weft
