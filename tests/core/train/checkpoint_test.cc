// Checkpoints: a trained-looking network (FC, BatchNorm with aux states,
// relu, FC, SoftmaxOutput) saved and loaded gives bit-identical outputs; the
// real MXNet checkpoint deepinsight__det1 (prefix + epoch 1) loads and
// reproduces the PyTorch reference outputs; missing files are clear errors
// naming the file; names without "arg:"/"aux:" split by the symbol.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/json/json_test_util.h"
#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/checkpoint.h"
#include "weft/executor.h"
#include "weft/ndarray_io.h"
#include "weft/npy.h"

namespace weft {
namespace {

std::string Prefix(const std::string& name) {
  return testing::TempDir() + "/weft_ckpt_" + std::to_string(getpid()) + "_" + name;
}

using test::ExpectError;

Symbol Net() {
  Symbol h = Symbol::Apply(Runtime::Global().ops(), "FullyConnected",
                           {Symbol::CreateVariable("data")}, {{"num_hidden", "6"}}, "fc1");
  h = Symbol::Apply(Runtime::Global().ops(), "BatchNorm", {h}, {{"fix_gamma", "False"}}, "bn");
  h = Symbol::Apply(Runtime::Global().ops(), "Activation", {h}, {{"act_type", "relu"}}, "relu1");
  h = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {h}, {{"num_hidden", "3"}}, "fc2");
  return Symbol::Apply(Runtime::Global().ops(), "SoftmaxOutput",
                       {h, Symbol::CreateVariable("softmax_label")}, {}, "softmax");
}

std::vector<uint32_t> Bits(const NDArray& a) {
  std::vector<uint32_t> out(static_cast<size_t>(a.Size()));
  a.CopyToHost(out.data(), out.size() * sizeof(uint32_t));
  return out;
}

TEST(CheckpointTest, SaveLoadRebindGivesBitIdenticalOutputs) {
  const Symbol net = Net();
  pass::ShapeMap shapes = {{"data", Shape{4, 5}}, {"softmax_label", Shape{4}}};
  auto ex = Executor::SimpleBind(&Runtime::Global(), net, Context::CPU(), shapes, {},
                                 GradReqSpec::All(GradReq::kNull));
  std::map<std::string, NDArray> args, aux;
  unsigned seed = 1;
  for (size_t i = 0; i < ex->arg_names().size(); ++i) {
    const NDArray& a = ex->arg_arrays()[i];
    const std::string& name = ex->arg_names()[i];
    NDArray v = test::RandomArray(a.shape(), DType::kFloat32, -1, 1, seed++);
    NDArray dst = a;
    v.CopyTo(&dst);
    if (name != "data" && name != "softmax_label") args[name] = a;
  }
  for (size_t i = 0; i < ex->aux_names().size(); ++i) {
    const NDArray& a = ex->aux_arrays()[i];
    // moving_var must be positive.
    NDArray v = test::RandomArray(a.shape(), DType::kFloat32, 0.5, 2, seed++);
    NDArray dst = a;
    v.CopyTo(&dst);
    aux[ex->aux_names()[i]] = a;
  }
  ASSERT_EQ(aux.size(), 2u);
  ex->Forward(false);
  const std::vector<uint32_t> want = Bits(ex->outputs()[0]);

  const std::string prefix = Prefix("mlp");
  SaveCheckpoint(prefix, 3, net, args, aux);
  ASSERT_TRUE(std::filesystem::exists(prefix + "-symbol.json"));
  ASSERT_TRUE(std::filesystem::exists(prefix + "-0003.params"));
  EXPECT_EQ(CheckpointParamsPath(prefix, 12345), prefix + "-12345.params");
  // The params file is an MXNet list with prefixed names.
  NDArrayList list = LoadNDArraysFile(prefix + "-0003.params", &Runtime::Global());
  EXPECT_EQ(list.names,
            (std::vector<std::string>{"arg:bn_beta", "arg:bn_gamma", "arg:fc1_bias",
                                      "arg:fc1_weight", "arg:fc2_bias", "arg:fc2_weight",
                                      "aux:bn_moving_mean", "aux:bn_moving_var"}));

  Checkpoint ck = LoadCheckpoint(prefix, 3, &Runtime::Global());
  EXPECT_EQ(ck.symbol.ListArguments(), net.ListArguments());
  EXPECT_EQ(ck.symbol.ListAuxiliaryStates(), net.ListAuxiliaryStates());
  ASSERT_EQ(ck.args.size(), args.size());
  ASSERT_EQ(ck.aux.size(), aux.size());
  std::map<std::string, NDArray> bind_args = ck.args;
  bind_args["data"] = ex->arg_arrays()[0];
  bind_args["softmax_label"] = ex->arg_arrays().back();
  ASSERT_EQ(ex->arg_names()[0], "data");
  ASSERT_EQ(ex->arg_names().back(), "softmax_label");
  auto ex2 = Executor::BindByName(&Runtime::Global(), ck.symbol, Context::CPU(), bind_args, {}, {},
                                  ck.aux);
  ex2->Forward(false);
  EXPECT_EQ(Bits(ex2->outputs()[0]), want);
  for (const auto& kv : args) EXPECT_EQ(Bits(ck.args.at(kv.first)), Bits(kv.second)) << kv.first;
}

TEST(CheckpointTest, LoadsTheRealMXNetCheckpointDet1) {
  const std::string prefix = test::ModelDir() + "/deepinsight__det1";
  if (!std::filesystem::exists(prefix + "-0001.params")) GTEST_SKIP() << "no det1 checkpoint";
  Checkpoint ck = LoadCheckpoint(prefix, 1, &Runtime::Global());
  EXPECT_TRUE(ck.aux.empty());
  for (const std::string& name : ck.symbol.ListArguments())
    if (name != "data") {
      EXPECT_TRUE(ck.args.count(name)) << name;
    }
  EXPECT_EQ(ck.args.at("conv1_weight").shape(), (Shape{10, 3, 3, 3}));
  // Bound with its parameters it reproduces the PyTorch reference outputs.
  const std::string ref = test::TestDataDir() + "/det1/";
  std::map<std::string, NDArray> args = ck.args;
  args["data"] = LoadNpyFile(ref + "input_12x12.npy", &Runtime::Global());
  auto ex =
      Executor::BindByName(&Runtime::Global(), ck.symbol, Context::CPU(), args, {}, {}, ck.aux);
  ex->Forward(false);
  std::vector<double> got = test::Values(ex->outputs()[1]),
                      want = test::Values(LoadNpyFile(ref + "prob1_12x12.npy", &Runtime::Global()));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << i;
}

TEST(CheckpointTest, ErrorsNameTheFile) {
  const std::string prefix = Prefix("err");
  ExpectError([&] { LoadCheckpoint(prefix, 0, &Runtime::Global()); }, StatusCode::kIO,
              {prefix + "-symbol.json"});
  const Symbol net = Net();
  SaveCheckpoint(prefix, 0, net, {}, {});  // a symbol and an empty parameter list
  EXPECT_TRUE(LoadCheckpoint(prefix, 0, &Runtime::Global()).args.empty());
  ExpectError([&] { LoadCheckpoint(prefix, 7, &Runtime::Global()); }, StatusCode::kIO,
              {prefix + "-0007.params"});
  // A plain nd.save list (names without arg:/aux:, as Gluon's
  // collect_params().save() writes) loads as MXNet's load_dict splits it: the
  // symbol's auxiliary states to aux, the rest to args.
  NDArrayList plain;
  plain.arrays = {test::Array(Shape{2}, {1, 2}), test::Array(Shape{6}, {0, 1, 2, 3, 4, 5}),
                  test::Array(Shape{1}, {7})};
  plain.names = {"fc1_weight", "bn_moving_mean", "arg:fc2_bias"};
  SaveNDArraysFile(plain, prefix + "-0001.params");
  const Checkpoint loaded = LoadCheckpoint(prefix, 1, &Runtime::Global());
  ASSERT_EQ(loaded.args.size(), 2u);
  EXPECT_EQ(test::Values(loaded.args.at("fc1_weight")), (std::vector<double>{1, 2}));
  EXPECT_EQ(test::Values(loaded.args.at("fc2_bias")), (std::vector<double>{7}));
  ASSERT_EQ(loaded.aux.size(), 1u);
  EXPECT_EQ(test::Values(loaded.aux.at("bn_moving_mean")).size(), 6u);
  // The same parameter with and without its prefix is one name twice.
  plain.names = {"fc1_weight", "bn_moving_mean", "arg:fc1_weight"};
  SaveNDArraysFile(plain, prefix + "-0001.params");
  ExpectError([&] { LoadCheckpoint(prefix, 1, &Runtime::Global()); }, StatusCode::kInvalidArgument,
              {prefix + "-0001.params", "'arg:fc1_weight' appears more than once"});
  ExpectError([&] { LoadCheckpoint(prefix, -1, &Runtime::Global()); }, StatusCode::kInvalidArgument,
              {"epoch must be >= 0, given -1"});
  ExpectError(
      [&] {
        SaveCheckpoint(prefix, 1, net, {{"w", NDArray()}}, {});
      },
      StatusCode::kInvalidArgument, {"arg parameter 'w' is an empty"});
  ExpectError([&] { SaveCheckpoint("/nonexistent/dir/x", 1, net, {}, {}); }, StatusCode::kIO,
              {"/nonexistent/dir/x"});
}

}  // namespace
}  // namespace weft
