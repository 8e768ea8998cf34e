// MXNet's learning-rate schedulers (lr_scheduler.py) in closed form: the
// warm-up every scheduler shares, FactorScheduler, MultiFactorScheduler,
// PolyScheduler and CosineScheduler. MXNet's schedulers are stateful but
// only ever move forward; the closed forms give MXNet's values for any
// call sequence that visits every update. Arithmetic is in double, as
// MXNet's Python floats, in MXNet's order of operations.
#include "weft/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "weft/status.h"

namespace weft {

LRScheduler::~LRScheduler() = default;

namespace {

void CheckNonNegative(const char* what, const char* param, float v) {
  if (!std::isfinite(v) || v < 0)
    Fail(StatusCode::kInvalidArgument, what, ": ", param, " must be a finite number >= 0, given ",
         v);
}

void CheckFactor(const char* what, float factor) {
  if (!std::isfinite(factor) || factor > 1.0f || factor < 0)
    Fail(StatusCode::kInvalidArgument, what,
         ": factor must be in [0, 1] so that the learning rate decreases, given ", factor);
}

// MXNet's LRScheduler.__init__ checks, plus finiteness.
void CheckBase(const char* what, float base_lr, const LRWarmup& w) {
  CheckNonNegative(what, "base_lr", base_lr);
  if (w.steps < 0)
    Fail(StatusCode::kInvalidArgument, what, ": warmup_steps must be >= 0, given ", w.steps);
  CheckNonNegative(what, "warmup_begin_lr", w.begin_lr);
  if (w.begin_lr > base_lr)
    Fail(StatusCode::kInvalidArgument, what, ": warmup_begin_lr (", w.begin_lr,
         ") must not exceed base_lr (", base_lr, ")");
  if (w.mode != WarmupMode::kLinear && w.mode != WarmupMode::kConstant)
    Fail(StatusCode::kInvalidArgument, what, ": warmup_mode ", static_cast<int>(w.mode),
         " is neither linear nor constant");
}

// Poly and Cosine divide by max_update - warmup_steps.
void CheckMaxUpdate(const char* what, int64_t max_update, const LRWarmup& w) {
  if (max_update < 1)
    Fail(StatusCode::kInvalidArgument, what, ": max_update must be >= 1, given ", max_update);
  if (max_update <= w.steps)
    Fail(StatusCode::kInvalidArgument, what, ": max_update (", max_update,
         ") must exceed warmup_steps (", w.steps, ")");
}

// The warm-up of MXNet's LRScheduler.get_warmup_lr before the curve of a
// subclass; the warm-up ends at base_lr, the rate the curve starts from.
class WarmedScheduler : public LRScheduler {
 public:
  WarmedScheduler(float base_lr, const LRWarmup& w) : base_lr_(base_lr), warmup_(w) {}

  float LR(int64_t num_update) const final {
    const int64_t n = std::max<int64_t>(num_update, 0);
    if (n >= warmup_.steps) return static_cast<float>(Curve(n));
    const double begin = warmup_.begin_lr;
    if (warmup_.mode == WarmupMode::kConstant) return static_cast<float>(begin);
    const double increase =
        (base_lr_ - begin) * static_cast<double>(n) / static_cast<double>(warmup_.steps);
    return static_cast<float>(begin + increase);
  }

 protected:
  // The rate at update n >= warmup steps.
  virtual double Curve(int64_t n) const = 0;

  double base_lr_;
  LRWarmup warmup_;
};

class FactorSchedulerImpl : public WarmedScheduler {
 public:
  FactorSchedulerImpl(int64_t step, float factor, float base_lr, float stop, const LRWarmup& w)
      : WarmedScheduler(base_lr, w), step_(step), factor_(factor), stop_(stop) {}

 protected:
  // MXNet multiplies base_lr by factor while num_update > count + step
  // (count advancing by step from 0), clamping at stop_factor_lr.
  double Curve(int64_t n) const override {
    const int64_t k = n > 0 ? (n - 1) / step_ : 0;
    double lr = base_lr_;
    if (factor_ == 1.0) return lr;
    if (k > kMaxLoop) return std::max(lr * std::pow(factor_, static_cast<double>(k)), stop_);
    for (int64_t i = 0; i < k; ++i) {
      lr *= factor_;
      if (lr < stop_) return stop_;  // factor <= 1: once clamped it stays clamped
    }
    return lr;
  }

 private:
  // Beyond this many decays the product is formed with pow (an ulp apart).
  static constexpr int64_t kMaxLoop = 4096;
  int64_t step_;
  double factor_, stop_;
};

class MultiFactorSchedulerImpl : public WarmedScheduler {
 public:
  MultiFactorSchedulerImpl(std::vector<int64_t> steps, float factor, float base_lr,
                           const LRWarmup& w)
      : WarmedScheduler(base_lr, w), steps_(std::move(steps)), factor_(factor) {}

 protected:
  double Curve(int64_t n) const override {
    double lr = base_lr_;
    for (int64_t s : steps_) {
      if (n <= s) break;
      lr *= factor_;
    }
    return lr;
  }

 private:
  std::vector<int64_t> steps_;
  double factor_;
};

class PolySchedulerImpl : public WarmedScheduler {
 public:
  PolySchedulerImpl(int64_t max_update, float base_lr, float pwr, float final_lr, const LRWarmup& w)
      : WarmedScheduler(base_lr, w), max_update_(max_update), pwr_(pwr), final_(final_lr) {}

 protected:
  // After max_update MXNet keeps the value it computed at max_update.
  double Curve(int64_t n) const override {
    const int64_t m = std::min(n, max_update_);
    const double done =
        static_cast<double>(m - warmup_.steps) / static_cast<double>(max_update_ - warmup_.steps);
    return final_ + (base_lr_ - final_) * std::pow(1 - done, pwr_);
  }

 private:
  int64_t max_update_;
  double pwr_, final_;
};

class CosineSchedulerImpl : public WarmedScheduler {
 public:
  CosineSchedulerImpl(int64_t max_update, float base_lr, float final_lr, const LRWarmup& w)
      : WarmedScheduler(base_lr, w), max_update_(max_update), final_(final_lr) {}

 protected:
  double Curve(int64_t n) const override {
    const int64_t m = std::min(n, max_update_);
    const double angle = M_PI * static_cast<double>(m - warmup_.steps) /
                         static_cast<double>(max_update_ - warmup_.steps);
    return final_ + (base_lr_ - final_) * (1 + std::cos(angle)) / 2;
  }

 private:
  int64_t max_update_;
  double final_;
};

}  // namespace

std::unique_ptr<LRScheduler> FactorScheduler(int64_t step, float factor, float base_lr,
                                             float stop_factor_lr, const LRWarmup& warmup) {
  const char* what = "FactorScheduler";
  if (step < 1)
    Fail(StatusCode::kInvalidArgument, what, ": step must be >= 1 update, given ", step);
  CheckFactor(what, factor);
  CheckNonNegative(what, "stop_factor_lr", stop_factor_lr);
  CheckBase(what, base_lr, warmup);
  return std::make_unique<FactorSchedulerImpl>(step, factor, base_lr, stop_factor_lr, warmup);
}

std::unique_ptr<LRScheduler> MultiFactorScheduler(std::vector<int64_t> steps, float factor,
                                                  float base_lr, const LRWarmup& warmup) {
  const char* what = "MultiFactorScheduler";
  if (steps.empty())
    Fail(StatusCode::kInvalidArgument, what,
         ": step must hold at least one update count (no steps given)");
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i] < 1)
      Fail(StatusCode::kInvalidArgument, what, ": step ", i, " must be >= 1, given ", steps[i]);
    if (i > 0 && steps[i] <= steps[i - 1])
      Fail(StatusCode::kInvalidArgument, what, ": steps must be strictly increasing, step ", i,
           " is ", steps[i], " after ", steps[i - 1]);
  }
  CheckFactor(what, factor);
  CheckBase(what, base_lr, warmup);
  return std::make_unique<MultiFactorSchedulerImpl>(std::move(steps), factor, base_lr, warmup);
}

std::unique_ptr<LRScheduler> PolyScheduler(int64_t max_update, float base_lr, float pwr,
                                           float final_lr, const LRWarmup& warmup) {
  const char* what = "PolyScheduler";
  CheckBase(what, base_lr, warmup);
  CheckMaxUpdate(what, max_update, warmup);
  CheckNonNegative(what, "pwr", pwr);
  CheckNonNegative(what, "final_lr", final_lr);
  return std::make_unique<PolySchedulerImpl>(max_update, base_lr, pwr, final_lr, warmup);
}

std::unique_ptr<LRScheduler> CosineScheduler(int64_t max_update, float base_lr, float final_lr,
                                             const LRWarmup& warmup) {
  const char* what = "CosineScheduler";
  CheckBase(what, base_lr, warmup);
  CheckMaxUpdate(what, max_update, warmup);
  CheckNonNegative(what, "final_lr", final_lr);
  return std::make_unique<CosineSchedulerImpl>(max_update, base_lr, final_lr, warmup);
}

}  // namespace weft
