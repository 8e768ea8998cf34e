#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(VisionROIRef, MatchesNumPy) {
  for (const char* s : {"ROIPooling_2x2", "ROIPooling_3x2", "_contrib_ROIAlign_adaptive",
                        "_contrib_ROIAlign_sample2_3x2", "_contrib_ROIAlign_aligned",
                        "_contrib_ROIAlign_position_sensitive"})
    EXPECT_TRUE(test::CheckOpRef(s)) << s;
}

NDArray Rois() {
  return test::Array({3, 5},
                     {0, 0.5, 1.0, 5.0, 4.5,  //
                      1, 2.2, 0.3, 6.1, 3.7,  //
                      0, 1.0, 2.0, 3.0, 4.0},
                     DType::kFloat64);
}

TEST(VisionROI, GradientsMatchNumeric) {
  NDArray x = test::RandomArray({2, 3, 5, 7}, DType::kFloat64, -1, 1, 7);
  std::string where;
  double err =
      test::GradientError("ROIPooling", {x, Rois()},
                          {{"pooled_size", "(2, 3)"}, {"spatial_scale", "1"}}, {0}, 1e-6, &where);
  EXPECT_LT(err, 1e-6) << where;
  for (const char* aligned : {"False", "True"}) {
    err = test::GradientError(
        "ROIAlign", {x, Rois()},
        {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.9"}, {"aligned", aligned}}, {0}, 1e-6,
        &where);
    EXPECT_LT(err, 1e-6) << "aligned " << aligned << ": " << where;
  }
}

TEST(VisionROI, ROIPoolingClosedForm) {
  // A 1x1x3x3 map 0..8; the ROI covering cells (0..1, 0..1) pooled to 1x1
  // is max(0, 1, 3, 4) = 4 at flat index 4.
  NDArray x = test::Array({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  NDArray r = test::Array({1, 5}, {0, 0, 0, 1, 1});
  auto y = test::Run("ROIPooling", {x, r}, {{"pooled_size", "(1, 1)"}, {"spatial_scale", "1"}});
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(test::Values(y[0]), std::vector<double>{4});
  EXPECT_EQ(y[1].dtype(), DType::kInt32);
  EXPECT_EQ(test::Values(y[1]), std::vector<double>{4});
}

TEST(VisionROI, ShapesAndRejects) {
  std::vector<Shape> in = {Shape({2, 8, 10, 10}), Shape({5, 5})}, out = {Shape()};
  EXPECT_TRUE(test::InferShapes(
      "_contrib_ROIAlign",
      {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.5"}, {"position_sensitive", "True"}}, &in,
      &out));
  EXPECT_EQ(out[0], Shape({5, 2, 2, 2}));
  in = {Shape({2, 8, 10, 10}), Shape()};
  out = {Shape(), Shape()};
  EXPECT_FALSE(test::InferShapes("ROIPooling",
                                 {{"pooled_size", "(3, 3)"}, {"spatial_scale", "0.5"}}, &in, &out));

  NDArray x = test::RandomArray({1, 3, 4, 4}, DType::kFloat32, 0, 1, 1);
  NDArray r = test::Array({1, 5}, {0, 0, 0, 2, 2});
  test::ExpectError(
      [&] {
        test::Run("ROIPooling", {x, r}, {{"pooled_size", "(2, 2)"}});
      },
      StatusCode::kInvalidArgument, {"spatial_scale"});
  test::ExpectError(
      [&] {
        test::Run("ROIPooling", {x, r}, {{"pooled_size", "(2, 0)"}, {"spatial_scale", "1"}});
      },
      StatusCode::kInvalidArgument, {"ROIPooling", "'pooled_size'"});
  test::ExpectError(
      [&] {
        test::Run("ROIAlign", {x, test::Array({1, 4}, {0, 0, 2, 2})},
                  {{"pooled_size", "(2, 2)"}, {"spatial_scale", "1"}});
      },
      StatusCode::kShape, {"'rois'", "(num_rois, 5)"});
  test::ExpectError(
      [&] {
        test::Run(
            "ROIAlign", {x, r},
            {{"pooled_size", "(2, 2)"}, {"spatial_scale", "1"}, {"position_sensitive", "True"}});
      },
      StatusCode::kShape, {"position_sensitive", "divisible"});
  test::ExpectError(
      [&] {
        test::Run("ROIAlign", {x, test::Array({1, 5}, {0, 2, 2, 2, 3})},
                  {{"pooled_size", "(2, 2)"}, {"spatial_scale", "1"}, {"aligned", "True"}});
      },
      StatusCode::kInvalidArgument, {"aligned", "positive"});
}

}  // namespace
}  // namespace weft
