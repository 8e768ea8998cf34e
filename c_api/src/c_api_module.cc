// C ABI: weft_module_* (a symbol with data, labels and parameters, bound
// for training; weft/module.h).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api_internal.h"
#include "c_api_ndarray_list.h"
#include "c_api_symbol_internal.h"
#include "c_api_train_internal.h"
#include "weft/runtime.h"
#include "weft/module.h"
#include <map>
#include <mutex>

namespace weft {
namespace capi {

namespace {

// A named list's arrays by name (a list without names is an error).
std::map<std::string, NDArray> ByName(const WeftNDArrayList* list, const char* arg) {
  std::map<std::string, NDArray> out;
  if (!list) return out;
  auto l = GetObject(list, arg);
  if (l->names.size() != l->arrays.size())
    Fail(StatusCode::kInvalidArgument, "argument '", arg,
         "' is an unnamed list; parameters are matched by name");
  for (size_t i = 0; i < l->arrays.size(); ++i) {
    std::string name = l->names[i];
    // Accept checkpoint-style "arg:"/"aux:" prefixes as well as bare names.
    if (name.rfind("arg:", 0) == 0 || name.rfind("aux:", 0) == 0) name = name.substr(4);
    out[name] = l->arrays[i];
  }
  return out;
}

WeftNDArrayList* NewNamedList(const std::map<std::string, NDArray>& m) {
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  for (const auto& kv : m) {
    names.push_back(kv.first);
    arrays.push_back(kv.second);
  }
  return NewList(arrays, names);
}

}  // namespace
ProgressMode ProgressArg(int progress) {
  switch (progress) {
    case WEFT_PROGRESS_AUTO:
      return ProgressMode::kAuto;
    case WEFT_PROGRESS_BAR:
      return ProgressMode::kBar;
    case WEFT_PROGRESS_LINES:
      return ProgressMode::kLines;
    case WEFT_PROGRESS_EPOCH:
      return ProgressMode::kNone;
    case WEFT_PROGRESS_SILENT:
      return ProgressMode::kSilent;
    default:
      Fail(StatusCode::kInvalidArgument, "argument 'progress' is ", progress,
           ", expected a WeftProgress value 0..4 (AUTO, BAR, LINES, EPOCH, SILENT)");
  }
}

}  // namespace capi
}  // namespace weft

using namespace weft;        // NOLINT
using namespace weft::capi;  // NOLINT

WeftStatus weft_module_create(const WeftSymbolHandle* sym, size_t num_data,
                              const char* const* data_names, size_t num_label,
                              const char* const* label_names, int dev_type, int dev_id,
                              WeftModule** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  std::vector<std::string> data = InputNames(num_data, data_names, "data_names");
  std::vector<std::string> label = InputNames(num_label, label_names, "label_names");
  if (data.empty())
    Fail(StatusCode::kInvalidArgument, "argument 'num_data' is 0; a module needs a data input");
  Context ctx = ContextArg(dev_type, dev_id);
  CheckNotNull(out, "out");
  *out = NewHandle<WeftModule>(
      std::make_shared<Module>(&weft::Runtime::Global(), s->sym, data, label, ctx));
  WEFT_API_END();
}

WeftStatus weft_module_set_fixed_params(WeftModule* mod, size_t num_names,
                                        const char* const* names) {
  WEFT_API_BEGIN();
  auto m = GetObject(mod, "mod");
  m->SetFixedParams(InputNames(num_names, names, "names"));
  WEFT_API_END();
}

WeftStatus weft_module_bind(WeftModule* mod, const WeftDataIter* iter, int for_training) {
  WEFT_API_BEGIN();
  auto m = GetObject(mod, "mod");
  auto it = GetObject(iter, "iter");
  m->Bind(it->provide_data(), it->provide_label(), for_training != 0);
  WEFT_API_END();
}

WeftStatus weft_module_init_params(WeftModule* mod, const WeftInitializer* init,
                                   const WeftNDArrayList* args, const WeftNDArrayList* aux,
                                   int allow_missing) {
  WEFT_API_BEGIN();
  auto m = GetObject(mod, "mod");
  std::shared_ptr<InitializerObject> in;
  if (init) in = GetObject(init, "init");
  std::unique_lock<std::mutex> lock;
  if (in) lock = std::unique_lock<std::mutex>(in->mu);
  m->InitParams(in ? in->init.get() : nullptr, ByName(args, "args"), ByName(aux, "aux"),
                allow_missing != 0);
  WEFT_API_END();
}

WeftStatus weft_module_init_optimizer(WeftModule* mod, const WeftOptimizer* opt) {
  WEFT_API_BEGIN();
  auto m = GetObject(mod, "mod");
  auto o = GetObject(opt, "opt");
  std::lock_guard<std::mutex> lock(o->mu);
  m->InitOptimizer(o->opt);
  WEFT_API_END();
}

WeftStatus weft_module_forward(WeftModule* mod, const WeftDataIter* iter, int is_train) {
  WEFT_API_BEGIN();
  auto m = GetObject(mod, "mod");
  auto it = GetObject(iter, "iter");
  m->Forward(it->Value(), is_train != 0);
  WEFT_API_END();
}

WeftStatus weft_module_backward(WeftModule* mod) {
  WEFT_API_BEGIN();
  GetObject(mod, "mod")->Backward();
  WEFT_API_END();
}

WeftStatus weft_module_update(WeftModule* mod) {
  WEFT_API_BEGIN();
  GetObject(mod, "mod")->Update();
  WEFT_API_END();
}

WeftStatus weft_module_update_metric(WeftModule* mod, WeftMetric* metric,
                                     const WeftDataIter* iter) {
  WEFT_API_BEGIN();
  auto m = GetObject(mod, "mod");
  auto me = GetObject(metric, "metric");
  auto it = GetObject(iter, "iter");
  const DataBatch& b = it->Value();
  m->UpdateMetric(me.get(), b.label, b.pad);
  WEFT_API_END();
}

WeftStatus weft_module_outputs(const WeftModule* mod, WeftNDArrayList** out) {
  WEFT_API_BEGIN();
  auto m = GetObject(mod, "mod");
  CheckNotNull(out, "out");
  *out = NewList(m->outputs(), m->symbol().ListOutputs());
  WEFT_API_END();
}

WeftStatus weft_module_params(const WeftModule* mod, WeftNDArrayList** out_args,
                              WeftNDArrayList** out_aux) {
  WEFT_API_BEGIN();
  auto m = GetObject(mod, "mod");
  auto args = m->arg_params();
  auto aux = m->aux_params();
  WeftNDArrayList* a = out_args ? NewNamedList(args) : nullptr;
  if (out_aux) {
    try {
      *out_aux = NewNamedList(aux);
    } catch (...) {
      if (a) FreeHandle(a, "out_args");
      throw;
    }
  }
  if (out_args) *out_args = a;
  WEFT_API_END();
}

namespace {

// weft_module_fit[_with_callback]; throws (the callers catch).
void FitModule(WeftModule* mod, WeftDataIter* train, WeftDataIter* eval, WeftMetric* metric,
               int begin_epoch, int num_epoch, int progress, const char* checkpoint_prefix,
               WeftBatchEndCallback callback, void* user_data, double* out_samples_per_sec) {
  auto m = GetObject(mod, "mod");
  auto tr = GetObject(train, "train");
  std::shared_ptr<DataIter> ev;
  if (eval) ev = GetObject(eval, "eval");
  auto me = GetObject(metric, "metric");
  FitOptions fo;
  fo.begin_epoch = begin_epoch;
  fo.num_epoch = num_epoch;
  fo.progress = ProgressArg(progress);
  if (checkpoint_prefix) fo.checkpoint_prefix = checkpoint_prefix;
  if (callback) {
    std::vector<const char*> names;
    std::vector<double> values;
    fo.batch_end_callback = [=](const BatchEndParam& p) mutable {
      names.clear();
      values.clear();
      for (const auto& kv : *p.metric) {
        names.push_back(kv.first.c_str());
        values.push_back(kv.second);
      }
      WeftBatchEnd info;
      info.epoch = p.epoch;
      info.batch = p.batch;
      info.num_batches = p.num_batches;
      info.samples = p.samples;
      info.seconds = p.seconds;
      info.num_metrics = names.size();
      info.metric_names = names.data();
      info.metric_values = values.data();
      return callback(&info, user_data) == 0;
    };
  }
  std::vector<EpochResult> r = m->Fit(tr.get(), ev.get(), me.get(), fo);
  if (out_samples_per_sec) *out_samples_per_sec = r.empty() ? 0 : r.back().samples_per_sec;
}

}  // namespace

WeftStatus weft_module_fit(WeftModule* mod, WeftDataIter* train, WeftDataIter* eval,
                           WeftMetric* metric, int begin_epoch, int num_epoch, int progress,
                           const char* checkpoint_prefix, double* out_samples_per_sec) {
  WEFT_API_BEGIN();
  FitModule(mod, train, eval, metric, begin_epoch, num_epoch, progress, checkpoint_prefix, nullptr,
            nullptr, out_samples_per_sec);
  WEFT_API_END();
}

WeftStatus weft_module_fit_with_callback(WeftModule* mod, WeftDataIter* train, WeftDataIter* eval,
                                         WeftMetric* metric, int begin_epoch, int num_epoch,
                                         int progress, const char* checkpoint_prefix,
                                         WeftBatchEndCallback callback, void* user_data,
                                         double* out_samples_per_sec) {
  WEFT_API_BEGIN();
  FitModule(mod, train, eval, metric, begin_epoch, num_epoch, progress, checkpoint_prefix, callback,
            user_data, out_samples_per_sec);
  WEFT_API_END();
}

WeftStatus weft_module_score(WeftModule* mod, WeftDataIter* iter, WeftMetric* metric) {
  WEFT_API_BEGIN();
  auto m = GetObject(mod, "mod");
  auto it = GetObject(iter, "iter");
  auto me = GetObject(metric, "metric");
  m->Score(it.get(), me.get());
  WEFT_API_END();
}

WeftStatus weft_module_save_checkpoint(const WeftModule* mod, const char* prefix, int epoch) {
  WEFT_API_BEGIN();
  auto m = GetObject(mod, "mod");
  CheckNotNull(prefix, "prefix");
  if (epoch < 0)
    Fail(StatusCode::kInvalidArgument, "argument 'epoch' is ", epoch, ", expected >= 0");
  m->SaveCheckpoint(prefix, epoch);
  WEFT_API_END();
}

WeftStatus weft_module_free(WeftModule* mod) {
  WEFT_API_BEGIN();
  FreeHandle(mod, "mod");
  WEFT_API_END();
}
