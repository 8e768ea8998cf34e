// weft_op_*: operator listing and documentation (aliases included), and
// imperative invoke.
#include <memory>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "weft/mutex.h"
#include "c_api_symbol_internal.h"
#include "weft/autograd.h"
#include "weft/imperative.h"
#include "weft/op.h"
#include "weft/param.h"
#include "weft/runtime.h"

using weft::NDArray;
using weft::StatusCode;
using weft::capi::CheckArray;
using weft::capi::CheckNotNull;
using weft::capi::GetObject;

namespace {

// Canonical op names, sorted; built again when an operator library added
// operators. Every list built is kept, so its strings stay valid for the
// process.
const std::vector<std::string>& OpNames() {
  static weft::Mutex* mu = new weft::Mutex;
  static const std::vector<std::string>* names = nullptr;
  weft::MutexLock lock(mu);
  const weft::OpRegistry& ops = weft::Runtime::Global().ops();
  if (!names || names->size() != ops.size()) names = new std::vector<std::string>(ops.ListNames());
  return *names;
}

// The op named `name` (or an alias); kNotFound naming it otherwise.
const weft::OpDef& FindOp(const char* name) {
  CheckNotNull(name, "op");
  return weft::Runtime::Global().ops().Get(name);
}

// A parsed invoke request: the runtime it runs on (the global one), the op
// (from that runtime's registry), its string parameters and output count.
struct InvokeRequest {
  weft::Runtime* rt = nullptr;
  const weft::OpDef* op = nullptr;
  weft::StringMap params;
  size_t num_outputs = 0;
};

// Validates the op name and parameters (parsing them, so bad keys or values
// fail before anything is allocated) and computes the number of outputs.
InvokeRequest PrepareInvoke(const char* op, const char* const* keys, const char* const* vals,
                            size_t num_params) {
  InvokeRequest r;
  r.rt = &weft::Runtime::Global();
  CheckNotNull(op, "op");
  r.op = &r.rt->ops().Get(op);
  CheckArray(keys, num_params, "keys");
  CheckArray(vals, num_params, "vals");
  for (size_t i = 0; i < num_params; ++i) {
    if (!keys[i]) weft::Fail(StatusCode::kInvalidArgument, "argument 'keys[", i, "]' is NULL");
    if (!vals[i])
      weft::Fail(StatusCode::kInvalidArgument, "argument 'vals[", i, "]' is NULL (parameter '",
                 keys[i], "' of operator ", r.op->name, ")");
    if (!r.params.emplace(keys[i], vals[i]).second)
      weft::Fail(StatusCode::kInvalidArgument, "operator ", r.op->name, ": parameter '", keys[i],
                 "' is given twice");
  }
  weft::ParamValues parsed = weft::ParseParams(r.op->name, &r.op->params, r.params);
  r.num_outputs = static_cast<size_t>(r.op->NumOutputs(parsed));
  return r;
}

}  // namespace

extern "C" {

WeftStatus weft_op_count(size_t* out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  *out = OpNames().size();
  WEFT_API_END();
}

WeftStatus weft_op_name(size_t index, const char** out_name) {
  WEFT_API_BEGIN();
  CheckNotNull(out_name, "out_name");
  const auto& names = OpNames();
  if (index >= names.size())
    weft::Fail(StatusCode::kInvalidArgument, "argument 'index' is ", index, ", expected < ",
               names.size(), " (the number of operators)");
  *out_name = names[index].c_str();
  WEFT_API_END();
}

WeftStatus weft_op_info(const char* op, const char** out_doc, size_t* out_num_params) {
  WEFT_API_BEGIN();
  const weft::OpDef& def = FindOp(op);
  CheckNotNull(out_doc, "out_doc");
  CheckNotNull(out_num_params, "out_num_params");
  // OpDefs live in the global runtime, which is never destroyed.
  *out_doc = def.doc.c_str();
  *out_num_params = def.params.size();
  WEFT_API_END();
}

WeftStatus weft_op_param(const char* op, size_t index, const char** out_name, const char** out_type,
                         const char** out_default, const char** out_doc) {
  WEFT_API_BEGIN();
  const weft::OpDef& def = FindOp(op);
  if (index >= def.params.size())
    weft::Fail(StatusCode::kInvalidArgument, "argument 'index' is ", index, ", but operator ",
               def.name, " has ", def.params.size(), " parameter(s)");
  const weft::ParamDecl& d = def.params[index];
  if (out_name) *out_name = d.name.c_str();
  if (out_type) *out_type = weft::ParamTypeName(d.type);
  if (out_default) *out_default = d.required ? nullptr : d.default_value.c_str();
  if (out_doc) *out_doc = d.doc.c_str();
  WEFT_API_END();
}

WeftStatus weft_op_aliases(const char* op, WeftStringList** out) {
  WEFT_API_BEGIN();
  const weft::OpDef& def = FindOp(op);
  CheckNotNull(out, "out");
  *out = weft::capi::NewStringList(def.aliases);
  WEFT_API_END();
}

WeftStatus weft_op_invoke(const char* op, WeftNDArray* const* inputs, size_t num_inputs,
                          const char* const* keys, const char* const* vals, size_t num_params,
                          WeftNDArray** outputs, size_t capacity, size_t* num_outputs) {
  WEFT_API_BEGIN();
  InvokeRequest r = PrepareInvoke(op, keys, vals, num_params);
  std::vector<NDArray> in = weft::capi::Arrays(inputs, num_inputs, "inputs", false);
  CheckArray(outputs, capacity, "outputs");
  CheckNotNull(num_outputs, "num_outputs");
  if (capacity < r.num_outputs)
    weft::Fail(StatusCode::kInvalidArgument, "argument 'capacity' is ", capacity, ", but operator ",
               r.op->name, " produces ", r.num_outputs, " output(s)");

  std::vector<NDArray> out;
  weft::Invoke(r.rt, r.op->name, in, r.params, &out);
  WEFT_CHECK_EQ(out.size(), r.num_outputs) << "operator " << r.op->name << " output count";

  weft::capi::PublishArrays(out, outputs);
  *num_outputs = out.size();
  WEFT_API_END();
}

WeftStatus weft_op_invoke_into(const char* op, WeftNDArray* const* inputs, size_t num_inputs,
                               const char* const* keys, const char* const* vals, size_t num_params,
                               WeftNDArray* const* outputs, size_t num_outputs, const int* reqs) {
  WEFT_API_BEGIN();
  InvokeRequest r = PrepareInvoke(op, keys, vals, num_params);
  std::vector<NDArray> in = weft::capi::Arrays(inputs, num_inputs, "inputs", false);
  std::vector<NDArray> out = weft::capi::Arrays(outputs, num_outputs, "outputs", false);
  if (num_outputs != r.num_outputs)
    weft::Fail(StatusCode::kInvalidArgument, "argument 'num_outputs' is ", num_outputs,
               ", but operator ", r.op->name, " produces ", r.num_outputs, " output(s)");
  weft::InvokeOptions opts;
  if (reqs) {
    for (size_t i = 0; i < num_outputs; ++i) {
      if (reqs[i] != WEFT_REQ_NULL && reqs[i] != WEFT_REQ_WRITE && reqs[i] != WEFT_REQ_ADD)
        weft::Fail(StatusCode::kInvalidArgument, "argument 'reqs[", i, "]' is ", reqs[i],
                   ", expected WEFT_REQ_NULL (0), WEFT_REQ_WRITE (1) or WEFT_REQ_ADD (3)");
      opts.reqs.push_back(static_cast<weft::OpReq>(reqs[i]));
    }
  }
  weft::Invoke(r.rt, r.op->name, in, r.params, &out, opts);
  // A recorded call gave the outputs autograd entries: the handles are the arrays.
  for (size_t i = 0; i < num_outputs; ++i)
    if (out[i].autograd_entry())
      GetObject(outputs[i], "outputs")->set_autograd_entry(out[i].autograd_entry());
  WEFT_API_END();
}

}  // extern "C"
