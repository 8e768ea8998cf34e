// Tests of core/src/train/initializer.cc: MXNet's naming rules and
// "__init__" attributes, the statistics of the random rules over large
// arrays (tolerances of 6 standard errors from the sample size), Xavier's
// fans, determinism by seed, and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/initializer.h"

namespace weft {
namespace {

using Vec = std::vector<double>;

using test::ExpectError;

NDArray Empty(const Shape& s, DType dt = DType::kFloat32) {
  return NDArray(s, Context::CPU(0), dt, &Runtime::Global());
}

struct Stats {
  double mean = 0, var = 0, lo = INFINITY, hi = -INFINITY;
  double n = 0;
};
Stats StatsOf(const Vec& v) {
  Stats s;
  s.n = static_cast<double>(v.size());
  for (double x : v) {
    s.mean += x;
    s.lo = std::min(s.lo, x);
    s.hi = std::max(s.hi, x);
  }
  s.mean /= s.n;
  for (double x : v) s.var += (x - s.mean) * (x - s.mean);
  s.var /= s.n - 1;
  return s;
}

// Uniform on [-a, a]: variance a^2/3, fourth central moment a^4/5.
void ExpectUniform(const Vec& v, double a, const std::string& what) {
  Stats s = StatsOf(v);
  // float32 rounding may land a hair beyond a.
  EXPECT_GE(s.lo, -a * (1 + 1e-7)) << what;
  EXPECT_LE(s.hi, a * (1 + 1e-7)) << what;
  EXPECT_GT(s.hi, a * (1 - 20 / s.n)) << what;  // P(all below) = (1-20/n)^n ~ e^-10 per side
  EXPECT_LT(s.lo, -a * (1 - 20 / s.n)) << what;
  const double var = a * a / 3;
  EXPECT_NEAR(s.mean, 0, 6 * std::sqrt(var / s.n)) << what;
  EXPECT_NEAR(s.var, var, 6 * std::sqrt((a * a * a * a / 5 - var * var) / s.n)) << what;
}

// Normal(0, sigma): var(sample variance) ~ 2 sigma^4 / n; P(|x| < sigma) = 0.6827.
void ExpectNormal(const Vec& v, double sigma, const std::string& what) {
  Stats s = StatsOf(v);
  EXPECT_NEAR(s.mean, 0, 6 * sigma / std::sqrt(s.n)) << what;
  EXPECT_NEAR(s.var, sigma * sigma, 6 * std::sqrt(2 / s.n) * sigma * sigma) << what;
  double inside = 0;
  for (double x : v) inside += std::fabs(x) < sigma;
  const double p = 0.682689492137;
  EXPECT_NEAR(inside / s.n, p, 6 * std::sqrt(p * (1 - p) / s.n)) << what;
}

TEST(Initializer, UniformAndNormalStatistics) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray a = Empty({200, 500}, dt);
    Initializer::Create("uniform", {{"scale", "0.5"}}, 1)->Init("fc_weight", &a);
    ExpectUniform(test::Values(a), 0.5, "uniform");
    Initializer::Create("uniform", {}, 2)->Init("fc_weight", &a);
    ExpectUniform(test::Values(a), 0.07, "uniform default scale");
    Initializer::Create("normal", {{"sigma", "2"}}, 3)->Init("fc_weight", &a);
    ExpectNormal(test::Values(a), 2.0, "normal");
    Initializer::Create("Normal", {}, 4)->Init("fc_weight", &a);
    ExpectNormal(test::Values(a), 0.01, "normal default sigma");
  }
}

TEST(Initializer, XavierScaleFromFans) {
  // (64, 32, 3, 3): fan_in = 32*9 = 288, fan_out = 64*9 = 576.
  const Shape shape({64, 32, 3, 3});
  NDArray a = Empty(shape);
  Initializer::Create("xavier", {}, 5)->Init("conv_weight", &a);
  ExpectUniform(test::Values(a), std::sqrt(3.0 / 432.0), "xavier default (uniform, avg, 3)");
  Initializer::Create("Xavier", {{"factor_type", "in"}, {"magnitude", "2"}}, 6)
      ->Init("conv_weight", &a);
  ExpectUniform(test::Values(a), std::sqrt(2.0 / 288.0), "xavier in");
  Initializer::Create("xavier",
                      {{"rnd_type", "gaussian"}, {"factor_type", "out"}, {"magnitude", "2.34"}}, 7)
      ->Init("conv_weight", &a);
  ExpectNormal(test::Values(a), std::sqrt(2.34 / 576.0), "xavier gaussian out");
  // 2-D: fan_in = shape[1], fan_out = shape[0].
  NDArray fc = Empty({300, 700});
  Initializer::Create("xavier", {{"factor_type", "\"avg\""}}, 8)->Init("fc_weight", &fc);
  ExpectUniform(test::Values(fc), std::sqrt(3.0 / 500.0), "xavier 2-D");
}

TEST(Initializer, NamingRules) {
  auto init = Initializer::Create("constant", {{"value", "0.5"}});
  struct Case {
    const char* name;
    double want;
  };
  for (Case c : {Case{"fc_bias", 0},
                 {"bn_beta", 0},
                 {"bn_moving_mean", 0},
                 {"bn_running_mean", 0},
                 {"q_min", 0},
                 {"bn_gamma", 1},
                 {"bn_moving_var", 1},
                 {"bn_running_var", 1},
                 {"bn_moving_inv_var", 1},
                 {"q_max", 1},
                 {"fc_weight", 0.5},
                 {"data", 0.5},
                 {"bias", 0},
                 {"gamma_weight", 0.5},
                 {"fcbias", 0}}) {
    NDArray a = Empty({3});
    init->Init(c.name, &a);
    EXPECT_EQ(test::Values(a), Vec(3, c.want)) << c.name;
  }
}

TEST(Initializer, InitAttributeOverridesTheRule) {
  auto init = Initializer::Create("zero");
  NDArray a = Empty({2, 3});
  init->Init("fc_bias", &a, {{"__init__", "[\"constant\", {\"value\": 0.25}]"}});
  EXPECT_EQ(test::Values(a), Vec(6, 0.25));
  init->Init("fc_weight", &a, {{"__init__", "one"}});
  EXPECT_EQ(test::Values(a), Vec(6, 1.0));
  init->Init("fc_gamma", &a, {{"__init__", "[\"zero\", {}]"}});
  EXPECT_EQ(test::Values(a), Vec(6, 0.0));
  init->Init("fc_weight", &a, {{"__init__", "\"ones\""}});
  EXPECT_EQ(test::Values(a), Vec(6, 1.0));
  NDArray big = Empty({400, 600});
  init->Init("w", &big,
             {{"__init__", "[\"xavier\", {\"rnd_type\": \"gaussian\", \"magnitude\": 2}]"}});
  ExpectNormal(test::Values(big), std::sqrt(2.0 / 500.0), "xavier from __init__");
  // Other attributes are ignored.
  init->Init("fc_weight", &a, {{"__lr_mult__", "2"}});
  EXPECT_EQ(test::Values(a), Vec(6, 0.0));
}

TEST(Initializer, SameSeedSameBits) {
  for (const char* name : {"uniform", "normal", "xavier"}) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      auto run = [&](uint64_t seed) {
        auto init = Initializer::Create(name, {}, seed);
        std::vector<NDArray> arrs{Empty({17, 5}, dt), Empty({4, 3, 2, 2}, dt)};
        init->Init("a_weight", &arrs[0]);
        init->Init("b_weight", &arrs[1], {{"__init__", "[\"normal\", {\"sigma\": 1}]"}});
        std::vector<char> bytes;
        for (auto& a : arrs) {
          std::vector<char> b(a.Bytes());
          a.CopyToHost(b.data(), b.size());
          bytes.insert(bytes.end(), b.begin(), b.end());
        }
        return bytes;
      };
      EXPECT_EQ(run(42), run(42)) << name;
      EXPECT_NE(run(42), run(43)) << name;
    }
  }
  // Successive calls draw fresh numbers.
  auto init = Initializer::Create("uniform", {}, 9);
  NDArray a = Empty({8}), b = Empty({8});
  init->Init("a_weight", &a);
  init->Init("b_weight", &b);
  EXPECT_NE(test::Values(a), test::Values(b));
}

TEST(Initializer, Errors) {
  ExpectError([] { Initializer::Create("kaiming"); }, StatusCode::kInvalidArgument,
              {"kaiming", "xavier"});
  ExpectError(
      [] {
        Initializer::Create("uniform", {{"sigma", "1"}});
      },
      StatusCode::kInvalidArgument, {"sigma", "scale"});
  ExpectError(
      [] {
        Initializer::Create("uniform", {{"scale", "-1"}});
      },
      StatusCode::kInvalidArgument, {"scale"});
  ExpectError(
      [] {
        Initializer::Create("xavier", {{"rnd_type", "cauchy"}});
      },
      StatusCode::kInvalidArgument, {"rnd_type", "cauchy", "gaussian"});
  ExpectError(
      [] {
        Initializer::Create("xavier", {{"magnitude", "0"}});
      },
      StatusCode::kInvalidArgument, {"magnitude"});
  ExpectError([] { Initializer::Create("constant"); }, StatusCode::kInvalidArgument,
              {"value", "missing"});
  ExpectError(
      [] {
        Initializer::Create("zero", {{"value", "1"}});
      },
      StatusCode::kInvalidArgument, {"value"});
  auto init = Initializer::Create("xavier");
  NDArray v = Empty({5});
  ExpectError([&] { init->Init("fc_weight", &v); }, StatusCode::kShape,
              {"fc_weight", "(5,)", "2 dimensions"});
  ExpectError([&] { init->Init("fc_weight", nullptr); }, StatusCode::kInvalidArgument,
              {"fc_weight"});
  NDArray none;
  ExpectError([&] { init->Init("fc_weight", &none); }, StatusCode::kInvalidArgument, {"fc_weight"});
  NDArray i = Empty({2, 2}, DType::kInt32);
  ExpectError([&] { init->Init("fc_weight", &i); }, StatusCode::kDType, {"fc_weight", "int32"});
  NDArray a = Empty({2, 2});
  for (const char* bad : {"[\"nope\", {}]", "[1, 2]", "{\"a\": 1}", "[\"constant\"]",
                          "[\"uniform\", 3]", "[\"uniform\", {\"scale\": \"big\"}]"})
    ExpectError(
        [&] {
          init->Init("fc_weight", &a, {{"__init__", bad}});
        },
        StatusCode::kInvalidArgument, {"fc_weight", "__init__"});
}

}  // namespace
}  // namespace weft
