// ExecutorOptions::optimize_inference: the bench models (MLP, LeNet,
// ResNet-18) and every shared MXNet model file Weft can bind give the same
// outputs optimised and not; new weights written after bind are picked up
// (the constant _bn_fold steps re-run); a second Forward allocates nothing;
// a training-mode forward on an optimised graph is an error;
// WEFT_EXEC_OPTIMIZE=0 turns the passes off.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "core/json/json_test_util.h"
#include "core/pass/inference_test_util.h"
#include "util/bench_models.h"
#include "weft/runtime.h"
#include "weft/storage.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

using test::Apply;

using test::bench::Bn;
using test::bench::Conv;
using test::bench::LeNet;
using test::bench::Mlp;
using test::bench::Relu;
using test::bench::ResNet18;

TEST(ExecutorOptimize, BenchModelsMatch) {
  struct Case {
    const char* name;
    Symbol symbol;
    Shape data;
    size_t folds;
  };
  for (const Case& c :
       {Case{"mlp", Mlp(), Shape{4, 784}, 0}, Case{"lenet", LeNet(), Shape{2, 1, 28, 28}, 0},
        Case{"resnet18", ResNet18(), Shape{2, 3, 64, 64}, 20}}) {
    std::unique_ptr<Executor> ex;
    EXPECT_LT(test::CompareOptimized(c.symbol, {{"data", c.data}}, 3, &ex), 1e-5) << c.name;
    const std::string s = ex->DebugString();
    if (c.folds) {
      EXPECT_NE(s.find("FoldBatchNorm (" + std::to_string(c.folds) + " nodes)"), std::string::npos)
          << s;
      // Blocked layouts between the convolutions where the kernel asks for them.
      if (Runtime::Global().kernels().Find("_fused_Convolution", DeviceType::kCPU)->channel_block >
          0) {
        EXPECT_NE(s.find("BlockConvLayouts"), std::string::npos) << s;
      }
    }
    EXPECT_EQ(s.find("Op:BatchNorm"), std::string::npos) << c.name;
  }
}

TEST(ExecutorOptimize, ModelFilesMatch) {
  const OpRegistry& reg = Runtime::Global().ops();
  const std::vector<Shape> candidates = {Shape{1, 3, 224, 224}, Shape{1, 3, 112, 112},
                                         Shape{1, 3, 48, 48},   Shape{1, 3, 24, 24},
                                         Shape{1, 3, 12, 12},   Shape{2, 10}};
  std::error_code ec;
  if (!std::filesystem::is_directory(test::ModelDir(), ec))
    GTEST_SKIP() << "no shared model files in '" << test::ModelDir() << "'";
  int bound = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::ModelDir(), ec)) {
    if (e.path().extension() != ".json") continue;
    std::string text;
    ASSERT_TRUE(test::ReadTextFile(e.path().string(), &text));
    Symbol y;
    try {
      y = LoadJSON(text, reg).symbol;
    } catch (const Error& err) {
      std::cout << "[ skip ] " << e.path().filename() << ": " << err.what() << "\n";
      continue;
    }
    bool ok = false;
    for (const Shape& shape : candidates) {
      try {
        test::BindInference(y, {{"data", shape}}, false);
      } catch (const Error&) {
        continue;
      }
      EXPECT_LT(test::CompareOptimized(y, {{"data", shape}}, 9), 1e-5)
          << e.path().filename() << " " << shape.ToString();
      const std::string dbg = test::BindInference(y, {{"data", shape}}, true)->DebugString();
      const size_t at = dbg.find("Inference passes: ");
      std::cout << "[ bound ] " << e.path().filename() << " with data " << shape.ToString() << ": "
                << dbg.substr(at, dbg.find('\n', at) - at) << "\n";
      ok = true;
      break;
    }
    bound += ok;
  }
  EXPECT_GE(bound, 1) << "no model file could be bound from " << test::ModelDir();
}

Symbol SmallResidual() {
  Symbol x = Symbol::CreateVariable("data");
  Symbol h = Relu(Bn(Conv(x, 4, 3, 1, true, "c1"), "bn1"), "r1");
  h = Bn(Conv(h, 4, 3, 1, false, "c2"), "bn2");
  return Relu(Apply("elemwise_add", {h, Conv(x, 4, 1, 1, false, "c3")}, {}, "add"), "r2");
}

TEST(ExecutorOptimize, NewWeightsAfterBindArePickedUp) {
  const pass::ShapeMap shapes{{"data", Shape{2, 3, 6, 6}}};
  auto on = test::BindInference(SmallResidual(), shapes, true);
  auto off = test::BindInference(SmallResidual(), shapes, false);
  test::FillRandom(off.get(), 21);
  test::CopyArrays(*off, on.get());
  on->Forward(false);
  off->Forward(false);
  const std::vector<double> before = test::Values(on->outputs()[0]);
  EXPECT_LT(test::MaxRelDiff(*on, *off), 1e-5);
  // New weight and moving variance written into both executors' arrays.
  for (Executor* ex : {on.get(), off.get()}) {
    for (size_t i = 0; i < ex->arg_names().size(); ++i)
      if (ex->arg_names()[i] == "c1_weight") {
        NDArray w = ex->arg_arrays()[i];
        test::RandomArray(w.shape(), w.dtype(), -2, 2, 99).CopyTo(&w);
      }
    for (size_t i = 0; i < ex->aux_names().size(); ++i)
      if (ex->aux_names()[i] == "bn2_moving_var") {
        NDArray v = ex->aux_arrays()[i];
        test::RandomArray(v.shape(), v.dtype(), 3, 4, 98).CopyTo(&v);
      }
    ex->Forward(false);
  }
  EXPECT_LT(test::MaxRelDiff(*on, *off), 1e-5);
  EXPECT_NE(test::Values(on->outputs()[0]), before);
  // Unchanged weights: the same result again.
  on->Forward(false);
  EXPECT_LT(test::MaxRelDiff(*on, *off), 1e-5);
  EXPECT_NE(on->DebugString().find("Op:_bn_fold, Name=bn1_fold (constant)"), std::string::npos)
      << on->DebugString();
}

TEST(ExecutorOptimize, ConstantStepsSkipUntilAnInputChanges) {
  // A _bn_fold of parameters (read at weight/gamma/... inputs): a constant
  // step whose output (a graph output here) is overwritten below to see
  // whether the kernel ran. gamma is fixed, beta 0, mean 0, var 1 - eps.
  std::vector<Symbol> in;
  for (const char* n : {"w", "gamma", "beta", "mean", "var"})
    in.push_back(Symbol::CreateVariable(n));
  Symbol y = Apply("_bn_fold", in, {{"no_bias", "True"}, {"eps", "0"}}, "fold")[0];
  const pass::ShapeMap shapes{{"w", Shape{3, 1}}};
  auto run = [&](Executor* ex, std::vector<double> w_values, bool clobber) {
    NDArray w = ex->arg_arrays()[0], var = ex->arg_arrays()[4], out = ex->outputs()[0];
    test::Array(Shape{3}, {1, 1, 1}).CopyTo(&var);
    if (!w_values.empty()) test::Array(Shape{3, 1}, w_values).CopyTo(&w);
    if (clobber) test::Array(Shape{3, 1}, {0, 0, 0}).CopyTo(&out);
    ex->Forward(false);
    return test::Values(out);
  };
  auto ex = test::BindInference(y, shapes, true);
  EXPECT_NE(ex->DebugString().find("Op:_bn_fold, Name=fold (constant)"), std::string::npos)
      << ex->DebugString();
  EXPECT_EQ(run(ex.get(), {1, 2, 3}, false), (std::vector<double>{1, 2, 3}));
  // var is written by `run` every time: the fold runs again.
  EXPECT_EQ(run(ex.get(), {}, true), (std::vector<double>{1, 2, 3}));
  // Nothing written: skipped, the clobbered output stays.
  NDArray out = ex->outputs()[0];
  test::Array(Shape{3, 1}, {0, 0, 0}).CopyTo(&out);
  ex->Forward(false);
  EXPECT_EQ(test::Values(out), (std::vector<double>{0, 0, 0}));
  // A weight written: runs.
  NDArray w = ex->arg_arrays()[0];
  test::Array(Shape{3, 1}, {5, 6, 7}).CopyTo(&w);
  ex->Forward(false);
  EXPECT_EQ(test::Values(out), (std::vector<double>{5, 6, 7}));
  // Not optimised: every Forward runs it.
  auto plain = test::BindInference(y, shapes, false);
  run(plain.get(), {1, 2, 3}, false);
  NDArray pout = plain->outputs()[0];
  test::Array(Shape{3, 1}, {0, 0, 0}).CopyTo(&pout);
  plain->Forward(false);
  EXPECT_EQ(test::Values(pout), (std::vector<double>{1, 2, 3}));
  // Data-like inputs are no parameters: w + 1 is no constant step.
  Symbol p = Apply("_plus_scalar", {Symbol::CreateVariable("w")}, {{"scalar", "1"}}, "p");
  EXPECT_EQ(test::BindInference(p, {{"w", Shape{3}}}, true)->DebugString().find("(constant)"),
            std::string::npos);
}

TEST(ExecutorOptimize, SecondForwardAllocatesNothing) {
  auto ex = test::BindInference(SmallResidual(), {{"data", Shape{2, 3, 6, 6}}}, true);
  test::FillRandom(ex.get(), 5);
  ex->Forward(false);
  ex->outputs()[0].WaitToRead();
  auto pool = Runtime::Global().storage(Context::CPU(0));
  const StorageStats before = pool->stats();
  ex->Forward(false);
  ex->outputs()[0].WaitToRead();
  const StorageStats after = pool->stats();
  EXPECT_EQ(after.num_allocs, before.num_allocs);
  EXPECT_EQ(after.num_reuses, before.num_reuses);
}

TEST(ExecutorOptimize, TrainingForwardIsAnError) {
  auto ex = test::BindInference(SmallResidual(), {{"data", Shape{1, 3, 4, 4}}}, true);
  test::ExpectWeftError([&] { ex->Forward(true); }, StatusCode::kInvalidArgument,
                        {"optimize_inference=false", "FoldBatchNorm"});
  auto plain = test::BindInference(SmallResidual(), {{"data", Shape{1, 3, 4, 4}}}, false);
  plain->Forward(true);
  plain->outputs()[0].WaitToRead();
  EXPECT_NE(plain->DebugString().find("Inference passes: off"), std::string::npos);
}

TEST(ExecutorOptimize, EnvironmentSwitch) {
  setenv("WEFT_EXEC_OPTIMIZE", "0", 1);
  auto off = test::BindInference(SmallResidual(), {{"data", Shape{1, 3, 4, 4}}}, true);
  setenv("WEFT_EXEC_OPTIMIZE", "yes", 1);
  test::ExpectWeftError(
      [&] {
        test::BindInference(SmallResidual(), {{"data", Shape{1, 3, 4, 4}}}, true);
      },
      StatusCode::kInvalidArgument, {"WEFT_EXEC_OPTIMIZE"});
  unsetenv("WEFT_EXEC_OPTIMIZE");
  EXPECT_NE(off->DebugString().find("Inference passes: off"), std::string::npos);
  EXPECT_NE(off->DebugString().find("Op:BatchNorm"), std::string::npos);
  // Single passes skipped by name.
  setenv("WEFT_EXEC_SKIP_PASSES", "FoldBatchNorm,FuseConvActivation", 1);
  auto skipped = test::BindInference(SmallResidual(), {{"data", Shape{1, 3, 4, 4}}}, true);
  unsetenv("WEFT_EXEC_SKIP_PASSES");
  const std::string s = skipped->DebugString();
  EXPECT_NE(s.find("Op:BatchNorm"), std::string::npos) << s;
  EXPECT_EQ(s.find("_fused_Convolution"), std::string::npos) << s;
  EXPECT_NE(s.find("Op:Convolution"), std::string::npos) << s;
}

}  // namespace
}  // namespace weft
