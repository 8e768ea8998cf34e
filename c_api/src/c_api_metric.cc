// C ABI: evaluation metrics (weft/metric.h).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api_train_internal.h"

namespace weft {
namespace capi {

void PublishMetric(const std::vector<std::pair<std::string, double>>& got, WeftStringList** names,
                   double* values, size_t capacity, size_t* num) {
  CheckNotNull(names, "names");
  CheckNotNull(num, "num");
  if (capacity < got.size())
    Fail(StatusCode::kInvalidArgument, "argument 'capacity' is ", capacity, ", the metric has ",
         got.size(), " values");
  CheckArray(values, got.size(), "values");
  std::vector<std::string> n;
  for (const auto& kv : got) n.push_back(kv.first);
  *names = NewStringList(std::move(n));
  for (size_t i = 0; i < got.size(); ++i) values[i] = got[i].second;
  *num = got.size();
}

}  // namespace capi
}  // namespace weft

using weft::capi::CheckNotNull;
using weft::capi::GetObject;

WeftStatus weft_metric_create(const char* name, const char* const* keys, const char* const* vals,
                              size_t num_params, WeftMetric** out) {
  WEFT_API_BEGIN();
  CheckNotNull(name, "name");
  CheckNotNull(out, "out");
  std::shared_ptr<weft::Metric> m =
      weft::Metric::Create(name, weft::capi::ParamArgs(keys, vals, num_params));
  *out = weft::capi::NewHandle<WeftMetric>(std::move(m));
  WEFT_API_END();
}

WeftStatus weft_metric_composite_add(WeftMetric* m, const char* name, const char* const* keys,
                                     const char* const* vals, size_t num_params) {
  WEFT_API_BEGIN();
  auto obj = GetObject(m, "m");
  CheckNotNull(name, "name");
  auto* composite = dynamic_cast<weft::CompositeMetric*>(obj.get());
  if (!composite)
    weft::Fail(weft::StatusCode::kInvalidArgument, "argument 'm' is the metric '", obj->name(),
               "', expected a composite metric (weft_metric_create(\"composite\"))");
  composite->Add(weft::Metric::Create(name, weft::capi::ParamArgs(keys, vals, num_params)));
  WEFT_API_END();
}

WeftStatus weft_metric_update(WeftMetric* m, size_t num_labels, WeftNDArray* const* labels,
                              size_t num_preds, WeftNDArray* const* preds) {
  WEFT_API_BEGIN();
  auto obj = GetObject(m, "m");
  std::vector<weft::NDArray> l = weft::capi::ArrayArgs(num_labels, labels, "labels");
  std::vector<weft::NDArray> p = weft::capi::ArrayArgs(num_preds, preds, "preds");
  obj->Update(l, p);
  WEFT_API_END();
}

WeftStatus weft_metric_num_values(const WeftMetric* m, size_t* out) {
  WEFT_API_BEGIN();
  auto obj = GetObject(m, "m");
  CheckNotNull(out, "out");
  *out = obj->Get().size();
  WEFT_API_END();
}

WeftStatus weft_metric_get(const WeftMetric* m, WeftStringList** names, double* values,
                           size_t capacity, size_t* num) {
  WEFT_API_BEGIN();
  auto obj = GetObject(m, "m");
  weft::capi::PublishMetric(obj->Get(), names, values, capacity, num);
  WEFT_API_END();
}

WeftStatus weft_metric_reset(WeftMetric* m) {
  WEFT_API_BEGIN();
  GetObject(m, "m")->Reset();
  WEFT_API_END();
}

WeftStatus weft_metric_free(WeftMetric* m) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(m, "m");
  WEFT_API_END();
}
