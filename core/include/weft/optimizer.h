// Optimizers with MXNet's semantics (python/mxnet/optimizer/optimizer.py);
// their learning-rate schedulers are in weft/lr_scheduler.h.
//
// An Optimizer owns its hyper-parameters, the per-parameter states (momentum,
// moment estimates, ...; created lazily on the weight's context at the first
// update of an index), the per-index update counts and the lr/wd
// multipliers. `Update` pushes update operators (sgd_update, adam_update,
// rmsprop_update, ... of core/src/op/optimizer_ops*.cc) through
// weft::Invoke; they write the weight and the states in place and run
// asynchronously on the engine. SaveStates/LoadStates write and read the
// states and counts (format below). Hyper-parameter and argument errors are
// thrown as weft::Error before anything is pushed. An Optimizer is not
// thread-safe: one caller at a time (a fit loop). LRScheduler::LR is const
// and thread-safe.
#ifndef WEFT_OPTIMIZER_H_
#define WEFT_OPTIMIZER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weft/lr_scheduler.h"
#include "weft/ndarray.h"
#include "weft/ndarray_io.h"
#include "weft/param.h"
#include "weft/symbol.h"

namespace weft {

class Optimizer {
 public:
  // The hyper-parameters every optimizer takes (Create parses them; the
  // optimizers' constructors receive them).
  struct Config {
    float lr = 0.01f, wd = 0, rescale_grad = 1, clip_gradient = -1;  // clip < 0: none
    int64_t begin_num_update = 0;
    bool multi_precision = false;
  };

  virtual ~Optimizer();

  // MXNet 1.9.1's optimizers by name (case-insensitive), with MXNet's
  // defaults; every one takes learning_rate, wd=0, rescale_grad=1,
  // clip_gradient=None, begin_num_update=0 and multi_precision=False:
  //   "sgd"      learning_rate=0.01, momentum=0, lazy_update
  //   "nag"      learning_rate=0.01, momentum=0
  //   "signum"   learning_rate=0.01, momentum=0.9, wd_lh=0 (signsgd_update
  //              when momentum is 0)
  //   "lars"     learning_rate=0.01, momentum=0, eta=0.001, eps=0,
  //              momentum_correction=True, lazy_update
  //   "adam"     learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
  //              lazy_update
  //   "adamw"    learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
  //              correct_bias=True (MXNet 2's AdamW over 1.9.1's
  //              _adamw_update; 1.9.1 has the operator only)
  //   "lamb"     learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
  //              lower_bound=None, upper_bound=None, bias_correction=True
  //   "rmsprop"  learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
  //              centered=False, clip_weights=None
  //   "adagrad"  learning_rate=0.01, eps=1e-7
  //   "adadelta" rho=0.9, epsilon=1e-5 (no learning rate in the step)
  //   "ftrl"     learning_rate=0.1, lamda1=0.01, beta=1
  // As in MXNet a clip_gradient (or clip_weights, lower/upper_bound) of None
  // or 0 disables it (MXNet's dense AdaGrad and AdaDelta would clip to 0 at
  // clip_gradient=0; Weft disables it there too). Unknown names, unknown parameters and bad values
  // (negative learning rate, momentum outside [0, 1], betas outside [0, 1),
  // epsilon <= 0, ...) throw Error(kInvalidArgument) naming them.
  //
  // multi_precision=True: a float16 weight is updated through a float32
  // master copy (the index's state 0, created from the weight at its first
  // update; the optimizer's own states follow, in float32). sgd, nag and
  // lars use the fused mp_sgd_update / mp_sgd_mom_update /
  // mp_nag_mom_update; the others, as MXNet's Optimizer base class does,
  // cast the gradient to float32, update the master copy and cast it back.
  // Weft has no float16 arithmetic kernels, so a float16 weight without
  // multi_precision throws Error(kDType). The update operators added for
  // these optimizers (all but sgd_update, sgd_mom_update and adam_update),
  // and Cast to and from float16, have CPU kernels only: their weights must
  // be on the CPU (an update on another device fails naming the operator).
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
  // Whether float16 weights are updated through float32 master copies.
  bool multi_precision() const { return multi_precision_; }

  // Reads the lr/wd multipliers of the symbol's arguments (attributes
  // __lr_mult__ / __wd_mult__, i.e. lr_mult / wd_mult in MXNet's Python).
  // Explicit maps (set_lr_mult / set_wd_mult) override the symbol's. Without
  // either, MXNet's default applies: wd_mult is 0 for any parameter whose
  // name ends neither in "_weight" nor in "_gamma" (biases, betas, ...; lars:
  // not in "_weight"), 1 otherwise; lr_mult is 1. Bad multiplier text
  // throws Error naming it.
  void SetMultipliers(const Symbol& symbol);
  void set_lr_mult(const std::map<std::string, float>& m);
  void set_wd_mult(const std::map<std::string, float>& m);
  // The multipliers that apply to the parameter `name`.
  float lr_mult(const std::string& name) const;
  float wd_mult(const std::string& name) const;

  // One update of parameter `index` (a stable index, e.g. its position in
  // the argument list) named `name`: counts the update (as MXNet's
  // _update_count), creates the states lazily on the weight's context (or
  // moves loaded states there), then pushes the update op writing `weight`
  // (and the states) in place. Asynchronous. REQUIRES weight and grad
  // allocated with equal shape, dtype (float32/float64; float16 with
  // multi_precision) and context; an index reused with another shape or
  // dtype (or context) than at its first update or in loaded states throws
  // Error naming the parameter.
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
  // The optimizer's name as Create spells it in lower case ("sgd", ...).
  const std::string& name() const { return name_; }

  // Optimizer states, MXNet's Updater.get_states(dump_optimizer=True) /
  // set_states without pickle: every index's states and update count,
  // num_update, and the optimizer's scalar state (lars: the previous and
  // current learning rate of its momentum correction), so that an optimizer
  // created with the same parameters that loads them continues exactly as
  // this one would. Hyper-parameters, multipliers and the scheduler are not
  // saved. The file is MXNet's NDArray-list format (weft/ndarray_io.h) with
  // named entries, in this order:
  //   "meta:format"     int64 (1,): 1, the layout version
  //   "meta:optimizer"  uint8 (n,): the optimizer's name in ASCII
  //   "meta:num_update" int64 (1,)
  //   "extra:<key>"     float64 (1,) per scalar state, by key
  //   per index, ascending:
  //   "count:<index>"   int64 (1,): the index's update count
  //   "weight:<index>"  int64 (1 + ndim,): the weight's dtype code, then
  //                     its shape
  //   "state:<index>:<j>" the index's state j (weight-shaped; the weight's
  //                     dtype, or float32 for multi-precision states)
  // Saving waits for pending updates of the states (they are read); `rt`
  // (not null) allocates the metadata arrays.
  std::string SaveStatesToBytes(Runtime* rt) const;
  void SaveStates(const std::string& path, Runtime* rt) const;  // kIO when it cannot write
  // Replaces every state, count and num_update by the serialised ones; the
  // states are allocated on cpu(0) of `rt` and move to each weight's
  // context at its next update. Nothing changes when loading fails:
  // another optimizer's states, a malformed or truncated file, a state
  // count, shape or dtype other than this optimizer creates for the
  // recorded weight (e.g. momentum states into SGD without momentum) throw
  // Error(kInvalidArgument) naming the entry, what was expected and what
  // was found; LoadStates prefixes the path (kIO when it cannot be read).
  void LoadStatesFromBytes(const void* data, size_t size, Runtime* rt);
  void LoadStates(const std::string& path, Runtime* rt);

 protected:
  Optimizer(std::string name, const Config& config);
  // Creates the states of one float32/float64 parameter (empty vector for
  // none); each is shaped like the weight, of its dtype.
  virtual std::vector<NDArray> CreateStates(const NDArray& weight) = 0;
  // How many arrays CreateStates creates.
  virtual size_t NumStates() const = 0;
  // Pushes the update; `lr` and `wd` include the multipliers and the
  // scheduler; `count` is this index's update count (1 on the first update).
  virtual void PushUpdate(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states,
                          float lr, float wd, int64_t count) = 0;
  // The multi-precision forms for a float16 weight: states[0] is the float32
  // master copy, then CreateStates(master copy). The defaults cast (MXNet's
  // Optimizer.update_multi_precision); sgd, nag and lars fuse.
  virtual std::vector<NDArray> CreateStatesMP(const NDArray& weight);
  virtual void PushUpdateMP(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states,
                            float lr, float wd, int64_t count);
  // wd_mult of a name without an explicit or symbol multiplier.
  virtual float DefaultWdMult(const std::string& name) const;
  // Scalar state beyond the arrays (saved as "extra:<key>"); Load passes
  // back exactly the keys ExtraStates returns, before it changes anything
  // else, and SetExtraStates throws Error(kInvalidArgument) for a value the
  // optimizer could not have saved.
  virtual std::map<std::string, double> ExtraStates() const { return {}; }
  virtual void SetExtraStates(const std::map<std::string, double>&) {}
  // Common op parameters: rescale_grad, clip_gradient, lr, wd.
  StringMap BaseParams(float lr, float wd) const;
  // scheduler(num_update), or learning_rate without a scheduler.
  float BaseLR() const;
  // The name of the parameter whose update is being pushed (lars reads it).
  const std::string& updating_name() const { return updating_; }

  std::string name_;
  float lr_;
  float wd_;
  float rescale_grad_;
  float clip_gradient_;  // < 0: no clipping
  bool multi_precision_;

 private:
  // What each index was first updated with (or what loaded states are
  // for: ctx_known false until the next update moves them).
  struct WeightSig {
    Shape shape;
    DType dtype;
    Context ctx;
    bool ctx_known = true;
  };
  // Checks `weight` against the index's signature and moves loaded states
  // to the weight's context; `what` names the call.
  void CheckSignature(int index, const NDArray& weight, const std::string& what);
  // The states as the NDArray list SaveStates writes, and a parsed and
  // checked list (optimizer_states.cc).
  NDArrayList StateList(Runtime* rt) const;
  struct Loaded;
  Loaded ParseStates(const NDArrayList& list) const;

  int64_t begin_num_update_;
  int64_t num_update_;
  std::string updating_;
  std::shared_ptr<LRScheduler> scheduler_;
  std::map<std::string, float> sym_lr_mult_, sym_wd_mult_, lr_mult_, wd_mult_;
  std::map<int, int64_t> counts_;
  std::map<int, std::vector<NDArray>> states_;
  std::map<int, WeightSig> first_weight_;
};

}  // namespace weft

#endif  // WEFT_OPTIMIZER_H_
