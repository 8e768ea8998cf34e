// weft_autograd_*, weft_ndarray_get_grad and weft_ndarray_detach: the C
// face of weft/autograd.h.
#include <memory>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "c_api_symbol_internal.h"
#include "weft/autograd.h"
#include "weft/cached_op.h"
#include "weft/runtime.h"

using weft::NDArray;
using weft::StatusCode;
using weft::capi::CheckArray;
using weft::capi::CheckNotNull;
using weft::capi::GetObject;
using weft::capi::NewHandle;

namespace {

// Handles as arrays (weft::capi::Arrays); a NULL list gives `num` empty
// arrays where `allow_null`.
std::vector<NDArray> Arrays(WeftNDArray* const* handles, size_t num, const char* arg,
                            bool allow_null) {
  if (!handles && allow_null) return std::vector<NDArray>(num);
  return weft::capi::Arrays(handles, num, arg, allow_null);
}

void SetFlag(bool (*set)(bool), int value, int* prev) {
  const bool was = set(value != 0);
  if (prev) *prev = was ? 1 : 0;
}

}  // namespace

extern "C" {

WeftStatus weft_autograd_set_is_recording(int is_recording, int* prev) {
  WEFT_API_BEGIN();
  SetFlag(weft::autograd::SetIsRecording, is_recording, prev);
  WEFT_API_END();
}

WeftStatus weft_autograd_set_is_training(int is_training, int* prev) {
  WEFT_API_BEGIN();
  SetFlag(weft::autograd::SetIsTraining, is_training, prev);
  WEFT_API_END();
}

WeftStatus weft_autograd_is_recording(int* out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  *out = weft::autograd::IsRecording() ? 1 : 0;
  WEFT_API_END();
}

WeftStatus weft_autograd_is_training(int* out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  *out = weft::autograd::IsTraining() ? 1 : 0;
  WEFT_API_END();
}

WeftStatus weft_autograd_mark_variables(WeftNDArray* const* vars, size_t num, const int* reqs,
                                        WeftNDArray* const* grads) {
  WEFT_API_BEGIN();
  CheckArray(vars, num, "vars");
  CheckArray(reqs, num, "reqs");
  std::vector<std::shared_ptr<NDArray>> objects;
  std::vector<NDArray*> targets;
  std::vector<weft::GradReq> req_list;
  for (size_t i = 0; i < num; ++i) {
    const std::string name = weft::StrCat("vars[", i, "]");
    CheckNotNull(vars[i], name.c_str());
    objects.push_back(GetObject(vars[i], name.c_str()));
    targets.push_back(objects.back().get());
    if (reqs[i] != WEFT_REQ_NULL && reqs[i] != WEFT_REQ_WRITE && reqs[i] != WEFT_REQ_ADD)
      weft::Fail(StatusCode::kInvalidArgument, "argument 'reqs[", i, "]' is ", reqs[i],
                 ", expected WEFT_REQ_NULL (0), WEFT_REQ_WRITE (1) or WEFT_REQ_ADD (3)");
    req_list.push_back(static_cast<weft::GradReq>(reqs[i]));
  }
  weft::autograd::MarkVariables(targets, req_list, Arrays(grads, num, "grads", true));
  WEFT_API_END();
}

WeftStatus weft_autograd_backward(WeftNDArray* const* heads, size_t num_heads,
                                  WeftNDArray* const* head_grads, int retain_graph,
                                  int train_mode) {
  WEFT_API_BEGIN();
  weft::autograd::Backward(&weft::Runtime::Global(), Arrays(heads, num_heads, "heads", false),
                           Arrays(head_grads, num_heads, "head_grads", true), retain_graph != 0,
                           train_mode != 0);
  WEFT_API_END();
}

WeftStatus weft_autograd_grad(WeftNDArray* const* heads, size_t num_heads,
                              WeftNDArray* const* head_grads, WeftNDArray* const* variables,
                              size_t num_variables, int retain_graph, int train_mode,
                              WeftNDArray** out_grads) {
  return weft_autograd_grad_ex(heads, num_heads, head_grads, variables, num_variables, retain_graph,
                               0, train_mode, out_grads);
}

WeftStatus weft_autograd_grad_ex(WeftNDArray* const* heads, size_t num_heads,
                                 WeftNDArray* const* head_grads, WeftNDArray* const* variables,
                                 size_t num_variables, int retain_graph, int create_graph,
                                 int train_mode, WeftNDArray** out_grads) {
  WEFT_API_BEGIN();
  CheckArray(out_grads, num_variables, "out_grads");
  std::vector<NDArray> grads =
      weft::autograd::Grad(&weft::Runtime::Global(), Arrays(heads, num_heads, "heads", false),
                           Arrays(variables, num_variables, "variables", false),
                           Arrays(head_grads, num_heads, "head_grads", true), retain_graph != 0,
                           train_mode != 0, create_graph != 0);
  weft::capi::PublishArrays(grads, out_grads);
  WEFT_API_END();
}

WeftStatus weft_ndarray_get_grad(const WeftNDArray* arr, WeftNDArray** out) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out, "out");
  NDArray g = weft::autograd::GetGrad(*a);
  *out = g.is_none() ? nullptr : NewHandle<WeftNDArray>(std::make_shared<NDArray>(g));
  WEFT_API_END();
}

WeftStatus weft_ndarray_detach(const WeftNDArray* arr, WeftNDArray** out) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out, "out");
  *out = NewHandle<WeftNDArray>(std::make_shared<NDArray>(weft::autograd::Detach(*a)));
  WEFT_API_END();
}

WeftStatus weft_autograd_get_symbol(const WeftNDArray* arr, WeftSymbolHandle** out) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out, "out");
  *out = weft::capi::NewSymbol(weft::autograd::GetSymbol(*a));
  WEFT_API_END();
}

WeftStatus weft_cached_op_create(const WeftSymbolHandle* sym, size_t num_flags,
                                 const char* const* keys, const char* const* vals,
                                 WeftCachedOp** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  CheckArray(keys, num_flags, "keys");
  CheckArray(vals, num_flags, "vals");
  weft::StringMap flags;
  for (size_t i = 0; i < num_flags; ++i) {
    const std::string k = weft::StrCat("keys[", i, "]"), v = weft::StrCat("vals[", i, "]");
    CheckNotNull(keys[i], k.c_str());
    CheckNotNull(vals[i], v.c_str());
    flags[keys[i]] = vals[i];
  }
  auto op = std::make_shared<weft::CachedOp>(&weft::Runtime::Global(), s->sym,
                                             weft::CachedOpFlags::Parse(flags));
  *out = NewHandle<WeftCachedOp>(std::move(op));
  WEFT_API_END();
}

WeftStatus weft_cached_op_list_inputs(const WeftCachedOp* op, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto o = GetObject(op, "op");
  CheckNotNull(out, "out");
  *out = weft::capi::NewStringList(o->input_names());
  WEFT_API_END();
}

WeftStatus weft_cached_op_invoke(WeftCachedOp* op, WeftNDArray* const* inputs, size_t num_inputs,
                                 WeftNDArray** outputs, size_t capacity, size_t* num_outputs) {
  WEFT_API_BEGIN();
  auto o = GetObject(op, "op");
  CheckArray(outputs, capacity, "outputs");
  CheckNotNull(num_outputs, "num_outputs");
  const size_t n_out = o->symbol().num_outputs();
  if (capacity < n_out)
    weft::Fail(StatusCode::kInvalidArgument, "argument 'capacity' is ", capacity,
               ", but the cached op produces ", n_out, " output(s)");
  std::vector<NDArray> out = o->Forward(Arrays(inputs, num_inputs, "inputs", false));
  weft::capi::PublishArrays(out, outputs);
  *num_outputs = out.size();
  WEFT_API_END();
}

WeftStatus weft_cached_op_free(WeftCachedOp* op) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(op, "op");
  WEFT_API_END();
}

}  // extern "C"
