#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(NNLayerNormRef, MatchesPyTorch) {
  for (const char* stem :
       {"LayerNorm_last", "LayerNorm_last_3d", "LayerNorm_axis1", "LayerNorm_axis0",
        "LayerNorm_mean_var", "LayerNorm_mean_var_axis1", "LayerNorm_defaults", "GroupNorm_g1",
        "GroupNorm_g2_nchw", "GroupNorm_g3_eps", "GroupNorm_g2_mean_var", "GroupNorm_torch_gc"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

TEST(NNLayerNorm, GradientsMatchNumeric) {
  struct Case {
    const char* op;
    Shape data;
    int64_t param;
    StringMap params;
  };
  const std::vector<Case> cases = {
      {"LayerNorm", {3, 5}, 5, {}},
      {"LayerNorm", {2, 3, 4}, 3, {{"axis", "1"}, {"eps", "0.01"}}},
      {"LayerNorm", {4, 2, 3}, 4, {{"axis", "-3"}}},
      {"GroupNorm", {2, 4, 3}, 2, {{"num_groups", "2"}}},
      {"GroupNorm", {2, 3, 2, 2}, 1, {}},
  };
  for (const Case& c : cases) {
    std::string where;
    const double err =
        test::GradientError(c.op,
                            {test::RandomArray(c.data, DType::kFloat64, -2, 2, 11),
                             test::RandomArray({c.param}, DType::kFloat64, 0.5, 1.5, 12),
                             test::RandomArray({c.param}, DType::kFloat64, -1, 1, 13)},
                            c.params, {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << c.op << " " << c.data.ToString() << ": " << where;
  }
}

// Rows long and many enough for the OpenMP-parallel paths (and the chunked
// gamma/beta reduction), checked against per-row sums done here.
TEST(NNLayerNorm, LargeRowsForwardAndBackward) {
  const int64_t R = 48, C = 1024;
  NDArray x = test::RandomArray({R, C}, DType::kFloat64, -3, 3, 21);
  NDArray g = test::RandomArray({C}, DType::kFloat64, 0.5, 1.5, 22);
  NDArray b = test::RandomArray({C}, DType::kFloat64, -1, 1, 23);
  NDArray dy = test::RandomArray({R, C}, DType::kFloat64, -1, 1, 24);
  auto y = test::Run("LayerNorm", {x, g, b}, {{"output_mean_var", "True"}});
  ASSERT_EQ(y.size(), 3u);
  auto grads = test::Run("_backward_LayerNorm", {dy, x, g});
  ASSERT_EQ(grads.size(), 3u);
  const auto xv = test::Values(x), gv = test::Values(g), bv = test::Values(b),
             dv = test::Values(dy);
  const auto yv = test::Values(y[0]), mv = test::Values(y[1]), sv = test::Values(y[2]);
  const auto dgv = test::Values(grads[1]), dbv = test::Values(grads[2]);
  std::vector<double> dgamma(C, 0), dbeta(C, 0);
  for (int64_t r = 0; r < R; ++r) {
    double m = 0, v = 0;
    for (int64_t c = 0; c < C; ++c) m += xv[r * C + c] / C;
    for (int64_t c = 0; c < C; ++c) v += (xv[r * C + c] - m) * (xv[r * C + c] - m) / C;
    const double sd = std::sqrt(v + 1e-5);
    EXPECT_NEAR(mv[r], m, 1e-12);
    EXPECT_NEAR(sv[r], sd, 1e-12);
    for (int64_t c = 0; c < C; ++c) {
      const double xh = (xv[r * C + c] - m) / sd;
      EXPECT_NEAR(yv[r * C + c], xh * gv[c] + bv[c], 1e-12);
      dgamma[c] += dv[r * C + c] * xh;
      dbeta[c] += dv[r * C + c];
    }
  }
  for (int64_t c = 0; c < C; ++c) {
    EXPECT_NEAR(dgv[c], dgamma[c], 1e-10) << c;
    EXPECT_NEAR(dbv[c], dbeta[c], 1e-10) << c;
  }
}

TEST(NNLayerNorm, GroupNormLargeMatchesLayerNormOfFlatGroups) {
  // GroupNorm with gamma = 1, beta = 0 equals LayerNorm of the (N * G, M)
  // view with unit gamma and zero beta, forward and data gradient; its
  // gamma/beta gradients are per-group sums of dy * xhat and dy. The shapes
  // take GroupNorm's chunked long-row path (few rows of many elements).
  struct Case {
    int64_t N, C, S, G;
  };
  for (const Case& c : {Case{3, 8, 2048, 4}, Case{1, 4, 16384, 1}}) {
    const int64_t rows = c.N * c.G, M = c.C / c.G * c.S;
    NDArray x = test::RandomArray({c.N, c.C, c.S}, DType::kFloat64, -2, 2, 31);
    NDArray dy = test::RandomArray({c.N, c.C, c.S}, DType::kFloat64, -1, 1, 32);
    NDArray ones_g = test::Array({c.G}, std::vector<double>(c.G, 1.0), DType::kFloat64);
    NDArray zeros_g = test::Array({c.G}, std::vector<double>(c.G, 0.0), DType::kFloat64);
    const StringMap p = {{"num_groups", std::to_string(c.G)}};
    auto y = test::Run("GroupNorm", {x, ones_g, zeros_g}, p);
    auto gg = test::Run("_backward_GroupNorm", {dy, x, ones_g}, p);
    NDArray xf = test::Array({rows, M}, test::Values(x), DType::kFloat64);
    NDArray dyf = test::Array({rows, M}, test::Values(dy), DType::kFloat64);
    NDArray ones_m = test::Array({M}, std::vector<double>(M, 1.0), DType::kFloat64);
    auto z = test::Run(
        "LayerNorm", {xf, ones_m, test::Array({M}, std::vector<double>(M, 0.0), DType::kFloat64)});
    auto zg = test::Run("_backward_LayerNorm", {dyf, xf, ones_m});
    const auto yv = test::Values(y[0]), zv = test::Values(z[0]);
    const auto dxv = test::Values(gg[0]), dzv = test::Values(zg[0]), dyv = test::Values(dy);
    ASSERT_EQ(yv.size(), zv.size());
    for (size_t i = 0; i < yv.size(); ++i) {
      ASSERT_NEAR(yv[i], zv[i], 1e-12) << i;
      ASSERT_NEAR(dxv[i], dzv[i], 1e-12) << i;
    }
    std::vector<double> dgamma(c.G, 0), dbeta(c.G, 0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t m = 0; m < M; ++m) {
        dgamma[r % c.G] += dyv[r * M + m] * zv[r * M + m];
        dbeta[r % c.G] += dyv[r * M + m];
      }
    const auto dgv = test::Values(gg[1]), dbv = test::Values(gg[2]);
    for (int64_t g = 0; g < c.G; ++g) {
      EXPECT_NEAR(dgv[g], dgamma[g], 1e-9);
      EXPECT_NEAR(dbv[g], dbeta[g], 1e-9);
    }
  }
}

TEST(NNLayerNorm, AddRequestAccumulates) {
  NDArray x = test::RandomArray({2, 6}, DType::kFloat64, -1, 1, 41);
  NDArray g = test::RandomArray({6}, DType::kFloat64, 0.5, 1.5, 42);
  NDArray b = test::RandomArray({6}, DType::kFloat64, -1, 1, 43);
  auto y = test::Run("LayerNorm", {x, g, b});
  std::vector<NDArray> outs = {test::Array({2, 6}, std::vector<double>(12, 1.0), DType::kFloat64)};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "LayerNorm", {x, g, b}, {}, &outs, opts);
  const auto yv = test::Values(y[0]), av = test::Values(outs[0]);
  for (size_t i = 0; i < yv.size(); ++i) EXPECT_NEAR(av[i], yv[i] + 1, 1e-12);
}

TEST(NNLayerNorm, ShapeInference) {
  std::vector<Shape> in = {Shape({2, 3, 4}), Shape(), Shape()}, out;
  EXPECT_TRUE(
      test::InferShapes("LayerNorm", {{"axis", "1"}, {"output_mean_var", "True"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({3}));
  EXPECT_EQ(in[2], Shape({3}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], Shape({2, 3, 4}));
  EXPECT_EQ(out[1], Shape({2, 1, 4}));
  // Backward from the output: data follows.
  in = {Shape(), Shape(), Shape()};
  out = {Shape({5, 7})};
  EXPECT_TRUE(test::InferShapes("_npx_layer_norm", {}, &in, &out));
  EXPECT_EQ(in[0], Shape({5, 7}));
  EXPECT_EQ(in[1], Shape({7}));
  in = {Shape({2, 6, 3}), Shape(), Shape()};
  out.clear();
  EXPECT_TRUE(test::InferShapes("GroupNorm", {{"num_groups", "3"}, {"output_mean_var", "True"}},
                                &in, &out));
  EXPECT_EQ(in[1], Shape({3}));
  EXPECT_EQ(out[1], Shape({2, 3}));
  // Partial: unknown channel count stays unknown, not an error.
  in = {Shape({2, 0, 3}), Shape(), Shape()};
  out.clear();
  EXPECT_FALSE(test::InferShapes("GroupNorm", {{"num_groups", "3"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({3}));
}

TEST(NNLayerNorm, Rejects) {
  auto arr = [](const Shape& s) { return test::RandomArray(s, DType::kFloat32, 0, 1, 1); };
  test::ExpectError(
      [&] {
        test::Run("LayerNorm", {arr({2, 3}), arr({3}), arr({3})}, {{"axis", "2"}});
      },
      StatusCode::kInvalidArgument, {"LayerNorm", "'axis'", "(2,3)"});
  test::ExpectError(
      [&] {
        test::Run("LayerNorm", {arr({2, 3}), arr({2}), arr({3})});
      },
      StatusCode::kShape, {"LayerNorm", "'gamma'", "(3,)", "(2,)"});
  test::ExpectError(
      [&] {
        test::Run("GroupNorm", {arr({2, 3, 4}), arr({2}), arr({2})}, {{"num_groups", "2"}});
      },
      StatusCode::kShape, {"GroupNorm", "3 channels", "num_groups 2"});
  test::ExpectError(
      [&] {
        test::Run("GroupNorm", {arr({2, 4}), arr({1}), arr({1})});
      },
      StatusCode::kShape, {"GroupNorm", "rank >= 3"});
  test::ExpectError(
      [&] {
        test::Run("GroupNorm", {arr({2, 4, 2}), arr({1}), arr({1})}, {{"num_groups", "0"}});
      },
      StatusCode::kInvalidArgument, {"GroupNorm", "'num_groups'"});
}

}  // namespace
}  // namespace weft
