// weft_executor_set_monitor_callback and the monitor statistic: the
// executor's monitor (Executor::SetMonitorCallback) calling a C function
// with a handle registered for the call and freed when it returns.

#include "c_api_internal.h"
#include "weft/cached_op.h"
#include "weft/executor.h"
#include "weft/monitor.h"
#include "weft/predictor.h"

using namespace weft;        // NOLINT: the C ABI's implementation
using namespace weft::capi;  // NOLINT

namespace {

// The C callback as an Executor::MonitorCallback (empty for NULL): the value
// gets a handle for the call, freed when it returns.
Executor::MonitorCallback Adapt(WeftMonitorCallback callback, void* user) {
  if (!callback) return {};
  return [callback, user](const std::string& name, const NDArray& value) {
    WeftNDArray* h = NewHandle<WeftNDArray>(std::make_shared<NDArray>(value));
    const char* err = callback(name.c_str(), h, user);
    const std::string message = err ? err : "";
    try {
      TakeHandle(h, "array");
    } catch (...) {  // the callback freed it: nothing left to release
    }
    if (err)
      Fail(StatusCode::kInvalidArgument, "the monitor callback for '", name,
           "' returned an error: ", message);
  };
}

}  // namespace

WeftStatus weft_executor_set_monitor_callback(WeftExecutor* exec, WeftMonitorCallback callback,
                                              void* user, int monitor_all) {
  WEFT_API_BEGIN();
  GetObject(exec, "exec")->SetMonitorCallback(Adapt(callback, user), monitor_all != 0);
  WEFT_API_END();
}

WeftStatus weft_predictor_set_monitor_callback(WeftPredictor* pred, WeftMonitorCallback callback,
                                               void* user, int monitor_all) {
  WEFT_API_BEGIN();
  GetObject(pred, "pred")->SetMonitorCallback(Adapt(callback, user), monitor_all != 0);
  WEFT_API_END();
}

WeftStatus weft_ndarray_monitor_stat(const WeftNDArray* array, double* out) {
  WEFT_API_BEGIN();
  auto a = GetObject(array, "array");
  CheckNotNull(out, "out");
  *out = Monitor::NormStat(*a);
  WEFT_API_END();
}

WeftStatus weft_cached_op_set_monitor_callback(WeftCachedOp* op, WeftMonitorCallback callback,
                                               void* user, int monitor_all) {
  WEFT_API_BEGIN();
  GetObject(op, "op")->SetMonitorCallback(Adapt(callback, user), monitor_all != 0);
  WEFT_API_END();
}
