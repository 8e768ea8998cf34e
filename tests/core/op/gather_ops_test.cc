// pick, one_hot, take, gather_nd, scatter_nd: PyTorch references, numeric
// gradients, closed forms, partial shapes and error paths.
#include <gtest/gtest.h>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(GatherOps, MatchTorchReferences) {
  for (const char* stem :
       {"pick_axis1", "pick_axis0_keepdims", "pick_last_clip", "pick_last_wrap", "pick_2d_axis0",
        "one_hot_basic", "one_hot_on_off", "take_axis0", "take_axis1_clip", "take_axis_neg_wrap",
        "gather_nd_slices", "gather_nd_elements", "gather_nd_negative", "scatter_nd_slices"})
    EXPECT_TRUE(test::CheckOpRef(stem)) << stem;
}

TEST(GatherOps, GradientsMatchNumeric) {
  NDArray x = test::RandomArray({3, 4, 5}, DType::kFloat64, -1, 1, 21);
  struct Case {
    std::string op;
    NDArray index;
    StringMap p;
  };
  const std::vector<Case> cases = {
      {"pick",
       test::Array({3, 5}, {0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 1, 1, 2, 2, 3}, DType::kFloat64),
       {{"axis", "1"}}},
      {"pick",
       test::Array({3, 4}, {-1, 7, 2, 3, 9, 0, 1, 4, 4, 4, 5, 6}, DType::kFloat64),
       {{"mode", "wrap"}}},
      {"take", test::Array({2, 2}, {1, 1, 0, 3}, DType::kFloat64), {{"axis", "1"}}},
      {"take", test::Array({3}, {2, 0, 2}, DType::kInt32), {}},
      {"gather_nd", test::Array({2, 3}, {0, 2, 0, 3, 1, 3}, DType::kFloat64), {}},
  };
  for (const auto& c : cases) {
    std::string where;
    EXPECT_LT(test::GradientError(c.op, {x, c.index}, c.p, {0}, 1e-6, &where), 1e-6)
        << c.op << " " << where;
  }
  NDArray v = test::RandomArray({2, 5}, DType::kFloat64, -1, 1, 22);
  std::string where;
  EXPECT_LT(
      test::GradientError("scatter_nd", {v, test::Array({2, 2}, {0, 2, 3, 1}, DType::kFloat64)},
                          {{"shape", "(3, 4, 5)"}}, {0}, 1e-6, &where),
      1e-6)
      << where;
}

TEST(GatherOps, ClosedForms) {
  NDArray d = test::Array({2, 2}, {1, 2, 3, 4}, DType::kFloat32);
  EXPECT_EQ(test::Values(test::Run("gather_nd", {d, test::Array({2, 2}, {1, 0, 1, 1})})[0]),
            (std::vector<double>{4, 2}));
  EXPECT_EQ(test::Values(test::Run("scatter_nd",
                                   {test::Array({2}, {7, 8}), test::Array({2, 2}, {1, 0, 1, 1})},
                                   {{"shape", "(2, 2)"}})[0]),
            (std::vector<double>{0, 8, 0, 7}));
  // Duplicate take indices sum their gradients.
  auto g = test::Run("_backward_take",
                     {test::Array({3, 2}, {1, 1, 2, 2, 4, 4}), d, test::Array({3}, {0, 0, 1})}, {});
  EXPECT_EQ(test::Values(g[0]), (std::vector<double>{3, 3, 4, 4}));
  EXPECT_EQ(test::Values(test::Run("one_hot", {test::Array({2}, {1, 0})},
                                   {{"depth", "3"}, {"dtype", "int32"}})[0]),
            (std::vector<double>{0, 1, 0, 1, 0, 0}));
  // kAdd accumulates onto the output.
  std::vector<NDArray> out = {test::Array({2}, {10, 20})};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "pick", {d, test::Array({2}, {1, 0})}, {}, &out, opts);
  EXPECT_EQ(test::Values(out[0]), (std::vector<double>{12, 23}));
  // The index may keep the picked axis even without keepdims (MXNet).
  auto y = test::Run("pick", {d, test::Array({2, 1}, {0, 1})}, {{"axis", "1"}});
  EXPECT_EQ(y[0].shape(), Shape({2}));
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{1, 4}));
}

TEST(GatherOps, PartialShapeInference) {
  std::vector<Shape> in = {Shape({3, 0, 5}), Shape()}, out;
  EXPECT_FALSE(test::InferShapes("pick", {{"axis", "1"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({3, 5}));
  EXPECT_EQ(out[0], Shape({3, 5}));
  in = {Shape({3, 4, 5}), Shape::Unknown(3)};
  out.clear();
  EXPECT_TRUE(test::InferShapes("pick", {{"axis", "-2"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({3, 1, 5}));
  EXPECT_EQ(out[0], Shape({3, 5}));
  in = {Shape()};
  out = {Shape({2, 3, 4})};
  EXPECT_TRUE(test::InferShapes("one_hot", {{"depth", "4"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 3}));
  in = {Shape({5, 0}), Shape({2, 2})};
  out.clear();
  EXPECT_FALSE(test::InferShapes("take", {}, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 2, 0}));
  in = {Shape(), Shape({2, 3})};
  out.clear();
  EXPECT_TRUE(test::InferShapes("scatter_nd", {{"shape", "(4, 5, 6)"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({3, 6}));
  EXPECT_EQ(out[0], Shape({4, 5, 6}));
  in = {Shape({4, 5, 6}), Shape({3, 7})};
  out.clear();
  EXPECT_TRUE(test::InferShapes("gather_nd", {}, &in, &out));
  EXPECT_EQ(out[0], Shape({7}));
}

TEST(GatherOps, ErrorPaths) {
  NDArray x = test::RandomArray({2, 3}, DType::kFloat32, 0, 1, 1);
  test::ExpectError(
      [&] {
        test::Run("take", {x, test::Array({2}, {0, 2})}, {{"mode", "raise"}});
      },
      StatusCode::kInvalidArgument, {"take", "index 2", "extent 2", "raise"});
  test::ExpectError(
      [&] {
        test::Run("pick", {x, test::Array({2}, {0, 1})}, {{"axis", "None"}});
      },
      StatusCode::kInvalidArgument, {"pick", "axis=None"});
  test::ExpectError(
      [&] {
        test::Run("pick", {x, test::Array({3}, {0, 1, 0})}, {});
      },
      StatusCode::kShape, {"pick", "index", "(3,)", "(2,)"});
  test::ExpectError(
      [&] {
        test::Run("gather_nd", {x, test::Array({2}, {0, 1})}, {});
      },
      StatusCode::kShape, {"gather_nd", "at least 2 dimensions"});
  test::ExpectError(
      [&] {
        test::Run("gather_nd", {x, test::Array({3, 1}, {0, 0, 0})}, {});
      },
      StatusCode::kShape, {"gather_nd", "ndim 2"});
  test::ExpectError(
      [&] {
        test::Run("gather_nd", {x, test::Array({2, 1}, {0, 3})}, {});
      },
      StatusCode::kInvalidArgument, {"gather_nd", "index 3", "extent 3"});
  test::ExpectError(
      [&] {
        test::Run("take", {x, test::Array({1}, {0})}, {{"mode", "fast"}});
      },
      StatusCode::kInvalidArgument, {"mode", "fast"});
  test::ExpectError([&] { test::Run("one_hot", {test::Array({1}, {0})}, {}); },
                    StatusCode::kInvalidArgument, {"one_hot", "depth"});
}

}  // namespace
}  // namespace weft
