// The WeftExecutorOptions object (not installed): the C ABI's binding
// options, read by the weft_executor_*bind* functions (c_api_executor.cc)
// and set by weft_executor_options_* (c_api_executor_options.cc). Calls on
// one handle are serialised by its mutex; binding takes a copy.
#ifndef WEFT_C_API_SRC_C_API_EXECUTOR_OPTIONS_H_
#define WEFT_C_API_SRC_C_API_EXECUTOR_OPTIONS_H_

#include <map>
#include <mutex>
#include <string>

#include "c_api_internal.h"
#include "weft/executor.h"

namespace weft {
namespace capi {

struct ExecutorOptionsObject {
  mutable std::mutex mu;
  ExecutorOptions options;                  // GUARDED_BY(mu)
  std::map<std::string, GradReq> grad_req;  // GUARDED_BY(mu): by argument name
};

// What a bind reads from a WeftExecutorOptions (NULL: the defaults).
struct BindOptions {
  ExecutorOptions options;
  std::map<std::string, GradReq> grad_req;
};
BindOptions OptionsArg(const WeftExecutorOptions* opts, const char* arg);

// A WeftReq code as a GradReq; kInvalidArgument naming `arg` otherwise.
GradReq ReqArg(int code, const std::string& arg);

}  // namespace capi
}  // namespace weft

#endif  // WEFT_C_API_SRC_C_API_EXECUTOR_OPTIONS_H_
