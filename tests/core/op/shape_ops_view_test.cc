// Tests of slice, slice_like, Crop, reverse, SwapAxis, depth_to_space,
// space_to_depth and diag: PyTorch reference files
// (scripts/gen_op_refs_shape.py), numeric gradients, closed forms, error
// paths and partial shape inference.
#include <gtest/gtest.h>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

double GradErr(const std::string& op, const std::vector<NDArray>& in, const StringMap& p,
               std::vector<int> wrt = {}) {
  std::string where;
  const double e = test::GradientError(op, in, p, std::move(wrt), 1e-6, &where);
  EXPECT_LT(e, 1e-6) << op << ": " << where;
  return e;
}

NDArray R(const Shape& s, unsigned seed) {
  return test::RandomArray(s, DType::kFloat64, -1, 1, seed);
}

TEST(ShapeOpsView, SliceReferences) {
  for (const char* stem : {"slice_basic", "slice_neg_step_none", "crop_alias_clip",
                           "slice_like_axes", "slice_like_all"})
    EXPECT_TRUE(test::CheckOpRef(stem)) << stem;
}

TEST(ShapeOpsView, SliceValuesAndDtypes) {
  NDArray x = test::Array({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}, DType::kInt32);
  auto y =
      test::Run("slice", {x}, {{"begin", "(None, 3)"}, {"end", "(None, 0)"}, {"step", "(-1, -2)"}});
  EXPECT_EQ(y[0].shape(), Shape({2, 2}));
  EXPECT_EQ(y[0].dtype(), DType::kInt32);
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{7, 5, 3, 1}));
  // Axes past len(begin) are taken whole; list syntax is accepted.
  auto z = test::Run("slice", {x}, {{"begin", "[1]"}, {"end", "[2]"}});
  EXPECT_EQ(test::Values(z[0]), (std::vector<double>{4, 5, 6, 7}));
}

TEST(ShapeOpsView, Float16IsMovedBitExact) {
  NDArray h(Shape({2, 3}), Context::CPU(0), DType::kFloat16, &Runtime::Global());
  uint16_t* p = static_cast<uint16_t*>(h.dptr());
  for (int i = 0; i < 6; ++i) p[i] = static_cast<uint16_t>(0x3c00 + i);
  auto y = test::Run("reverse", {h}, {{"axis", "1"}});
  auto z = test::Run("slice", {y[0]}, {{"begin", "(1, 1)"}, {"end", "(2, 3)"}});
  y[0].WaitToRead();
  z[0].WaitToRead();
  EXPECT_EQ(z[0].dtype(), DType::kFloat16);
  const uint16_t* q = static_cast<const uint16_t*>(z[0].dptr());
  EXPECT_EQ(q[0], 0x3c04);
  EXPECT_EQ(q[1], 0x3c03);
}

TEST(ShapeOpsView, SliceErrorsAndInference) {
  NDArray x = test::Array({2, 4}, std::vector<double>(8, 1));
  test::ExpectError(
      [&] {
        test::Run("slice", {x}, {{"begin", "(0, 0)"}, {"end", "(1,)"}});
      },
      StatusCode::kInvalidArgument, {"slice", "same length"});
  test::ExpectError(
      [&] {
        test::Run("slice", {x}, {{"begin", "(0,)"}, {"end", "(1,)"}, {"step", "(0,)"}});
      },
      StatusCode::kInvalidArgument, {"slice", "step[0] cannot be 0"});
  test::ExpectError(
      [&] {
        test::Run("slice", {x}, {{"begin", "(0, 3)"}, {"end", "(1, 1)"}});
      },
      StatusCode::kShape, {"slice", "axis 1", "(2,4)"});
  test::ExpectError(
      [&] {
        test::Run("slice", {x}, {{"begin", "(0, a)"}, {"end", "(1, 1)"}});
      },
      StatusCode::kInvalidArgument, {"slice", "begin", "(0, a)"});
  test::ExpectError(
      [&] {
        test::Run("slice", {x}, {{"begin", "(0,0,0)"}, {"end", "(1,1,1)"}});
      },
      StatusCode::kInvalidArgument, {"slice", "more entries"});
  std::vector<Shape> in = {Shape({0, 5})}, out;
  EXPECT_FALSE(test::InferShapes("slice", {{"begin", "(0, 1)"}, {"end", "(1, None)"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({0, 4}));
  in = {Shape({3, 0}), Shape({2, 7})};
  out.clear();
  EXPECT_FALSE(test::InferShapes("slice_like", {{"axes", "(0,)"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 0}));
  NDArray big = test::Array({1, 2}, {1, 2});
  test::ExpectError(
      [&] {
        test::Run("slice_like", {big, x}, {});
      },
      StatusCode::kShape, {"slice_like", "axis 0", "exceeds"});
}

TEST(ShapeOpsView, SliceGradients) {
  NDArray x = R({3, 4, 5}, 1);
  GradErr("slice", {x},
          {{"begin", "(None, -1, 4)"}, {"end", "(None, None, 0)"}, {"step", "(-1, -2, -3)"}});
  GradErr("slice_like", {x, R({2, 3, 5}, 2)}, {{"axes", "(0, 1)"}}, {0});
  GradErr("Crop", {R({1, 2, 4, 5}, 3)},
          {{"num_args", "1"}, {"h_w", "(3, 2)"}, {"offset", "(1, 3)"}});
}

TEST(ShapeOpsView, Crop) {
  EXPECT_TRUE(test::CheckOpRef("Crop_hw_offset"));
  EXPECT_TRUE(test::CheckOpRef("Crop_like_center"));
  NDArray x = R({1, 1, 4, 4}, 4);
  test::ExpectError(
      [&] {
        test::Run("Crop", {x}, {{"num_args", "1"}, {"h_w", "(2, 2)"}, {"offset", "(3, 0)"}});
      },
      StatusCode::kInvalidArgument, {"Crop", "offset (3,0)"});
  test::ExpectError(
      [&] {
        test::Run("Crop", {x}, {{"num_args", "1"}, {"h_w", "(5, 2)"}});
      },
      StatusCode::kInvalidArgument, {"Crop", "h_w (5,2)"});
  NDArray flat = R({4, 4}, 5);
  test::ExpectError(
      [&] {
        test::Run("Crop", {flat}, {{"num_args", "1"}, {"h_w", "(2, 2)"}});
      },
      StatusCode::kShape, {"Crop", "4-D"});
  std::vector<Shape> in = {Shape({2, 3, 8, 8}), Shape({0, 0, 5, 6})}, out;
  EXPECT_FALSE(test::InferShapes("Crop", {{"num_args", "2"}, {"center_crop", "True"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 3, 5, 6}));
}

TEST(ShapeOpsView, ReverseSwapAxis) {
  for (const char* stem : {"reverse_axes02", "flip_alias", "SwapAxis_d0_d2", "swapaxes_alias_neg"})
    EXPECT_TRUE(test::CheckOpRef(stem)) << stem;
  NDArray x = R({2, 3, 4}, 6);
  GradErr("reverse", {x}, {{"axis", "(1, -1)"}});
  GradErr("SwapAxis", {x}, {{"dim1", "2"}, {"dim2", "0"}});
  test::ExpectError(
      [&] {
        test::Run("reverse", {x}, {{"axis", "(3,)"}});
      },
      StatusCode::kInvalidArgument, {"reverse", "axis 3"});
  test::ExpectError(
      [&] {
        test::Run("swapaxes", {x}, {{"dim1", "0"}, {"dim2", "-4"}});
      },
      StatusCode::kInvalidArgument, {"SwapAxis", "dim2 -4"});
  std::vector<Shape> in = {Shape()}, out = {Shape({2, 3, 4})};
  EXPECT_TRUE(test::InferShapes("SwapAxis", {{"dim1", "0"}, {"dim2", "1"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({3, 2, 4}));
  in = {Shape()};
  EXPECT_TRUE(test::InferShapes("reverse", {{"axis", "0"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 3, 4}));
}

TEST(ShapeOpsView, DepthSpace) {
  EXPECT_TRUE(test::CheckOpRef("depth_to_space_b2"));
  EXPECT_TRUE(test::CheckOpRef("space_to_depth_b2"));
  NDArray x = R({2, 8, 2, 3}, 7);
  GradErr("depth_to_space", {x}, {{"block_size", "2"}});
  GradErr("space_to_depth", {R({1, 2, 4, 6}, 8)}, {{"block_size", "2"}});
  // The two are inverses.
  auto y = test::Run("depth_to_space", {x}, {{"block_size", "2"}});
  auto back = test::Run("space_to_depth", y, {{"block_size", "2"}});
  EXPECT_EQ(test::Values(back[0]), test::Values(x));
  test::ExpectError(
      [&] {
        test::Run("depth_to_space", {x}, {{"block_size", "3"}});
      },
      StatusCode::kShape, {"depth_to_space", "not divisible by 9"});
  test::ExpectError(
      [&] {
        test::Run("space_to_depth", {x}, {{"block_size", "2"}});
      },
      StatusCode::kShape, {"space_to_depth", "axis 3", "not divisible by 2"});
}

TEST(ShapeOpsView, Diag) {
  for (const char* stem : {"diag_k1", "diag_axes_kneg", "diag_vec_k2", "diag_vec_kneg"})
    EXPECT_TRUE(test::CheckOpRef(stem)) << stem;
  GradErr("diag", {R({3, 4}, 9)}, {{"k", "-2"}});
  GradErr("diag", {R({2, 3, 4}, 10)}, {{"k", "1"}, {"axis1", "-1"}, {"axis2", "1"}});
  GradErr("diag", {R({3}, 11)}, {{"k", "1"}});
  NDArray m = R({3, 4}, 12);
  test::ExpectError(
      [&] {
        test::Run("diag", {m}, {{"k", "4"}});
      },
      StatusCode::kShape, {"diag", "k=4", "does not exist"});
  test::ExpectError(
      [&] {
        test::Run("diag", {m}, {{"axis1", "1"}});
      },
      StatusCode::kInvalidArgument, {"diag", "axis1 and axis2"});
}

}  // namespace
}  // namespace weft
