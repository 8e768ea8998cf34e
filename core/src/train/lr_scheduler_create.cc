// CreateLRScheduler: MXNet's schedulers by name with MXNet's parameter
// names as text (see weft/lr_scheduler.h); the factories check the values.
#include <cfloat>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "train_params.h"
#include "weft/lr_scheduler.h"
#include "weft/status.h"

namespace weft {

namespace {

ParamDecl Decl(const std::string& name, ParamType type, const std::string& def) {
  ParamDecl d;
  d.name = name;
  d.type = type;
  d.default_value = def;
  d.required = def.empty();
  return d;
}

// base_lr is optional: None (the default) takes the caller's default.
ParamDecl BaseLRDecl() {
  ParamDecl d = Decl("base_lr", ParamType::kFloat, "None");
  d.optional = true;
  return d;
}

// The parameters every scheduler takes, after `own`.
std::vector<ParamDecl> WithCommon(std::vector<ParamDecl> own) {
  own.push_back(BaseLRDecl());
  own.push_back(Decl("warmup_steps", ParamType::kInt, "0"));
  own.push_back(Decl("warmup_begin_lr", ParamType::kFloat, "0"));
  own.push_back(train::EnumDecl("warmup_mode", "linear", {"linear", "constant"}));
  return own;
}

using Values = std::map<std::string, ParamValue>;

// A parsed double as float; beyond float's range it becomes infinite (and
// the factory rejects it) instead of an undefined conversion.
float ToFloat(double f) {
  if (std::fabs(f) > FLT_MAX && std::isfinite(f)) return f > 0 ? INFINITY : -INFINITY;
  return static_cast<float>(f);
}

float Float(const Values& v, const char* key) { return ToFloat(v.at(key).f); }

float BaseLR(const Values& v, float default_base_lr) {
  const ParamValue& b = v.at("base_lr");
  return b.is_none ? default_base_lr : ToFloat(b.f);
}

LRWarmup Warmup(const Values& v) {
  LRWarmup w;
  w.steps = v.at("warmup_steps").i;
  w.begin_lr = Float(v, "warmup_begin_lr");
  w.mode = v.at("warmup_mode").s == "constant" ? WarmupMode::kConstant : WarmupMode::kLinear;
  return w;
}

}  // namespace

std::unique_ptr<LRScheduler> CreateLRScheduler(const std::string& name, const StringMap& params,
                                               float default_base_lr) {
  const std::string key = train::Lower(name);
  const std::string what = "lr scheduler '" + name + "'";
  auto parse = [&](std::vector<ParamDecl> own) {
    return train::ParseTrainParams(what, WithCommon(std::move(own)), params);
  };
  if (key == "factor" || key == "factorscheduler") {
    Values v = parse({Decl("step", ParamType::kInt, ""), Decl("factor", ParamType::kFloat, "1"),
                      Decl("stop_factor_lr", ParamType::kFloat, "1e-8")});
    return FactorScheduler(v["step"].i, Float(v, "factor"), BaseLR(v, default_base_lr),
                           Float(v, "stop_factor_lr"), Warmup(v));
  }
  if (key == "multifactor" || key == "multifactorscheduler") {
    Values v = parse({Decl("step", ParamType::kShape, ""), Decl("factor", ParamType::kFloat, "1")});
    return MultiFactorScheduler(v["step"].shape.dims(), Float(v, "factor"),
                                BaseLR(v, default_base_lr), Warmup(v));
  }
  if (key == "poly" || key == "polyscheduler") {
    Values v = parse({Decl("max_update", ParamType::kInt, ""), Decl("pwr", ParamType::kFloat, "2"),
                      Decl("final_lr", ParamType::kFloat, "0")});
    return PolyScheduler(v["max_update"].i, BaseLR(v, default_base_lr), Float(v, "pwr"),
                         Float(v, "final_lr"), Warmup(v));
  }
  if (key == "cosine" || key == "cosinescheduler") {
    Values v =
        parse({Decl("max_update", ParamType::kInt, ""), Decl("final_lr", ParamType::kFloat, "0")});
    return CosineScheduler(v["max_update"].i, BaseLR(v, default_base_lr), Float(v, "final_lr"),
                           Warmup(v));
  }
  Fail(StatusCode::kInvalidArgument, "unknown lr scheduler '", name,
       "'; expected one of 'factor', 'multifactor', 'poly', 'cosine'");
}

}  // namespace weft
