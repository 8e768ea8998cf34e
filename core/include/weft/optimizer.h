// Optimizers and learning-rate schedulers with MXNet's semantics
// (python/mxnet/optimizer/optimizer.py, lr_scheduler.py).
//
// An Optimizer owns its hyper-parameters, the per-parameter states (momentum,
// Adam's mean/var; created lazily on the weight's context at the first
// update of an index), the per-index update counts and the lr/wd
// multipliers. `Update` pushes one update operator (sgd_update,
// sgd_mom_update, adam_update) through weft::Invoke; the operator writes the
// weight and the states in place and runs asynchronously on the engine.
// Hyper-parameter and argument errors are thrown as weft::Error before
// anything is pushed. An Optimizer is not thread-safe: one caller at a time
// (a fit loop). LRScheduler::LR is const and thread-safe.
#ifndef WEFT_OPTIMIZER_H_
#define WEFT_OPTIMIZER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weft/ndarray.h"
#include "weft/param.h"
#include "weft/symbol.h"

namespace weft {

// Learning rate as a function of the optimizer's update count.
class LRScheduler {
 public:
  virtual ~LRScheduler();
  // The learning rate after `num_update` updates (MXNet calls the scheduler
  // with Optimizer.num_update, which is 1 during the first update).
  virtual float LR(int64_t num_update) const = 0;
};

// MXNet's FactorScheduler: base_lr * factor^k where k counts the multiples
// of `step` strictly below num_update (k = (num_update - 1) / step), never
// below stop_factor_lr. REQUIRES step >= 1 and factor <= 1 (Error otherwise).
std::unique_ptr<LRScheduler> FactorScheduler(int64_t step, float factor, float base_lr,
                                             float stop_factor_lr = 1e-8f);
// MXNet's MultiFactorScheduler: base_lr * factor^k where k counts the steps
// strictly below num_update. REQUIRES steps non-empty, strictly increasing,
// each >= 1, and factor <= 1 (Error otherwise).
std::unique_ptr<LRScheduler> MultiFactorScheduler(std::vector<int64_t> steps, float factor,
                                                  float base_lr);

class Optimizer {
 public:
  virtual ~Optimizer();

  // "sgd" (learning_rate=0.01, momentum=0, wd=0, rescale_grad=1,
  // clip_gradient=None, lazy_update, begin_num_update=0) or "adam"
  // (learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, wd,
  // rescale_grad, clip_gradient, lazy_update, begin_num_update); names are
  // case-insensitive. As in MXNet a clip_gradient of None or 0 disables
  // clipping. Unknown names, unknown parameters and bad values (negative
  // learning rate, momentum or betas outside [0, 1), epsilon <= 0, ...)
  // throw Error(kInvalidArgument) naming them.
  static std::unique_ptr<Optimizer> Create(const std::string& name, const StringMap& params = {});

  // The schedule replaces the constant learning_rate (null restores it).
  // The scheduler's own base_lr is used: pass the optimizer's learning_rate
  // when creating it to match MXNet, which overwrites base_lr with it.
  void set_lr_scheduler(std::shared_ptr<LRScheduler> s);
  void set_rescale_grad(float r);
  float rescale_grad() const { return rescale_grad_; }
  void set_learning_rate(float lr);
  // The base learning rate (ignores the scheduler and multipliers).
  float learning_rate() const { return lr_; }

  // Reads the lr/wd multipliers of the symbol's arguments (attributes
  // __lr_mult__ / __wd_mult__, i.e. lr_mult / wd_mult in MXNet's Python).
  // Explicit maps (set_lr_mult / set_wd_mult) override the symbol's. Without
  // either, MXNet's default applies: wd_mult is 0 for any parameter whose
  // name ends neither in "_weight" nor in "_gamma" (biases, betas, ...), 1
  // otherwise; lr_mult is 1. Bad multiplier text throws Error naming it.
  void SetMultipliers(const Symbol& symbol);
  void set_lr_mult(const std::map<std::string, float>& m);
  void set_wd_mult(const std::map<std::string, float>& m);
  // The multipliers that apply to the parameter `name`.
  float lr_mult(const std::string& name) const;
  float wd_mult(const std::string& name) const;

  // One update of parameter `index` (a stable index, e.g. its position in
  // the argument list) named `name`: counts the update (as MXNet's
  // _update_count), creates the states lazily on the weight's context, then
  // pushes the update op writing `weight` (and the states) in place.
  // Asynchronous. REQUIRES weight and grad allocated with equal shape, dtype
  // (float32/float64) and context; an index reused with another shape,
  // dtype or context throws Error naming the parameter.
  void Update(int index, const std::string& name, NDArray* weight, const NDArray& grad);

  // MXNet's num_update: the largest per-index update count so far
  // (begin_num_update before any update).
  int64_t num_update() const { return num_update_; }
  // How many times `index` was updated (begin_num_update counted in).
  int64_t update_count(int index) const;
  // MXNet's _get_lr(name) at the current count: scheduler(num_update) (or
  // learning_rate) times lr_mult(name), before Adam's bias correction.
  // Update counts first, then reads this, so update k of a fresh optimizer
  // uses scheduler(k).
  float current_lr(const std::string& name) const;
  // Weight decay for `name`: wd times wd_mult(name).
  float current_wd(const std::string& name) const;
  // The states of `index` (empty before its first update or when the
  // optimizer needs none, e.g. SGD without momentum).
  const std::vector<NDArray>& states(int index) const;
  // "sgd" or "adam".
  const std::string& name() const { return name_; }

 protected:
  Optimizer(std::string name, float lr, float wd, float rescale_grad, float clip_gradient,
            int64_t begin_num_update);
  // Creates the states of one parameter (empty vector for none).
  virtual std::vector<NDArray> CreateStates(const NDArray& weight) = 0;
  // Pushes the update; `lr` and `wd` include the multipliers and the
  // scheduler; `count` is this index's update count (1 on the first update).
  virtual void PushUpdate(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states,
                          float lr, float wd, int64_t count) = 0;
  // Common op parameters: rescale_grad, clip_gradient, lr, wd.
  StringMap BaseParams(float lr, float wd) const;

  std::string name_;
  float lr_;
  float wd_;
  float rescale_grad_;
  float clip_gradient_;  // < 0: no clipping

 private:
  float BaseLR() const;

  int64_t begin_num_update_;
  int64_t num_update_;
  std::shared_ptr<LRScheduler> scheduler_;
  std::map<std::string, float> sym_lr_mult_, sym_wd_mult_, lr_mult_, wd_mult_;
  std::map<int, int64_t> counts_;
  std::map<int, std::vector<NDArray>> states_;
  // What each index was first updated with.
  struct WeightSig {
    Shape shape;
    DType dtype;
    Context ctx;
  };
  std::map<int, WeightSig> first_weight_;
};

}  // namespace weft

#endif  // WEFT_OPTIMIZER_H_
