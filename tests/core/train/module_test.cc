// Module: seeded training of an MLP on a fixed synthetic task, determinism,
// evaluation with padded batches, checkpoints and the error paths.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "weft/checkpoint.h"
#include "core/train/train_test_util.h"
#include "weft/module.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {
namespace {

using test::Blobs;
using test::FromVector;
using test::MakeBlobs;
using test::ToVector;

Symbol Mlp() { return test::BlobMlp(16); }

struct Trained {
  std::vector<EpochResult> results;
  std::map<std::string, std::vector<float>> params;
};

Trained Train(uint64_t init_seed, uint64_t shuffle_seed, int epochs) {
  Blobs train = MakeBlobs(200, 1), val = MakeBlobs(100, 2);
  NDArrayIter train_it({{"data", train.x}}, {{"softmax_label", train.y}}, 16, true, LastBatch::kPad,
                       shuffle_seed);
  NDArrayIter val_it({{"data", val.x}}, {{"softmax_label", val.y}}, 16, false, LastBatch::kPad);
  Module mod(&Runtime::Global(), Mlp());
  mod.Bind(train_it.provide_data(), train_it.provide_label(), true);
  auto init = Initializer::Create("xavier", {}, init_seed);
  mod.InitParams(init.get());
  mod.InitOptimizer(Optimizer::Create("sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}}));
  auto metric = Metric::Create("acc");
  FitOptions fo;
  fo.num_epoch = epochs;
  fo.progress = ProgressMode::kLines;
  fo.log_interval = 5;
  std::ostringstream log;
  fo.log = &log;
  Trained t;
  t.results = mod.Fit(&train_it, &val_it, metric.get(), fo);
  for (const auto& kv : mod.arg_params()) t.params[kv.first] = ToVector(kv.second);
  EXPECT_NE(log.str().find("Epoch[0] Batch [5/13]"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("Epoch[0] Validation: accuracy="), std::string::npos) << log.str();
  return t;
}

TEST(Module, SeededMlpTrainingReachesFixedAccuracyDeterministically) {
  Trained a = Train(3, 4, 5);
  ASSERT_EQ(a.results.size(), 5u);
  // 200 training samples in batches of 16: 13 batches, the last padded by 8.
  EXPECT_EQ(a.results[0].samples, 200);
  ASSERT_FALSE(a.results.back().eval_metric.empty());
  EXPECT_GE(a.results.back().eval_metric[0].second, 0.97);  // the quadrants are well separated
  EXPECT_GT(a.results.back().train_metric[0].second, a.results[0].train_metric[0].second - 1e-9);

  Trained b = Train(3, 4, 5);
  ASSERT_EQ(a.params.size(), b.params.size());
  for (const auto& kv : a.params) {
    const auto& other = b.params.at(kv.first);
    ASSERT_EQ(kv.second.size(), other.size());
    EXPECT_EQ(std::memcmp(kv.second.data(), other.data(), kv.second.size() * sizeof(float)), 0)
        << kv.first << " differs between two runs with the same seeds";
  }
  Trained c = Train(5, 4, 1);
  Trained d = Train(3, 4, 1);
  EXPECT_NE(c.params.at("fc1_weight"), d.params.at("fc1_weight")) << "the init seed must matter";
}

TEST(Module, ScoreCountsEverySampleOnceWithPaddedBatches) {
  // A fixed linear model (identity weight, zero bias) predicts argmax(x).
  Symbol fc = Symbol::Apply(Runtime::Global().ops(), "FullyConnected",
                            {Symbol::CreateVariable("data")}, {{"num_hidden", "2"}}, "fc");
  Symbol sym = Symbol::Apply(Runtime::Global().ops(), "SoftmaxOutput",
                             {fc, Symbol::CreateVariable("softmax_label")}, {}, "softmax");
  std::vector<float> x, y;
  for (int i = 0; i < 10; ++i) {
    x.push_back(i % 2 ? 1.f : 0.f);
    x.push_back(i % 2 ? 0.f : 1.f);
    // The first two rows are labelled against the model: 8 of 10 right.
    y.push_back((i % 2 ? 0.f : 1.f) + (i < 2 ? (i % 2 ? 1.f : -1.f) : 0.f));
  }
  NDArrayIter it({{"data", FromVector(x, Shape{10, 2})}},
                 {{"softmax_label", FromVector(y, Shape{10})}}, 4);
  Module mod(&Runtime::Global(), sym);
  mod.Bind(it.provide_data(), it.provide_label(), false);
  mod.InitParams(nullptr,
                 {{"fc_weight", FromVector({1, 0, 0, 1}, Shape{2, 2})},
                  {"fc_bias", FromVector({0, 0}, Shape{2})}},
                 {}, false);
  // 3 batches of 4, the last padded with rows 0 and 1 again: counting the
  // padding would give 8/12 right instead of 8/10.
  auto acc = Metric::Create("acc");
  EXPECT_DOUBLE_EQ(mod.Score(&it, acc.get())[0].second, 0.8);
  auto ce = Metric::Create("ce");
  auto r = mod.Score(&it, ce.get());
  ASSERT_EQ(r.size(), 1u);
  const double right = -std::log(std::exp(1.0) / (std::exp(1.0) + 1.0));
  const double wrong = -std::log(1.0 / (std::exp(1.0) + 1.0));
  EXPECT_NEAR(r[0].second, (8 * right + 2 * wrong) / 10, 1e-6);
}

TEST(Module, CheckpointRoundTripGivesIdenticalOutputs) {
  Blobs data = MakeBlobs(32, 9);
  NDArrayIter it({{"data", data.x}}, {{"softmax_label", data.y}}, 32);
  Module mod(&Runtime::Global(), Mlp());
  mod.Bind(it.provide_data(), it.provide_label(), true);
  auto init = Initializer::Create("normal", {{"sigma", "0.5"}}, 11);
  mod.InitParams(init.get());
  ASSERT_TRUE(it.Next());
  mod.Forward(it.Value(), false);
  std::vector<float> before = ToVector(mod.outputs()[0]);
  std::string prefix = ::testing::TempDir() + "weft_module_ckpt";
  mod.SaveCheckpoint(prefix, 3);
  Checkpoint ck = LoadCheckpoint(prefix, 3, &Runtime::Global());
  Module loaded(&Runtime::Global(), ck.symbol);
  loaded.Bind(it.provide_data(), it.provide_label(), false);
  loaded.InitParams(nullptr, ck.args, ck.aux, false);
  loaded.Forward(it.Value(), false);
  std::vector<float> after = ToVector(loaded.outputs()[0]);
  ASSERT_EQ(before.size(), after.size());
  EXPECT_EQ(std::memcmp(before.data(), after.data(), before.size() * sizeof(float)), 0);
  std::remove((prefix + "-symbol.json").c_str());
  std::remove((prefix + "-0003.params").c_str());
}

TEST(Module, ErrorsNameWhatIsWrong) {
  auto message = [](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message([] {
              Module m(&Runtime::Global(), Mlp(), {"image"});
            }).find("data name 'image' is not an argument"),
            std::string::npos);
  Module mod(&Runtime::Global(), Mlp());
  EXPECT_NE(message([&] { mod.Backward(); }).find("call Bind first"), std::string::npos);
  Blobs data = MakeBlobs(8, 1);
  NDArrayIter it({{"data", data.x}}, {{"softmax_label", data.y}}, 8);
  mod.Bind(it.provide_data(), it.provide_label(), true);
  EXPECT_NE(message([&] { mod.Update(); }).find("call InitOptimizer first"), std::string::npos);
  EXPECT_NE(message([&] { mod.InitParams(nullptr); }).find("no value for argument 'fc1_weight'"),
            std::string::npos);
  EXPECT_NE(message([&] {
              mod.InitParams(nullptr, {{"fc1_weight", FromVector({1, 2}, Shape{2})}});
            }).find("'fc1_weight' expects shape (16,2), given (2,)"),
            std::string::npos);
  Blobs wrong = MakeBlobs(4, 1);
  DataBatch b;
  b.data = {wrong.x};
  b.label = {wrong.y};
  EXPECT_NE(message([&] {
              mod.Forward(b, true);
            }).find("'data' bound with shape (8,2), batch gives (4,2)"),
            std::string::npos);
  b.label.clear();
  b.data = {data.x};
  EXPECT_NE(message([&] { mod.Forward(b, true); }).find("needs labels"), std::string::npos);
}

TEST(Module, UnavailableDeviceFailsAtCreation) {
  int gpus = 0;
  try {
    gpus = Runtime::Global().device_api(DeviceType::kGPU)->DeviceCount();
  } catch (const Error&) {
    gpus = 0;  // a build without CUDA
  }
  // cpu(i) always exists; gpu(n) never does with n GPUs.
  for (Context ctx : {Context::GPU(gpus), Context{DeviceType::kCPU, -1}}) {
    try {
      Module m(&Runtime::Global(), Mlp(), {"data"}, {"softmax_label"}, ctx);
      FAIL() << ctx.ToString() << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), StatusCode::kDevice) << e.what();
      EXPECT_NE(std::string(e.what()).find(ctx.ToString()), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(
      Module(&Runtime::Global(), Mlp(), {"data"}, {"softmax_label"}, Context{DeviceType::kCPU, 1}));
}

}  // namespace
}  // namespace weft
