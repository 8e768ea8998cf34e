// MXNet's FactorScheduler and MultiFactorScheduler (lr_scheduler.py),
// computed in closed form from num_update so LR() is const and stateless.
// MXNet's schedulers are stateful but only ever move forward; with
// factor <= 1 the closed form gives the same values for any call sequence.
#include <algorithm>
#include <cmath>
#include <utility>

#include "weft/optimizer.h"
#include "weft/status.h"

namespace weft {

LRScheduler::~LRScheduler() = default;

namespace {

void CheckRate(const char* what, float base_lr, float factor) {
  if (!std::isfinite(base_lr) || base_lr < 0)
    Fail(StatusCode::kInvalidArgument, what, ": base_lr must be a finite number >= 0, given ",
         base_lr);
  if (!std::isfinite(factor) || factor > 1.0f || factor < 0)
    Fail(StatusCode::kInvalidArgument, what,
         ": factor must be in [0, 1] so that the learning rate decreases, given ", factor);
}

class FactorSchedulerImpl : public LRScheduler {
 public:
  FactorSchedulerImpl(int64_t step, float factor, float base_lr, float stop)
      : step_(step), factor_(factor), base_lr_(base_lr), stop_(stop) {}

  // MXNet multiplies base_lr by factor while num_update > count + step
  // (count advancing by step), clamping at stop_factor_lr; the product is
  // formed in Python floats (double), as here.
  float LR(int64_t num_update) const override {
    const int64_t k = num_update > 0 ? (num_update - 1) / step_ : 0;
    double lr = base_lr_;
    if (factor_ == 1.0) return static_cast<float>(lr);
    if (k > kMaxLoop)
      return static_cast<float>(std::max(lr * std::pow(factor_, static_cast<double>(k)), stop_));
    for (int64_t i = 0; i < k; ++i) {
      lr *= factor_;
      if (lr < stop_) {
        lr = stop_;
        break;  // factor <= 1: once clamped it stays clamped
      }
    }
    return static_cast<float>(lr);
  }

 private:
  // Beyond this many decays the product is formed with pow (an ulp apart).
  static constexpr int64_t kMaxLoop = 4096;
  int64_t step_;
  double factor_, base_lr_, stop_;
};

class MultiFactorSchedulerImpl : public LRScheduler {
 public:
  MultiFactorSchedulerImpl(std::vector<int64_t> steps, float factor, float base_lr)
      : steps_(std::move(steps)), factor_(factor), base_lr_(base_lr) {}

  float LR(int64_t num_update) const override {
    double lr = base_lr_;
    for (int64_t s : steps_) {
      if (num_update <= s) break;
      lr *= factor_;
    }
    return static_cast<float>(lr);
  }

 private:
  std::vector<int64_t> steps_;
  double factor_, base_lr_;
};

}  // namespace

std::unique_ptr<LRScheduler> FactorScheduler(int64_t step, float factor, float base_lr,
                                             float stop_factor_lr) {
  if (step < 1)
    Fail(StatusCode::kInvalidArgument, "FactorScheduler: step must be >= 1 update, given ", step);
  CheckRate("FactorScheduler", base_lr, factor);
  if (!std::isfinite(stop_factor_lr) || stop_factor_lr < 0)
    Fail(StatusCode::kInvalidArgument,
         "FactorScheduler: stop_factor_lr must be a finite number >= 0, given ", stop_factor_lr);
  return std::make_unique<FactorSchedulerImpl>(step, factor, base_lr, stop_factor_lr);
}

std::unique_ptr<LRScheduler> MultiFactorScheduler(std::vector<int64_t> steps, float factor,
                                                  float base_lr) {
  if (steps.empty())
    Fail(StatusCode::kInvalidArgument,
         "MultiFactorScheduler: steps must hold at least one update count");
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i] < 1)
      Fail(StatusCode::kInvalidArgument, "MultiFactorScheduler: step ", i, " must be >= 1, given ",
           steps[i]);
    if (i > 0 && steps[i] <= steps[i - 1])
      Fail(StatusCode::kInvalidArgument,
           "MultiFactorScheduler: steps must be strictly increasing, step ", i, " is ", steps[i],
           " after ", steps[i - 1]);
  }
  CheckRate("MultiFactorScheduler", base_lr, factor);
  return std::make_unique<MultiFactorSchedulerImpl>(std::move(steps), factor, base_lr);
}

}  // namespace weft
