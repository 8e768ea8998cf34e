// C ABI: weft_executor_options_* (ExecutorOptions and gradient requests
// for the weft_executor_*_with_options binds).
#include "c_api_executor_options.h"

#include <memory>
#include <string>
#include <utility>

namespace weft {
namespace capi {

GradReq ReqArg(int code, const std::string& arg) {
  switch (code) {
    case WEFT_REQ_NULL:
      return GradReq::kNull;
    case WEFT_REQ_WRITE:
      return GradReq::kWrite;
    case WEFT_REQ_ADD:
      return GradReq::kAdd;
  }
  Fail(StatusCode::kInvalidArgument, "argument '", arg, "' is ", code,
       ", expected WEFT_REQ_NULL (0), WEFT_REQ_WRITE (1) or WEFT_REQ_ADD (3)");
}

BindOptions OptionsArg(const WeftExecutorOptions* opts, const char* arg) {
  BindOptions out;
  if (!opts) return out;
  auto obj = GetObject(opts, arg);
  std::lock_guard<std::mutex> lock(obj->mu);
  out.options = obj->options;
  out.grad_req = obj->grad_req;
  return out;
}

namespace {

// Runs `set` on the options of `opts` under their lock.
template <typename F>
void Update(WeftExecutorOptions* opts, F set) {
  auto obj = GetObject(opts, "opts");
  std::lock_guard<std::mutex> lock(obj->mu);
  set(obj.get());
}

}  // namespace
}  // namespace capi
}  // namespace weft

using weft::StatusCode;
using weft::capi::ExecutorOptionsObject;
using weft::capi::Update;

extern "C" {

WeftStatus weft_executor_options_create(WeftExecutorOptions** out) {
  WEFT_API_BEGIN();
  weft::capi::CheckNotNull(out, "out");
  *out = weft::capi::NewHandle<WeftExecutorOptions>(std::make_shared<ExecutorOptionsObject>());
  WEFT_API_END();
}

WeftStatus weft_executor_options_free(WeftExecutorOptions* opts) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(opts, "opts");
  WEFT_API_END();
}

WeftStatus weft_executor_options_set_match_range(WeftExecutorOptions* opts, int match_range) {
  WEFT_API_BEGIN();
  Update(opts, [&](ExecutorOptionsObject* o) {
    if (match_range < 0)
      weft::Fail(StatusCode::kInvalidArgument, "argument 'match_range' is ", match_range,
                 ", expected >= 0 (0 = search)");
    o->options.match_range = match_range;
  });
  WEFT_API_END();
}

WeftStatus weft_executor_options_set_num_groups(WeftExecutorOptions* opts, int num_groups) {
  WEFT_API_BEGIN();
  Update(opts, [&](ExecutorOptionsObject* o) {
    if (num_groups < 1)
      weft::Fail(StatusCode::kInvalidArgument, "argument 'num_groups' is ", num_groups,
                 ", expected >= 1");
    o->options.num_groups = num_groups;
  });
  WEFT_API_END();
}

WeftStatus weft_executor_options_set_bulk_max_nodes(WeftExecutorOptions* opts, int max_nodes) {
  WEFT_API_BEGIN();
  Update(opts, [&](ExecutorOptionsObject* o) { o->options.bulk_max_nodes = max_nodes; });
  WEFT_API_END();
}

WeftStatus weft_executor_options_set_optimize_inference(WeftExecutorOptions* opts, int enable) {
  WEFT_API_BEGIN();
  Update(opts, [&](ExecutorOptionsObject* o) {
    if (enable != 0 && enable != 1)
      weft::Fail(StatusCode::kInvalidArgument, "argument 'enable' is ", enable,
                 ", expected 0 or 1");
    o->options.optimize_inference = enable == 1;
  });
  WEFT_API_END();
}

WeftStatus weft_executor_options_set_allow_fallback(WeftExecutorOptions* opts, int enable) {
  WEFT_API_BEGIN();
  Update(opts, [&](ExecutorOptionsObject* o) {
    if (enable != 0 && enable != 1)
      weft::Fail(StatusCode::kInvalidArgument, "argument 'enable' is ", enable,
                 ", expected 0 or 1");
    o->options.allow_fallback = enable == 1;
  });
  WEFT_API_END();
}

WeftStatus weft_executor_options_add_group(WeftExecutorOptions* opts, const char* group,
                                           int dev_type, int dev_id) {
  WEFT_API_BEGIN();
  Update(opts, [&](ExecutorOptionsObject* o) {
    weft::capi::CheckNotNull(group, "group");
    if (o->options.group2ctx.count(group))
      weft::Fail(StatusCode::kInvalidArgument, "argument 'group': '", group, "' was already added");
    weft::Context ctx;
    try {
      ctx = weft::capi::ContextArg(dev_type, dev_id);
    } catch (const weft::Error& e) {
      weft::Fail(e.code(), "group '", group, "' (dev_type, dev_id): ", e.what());
    }
    o->options.group2ctx[group] = ctx;
  });
  WEFT_API_END();
}

WeftStatus weft_executor_options_set_grad_req(WeftExecutorOptions* opts, const char* arg, int req) {
  WEFT_API_BEGIN();
  Update(opts, [&](ExecutorOptionsObject* o) {
    weft::capi::CheckNotNull(arg, "arg");
    if (!*arg)
      weft::Fail(StatusCode::kInvalidArgument, "argument 'arg' is \"\", expected an argument name");
    const weft::GradReq r = weft::capi::ReqArg(req, "req");
    o->grad_req[arg] = r;
  });
  WEFT_API_END();
}

}  // extern "C"
