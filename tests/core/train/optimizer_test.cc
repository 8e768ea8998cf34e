// Tests of core/src/train/optimizer.cc and lr_scheduler.cc: SGD (with and
// without momentum) and Adam steps against MXNet's formulas recomputed here
// in double, per-index update counts, schedulers against a transcription of
// MXNet's stateful algorithm, lr/wd multipliers, and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/optimizer.h"
#include "weft/symbol.h"

namespace weft {
namespace {

using Vec = std::vector<double>;

double F(double v) { return static_cast<double>(static_cast<float>(v)); }
double ClipRef(double x, double c) { return c > 0 ? std::min(std::max(x, -c), c) : x; }

void ExpectNear(const Vec& got, const Vec& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i])))
        << what << " element " << i;
}

using test::ExpectError;

const Vec kW0 = {0.5, -1.25, 2.0, 0.0};
const std::vector<Vec> kGrads = {
    {0.4, -3.0, 1.0, -5.0}, {-1.2, 0.6, 0.2, 2.4}, {0.05, 4.0, -0.9, 0.0}};

TEST(Optimizer, SGDMomentumStepsMatchMXNet) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    auto opt = Optimizer::Create("SGD", {{"learning_rate", "0.1"},
                                         {"momentum", "0.9"},
                                         {"wd", "0.01"},
                                         {"rescale_grad", "0.5"},
                                         {"clip_gradient", "1.0"}});
    NDArray w = test::Array({4}, kW0, dt);
    Vec rw = kW0, rm(4, 0.0);
    for (const Vec& g : kGrads) {
      opt->Update(3, "fc1_weight", &w, test::Array({4}, g, dt));
      for (size_t i = 0; i < 4; ++i) {
        rm[i] = F(0.9) * rm[i] - F(0.1) * F(0.01) * rw[i] - F(0.1) * ClipRef(F(0.5) * g[i], 1.0);
        rw[i] += rm[i];
      }
    }
    const double tol = dt == DType::kFloat64 ? 1e-12 : 1e-6;
    ExpectNear(test::Values(w), rw, tol, "weight");
    ASSERT_EQ(opt->states(3).size(), 1u);
    ExpectNear(test::Values(opt->states(3)[0]), rm, tol, "momentum");
    EXPECT_EQ(opt->num_update(), 3);
    EXPECT_EQ(opt->update_count(3), 3);
  }
}

TEST(Optimizer, SGDWithoutMomentumHasNoStateAndBiasGetsNoWd) {
  auto opt = Optimizer::Create("sgd", {{"learning_rate", "0.5"}, {"wd", "0.1"}});
  NDArray w = test::Array({4}, kW0, DType::kFloat64), b = test::Array({4}, kW0, DType::kFloat64);
  Vec rw = kW0, rb = kW0;
  for (const Vec& g : kGrads) {
    opt->Update(0, "fc_weight", &w, test::Array({4}, g, DType::kFloat64));
    opt->Update(1, "fc_bias", &b, test::Array({4}, g, DType::kFloat64));
    for (size_t i = 0; i < 4; ++i) {
      rw[i] = (1 - F(0.5) * F(0.1)) * rw[i] - F(0.5) * g[i];
      rb[i] = rb[i] - F(0.5) * g[i];  // MXNet's default wd_mult is 0 for biases
    }
  }
  EXPECT_TRUE(opt->states(0).empty());
  ExpectNear(test::Values(w), rw, 1e-12, "weight");
  ExpectNear(test::Values(b), rb, 1e-12, "bias");
  EXPECT_EQ(opt->num_update(), 3);
}

TEST(Optimizer, AdamStepsWithBiasCorrectionPerIndex) {
  const double lr = 0.01, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.001;
  auto opt = Optimizer::Create("adam",
                               {{"learning_rate", "0.01"}, {"wd", "0.001"}, {"rescale_grad", "2"}});
  NDArray a = test::Array({4}, kW0, DType::kFloat64), c = test::Array({4}, kW0, DType::kFloat64);
  struct Ref {
    Vec w = kW0, m = Vec(4, 0.0), v = Vec(4, 0.0);
    int t = 0;
  } ra, rc;
  auto step = [&](Ref* r, const Vec& g) {
    r->t += 1;
    const double lr_t = F(F(lr) * std::sqrt(1 - std::pow(b2, r->t)) / (1 - std::pow(b1, r->t)));
    for (size_t i = 0; i < 4; ++i) {
      const double gi = F(2.0) * g[i] + F(wd) * r->w[i];
      r->m[i] = F(b1) * r->m[i] + (1 - F(b1)) * gi;
      r->v[i] = F(b2) * r->v[i] + (1 - F(b2)) * gi * gi;
      r->w[i] -= lr_t * r->m[i] / (std::sqrt(r->v[i]) + F(eps));
    }
  };
  // Index 0 is updated three times, index 7 once in between: its t is 1.
  opt->Update(0, "a_weight", &a, test::Array({4}, kGrads[0], DType::kFloat64));
  step(&ra, kGrads[0]);
  opt->Update(0, "a_weight", &a, test::Array({4}, kGrads[1], DType::kFloat64));
  step(&ra, kGrads[1]);
  opt->Update(7, "c_weight", &c, test::Array({4}, kGrads[2], DType::kFloat64));
  step(&rc, kGrads[2]);
  opt->Update(0, "a_weight", &a, test::Array({4}, kGrads[2], DType::kFloat64));
  step(&ra, kGrads[2]);
  ExpectNear(test::Values(a), ra.w, 1e-9, "a");
  ExpectNear(test::Values(c), rc.w, 1e-9, "c");
  ExpectNear(test::Values(opt->states(0)[0]), ra.m, 1e-12, "a mean");
  ExpectNear(test::Values(opt->states(0)[1]), ra.v, 1e-12, "a var");
  EXPECT_EQ(opt->num_update(), 3);
  EXPECT_EQ(opt->update_count(0), 3);
  EXPECT_EQ(opt->update_count(7), 1);
  EXPECT_EQ(opt->update_count(9), 0);
}

// MXNet's FactorScheduler.__call__, transcribed (stateful, called in order).
struct MXFactor {
  double base, factor, stop;
  int64_t step, count = 0;
  double operator()(int64_t n) {
    while (n > count + step) {
      count += step;
      base *= factor;
      if (base < stop) base = stop;
    }
    return base;
  }
};

TEST(LRScheduler, FactorMatchesMXNetsAlgorithm) {
  for (auto [step, factor, stop] : std::vector<std::tuple<int64_t, float, float>>{
           {2, 0.5f, 1e-8f}, {1, 0.1f, 0.005f}, {3, 0.9f, 1e-8f}, {5, 1.0f, 1e-8f}}) {
    auto s = FactorScheduler(step, factor, 1.0f, stop);
    MXFactor ref{1.0, factor, stop, step};
    for (int64_t n = 0; n < 40; ++n)
      EXPECT_FLOAT_EQ(s->LR(n), static_cast<float>(ref(n))) << "step " << step << " n " << n;
  }
  auto s = FactorScheduler(2, 0.5f, 0.8f);
  EXPECT_FLOAT_EQ(s->LR(1), 0.8f);
  EXPECT_FLOAT_EQ(s->LR(2), 0.8f);
  EXPECT_FLOAT_EQ(s->LR(3), 0.4f);
  EXPECT_FLOAT_EQ(s->LR(5), 0.2f);
  // Clamped at stop_factor_lr, also far out (the pow path).
  EXPECT_FLOAT_EQ(FactorScheduler(1, 0.5f, 1.0f, 0.01f)->LR(1000000), 0.01f);
  EXPECT_FLOAT_EQ(FactorScheduler(1, 0.999999f, 1.0f, 0.0f)->LR(100001),
                  static_cast<float>(std::pow(0.999999f, 1e5)));
}

TEST(LRScheduler, MultiFactorAtGivenCounts) {
  auto s = MultiFactorScheduler({2, 5}, 0.1f, 1.0f);
  EXPECT_FLOAT_EQ(s->LR(0), 1.0f);
  EXPECT_FLOAT_EQ(s->LR(2), 1.0f);
  EXPECT_FLOAT_EQ(s->LR(3), 0.1f);
  EXPECT_FLOAT_EQ(s->LR(5), 0.1f);
  EXPECT_FLOAT_EQ(s->LR(6), 0.01f);
  EXPECT_FLOAT_EQ(s->LR(1000), 0.01f);
}

TEST(LRScheduler, OptimizerUsesNumUpdate) {
  auto opt = Optimizer::Create("sgd", {{"learning_rate", "7"}});
  opt->set_lr_scheduler(FactorScheduler(1, 0.5f, 1.0f));
  EXPECT_FLOAT_EQ(opt->current_lr("w"), 1.0f);
  NDArray w = test::Array({1}, {10.0}, DType::kFloat64);
  // Update k runs with LR(k): 1, 0.5, 0.25.
  for (int k = 0; k < 3; ++k) opt->Update(0, "w", &w, test::Array({1}, {1.0}, DType::kFloat64));
  EXPECT_DOUBLE_EQ(test::Values(w)[0], 10 - 1 - 0.5 - 0.25);
  EXPECT_FLOAT_EQ(opt->current_lr("w"), 0.25f);
  opt->set_lr_scheduler(nullptr);
  EXPECT_FLOAT_EQ(opt->current_lr("w"), 7.0f);
}

TEST(Optimizer, MultipliersFromSymbolAndMaps) {
  VariableHints wh, bh, gh;
  wh.lr_mult = 2.0;
  bh.wd_mult = 0.5;
  gh.attrs["lr_mult"] = "0.25";
  Symbol data = Symbol::CreateVariable("data");
  Symbol fc = Symbol::Apply(
      Runtime::Global().ops(), "FullyConnected",
      {data, Symbol::CreateVariable("fc_weight", wh), Symbol::CreateVariable("fc_bias", bh)},
      {{"num_hidden", "3"}}, "fc");
  Symbol sym = Symbol::Apply(Runtime::Global().ops(), "elemwise_mul",
                             {fc, Symbol::CreateVariable("bn_gamma", gh)}, {}, "mul");
  auto opt = Optimizer::Create("sgd", {{"learning_rate", "0.1"}, {"wd", "0.2"}});
  opt->SetMultipliers(sym);
  EXPECT_FLOAT_EQ(opt->lr_mult("fc_weight"), 2.0f);
  EXPECT_FLOAT_EQ(opt->lr_mult("fc_bias"), 1.0f);
  EXPECT_FLOAT_EQ(opt->lr_mult("bn_gamma"), 0.25f);
  EXPECT_FLOAT_EQ(opt->current_lr("fc_weight"), 0.2f);
  EXPECT_FLOAT_EQ(opt->wd_mult("fc_weight"), 1.0f);
  EXPECT_FLOAT_EQ(opt->wd_mult("fc_bias"), 0.5f);  // the attribute beats the default 0
  EXPECT_FLOAT_EQ(opt->wd_mult("bn_gamma"), 1.0f);
  EXPECT_FLOAT_EQ(opt->wd_mult("bn_beta"), 0.0f);
  EXPECT_FLOAT_EQ(opt->wd_mult("data"), 0.0f);
  EXPECT_FLOAT_EQ(opt->current_wd("fc_bias"), 0.1f);
  opt->set_lr_mult({{"fc_weight", 3.0f}});
  opt->set_wd_mult({{"bn_beta", 1.0f}, {"fc_weight", 0.0f}});
  EXPECT_FLOAT_EQ(opt->lr_mult("fc_weight"), 3.0f);
  EXPECT_FLOAT_EQ(opt->wd_mult("bn_beta"), 1.0f);
  EXPECT_FLOAT_EQ(opt->wd_mult("fc_weight"), 0.0f);
  // The multiplier reaches the update: lr 0.1 * 3 on g = 1.
  NDArray w = test::Array({1}, {1.0}, DType::kFloat64);
  opt->Update(0, "fc_weight", &w, test::Array({1}, {1.0}, DType::kFloat64));
  EXPECT_NEAR(test::Values(w)[0], 1 - F(F(0.1) * 3), 1e-12);
  // Bad attribute text names the parameter.
  VariableHints bad;
  bad.attrs["__lr_mult__"] = "fast";
  ExpectError([&] { opt->SetMultipliers(Symbol::CreateVariable("x_weight", bad)); },
              StatusCode::kInvalidArgument, {"x_weight", "fast"});
}

TEST(Optimizer, CreationErrors) {
  ExpectError([] { Optimizer::Create("rmsprop2"); }, StatusCode::kInvalidArgument,
              {"rmsprop2", "'sgd'", "'adam'", "'lamb'", "'ftrl'"});
  ExpectError(
      [] {
        Optimizer::Create("sgd", {{"beta1", "0.9"}});
      },
      StatusCode::kInvalidArgument, {"beta1", "learning_rate"});
  ExpectError(
      [] {
        Optimizer::Create("sgd", {{"learning_rate", "-1"}});
      },
      StatusCode::kInvalidArgument, {"learning_rate", "-1"});
  ExpectError(
      [] {
        Optimizer::Create("sgd", {{"momentum", "2"}});
      },
      StatusCode::kInvalidArgument, {"momentum"});
  ExpectError(
      [] {
        Optimizer::Create("sgd", {{"wd", "abc"}});
      },
      StatusCode::kInvalidArgument, {"wd", "abc"});
  ExpectError(
      [] {
        Optimizer::Create("adam", {{"beta1", "1"}});
      },
      StatusCode::kInvalidArgument, {"beta1", "[0, 1)"});
  ExpectError(
      [] {
        Optimizer::Create("adam", {{"epsilon", "0"}});
      },
      StatusCode::kInvalidArgument, {"epsilon"});
  ExpectError(
      [] {
        Optimizer::Create("adam", {{"momentum", "0.9"}});
      },
      StatusCode::kInvalidArgument, {"momentum"});
  ExpectError([] { FactorScheduler(0, 0.5f, 1.0f); }, StatusCode::kInvalidArgument, {"step"});
  ExpectError([] { FactorScheduler(1, 1.5f, 1.0f); }, StatusCode::kInvalidArgument, {"factor"});
  ExpectError([] { MultiFactorScheduler({}, 0.5f, 1.0f); }, StatusCode::kInvalidArgument,
              {"steps"});
  ExpectError(
      [] {
        MultiFactorScheduler({3, 3}, 0.5f, 1.0f);
      },
      StatusCode::kInvalidArgument, {"increasing"});
  ExpectError(
      [] {
        MultiFactorScheduler({0, 3}, 0.5f, 1.0f);
      },
      StatusCode::kInvalidArgument, {">= 1"});
  auto opt = Optimizer::Create("sgd");
  ExpectError([&] { opt->set_learning_rate(NAN); }, StatusCode::kInvalidArgument,
              {"learning_rate"});
  // Defaults as in MXNet.
  EXPECT_FLOAT_EQ(opt->learning_rate(), 0.01f);
  EXPECT_FLOAT_EQ(Optimizer::Create("adam")->learning_rate(), 0.001f);
}

// Each optimizer names the parameter it rejects.
TEST(Optimizer, NewOptimizersValidateParameters) {
  const std::vector<std::tuple<std::string, StringMap, std::vector<std::string>>> bad = {
      {"nag", {{"momentum", "1.5"}}, {"nag", "momentum", "1.5"}},
      {"nag", {{"lazy_update", "True"}}, {"lazy_update"}},  // not one of NAG's
      {"signum", {{"momentum", "-0.1"}}, {"momentum"}},
      {"signum", {{"momentum", "0"}, {"wd_lh", "0.1"}}, {"wd_lh", "momentum"}},
      {"lars", {{"eta", "-1"}}, {"eta", "-1"}},
      {"lars", {{"momentum_correction", "maybe"}}, {"momentum_correction", "maybe"}},
      {"adamw", {{"beta2", "1"}}, {"beta2", "[0, 1)"}},
      {"adamw", {{"epsilon", "0"}}, {"epsilon"}},
      {"lamb", {{"beta1", "1.0"}}, {"beta1"}},
      {"lamb", {{"lower_bound", "low"}}, {"lower_bound", "low"}},
      {"rmsprop", {{"gamma1", "2"}}, {"gamma1", "2"}},
      {"rmsprop", {{"centered", "yes"}}, {"centered", "yes"}},
      {"adagrad", {{"eps", "0"}}, {"eps"}},
      {"adagrad", {{"epsilon", "1e-7"}}, {"epsilon"}},  // MXNet's AdaGrad calls it eps
      {"adadelta", {{"rho", "1.5"}}, {"rho", "1.5"}},
      {"ftrl", {{"lamda1", "-0.5"}}, {"lamda1", "-0.5"}},
      {"ftrl", {{"learning_rate", "0"}}, {"learning_rate", "> 0"}},
      {"sgd", {{"multi_precision", "2"}}, {"multi_precision", "2"}},
  };
  for (const auto& [name, params, parts] : bad)
    ExpectError([&] { Optimizer::Create(name, params); }, StatusCode::kInvalidArgument, parts);
  // MXNet's defaults.
  EXPECT_FLOAT_EQ(Optimizer::Create("NAG")->learning_rate(), 0.01f);
  EXPECT_FLOAT_EQ(Optimizer::Create("rmsprop")->learning_rate(), 0.001f);
  EXPECT_FLOAT_EQ(Optimizer::Create("ftrl")->learning_rate(), 0.1f);
  EXPECT_FLOAT_EQ(Optimizer::Create("lamb")->learning_rate(), 0.001f);
  EXPECT_EQ(Optimizer::Create("AdaDelta")->name(), "adadelta");
  EXPECT_FALSE(Optimizer::Create("sgd")->multi_precision());
  EXPECT_TRUE(Optimizer::Create("adam", {{"multi_precision", "True"}})->multi_precision());
}

// float16 weights need multi_precision; LARS keeps weight decay for
// "_weight" names only.
TEST(Optimizer, Float16NeedsMultiPrecisionAndLarsWdMult) {
  auto sgd = Optimizer::Create("sgd", {{"momentum", "0.9"}});
  NDArray h = test::Array({2}, {1.0, 2.0}, DType::kFloat16);
  ExpectError([&] { sgd->Update(0, "w", &h, h); }, StatusCode::kDType,
              {"float16", "multi_precision"});
  auto mp = Optimizer::Create("sgd", {{"momentum", "0.9"}, {"multi_precision", "true"}});
  mp->Update(0, "w", &h, test::Array({2}, {1.0, 1.0}, DType::kFloat16));
  ASSERT_EQ(mp->states(0).size(), 2u);  // the master copy, then the momentum
  EXPECT_EQ(mp->states(0)[0].dtype(), DType::kFloat32);
  EXPECT_EQ(test::Values(h), (std::vector<double>{0.990234375, 1.990234375}));  // float16 of 0.99
  auto lars = Optimizer::Create("lars");
  EXPECT_FLOAT_EQ(lars->wd_mult("bn_gamma"), 0.0f);
  EXPECT_FLOAT_EQ(lars->wd_mult("fc_weight"), 1.0f);
  EXPECT_FLOAT_EQ(Optimizer::Create("sgd")->wd_mult("bn_gamma"), 1.0f);
}

TEST(Optimizer, UpdateErrors) {
  auto opt = Optimizer::Create("adam");
  NDArray w = test::Array({2, 2}, kW0);
  ExpectError([&] { opt->Update(0, "w", &w, test::Array({4}, kW0)); }, StatusCode::kShape,
              {"'w'", "(4,)", "(2,2)"});
  ExpectError(
      [&] {
        opt->Update(0, "w", &w, test::Array({2, 2}, kW0, DType::kFloat64));
      },
      StatusCode::kDType, {"float64"});
  ExpectError([&] { opt->Update(0, "w", nullptr, w); }, StatusCode::kInvalidArgument, {"empty"});
  ExpectError([&] { opt->Update(0, "w", &w, NDArray()); }, StatusCode::kInvalidArgument,
              {"gradient"});
  NDArray wi = test::Array({2}, {1, 2}, DType::kInt32);
  ExpectError([&] { opt->Update(0, "w", &wi, wi); }, StatusCode::kDType, {"int32"});
  EXPECT_EQ(opt->num_update(), 0);  // failed calls count nothing
  opt->Update(0, "w", &w, w);
  NDArray other = test::Array({4}, kW0);
  ExpectError([&] { opt->Update(0, "w", &other, other); }, StatusCode::kInvalidArgument,
              {"index 0", "(4,)"});
  EXPECT_EQ(opt->num_update(), 1);
}

}  // namespace
}  // namespace weft
