#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"
#include "weft/runtime.h"

namespace weft {
namespace {

struct BNInputs {
  NDArray x, gamma, beta, mmean, mvar;
  std::vector<NDArray> All() const { return {x, gamma, beta, mmean, mvar}; }
};

BNInputs MakeInputs(const Shape& shape, int axis, DType dt, unsigned seed) {
  const int64_t c = shape[axis < 0 ? axis + shape.ndim() : axis];
  return {test::RandomArray(shape, dt, -2, 2, seed), test::RandomArray({c}, dt, 0.5, 1.5, seed + 1),
          test::RandomArray({c}, dt, -1, 1, seed + 2),
          test::RandomArray({c}, dt, -0.5, 0.5, seed + 3),
          test::RandomArray({c}, dt, 0.5, 1.5, seed + 4)};
}

NDArray Copy(const NDArray& a) { return test::Array(a.shape(), test::Values(a), a.dtype()); }

std::vector<NDArray> RunBN(const std::vector<NDArray>& in, const StringMap& p, bool train) {
  std::vector<NDArray> out;
  InvokeOptions opts;
  opts.is_train = train;
  Invoke(&Runtime::Global(), "BatchNorm", in, p, &out, opts);
  return out;
}

// Per-channel (outer, C, inner) view of a contiguous shape around `axis`.
struct View {
  int64_t outer, c, inner;
};
View ViewOf(const Shape& s, int axis) {
  const int a = axis < 0 ? axis + s.ndim() : axis;
  return {s.ProdRange(0, a), s[a], s.ProdRange(a + 1, s.ndim())};
}

TEST(NNNorm, TrainingUsesBatchStatsAndUpdatesMovingAverages) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    for (int axis : {1, -1}) {
      const Shape shape({3, 4, 5});
      BNInputs b = MakeInputs(shape, axis, dt, 20);
      const std::vector<double> mm0 = test::Values(b.mmean), mv0 = test::Values(b.mvar);
      const std::vector<double> x = test::Values(b.x), g = test::Values(b.gamma),
                                be = test::Values(b.beta);
      StringMap p = {{"fix_gamma", "False"},
                     {"momentum", "0.8"},
                     {"eps", "1e-4"},
                     {"axis", std::to_string(axis)},
                     {"output_mean_var", "True"}};
      auto out = RunBN(b.All(), p, true);
      ASSERT_EQ(out.size(), 3u);
      const View v = ViewOf(shape, axis);
      std::vector<double> y = test::Values(out[0]);
      const std::vector<double> mm = test::Values(b.mmean), mv = test::Values(b.mvar);
      const std::vector<double> om = test::Values(out[1]), ov = test::Values(out[2]);
      const double tol = dt == DType::kFloat32 ? 1e-5 : 1e-12;
      for (int64_t c = 0; c < v.c; ++c) {
        double s = 0, s2 = 0;
        const double n = static_cast<double>(v.outer * v.inner);
        for (int64_t o = 0; o < v.outer; ++o)
          for (int64_t i = 0; i < v.inner; ++i) s += x[(o * v.c + c) * v.inner + i];
        const double mean = s / n;
        for (int64_t o = 0; o < v.outer; ++o)
          for (int64_t i = 0; i < v.inner; ++i) {
            const double d = x[(o * v.c + c) * v.inner + i] - mean;
            s2 += d * d;
          }
        const double var = s2 / n;  // biased, as MXNet
        EXPECT_NEAR(om[c], mean, tol);
        EXPECT_NEAR(ov[c], var, tol);
        EXPECT_NEAR(mm[c], 0.8 * mm0[c] + 0.2 * mean, tol) << "moving_mean channel " << c;
        EXPECT_NEAR(mv[c], 0.8 * mv0[c] + 0.2 * var, tol) << "moving_var channel " << c;
        for (int64_t o = 0; o < v.outer; ++o)
          for (int64_t i = 0; i < v.inner; ++i) {
            const int64_t k = (o * v.c + c) * v.inner + i;
            const double want = (x[k] - mean) / std::sqrt(var + 1e-4) * g[c] + be[c];
            ASSERT_NEAR(y[k], want, 10 * tol) << "axis " << axis << " element " << k;
          }
      }
    }
  }
}

TEST(NNNorm, InferenceUsesMovingStatsAndFixGammaByDefault) {
  BNInputs b = MakeInputs({2, 3, 2}, 1, DType::kFloat64, 30);
  const std::vector<double> mm0 = test::Values(b.mmean), mv0 = test::Values(b.mvar);
  auto out = RunBN(b.All(), {}, false);
  ASSERT_EQ(out.size(), 1u);
  const std::vector<double> x = test::Values(b.x), be = test::Values(b.beta),
                            y = test::Values(out[0]);
  for (size_t k = 0; k < x.size(); ++k) {
    const size_t c = (k / 2) % 3;
    // fix_gamma defaults to True (gamma ignored), eps to 1e-3.
    EXPECT_NEAR(y[k], (x[k] - mm0[c]) / std::sqrt(mv0[c] + 1e-3) + be[c], 1e-12);
  }
  EXPECT_EQ(test::Values(b.mmean), mm0);
  EXPECT_EQ(test::Values(b.mvar), mv0);

  // use_global_stats in training: moving stats used, not updated.
  out = RunBN(b.All(), {{"use_global_stats", "True"}}, true);
  EXPECT_EQ(test::Values(out[0]), y);
  EXPECT_EQ(test::Values(b.mmean), mm0);
}

TEST(NNNorm, InferenceGradientMatchesNumeric) {
  for (const char* fix : {"False", "True"}) {
    BNInputs b = MakeInputs({2, 3, 3, 2}, 1, DType::kFloat64, 40);
    std::string where;
    const double err = test::GradientError(
        "BatchNorm", b.All(), {{"fix_gamma", fix}, {"eps", "0.01"}}, {0, 1, 2}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << "fix_gamma " << fix << ": " << where;
  }
}

// Numeric check of _backward_BatchNorm in training mode (batch statistics).
double TrainGradientError(const BNInputs& b, const StringMap& p, std::string* where) {
  NDArray w = test::RandomArray(b.x.shape(), DType::kFloat64, -1, 1, 99);
  auto objective = [&](const std::vector<NDArray>& in) {
    std::vector<NDArray> fresh;
    for (const auto& a : in) fresh.push_back(Copy(a));  // moving stats are mutated
    const std::vector<double> y = test::Values(RunBN(fresh, p, true)[0]), wv = test::Values(w);
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) s += y[i] * wv[i];
    return s;
  };
  std::vector<NDArray> grads;
  InvokeOptions opts;
  opts.is_train = true;
  Invoke(&Runtime::Global(), "_backward_BatchNorm", {w, b.x, b.gamma, b.mmean, b.mvar}, p, &grads,
         opts);
  const std::vector<NDArray> inputs = b.All();
  double worst = 0;
  const double eps = 1e-6;
  for (int i = 0; i < 3; ++i) {
    const std::vector<double> sym = test::Values(grads[i]), base = test::Values(inputs[i]);
    for (size_t k = 0; k < base.size(); ++k) {
      std::vector<NDArray> in = inputs;
      std::vector<double> plus = base, minus = base;
      plus[k] += eps;
      minus[k] -= eps;
      in[i] = test::Array(inputs[i].shape(), plus, DType::kFloat64);
      const double fp = objective(in);
      in[i] = test::Array(inputs[i].shape(), minus, DType::kFloat64);
      const double num = (fp - objective(in)) / (2 * eps);
      const double err = std::fabs(num - sym[k]) / std::max(1.0, std::fabs(num));
      if (err > worst) {
        worst = err;
        *where = StrCat("input ", i, " element ", k, ": numeric ", num, " symbolic ", sym[k]);
      }
    }
  }
  return worst;
}

TEST(NNNorm, TrainingGradientMatchesNumeric) {
  for (int axis : {1, -1}) {
    for (const char* fix : {"False", "True"}) {
      BNInputs b = MakeInputs({3, 2, 4}, axis, DType::kFloat64, 50);
      std::string where;
      const double err = TrainGradientError(
          b, {{"fix_gamma", fix}, {"axis", std::to_string(axis)}, {"eps", "1e-3"}}, &where);
      EXPECT_LT(err, 1e-6) << "axis " << axis << " fix_gamma " << fix << ": " << where;
    }
  }
}

TEST(NNNorm, GradientGivesZerosForAuxStates) {
  const OpRegistry& reg = Runtime::Global().ops();
  std::vector<NodeEntry> in;
  for (int i = 0; i < 5; ++i) in.push_back({MakeVariable("v" + std::to_string(i)), 0, 0});
  NodePtr n = MakeOpNode(reg, "BatchNorm", "bn", in, {});
  auto g = n->op()->gradient(reg, n, {{MakeVariable("og"), 0, 0}});
  ASSERT_EQ(g.size(), 5u);
  EXPECT_EQ(g[0].node->op()->name, "_backward_BatchNorm");
  EXPECT_EQ(g[3].node->op()->name, "zeros_like");
  EXPECT_EQ(g[4].node->op()->name, "zeros_like");
  EXPECT_EQ(n->op()->mutate_inputs(n->attrs.params), (std::vector<int>{3, 4}));
}

TEST(NNNorm, Rejects) {
  BNInputs b = MakeInputs({2, 3, 2}, 1, DType::kFloat32, 60);
  auto expect_error = [](const std::vector<NDArray>& in, const StringMap& p, StatusCode code,
                         const std::string& needle) {
    try {
      RunBN(in, p, false);
      FAIL() << "expected an error mentioning " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("BatchNorm"), std::string::npos) << e.what();
    }
  };
  expect_error(b.All(), {{"axis", "3"}}, StatusCode::kInvalidArgument, "'axis'");
  expect_error({b.x, test::RandomArray({2}, DType::kFloat32, 0, 1, 1), b.beta, b.mmean, b.mvar}, {},
               StatusCode::kShape, "'gamma'");
  expect_error({b.x, b.gamma, b.beta, b.mmean, test::RandomArray({4}, DType::kFloat32, 0, 1, 1)},
               {}, StatusCode::kShape, "'moving_var'");
  expect_error(b.All(), {{"fix_gamma", "maybe"}}, StatusCode::kInvalidArgument, "fix_gamma");
}

TEST(NNNormRef, MatchesPyTorch) {
  for (const char* stem :
       {"BatchNorm_train", "BatchNorm_train_fix_gamma", "BatchNorm_train_axis_last",
        "BatchNorm_train_mean_var", "BatchNorm_train_global_stats", "BatchNorm_infer",
        "BatchNorm_infer_fix_gamma_mean_var"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

}  // namespace
}  // namespace weft
