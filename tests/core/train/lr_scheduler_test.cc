// Tests of core/src/train/lr_scheduler.cc and lr_scheduler_create.cc: every
// scheduler, with and without warm-up, against (a) a transcription of
// MXNet 1.9.1's stateful algorithm (lr_scheduler.py) called at every update
// in order, as MXNet's optimizer calls it, and (b) closed-form values worked
// out by hand; out-of-order calls, the by-name factory, the optimizer using
// a warmed schedule, and errors naming the parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "util/test_util.h"
#include "weft/lr_scheduler.h"
#include "weft/optimizer.h"

namespace weft {
namespace {

using test::ExpectError;

// MXNet's LRScheduler state: the warm-up shared by every scheduler.
struct MXBase {
  double base_lr = 0;
  int64_t warmup_steps = 0;
  double warmup_begin_lr = 0;
  bool constant = false;
  double warmup_final_lr = 0;
  bool InWarmup(int64_t n) const { return n < warmup_steps; }
  double WarmupLR(int64_t n) const {
    if (constant) return warmup_begin_lr;
    return warmup_begin_lr + (warmup_final_lr - warmup_begin_lr) * static_cast<double>(n) /
                                 static_cast<double>(warmup_steps);
  }
};

// FactorScheduler.__call__: decays while n > count + step, clamped.
struct MXFactor : MXBase {
  MXFactor(MXBase b, int64_t step, double factor, double stop)
      : MXBase(b), step(step), factor(factor), stop(stop) {}
  int64_t step;
  double factor, stop;
  int64_t count = 0;
  double operator()(int64_t n) {
    if (InWarmup(n)) return WarmupLR(n);
    while (n > count + step) {
      count += step;
      base_lr *= factor;
      if (base_lr < stop) base_lr = stop;
    }
    return base_lr;
  }
};

// MultiFactorScheduler.__call__: walks the step list once.
struct MXMultiFactor : MXBase {
  MXMultiFactor(MXBase b, std::vector<int64_t> steps, double factor)
      : MXBase(b), steps(std::move(steps)), factor(factor) {}
  std::vector<int64_t> steps;
  double factor;
  size_t cur = 0;
  double operator()(int64_t n) {
    if (InWarmup(n)) return WarmupLR(n);
    while (cur < steps.size() && n > steps[cur]) {
      ++cur;
      base_lr *= factor;
    }
    return base_lr;
  }
};

// PolyScheduler / CosineScheduler.__call__: recompute while n <= max_update,
// otherwise return the value stored last.
struct MXDecay : MXBase {
  MXDecay(MXBase b, int64_t max_update, double final_lr, std::function<double(double)> shape)
      : MXBase(b), max_update(max_update), final_lr(final_lr), shape(std::move(shape)) {}
  int64_t max_update;
  double final_lr;
  std::function<double(double)> shape;  // of the fraction done, 1 at 0 and 0 at 1
  double orig = base_lr;
  double operator()(int64_t n) {
    if (InWarmup(n)) return WarmupLR(n);
    if (n <= max_update)
      base_lr =
          final_lr + (orig - final_lr) * shape(static_cast<double>(n - warmup_steps) /
                                               static_cast<double>(max_update - warmup_steps));
    return base_lr;
  }
};

LRWarmup Warm(int64_t steps, float begin, bool constant = false) {
  LRWarmup w;
  w.steps = steps;
  w.begin_lr = begin;
  w.mode = constant ? WarmupMode::kConstant : WarmupMode::kLinear;
  return w;
}

MXBase Base(double base_lr, const LRWarmup& w) {
  MXBase b;
  b.base_lr = base_lr;
  b.warmup_steps = w.steps;
  b.warmup_begin_lr = w.begin_lr;
  b.constant = w.mode == WarmupMode::kConstant;
  b.warmup_final_lr = base_lr;
  return b;
}

template <typename Ref>
void ExpectCurve(const LRScheduler& s, Ref ref, int64_t upto, const std::string& what) {
  for (int64_t n = 0; n <= upto; ++n)
    EXPECT_FLOAT_EQ(s.LR(n), static_cast<float>(ref(n))) << what << " at update " << n;
}

const std::vector<LRWarmup> kWarmups = {Warm(0, 0), Warm(4, 0.0f), Warm(5, 0.25f),
                                        Warm(3, 0.1f, true), Warm(12, 0.5f)};

TEST(LRSchedulerCurves, FactorWithWarmupMatchesMXNet) {
  for (const LRWarmup& w : kWarmups)
    for (auto [step, factor, stop] :
         std::vector<std::tuple<int64_t, float, float>>{{2, 0.5f, 1e-8f}, {5, 0.9f, 0.3f}}) {
      MXFactor ref(Base(1.0, w), step, factor, stop);
      ExpectCurve(*FactorScheduler(step, factor, 1.0f, stop, w), ref, 60,
                  "factor step " + std::to_string(step) + " warmup " + std::to_string(w.steps));
    }
}

TEST(LRSchedulerCurves, MultiFactorWithWarmupMatchesMXNet) {
  for (const LRWarmup& w : kWarmups) {
    MXMultiFactor ref(Base(0.8, w), {3, 10, 11, 30}, 0.5);
    ExpectCurve(*MultiFactorScheduler({3, 10, 11, 30}, 0.5f, 0.8f, w), ref, 50,
                "multifactor warmup " + std::to_string(w.steps));
  }
}

TEST(LRSchedulerCurves, PolyWithWarmupMatchesMXNet) {
  for (const LRWarmup& w : kWarmups)
    for (float pwr : {2.0f, 1.0f, 0.5f, 3.0f})
      for (float final_lr : {0.0f, 0.05f}) {
        MXDecay ref(Base(0.6, w), 40, final_lr,
                    [pwr](double done) { return std::pow(1 - done, static_cast<double>(pwr)); });
        ExpectCurve(*PolyScheduler(40, 0.6f, pwr, final_lr, w), ref, 70,
                    "poly pwr " + std::to_string(pwr) + " warmup " + std::to_string(w.steps));
      }
}

TEST(LRSchedulerCurves, CosineWithWarmupMatchesMXNet) {
  for (const LRWarmup& w : kWarmups)
    for (float final_lr : {0.0f, 0.1f}) {
      MXDecay ref(Base(2.0, w), 33, final_lr,
                  [](double done) { return (1 + std::cos(M_PI * done)) / 2; });
      ExpectCurve(*CosineScheduler(33, 2.0f, final_lr, w), ref, 60,
                  "cosine warmup " + std::to_string(w.steps));
    }
}

// Values worked out by hand from MXNet's formulas.
TEST(LRSchedulerCurves, ClosedFormPoints) {
  // Linear warm-up from 0.2 to 1 over 4 updates: 0.2, 0.4, 0.6, 0.8, then the curve.
  auto f = FactorScheduler(2, 0.5f, 1.0f, 1e-8f, Warm(4, 0.2f));
  EXPECT_FLOAT_EQ(f->LR(0), 0.2f);
  EXPECT_FLOAT_EQ(f->LR(1), 0.4f);
  EXPECT_FLOAT_EQ(f->LR(3), 0.8f);
  EXPECT_FLOAT_EQ(f->LR(4), 0.5f);   // (4 - 1) / 2 = 1 decay already counted
  EXPECT_FLOAT_EQ(f->LR(5), 0.25f);  // decays counted from update 0, not from the warm-up's end
  // Constant warm-up stays at begin_lr, then jumps to base_lr.
  auto m = MultiFactorScheduler({6}, 0.1f, 1.0f, Warm(3, 0.01f, true));
  EXPECT_FLOAT_EQ(m->LR(2), 0.01f);
  EXPECT_FLOAT_EQ(m->LR(3), 1.0f);
  EXPECT_FLOAT_EQ(m->LR(6), 1.0f);
  EXPECT_FLOAT_EQ(m->LR(7), 0.1f);
  // Poly, pwr 2, warm-up 10, max 50: at n = 20 a quarter is done: 0.1 + 0.9 * 0.75^2.
  auto p = PolyScheduler(50, 1.0f, 2.0f, 0.1f, Warm(10, 0.0f));
  EXPECT_FLOAT_EQ(p->LR(5), 0.5f);
  EXPECT_FLOAT_EQ(p->LR(10), 1.0f);
  EXPECT_FLOAT_EQ(p->LR(20), 0.1f + 0.9f * 0.5625f);
  EXPECT_FLOAT_EQ(p->LR(30), 0.1f + 0.9f * 0.25f);
  EXPECT_FLOAT_EQ(p->LR(50), 0.1f);
  EXPECT_FLOAT_EQ(p->LR(1000), 0.1f);
  // pwr 0 keeps base_lr, also past max_update (MXNet's stored value: 0^0 = 1).
  EXPECT_FLOAT_EQ(PolyScheduler(8, 0.3f, 0.0f)->LR(100), 0.3f);
  // Cosine: the midpoint is the mean of base and final, the end is final.
  auto c = CosineScheduler(100, 1.0f, 0.2f);
  EXPECT_FLOAT_EQ(c->LR(0), 1.0f);
  EXPECT_FLOAT_EQ(c->LR(50), 0.6f);
  EXPECT_FLOAT_EQ(c->LR(25), static_cast<float>(0.2 + 0.8 * (1 + std::sqrt(0.5)) / 2));
  EXPECT_FLOAT_EQ(c->LR(100), 0.2f);
  EXPECT_FLOAT_EQ(c->LR(101), 0.2f);
}

// The closed forms do not depend on the order of the calls.
TEST(LRSchedulerCurves, StatelessInAnyOrder) {
  std::vector<std::unique_ptr<LRScheduler>> all;
  all.push_back(FactorScheduler(3, 0.7f, 1.0f, 0.2f, Warm(4, 0.1f)));
  all.push_back(MultiFactorScheduler({5, 9}, 0.5f, 1.0f, Warm(2, 0.5f, true)));
  all.push_back(PolyScheduler(20, 1.0f, 2.0f, 0.0f, Warm(5, 0.0f)));
  all.push_back(CosineScheduler(20, 1.0f, 0.0f, Warm(5, 0.0f)));
  for (const auto& s : all) {
    std::vector<float> forward;
    for (int64_t n = 0; n <= 30; ++n) forward.push_back(s->LR(n));
    for (int64_t n = 30; n >= 0; --n) EXPECT_EQ(s->LR(n), forward[static_cast<size_t>(n)]) << n;
  }
}

TEST(LRSchedulerCreate, ByNameEqualsTheFactories) {
  struct Case {
    std::string name;
    StringMap params;
    std::unique_ptr<LRScheduler> want;
  };
  std::vector<Case> cases;
  cases.push_back(
      {"factor",
       {{"step", "3"}, {"factor", "0.5"}, {"warmup_steps", "4"}, {"warmup_begin_lr", "0.1"}},
       FactorScheduler(3, 0.5f, 0.4f, 1e-8f, Warm(4, 0.1f))});
  cases.push_back({"MultiFactorScheduler",
                   {{"step", "(10,20)"},
                    {"factor", "0.1"},
                    {"base_lr", "2"},
                    {"warmup_mode", "'constant'"},
                    {"warmup_steps", "5"}},
                   MultiFactorScheduler({10, 20}, 0.1f, 2.0f, Warm(5, 0.0f, true))});
  cases.push_back({"multifactor",
                   {{"step", "[7, 9]"}, {"factor", "0.5"}},
                   MultiFactorScheduler({7, 9}, 0.5f, 0.4f)});
  cases.push_back(
      {"Poly",
       {{"max_update", "30"}, {"pwr", "3"}, {"final_lr", "0.01"}, {"warmup_steps", "6"}},
       PolyScheduler(30, 0.4f, 3.0f, 0.01f, Warm(6, 0.0f))});
  cases.push_back({"poly", {{"max_update", "30"}}, PolyScheduler(30, 0.4f)});
  cases.push_back({"cosinescheduler",
                   {{"max_update", "25"},
                    {"final_lr", "0.1"},
                    {"base_lr", "0.9"},
                    {"warmup_steps", "5"},
                    {"warmup_begin_lr", "0.3"},
                    {"warmup_mode", "linear"}},
                   CosineScheduler(25, 0.9f, 0.1f, Warm(5, 0.3f))});
  for (const Case& c : cases) {
    auto got = CreateLRScheduler(c.name, c.params, 0.4f);
    for (int64_t n = 0; n <= 40; ++n) EXPECT_EQ(got->LR(n), c.want->LR(n)) << c.name << " " << n;
  }
  // MXNet's defaults: factor 1 (constant), base_lr 0.01 without a default given.
  auto f = CreateLRScheduler("factor", {{"step", "1"}});
  EXPECT_FLOAT_EQ(f->LR(100), 0.01f);
}

TEST(LRSchedulerCreate, ErrorsNameTheParameter) {
  const auto bad = StatusCode::kInvalidArgument;
  ExpectError([] { CreateLRScheduler("linear", {}); }, bad, {"linear", "cosine"});
  ExpectError([] { CreateLRScheduler("factor", {}); }, bad, {"step", "missing"});
  ExpectError([] { CreateLRScheduler("poly", {}); }, bad, {"max_update", "missing"});
  ExpectError(
      [] {
        CreateLRScheduler("cosine", {{"max_update", "9"}, {"pwr", "2"}});
      },
      bad, {"pwr", "unknown"});
  ExpectError([] { CreateLRScheduler("factor", {{"step", "two"}}); }, bad, {"step", "two"});
  ExpectError([] { CreateLRScheduler("multifactor", {{"step", "(3,x)"}}); }, bad, {"step"});
  ExpectError([] { CreateLRScheduler("multifactor", {{"step", "(5, 2)"}}); }, bad, {"increasing"});
  ExpectError(
      [] {
        CreateLRScheduler("poly", {{"max_update", "9"}, {"warmup_mode", "cubic"}});
      },
      bad, {"warmup_mode", "cubic"});
  ExpectError(
      [] {
        CreateLRScheduler("poly", {{"max_update", "9"}, {"warmup_steps", "-1"}});
      },
      bad, {"warmup_steps", "-1"});
  ExpectError(
      [] {
        CreateLRScheduler("poly", {{"max_update", "9"}, {"warmup_steps", "9"}});
      },
      bad, {"max_update", "warmup_steps"});
  ExpectError([] { CreateLRScheduler("cosine", {{"max_update", "0"}}); }, bad, {"max_update"});
  ExpectError(
      [] {
        CreateLRScheduler("poly", {{"max_update", "9"}, {"pwr", "-1"}});
      },
      bad, {"pwr"});
  ExpectError(
      [] {
        CreateLRScheduler("cosine", {{"max_update", "9"}, {"warmup_begin_lr", "0.5"}}, 0.1f);
      },
      bad, {"warmup_begin_lr", "base_lr"});
  ExpectError(
      [] {
        CreateLRScheduler("factor", {{"step", "2"}, {"factor", "1e300"}});
      },
      bad, {"factor"});
  ExpectError(
      [] {
        CreateLRScheduler("factor", {{"step", "2"}, {"base_lr", "-1"}});
      },
      bad, {"base_lr"});
  ExpectError(
      [] {
        CreateLRScheduler("cosine", {{"max_update", "9"}, {"final_lr", "nan"}});
      },
      bad, {"final_lr"});
}

// Update k of a fresh optimizer runs with LR(k): warm-up included.
TEST(LRSchedulerCreate, OptimizerFollowsTheWarmup) {
  auto opt = Optimizer::Create("sgd", {{"learning_rate", "1"}});
  opt->set_lr_scheduler(CreateLRScheduler(
      "cosine", {{"max_update", "6"}, {"warmup_steps", "2"}, {"warmup_begin_lr", "0.5"}},
      opt->learning_rate()));
  NDArray w = test::Array({1}, {0.0}, DType::kFloat64);
  double want = 0;
  for (int k = 1; k <= 8; ++k) {
    opt->Update(0, "w", &w, test::Array({1}, {1.0}, DType::kFloat64));
    const double lr =
        k < 2 ? 0.5 + 0.5 * k / 2.0 : (1 + std::cos(M_PI * std::min(k - 2, 4) / 4.0)) / 2;
    want -= static_cast<float>(lr);
    EXPECT_NEAR(test::Values(w)[0], want, 1e-6) << "update " << k;
  }
}

}  // namespace
}  // namespace weft
