// Optimizer base (MXNet's Optimizer: update counts, lr/wd multipliers,
// schedulers, the multi-precision wrapper). The optimizers are in
// optimizer_sgd.cc, optimizer_lars.cc, optimizer_adam.cc and
// optimizer_adaptive.cc, created by name in optimizer_create.cc; state
// save/load is in optimizer_states.cc.
#include "weft/optimizer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "optimizer_internal.h"
#include "weft/imperative.h"
#include "weft/status.h"

namespace weft {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

float ParseMult(const std::string& param, const std::string& key, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    Fail(StatusCode::kInvalidArgument, "optimizer: attribute ", key, " of '", param, "' is '", text,
         "'; expected a finite number");
  return static_cast<float>(v);
}

NDArray CastTo(const NDArray& a, DType dtype) {
  std::vector<NDArray> out;
  Invoke(a.runtime(), "Cast", {a}, {{"dtype", DTypeName(dtype)}}, &out);
  return out[0];
}

// Checks the weight and gradient of an update; `what` names the call.
void CheckArguments(const std::string& what, const NDArray* weight, const NDArray& grad,
                    bool multi_precision) {
  if (!weight || weight->is_none())
    Fail(StatusCode::kInvalidArgument, what, ": the weight is an empty array");
  if (grad.is_none()) Fail(StatusCode::kInvalidArgument, what, ": the gradient is an empty array");
  const DType dt = weight->dtype();
  if (dt == DType::kFloat16 && !multi_precision)
    Fail(StatusCode::kDType, what,
         ": the weight has dtype float16, which needs multi_precision=True (Weft has no float16 "
         "arithmetic; the update runs on a float32 master copy)");
  if (dt != DType::kFloat32 && dt != DType::kFloat64 && dt != DType::kFloat16)
    Fail(StatusCode::kDType, what, ": the weight has dtype ", DTypeName(dt),
         "; expected float32 or float64 (float16 with multi_precision)");
  if (grad.shape() != weight->shape())
    Fail(StatusCode::kShape, what, ": the gradient has shape ", grad.shape().ToString(),
         ", the weight ", weight->shape().ToString());
  if (grad.dtype() != dt)
    Fail(StatusCode::kDType, what, ": the gradient has dtype ", DTypeName(grad.dtype()),
         ", the weight ", DTypeName(dt));
  if (grad.ctx() != weight->ctx())
    Fail(StatusCode::kDevice, what, ": the gradient is on ", grad.ctx().ToString(),
         ", the weight on ", weight->ctx().ToString());
}

}  // namespace

Optimizer::Optimizer(std::string name, const Config& c)
    : name_(std::move(name)),
      lr_(c.lr),
      wd_(c.wd),
      rescale_grad_(c.rescale_grad),
      clip_gradient_(c.clip_gradient > 0 ? c.clip_gradient : -1.0f),
      multi_precision_(c.multi_precision),
      begin_num_update_(c.begin_num_update),
      num_update_(c.begin_num_update) {}

Optimizer::~Optimizer() = default;

void Optimizer::set_lr_scheduler(std::shared_ptr<LRScheduler> s) { scheduler_ = std::move(s); }

void Optimizer::set_rescale_grad(float r) {
  if (!std::isfinite(r))
    Fail(StatusCode::kInvalidArgument, "optimizer '", name_,
         "': rescale_grad must be finite, given ", r);
  rescale_grad_ = r;
}

void Optimizer::set_learning_rate(float lr) {
  if (!std::isfinite(lr) || lr < 0)
    Fail(StatusCode::kInvalidArgument, "optimizer '", name_,
         "': learning_rate must be a finite number >= 0, given ", lr);
  lr_ = lr;
}

void Optimizer::SetMultipliers(const Symbol& symbol) {
  std::map<std::string, float> lr, wd;
  const auto attrs = symbol.AttrDict();
  for (const std::string& arg : symbol.ListArguments()) {
    auto it = attrs.find(arg);
    if (it == attrs.end()) continue;
    for (const char* key : {"__lr_mult__", "lr_mult"}) {
      auto a = it->second.find(key);
      if (a != it->second.end()) lr[arg] = ParseMult(arg, key, a->second);
    }
    for (const char* key : {"__wd_mult__", "wd_mult"}) {
      auto a = it->second.find(key);
      if (a != it->second.end()) wd[arg] = ParseMult(arg, key, a->second);
    }
  }
  sym_lr_mult_ = std::move(lr);
  sym_wd_mult_ = std::move(wd);
}

void Optimizer::set_lr_mult(const std::map<std::string, float>& m) { lr_mult_ = m; }
void Optimizer::set_wd_mult(const std::map<std::string, float>& m) { wd_mult_ = m; }

float Optimizer::lr_mult(const std::string& name) const {
  auto it = lr_mult_.find(name);
  if (it != lr_mult_.end()) return it->second;
  it = sym_lr_mult_.find(name);
  return it != sym_lr_mult_.end() ? it->second : 1.0f;
}

// MXNet's set_wd_mult: the default by name, then the symbol's __wd_mult__,
// then explicit values.
float Optimizer::wd_mult(const std::string& name) const {
  auto it = wd_mult_.find(name);
  if (it != wd_mult_.end()) return it->second;
  it = sym_wd_mult_.find(name);
  if (it != sym_wd_mult_.end()) return it->second;
  return DefaultWdMult(name);
}

// 0 for names ending neither in _weight nor in _gamma.
float Optimizer::DefaultWdMult(const std::string& name) const {
  if (name.empty() || EndsWith(name, "_weight") || EndsWith(name, "_gamma")) return 1.0f;
  return 0.0f;
}

float Optimizer::BaseLR() const { return scheduler_ ? scheduler_->LR(num_update_) : lr_; }

float Optimizer::current_lr(const std::string& name) const { return BaseLR() * lr_mult(name); }

float Optimizer::current_wd(const std::string& name) const { return wd_ * wd_mult(name); }

int64_t Optimizer::update_count(int index) const {
  auto it = counts_.find(index);
  return it != counts_.end() ? it->second : begin_num_update_;
}

const std::vector<NDArray>& Optimizer::states(int index) const {
  static const std::vector<NDArray> kNone;
  auto it = states_.find(index);
  return it != states_.end() ? it->second : kNone;
}

StringMap Optimizer::BaseParams(float lr, float wd) const {
  return {{"lr", FormatScalar(lr)},
          {"wd", FormatScalar(wd)},
          {"rescale_grad", FormatScalar(rescale_grad_)},
          {"clip_gradient", FormatScalar(clip_gradient_)}};
}

// MXNet's Optimizer.create_state_multi_precision: the master copy, then the
// optimizer's states for it.
std::vector<NDArray> Optimizer::CreateStatesMP(const NDArray& weight) {
  std::vector<NDArray> s{CastTo(weight, DType::kFloat32)};
  for (NDArray& a : CreateStates(s[0])) s.push_back(std::move(a));
  return s;
}

// MXNet's Optimizer.update_multi_precision: the float32 gradient updates the
// master copy, which is cast back into the weight.
void Optimizer::PushUpdateMP(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states,
                             float lr, float wd, int64_t count) {
  NDArray master = (*states)[0];
  std::vector<NDArray> inner(states->begin() + 1, states->end());
  PushUpdate(&master, CastTo(grad, DType::kFloat32), &inner, lr, wd, count);
  std::vector<NDArray> out{*weight};
  Invoke(weight->runtime(), "Cast", {master}, {{"dtype", DTypeName(weight->dtype())}}, &out);
}

void Optimizer::CheckSignature(int index, const NDArray& weight, const std::string& what) {
  auto first = first_weight_.find(index);
  if (first == first_weight_.end()) return;
  WeightSig& s = first->second;
  const bool same_ctx = !s.ctx_known || s.ctx == weight.ctx();
  if (s.shape != weight.shape() || s.dtype != weight.dtype() || !same_ctx) {
    if (!s.ctx_known)
      Fail(StatusCode::kInvalidArgument, what, ": the loaded states of index ", index,
           " are for a ", DTypeName(s.dtype), " ", s.shape.ToString(), " weight, given ",
           DTypeName(weight.dtype()), " ", weight.shape().ToString());
    Fail(StatusCode::kInvalidArgument, what, ": index ", index, " was first updated with a ",
         DTypeName(s.dtype), " ", s.shape.ToString(), " weight on ", s.ctx.ToString(),
         ", now given ", DTypeName(weight.dtype()), " ", weight.shape().ToString(), " on ",
         weight.ctx().ToString());
  }
  if (s.ctx_known) return;
  // Loaded states live on cpu(0) until here (MXNet's sync_state_context).
  for (NDArray& a : states_[index])
    if (a.ctx() != weight.ctx()) a = a.Copy(weight.ctx());
  s.ctx = weight.ctx();
  s.ctx_known = true;
}

void Optimizer::Update(int index, const std::string& name, NDArray* weight, const NDArray& grad) {
  const std::string what =
      StrCat("optimizer '", name_, "': update of parameter '", name, "' (index ", index, ")");
  CheckArguments(what, weight, grad, multi_precision_);
  CheckSignature(index, *weight, what);
  // MXNet's _update_count, then _get_lr (which reads num_update afterwards).
  auto c = counts_.emplace(index, begin_num_update_).first;
  const int64_t count = ++c->second;
  num_update_ = std::max(num_update_, count);
  const float lr = current_lr(name);
  const float wd = current_wd(name);
  const bool mp = weight->dtype() == DType::kFloat16;  // CheckArguments: multi_precision set
  auto st = states_.find(index);
  if (st == states_.end()) {
    st = states_.emplace(index, mp ? CreateStatesMP(*weight) : CreateStates(*weight)).first;
    first_weight_.emplace(index, WeightSig{weight->shape(), weight->dtype(), weight->ctx()});
  }
  updating_ = name;
  if (mp)
    PushUpdateMP(weight, grad, &st->second, lr, wd, count);
  else
    PushUpdate(weight, grad, &st->second, lr, wd, count);
}

}  // namespace weft
