// C ABI: weft_initializer_* and weft_optimizer_* (weft/initializer.h,
// weft/optimizer.h), state files included. Each handle object carries a mutex, so calls on one
// handle from several threads are serialised (the C++ objects are not
// thread-safe themselves).
#include <cctype>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "c_api_internal.h"
#include "c_api_symbol_internal.h"
#include "c_api_train_internal.h"
#include "weft/initializer.h"
#include "weft/lr_scheduler.h"
#include "weft/optimizer.h"
#include "weft/runtime.h"

namespace weft {
namespace capi {

namespace {}  // namespace

}  // namespace capi
}  // namespace weft

using weft::StatusCode;
using weft::capi::CheckNotNull;
using weft::capi::GetObject;

WeftStatus weft_initializer_create(const char* name, const char* const* keys,
                                   const char* const* vals, size_t num_params, uint64_t seed,
                                   WeftInitializer** out) {
  WEFT_API_BEGIN();
  CheckNotNull(name, "name");
  CheckNotNull(out, "out");
  auto obj = std::make_shared<weft::capi::InitializerObject>();
  obj->init = weft::Initializer::Create(name, weft::capi::ParamArgs(keys, vals, num_params), seed);
  *out = weft::capi::NewHandle<WeftInitializer>(std::move(obj));
  WEFT_API_END();
}

WeftStatus weft_initializer_init(WeftInitializer* init, const char* param_name, WeftNDArray* arr) {
  WEFT_API_BEGIN();
  auto obj = GetObject(init, "init");
  CheckNotNull(param_name, "param_name");
  auto a = GetObject(arr, "arr");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->init->Init(param_name, a.get());
  WEFT_API_END();
}

WeftStatus weft_initializer_free(WeftInitializer* init) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(init, "init");
  WEFT_API_END();
}

WeftStatus weft_optimizer_create(const char* name, const char* const* keys, const char* const* vals,
                                 size_t num_params, WeftOptimizer** out) {
  WEFT_API_BEGIN();
  CheckNotNull(name, "name");
  CheckNotNull(out, "out");
  auto obj = std::make_shared<weft::capi::OptimizerObject>();
  obj->opt = weft::Optimizer::Create(name, weft::capi::ParamArgs(keys, vals, num_params));
  *out = weft::capi::NewHandle<WeftOptimizer>(std::move(obj));
  WEFT_API_END();
}

WeftStatus weft_optimizer_set_lr_scheduler(WeftOptimizer* opt, const char* kind,
                                           const int64_t* steps, size_t num_steps, float factor,
                                           float stop_factor_lr) {
  WEFT_API_BEGIN();
  auto obj = GetObject(opt, "opt");
  CheckNotNull(kind, "kind");
  const std::string k = kind;
  std::lock_guard<std::mutex> lock(obj->mu);
  if (k == "none") {
    obj->opt->set_lr_scheduler(nullptr);
  } else if (k == "factor") {
    weft::capi::CheckArray(steps, num_steps, "steps");
    if (num_steps != 1)
      weft::Fail(StatusCode::kInvalidArgument,
                 "a \"factor\" schedule takes num_steps 1 (the period), given ", num_steps);
    obj->opt->set_lr_scheduler(
        weft::FactorScheduler(steps[0], factor, obj->opt->learning_rate(), stop_factor_lr));
  } else if (k == "multifactor") {
    weft::capi::CheckArray(steps, num_steps, "steps");
    std::vector<int64_t> s(steps, steps + num_steps);
    obj->opt->set_lr_scheduler(
        weft::MultiFactorScheduler(std::move(s), factor, obj->opt->learning_rate()));
  } else {
    weft::Fail(StatusCode::kInvalidArgument, "argument 'kind' is '", k,
               "', expected \"factor\", \"multifactor\" or \"none\" (other schedules and "
               "warm-up: weft_optimizer_set_lr_scheduler_ex)");
  }
  WEFT_API_END();
}

WeftStatus weft_optimizer_set_lr_scheduler_ex(WeftOptimizer* opt, const char* name,
                                              const char* const* keys, const char* const* vals,
                                              size_t num_params) {
  WEFT_API_BEGIN();
  auto obj = GetObject(opt, "opt");
  CheckNotNull(name, "name");
  const weft::StringMap params = weft::capi::ParamArgs(keys, vals, num_params);
  std::lock_guard<std::mutex> lock(obj->mu);
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "none") {
    if (!params.empty())
      weft::Fail(StatusCode::kInvalidArgument, "schedule \"none\" takes no parameters, given ",
                 params.size(), " (first '", params.begin()->first, "')");
    obj->opt->set_lr_scheduler(nullptr);
  } else {
    obj->opt->set_lr_scheduler(weft::CreateLRScheduler(name, params, obj->opt->learning_rate()));
  }
  WEFT_API_END();
}

WeftStatus weft_optimizer_set_multipliers(WeftOptimizer* opt, const WeftSymbolHandle* sym) {
  WEFT_API_BEGIN();
  auto obj = GetObject(opt, "opt");
  auto s = weft::capi::GetObject(sym, "sym");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->opt->SetMultipliers(s->sym);
  WEFT_API_END();
}

WeftStatus weft_optimizer_set_rescale_grad(WeftOptimizer* opt, float rescale_grad) {
  WEFT_API_BEGIN();
  auto obj = GetObject(opt, "opt");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->opt->set_rescale_grad(rescale_grad);
  WEFT_API_END();
}

WeftStatus weft_optimizer_update(WeftOptimizer* opt, int index, const char* name,
                                 WeftNDArray* weight, const WeftNDArray* grad) {
  WEFT_API_BEGIN();
  auto obj = GetObject(opt, "opt");
  CheckNotNull(name, "name");
  auto w = GetObject(weight, "weight");
  auto g = GetObject(grad, "grad");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->opt->Update(index, name, w.get(), *g);
  WEFT_API_END();
}

WeftStatus weft_optimizer_num_update(const WeftOptimizer* opt, int64_t* out) {
  WEFT_API_BEGIN();
  auto obj = GetObject(opt, "opt");
  CheckNotNull(out, "out");
  std::lock_guard<std::mutex> lock(obj->mu);
  *out = obj->opt->num_update();
  WEFT_API_END();
}

WeftStatus weft_optimizer_learning_rate(const WeftOptimizer* opt, const char* name, float* out_lr) {
  WEFT_API_BEGIN();
  auto obj = GetObject(opt, "opt");
  CheckNotNull(name, "name");
  CheckNotNull(out_lr, "out_lr");
  std::lock_guard<std::mutex> lock(obj->mu);
  *out_lr = obj->opt->current_lr(name);
  WEFT_API_END();
}

WeftStatus weft_optimizer_free(WeftOptimizer* opt) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(opt, "opt");
  WEFT_API_END();
}

WeftStatus weft_optimizer_save_states(WeftOptimizer* opt, const char* path) {
  WEFT_API_BEGIN();
  auto obj = GetObject(opt, "opt");
  CheckNotNull(path, "path");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->opt->SaveStates(path, &weft::Runtime::Global());
  WEFT_API_END();
}

WeftStatus weft_optimizer_load_states(WeftOptimizer* opt, const char* path) {
  WEFT_API_BEGIN();
  auto obj = GetObject(opt, "opt");
  CheckNotNull(path, "path");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->opt->LoadStates(path, &weft::Runtime::Global());
  WEFT_API_END();
}
