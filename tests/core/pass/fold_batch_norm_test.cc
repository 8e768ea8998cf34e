// pass::FoldBatchNorm and the _bn_fold op: BatchNorm after Convolution or
// FullyConnected becomes a _bn_fold of the layer's parameters feeding the
// layer; unfoldable cases are left alone; values match the unfolded graph.
#include <gtest/gtest.h>

#include <cmath>

#include "core/pass/inference_test_util.h"
#include "weft/pass.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::Apply;

Symbol ConvBn(const Symbol& x, bool bias, const StringMap& bn_params) {
  Symbol c = Apply("Convolution", {x},
                   {{"kernel", "(3,3)"},
                    {"pad", "(1,1)"},
                    {"num_filter", "4"},
                    {"no_bias", bias ? "False" : "True"}},
                   "conv");
  return Apply("BatchNorm", {c}, bn_params, "bn");
}

TEST(FoldBatchNorm, ConvolutionStructureAndValues) {
  const OpRegistry& reg = Runtime::Global().ops();
  for (bool bias : {true, false}) {
    for (const char* fix : {"True", "False"}) {
      Symbol y = Apply(
          "relu",
          {ConvBn(Symbol::CreateVariable("data"), bias, {{"fix_gamma", fix}, {"eps", "1e-5"}})}, {},
          "relu");
      pass::RewriteResult r = pass::FoldBatchNorm(reg, Graph{y.outputs});
      EXPECT_EQ(r.changes, 1u);
      EXPECT_EQ(test::OpNames(r.graph),
                (std::vector<std::string>{"_bn_fold", "Convolution", "relu"}));
      IndexedGraph g(r.graph);
      const Node& conv = g.node(g[g.outputs()[0].node_id].inputs[0].node_id);
      ASSERT_EQ(conv.op()->name, "Convolution");
      EXPECT_FALSE(conv.attrs.params.GetBool("no_bias"));
      ASSERT_EQ(conv.inputs.size(), 3u);
      EXPECT_EQ(conv.inputs[1].node->op()->name, "_bn_fold");
      EXPECT_EQ(conv.inputs[2].index, 1u);
      EXPECT_EQ(conv.inputs[1].node->inputs.size(), bias ? 6u : 5u);
      std::unique_ptr<Executor> ex;
      EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{2, 3, 5, 5}}}, 11, &ex), 1e-5)
          << bias << fix;
      EXPECT_NE(ex->DebugString().find("FoldBatchNorm (1 node)"), std::string::npos)
          << ex->DebugString();
    }
  }
}

TEST(FoldBatchNorm, FullyConnected) {
  Symbol fc =
      Apply("FullyConnected", {Symbol::CreateVariable("data")}, {{"num_hidden", "6"}}, "fc");
  Symbol y = Apply("BatchNorm", {fc}, {{"fix_gamma", "False"}}, "bn");
  pass::RewriteResult r = pass::FoldBatchNorm(Runtime::Global().ops(), Graph{y.outputs});
  EXPECT_EQ(r.changes, 1u);
  EXPECT_EQ(test::OpNames(r.graph), (std::vector<std::string>{"_bn_fold", "FullyConnected"}));
  EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{3, 2, 4}}}, 5), 1e-5);
}

TEST(FoldBatchNorm, LeavesUnfoldableAlone) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol x = Symbol::CreateVariable("data");
  // The convolution's output is read twice.
  Symbol c = Apply("Convolution", {x}, {{"kernel", "(1,1)"}, {"num_filter", "2"}}, "c");
  Symbol twice = Apply("elemwise_add", {Apply("BatchNorm", {c}, {}, "bn"), c}, {}, "add");
  EXPECT_EQ(pass::FoldBatchNorm(reg, Graph{twice.outputs}).changes, 0u);
  // BatchNorm over another axis, or with mean/var outputs, or after another op.
  Symbol axis = Apply("BatchNorm", {c}, {{"axis", "2"}}, "bn_axis");
  EXPECT_EQ(pass::FoldBatchNorm(reg, Graph{axis.outputs}).changes, 0u);
  Symbol mv = Apply("BatchNorm", {c}, {{"output_mean_var", "True"}}, "bn_mv");
  EXPECT_EQ(pass::FoldBatchNorm(reg, Graph{mv.outputs}).changes, 0u);
  Symbol relu = Apply("BatchNorm", {Apply("relu", {c}, {}, "r")}, {}, "bn_r");
  EXPECT_EQ(pass::FoldBatchNorm(reg, Graph{relu.outputs}).changes, 0u);
}

TEST(BnFoldOp, ClosedForm) {
  // weight (2, 3), bias, gamma, beta, mean, var; fix_gamma False, eps 0.5.
  NDArray w = test::Array(Shape{2, 3}, {1, 2, 3, -1, -2, -3}, DType::kFloat64);
  NDArray b = test::Array(Shape{2}, {0.5, -0.5}, DType::kFloat64);
  NDArray gamma = test::Array(Shape{2}, {2, 3}, DType::kFloat64);
  NDArray beta = test::Array(Shape{2}, {1, -1}, DType::kFloat64);
  NDArray mean = test::Array(Shape{2}, {0.25, 1}, DType::kFloat64);
  NDArray var = test::Array(Shape{2}, {3.5, 1.5}, DType::kFloat64);
  auto out = test::Run("_bn_fold", {w, b, gamma, beta, mean, var},
                       {{"eps", "0.5"}, {"fix_gamma", "False"}});
  const double s0 = 2 / std::sqrt(4.0), s1 = 3 / std::sqrt(2.0);
  std::vector<double> wv = test::Values(out[0]), bv = test::Values(out[1]);
  const std::vector<double> want_w{1 * s0, 2 * s0, 3 * s0, -1 * s1, -2 * s1, -3 * s1};
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(wv[i], want_w[i], 1e-12);
  EXPECT_NEAR(bv[0], (0.5 - 0.25) * s0 + 1, 1e-12);
  EXPECT_NEAR(bv[1], (-0.5 - 1) * s1 - 1, 1e-12);
  // No bias, fix_gamma: gamma ignored.
  auto nb =
      test::Run("_bn_fold", {w, gamma, beta, mean, var}, {{"eps", "0.5"}, {"no_bias", "True"}});
  EXPECT_NEAR(test::Values(nb[0])[0], 1 / 2.0, 1e-12);
  EXPECT_NEAR(test::Values(nb[1])[1], (0 - 1) / std::sqrt(2.0) - 1, 1e-12);
}

}  // namespace
}  // namespace weft
