// _random_exponential, _random_gamma, _random_poisson, _random_randint,
// _sample_multinomial, _shuffle: seeding, ranges and moments. Tolerances
// are five standard errors for the sample size, from the distribution's
// true second and fourth central moments, so a wrong distribution fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

std::vector<double> Draw(const std::string& op, const StringMap& p,
                         const std::vector<NDArray>& in = {}) {
  return test::Values(test::Run(op, in, p)[0]);
}

// Checks the sample mean and variance of `v` against `mean` and `var`,
// with `mu4` the true fourth central moment.
void ExpectMoments(const std::vector<double>& v, double mean, double var, double mu4,
                   const std::string& what) {
  const double n = static_cast<double>(v.size());
  double s = 0, s2 = 0;
  for (double x : v) s += x;
  const double m = s / n;
  for (double x : v) s2 += (x - m) * (x - m);
  const double sv = s2 / (n - 1);
  EXPECT_NEAR(m, mean, 5 * std::sqrt(var / n)) << what << " mean";
  EXPECT_NEAR(sv, var, 5 * std::sqrt((mu4 - var * var) / n)) << what << " variance";
}

TEST(RandomExt, SeedMakesDrawsReproducible) {
  NDArray probs = test::Array({2, 3}, {0.2, 0.3, 0.5, 0.6, 0.2, 0.2});
  NDArray rows = test::RandomArray({50, 2}, DType::kFloat32, 0, 1, 3);
  const std::vector<std::tuple<std::string, StringMap, std::vector<NDArray>>> cases = {
      {"_random_exponential", {{"shape", "(500,)"}}, {}},
      {"random_gamma", {{"shape", "(500,)"}, {"alpha", "2"}}, {}},
      {"_random_poisson", {{"shape", "(500,)"}, {"lam", "4"}}, {}},
      {"random_randint", {{"shape", "(500,)"}, {"low", "-5"}, {"high", "100"}}, {}},
      {"sample_multinomial", {{"shape", "(200,)"}}, {probs}},
      {"shuffle", {}, {rows}},
  };
  for (const auto& [op, p, in] : cases) {
    Runtime::Global().Seed(42);
    std::vector<double> a = Draw(op, p, in), a2 = Draw(op, p, in);
    Runtime::Global().Seed(42);
    std::vector<double> b = Draw(op, p, in);
    Runtime::Global().Seed(43);
    std::vector<double> c = Draw(op, p, in);
    EXPECT_EQ(a, b) << op;
    EXPECT_NE(a, a2) << op << ": consecutive draws repeat";
    EXPECT_NE(a, c) << op << ": different seeds give equal draws";
  }
}

TEST(RandomExt, ExponentialGammaPoissonMoments) {
  Runtime::Global().Seed(11);
  const StringMap n = {{"shape", "(200000,)"}};
  for (const char* dt : {"float32", "float64"}) {
    StringMap p = n;
    p["dtype"] = dt;
    p["lam"] = "2.5";
    auto e = test::Run("random_exponential", {}, p)[0];
    EXPECT_EQ(DTypeName(e.dtype()), std::string(dt));
    std::vector<double> v = test::Values(e);
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
    const double l = 2.5;
    ExpectMoments(v, 1 / l, 1 / (l * l), 9 / std::pow(l, 4), StrCat("exponential ", dt));

    StringMap g = n;
    g["dtype"] = dt;
    g["alpha"] = "3";
    g["beta"] = "0.5";
    v = Draw("_random_gamma", g);
    EXPECT_GT(*std::min_element(v.begin(), v.end()), 0.0);
    const double a = 3, b = 0.5, var = a * b * b;
    ExpectMoments(v, a * b, var, var * var * (3 + 6 / a), StrCat("gamma ", dt));

    StringMap q = n;
    q["dtype"] = dt;
    q["lam"] = "4";
    v = Draw("_random_poisson", q);
    for (double x : v) ASSERT_EQ(x, std::floor(x));
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
    ExpectMoments(v, 4, 4, 4 * (1 + 3 * 4), StrCat("poisson ", dt));
  }
  EXPECT_EQ(Draw("_random_poisson", {{"shape", "(3,)"}, {"lam", "0"}}),
            std::vector<double>(3, 0.0));
}

TEST(RandomExt, RandIntRangeAndMoments) {
  Runtime::Global().Seed(5);
  auto y =
      test::Run("_random_randint", {}, {{"shape", "(100000,)"}, {"low", "-3"}, {"high", "7"}})[0];
  EXPECT_EQ(y.dtype(), DType::kInt32);
  std::vector<double> v = test::Values(y);
  std::set<double> seen(v.begin(), v.end());
  EXPECT_EQ(seen, (std::set<double>{-3, -2, -1, 0, 1, 2, 3, 4, 5, 6}));
  // Discrete uniform on m = 10 values.
  const double m = 10, var = (m * m - 1) / 12;
  ExpectMoments(v, 1.5, var, (m * m - 1) * (3 * m * m - 7) / 240, "randint");
  auto y64 = test::Run("_random_randint", {},
                       {{"shape", "(4,)"}, {"low", "0"}, {"high", "3"}, {"dtype", "int64"}});
  EXPECT_EQ(y64[0].dtype(), DType::kInt64);
}

TEST(RandomExt, MultinomialFrequenciesAndLogProb) {
  Runtime::Global().Seed(3);
  const std::vector<double> p = {0.1, 0.2, 0.0, 0.7, 0.25, 0.25, 0.25, 0.25};
  NDArray probs = test::Array({2, 4}, p, DType::kFloat64);
  auto y = test::Run("_sample_multinomial", {probs}, {{"shape", "(20000,)"}, {"get_prob", "True"}});
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[0].shape(), Shape({2, 20000}));
  EXPECT_EQ(y[0].dtype(), DType::kInt32);
  EXPECT_EQ(y[1].dtype(), DType::kFloat64);
  std::vector<double> s = test::Values(y[0]), lp = test::Values(y[1]);
  for (int d = 0; d < 2; ++d) {
    std::vector<double> count(4, 0);
    for (int i = 0; i < 20000; ++i) {
      const int c = static_cast<int>(s[d * 20000 + i]);
      ASSERT_TRUE(c >= 0 && c < 4);
      ++count[c];
      ASSERT_DOUBLE_EQ(lp[d * 20000 + i], std::log(p[d * 4 + c]));
    }
    for (int c = 0; c < 4; ++c) {
      const double q = p[d * 4 + c];
      EXPECT_NEAR(count[c] / 20000, q, 5 * std::sqrt(q * (1 - q) / 20000) + 1e-12) << d << " " << c;
    }
  }
  // 1-D data with the default shape draws once: output (1,).
  EXPECT_EQ(test::Run("_sample_multinomial", {test::Array({3}, {0, 1, 0})}, {})[0].shape(),
            Shape({1}));
  EXPECT_EQ(Draw("_sample_multinomial", {{"shape", "(2, 2)"}}, {test::Array({3}, {0, 0, 1})}),
            std::vector<double>(4, 2.0));
}

// With get_prob, the gradient w.r.t. the probabilities is sum over draws of
// ograd / p[drawn]; the symbolic gradient sees the forward's own samples.
TEST(RandomExt, MultinomialLogProbGradient) {
  Runtime::Global().Seed(4);
  const OpRegistry& reg = Runtime::Global().ops();
  NodePtr data = MakeVariable("data");
  NodePtr node = MakeOpNode(reg, "_sample_multinomial", "m", {{data, 0, 0}},
                            {{"shape", "(5,)"}, {"get_prob", "True"}});
  NodePtr og0 = MakeVariable("og0"), og1 = MakeVariable("og1");
  std::vector<NodeEntry> grads = node->op()->gradient(reg, node, {{og0, 0, 0}, {og1, 0, 0}});
  ASSERT_EQ(grads.size(), 1u);
  NDArray p = test::Array({2, 3}, {0.5, 0.25, 0.25, 0.1, 0.6, 0.3}, DType::kFloat64);
  NDArray g = test::Array({2, 5}, {1, 2, 3, 4, 5, -1, -2, -3, -4, -5}, DType::kFloat64);
  NDArray sample = test::Array({2, 5}, {0, 2, 2, 1, 0, 1, 1, 2, 0, 1}, DType::kInt32);
  auto dx = test::Run("_backward_sample_multinomial", {g, p, sample},
                      {{"shape", "(5,)"}, {"get_prob", "True"}});
  std::vector<double> want = {(1 + 5) / 0.5, 4 / 0.25,           (2 + 3) / 0.25,
                              -4 / 0.1,      (-1 - 2 - 5) / 0.6, -3 / 0.3};
  std::vector<double> got = test::Values(dx[0]);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
  // The graph gradient runs the same op on the node's sample output.
  EXPECT_EQ(grads[0].node->op()->name, "_backward_sample_multinomial");
  EXPECT_EQ(grads[0].node->inputs[2].node, node);
}

TEST(RandomExt, ShufflePermutesRows) {
  Runtime::Global().Seed(8);
  std::vector<double> vals(200);
  for (int i = 0; i < 200; ++i) vals[i] = i;
  for (DType dt : {DType::kFloat32, DType::kInt32}) {
    NDArray x = test::Array({100, 2}, vals, dt);
    auto y = test::Run("_shuffle", {x}, {})[0];
    EXPECT_EQ(y.dtype(), dt);
    std::vector<double> v = test::Values(y);
    std::set<double> firsts;
    int moved = 0;
    for (int r = 0; r < 100; ++r) {
      EXPECT_EQ(v[2 * r + 1], v[2 * r] + 1);  // rows stay intact
      EXPECT_EQ(static_cast<int>(v[2 * r]) % 2, 0);
      firsts.insert(v[2 * r]);
      moved += v[2 * r] != 2 * r;
    }
    EXPECT_EQ(firsts.size(), 100u);  // a permutation
    EXPECT_GT(moved, 80);            // about 99 of 100 rows move
  }
}

TEST(RandomExt, ErrorPaths) {
  test::ExpectError(
      [] {
        test::Run("_random_exponential", {}, {{"shape", "(2,)"}, {"lam", "0"}});
      },
      StatusCode::kInvalidArgument, {"_random_exponential", "'lam'"});
  test::ExpectError(
      [] {
        test::Run("_random_gamma", {}, {{"shape", "(2,)"}, {"beta", "-1"}});
      },
      StatusCode::kInvalidArgument, {"_random_gamma", "'beta'"});
  test::ExpectError(
      [] {
        test::Run("_random_poisson", {}, {{"shape", "(2,)"}, {"lam", "-1"}});
      },
      StatusCode::kInvalidArgument, {"_random_poisson", "'lam'"});
  test::ExpectError(
      [] {
        test::Run("_random_randint", {}, {{"shape", "(2,)"}, {"low", "3"}, {"high", "3"}});
      },
      StatusCode::kInvalidArgument, {"_random_randint", "'high'", "'low'"});
  test::ExpectError(
      [] {
        test::Run("_random_randint", {}, {{"shape", "(2,)"}, {"low", "0"}});
      },
      StatusCode::kInvalidArgument, {"_random_randint", "high"});
  test::ExpectError(
      [] {
        test::Run("_random_randint", {},
                  {{"shape", "(2,)"}, {"low", "0"}, {"high", "3"}, {"dtype", "float32"}});
      },
      StatusCode::kDType, {"_random_randint", "float32"});
  test::ExpectError(
      [] {
        test::Run("_random_gamma", {}, {{"shape", "(2,)"}, {"dtype", "int32"}});
      },
      StatusCode::kDType, {"_random_gamma", "int32"});
}

}  // namespace
}  // namespace weft
