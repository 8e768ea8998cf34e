// The Adam family: MXNet 1.9.1's Adam and LAMB (python/mxnet/optimizer/
// optimizer.py) and AdamW (MXNet 2's python/mxnet/optimizer/adamW.py fused
// step over 1.9.1's _adamw_update; 1.9.1 ships the operator only). Each
// keeps a mean and a variance per parameter.
#include <cfloat>
#include <cmath>
#include <utility>

#include "optimizer_internal.h"
#include "weft/imperative.h"

namespace weft {
namespace train {

namespace {

// Adam's and AdamW's bias correction of the learning rate (MXNet's Python
// computes it in double): lr * sqrt(1 - beta2^t) / (1 - beta1^t).
float CorrectedLR(float lr, double beta1, double beta2, int64_t count) {
  const double t = static_cast<double>(count);
  return static_cast<float>(static_cast<double>(lr) * std::sqrt(1.0 - std::pow(beta2, t)) /
                            (1.0 - std::pow(beta1, t)));
}

// The mean/variance pair every optimizer here keeps.
class Moments : public Optimizer {
 public:
  Moments(const char* name, const Config& c, double beta1, double beta2, double epsilon)
      : Optimizer(name, c), beta1_(beta1), beta2_(beta2), epsilon_(epsilon) {}

 protected:
  std::vector<NDArray> CreateStates(const NDArray& weight) override {
    return {ZerosLike(weight), ZerosLike(weight)};
  }
  size_t NumStates() const override { return 2; }

  StringMap BetaParams() const {
    return {{"beta1", FormatScalar(beta1_)},
            {"beta2", FormatScalar(beta2_)},
            {"epsilon", FormatScalar(epsilon_)}};
  }

  double beta1_, beta2_, epsilon_;
};

class Adam : public Moments {
 public:
  Adam(const Config& c, double beta1, double beta2, double epsilon)
      : Moments("adam", c, beta1, beta2, epsilon) {}

 protected:
  // MXNet's Adam.update: the bias correction scales the learning rate.
  void PushUpdate(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states, float lr,
                  float wd, int64_t count) override {
    StringMap p = BaseParams(CorrectedLR(lr, beta1_, beta2_, count), wd);
    for (auto& kv : BetaParams()) p.insert(kv);
    PushInPlace("adam_update", weight, {*weight, grad, (*states)[0], (*states)[1]}, p);
  }
};

class AdamW : public Moments {
 public:
  AdamW(const Config& c, double beta1, double beta2, double epsilon, bool correct_bias)
      : Moments("adamw", c, beta1, beta2, epsilon), correct_bias_(correct_bias) {}

 protected:
  // MXNet 2's AdamW.fused_step: adamw_update(lr=1, eta=the (corrected)
  // rate, wd) with rescale_grad as a one-element array.
  void PushUpdate(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states, float lr,
                  float wd, int64_t count) override {
    StringMap p = BetaParams();
    p["lr"] = "1";
    p["wd"] = FormatScalar(wd);
    p["eta"] = FormatScalar(correct_bias_ ? CorrectedLR(lr, beta1_, beta2_, count) : lr);
    p["clip_gradient"] = FormatScalar(clip_gradient_);
    PushInPlace("_adamw_update", weight,
                {*weight, grad, (*states)[0], (*states)[1], RescaleArray(*weight)}, p);
  }

 private:
  // rescale_grad as a float32 (1,) array on the weight's context, kept
  // while neither changes.
  NDArray RescaleArray(const NDArray& like) {
    auto it = rescale_.find(like.ctx());
    if (it != rescale_.end() && it->second.first == rescale_grad_) return it->second.second;
    NDArray a(Shape({1}), like.ctx(), DType::kFloat32, like.runtime());
    a.CopyFromHost(&rescale_grad_, sizeof(float));
    rescale_[like.ctx()] = {rescale_grad_, a};
    return a;
  }

  bool correct_bias_;
  std::map<Context, std::pair<float, NDArray>> rescale_;
};

class LAMB : public Moments {
 public:
  LAMB(const Config& c, double beta1, double beta2, double epsilon, float lower, float upper,
       bool bias_correction)
      : Moments("lamb", c, beta1, beta2, epsilon),
        lower_(lower),
        upper_(upper),
        bias_correction_(bias_correction) {}

 protected:
  // MXNet's LAMB._update_impl (one index): phase 1 gives the direction g,
  // phase 2 steps by lr * |w| / |g| (bounded, 1 when either norm is 0).
  void PushUpdate(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states, float lr,
                  float wd, int64_t count) override {
    Runtime* rt = weight->runtime();
    StringMap p1 = BetaParams();
    p1["t"] = std::to_string(count);
    p1["bias_correction"] = bias_correction_ ? "True" : "False";
    p1["wd"] = FormatScalar(wd);
    p1["rescale_grad"] = FormatScalar(rescale_grad_);
    p1["clip_gradient"] = FormatScalar(clip_gradient_);
    std::vector<NDArray> g, r1, r2;
    Invoke(rt, "lamb_update_phase1", {*weight, grad, (*states)[0], (*states)[1]}, p1, &g);
    Invoke(rt, "norm", {*weight}, {}, &r1);
    Invoke(rt, "norm", {g[0]}, {}, &r2);
    PushInPlace("lamb_update_phase2", weight, {*weight, g[0], r1[0], r2[0]},
                {{"lr", FormatScalar(lr)},
                 {"lower_bound", FormatScalar(lower_)},
                 {"upper_bound", FormatScalar(upper_)}});
  }

 private:
  float lower_, upper_;  // < 0: none
  bool bias_correction_;
};

// Common declarations plus beta1, beta2 and epsilon (default `eps`), checked.
ParsedParams ParseBetas(const std::string& what, const StringMap& params, bool lazy_update,
                        const std::string& eps, std::vector<ParamDecl> extra) {
  std::vector<ParamDecl> decls = CommonDecls("0.001", lazy_update);
  decls.push_back(FloatDecl("beta1", "0.9", 0, 1));
  decls.push_back(FloatDecl("beta2", "0.999", 0, 1));
  decls.push_back(FloatDecl("epsilon", eps, DBL_MIN, FLT_MAX));
  for (ParamDecl& d : extra) decls.push_back(d);
  ParsedParams v = ParseTrainParams(what, decls, params);
  // beta = 1 would divide by zero in the bias correction.
  CheckBelowOne(what, v, params, "beta1");
  CheckBelowOne(what, v, params, "beta2");
  return v;
}

}  // namespace

std::unique_ptr<Optimizer> CreateAdam(const std::string& what, const StringMap& params) {
  ParsedParams v = ParseBetas(what, params, true, "1e-08", {});
  return std::make_unique<Adam>(ParseConfig(v), v["beta1"].f, v["beta2"].f, v["epsilon"].f);
}

std::unique_ptr<Optimizer> CreateAdamW(const std::string& what, const StringMap& params) {
  ParsedParams v = ParseBetas(what, params, false, "1e-06", {BoolDecl("correct_bias", "True")});
  return std::make_unique<AdamW>(ParseConfig(v), v["beta1"].f, v["beta2"].f, v["epsilon"].f,
                                 v["correct_bias"].b);
}

std::unique_ptr<Optimizer> CreateLAMB(const std::string& what, const StringMap& params) {
  ParsedParams v = ParseBetas(
      what, params, false, "1e-06",
      {OptionalFloatDecl("lower_bound", -FLT_MAX, FLT_MAX),
       OptionalFloatDecl("upper_bound", -FLT_MAX, FLT_MAX), BoolDecl("bias_correction", "True")});
  return std::make_unique<LAMB>(ParseConfig(v), v["beta1"].f, v["beta2"].f, v["epsilon"].f,
                                DisabledIfNotPositive(v["lower_bound"]),
                                DisabledIfNotPositive(v["upper_bound"]), v["bias_correction"].b);
}

}  // namespace train
}  // namespace weft
