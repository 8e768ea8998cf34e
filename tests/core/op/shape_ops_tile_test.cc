// Tests of stack, tile, repeat, broadcast_to/_like/_axis, _arange,
// _contrib_arange_like, shape_array and size_array: PyTorch reference files
// (scripts/gen_op_refs_shape.py), numeric gradients, closed forms, error
// paths and partial shape inference.
#include <gtest/gtest.h>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

void GradOk(const std::string& op, const std::vector<NDArray>& in, const StringMap& p,
            std::vector<int> wrt = {}) {
  std::string where;
  EXPECT_LT(test::GradientError(op, in, p, std::move(wrt), 1e-6, &where), 1e-6)
      << op << ": " << where;
}

NDArray R(const Shape& s, unsigned seed) {
  return test::RandomArray(s, DType::kFloat64, -1, 1, seed);
}

TEST(ShapeOpsTile, Stack) {
  EXPECT_TRUE(test::CheckOpRef("stack_axis1"));
  EXPECT_TRUE(test::CheckOpRef("stack_axis_last"));
  GradOk("stack", {R({2, 3}, 1), R({2, 3}, 2)}, {{"num_args", "2"}, {"axis", "2"}});
  std::vector<Shape> in = {Shape(), Shape({0, 4})}, out = {Shape({2, 0, 4})};
  EXPECT_TRUE(test::InferShapes("stack", {{"num_args", "2"}, {"axis", "1"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 4}));
  EXPECT_EQ(out[0], Shape({2, 2, 4}));
  NDArray a = R({2, 3}, 3), b = R({3, 2}, 4);
  test::ExpectError(
      [&] {
        test::Run("stack", {a, b}, {{"num_args", "2"}});
      },
      StatusCode::kShape, {"stack", "arg1"});
  test::ExpectError(
      [&] {
        test::Run("stack", {a, a}, {{"num_args", "2"}, {"axis", "3"}});
      },
      StatusCode::kInvalidArgument, {"stack", "axis 3"});
}

TEST(ShapeOpsTile, TileRepeat) {
  for (const char* stem :
       {"tile_longer_reps", "tile_shorter_reps", "repeat_axis1", "repeat_flat", "repeat_neg_axis"})
    EXPECT_TRUE(test::CheckOpRef(stem)) << stem;
  NDArray x = R({2, 3}, 5);
  GradOk("tile", {x}, {{"reps", "(2, 1, 3)"}});
  GradOk("repeat", {x}, {{"repeats", "2"}, {"axis", "0"}});
  GradOk("repeat", {x}, {{"repeats", "3"}});
  auto same = test::Run("tile", {x}, {{"reps", "()"}});
  EXPECT_EQ(test::Values(same[0]), test::Values(x));
  NDArray i = test::Array({2}, {4, 7}, DType::kInt64);
  EXPECT_EQ(test::Values(test::Run("repeat", {i}, {{"repeats", "2"}})[0]),
            (std::vector<double>{4, 4, 7, 7}));
  test::ExpectError(
      [&] {
        test::Run("tile", {x}, {{"reps", "(0, 2)"}});
      },
      StatusCode::kInvalidArgument, {"tile", "reps (0,2)"});
  test::ExpectError(
      [&] {
        test::Run("repeat", {x}, {{"repeats", "2"}, {"axis", "2"}});
      },
      StatusCode::kInvalidArgument, {"repeat", "axis 2"});
  std::vector<Shape> in = {Shape({0, 3})}, out;
  EXPECT_FALSE(test::InferShapes("tile", {{"reps", "(2, 2)"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({0, 6}));
  EXPECT_FALSE(test::InferShapes("repeat", {{"repeats", "2"}, {"axis", "1"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({0, 6}));
}

TEST(ShapeOpsTile, Broadcasts) {
  for (const char* stem : {"broadcast_to_keep0", "broadcast_like_full", "broadcast_like_axes",
                           "broadcast_axis_mid", "broadcast_axes_alias"})
    EXPECT_TRUE(test::CheckOpRef(stem)) << stem;
  NDArray x = R({1, 3, 1}, 6);
  GradOk("broadcast_to", {x}, {{"shape", "(2, 3, 4)"}});
  GradOk("broadcast_axis", {x}, {{"axis", "(0, -1)"}, {"size", "(3, 2)"}});
  GradOk("broadcast_like", {x, R({2, 3, 2}, 7)}, {}, {0});
  test::ExpectError(
      [&] {
        test::Run("broadcast_to", {x}, {{"shape", "(2, 2, 4)"}});
      },
      StatusCode::kShape, {"broadcast_to", "(2,2,4)", "axis 1"});
  test::ExpectError(
      [&] {
        test::Run("broadcast_axis", {x}, {{"axis", "1"}, {"size", "4"}});
      },
      StatusCode::kShape, {"broadcast_axis", "axis 1", "expected 1"});
  test::ExpectError(
      [&] {
        test::Run("broadcast_like", {x, R({2, 3}, 8)}, {});
      },
      StatusCode::kShape, {"broadcast_like", "ranks differ"});
  std::vector<Shape> in = {Shape({1, 0})}, out;
  EXPECT_FALSE(test::InferShapes("broadcast_to", {{"shape", "(5, 0)"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({5, 0}));
}

TEST(ShapeOpsTile, Ranges) {
  for (const char* stem : {"_arange_repeat", "_arange_stop_none", "_arange_neg_step",
                           "_contrib_arange_like_repeat", "_contrib_arange_like_axis"})
    EXPECT_TRUE(test::CheckOpRef(stem)) << stem;
  auto a =
      test::Run("_arange", {}, {{"start", "3"}, {"stop", "9"}, {"step", "2"}, {"dtype", "int32"}});
  EXPECT_EQ(a[0].dtype(), DType::kInt32);
  EXPECT_EQ(test::Values(a[0]), (std::vector<double>{3, 5, 7}));
  test::ExpectError(
      [&] {
        test::Run("_arange", {}, {{"start", "3"}, {"stop", "1"}});
      },
      StatusCode::kInvalidArgument, {"_arange", "invalid range"});
  test::ExpectError(
      [&] {
        test::Run("_arange", {}, {{"start", "3"}, {"step", "0"}});
      },
      StatusCode::kInvalidArgument, {"_arange", "step cannot be 0"});
  std::vector<Shape> in, out = {Shape({7})};
  EXPECT_TRUE(test::InferShapes("_arange", {{"start", "2"}, {"infer_range", "True"}}, &in, &out));
  auto like =
      test::Run("_contrib_arange_like", {test::Array({2, 2}, {9, 9, 9, 9}, DType::kFloat64)},
                {{"start", "1"}, {"step", "2"}});
  EXPECT_EQ(like[0].dtype(), DType::kFloat64);
  EXPECT_EQ(test::Values(like[0]), (std::vector<double>{1, 3, 5, 7}));
}

TEST(ShapeOpsTile, ShapeAndSizeArray) {
  NDArray x = R({2, 3, 4}, 9);
  auto s = test::Run("shape_array", {x});
  EXPECT_EQ(s[0].dtype(), DType::kInt64);
  EXPECT_EQ(s[0].shape(), Shape({3}));
  EXPECT_EQ(test::Values(s[0]), (std::vector<double>{2, 3, 4}));
  auto n = test::Run("size_array", {x});
  EXPECT_EQ(n[0].shape(), Shape({1}));
  EXPECT_EQ(test::Values(n[0]), (std::vector<double>{24}));
}

}  // namespace
}  // namespace weft
