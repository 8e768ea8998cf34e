// LARS (MXNet 1.9.1's LARS, python/mxnet/optimizer/optimizer.py): SGD whose
// learning rate is scaled per layer by eta * |w| / (|g| + wd * |w| + eps),
// except for names ending in gamma, beta or bias; with momentum_correction
// the momentum is scaled by lr_t / lr_{t-1}. MXNet computes the norms with
// multi_sum_sq and the rate with multi_lars on the device; here the norms
// come from the `norm` operator and are read back (the update waits for the
// weight and gradient), then the rate is computed in float as multi_lars
// does and sgd_update / sgd_mom_update (mp_* for float16) apply it.
#include <cfloat>
#include <cmath>
#include <limits>

#include "optimizer_internal.h"
#include "weft/imperative.h"

namespace weft {
namespace train {

namespace {

bool EndsWith(const std::string& s, const char* suffix) {
  const std::string x = suffix;
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

// The L2 norm of `a` in float (float16 is cast to float32 first, as
// multi_sum_sq accumulates it); waits for `a`.
float Norm(const NDArray& a) {
  NDArray x = a;
  if (a.dtype() == DType::kFloat16) {
    std::vector<NDArray> c;
    Invoke(a.runtime(), "Cast", {a}, {{"dtype", "float32"}}, &c);
    x = c[0];
  }
  std::vector<NDArray> n;
  Invoke(x.runtime(), "norm", {x}, {}, &n);
  if (n[0].dtype() == DType::kFloat64) {
    double v = 0;
    n[0].CopyToHost(&v, sizeof(v));
    return static_cast<float>(v);
  }
  float v = 0;
  n[0].CopyToHost(&v, sizeof(v));
  return v;
}

class LARS : public MomentumOptimizer {
 public:
  LARS(const Config& c, float momentum, float eta, float eps, bool momentum_correction)
      : MomentumOptimizer("lars", c, momentum),
        eta_(eta),
        eps_(eps),
        correction_(momentum_correction) {}

 protected:
  void PushUpdate(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states, float lr,
                  float wd, int64_t) override {
    StringMap p = Params(*weight, grad, lr, wd);
    if (states->empty())
      PushInPlace("sgd_update", weight, {*weight, grad}, p);
    else
      PushInPlace("sgd_mom_update", weight, {*weight, grad, (*states)[0]}, p);
  }

  void PushUpdateMP(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states, float lr,
                    float wd, int64_t) override {
    StringMap p = Params(*weight, grad, lr, wd);
    const NDArray& master = (*states)[0];
    if (states->size() == 1)
      PushInPlace("mp_sgd_update", weight, {*weight, grad, master}, p);
    else
      PushInPlace("mp_sgd_mom_update", weight, {*weight, grad, (*states)[1], master}, p);
  }

  // LARS.set_wd_mult: no weight decay unless the name ends in "_weight".
  float DefaultWdMult(const std::string& name) const override {
    return name.empty() || EndsWith(name, "_weight") ? 1.0f : 0.0f;
  }

  // The learning rates of the momentum correction; NaN while unset (None).
  std::map<std::string, double> ExtraStates() const override {
    return {{"lars_cur_lr", cur_lr_}, {"lars_last_lr", last_lr_}};
  }
  // Each a learning rate this optimizer could have recorded: None (NaN), 0
  // or a normal float32 value, so that the correction's ratio stays a float.
  void SetExtraStates(const std::map<std::string, double>& v) override {
    for (const char* key : {"lars_cur_lr", "lars_last_lr"}) {
      const double x = v.at(key);
      if (!(std::isnan(x) || x == 0 || (x >= FLT_MIN && x <= FLT_MAX)))
        Fail(StatusCode::kInvalidArgument, "optimizer states: entry 'extra:", key,
             "': expected None (NaN), 0 or a float32 learning rate > 0, found ", x);
    }
    cur_lr_ = v.at("lars_cur_lr");
    last_lr_ = v.at("lars_last_lr");
  }

 private:
  // The update op's parameters: MXNet's _get_lrs (which tracks the previous
  // and current base rate), the momentum correction, then _get_lars.
  StringMap Params(const NDArray& weight, const NDArray& grad, float lr, float wd) {
    const double base = BaseLR();
    if (!std::isnan(cur_lr_)) last_lr_ = cur_lr_;
    if (std::isnan(cur_lr_)) last_lr_ = base;
    cur_lr_ = base;
    StringMap p = BaseParams(LayerLR(weight, grad, lr, wd), wd);
    if (momentum_ > 0) {
      const bool scale = correction_ && last_lr_ != 0;
      p["momentum"] = FormatScalar(scale ? momentum_ * (cur_lr_ / last_lr_) : momentum_);
    }
    return p;
  }

  // multi_lars in float: lr * eta * |w| / (|g| * rescale_grad + wd * |w| + eps)
  // when |w| > 0 and |g| > 0, else lr; gamma, beta and bias keep lr.
  float LayerLR(const NDArray& weight, const NDArray& grad, float lr, float wd) const {
    const std::string& n = updating_name();
    if (EndsWith(n, "gamma") || EndsWith(n, "beta") || EndsWith(n, "bias")) return lr;
    const float w_norm = Norm(weight), g_norm = Norm(grad);
    if (!(w_norm > 0.f && g_norm > 0.f)) return lr;
    return lr * eta_ * w_norm / (g_norm * rescale_grad_ + wd * w_norm + eps_);
  }

 private:
  float eta_, eps_;
  bool correction_;
  double cur_lr_ = std::numeric_limits<double>::quiet_NaN();
  double last_lr_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace

std::unique_ptr<Optimizer> CreateLARS(const std::string& what, const StringMap& params) {
  std::vector<ParamDecl> decls = CommonDecls("0.01", true);
  decls.push_back(FloatDecl("momentum", "0", 0, 1));
  decls.push_back(FloatDecl("eta", "0.001", 0, FLT_MAX));
  decls.push_back(FloatDecl("eps", "0", 0, FLT_MAX));
  decls.push_back(BoolDecl("momentum_correction", "True"));
  ParsedParams v = ParseTrainParams(what, decls, params);
  return std::make_unique<LARS>(ParseConfig(v), static_cast<float>(v["momentum"].f),
                                static_cast<float>(v["eta"].f), static_cast<float>(v["eps"].f),
                                v["momentum_correction"].b);
}

}  // namespace train
}  // namespace weft
