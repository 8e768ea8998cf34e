// max, min, prod, nansum, nanprod, norm: PyTorch references, numeric
// gradients, NaN handling, tie gradients and error paths.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ReduceExt, MatchTorchReferences) {
  for (const char* stem :
       {"max_axis1", "max_axis_all", "max_exclude_keepdims", "min_axes", "min_axis_neg_keepdims",
        "prod_axis1", "prod_all", "prod_axes_keepdims", "nansum_axis0", "nanprod_exclude",
        "norm_default", "norm_l1_axis1", "norm_l2_axes_keepdims"})
    EXPECT_TRUE(test::CheckOpRef(stem)) << stem;
}

TEST(ReduceExt, GradientsMatchNumeric) {
  NDArray x = test::RandomArray({2, 3, 4}, DType::kFloat64, -1, 1, 31);
  NDArray away = test::RandomArray({2, 3, 4}, DType::kFloat64, 0.5, 1.5, 32);  // no zeros for prod
  const std::vector<StringMap> params = {{},
                                         {{"axis", "1"}},
                                         {{"axis", "(0, -1)"}, {"keepdims", "True"}},
                                         {{"axis", "1"}, {"exclude", "True"}}};
  for (const char* op : {"max", "min", "prod", "nansum", "nanprod"}) {
    for (const auto& p : params) {
      std::string where;
      NDArray in = std::string(op).find("prod") != std::string::npos ? away : x;
      EXPECT_LT(test::GradientError(op, {in}, p, {}, 1e-6, &where), 1e-6) << op << " " << where;
    }
  }
  for (const char* ord : {"1", "2"}) {
    for (const StringMap& p :
         std::vector<StringMap>{{}, {{"axis", "(0, 2)"}}, {{"axis", "1"}, {"keepdims", "True"}}}) {
      StringMap q = p;
      q["ord"] = ord;
      std::string where;
      EXPECT_LT(test::GradientError("norm", {x}, q, {}, 1e-6, &where), 1e-6)
          << "norm " << ord << " " << where;
    }
  }
}

TEST(ReduceExt, NaNHandling) {
  NDArray x = test::Array({2, 3}, {1, kNaN, 3, kNaN, kNaN, 2}, DType::kFloat64);
  EXPECT_EQ(test::Values(test::Run("nansum", {x}, {{"axis", "1"}})[0]),
            (std::vector<double>{4, 2}));
  EXPECT_EQ(test::Values(test::Run("nanprod", {x}, {{"axis", "1"}})[0]),
            (std::vector<double>{3, 2}));
  EXPECT_EQ(test::Values(test::Run("nanprod", {x}, {{"axis", "0"}})[0]),
            (std::vector<double>{1, 1, 6}));
  auto m = test::Values(test::Run("max", {x}, {{"axis", "1"}})[0]);
  EXPECT_TRUE(std::isnan(m[0]) && std::isnan(m[1]));
  // Gradients are 0 at NaN: nansum 1 elsewhere, nanprod out / x elsewhere.
  NDArray og = test::Array({2}, {1, 1}, DType::kFloat64);
  NDArray out = test::Run("nanprod", {x}, {{"axis", "1"}})[0];
  EXPECT_EQ(test::Values(test::Run("_backward_nansum", {og, x, out}, {{"axis", "1"}})[0]),
            (std::vector<double>{1, 0, 1, 0, 0, 1}));
  EXPECT_EQ(test::Values(test::Run("_backward_nanprod", {og, x, out}, {{"axis", "1"}})[0]),
            (std::vector<double>{3, 0, 1, 0, 0, 1}));
}

TEST(ReduceExt, TiesAllGetTheGradientAndAliases) {
  NDArray x = test::Array({2, 3}, {1, 3, 3, 2, 0, 0}, DType::kFloat64);
  NDArray mx = test::Run("max_axis", {x}, {{"axis", "1"}})[0];
  NDArray mn = test::Run("min_axis", {x}, {{"axis", "1"}})[0];
  EXPECT_EQ(test::Values(mx), (std::vector<double>{3, 2}));
  EXPECT_EQ(test::Values(mn), (std::vector<double>{1, 0}));
  NDArray og = test::Array({2}, {5, 7}, DType::kFloat64);
  EXPECT_EQ(test::Values(test::Run("_backward_max", {og, x, mx}, {{"axis", "1"}})[0]),
            (std::vector<double>{0, 5, 5, 7, 0, 0}));
  EXPECT_EQ(test::Values(test::Run("_backward_min", {og, x, mn}, {{"axis", "1"}})[0]),
            (std::vector<double>{5, 0, 0, 0, 7, 7}));
  EXPECT_EQ(test::Values(test::Run("prod", {x}, {{"axis", "0"}})[0]),
            (std::vector<double>{2, 0, 0}));
}

TEST(ReduceExt, NormOptions) {
  NDArray x = test::Array({2, 2}, {3, -4, 0, 0}, DType::kFloat32);
  auto y = test::Run("norm", {x}, {{"out_dtype", "float64"}});
  EXPECT_EQ(y[0].dtype(), DType::kFloat64);
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{5}));
  EXPECT_EQ(test::Values(test::Run("norm", {x}, {{"ord", "1"}, {"axis", "1"}})[0]),
            (std::vector<double>{7, 0}));
  // The gradient of the L2 norm at a zero row is 0, not NaN.
  NDArray out = test::Run("norm", {x}, {{"axis", "1"}})[0];
  std::vector<double> g = test::Values(
      test::Run("_backward_norm", {test::Array({2}, {1, 1}), x, out}, {{"axis", "1"}})[0]);
  const std::vector<double> want = {0.6, -0.8, 0, 0};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(g[i], want[i], 1e-7) << i;
  // Large extent: the threaded path.
  NDArray big = test::RandomArray({64, 2000}, DType::kFloat64, -1, 1, 9);
  std::vector<double> v = test::Values(big),
                      n = test::Values(test::Run("norm", {big}, {{"axis", "1"}})[0]);
  for (int r = 0; r < 64; r += 9) {
    double s = 0;
    for (int c = 0; c < 2000; ++c) s += v[r * 2000 + c] * v[r * 2000 + c];
    EXPECT_NEAR(n[r], std::sqrt(s), 1e-12 * std::sqrt(s));
  }
}

TEST(ReduceExt, ErrorPaths) {
  NDArray x = test::RandomArray({2, 3}, DType::kFloat32, 0, 1, 1);
  test::ExpectError(
      [&] {
        test::Run("norm", {x}, {{"ord", "3"}});
      },
      StatusCode::kInvalidArgument, {"norm", "'ord'", "3", "1 or 2"});
  test::ExpectError(
      [&] {
        test::Run("norm", {x}, {{"exclude", "True"}});
      },
      StatusCode::kInvalidArgument, {"norm", "exclude"});
  test::ExpectError(
      [&] {
        test::Run("max", {x}, {{"axis", "2"}});
      },
      StatusCode::kInvalidArgument, {"max", "axis 2", "ndim 2"});
  test::ExpectError(
      [&] {
        test::Run("norm", {test::Array({2}, {1, 2}, DType::kInt32)}, {});
      },
      StatusCode::kDType, {"norm", "int32"});
}

}  // namespace
}  // namespace weft
