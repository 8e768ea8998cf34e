// Module's fixed parameters (MXNet's fixed_param_names, core/src/train/
// module.cc): bound without a gradient, never updated by the optimizer in
// Fit or Update (also through a kvstore), bitwise unchanged while the
// others train; unknown names and a late call are errors naming them.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/train/train_test_util.h"
#include "util/test_util.h"
#include "weft/kvstore.h"
#include "weft/module.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::ExpectError;

std::map<std::string, std::vector<float>> Snapshot(const Module& m) {
  std::map<std::string, std::vector<float>> out;
  for (const auto& kv : m.arg_params()) out[kv.first] = test::ToVector(kv.second);
  return out;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Trains the blob MLP for two epochs with fc1_weight and fc2_bias fixed and
// checks which parameters moved; `kv` routes the updates through a kvstore.
void TrainWithFixed(bool via_setter, std::shared_ptr<KVStore> kv) {
  test::Blobs blobs = test::MakeBlobs(96, 5);
  NDArrayIter it({{"data", blobs.x}}, {{"softmax_label", blobs.y}}, 16, true, LastBatch::kPad, 6);
  const std::vector<std::string> fixed = {"fc1_weight", "fc2_bias"};
  std::unique_ptr<Module> mod;
  if (via_setter) {
    mod = std::make_unique<Module>(&Runtime::Global(), test::BlobMlp(8));
    mod->SetFixedParams(fixed);
  } else {
    mod = std::make_unique<Module>(
        &Runtime::Global(), test::BlobMlp(8), std::vector<std::string>{"data"},
        std::vector<std::string>{"softmax_label"}, Context::CPU(0), fixed);
  }
  EXPECT_EQ(mod->fixed_param_names(), fixed);
  mod->Bind(it.provide_data(), it.provide_label(), true);
  // The fixed parameters have no gradient buffer; the others do.
  const auto& names = mod->executor()->arg_names();
  for (size_t i = 0; i < names.size(); ++i) {
    const bool is_fixed = names[i] == "fc1_weight" || names[i] == "fc2_bias";
    const bool is_input = names[i] == "data" || names[i] == "softmax_label";
    EXPECT_EQ(mod->executor()->grad_arrays()[i].is_none(), is_fixed || is_input) << names[i];
  }
  auto init = Initializer::Create("xavier", {}, 2);
  mod->InitParams(init.get());
  // A non-zero bias, so "unchanged" is not "left at zero".
  NDArray fc2_bias = mod->arg_params().at("fc2_bias");
  test::FromVector({0.5f, -0.25f, 0.125f, 1.0f}, Shape{4}).CopyTo(&fc2_bias);
  auto opt = std::shared_ptr<Optimizer>(
      Optimizer::Create("sgd", {{"learning_rate", "0.2"}, {"momentum", "0.9"}, {"wd", "0.01"}}));
  mod->InitOptimizer(opt, kv);
  const auto before = Snapshot(*mod);
  auto metric = Metric::Create("acc");
  FitOptions fo;
  fo.num_epoch = 2;
  fo.progress = ProgressMode::kSilent;
  mod->Fit(&it, nullptr, metric.get(), fo);
  // One more explicit step.
  it.Reset();
  ASSERT_TRUE(it.Next());
  mod->Forward(it.Value(), true);
  mod->Backward();
  mod->Update();
  const auto after = Snapshot(*mod);
  for (const auto& kv2 : before) {
    const bool is_fixed = kv2.first == "fc1_weight" || kv2.first == "fc2_bias";
    EXPECT_EQ(SameBits(kv2.second, after.at(kv2.first)), is_fixed)
        << kv2.first << (is_fixed ? " is fixed but changed" : " trains but did not change");
  }
  // Without a kvstore the optimizer never saw the fixed indices.
  for (size_t i = 0; i < names.size() && !kv; ++i) {
    if (names[i] == "fc1_weight" || names[i] == "fc2_bias") {
      EXPECT_EQ(opt->update_count(static_cast<int>(i)), 0) << names[i];
    }
  }
}

TEST(ModuleFixedParams, FixedParametersKeepTheirBitsOthersTrain) {
  TrainWithFixed(true, nullptr);
  TrainWithFixed(false, nullptr);
}

TEST(ModuleFixedParams, ThroughALocalKVStore) {
  TrainWithFixed(true, std::shared_ptr<KVStore>(KVStore::Create("local")));
}

TEST(ModuleFixedParams, ErrorsNameTheParameters) {
  Module mod(&Runtime::Global(), test::BlobMlp(8));
  ExpectError(
      [&] {
        mod.SetFixedParams({"fc1_weight", "fc9_weight", "conv_bias"});
      },
      StatusCode::kInvalidArgument, {"'fc9_weight', 'conv_bias'", "fc1_weight, fc1_bias"});
  EXPECT_TRUE(mod.fixed_param_names().empty());  // a failed call changes nothing
  ExpectError(
      [] {
        Module(&Runtime::Global(), test::BlobMlp(8), {"data"}, {"softmax_label"}, Context::CPU(0),
               {"nope"});
      },
      StatusCode::kInvalidArgument, {"'nope'"});
  test::Blobs blobs = test::MakeBlobs(16, 1);
  NDArrayIter it({{"data", blobs.x}}, {{"softmax_label", blobs.y}}, 16);
  mod.SetFixedParams({"fc2_weight"});
  mod.SetFixedParams({});  // replaces the list: nothing fixed
  mod.Bind(it.provide_data(), it.provide_label(), true);
  int with_grad = 0;
  for (const auto& g : mod.executor()->grad_arrays()) with_grad += !g.is_none();
  EXPECT_EQ(with_grad, 4);  // both weights and both biases
  ExpectError([&] { mod.SetFixedParams({"fc1_bias"}); }, StatusCode::kInvalidArgument,
              {"bound", "before Bind"});
}

}  // namespace
}  // namespace weft
