// pass::FuseConvActivation and _fused_Convolution: Convolution -> relu,
// Convolution -> clip (ReLU6), Convolution -> elemwise_add (either side) and
// Convolution -> add -> relu become one _fused_Convolution; shared intermediates are left alone;
// the fused op (oneDNN with post-ops where built, else the reference) computes what the unfused
// graph computes, in float32 and float64.
#include <gtest/gtest.h>

#include "core/pass/inference_test_util.h"
#include "weft/pass.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::Apply;

Symbol Conv(const Symbol& x, const std::string& name, bool bias = true) {
  return Apply("Convolution", {x},
               {{"kernel", "(3,3)"},
                {"pad", "(1,1)"},
                {"num_filter", "3"},
                {"no_bias", bias ? "False" : "True"}},
               name);
}

const Node& OutputNode(const Graph& g) { return *g.outputs[0].node; }

TEST(FuseConvActivation, ConvRelu) {
  const OpRegistry& reg = Runtime::Global().ops();
  for (bool bias : {true, false}) {
    Symbol y = Apply("Activation", {Conv(Symbol::CreateVariable("data"), "c", bias)},
                     {{"act_type", "relu"}}, "a");
    pass::RewriteResult r = pass::FuseConvActivation(reg, Graph{y.outputs});
    EXPECT_EQ(r.changes, 1u);
    EXPECT_EQ(test::OpNames(r.graph), (std::vector<std::string>{"_fused_Convolution"}));
    EXPECT_EQ(OutputNode(r.graph).attrs.params.GetString("act_type"), "relu");
    EXPECT_FALSE(OutputNode(r.graph).attrs.params.GetBool("with_sum"));
    EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{2, 3, 6, 5}}}, 3), 1e-5);
  }
}

// MobileNet's ReLU6, clip(0, 6), after a plain and a depthwise convolution
// (num_group = channels), and a clip with other bounds after a residual sum.
TEST(FuseConvActivation, ConvClip) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol x = Symbol::CreateVariable("data");
  const StringMap relu6{{"a_min", "0"}, {"a_max", "6"}};
  Symbol dw =
      Apply("Convolution", {x},
            {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "4"}, {"num_group", "4"}}, "dw");
  for (const Symbol& conv : {Conv(x, "c"), dw}) {
    Symbol y = Apply("clip", {conv}, relu6, "relu6");
    pass::RewriteResult r = pass::FuseConvActivation(reg, Graph{y.outputs});
    EXPECT_EQ(r.changes, 1u);
    EXPECT_EQ(test::OpNames(r.graph), (std::vector<std::string>{"_fused_Convolution"}));
    const Node& f = OutputNode(r.graph);
    EXPECT_EQ(f.attrs.params.GetString("act_type"), "clip");
    EXPECT_EQ(f.attrs.params.GetFloat("a_min"), 0.0);
    EXPECT_EQ(f.attrs.params.GetFloat("a_max"), 6.0);
    EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{2, 4, 6, 5}}}, 3), 1e-5);
  }
  Symbol add = Apply("elemwise_add", {Conv(x, "c"), Apply("relu", {x}, {}, "pre")}, {}, "add");
  Symbol y = Apply("clip", {add}, {{"a_min", "-0.25"}, {"a_max", "0.5"}}, "bounded");
  pass::RewriteResult r = pass::FuseConvActivation(reg, Graph{y.outputs});
  EXPECT_EQ(r.changes, 2u);
  const Node& f = OutputNode(r.graph);
  EXPECT_TRUE(f.attrs.params.GetBool("with_sum"));
  EXPECT_EQ(f.attrs.params.GetString("act_type"), "clip");
  EXPECT_EQ(f.attrs.params.GetFloat("a_min"), -0.25);
  EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{2, 3, 5, 5}}}, 4), 1e-5);
}

TEST(FuseConvActivation, ResidualSumThenRelu) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol x = Symbol::CreateVariable("data");
  Symbol shortcut = Apply("relu", {x}, {}, "pre");
  for (int side = 0; side < 2; ++side) {
    Symbol c = Conv(x, "c");
    Symbol add = side == 0 ? Apply("elemwise_add", {c, shortcut}, {}, "add")
                           : Apply("elemwise_add", {shortcut, c}, {}, "add");
    Symbol y = Apply("relu", {add}, {}, "r");
    pass::RewriteResult r = pass::FuseConvActivation(reg, Graph{y.outputs});
    EXPECT_EQ(r.changes, 2u);  // the add, then the relu
    EXPECT_EQ(test::OpNames(r.graph), (std::vector<std::string>{"relu", "_fused_Convolution"}));
    const Node& f = OutputNode(r.graph);
    EXPECT_TRUE(f.attrs.params.GetBool("with_sum"));
    EXPECT_EQ(f.attrs.params.GetString("act_type"), "relu");
    ASSERT_EQ(f.inputs.size(), 4u);
    EXPECT_EQ(f.inputs[3].node, shortcut.outputs[0].node);
    EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{2, 3, 5, 5}}}, 4), 1e-5) << side;
    // Without the relu: a sum only.
    EXPECT_LT(test::CompareOptimized(add, {{"data", Shape{1, 3, 4, 4}}}, 5), 1e-5) << side;
  }
}

TEST(FuseConvActivation, LeavesSharedOutputsAlone) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol c = Conv(Symbol::CreateVariable("data"), "c");
  Symbol two = Symbol::Group({Apply("relu", {c}, {}, "r"), Apply("sigmoid", {c}, {}, "s")});
  EXPECT_EQ(pass::FuseConvActivation(reg, Graph{two.outputs}).changes, 0u);
  Symbol self = Apply("elemwise_add", {c, c}, {}, "twice");
  EXPECT_EQ(pass::FuseConvActivation(reg, Graph{self.outputs}).changes, 0u);
  Symbol tanh = Apply("Activation", {c}, {{"act_type", "tanh"}}, "t");
  EXPECT_EQ(pass::FuseConvActivation(reg, Graph{tanh.outputs}).changes, 0u);
}

// Bounds that every value crosses: the fused clip (oneDNN's eltwise_clip
// post-op where built) against clip(conv + sum).
TEST(FusedConvolutionOp, MatchesConvolutionAddClip) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::RandomArray(Shape{2, 4, 5, 5}, dt, -1, 1, 1);
    NDArray w = test::RandomArray(Shape{4, 1, 3, 3}, dt, -1, 1, 2);
    NDArray s = test::RandomArray(Shape{2, 4, 5, 5}, dt, -1, 1, 4);
    const StringMap conv{{"kernel", "(3,3)"},
                         {"pad", "(1,1)"},
                         {"num_filter", "4"},
                         {"num_group", "4"},
                         {"no_bias", "True"}};
    NDArray c = test::Run("Convolution", {x, w}, conv)[0];
    NDArray ref = test::Run("clip", {test::Run("elemwise_add", {c, s})[0]},
                            {{"a_min", "-0.3"}, {"a_max", "0.4"}})[0];
    StringMap fp = conv;
    fp["with_sum"] = "True";
    fp["act_type"] = "clip";
    fp["a_min"] = "-0.3";
    fp["a_max"] = "0.4";
    NDArray got = test::Run("_fused_Convolution", {x, w, s}, fp)[0];
    std::vector<double> a = test::Values(got), e = test::Values(ref);
    ASSERT_EQ(a.size(), e.size());
    int below = 0, above = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(a[i], e[i], 1e-5) << i;
      below += e[i] == -0.3 || static_cast<float>(e[i]) == -0.3f;
      above += e[i] == 0.4 || static_cast<float>(e[i]) == 0.4f;
    }
    EXPECT_GT(below, 0);  // the bounds were reached
    EXPECT_GT(above, 0);
  }
}

TEST(FusedConvolutionOp, MatchesConvolutionAddRelu) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::RandomArray(Shape{2, 4, 5, 5}, dt, -1, 1, 1);
    NDArray w = test::RandomArray(Shape{3, 4, 3, 3}, dt, -1, 1, 2);
    NDArray b = test::RandomArray(Shape{3}, dt, -1, 1, 3);
    NDArray s = test::RandomArray(Shape{2, 3, 3, 3}, dt, -1, 1, 4);
    const StringMap conv{{"kernel", "(3,3)"}, {"num_filter", "3"}};
    NDArray c = test::Run("Convolution", {x, w, b}, conv)[0];
    NDArray ref = test::Run("relu", {test::Run("elemwise_add", {c, s})[0]})[0];
    StringMap fp = conv;
    fp["with_sum"] = "True";
    fp["act_type"] = "relu";
    NDArray got = test::Run("_fused_Convolution", {x, w, b, s}, fp)[0];
    std::vector<double> a = test::Values(got), e = test::Values(ref);
    ASSERT_EQ(a.size(), e.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], e[i], 1e-5) << i;
  }
}

}  // namespace
}  // namespace weft
