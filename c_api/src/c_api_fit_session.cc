// C ABI: weft_fit_session_* (weft/fit_session.h): Module::Fit as steps.
#include <memory>
#include <mutex>
#include <utility>

#include "c_api_internal.h"
#include "c_api_train_internal.h"
#include "weft/fit_session.h"

using weft::FitSession;
using weft::capi::CheckNotNull;
using weft::capi::GetObject;

WeftStatus weft_fit_session_create(WeftModule* mod, WeftDataIter* train, WeftDataIter* eval,
                                   WeftMetric* metric, int begin_epoch, int num_epoch, int progress,
                                   const char* checkpoint_prefix, WeftFitSession** out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  auto obj = std::make_shared<weft::capi::FitSessionObject>();
  obj->module = GetObject(mod, "mod");
  obj->train = GetObject(train, "train");
  if (eval) obj->eval = GetObject(eval, "eval");
  obj->metric = GetObject(metric, "metric");
  weft::FitOptions fo;
  fo.begin_epoch = begin_epoch;
  fo.num_epoch = num_epoch;
  fo.progress = weft::capi::ProgressArg(progress);
  if (checkpoint_prefix) fo.checkpoint_prefix = checkpoint_prefix;
  obj->session = std::make_unique<FitSession>(obj->module.get(), obj->train.get(), obj->eval.get(),
                                              obj->metric.get(), fo);
  *out = weft::capi::NewHandle<WeftFitSession>(std::move(obj));
  WEFT_API_END();
}

WeftStatus weft_fit_session_next(WeftFitSession* s, int* out) {
  WEFT_API_BEGIN();
  auto obj = GetObject(s, "s");
  CheckNotNull(out, "out");
  std::lock_guard<std::mutex> lock(obj->mu);
  switch (obj->session->Next()) {
    case FitSession::Event::kBatchEnd:
      *out = WEFT_FIT_BATCH_END;
      break;
    case FitSession::Event::kEpochEnd:
      *out = WEFT_FIT_EPOCH_END;
      break;
    case FitSession::Event::kDone:
      *out = WEFT_FIT_DONE;
      break;
  }
  WEFT_API_END();
}

WeftStatus weft_fit_session_stop(WeftFitSession* s) {
  WEFT_API_BEGIN();
  auto obj = GetObject(s, "s");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->session->Stop();
  WEFT_API_END();
}

WeftStatus weft_fit_session_batch(const WeftFitSession* s, int* epoch, int64_t* batch,
                                  int64_t* num_batches, int64_t* samples, double* seconds) {
  WEFT_API_BEGIN();
  auto obj = GetObject(s, "s");
  std::lock_guard<std::mutex> lock(obj->mu);
  const weft::BatchEndParam& p = obj->session->batch();
  if (p.batch == 0)
    weft::Fail(weft::StatusCode::kInvalidArgument,
               "argument 's' has run no batch yet (call weft_fit_session_next first)");
  if (epoch) *epoch = p.epoch;
  if (batch) *batch = p.batch;
  if (num_batches) *num_batches = p.num_batches;
  if (samples) *samples = p.samples;
  if (seconds) *seconds = p.seconds;
  WEFT_API_END();
}

WeftStatus weft_fit_session_epoch(const WeftFitSession* s, int* epoch, int64_t* batches,
                                  int64_t* samples, double* seconds, double* samples_per_sec,
                                  int* stopped) {
  WEFT_API_BEGIN();
  auto obj = GetObject(s, "s");
  std::lock_guard<std::mutex> lock(obj->mu);
  const weft::EpochResult& r = obj->session->epoch();
  if (epoch) *epoch = r.epoch;
  if (batches) *batches = r.batches;
  if (samples) *samples = r.samples;
  if (seconds) *seconds = r.seconds;
  if (samples_per_sec) *samples_per_sec = r.samples_per_sec;
  if (stopped) *stopped = r.stopped ? 1 : 0;
  WEFT_API_END();
}

WeftStatus weft_fit_session_epoch_metric(const WeftFitSession* s, int validation,
                                         WeftStringList** names, double* values, size_t capacity,
                                         size_t* num) {
  WEFT_API_BEGIN();
  auto obj = GetObject(s, "s");
  std::lock_guard<std::mutex> lock(obj->mu);
  const weft::EpochResult& r = obj->session->epoch();
  weft::capi::PublishMetric(validation ? r.eval_metric : r.train_metric, names, values, capacity,
                            num);
  WEFT_API_END();
}

WeftStatus weft_fit_session_free(WeftFitSession* s) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(s, "s");
  WEFT_API_END();
}
