// pass::FuseDenseActivation and _fused_FullyConnected: FullyConnected -> relu
// and FullyConnected -> LeakyReLU(gelu) become one _fused_FullyConnected;
// shared outputs and other activations are left alone; the fused op (oneDNN's
// inner product with an eltwise post-op when bound, else the reference)
// computes what the unfused graph computes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/pass/inference_test_util.h"
#include "weft/pass.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::Apply;

Symbol Dense(const Symbol& x, bool bias, bool flatten) {
  return Apply("FullyConnected", {x},
               {{"num_hidden", "24"},
                {"no_bias", bias ? "False" : "True"},
                {"flatten", flatten ? "True" : "False"}},
               "fc");
}

const Node& OutputNode(const Graph& g) { return *g.outputs[0].node; }

TEST(FuseDenseActivation, DenseRelu) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol x = Symbol::CreateVariable("data");
  for (bool bias : {true, false}) {
    for (const Symbol& y :
         {Apply("Activation", {Dense(x, bias, true)}, {{"act_type", "relu"}}, "a"),
          Apply("relu", {Dense(x, bias, true)}, {}, "r")}) {
      pass::RewriteResult r = pass::FuseDenseActivation(reg, Graph{y.outputs});
      EXPECT_EQ(r.changes, 1u);
      EXPECT_EQ(test::OpNames(r.graph), (std::vector<std::string>{"_fused_FullyConnected"}));
      EXPECT_EQ(OutputNode(r.graph).attrs.params.GetString("act_type"), "relu");
      EXPECT_EQ(OutputNode(r.graph).inputs.size(), bias ? 3u : 2u);
      std::unique_ptr<Executor> on;
      EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{5, 3, 4}}}, 3, &on), 1e-5);
      EXPECT_NE(on->DebugString().find("_fused_FullyConnected"), std::string::npos)
          << on->DebugString();
    }
  }
}

// A transformer's feed-forward layer: FullyConnected(flatten=False) on
// (batch, sequence, width), then GELU.
TEST(FuseDenseActivation, DenseGelu) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol y = Apply("LeakyReLU", {Dense(Symbol::CreateVariable("data"), true, false)},
                   {{"act_type", "gelu"}}, "gelu");
  pass::RewriteResult r = pass::FuseDenseActivation(reg, Graph{y.outputs});
  EXPECT_EQ(r.changes, 1u);
  EXPECT_EQ(test::OpNames(r.graph), (std::vector<std::string>{"_fused_FullyConnected"}));
  EXPECT_EQ(OutputNode(r.graph).attrs.params.GetString("act_type"), "gelu");
  EXPECT_FALSE(OutputNode(r.graph).attrs.params.GetBool("flatten"));
  EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{2, 7, 16}}}, 5), 1e-5);
}

TEST(FuseDenseActivation, LeavesOthersAlone) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol fc = Dense(Symbol::CreateVariable("data"), true, true);
  Symbol two = Symbol::Group({Apply("relu", {fc}, {}, "r"), Apply("sigmoid", {fc}, {}, "s")});
  EXPECT_EQ(pass::FuseDenseActivation(reg, Graph{two.outputs}).changes, 0u);
  Symbol also_out = Symbol::Group({fc, Apply("relu", {fc}, {}, "r")});
  EXPECT_EQ(pass::FuseDenseActivation(reg, Graph{also_out.outputs}).changes, 0u);
  Symbol tanh = Apply("Activation", {fc}, {{"act_type", "tanh"}}, "t");
  EXPECT_EQ(pass::FuseDenseActivation(reg, Graph{tanh.outputs}).changes, 0u);
  Symbol leaky = Apply("LeakyReLU", {fc}, {{"act_type", "leaky"}}, "l");
  EXPECT_EQ(pass::FuseDenseActivation(reg, Graph{leaky.outputs}).changes, 0u);
  Symbol conv = Apply("relu",
                      {Apply("Convolution", {Symbol::CreateVariable("data")},
                             {{"kernel", "(1,1)"}, {"num_filter", "2"}}, "c")},
                      {}, "r");
  EXPECT_EQ(pass::FuseDenseActivation(reg, Graph{conv.outputs}).changes, 0u);
}

// Called imperatively (the reference's double-precision erf), against
// FullyConnected then LeakyReLU's GELU or relu.
TEST(FusedFullyConnectedOp, MatchesDenseThenActivation) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::RandomArray(Shape{6, 10}, dt, -2, 2, 1);
    NDArray w = test::RandomArray(Shape{8, 10}, dt, -1, 1, 2);
    NDArray b = test::RandomArray(Shape{8}, dt, -1, 1, 3);
    const StringMap fc{{"num_hidden", "8"}};
    NDArray dense = test::Run("FullyConnected", {x, w, b}, fc)[0];
    const std::vector<double> d = test::Values(dense);
    for (const char* act : {"gelu", "relu"}) {
      NDArray ref = std::string(act) == "gelu"
                        ? test::Run("LeakyReLU", {dense}, {{"act_type", "gelu"}})[0]
                        : test::Run("relu", {dense})[0];
      StringMap fp = fc;
      fp["act_type"] = act;
      NDArray got = test::Run("_fused_FullyConnected", {x, w, b}, fp)[0];
      std::vector<double> a = test::Values(got), e = test::Values(ref);
      ASSERT_EQ(a.size(), e.size());
      int negative = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_NEAR(a[i], e[i], 1e-5) << act << " " << i;
        negative += d[i] < 0;
      }
      EXPECT_GT(negative, 0);  // the activation's two sides were both reached
    }
  }
}

}  // namespace
}  // namespace weft
