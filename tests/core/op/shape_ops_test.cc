#include <gtest/gtest.h>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace op {
Shape InferReshapeShape(const std::string& op, const Shape& codes, const Shape& dshape,
                        bool reverse);
}  // namespace op

namespace {

Shape ReshapeOut(const Shape& data, const std::string& shape, bool reverse = false) {
  std::vector<Shape> in = {data}, out;
  test::InferShapes("Reshape", {{"shape", shape}, {"reverse", reverse ? "True" : "False"}}, &in,
                    &out);
  return out[0];
}

TEST(ShapeOps, ReshapeSpecialCodeTable) {
  // MXNet's documented examples.
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(4, 0, 2)"), Shape({4, 3, 2}));
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(2, 0, 0)"), Shape({2, 3, 4}));
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(6, 1, -1)"), Shape({6, 1, 4}));
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(3, -1, 8)"), Shape({3, 1, 8}));
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(-1,)"), Shape({24}));
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(-2,)"), Shape({2, 3, 4}));
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(2, -2)"), Shape({2, 3, 4}));
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(-2, 1, 1)"), Shape({2, 3, 4, 1, 1}));
  EXPECT_EQ(ReshapeOut({2, 3, 4, 5}, "(-3, -3)"), Shape({6, 20}));
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(0, -3)"), Shape({2, 12}));
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(-3, -2)"), Shape({6, 4}));
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(-4, 1, 2, -2)"), Shape({1, 2, 3, 4}));
  EXPECT_EQ(ReshapeOut({2, 3, 4}, "(2, -4, -1, 3, -2)"), Shape({2, 1, 3, 4}));
  EXPECT_EQ(ReshapeOut({10, 5, 4}, "(-1, 0)"), Shape({40, 5}));
  EXPECT_EQ(ReshapeOut({10, 5, 4}, "(-1, 0)", true), Shape({50, 4}));
  // The examples.
  EXPECT_EQ(ReshapeOut({2, 3, 5, 5}, "(0, -1)"), Shape({2, 75}));
  EXPECT_EQ(ReshapeOut({2, 3, 5, 6}, "(-3, -3)"), Shape({6, 30}));
  EXPECT_EQ(ReshapeOut({64}, "(-4, 16, 4)"), Shape({16, 4}));
  EXPECT_EQ(ReshapeOut({64}, "(-4, -1, 4)"), Shape({16, 4}));
  EXPECT_EQ(ReshapeOut({2, 3, 4, 5}, "(-1, 0)", true), Shape({24, 5}));
  EXPECT_EQ(ReshapeOut({2, 3, 4, 5}, "(0, -1)", true),
            Shape({4, 30}));  // codes align from the right
}

TEST(ShapeOps, ReshapeErrors) {
  NDArray x = test::RandomArray({2, 3, 4}, DType::kFloat32, -1, 1, 1);
  test::ExpectError(
      [&] {
        test::Run("Reshape", {x}, {{"shape", "(5, -1)"}});
      },
      StatusCode::kShape, {"Reshape", "(5,-1)"});
  test::ExpectError(
      [&] {
        test::Run("Reshape", {x}, {{"shape", "(-1, -1)"}});
      },
      StatusCode::kShape, {"Reshape", "-1"});
  test::ExpectError(
      [&] {
        test::Run("Reshape", {x}, {{"shape", "(7, 2)"}});
      },
      StatusCode::kShape, {"Reshape", "size"});
  test::ExpectError(
      [&] {
        test::Run("Reshape", {x}, {{"shape", "(-4, 5, -1, -2)"}});
      },
      StatusCode::kShape, {"Reshape", "-4"});
  test::ExpectError([&] { test::Run("Reshape", {x}, {}); }, StatusCode::kInvalidArgument,
                    {"Reshape", "shape"});
}

TEST(ShapeOps, ReshapeBackwardInference) {
  std::vector<Shape> in = {Shape({0, 3, 4})}, out = {Shape({6, 4})};
  EXPECT_TRUE(test::InferShapes("Reshape", {{"shape", "(-1, 4)"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 3, 4}));
  // Legacy target_shape.
  in = {Shape({2, 6})};
  out.clear();
  EXPECT_TRUE(test::InferShapes("Reshape", {{"target_shape", "(3, 4)"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({3, 4}));
}

TEST(ShapeOps, ReshapeFlattenValuesAndGradients) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::RandomArray({2, 3, 4}, dt, -1, 1, 2);
    auto y = test::Run("reshape", {x}, {{"shape", "(4, -1)"}});
    EXPECT_EQ(y[0].shape(), Shape({4, 6}));
    EXPECT_EQ(test::Values(y[0]), test::Values(x));
    auto f = test::Run("Flatten", {x});
    EXPECT_EQ(f[0].shape(), Shape({2, 12}));
    EXPECT_EQ(test::Values(f[0]), test::Values(x));
  }
  NDArray x = test::RandomArray({2, 3, 2}, DType::kFloat64, -1, 1, 3);
  std::string where;
  EXPECT_LT(test::GradientError("Reshape", {x}, {{"shape", "(-3, -1)"}}, {}, 1e-6, &where), 1e-6)
      << where;
  EXPECT_LT(test::GradientError("Flatten", {x}, {}, {}, 1e-6, &where), 1e-6) << where;
  EXPECT_LT(test::GradientError("expand_dims", {x}, {{"axis", "-1"}}, {}, 1e-6, &where), 1e-6)
      << where;
  EXPECT_LT(
      test::GradientError("reshape_like", {x, test::RandomArray({3, 4}, DType::kFloat64, -1, 1, 4)},
                          {}, {}, 1e-6, &where),
      1e-6)
      << where;
  NDArray s = test::RandomArray({3, 1, 2, 1}, DType::kFloat64, -1, 1, 5);
  EXPECT_LT(test::GradientError("squeeze", {s}, {}, {}, 1e-6, &where), 1e-6) << where;
}

TEST(ShapeOps, ExpandDimsAndSqueezeShapes) {
  NDArray x = test::RandomArray({2, 3}, DType::kFloat32, -1, 1, 6);
  EXPECT_EQ(test::Run("expand_dims", {x}, {{"axis", "0"}})[0].shape(), Shape({1, 2, 3}));
  EXPECT_EQ(test::Run("expand_dims", {x}, {{"axis", "2"}})[0].shape(), Shape({2, 3, 1}));
  EXPECT_EQ(test::Run("expand_dims", {x}, {{"axis", "-2"}})[0].shape(), Shape({2, 1, 3}));
  test::ExpectError(
      [&] {
        test::Run("expand_dims", {x}, {{"axis", "3"}});
      },
      StatusCode::kInvalidArgument, {"expand_dims", "axis"});
  NDArray s = test::RandomArray({1, 3, 1, 2}, DType::kFloat32, -1, 1, 7);
  EXPECT_EQ(test::Run("squeeze", {s})[0].shape(), Shape({3, 2}));
  EXPECT_EQ(test::Run("squeeze", {s}, {{"axis", "(2,)"}})[0].shape(), Shape({1, 3, 2}));
  EXPECT_EQ(test::Run("squeeze", {test::Array({1, 1}, {5})})[0].shape(), Shape({1}));
  test::ExpectError(
      [&] {
        test::Run("squeeze", {s}, {{"axis", "1"}});
      },
      StatusCode::kShape, {"squeeze", "extent 3"});
  std::vector<Shape> in = {Shape()}, out = {Shape({4, 1, 5})};
  EXPECT_TRUE(test::InferShapes("expand_dims", {{"axis", "1"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({4, 5}));
}

TEST(ShapeOps, Transpose) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::Array({2, 3}, {1, 2, 3, 4, 5, 6}, dt);
    auto y = test::Run("transpose", {x});
    EXPECT_EQ(y[0].shape(), Shape({3, 2}));
    EXPECT_EQ(test::Values(y[0]), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  }
  NDArray x = test::RandomArray({2, 3, 4}, DType::kFloat64, -1, 1, 8);
  auto y = test::Run("transpose", {x}, {{"axes", "(1, 2, 0)"}});
  ASSERT_EQ(y[0].shape(), Shape({3, 4, 2}));
  std::vector<double> xv = test::Values(x), yv = test::Values(y[0]);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) EXPECT_EQ(yv[(b * 4 + c) * 2 + a], xv[(a * 3 + b) * 4 + c]);
  std::string where;
  EXPECT_LT(test::GradientError("transpose", {x}, {{"axes", "(1, 2, 0)"}}, {}, 1e-6, &where), 1e-6)
      << where;
  EXPECT_LT(test::GradientError("transpose", {x}, {}, {}, 1e-6, &where), 1e-6) << where;
  test::ExpectError(
      [&] {
        test::Run("transpose", {x}, {{"axes", "(0, 0, 1)"}});
      },
      StatusCode::kInvalidArgument, {"transpose", "permutation"});
  std::vector<Shape> in = {Shape()}, out = {Shape({3, 4, 2})};
  EXPECT_TRUE(test::InferShapes("transpose", {{"axes", "(1, 2, 0)"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 3, 4}));
  EXPECT_TRUE(test::CheckOpRef("transpose_axes"));
}

// A transformer's head split (0, 2, 1, 3) keeps the last axis last: whole
// rows move, on several threads once the array is large (49152 elements).
TEST(ShapeOps, TransposeKeepingTheLastAxis) {
  const int64_t B = 2, S = 128, H = 12, D = 16;
  NDArray x = test::RandomArray({B, S, H, D}, DType::kFloat32, -1, 1, 9);
  auto y = test::Run("transpose", {x}, {{"axes", "(0, 2, 1, 3)"}});
  ASSERT_EQ(y[0].shape(), Shape({B, H, S, D}));
  std::vector<double> xv = test::Values(x), yv = test::Values(y[0]);
  int64_t wrong = 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t d = 0; d < D; ++d)
          wrong += yv[((b * H + h) * S + s) * D + d] != xv[((b * S + s) * H + h) * D + d];
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace weft
