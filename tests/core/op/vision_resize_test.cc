#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(VisionResizeRef, MatchesPyTorch) {
  for (const char* c : {"default", "square", "rect", "upsample"})
    EXPECT_TRUE(test::CheckOpRef(std::string("_contrib_AdaptiveAvgPooling2D_") + c)) << c;
  for (const char* c : {"size_up_align", "size_down_noalign", "scale", "odd_scale", "like",
                        "to_even_up", "to_odd_down"})
    EXPECT_TRUE(test::CheckOpRef(std::string("_contrib_BilinearResize2D_") + c)) << c;
}

TEST(VisionResize, GradientsMatchNumeric) {
  NDArray x = test::RandomArray({2, 2, 5, 6}, DType::kFloat64, -1, 1, 5);
  std::string where;
  double err = test::GradientError("_contrib_AdaptiveAvgPooling2D", {x},
                                   {{"output_size", "(3, 4)"}}, {}, 1e-6, &where);
  EXPECT_LT(err, 1e-6) << where;
  for (const char* align : {"True", "False"}) {
    err = test::GradientError("_contrib_BilinearResize2D", {x},
                              {{"height", "8"}, {"width", "4"}, {"align_corners", align}}, {}, 1e-6,
                              &where);
    EXPECT_LT(err, 1e-6) << "align_corners " << align << ": " << where;
  }
}

TEST(VisionResize, ClosedForm) {
  // 1x1x2x2 [[0, 1], [2, 3]] to 3x3 with aligned corners: the centre is 1.5.
  NDArray x = test::Array({1, 1, 2, 2}, {0, 1, 2, 3});
  auto y = test::Run("_contrib_BilinearResize2D", {x}, {{"height", "3"}, {"width", "3"}});
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3}));
  y = test::Run("_contrib_AdaptiveAvgPooling2D", {x});
  EXPECT_EQ(test::Values(y[0]), std::vector<double>{1.5});
}

TEST(VisionResize, ShapesAndRejects) {
  std::vector<Shape> in = {Shape({1, 3, 7, 8})}, out = {Shape()};
  EXPECT_TRUE(test::InferShapes("_contrib_BilinearResize2D", {{"mode", "to_odd_up"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({1, 3, 7, 9}));
  in = {Shape({1, 3, 7, 8}), Shape({2, 1, 4, 5})};
  out = {Shape()};
  EXPECT_TRUE(test::InferShapes("_contrib_BilinearResize2D", {{"mode", "like"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({1, 3, 4, 5}));
  in = {Shape({2, 4, 0, 0})};
  out = {Shape()};
  EXPECT_FALSE(
      test::InferShapes("_contrib_AdaptiveAvgPooling2D", {{"output_size", "5"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 4, 5, 5}));

  NDArray x = test::RandomArray({1, 1, 3, 3}, DType::kFloat32, 0, 1, 1);
  test::ExpectError(
      [&] {
        test::Run("_contrib_BilinearResize2D", {x}, {{"mode", "odd_scale"}});
      },
      StatusCode::kInvalidArgument, {"BilinearResize2D", "'scale_height'"});
  test::ExpectError(
      [&] {
        test::Run("_contrib_BilinearResize2D", {x}, {{"height", "0"}});
      },
      StatusCode::kInvalidArgument, {"height"});
  test::ExpectError(
      [&] {
        test::Run("_contrib_AdaptiveAvgPooling2D", {x}, {{"output_size", "(1, 2, 3)"}});
      },
      StatusCode::kInvalidArgument, {"'output_size'"});
  test::ExpectError(
      [&] {
        test::Run("_contrib_AdaptiveAvgPooling2D",
                  {test::RandomArray({3, 3}, DType::kFloat32, 0, 1, 1)});
      },
      StatusCode::kShape, {"(N, C, H, W)"});
}

}  // namespace
}  // namespace weft
