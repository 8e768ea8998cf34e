#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(NNLossExtraRef, MatchesPyTorch) {
  for (const char* stem :
       {"softmax_cross_entropy_basic", "smooth_l1_default", "smooth_l1_sigma2",
        "smooth_l1_sigma_half", "SVMOutput_l2", "SVMOutput_l1", "SVMOutput_l2_margin"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

TEST(NNLossExtra, SoftmaxCrossEntropyMXNetExample) {
  // The example of MXNet's documentation: 0.4281871.
  NDArray x = test::Array({2, 3}, {1, 2, 3, 11, 7, 5}, DType::kFloat64);
  NDArray l = test::Array({2}, {2, 0}, DType::kFloat64);
  auto y = test::Run("softmax_cross_entropy", {x, l});
  ASSERT_EQ(y[0].shape(), Shape({1}));
  EXPECT_NEAR(test::Values(y[0])[0],
              -std::log(std::exp(3.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0))) -
                  std::log(std::exp(11.0) / (std::exp(11.0) + std::exp(7.0) + std::exp(5.0))),
              1e-12);
  EXPECT_NEAR(test::Values(y[0])[0], 0.4281871, 1e-6);
  // A probability below 1e-8 is clamped: the loss is at most -log(1e-8) per row.
  auto big = test::Run("softmax_cross_entropy", {test::Array({1, 2}, {0, 100}, DType::kFloat64),
                                                 test::Array({1}, {0}, DType::kFloat64)});
  EXPECT_NEAR(test::Values(big[0])[0], -std::log(1e-8), 1e-9);
}

TEST(NNLossExtra, GradientsMatchNumeric) {
  std::string where;
  double err = test::GradientError("softmax_cross_entropy",
                                   {test::RandomArray({3, 4}, DType::kFloat64, -2, 2, 1),
                                    test::Array({3}, {0, 3, 1}, DType::kFloat64)},
                                   {}, {0}, 1e-6, &where);
  EXPECT_LT(err, 1e-6) << where;
  // Away from the kinks at |x| = 1 / sigma^2 = 0.25.
  NDArray x = test::Array({6}, {-1.5, -0.2, -0.05, 0.1, 0.24, 2}, DType::kFloat64);
  err = test::GradientError("smooth_l1", {x}, {{"scalar", "2"}}, {}, 1e-7, &where);
  EXPECT_LT(err, 1e-6) << where;
}

TEST(NNLossExtra, SmoothL1ClosedForm) {
  NDArray x = test::Array({4}, {1, 2, 3, 4}, DType::kFloat32);
  EXPECT_EQ(test::Values(test::Run("smooth_l1", {x})[0]),
            (std::vector<double>{0.5, 1.5, 2.5, 3.5}));
  EXPECT_EQ(test::Values(test::Run("_npx_smooth_l1", {test::Array({3}, {-0.5, 0.5, 3})},
                                   {{"scalar", "1"}})[0]),
            (std::vector<double>{0.125, 0.125, 2.5}));
}

TEST(NNLossExtra, ShapesAndErrors) {
  std::vector<Shape> in = {Shape({5, 3}), Shape()}, out;
  EXPECT_TRUE(test::InferShapes("softmax_cross_entropy", {}, &in, &out));
  EXPECT_EQ(in[1], Shape({5}));
  EXPECT_EQ(out[0], Shape({1}));
  in = {Shape({4, 3, 2}), Shape()};
  out.clear();
  EXPECT_TRUE(test::InferShapes("SVMOutput", {}, &in, &out));
  EXPECT_EQ(in[1], Shape({4, 3}));
  EXPECT_EQ(out[0], Shape({4, 3, 2}));
  NDArray x = test::Array({2, 3}, {1, 2, 3, 4, 5, 6});
  test::ExpectError(
      [&] {
        test::Run("softmax_cross_entropy", {x, test::Array({3}, {0, 1, 2})});
      },
      StatusCode::kShape, {"softmax_cross_entropy", "'label'"});
  test::ExpectError(
      [&] {
        test::Run("softmax_cross_entropy", {x, test::Array({2}, {0, 3})});
      },
      StatusCode::kInvalidArgument, {"softmax_cross_entropy", "label 3"});
  test::ExpectError(
      [&] {
        test::Run("softmax_cross_entropy",
                  {test::Array({6}, {1, 2, 3, 4, 5, 6}), test::Array({6}, {0, 0, 0, 0, 0, 0})});
      },
      StatusCode::kShape, {"softmax_cross_entropy", "2-D"});
  test::ExpectError(
      [&] {
        test::Run("SVMOutput", {x, test::Array({3}, {0, 1, 2})});
      },
      StatusCode::kShape, {"SVMOutput", "'label'"});
}

}  // namespace
}  // namespace weft
