#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(VisionSamplingRef, MatchesPyTorch) {
  for (const char* s : {"GridGenerator_affine", "GridGenerator_warp", "BilinearSampler_basic",
                        "SpatialTransformer_affine"})
    EXPECT_TRUE(test::CheckOpRef(s)) << s;
}

TEST(VisionSampling, GradientsMatchNumeric) {
  NDArray data = test::RandomArray({2, 3, 4, 5}, DType::kFloat64, -1, 1, 11);
  NDArray grid = test::RandomArray({2, 2, 3, 4}, DType::kFloat64, -1.1, 1.1, 12);
  // Chosen so that no sample lands exactly on a cell boundary (a kink).
  NDArray loc =
      test::Array({2, 6}, {0.8, 0.1, 0.05, -0.1, 0.9, 0.02, 0.7, -0.2, -0.13, 0.15, 0.6, 0.05},
                  DType::kFloat64);
  std::string where;
  double err = test::GradientError("BilinearSampler", {data, grid}, {}, {}, 1e-6, &where);
  EXPECT_LT(err, 1e-5) << where;
  err = test::GradientError(
      "SpatialTransformer", {data, loc},
      {{"target_shape", "(3, 3)"}, {"transform_type", "affine"}, {"sampler_type", "bilinear"}}, {},
      1e-6, &where);
  EXPECT_LT(err, 1e-5) << where;
  for (const char* tt : {"affine", "warp"}) {
    NDArray in = std::string(tt) == "affine" ? loc : grid;
    err =
        test::GradientError("GridGenerator", {in},
                            {{"transform_type", tt}, {"target_shape", "(2, 3)"}}, {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << tt << ": " << where;
  }
}

TEST(VisionSampling, IdentityTransformCopies) {
  NDArray data = test::RandomArray({1, 2, 3, 4}, DType::kFloat64, -1, 1, 3);
  NDArray loc = test::Array({1, 6}, {1, 0, 0, 0, 1, 0}, DType::kFloat64);
  auto y = test::Run(
      "SpatialTransformer", {data, loc},
      {{"target_shape", "(3, 4)"}, {"transform_type", "affine"}, {"sampler_type", "bilinear"}});
  const std::vector<double> a = test::Values(data), b = test::Values(y[0]);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12) << i;
}

TEST(VisionSampling, ShapesAndRejects) {
  std::vector<Shape> in = {Shape({4, 6})}, out = {Shape()};
  EXPECT_TRUE(test::InferShapes(
      "GridGenerator", {{"transform_type", "affine"}, {"target_shape", "(5, 7)"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({4, 2, 5, 7}));
  in = {Shape({2, 3, 8, 8}), Shape({2, 2, 4, 6})};
  out = {Shape()};
  EXPECT_TRUE(test::InferShapes("BilinearSampler", {}, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 3, 4, 6}));

  NDArray loc = test::RandomArray({1, 6}, DType::kFloat32, 0, 1, 1);
  test::ExpectError(
      [&] {
        test::Run("GridGenerator", {loc}, {{"transform_type", "affine"}});
      },
      StatusCode::kInvalidArgument, {"GridGenerator", "'target_shape'"});
  test::ExpectError(
      [&] {
        test::Run("GridGenerator", {loc}, {{"target_shape", "(2, 2)"}});
      },
      StatusCode::kInvalidArgument, {"transform_type"});
  test::ExpectError(
      [&] {
        test::Run("BilinearSampler", {test::RandomArray({1, 1, 3, 3}, DType::kFloat32, 0, 1, 1),
                                      test::RandomArray({1, 3, 2, 2}, DType::kFloat32, 0, 1, 1)});
      },
      StatusCode::kShape, {"'grid'", "(batch, 2, height, width)"});
  test::ExpectError(
      [&] {
        test::Run("SpatialTransformer",
                  {test::RandomArray({1, 1, 3, 3}, DType::kFloat32, 0, 1, 1), loc},
                  {{"target_shape", "(2, 2)"},
                   {"transform_type", "affine"},
                   {"sampler_type", "nearest"}});
      },
      StatusCode::kInvalidArgument, {"sampler_type"});
}

}  // namespace
}  // namespace weft
