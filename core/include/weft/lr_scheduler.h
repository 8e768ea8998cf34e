// Learning-rate schedulers with MXNet's semantics (python/mxnet/lr_scheduler.py):
// FactorScheduler, MultiFactorScheduler, PolyScheduler and CosineScheduler,
// each with MXNet's warm-up.
//
// A scheduler maps the optimizer's update count to a learning rate. MXNet's
// schedulers are stateful objects called with num_update in increasing
// order; Weft's compute the same values in closed form from num_update, so
// LR() is const, stateless and thread-safe, and gives MXNet's value for a
// call sequence that visits every update (as MXNet's optimizer does). An
// Optimizer holds its scheduler through a shared_ptr (weft/optimizer.h).
// Bad parameters throw Error(kInvalidArgument) naming the scheduler, the
// parameter and the value given.
#ifndef WEFT_LR_SCHEDULER_H_
#define WEFT_LR_SCHEDULER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weft/param.h"

namespace weft {

// Learning rate as a function of the optimizer's update count.
class LRScheduler {
 public:
  virtual ~LRScheduler();
  // The learning rate after `num_update` updates (MXNet calls the scheduler
  // with Optimizer.num_update, which is 1 during the first update).
  virtual float LR(int64_t num_update) const = 0;
};

// MXNet's warm-up, which every scheduler takes: while num_update < steps
// the rate is begin_lr + (base_lr - begin_lr) * num_update / steps
// (kLinear) or begin_lr (kConstant); from num_update == steps on, the
// schedule's own curve applies. steps = 0 (the default) means no warm-up.
// REQUIRES steps >= 0 and 0 <= begin_lr <= the scheduler's base_lr.
enum class WarmupMode { kLinear, kConstant };
struct LRWarmup {
  int64_t steps = 0;
  float begin_lr = 0;
  WarmupMode mode = WarmupMode::kLinear;
};

// MXNet's FactorScheduler: base_lr * factor^k where k counts the multiples
// of `step` strictly below num_update (k = (num_update - 1) / step), never
// below stop_factor_lr. The decays count from update 0, warm-up or not.
// REQUIRES step >= 1 and 0 <= factor <= 1 (Error otherwise).
std::unique_ptr<LRScheduler> FactorScheduler(int64_t step, float factor, float base_lr,
                                             float stop_factor_lr = 1e-8f,
                                             const LRWarmup& warmup = {});
// MXNet's MultiFactorScheduler: base_lr * factor^k where k counts the steps
// strictly below num_update. REQUIRES steps non-empty, strictly increasing,
// each >= 1, and 0 <= factor <= 1 (Error otherwise).
std::unique_ptr<LRScheduler> MultiFactorScheduler(std::vector<int64_t> steps, float factor,
                                                  float base_lr, const LRWarmup& warmup = {});
// MXNet's PolyScheduler: with W = warmup.steps and M = max_update, for
// W <= n <= M the rate is final_lr + (base_lr - final_lr) *
// (1 - (n - W) / (M - W))^pwr; after M it keeps the value at M (final_lr
// for pwr > 0). REQUIRES max_update > warmup.steps (MXNet divides by their
// difference), pwr >= 0 and final_lr >= 0, all finite.
std::unique_ptr<LRScheduler> PolyScheduler(int64_t max_update, float base_lr, float pwr = 2,
                                           float final_lr = 0, const LRWarmup& warmup = {});
// MXNet's CosineScheduler: for W <= n <= M the rate is final_lr +
// (base_lr - final_lr) * (1 + cos(pi * (n - W) / (M - W))) / 2, and
// final_lr after M. REQUIRES max_update > warmup.steps, final_lr >= 0.
std::unique_ptr<LRScheduler> CosineScheduler(int64_t max_update, float base_lr, float final_lr = 0,
                                             const LRWarmup& warmup = {});

// A scheduler by name (case-insensitive; MXNet's class names also accepted):
// "factor" (step required; factor=1, stop_factor_lr=1e-8), "multifactor"
// (step required, a tuple text such as "(10, 20)" or "[10, 20]"; factor=1),
// "poly" (max_update required; pwr=2, final_lr=0) and "cosine" (max_update
// required; final_lr=0); each also takes base_lr (default
// `default_base_lr`), warmup_steps=0, warmup_begin_lr=0 and warmup_mode
// ("linear" or "constant"), MXNet's parameter names. Values are text as
// MXNet's str() writes them. Unknown names or parameters, a missing
// required one and bad values throw Error(kInvalidArgument) naming them.
std::unique_ptr<LRScheduler> CreateLRScheduler(const std::string& name, const StringMap& params,
                                               float default_base_lr = 0.01f);

}  // namespace weft

#endif  // WEFT_LR_SCHEDULER_H_
