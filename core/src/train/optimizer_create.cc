// Optimizer::Create (the optimizers by name) and the pieces the optimizer
// families share (optimizer_internal.h).
#include <cfloat>
#include <utility>
#include <vector>

#include "optimizer_internal.h"
#include "weft/imperative.h"
#include "weft/status.h"

namespace weft {
namespace train {

std::vector<ParamDecl> CommonDecls(const std::string& lr_default, bool lazy_update) {
  std::vector<ParamDecl> d{
      FloatDecl("learning_rate", lr_default, 0, FLT_MAX), FloatDecl("wd", "0", -FLT_MAX, FLT_MAX),
      FloatDecl("rescale_grad", "1", -FLT_MAX, FLT_MAX),
      OptionalFloatDecl("clip_gradient", -FLT_MAX, FLT_MAX), BoolDecl("multi_precision", "False")};
  if (lazy_update) d.push_back(BoolDecl("lazy_update", "True"));
  ParamDecl begin;
  begin.name = "begin_num_update";
  begin.type = ParamType::kInt;
  begin.default_value = "0";
  begin.lo = 0;
  begin.hi = 9e15;
  d.push_back(begin);
  return d;
}

Optimizer::Config ParseConfig(const ParsedParams& v) {
  Optimizer::Config c;
  c.lr = static_cast<float>(v.at("learning_rate").f);
  c.wd = static_cast<float>(v.at("wd").f);
  c.rescale_grad = static_cast<float>(v.at("rescale_grad").f);
  c.clip_gradient = DisabledIfNotPositive(v.at("clip_gradient"));
  c.begin_num_update = v.at("begin_num_update").i;
  c.multi_precision = v.at("multi_precision").b;
  return c;
}

ParamDecl OptionalFloatDecl(const std::string& name, double lo, double hi) {
  ParamDecl d = FloatDecl(name, "None", lo, hi);
  d.optional = true;
  return d;
}

ParamDecl BoolDecl(const std::string& name, const std::string& def) {
  ParamDecl d;
  d.name = name;
  d.type = ParamType::kBool;
  d.default_value = def;
  return d;
}

void CheckBelowOne(const std::string& what, const ParsedParams& v, const StringMap& params,
                   const char* key) {
  if (v.at(key).f < 1.0) return;
  auto it = params.find(key);
  Fail(StatusCode::kInvalidArgument, what, ": invalid value '",
       it != params.end() ? it->second : FormatScalar(v.at(key).f), "' for parameter '", key,
       "'; expected a number in [0, 1)");
}

float DisabledIfNotPositive(const ParamValue& v) {
  return v.is_none || !(v.f > 0) ? -1.0f : static_cast<float>(v.f);
}

NDArray ZerosLike(const NDArray& like, DType dtype) {
  NDArray z(like.shape(), like.ctx(), dtype == DType::kUnknown ? like.dtype() : dtype,
            like.runtime());
  std::vector<char> zeros(z.Bytes(), 0);
  z.CopyFromHost(zeros.data(), zeros.size());
  return z;
}

void PushInPlace(const std::string& op, NDArray* weight, const std::vector<NDArray>& inputs,
                 const StringMap& params) {
  std::vector<NDArray> outs{*weight};
  Invoke(weight->runtime(), op, inputs, params, &outs);
}

}  // namespace train

namespace {

using Factory = std::unique_ptr<Optimizer> (*)(const std::string&, const StringMap&);

// The registry: MXNet's names (lower case), in the order error messages list them.
const std::vector<std::pair<const char*, Factory>>& Factories() {
  static const std::vector<std::pair<const char*, Factory>> kList = {
      {"sgd", train::CreateSGD},         {"nag", train::CreateNAG},
      {"signum", train::CreateSignum},   {"lars", train::CreateLARS},
      {"adam", train::CreateAdam},       {"adamw", train::CreateAdamW},
      {"lamb", train::CreateLAMB},       {"rmsprop", train::CreateRMSProp},
      {"adagrad", train::CreateAdaGrad}, {"adadelta", train::CreateAdaDelta},
      {"ftrl", train::CreateFtrl}};
  return kList;
}

}  // namespace

std::unique_ptr<Optimizer> Optimizer::Create(const std::string& name, const StringMap& params) {
  const std::string key = train::Lower(name);
  for (const auto& [n, make] : Factories())
    if (key == n) return make("optimizer '" + name + "'", params);
  std::string names;
  for (const auto& kv : Factories()) names += StrCat(names.empty() ? "" : ", ", "'", kv.first, "'");
  Fail(StatusCode::kInvalidArgument, "unknown optimizer '", name, "'; expected one of ", names);
}

}  // namespace weft
