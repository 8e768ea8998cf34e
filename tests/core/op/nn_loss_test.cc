// The loss-output ops define their gradient rather than differentiate their
// output (MXNet semantics), so their gradients are checked against closed
// forms and PyTorch's cross-entropy gradient instead of finite differences.
#include <gtest/gtest.h>

#include <cmath>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

// Evaluates op's symbolic gradient for the given head gradient (imperatively).
std::vector<std::vector<double>> Grads(const std::string& op, const std::vector<NDArray>& in,
                                       const StringMap& params, const NDArray& ograd) {
  const OpRegistry& reg = Runtime::Global().ops();
  std::map<const Node*, NDArray> bind;
  std::vector<NodeEntry> entries;
  for (size_t i = 0; i < in.size(); ++i) {
    NodePtr v = MakeVariable("x" + std::to_string(i));
    bind[v.get()] = in[i];
    entries.push_back({v, 0, 0});
  }
  NodePtr node = MakeOpNode(reg, op, "n", entries, params);
  NodePtr og = MakeVariable("og");
  bind[og.get()] = ograd;
  std::vector<std::vector<double>> out;
  for (const auto& g : node->op()->gradient(reg, node, {{og, 0, 0}}))
    out.push_back(test::Values(test::Eval(g, bind)));
  return out;
}

TEST(NNLoss, SoftmaxOutputGradientIsSoftmaxMinusOnehot) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::Array({2, 3}, {1, 2, 3, 0, 0, 0}, dt);
    NDArray label = test::Array({2}, {2, 0}, dt);
    auto y =
        test::Run("SoftmaxOutput", {x, label}, {{"grad_scale", "2"}, {"normalization", "batch"}});
    std::vector<double> p = test::Values(y[0]);
    EXPECT_NEAR(p[3], 1.0 / 3, 1e-6);
    auto g = Grads("SoftmaxOutput", {x, label}, {{"grad_scale", "2"}, {"normalization", "batch"}},
                   test::Array({2, 3}, {5, 5, 5, 5, 5, 5}, dt));  // head gradient ignored
    ASSERT_EQ(g.size(), 2u);
    const std::vector<double> onehot = {0, 0, 1, 1, 0, 0};
    for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(g[0][i], (p[i] - onehot[i]) * 2 / 2, 1e-6) << i;
    EXPECT_EQ(g[1], (std::vector<double>{0, 0}));
  }
}

TEST(NNLoss, SoftmaxOutputIgnoreLabelAndValidNormalisation) {
  NDArray x = test::Array({3, 2}, {0, 0, 1, 2, 3, 1}, DType::kFloat64);
  NDArray label = test::Array({3}, {1, 5, 0}, DType::kFloat64);
  StringMap params = {{"use_ignore", "True"}, {"ignore_label", "5"}, {"normalization", "valid"}};
  auto p = test::Values(test::Run("SoftmaxOutput", {x, label}, params)[0]);
  auto g = Grads("SoftmaxOutput", {x, label}, params,
                 test::Array({3, 2}, {1, 1, 1, 1, 1, 1}, DType::kFloat64));
  EXPECT_NEAR(g[0][0], p[0] / 2, 1e-15);
  EXPECT_NEAR(g[0][1], (p[1] - 1) / 2, 1e-15);
  EXPECT_EQ(g[0][2], 0);
  EXPECT_EQ(g[0][3], 0);
  EXPECT_NEAR(g[0][4], (p[4] - 1) / 2, 1e-15);
}

TEST(NNLoss, SoftmaxOutputOutGradAndSmoothing) {
  NDArray x = test::Array({1, 3}, {0, 1, 2}, DType::kFloat64);
  NDArray label = test::Array({1}, {1}, DType::kFloat64);
  auto p = test::Values(test::Run("SoftmaxOutput", {x, label})[0]);
  auto g = Grads("SoftmaxOutput", {x, label}, {{"out_grad", "True"}, {"smooth_alpha", "0.2"}},
                 test::Array({1, 3}, {1, 2, 3}, DType::kFloat64));
  EXPECT_NEAR(g[0][0], (p[0] - 0.1) * 1, 1e-15);
  EXPECT_NEAR(g[0][1], (p[1] - 0.8) * 2, 1e-15);
  EXPECT_NEAR(g[0][2], (p[2] - 0.1) * 3, 1e-15);
}

TEST(NNLoss, SoftmaxAliasAndLabelShapes) {
  std::vector<Shape> in = {Shape({4, 3, 5, 6}), Shape()}, out;
  EXPECT_TRUE(test::InferShapes("Softmax", {{"multi_output", "True"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({4, 30}));  // MXNet 1.x infers (N, prod(spatial))
  in = {Shape({4, 3, 5}), Shape()};
  out.clear();
  EXPECT_TRUE(test::InferShapes("SoftmaxOutput", {{"preserve_shape", "True"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({4, 3}));
  in = {Shape(), Shape()};
  out = {Shape({7, 10})};
  EXPECT_TRUE(test::InferShapes("SoftmaxOutput", {}, &in, &out));
  EXPECT_EQ(in[0], Shape({7, 10}));
  EXPECT_EQ(in[1], Shape({7}));
  NDArray x = test::Array({2, 3}, {1, 2, 3, 4, 5, 6});
  test::ExpectError(
      [&] {
        test::Run("SoftmaxOutput", {x, test::Array({3}, {0, 1, 2})});
      },
      StatusCode::kShape, {"SoftmaxOutput", "label"});
  test::ExpectError(
      [&] {
        Grads("SoftmaxOutput", {x, test::Array({2}, {0, 3})}, {}, x);
      },
      StatusCode::kInvalidArgument, {"SoftmaxOutput", "label"});
}

TEST(NNLoss, SoftmaxOutputLabelShapesOfMXNet) {
  auto infer = [](const StringMap& p, Shape d, Shape l) {
    std::vector<Shape> in = {d, l}, out;
    test::InferShapes("SoftmaxOutput", p, &in, &out);
    return in[1];
  };
  // Default mode: data without its last axis, also for rank > 2.
  EXPECT_EQ(infer({}, Shape({2, 3, 4}), Shape()), Shape({2, 3}));
  // A label of data's shape is a probability label, in every mode.
  EXPECT_EQ(infer({}, Shape({2, 3, 4}), Shape({2, 0, 4})), Shape({2, 3, 4}));
  EXPECT_EQ(infer({{"multi_output", "True"}}, Shape({2, 3, 4}), Shape({2, 3, 4})),
            Shape({2, 3, 4}));
  // multi_output accepts (N, prod(S)), (N, S...) and (N, 1, S...).
  const StringMap multi = {{"multi_output", "True"}};
  EXPECT_EQ(infer(multi, Shape({2, 3, 4, 5}), Shape({2, 20})), Shape({2, 20}));
  EXPECT_EQ(infer(multi, Shape({2, 3, 4, 5}), Shape({2, 4, 5})), Shape({2, 4, 5}));
  EXPECT_EQ(infer(multi, Shape({2, 3, 4, 5}), Shape({2, 1, 4, 5})), Shape({2, 1, 4, 5}));
  test::ExpectError(
      [&] {
        infer(multi, Shape({2, 3, 4, 5}), Shape({2, 3}));
      },
      StatusCode::kShape, {"SoftmaxOutput", "'label'", "(2,20)", "(2,3)"});
  test::ExpectError(
      [&] {
        infer({}, Shape({2, 3, 4}), Shape({2, 4}));
      },
      StatusCode::kShape, {"SoftmaxOutput", "'label'", "(2,3)", "(2,4)"});
}

TEST(NNLoss, SoftmaxOutputProbabilityLabelClosedForm) {
  // dx = (softmax - label) * grad_scale: no normaliser, ignore_label unused,
  // times the head gradient with out_grad.
  NDArray x = test::Array({2, 2}, {0, 1, 2, 2}, DType::kFloat64);
  NDArray l = test::Array({2, 2}, {0.25, 0.75, 1, 0}, DType::kFloat64);
  StringMap params = {{"grad_scale", "3"},
                      {"normalization", "valid"},
                      {"use_ignore", "True"},
                      {"ignore_label", "0"}};
  auto p = test::Values(test::Run("SoftmaxOutput", {x, l}, params)[0]);
  auto g =
      Grads("SoftmaxOutput", {x, l}, params, test::Array({2, 2}, {7, 7, 7, 7}, DType::kFloat64));
  const std::vector<double> lv = test::Values(l);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(g[0][i], (p[i] - lv[i]) * 3, 1e-15) << i;
  params["out_grad"] = "True";
  g = Grads("SoftmaxOutput", {x, l}, params, test::Array({2, 2}, {1, 2, 3, 4}, DType::kFloat64));
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(g[0][i], (p[i] - lv[i]) * 3 * (i + 1), 1e-14) << i;
}

TEST(NNLoss, SoftmaxOutputFlattenedDefaultUsesLeadingLabels) {
  // Data (2, 2, 2), label (2, 2) = [[3, 0], [1, 1]]: sample 0 uses class 3
  // and sample 1 class 0 of its 4 flattened values (MXNet 1.x); every
  // sample's softmax runs over its 4 values.
  NDArray x = test::Array({2, 2, 2}, {0, 1, 2, 3, 1, 1, 1, 1}, DType::kFloat64);
  NDArray l = test::Array({2, 2}, {3, 0, 1, 1}, DType::kFloat64);
  auto p = test::Values(test::Run("SoftmaxOutput", {x, l})[0]);
  EXPECT_NEAR(p[4], 0.25, 1e-15);
  auto g = Grads("SoftmaxOutput", {x, l}, {},
                 test::Array({2, 2, 2}, std::vector<double>(8, 1), DType::kFloat64));
  const std::vector<double> onehot = {0, 0, 0, 1, 1, 0, 0, 0};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(g[0][i], p[i] - onehot[i], 1e-15) << i;
}

TEST(NNLoss, SoftmaxOutputLabelModesMatchTorch) {
  for (const char* stem :
       {"SoftmaxOutput_flat3d", "SoftmaxOutput_flat3d_batch", "SoftmaxOutput_preserve_batch",
        "SoftmaxOutput_valid_no_use_ignore", "SoftmaxOutput_prob", "SoftmaxOutput_prob_flat3d",
        "SoftmaxOutput_multi_null", "SoftmaxOutput_multi_batch_ignore"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

TEST(NNLoss, RegressionOutputs) {
  NDArray x = test::Array({2, 2}, {0.5, -1, 2, 0}, DType::kFloat64);
  NDArray l = test::Array({2, 2}, {1, 1, 1, 1}, DType::kFloat64);
  NDArray og = test::Array({2, 2}, {9, 9, 9, 9}, DType::kFloat64);
  auto lin = Grads("LinearRegressionOutput", {x, l}, {{"grad_scale", "4"}}, og);
  EXPECT_EQ(lin[0], (std::vector<double>{-1, -4, 2, -2}));  // 4/2 * (x - l)
  EXPECT_EQ(lin[1], (std::vector<double>{0, 0, 0, 0}));
  auto mae = Grads("MAERegressionOutput", {x, l}, {}, og);
  EXPECT_EQ(mae[0], (std::vector<double>{-0.5, -0.5, 0.5, -0.5}));
  auto y = test::Values(test::Run("LogisticRegressionOutput", {x, l})[0]);
  EXPECT_NEAR(y[0], 1 / (1 + std::exp(-0.5)), 1e-15);
  auto lg = Grads("LogisticRegressionOutput", {x, l}, {}, og);
  EXPECT_NEAR(lg[0][0], (y[0] - 1) / 2, 1e-15);
  // (N,) label for (N, 1) data.
  auto g1 = Grads(
      "LinearRegressionOutput",
      {test::Array({2, 1}, {3, 4}, DType::kFloat64), test::Array({2}, {1, 1}, DType::kFloat64)}, {},
      test::Array({2, 1}, {1, 1}, DType::kFloat64));
  EXPECT_EQ(g1[0], (std::vector<double>{2, 3}));
  test::ExpectError(
      [&] {
        test::Run("LinearRegressionOutput", {x, test::Array({3}, {1, 2, 3}, DType::kFloat64)});
      },
      StatusCode::kShape, {"LinearRegressionOutput", "label"});
}

TEST(NNLoss, MakeLossAndBlockGrad) {
  NDArray x = test::Array({2, 2}, {0.5, -1, 2, 0}, DType::kFloat64);
  NDArray og = test::Array({2, 2}, {9, 9, 9, 9}, DType::kFloat64);
  EXPECT_EQ(test::Values(test::Run("make_loss", {x})[0]), test::Values(x));
  EXPECT_EQ(Grads("MakeLoss", {x}, {{"grad_scale", "3"}}, og)[0],
            (std::vector<double>{3, 3, 3, 3}));
  EXPECT_EQ(Grads("MakeLoss", {x}, {{"normalization", "batch"}}, og)[0],
            (std::vector<double>{0.5, 0.5, 0.5, 0.5}));
  EXPECT_EQ(Grads("MakeLoss", {x}, {{"normalization", "valid"}, {"valid_thresh", "0.1"}}, og)[0],
            (std::vector<double>{0.5, 0.5, 0.5, 0.5}));
  EXPECT_EQ(test::Values(test::Run("stop_gradient", {x})[0]), test::Values(x));
  EXPECT_EQ(Grads("BlockGrad", {x}, {}, og)[0], (std::vector<double>{0, 0, 0, 0}));
}

TEST(NNLoss, MatchesTorchReferences) {
  for (const char* stem :
       {"SoftmaxOutput_basic", "SoftmaxOutput_scale_batch", "SoftmaxOutput_ignore_valid",
        "SoftmaxOutput_multi_output", "LinearRegressionOutput_basic",
        "LinearRegressionOutput_scale", "LogisticRegressionOutput_basic",
        "LogisticRegressionOutput_scale", "MAERegressionOutput_basic", "MAERegressionOutput_scale",
        "MakeLoss_basic", "MakeLoss_batch", "BlockGrad_basic"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

}  // namespace
}  // namespace weft
