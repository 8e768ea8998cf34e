#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(NNPool3dRef, MatchesPyTorch) {
  for (const char* stem : {"Pooling_3d_max_k2s2", "Pooling_3d_max_k3s2p1", "Pooling_3d_avg_pad",
                           "Pooling_3d_avg_pad_exclude", "Pooling_3d_sum", "Pooling_3d_global_avg"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

TEST(NNPool3d, GradientsMatchNumeric) {
  for (const char* type : {"avg", "sum", "max"}) {
    std::string where;
    const double err = test::GradientError(
        "Pooling", {test::RandomArray({1, 2, 3, 4, 3}, DType::kFloat64, -2, 2, 5)},
        {{"kernel", "(2, 2, 2)"},
         {"stride", "(1, 2, 1)"},
         {"pad", "(1, 0, 1)"},
         {"pool_type", type}},
        {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << type << ": " << where;
  }
}

TEST(NNPool3d, ShapeInference) {
  std::vector<Shape> in = {Shape({2, 3, 7, 8, 9})}, out;
  EXPECT_TRUE(
      test::InferShapes("Pooling", {{"kernel", "(3, 3, 3)"}, {"stride", "(2, 2, 2)"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 3, 3, 3, 4}));
  out.clear();
  EXPECT_TRUE(test::InferShapes(
      "Pooling", {{"kernel", "(3, 3, 3)"}, {"stride", "(2, 2, 2)"}, {"pooling_convention", "full"}},
      &in, &out));
  EXPECT_EQ(out[0], Shape({2, 3, 3, 4, 4}));
  out.clear();
  EXPECT_TRUE(test::InferShapes(
      "Pooling", {{"kernel", "(1, 1, 1)"}, {"global_pool", "True"}, {"layout", "NCDHW"}}, &in,
      &out));
  EXPECT_EQ(out[0], Shape({2, 3, 1, 1, 1}));
}

TEST(NNPool3d, Rejects) {
  NDArray x = test::RandomArray({1, 1, 4, 4, 4}, DType::kFloat32, 0, 1, 1);
  test::ExpectError(
      [&] {
        test::Run("Pooling", {x}, {{"kernel", "(2, 2, 2)"}, {"layout", "NDHWC"}});
      },
      StatusCode::kNotImplemented, {"Pooling", "NCDHW"});
  test::ExpectError(
      [&] {
        test::Run("Pooling", {x}, {{"kernel", "(2, 2, 2)"}, {"stride", "(1, 1)"}});
      },
      StatusCode::kInvalidArgument, {"Pooling", "'stride'"});
  test::ExpectError(
      [&] {
        test::Run("Pooling", {test::RandomArray({1, 1, 4, 4}, DType::kFloat32, 0, 1, 1)},
                  {{"kernel", "(2, 2, 2)"}});
      },
      StatusCode::kShape, {"Pooling", "rank 5"});
}

}  // namespace
}  // namespace weft
