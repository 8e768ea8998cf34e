// Optimizer base (MXNet's Optimizer: update counts, lr/wd multipliers,
// schedulers) and the two optimizers, SGD and Adam, which push the update
// operators of core/src/op/optimizer_ops.cc.
#include "weft/optimizer.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "train_params.h"
#include "weft/imperative.h"
#include "weft/status.h"

namespace weft {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A zero-filled array like `like` (same shape, dtype, context).
NDArray ZerosLike(const NDArray& like) {
  NDArray z(like.shape(), like.ctx(), like.dtype(), like.runtime());
  std::vector<char> zeros(z.Bytes(), 0);
  z.CopyFromHost(zeros.data(), zeros.size());
  return z;
}

float ParseMult(const std::string& param, const std::string& key, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    Fail(StatusCode::kInvalidArgument, "optimizer: attribute ", key, " of '", param, "' is '", text,
         "'; expected a finite number");
  return static_cast<float>(v);
}

class SGD : public Optimizer {
 public:
  SGD(float lr, float wd, float rescale, float clip, int64_t begin, float momentum)
      : Optimizer("sgd", lr, wd, rescale, clip, begin), momentum_(momentum) {}

 protected:
  // MXNet's SGD.create_state: a momentum buffer only when momentum != 0.
  std::vector<NDArray> CreateStates(const NDArray& weight) override {
    if (momentum_ == 0.0f) return {};
    return {ZerosLike(weight)};
  }

  void PushUpdate(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states, float lr,
                  float wd, int64_t) override {
    StringMap p = BaseParams(lr, wd);
    std::vector<NDArray> outs{*weight};
    if (states->empty()) {
      Invoke(weight->runtime(), "sgd_update", {*weight, grad}, p, &outs);
    } else {
      p["momentum"] = FormatScalar(momentum_);
      Invoke(weight->runtime(), "sgd_mom_update", {*weight, grad, (*states)[0]}, p, &outs);
    }
  }

 private:
  float momentum_;
};

class Adam : public Optimizer {
 public:
  Adam(float lr, float wd, float rescale, float clip, int64_t begin, double beta1, double beta2,
       double epsilon)
      : Optimizer("adam", lr, wd, rescale, clip, begin),
        beta1_(beta1),
        beta2_(beta2),
        epsilon_(epsilon) {}

 protected:
  std::vector<NDArray> CreateStates(const NDArray& weight) override {
    return {ZerosLike(weight), ZerosLike(weight)};
  }

  // MXNet's Adam.update: the bias correction scales the learning rate,
  // lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t) with t this index's
  // update count, computed in double and passed to adam_update.
  void PushUpdate(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states, float lr,
                  float wd, int64_t count) override {
    const double t = static_cast<double>(count);
    const double coef1 = 1.0 - std::pow(beta1_, t);
    const double coef2 = 1.0 - std::pow(beta2_, t);
    const double lr_t = static_cast<double>(lr) * std::sqrt(coef2) / coef1;
    StringMap p = BaseParams(static_cast<float>(lr_t), wd);
    p["beta1"] = FormatScalar(beta1_);
    p["beta2"] = FormatScalar(beta2_);
    p["epsilon"] = FormatScalar(epsilon_);
    std::vector<NDArray> outs{*weight};
    Invoke(weight->runtime(), "adam_update", {*weight, grad, (*states)[0], (*states)[1]}, p, &outs);
  }

 private:
  double beta1_, beta2_, epsilon_;
};

// Declarations shared by both optimizers.
std::vector<ParamDecl> CommonDecls(const std::string& lr_default) {
  std::vector<ParamDecl> d{train::FloatDecl("learning_rate", lr_default, 0, FLT_MAX),
                           train::FloatDecl("wd", "0", -FLT_MAX, FLT_MAX),
                           train::FloatDecl("rescale_grad", "1", -FLT_MAX, FLT_MAX),
                           train::FloatDecl("clip_gradient", "None", -FLT_MAX, FLT_MAX)};
  d.back().optional = true;
  ParamDecl lazy;
  lazy.name = "lazy_update";
  lazy.type = ParamType::kBool;
  lazy.default_value = "True";
  d.push_back(lazy);
  ParamDecl begin;
  begin.name = "begin_num_update";
  begin.type = ParamType::kInt;
  begin.default_value = "0";
  begin.lo = 0;
  begin.hi = 9e15;
  d.push_back(begin);
  return d;
}

}  // namespace

Optimizer::Optimizer(std::string name, float lr, float wd, float rescale_grad, float clip_gradient,
                     int64_t begin_num_update)
    : name_(std::move(name)),
      lr_(lr),
      wd_(wd),
      rescale_grad_(rescale_grad),
      clip_gradient_(clip_gradient > 0 ? clip_gradient : -1.0f),
      begin_num_update_(begin_num_update),
      num_update_(begin_num_update) {}

Optimizer::~Optimizer() = default;

std::unique_ptr<Optimizer> Optimizer::Create(const std::string& name, const StringMap& params) {
  const std::string key = train::Lower(name);
  const std::string what = "optimizer '" + name + "'";
  auto clip_of = [](const ParamValue& v) { return v.is_none ? -1.0f : static_cast<float>(v.f); };
  if (key == "sgd") {
    std::vector<ParamDecl> decls = CommonDecls("0.01");
    decls.push_back(train::FloatDecl("momentum", "0", 0, 1));
    auto v = train::ParseTrainParams(what, decls, params);
    return std::make_unique<SGD>(
        static_cast<float>(v["learning_rate"].f), static_cast<float>(v["wd"].f),
        static_cast<float>(v["rescale_grad"].f), clip_of(v["clip_gradient"]),
        v["begin_num_update"].i, static_cast<float>(v["momentum"].f));
  }
  if (key == "adam") {
    std::vector<ParamDecl> decls = CommonDecls("0.001");
    decls.push_back(train::FloatDecl("beta1", "0.9", 0, 1));
    decls.push_back(train::FloatDecl("beta2", "0.999", 0, 1));
    decls.push_back(train::FloatDecl("epsilon", "1e-08", DBL_MIN, FLT_MAX));
    auto v = train::ParseTrainParams(what, decls, params);
    // beta = 1 would divide by zero in the bias correction.
    for (const char* b : {"beta1", "beta2"})
      if (v[b].f >= 1.0)
        Fail(StatusCode::kInvalidArgument, what, ": invalid value '", params.at(b),
             "' for parameter '", b, "'; expected a number in [0, 1)");
    return std::make_unique<Adam>(
        static_cast<float>(v["learning_rate"].f), static_cast<float>(v["wd"].f),
        static_cast<float>(v["rescale_grad"].f), clip_of(v["clip_gradient"]),
        v["begin_num_update"].i, v["beta1"].f, v["beta2"].f, v["epsilon"].f);
  }
  Fail(StatusCode::kInvalidArgument, "unknown optimizer '", name,
       "'; expected one of 'sgd', 'adam'");
}

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

// MXNet's set_wd_mult: 0 for names ending neither in _weight nor in _gamma,
// then the symbol's __wd_mult__, then explicit values.
float Optimizer::wd_mult(const std::string& name) const {
  auto it = wd_mult_.find(name);
  if (it != wd_mult_.end()) return it->second;
  it = sym_wd_mult_.find(name);
  if (it != sym_wd_mult_.end()) return it->second;
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

void Optimizer::Update(int index, const std::string& name, NDArray* weight, const NDArray& grad) {
  const std::string what =
      StrCat("optimizer '", name_, "': update of parameter '", name, "' (index ", index, ")");
  if (!weight || weight->is_none())
    Fail(StatusCode::kInvalidArgument, what, ": the weight is an empty array");
  if (grad.is_none()) Fail(StatusCode::kInvalidArgument, what, ": the gradient is an empty array");
  if (weight->dtype() != DType::kFloat32 && weight->dtype() != DType::kFloat64)
    Fail(StatusCode::kDType, what, ": the weight has dtype ", DTypeName(weight->dtype()),
         "; expected float32 or float64");
  if (grad.shape() != weight->shape())
    Fail(StatusCode::kShape, what, ": the gradient has shape ", grad.shape().ToString(),
         ", the weight ", weight->shape().ToString());
  if (grad.dtype() != weight->dtype())
    Fail(StatusCode::kDType, what, ": the gradient has dtype ", DTypeName(grad.dtype()),
         ", the weight ", DTypeName(weight->dtype()));
  if (grad.ctx() != weight->ctx())
    Fail(StatusCode::kDevice, what, ": the gradient is on ", grad.ctx().ToString(),
         ", the weight on ", weight->ctx().ToString());
  auto first = first_weight_.find(index);
  if (first != first_weight_.end()) {
    const WeightSig& s = first->second;
    if (s.shape != weight->shape() || s.dtype != weight->dtype() || s.ctx != weight->ctx())
      Fail(StatusCode::kInvalidArgument, what, ": index ", index, " was first updated with a ",
           DTypeName(s.dtype), " ", s.shape.ToString(), " weight on ", s.ctx.ToString(),
           ", now given ", DTypeName(weight->dtype()), " ", weight->shape().ToString(), " on ",
           weight->ctx().ToString());
  }
  // MXNet's _update_count, then _get_lr (which reads num_update afterwards).
  auto c = counts_.emplace(index, begin_num_update_).first;
  const int64_t count = ++c->second;
  num_update_ = std::max(num_update_, count);
  const float lr = current_lr(name);
  const float wd = current_wd(name);
  auto st = states_.find(index);
  if (st == states_.end()) {
    st = states_.emplace(index, CreateStates(*weight)).first;
    first_weight_.emplace(index, WeightSig{weight->shape(), weight->dtype(), weight->ctx()});
  }
  PushUpdate(weight, grad, &st->second, lr, wd, count);
}

}  // namespace weft
