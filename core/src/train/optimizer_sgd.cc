// The SGD family (MXNet 1.9.1's SGD, NAG and Signum in
// python/mxnet/optimizer/optimizer.py): one momentum buffer when momentum
// is not 0; multi-precision SGD and NAG through the fused mp_* operators.
#include <cfloat>

#include "optimizer_internal.h"

namespace weft {
namespace train {

namespace {

// SGD (update ops sgd_*), or NAG (nag_mom_update) when `nesterov`.
class SGD : public MomentumOptimizer {
 public:
  SGD(const char* name, const Config& c, float momentum, bool nesterov)
      : MomentumOptimizer(name, c, momentum), nesterov_(nesterov) {}

 protected:
  void PushUpdate(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states, float lr,
                  float wd, int64_t) override {
    StringMap p = BaseParams(lr, wd);
    if (states->empty()) {
      PushInPlace("sgd_update", weight, {*weight, grad}, p);
      return;
    }
    p["momentum"] = FormatScalar(momentum_);
    PushInPlace(nesterov_ ? "nag_mom_update" : "sgd_mom_update", weight,
                {*weight, grad, (*states)[0]}, p);
  }

  // Multi-precision states as the base class makes them (master copy, then
  // the momentum in float32), updated by the fused operators.
  void PushUpdateMP(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states, float lr,
                    float wd, int64_t) override {
    StringMap p = BaseParams(lr, wd);
    const NDArray& master = (*states)[0];
    if (states->size() == 1) {
      PushInPlace("mp_sgd_update", weight, {*weight, grad, master}, p);
      return;
    }
    p["momentum"] = FormatScalar(momentum_);
    PushInPlace(nesterov_ ? "mp_nag_mom_update" : "mp_sgd_mom_update", weight,
                {*weight, grad, (*states)[1], master}, p);
  }

 private:
  bool nesterov_;
};

class Signum : public MomentumOptimizer {
 public:
  Signum(const Config& c, float momentum, float wd_lh)
      : MomentumOptimizer("signum", c, momentum), wd_lh_(wd_lh) {}

 protected:
  // signum_update with a momentum buffer, signsgd_update without.
  void PushUpdate(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states, float lr,
                  float wd, int64_t) override {
    StringMap p = BaseParams(lr, wd);
    if (states->empty()) {
      PushInPlace("signsgd_update", weight, {*weight, grad}, p);
      return;
    }
    p["momentum"] = FormatScalar(momentum_);
    p["wd_lh"] = FormatScalar(wd_lh_);
    PushInPlace("signum_update", weight, {*weight, grad, (*states)[0]}, p);
  }

 private:
  float wd_lh_;
};

ParsedParams ParseWithMomentum(const std::string& what, const StringMap& params, bool lazy_update,
                               const std::string& momentum_default,
                               std::vector<ParamDecl> extra = {}) {
  std::vector<ParamDecl> decls = CommonDecls("0.01", lazy_update);
  decls.push_back(FloatDecl("momentum", momentum_default, 0, 1));
  for (ParamDecl& d : extra) decls.push_back(d);
  return ParseTrainParams(what, decls, params);
}

}  // namespace

std::unique_ptr<Optimizer> CreateSGD(const std::string& what, const StringMap& params) {
  ParsedParams v = ParseWithMomentum(what, params, true, "0");
  return std::make_unique<SGD>("sgd", ParseConfig(v), static_cast<float>(v["momentum"].f), false);
}

std::unique_ptr<Optimizer> CreateNAG(const std::string& what, const StringMap& params) {
  ParsedParams v = ParseWithMomentum(what, params, false, "0");
  return std::make_unique<SGD>("nag", ParseConfig(v), static_cast<float>(v["momentum"].f), true);
}

std::unique_ptr<Optimizer> CreateSignum(const std::string& what, const StringMap& params) {
  ParsedParams v =
      ParseWithMomentum(what, params, false, "0.9", {FloatDecl("wd_lh", "0", -FLT_MAX, FLT_MAX)});
  // signsgd_update (momentum 0) has no wd_lh: MXNet fails at the first update.
  if (v["momentum"].f == 0 && v["wd_lh"].f != 0)
    Fail(StatusCode::kInvalidArgument, what, ": parameter 'wd_lh' (", params.at("wd_lh"),
         ") needs momentum > 0 (with momentum 0 signum runs signsgd_update, which has no wd_lh)");
  return std::make_unique<Signum>(ParseConfig(v), static_cast<float>(v["momentum"].f),
                                  static_cast<float>(v["wd_lh"].f));
}

}  // namespace train
}  // namespace weft
