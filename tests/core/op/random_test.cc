#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "util/test_util.h"

namespace weft {
namespace {

void MeanStd(const std::vector<double>& v, double* mean, double* sd) {
  double s = 0, s2 = 0;
  for (double x : v) s += x;
  *mean = s / v.size();
  for (double x : v) s2 += (x - *mean) * (x - *mean);
  *sd = std::sqrt(s2 / (v.size() - 1));
}

std::vector<double> Draw(const std::string& op, const StringMap& params) {
  return test::Values(test::Run(op, {}, params)[0]);
}

TEST(Random, SeedMakesDrawsReproducible) {
  for (const char* op : {"_random_uniform", "_random_normal"}) {
    for (const char* dt : {"float32", "float64"}) {
      const StringMap p = {{"shape", "(1000,)"}, {"dtype", dt}};
      Runtime::Global().Seed(42);
      std::vector<double> a = Draw(op, p), a2 = Draw(op, p);
      Runtime::Global().Seed(42);
      std::vector<double> b = Draw(op, p), b2 = Draw(op, p);
      Runtime::Global().Seed(43);
      std::vector<double> c = Draw(op, p);
      EXPECT_EQ(a, b) << op << " " << dt;
      EXPECT_EQ(a2, b2) << op << " " << dt;
      EXPECT_NE(a, a2) << op << " " << dt << ": consecutive draws repeat";
      EXPECT_NE(a, c) << op << " " << dt << ": different seeds give equal draws";
    }
  }
}

TEST(Random, UniformRangeAndMoments) {
  Runtime::Global().Seed(7);
  const double low = -2, high = 3;
  for (const char* dt : {"float32", "float64"}) {
    auto y = test::Run("uniform", {},
                       {{"low", "-2"}, {"high", "3"}, {"shape", "(100, 1000)"}, {"dtype", dt}});
    EXPECT_EQ(y[0].shape(), Shape({100, 1000}));
    EXPECT_EQ(DTypeName(y[0].dtype()), std::string(dt));
    std::vector<double> v = test::Values(y[0]);
    auto [mn, mx] = std::minmax_element(v.begin(), v.end());
    EXPECT_GE(*mn, low);
    EXPECT_LT(*mx, high);
    EXPECT_LT(*mn, low + 0.01);
    EXPECT_GT(*mx, high - 0.01);
    double mean, sd;
    MeanStd(v, &mean, &sd);
    const double want_sd = (high - low) / std::sqrt(12.0);
    // Five standard errors for 100k samples.
    EXPECT_NEAR(mean, 0.5, 5 * want_sd / std::sqrt(1e5)) << dt;
    EXPECT_NEAR(sd, want_sd, 0.01) << dt;
  }
}

TEST(Random, NormalMoments) {
  Runtime::Global().Seed(9);
  for (const char* dt : {"float32", "float64"}) {
    std::vector<double> v =
        Draw("normal", {{"loc", "1.5"}, {"scale", "2"}, {"shape", "(100000,)"}, {"dtype", dt}});
    double mean, sd;
    MeanStd(v, &mean, &sd);
    EXPECT_NEAR(mean, 1.5, 5 * 2 / std::sqrt(1e5)) << dt;
    EXPECT_NEAR(sd, 2.0, 5 * 2 / std::sqrt(2e5)) << dt;
    // About 68.3% within one standard deviation.
    double inside = 0;
    for (double x : v) inside += std::fabs(x - 1.5) < 2.0;
    EXPECT_NEAR(inside / v.size(), 0.6827, 0.01) << dt;
  }
}

TEST(Random, DefaultsAndDegenerateScale) {
  auto u = test::Run("random_uniform", {}, {{"shape", "(2, 3)"}, {"dtype", "None"}});
  EXPECT_EQ(u[0].dtype(), DType::kFloat32);
  for (double x : test::Values(u[0])) {
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
  EXPECT_EQ(Draw("random_normal", {{"shape", "(4,)"}, {"loc", "3"}, {"scale", "0"}}),
            std::vector<double>(4, 3.0));
}

TEST(Random, RejectsBadParameters) {
  test::ExpectOpError("_random_uniform", {}, {{"shape", "(2,)"}, {"low", "1"}, {"high", "1"}},
                      StatusCode::kInvalidArgument, {"_random_uniform", "'high'", "'low'"});
  test::ExpectOpError("_random_uniform", {}, {{"shape", "(2,)"}, {"low", "2"}, {"high", "-1"}},
                      StatusCode::kInvalidArgument, {"_random_uniform", "'high'"});
  test::ExpectOpError("_random_normal", {}, {{"shape", "(2,)"}, {"scale", "-1"}},
                      StatusCode::kInvalidArgument, {"_random_normal", "'scale'"});
  test::ExpectOpError("_random_normal", {}, {}, StatusCode::kInvalidArgument,
                      {"_random_normal", "'shape'"});
  test::ExpectOpError("_random_normal", {}, {{"shape", "(2,)"}, {"dtype", "int32"}},
                      StatusCode::kDType, {"_random_normal", "int32"});
}

}  // namespace
}  // namespace weft
