// weft_executor_set_monitor_callback and the monitor statistic: the
// executor's monitor (Executor::SetMonitorCallback) calling a C function
// with a handle registered for the call and freed when it returns.

#include "c_api_internal.h"
#include "weft/executor.h"
#include "weft/monitor.h"

using namespace weft;        // NOLINT: the C ABI's implementation
using namespace weft::capi;  // NOLINT

WeftStatus weft_executor_set_monitor_callback(WeftExecutor* exec, WeftMonitorCallback callback,
                                              void* user, int monitor_all) {
  WEFT_API_BEGIN();
  auto ex = GetObject(exec, "exec");
  if (!callback) {
    ex->SetMonitorCallback(nullptr);
  } else {
    ex->SetMonitorCallback(
        [callback, user](const std::string& name, const NDArray& value) {
          WeftNDArray* h = NewHandle<WeftNDArray>(std::make_shared<NDArray>(value));
          callback(name.c_str(), h, user);
          try {
            TakeHandle(h, "array");
          } catch (...) {  // the callback freed it: nothing left to release
          }
        },
        monitor_all != 0);
  }
  WEFT_API_END();
}

WeftStatus weft_ndarray_monitor_stat(const WeftNDArray* array, double* out) {
  WEFT_API_BEGIN();
  auto a = GetObject(array, "array");
  CheckNotNull(out, "out");
  *out = Monitor::NormStat(*a);
  WEFT_API_END();
}
