// The adaptive-rate optimizers of MXNet 1.9.1 (python/mxnet/optimizer/
// optimizer.py): RMSProp (plain and centered), AdaGrad, AdaDelta and Ftrl.
// Their states have the weight's dtype (MXNet's Python creates some of them
// as float32 whatever the weight; the same for float32 weights).
#include <cfloat>

#include "optimizer_internal.h"

namespace weft {
namespace train {

namespace {

// An optimizer whose states are `n` zero arrays and whose step is one op
// taking (weight, grad, states...) and `params` on top of the base ones.
class Fused : public Optimizer {
 public:
  Fused(const char* name, const Config& c, std::string op, size_t n, StringMap params)
      : Optimizer(name, c), op_(std::move(op)), n_(n), params_(std::move(params)) {}

 protected:
  std::vector<NDArray> CreateStates(const NDArray& weight) override {
    std::vector<NDArray> s;
    for (size_t i = 0; i < n_; ++i) s.push_back(ZerosLike(weight));
    return s;
  }
  size_t NumStates() const override { return n_; }

  void PushUpdate(NDArray* weight, const NDArray& grad, std::vector<NDArray>* states, float lr,
                  float wd, int64_t) override {
    StringMap p = BaseParams(lr, wd);
    if (op_ == "adadelta_update") p.erase("lr");  // AdaDelta's step has no learning rate
    for (const auto& kv : params_) p[kv.first] = kv.second;
    std::vector<NDArray> in{*weight, grad};
    in.insert(in.end(), states->begin(), states->end());
    PushInPlace(op_, weight, in, p);
  }

 private:
  std::string op_;
  size_t n_;
  StringMap params_;
};

std::string Text(const ParamValue& v) { return FormatScalar(v.f); }

ParsedParams Parse(const std::string& what, const StringMap& params, const std::string& lr,
                   std::vector<ParamDecl> extra) {
  std::vector<ParamDecl> decls = CommonDecls(lr, false);
  for (ParamDecl& d : extra) decls.push_back(d);
  return ParseTrainParams(what, decls, params);
}

}  // namespace

// rmsprop_update, or rmspropalex_update with states n, g, delta when centered.
std::unique_ptr<Optimizer> CreateRMSProp(const std::string& what, const StringMap& params) {
  ParsedParams v =
      Parse(what, params, "0.001",
            {FloatDecl("gamma1", "0.9", 0, 1), FloatDecl("gamma2", "0.9", 0, 1),
             FloatDecl("epsilon", "1e-08", DBL_MIN, FLT_MAX), BoolDecl("centered", "False"),
             OptionalFloatDecl("clip_weights", -FLT_MAX, FLT_MAX)});
  const bool centered = v["centered"].b;
  StringMap p = {{"gamma1", Text(v["gamma1"])},
                 {"epsilon", Text(v["epsilon"])},
                 {"clip_weights", FormatScalar(DisabledIfNotPositive(v["clip_weights"]))}};
  if (centered) p["gamma2"] = Text(v["gamma2"]);
  return std::make_unique<Fused>("rmsprop", ParseConfig(v),
                                 centered ? "rmspropalex_update" : "rmsprop_update",
                                 centered ? 3 : 1, p);
}

std::unique_ptr<Optimizer> CreateAdaGrad(const std::string& what, const StringMap& params) {
  ParsedParams v = Parse(what, params, "0.01", {FloatDecl("eps", "1e-07", DBL_MIN, FLT_MAX)});
  return std::make_unique<Fused>("adagrad", ParseConfig(v), "adagrad_update", 1,
                                 StringMap{{"epsilon", Text(v["eps"])}});
}

std::unique_ptr<Optimizer> CreateAdaDelta(const std::string& what, const StringMap& params) {
  ParsedParams v =
      Parse(what, params, "0.01",
            {FloatDecl("rho", "0.9", 0, 1), FloatDecl("epsilon", "1e-05", DBL_MIN, FLT_MAX)});
  return std::make_unique<Fused>(
      "adadelta", ParseConfig(v), "adadelta_update", 2,
      StringMap{{"rho", Text(v["rho"])}, {"epsilon", Text(v["epsilon"])}});
}

std::unique_ptr<Optimizer> CreateFtrl(const std::string& what, const StringMap& params) {
  ParsedParams v =
      Parse(what, params, "0.1",
            {FloatDecl("lamda1", "0.01", 0, FLT_MAX), FloatDecl("beta", "1", 0, FLT_MAX)});
  // ftrl_update divides by the learning rate.
  if (!(v["learning_rate"].f > 0))
    Fail(StatusCode::kInvalidArgument, what,
         ": parameter 'learning_rate' must be > 0 for ftrl, given ", Text(v["learning_rate"]));
  return std::make_unique<Fused>(
      "ftrl", ParseConfig(v), "ftrl_update", 2,
      StringMap{{"lamda1", Text(v["lamda1"])}, {"beta", Text(v["beta"])}});
}

}  // namespace train
}  // namespace weft
