#include <gtest/gtest.h>

#include <cmath>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(IndexOps, CastConvertsAndBacks) {
  NDArray x = test::Array({3}, {1.5, -2.7, 3}, DType::kFloat64);
  auto y = test::Run("cast", {x}, {{"dtype", "int32"}});
  EXPECT_EQ(y[0].dtype(), DType::kInt32);
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{1, -2, 3}));
  auto f = test::Run("Cast", {x}, {{"dtype", "float32"}});
  EXPECT_EQ(f[0].dtype(), DType::kFloat32);
  EXPECT_NEAR(test::Values(f[0])[1], -2.7, 1e-6);
  std::string where;
  EXPECT_LT(test::GradientError("Cast", {x}, {{"dtype", "float64"}}, {}, 1e-6, &where), 1e-6)
      << where;
  // The gradient of a float64 -> float32 cast comes back as float64.
  const OpRegistry& reg = Runtime::Global().ops();
  NodePtr v = MakeVariable("x");
  NodePtr n = MakeOpNode(reg, "Cast", "c", {{v, 0, 0}}, {{"dtype", "float32"}});
  NodePtr og = MakeVariable("og");
  auto g = n->op()->gradient(reg, n, {{og, 0, 0}});
  NDArray gv =
      test::Eval(g[0], {{v.get(), x}, {og.get(), test::Array({3}, {1, 2, 3}, DType::kFloat32)}});
  EXPECT_EQ(gv.dtype(), DType::kFloat64);
  EXPECT_EQ(test::Values(gv), (std::vector<double>{1, 2, 3}));
  test::ExpectError([&] { test::Run("Cast", {x}, {}); }, StatusCode::kInvalidArgument,
                    {"Cast", "dtype"});
}

// float16 through Cast (weft/float16.h) against test_util's own
// arithmetic conversion: round to nearest even (ties 1 + 2^-11 and
// 1 + 3 * 2^-11), subnormals, the largest half, overflow to infinity, signed
// zero; back to float32/float64 exactly.
TEST(IndexOps, CastFloat16RoundsToNearestEven) {
  const std::vector<double> v = {1.0,
                                 1 + std::ldexp(1, -11),
                                 1 + 3 * std::ldexp(1, -11),
                                 -2.7,
                                 std::ldexp(1, -24),
                                 std::ldexp(3, -26),
                                 65504.0,
                                 65520.0,
                                 -0.0,
                                 0.1,
                                 -7e-5,
                                 1234.567};
  for (DType from : {DType::kFloat32, DType::kFloat64, DType::kInt32}) {
    std::vector<double> in = v;
    if (from == DType::kInt32)
      for (double& x : in) x = std::trunc(x);
    if (from == DType::kInt32) in[7] = 70000;  // beyond the largest half
    NDArray x = test::Array({12}, in, from);
    NDArray h = test::Run("Cast", {x}, {{"dtype", "float16"}})[0];
    ASSERT_EQ(h.dtype(), DType::kFloat16);
    const std::vector<double> want = test::Values(test::Array({12}, in, DType::kFloat16));
    const std::vector<double> got = test::Values(h);
    for (size_t i = 0; i < in.size(); ++i)
      EXPECT_EQ(got[i], want[i]) << DTypeName(from) << " element " << i << " = " << in[i];
    for (DType to : {DType::kFloat32, DType::kFloat64}) {
      NDArray back = test::Run("Cast", {h}, {{"dtype", DTypeName(to)}})[0];
      EXPECT_EQ(test::Values(back), want) << DTypeName(to);
    }
  }
  const std::vector<double> h = test::Values(test::Array(
      {4}, {1 + std::ldexp(1, -11), 65520.0, std::ldexp(3, -26), -0.0}, DType::kFloat16));
  EXPECT_EQ(h[0], 1.0);                 // tie to even
  EXPECT_TRUE(std::isinf(h[1]));        // overflow
  EXPECT_EQ(h[2], std::ldexp(1, -24));  // 3 * 2^-26 rounds to the smallest subnormal
  EXPECT_TRUE(std::signbit(h[3]));
}

TEST(IndexOps, Clip) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    auto y = test::Run("clip", {test::Array({4}, {-3, 0.5, 2, 9}, dt)},
                       {{"a_min", "-1"}, {"a_max", "2"}});
    EXPECT_EQ(test::Values(y[0]), (std::vector<double>{-1, 0.5, 2, 2}));
  }
  NDArray x = test::Array({5}, {-3, -0.4, 0.5, 1.7, 9}, DType::kFloat64);
  std::string where;
  EXPECT_LT(test::GradientError("clip", {x}, {{"a_min", "-1"}, {"a_max", "2"}}, {}, 1e-6, &where),
            1e-6)
      << where;
  test::ExpectError(
      [&] {
        test::Run("clip", {x}, {{"a_min", "0"}});
      },
      StatusCode::kInvalidArgument, {"clip", "a_max"});
}

TEST(IndexOps, Where) {
  NDArray c = test::Array({4}, {1, 0, 0, 2}, DType::kFloat32);
  NDArray x = test::Array({4}, {1, 2, 3, 4}, DType::kFloat32);
  NDArray y = test::Array({4}, {-1, -2, -3, -4}, DType::kFloat32);
  EXPECT_EQ(test::Values(test::Run("where", {c, x, y})[0]), (std::vector<double>{1, -2, -3, 4}));
  NDArray rc = test::Array({2}, {0, 1}, DType::kInt32);
  NDArray rx = test::Array({2, 2}, {1, 2, 3, 4}, DType::kFloat64);
  NDArray ry = test::Array({2, 2}, {5, 6, 7, 8}, DType::kFloat64);
  EXPECT_EQ(test::Values(test::Run("where", {rc, rx, ry})[0]), (std::vector<double>{5, 6, 3, 4}));
  NDArray c64 = test::Array({2, 2}, {1, 0, 0, 1}, DType::kFloat64);
  std::string where;
  EXPECT_LT(test::GradientError("where", {c64, rx, ry}, {}, {1, 2}, 1e-6, &where), 1e-6) << where;
  test::ExpectError(
      [&] {
        test::Run("where", {c, x, test::Array({3}, {1, 2, 3})});
      },
      StatusCode::kShape, {"where", "'y'"});
}

TEST(IndexOps, Embedding) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray idx = test::Array({2, 2}, {2, 0, 1, 7}, DType::kFloat32);
    NDArray w = test::Array({3, 2}, {0, 1, 10, 11, 20, 21}, dt);
    auto y = test::Run("Embedding", {idx, w},
                       {{"input_dim", "3"}, {"output_dim", "2"}, {"dtype", DTypeName(dt)}});
    EXPECT_EQ(y[0].shape(), Shape({2, 2, 2}));
    EXPECT_EQ(test::Values(y[0]),
              (std::vector<double>{20, 21, 0, 1, 10, 11, 20, 21}));  // 7 clipped to 2
  }
  NDArray idx = test::Array({4}, {1, 0, 1, 3}, DType::kFloat64);
  NDArray w = test::RandomArray({4, 3}, DType::kFloat64, -1, 1, 3);
  std::string where;
  EXPECT_LT(test::GradientError("Embedding", {idx, w},
                                {{"input_dim", "4"}, {"output_dim", "3"}, {"dtype", "float64"}},
                                {1}, 1e-6, &where),
            1e-6)
      << where;
  EXPECT_TRUE(test::CheckOpRef("Embedding_basic"));
  test::ExpectError(
      [&] {
        test::Run("Embedding", {idx, w},
                  {{"input_dim", "5"}, {"output_dim", "3"}, {"dtype", "float64"}});
      },
      StatusCode::kShape, {"Embedding", "weight"});
}

}  // namespace
}  // namespace weft
