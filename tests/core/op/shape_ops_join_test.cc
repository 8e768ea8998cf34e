#include <gtest/gtest.h>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(ShapeOpsJoin, ConcatValues) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray a = test::Array({2, 1}, {1, 2}, dt);
    NDArray b = test::Array({2, 2}, {3, 4, 5, 6}, dt);
    auto y = test::Run("concat", {a, b}, {{"num_args", "2"}});
    EXPECT_EQ(y[0].shape(), Shape({2, 3}));
    EXPECT_EQ(test::Values(y[0]), (std::vector<double>{1, 3, 4, 2, 5, 6}));
    auto z = test::Run("Concat", {a, a}, {{"num_args", "2"}, {"dim", "0"}});
    EXPECT_EQ(z[0].shape(), Shape({4, 1}));
    EXPECT_EQ(test::Values(z[0]), (std::vector<double>{1, 2, 1, 2}));
  }
}

TEST(ShapeOpsJoin, ConcatInferenceIsBidirectional) {
  std::vector<Shape> in = {Shape({2, 3, 4}), Shape({0, 0, 4}), Shape({2, 5, 4})},
                     out = {Shape({2, 10, 4})};
  EXPECT_TRUE(test::InferShapes("Concat", {{"num_args", "3"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({2, 2, 4}));
  in = {Shape({2, 3}), Shape()};
  out.clear();
  EXPECT_FALSE(test::InferShapes("Concat", {{"num_args", "2"}, {"dim", "-1"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({2, 0}));
  EXPECT_EQ(out[0], Shape({2, 0}));
  NDArray a = test::Array({2, 1}, {1, 2});
  NDArray b = test::Array({3, 2}, {3, 4, 5, 6, 7, 8});
  test::ExpectError(
      [&] {
        test::Run("Concat", {a, b}, {{"num_args", "2"}});
      },
      StatusCode::kShape, {"Concat", "arg1"});
  test::ExpectError(
      [&] {
        test::Run("Concat", {a, a}, {{"num_args", "2"}, {"dim", "2"}});
      },
      StatusCode::kInvalidArgument, {"Concat", "axis 2"});
}

TEST(ShapeOpsJoin, ConcatGradient) {
  NDArray a = test::RandomArray({2, 3, 2}, DType::kFloat64, -1, 1, 1);
  NDArray b = test::RandomArray({2, 1, 2}, DType::kFloat64, -1, 1, 2);
  std::string where;
  EXPECT_LT(test::GradientError("Concat", {a, b}, {{"num_args", "2"}}, {}, 1e-6, &where), 1e-6)
      << where;
  EXPECT_LT(test::GradientError("Concat", {a, a, a}, {{"num_args", "3"}, {"dim", "-1"}}, {}, 1e-6,
                                &where),
            1e-6)
      << where;
  EXPECT_TRUE(test::CheckOpRef("Concat_dim1"));
}

TEST(ShapeOpsJoin, SplitValuesShapesAndGradient) {
  NDArray x = test::Array({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}, DType::kFloat64);
  auto y = test::Run("split", {x}, {{"num_outputs", "2"}});
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[0].shape(), Shape({2, 2}));
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{0, 1, 4, 5}));
  EXPECT_EQ(test::Values(y[1]), (std::vector<double>{2, 3, 6, 7}));
  auto s = test::Run("SliceChannel", {x},
                     {{"num_outputs", "2"}, {"axis", "0"}, {"squeeze_axis", "True"}});
  EXPECT_EQ(s[1].shape(), Shape({4}));
  EXPECT_EQ(test::Values(s[1]), (std::vector<double>{4, 5, 6, 7}));
  test::ExpectError(
      [&] {
        test::Run("SliceChannel", {x}, {{"num_outputs", "3"}});
      },
      StatusCode::kShape, {"SliceChannel", "num_outputs=3"});
  std::vector<Shape> in = {Shape()}, out = {Shape({2, 3}), Shape()};
  EXPECT_TRUE(test::InferShapes("SliceChannel", {{"num_outputs", "2"}, {"axis", "-1"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 6}));
  EXPECT_EQ(out[1], Shape({2, 3}));
  NDArray r = test::RandomArray({3, 4, 2}, DType::kFloat64, -1, 1, 3);
  std::string where;
  EXPECT_LT(test::GradientError("SliceChannel", {r}, {{"num_outputs", "2"}}, {}, 1e-6, &where),
            1e-6)
      << where;
  EXPECT_LT(test::GradientError("SliceChannel", {r},
                                {{"num_outputs", "2"}, {"axis", "2"}, {"squeeze_axis", "1"}}, {},
                                1e-6, &where),
            1e-6)
      << where;
  EXPECT_TRUE(test::CheckOpRef("SliceChannel_axis2"));
}

TEST(ShapeOpsJoin, SliceAxis) {
  NDArray x = test::Array({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}, DType::kFloat32);
  auto y = test::Run("slice_axis", {x}, {{"axis", "1"}, {"begin", "1"}, {"end", "3"}});
  EXPECT_EQ(y[0].shape(), Shape({2, 2}));
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{1, 2, 5, 6}));
  auto z = test::Run("slice_axis", {x}, {{"axis", "-1"}, {"begin", "-2"}, {"end", "None"}});
  EXPECT_EQ(test::Values(z[0]), (std::vector<double>{2, 3, 6, 7}));
  test::ExpectError(
      [&] {
        test::Run("slice_axis", {x}, {{"axis", "1"}, {"begin", "3"}, {"end", "2"}});
      },
      StatusCode::kInvalidArgument, {"slice_axis", "[3, 2)"});
  NDArray r = test::RandomArray({3, 5, 2}, DType::kFloat64, -1, 1, 4);
  std::string where;
  EXPECT_LT(test::GradientError("slice_axis", {r}, {{"axis", "1"}, {"begin", "1"}, {"end", "-1"}},
                                {}, 1e-6, &where),
            1e-6)
      << where;
  EXPECT_TRUE(test::CheckOpRef("slice_axis_mid"));
}

}  // namespace
}  // namespace weft
