#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(NNCTCRef, MatchesPyTorch) {
  for (const char* stem : {"CTCLoss_blank_first", "CTCLoss_blank_last", "ctc_loss_lengths"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

TEST(NNCTC, GradientMatchesNumeric) {
  NDArray x = test::RandomArray({5, 2, 4}, DType::kFloat64, -2, 2, 7);
  std::string where;
  EXPECT_LT(test::GradientError("CTCLoss", {x, test::Array({2, 2}, {1, 3, 2, 0}, DType::kFloat64)},
                                {}, {0}, 1e-6, &where),
            1e-6)
      << where;
  EXPECT_LT(test::GradientError("_contrib_CTCLoss",
                                {x, test::Array({2, 3}, {0, 0, 2, 1, -1, -1}, DType::kFloat64),
                                 test::Array({2}, {4, 5}, DType::kInt32)},
                                {{"blank_label", "last"}, {"use_data_lengths", "True"}}, {0}, 1e-6,
                                &where),
            1e-6)
      << where;
}

TEST(NNCTC, ClosedFormsAndInfeasibleLabels) {
  // One frame, label "1": p = softmax(x)[1].
  NDArray x = test::Array({1, 1, 3}, {0.5, 1.5, -1}, DType::kFloat64);
  const double z = std::exp(0.5) + std::exp(1.5) + std::exp(-1.0);
  auto loss =
      test::Values(test::Run("ctc_loss", {x, test::Array({1, 1}, {1}, DType::kFloat64)})[0]);
  EXPECT_NEAR(loss[0], -std::log(std::exp(1.5) / z), 1e-12);
  // An empty label (all padding): only blanks, p = prod_t y_t(blank).
  NDArray x2 = test::Array({2, 1, 2}, {0, 1, 2, 0}, DType::kFloat64);
  loss = test::Values(test::Run("CTCLoss", {x2, test::Array({1, 2}, {0, 0}, DType::kFloat64)})[0]);
  EXPECT_NEAR(loss[0],
              -std::log(1 / (1 + std::exp(1.0))) - std::log(std::exp(2.0) / (1 + std::exp(2.0))),
              1e-12);
  // "1 1" needs 3 frames (a blank between the repeats): with 2, loss 0 and
  // gradient 0 as MXNet's warp-ctc.
  NDArray x3 = test::RandomArray({2, 1, 3}, DType::kFloat64, -1, 1, 3);
  NDArray l3 = test::Array({1, 2}, {1, 1}, DType::kFloat64);
  EXPECT_EQ(test::Values(test::Run("CTCLoss", {x3, l3})[0]), std::vector<double>{0});
  auto g = test::Run("_backward_CTCLoss", {test::Array({1}, {1}, DType::kFloat64), x3, l3});
  EXPECT_EQ(test::Values(g[0]), std::vector<double>(6, 0.0));
}

TEST(NNCTC, ShapesAndErrors) {
  std::vector<Shape> in = {Shape({7, 3, 5}), Shape(), Shape(), Shape()}, out;
  EXPECT_FALSE(test::InferShapes(
      "CTCLoss", {{"use_data_lengths", "True"}, {"use_label_lengths", "True"}}, &in, &out));
  EXPECT_EQ(in[2], Shape({3}));
  EXPECT_EQ(in[3], Shape({3}));
  EXPECT_EQ(in[1], Shape());  // the label length cannot be inferred
  EXPECT_EQ(out[0], Shape({3}));
  auto arr = [](const Shape& s) { return test::RandomArray(s, DType::kFloat32, 0, 1, 1); };
  test::ExpectError(
      [&] {
        test::Run("CTCLoss", {arr({4, 2}), arr({2, 2})});
      },
      StatusCode::kShape, {"CTCLoss", "'data'", "3-D"});
  test::ExpectError(
      [&] {
        test::Run("CTCLoss", {arr({4, 2, 3}), arr({3, 2})});
      },
      StatusCode::kShape, {"CTCLoss", "'label'"});
  test::ExpectError(
      [&] {
        test::Run("CTCLoss", {arr({2, 1, 3}), arr({1, 3})});
      },
      StatusCode::kShape, {"CTCLoss", "exceeds"});
  test::ExpectError(
      [&] {
        test::Run("CTCLoss", {arr({4, 1, 3}), test::Array({1, 2}, {1, 3})});
      },
      StatusCode::kInvalidArgument, {"CTCLoss", "label[0, 1] = 3"});
  test::ExpectError(
      [&] {
        test::Run("CTCLoss", {arr({4, 1, 3}), test::Array({1, 2}, {1, 2}), test::Array({1}, {5})},
                  {{"use_data_lengths", "True"}});
      },
      StatusCode::kInvalidArgument, {"CTCLoss", "data_lengths[0] = 5"});
}

}  // namespace
}  // namespace weft
