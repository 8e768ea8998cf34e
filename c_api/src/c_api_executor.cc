// C ABI: weft_executor_* (a symbol bound to arrays; weft/executor.h).
// Array lists are returned as WeftNDArrayList handles (c_api_ndarray_list.h),
// strings as a WeftStringList, like the symbol API.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api_executor_options.h"
#include "c_api_internal.h"
#include "c_api_ndarray_list.h"
#include "c_api_symbol_internal.h"
#include "weft/runtime.h"
#include "weft/executor.h"
#include "weft/pass.h"

namespace weft {
namespace capi {

namespace {

std::shared_ptr<Executor> GetExec(const WeftExecutor* h, const char* arg) {
  return GetObject(h, arg);
}

WeftExecutor* NewExec(std::unique_ptr<Executor> ex) {
  return NewHandle<WeftExecutor>(std::shared_ptr<Executor>(std::move(ex)));
}

// The bodies of the weft_executor_simple_bind* and weft_executor_bind*
// entry points, so that each reports errors under its own name. `groups` is
// the device group map of the *_group2ctx forms (num 0: none, or those of
// `opts`); `opts` is that of the *_with_options forms (NULL: defaults).
struct Groups {
  size_t num = 0;
  const char* const* names = nullptr;
  const int* dev_types = nullptr;
  const int* dev_ids = nullptr;
};

void SimpleBind(const WeftSymbolHandle* sym, int dev_type, int dev_id, const Groups& groups,
                const WeftExecutorOptions* opts, size_t num_shapes, const char* const* shape_names,
                const size_t* ind_ptr, const int64_t* dims, size_t num_dtypes,
                const char* const* dtype_names, const int* dtypes, const char* grad_req,
                WeftExecutor** out) {
  auto s = GetObject(sym, "sym");
  const Context ctx = ContextArg(dev_type, dev_id);
  BindOptions b = OptionsArg(opts, "opts");
  if (groups.num)
    b.options.group2ctx =
        ContextMap(groups.num, groups.names, groups.dev_types, groups.dev_ids, "group");
  pass::ShapeMap shapes = ShapeInputs(num_shapes, shape_names, "shape_names", ind_ptr, dims, true);
  pass::DTypeMap types = DTypeInputs(num_dtypes, dtype_names, "dtype_names", dtypes);
  GradReqSpec req = GradReqSpec::All(ParseGradReq(grad_req ? grad_req : "write"));
  req.by_name = std::move(b.grad_req);
  CheckNotNull(out, "out");
  auto ex =
      Executor::SimpleBind(&weft::Runtime::Global(), s->sym, ctx, shapes, types, req, b.options);
  *out = NewExec(std::move(ex));
}

void Bind(const WeftSymbolHandle* sym, int dev_type, int dev_id, const Groups& groups,
          const WeftExecutorOptions* opts, WeftNDArray* const* args, size_t num_args,
          WeftNDArray* const* arg_grads, const int* grad_reqs, WeftNDArray* const* aux,
          size_t num_aux, WeftExecutor** out) {
  auto s = GetObject(sym, "sym");
  const Context ctx = ContextArg(dev_type, dev_id);
  BindOptions b = OptionsArg(opts, "opts");
  if (!b.grad_req.empty())
    Fail(StatusCode::kInvalidArgument, "argument 'opts' sets gradient requests by name (for '",
         b.grad_req.begin()->first, "'); bind takes them per argument in 'grad_reqs'");
  if (groups.num)
    b.options.group2ctx =
        ContextMap(groups.num, groups.names, groups.dev_types, groups.dev_ids, "group");
  std::vector<NDArray> a = Arrays(args, num_args, "args", false);
  std::vector<NDArray> grads;
  std::vector<GradReq> reqs;
  if (arg_grads) {
    grads = Arrays(arg_grads, num_args, "arg_grads", true);
    for (size_t i = 0; i < num_args; ++i)
      reqs.push_back(grad_reqs ? ReqArg(grad_reqs[i], StrCat("grad_reqs[", i, "]"))
                               : (arg_grads[i] ? GradReq::kWrite : GradReq::kNull));
  } else if (grad_reqs) {
    for (size_t i = 0; i < num_args; ++i) {
      if (ReqArg(grad_reqs[i], StrCat("grad_reqs[", i, "]")) != GradReq::kNull)
        Fail(StatusCode::kInvalidArgument, "argument 'grad_reqs[", i, "]' is ", grad_reqs[i],
             " but 'arg_grads' is NULL (no gradient arrays); expected WEFT_REQ_NULL (0)");
    }
  }
  std::vector<NDArray> x = Arrays(aux, num_aux, "aux", false);
  CheckNotNull(out, "out");
  auto ex = Executor::Bind(&weft::Runtime::Global(), s->sym, ctx, std::move(a), std::move(grads),
                           std::move(reqs), std::move(x), b.options);
  *out = NewExec(std::move(ex));
}

}  // namespace

WeftNDArrayList* NewList(const std::vector<NDArray>& arrays,
                         const std::vector<std::string>& names) {
  auto list = std::make_shared<NDArrayList>();
  list->arrays = arrays;
  list->names = names;
  return NewHandle<WeftNDArrayList>(std::move(list));
}

}  // namespace capi
}  // namespace weft

using weft::Executor;
using weft::GradReq;
using weft::NDArray;
using weft::StatusCode;
using weft::capi::CheckArray;
using weft::capi::CheckNotNull;
using weft::capi::GetExec;

extern "C" {

WeftStatus weft_executor_simple_bind(const WeftSymbolHandle* sym, int dev_type, int dev_id,
                                     size_t num_shapes, const char* const* shape_names,
                                     const size_t* ind_ptr, const int64_t* dims, size_t num_dtypes,
                                     const char* const* dtype_names, const int* dtypes,
                                     const char* grad_req, WeftExecutor** out) {
  WEFT_API_BEGIN();
  weft::capi::SimpleBind(sym, dev_type, dev_id, {}, nullptr, num_shapes, shape_names, ind_ptr, dims,
                         num_dtypes, dtype_names, dtypes, grad_req, out);
  WEFT_API_END();
}

WeftStatus weft_executor_simple_bind_group2ctx(
    const WeftSymbolHandle* sym, int dev_type, int dev_id, size_t num_groups,
    const char* const* group_names, const int* group_dev_types, const int* group_dev_ids,
    size_t num_shapes, const char* const* shape_names, const size_t* ind_ptr, const int64_t* dims,
    size_t num_dtypes, const char* const* dtype_names, const int* dtypes, const char* grad_req,
    WeftExecutor** out) {
  WEFT_API_BEGIN();
  weft::capi::SimpleBind(
      sym, dev_type, dev_id, {num_groups, group_names, group_dev_types, group_dev_ids}, nullptr,
      num_shapes, shape_names, ind_ptr, dims, num_dtypes, dtype_names, dtypes, grad_req, out);
  WEFT_API_END();
}

WeftStatus weft_executor_bind(const WeftSymbolHandle* sym, int dev_type, int dev_id,
                              WeftNDArray* const* args, size_t num_args,
                              WeftNDArray* const* arg_grads, const int* grad_reqs,
                              WeftNDArray* const* aux, size_t num_aux, WeftExecutor** out) {
  WEFT_API_BEGIN();
  weft::capi::Bind(sym, dev_type, dev_id, {}, nullptr, args, num_args, arg_grads, grad_reqs, aux,
                   num_aux, out);
  WEFT_API_END();
}

WeftStatus weft_executor_bind_group2ctx(const WeftSymbolHandle* sym, int dev_type, int dev_id,
                                        size_t num_groups, const char* const* group_names,
                                        const int* group_dev_types, const int* group_dev_ids,
                                        WeftNDArray* const* args, size_t num_args,
                                        WeftNDArray* const* arg_grads, const int* grad_reqs,
                                        WeftNDArray* const* aux, size_t num_aux,
                                        WeftExecutor** out) {
  WEFT_API_BEGIN();
  weft::capi::Bind(sym, dev_type, dev_id, {num_groups, group_names, group_dev_types, group_dev_ids},
                   nullptr, args, num_args, arg_grads, grad_reqs, aux, num_aux, out);
  WEFT_API_END();
}

WeftStatus weft_executor_simple_bind_with_options(
    const WeftSymbolHandle* sym, int dev_type, int dev_id, size_t num_shapes,
    const char* const* shape_names, const size_t* ind_ptr, const int64_t* dims, size_t num_dtypes,
    const char* const* dtype_names, const int* dtypes, const WeftExecutorOptions* opts,
    WeftExecutor** out) {
  WEFT_API_BEGIN();
  weft::capi::SimpleBind(sym, dev_type, dev_id, {}, opts, num_shapes, shape_names, ind_ptr, dims,
                         num_dtypes, dtype_names, dtypes, nullptr, out);
  WEFT_API_END();
}

WeftStatus weft_executor_bind_with_options(const WeftSymbolHandle* sym, int dev_type, int dev_id,
                                           WeftNDArray* const* args, size_t num_args,
                                           WeftNDArray* const* arg_grads, const int* grad_reqs,
                                           WeftNDArray* const* aux, size_t num_aux,
                                           const WeftExecutorOptions* opts, WeftExecutor** out) {
  WEFT_API_BEGIN();
  weft::capi::Bind(sym, dev_type, dev_id, {}, opts, args, num_args, arg_grads, grad_reqs, aux,
                   num_aux, out);
  WEFT_API_END();
}

WeftStatus weft_executor_forward(WeftExecutor* exec, int is_train) {
  WEFT_API_BEGIN();
  GetExec(exec, "exec")->Forward(is_train != 0);
  WEFT_API_END();
}

WeftStatus weft_executor_backward(WeftExecutor* exec, WeftNDArray* const* head_grads,
                                  size_t num_head_grads) {
  WEFT_API_BEGIN();
  auto ex = GetExec(exec, "exec");
  std::vector<NDArray> heads = weft::capi::Arrays(head_grads, num_head_grads, "head_grads", false);
  ex->Backward(heads);
  WEFT_API_END();
}

WeftStatus weft_executor_outputs(const WeftExecutor* exec, WeftNDArrayList** out) {
  WEFT_API_BEGIN();
  auto ex = GetExec(exec, "exec");
  CheckNotNull(out, "out");
  *out = weft::capi::NewList(ex->outputs(), ex->output_names());
  WEFT_API_END();
}

WeftStatus weft_executor_arg_arrays(const WeftExecutor* exec, WeftNDArrayList** out) {
  WEFT_API_BEGIN();
  auto ex = GetExec(exec, "exec");
  CheckNotNull(out, "out");
  *out = weft::capi::NewList(ex->arg_arrays(), ex->arg_names());
  WEFT_API_END();
}

WeftStatus weft_executor_grad_arrays(const WeftExecutor* exec, WeftNDArrayList** out) {
  WEFT_API_BEGIN();
  auto ex = GetExec(exec, "exec");
  CheckNotNull(out, "out");
  std::vector<NDArray> grads = ex->grad_arrays();
  grads.resize(ex->arg_names().size());  // none for every argument when there are no gradients
  *out = weft::capi::NewList(grads, ex->arg_names());
  WEFT_API_END();
}

WeftStatus weft_executor_aux_arrays(const WeftExecutor* exec, WeftNDArrayList** out) {
  WEFT_API_BEGIN();
  auto ex = GetExec(exec, "exec");
  CheckNotNull(out, "out");
  *out = weft::capi::NewList(ex->aux_arrays(), ex->aux_names());
  WEFT_API_END();
}

WeftStatus weft_executor_reshape(const WeftExecutor* exec, size_t num_shapes,
                                 const char* const* shape_names, const size_t* ind_ptr,
                                 const int64_t* dims, int partial_shaping, int allow_up_sizing,
                                 WeftExecutor** out) {
  WEFT_API_BEGIN();
  auto ex = GetExec(exec, "exec");
  weft::pass::ShapeMap shapes =
      weft::capi::ShapeInputs(num_shapes, shape_names, "shape_names", ind_ptr, dims, true);
  CheckNotNull(out, "out");
  auto re = ex->Reshape(shapes, partial_shaping != 0, allow_up_sizing != 0);
  *out = weft::capi::NewExec(std::move(re));
  WEFT_API_END();
}

WeftStatus weft_executor_print(const WeftExecutor* exec, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto ex = GetExec(exec, "exec");
  CheckNotNull(out, "out");
  *out = weft::capi::NewStringList({ex->DebugString()});
  WEFT_API_END();
}

WeftStatus weft_executor_memory(const WeftExecutor* exec, WeftExecutorMemory* out) {
  WEFT_API_BEGIN();
  auto ex = GetExec(exec, "exec");
  CheckNotNull(out, "out");
  const weft::ExecutorMemory m = ex->memory();
  WeftExecutorMemory r;
  r.naive_bytes = m.naive_bytes;
  r.planned_bytes = m.planned_bytes;
  r.num_storage = m.num_storage;
  r.num_inplace = m.num_inplace;
  r.num_reused = m.num_reused;
  r.match_range = m.match_range;
  *out = r;
  WEFT_API_END();
}

WeftStatus weft_executor_placement(const WeftExecutor* exec, WeftStringList** fallback_nodes,
                                   size_t* num_copies, size_t* forward_copy_bytes) {
  WEFT_API_BEGIN();
  auto ex = GetExec(exec, "exec");
  CheckNotNull(fallback_nodes, "fallback_nodes");
  CheckNotNull(num_copies, "num_copies");
  CheckNotNull(forward_copy_bytes, "forward_copy_bytes");
  weft::ExecutorPlacement p = ex->placement();
  *num_copies = p.num_copies;
  *forward_copy_bytes = p.forward_copy_bytes;
  *fallback_nodes = weft::capi::NewStringList(std::move(p.fallback_nodes));
  WEFT_API_END();
}

WeftStatus weft_executor_float32_nodes(const WeftExecutor* exec, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto ex = GetExec(exec, "exec");
  CheckNotNull(out, "out");
  *out = weft::capi::NewStringList(ex->placement().float32_nodes);
  WEFT_API_END();
}

WeftStatus weft_executor_free(WeftExecutor* exec) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(exec, "exec");
  WEFT_API_END();
}

}  // extern "C"
