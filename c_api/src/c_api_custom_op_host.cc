// weft_custom_op_register_host and weft_custom_op_call_*: custom operator
// types served by one host dispatch function with flat arguments (the Java,
// C# and Go bindings), adapted to the C callback tables of
// weft_custom_op_register (c_api_custom_op.cc); weft_ndarray_get_bytes.
//
// Each callback of the tables fills a WeftCustomOpCall, calls the host's
// dispatch and reads the results back. Error messages returned to the table
// live in a thread-local string: the caller copies them at once, on the
// same thread.
#include <cstring>
#include <string>
#include <vector>

#include "c_api_internal.h"

using namespace weft;        // NOLINT: the C ABI's implementation
using namespace weft::capi;  // NOLINT

struct WeftCustomOpCall {
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<WeftNDArray*> arrays;
  std::vector<int64_t> result_ints;
  std::vector<std::string> result_strings;
  bool failed = false;
  std::string error;
};

namespace {

thread_local std::string tl_error;

// A registration, a prop or an operator: the host's id and its dispatch.
struct HostObject {
  WeftCustomOpDispatch dispatch = nullptr;
  int64_t id = 0;
  std::vector<std::string> names;  // the last list callback's result
  std::vector<const char*> name_ptrs;
  int num_args = -1, num_outs = -1;  // from the list callbacks
};

HostObject* Obj(void* state) { return static_cast<HostObject*>(state); }

// Runs one dispatch; NULL or the host's message.
const char* Run(const HostObject* o, WeftCustomOpCallKind kind, WeftCustomOpCall* call) {
  o->dispatch(kind, o->id, call);
  if (!call->failed) return nullptr;
  tl_error = call->error.empty() ? "the host callback failed" : call->error;
  return tl_error.c_str();
}

const char* Error(const std::string& message) {
  tl_error = message;
  return tl_error.c_str();
}

void Release(void* state, WeftCustomOpCallKind kind) {
  HostObject* o = Obj(state);
  WeftCustomOpCall call;
  o->dispatch(kind, o->id, &call);
  delete o;
}
void DeleteProp(void* state) { Release(state, WEFT_CUSTOM_CALL_DELETE_PROP); }
void DeleteOperator(void* state) { Release(state, WEFT_CUSTOM_CALL_DELETE_OPERATOR); }
void DeleteType(void* state) { Release(state, WEFT_CUSTOM_CALL_DELETE_TYPE); }

// The new object's id: the one result int.
const char* NewId(const WeftCustomOpCall& call, const char* what, int64_t* id) {
  if (call.result_ints.size() != 1)
    return Error(std::string("the host gave ") + std::to_string(call.result_ints.size()) +
                 " ids for the new " + what + ", expected 1");
  *id = call.result_ints[0];
  return nullptr;
}

const char* List(void* state, WeftCustomOpCallKind kind, const char* const** out) {
  HostObject* o = Obj(state);
  WeftCustomOpCall call;
  if (const char* err = Run(o, kind, &call)) return err;
  o->names = std::move(call.result_strings);
  o->name_ptrs.clear();
  for (const std::string& n : o->names) o->name_ptrs.push_back(n.c_str());
  o->name_ptrs.push_back(nullptr);
  if (kind == WEFT_CUSTOM_CALL_LIST_ARGUMENTS) o->num_args = static_cast<int>(o->names.size());
  if (kind == WEFT_CUSTOM_CALL_LIST_OUTPUTS) o->num_outs = static_cast<int>(o->names.size());
  *out = o->name_ptrs.data();
  return nullptr;
}
const char* ListArguments(void* s, const char* const** out) {
  return List(s, WEFT_CUSTOM_CALL_LIST_ARGUMENTS, out);
}
const char* ListOutputs(void* s, const char* const** out) {
  return List(s, WEFT_CUSTOM_CALL_LIST_OUTPUTS, out);
}
const char* ListAux(void* s, const char* const** out) {
  return List(s, WEFT_CUSTOM_CALL_LIST_AUXILIARY_STATES, out);
}

// The entry counts (arguments, outputs, aux) of an INFER_* call.
void PutCounts(HostObject* o, int num, WeftCustomOpCall* call) {
  const int args = o->num_args < 0 ? 0 : o->num_args, outs = o->num_outs < 0 ? 0 : o->num_outs;
  call->ints = {args, outs, num - args - outs};
}

const char* InferShape(void* state, int num, int* ndims, int64_t* const* shapes, int max_ndim) {
  HostObject* o = Obj(state);
  WeftCustomOpCall call;
  PutCounts(o, num, &call);
  for (int i = 0; i < num; ++i) {
    call.ints.push_back(ndims[i]);
    for (int d = 0; d < ndims[i]; ++d) call.ints.push_back(shapes[i][d]);
  }
  if (const char* err = Run(o, WEFT_CUSTOM_CALL_INFER_SHAPE, &call)) return err;
  const std::vector<int64_t>& r = call.result_ints;
  size_t k = 0;
  for (int i = 0; i < num; ++i) {
    if (k >= r.size())
      return Error("infer_shape gave " + std::to_string(i) + " of " + std::to_string(num) +
                   " shapes");
    const int64_t nd = r[k++];
    if (nd > max_ndim || nd < -1 || k + static_cast<size_t>(nd < 0 ? 0 : nd) > r.size())
      return Error("infer_shape gave entry " + std::to_string(i) + " the rank " +
                   std::to_string(nd) + " (at most " + std::to_string(max_ndim) +
                   ") or too few extents");
    ndims[i] = static_cast<int>(nd);
    for (int64_t d = 0; d < nd; ++d) shapes[i][d] = r[k++];
  }
  if (k != r.size()) return Error("infer_shape gave more extents than the entries hold");
  return nullptr;
}

const char* InferType(void* state, int num, int* dtypes) {
  HostObject* o = Obj(state);
  WeftCustomOpCall call;
  PutCounts(o, num, &call);
  call.ints.insert(call.ints.end(), dtypes, dtypes + num);
  if (const char* err = Run(o, WEFT_CUSTOM_CALL_INFER_TYPE, &call)) return err;
  if (call.result_ints.size() != static_cast<size_t>(num))
    return Error("infer_type gave " + std::to_string(call.result_ints.size()) +
                 " types, expected " + std::to_string(num));
  for (int i = 0; i < num; ++i) dtypes[i] = static_cast<int>(call.result_ints[i]);
  return nullptr;
}

const char* BackwardDeps(void* state, const int* out_grad, const int* in_data, const int* out_data,
                         int* out_deps, int* num_deps) {
  HostObject* o = Obj(state);
  if (o->num_args < 0 || o->num_outs < 0) return Error("backward dependency before list calls");
  WeftCustomOpCall call;
  call.ints = {o->num_outs, o->num_args};
  call.ints.insert(call.ints.end(), out_grad, out_grad + o->num_outs);
  call.ints.insert(call.ints.end(), in_data, in_data + o->num_args);
  call.ints.insert(call.ints.end(), out_data, out_data + o->num_outs);
  if (const char* err = Run(o, WEFT_CUSTOM_CALL_BACKWARD_DEPENDENCY, &call)) return err;
  const size_t cap = static_cast<size_t>(2 * o->num_outs + o->num_args);
  if (call.result_ints.size() > cap)
    return Error("declare_backward_dependency gave " + std::to_string(call.result_ints.size()) +
                 " ids, at most " + std::to_string(cap));
  for (size_t i = 0; i < call.result_ints.size(); ++i)
    out_deps[i] = static_cast<int>(call.result_ints[i]);
  *num_deps = static_cast<int>(call.result_ints.size());
  return nullptr;
}

const char* Compute(void* state, WeftCustomOpCallKind kind, std::vector<int64_t> ints,
                    std::initializer_list<std::pair<WeftNDArray* const*, int>> groups) {
  WeftCustomOpCall call;
  call.ints = std::move(ints);
  for (const auto& g : groups) call.arrays.insert(call.arrays.end(), g.first, g.first + g.second);
  return Run(Obj(state), kind, &call);
}

const char* Forward(void* state, int is_train, const int* req, WeftNDArray* const* in, int num_in,
                    WeftNDArray* const* out, int num_out, WeftNDArray* const* aux, int num_aux) {
  std::vector<int64_t> ints{is_train, num_in, num_out, num_aux};
  ints.insert(ints.end(), req, req + num_out);
  return Compute(state, WEFT_CUSTOM_CALL_FORWARD, std::move(ints),
                 {{in, num_in}, {out, num_out}, {aux, num_aux}});
}

const char* Backward(void* state, const int* req, WeftNDArray* const* out_grad,
                     WeftNDArray* const* in_data, WeftNDArray* const* out_data,
                     WeftNDArray* const* in_grad, WeftNDArray* const* aux, int num_in, int num_out,
                     int num_aux) {
  std::vector<int64_t> ints{num_in, num_out, num_aux};
  ints.insert(ints.end(), req, req + num_in);
  return Compute(state, WEFT_CUSTOM_CALL_BACKWARD, std::move(ints),
                 {{out_grad, num_out},
                  {in_data, num_in},
                  {out_data, num_out},
                  {in_grad, num_in},
                  {aux, num_aux}});
}

const char* CreateOperator(void* state, const char* ctx, int num, const int* ndims,
                           const int64_t* const* shapes, const int* dtypes, WeftCustomOp* out) {
  HostObject* o = Obj(state);
  WeftCustomOpCall call;
  call.strings = {ctx};
  call.ints = {num};
  for (int i = 0; i < num; ++i) {
    call.ints.push_back(ndims[i]);
    call.ints.insert(call.ints.end(), shapes[i], shapes[i] + ndims[i]);
  }
  call.ints.insert(call.ints.end(), dtypes, dtypes + num);
  if (const char* err = Run(o, WEFT_CUSTOM_CALL_CREATE_OPERATOR, &call)) return err;
  auto* op = new HostObject;
  op->dispatch = o->dispatch;
  if (const char* err = NewId(call, "operator", &op->id)) {
    delete op;
    return err;
  }
  out->state = op;
  out->del = DeleteOperator;
  out->forward = Forward;
  out->backward = Backward;
  return nullptr;
}

const char* CreateProp(void* user_data, const char* op_type, const char* const* keys,
                       const char* const* values, int num_attrs, WeftCustomOpProp* out) {
  const HostObject* type = Obj(user_data);
  WeftCustomOpCall call;
  call.strings.push_back(op_type);
  for (int i = 0; i < num_attrs; ++i) {
    call.strings.push_back(keys[i]);
    call.strings.push_back(values[i]);
  }
  if (const char* err = Run(type, WEFT_CUSTOM_CALL_CREATE_PROP, &call)) return err;
  auto* prop = new HostObject;
  prop->dispatch = type->dispatch;
  if (const char* err = NewId(call, "prop", &prop->id)) {
    delete prop;
    return err;
  }
  out->state = prop;
  out->del = DeleteProp;
  out->list_arguments = ListArguments;
  out->list_outputs = ListOutputs;
  out->list_auxiliary_states = ListAux;
  out->infer_shape = InferShape;
  out->infer_type = InferType;
  out->declare_backward_dependency = BackwardDeps;
  out->create_operator = CreateOperator;
  return nullptr;
}

const WeftCustomOpCall& CallArg(const WeftCustomOpCall* call) {
  CheckNotNull(call, "call");
  return *call;
}

}  // namespace

WeftStatus weft_custom_op_register_host(const char* op_type, WeftCustomOpDispatch dispatch,
                                        int64_t id) {
  WEFT_API_BEGIN();
  if (!dispatch) Fail(StatusCode::kInvalidArgument, "argument 'dispatch' is NULL");
  auto* type = new HostObject;
  type->dispatch = dispatch;
  type->id = id;
  // Releases the type (DeleteType) when it fails.
  RegisterCustomOpTable(op_type, CreateProp, type, DeleteType);
  WEFT_API_END();
}

WeftStatus weft_custom_op_call_ints(const WeftCustomOpCall* call, int64_t* out_ints,
                                    size_t capacity, size_t* out) {
  WEFT_API_BEGIN();
  const WeftCustomOpCall& c = CallArg(call);
  CheckArray(out_ints, capacity, "out_ints");
  CheckNotNull(out, "out");
  const size_t n = std::min(capacity, c.ints.size());
  if (n) std::memcpy(out_ints, c.ints.data(), n * sizeof(int64_t));
  *out = c.ints.size();
  WEFT_API_END();
}

WeftStatus weft_custom_op_call_num_strings(const WeftCustomOpCall* call, size_t* out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  *out = CallArg(call).strings.size();
  WEFT_API_END();
}

WeftStatus weft_custom_op_call_string(const WeftCustomOpCall* call, size_t index,
                                      const char** out_str) {
  WEFT_API_BEGIN();
  const WeftCustomOpCall& c = CallArg(call);
  CheckNotNull(out_str, "out_str");
  if (index >= c.strings.size())
    Fail(StatusCode::kInvalidArgument, "string index ", index, " out of range (the call has ",
         c.strings.size(), ")");
  *out_str = c.strings[index].c_str();
  WEFT_API_END();
}

WeftStatus weft_custom_op_call_arrays(const WeftCustomOpCall* call, WeftNDArray** out_arrays,
                                      size_t capacity, size_t* out) {
  WEFT_API_BEGIN();
  const WeftCustomOpCall& c = CallArg(call);
  CheckArray(out_arrays, capacity, "out_arrays");
  CheckNotNull(out, "out");
  for (size_t i = 0; i < capacity && i < c.arrays.size(); ++i) out_arrays[i] = c.arrays[i];
  *out = c.arrays.size();
  WEFT_API_END();
}

WeftStatus weft_custom_op_call_set_ints(WeftCustomOpCall* call, const int64_t* ints, size_t num) {
  WEFT_API_BEGIN();
  CheckNotNull(call, "call");
  CheckArray(ints, num, "ints");
  call->result_ints.assign(ints, ints + num);
  WEFT_API_END();
}

WeftStatus weft_custom_op_call_add_string(WeftCustomOpCall* call, const char* str) {
  WEFT_API_BEGIN();
  CheckNotNull(call, "call");
  CheckNotNull(str, "str");
  call->result_strings.emplace_back(str);
  WEFT_API_END();
}

WeftStatus weft_custom_op_call_fail(WeftCustomOpCall* call, const char* message) {
  WEFT_API_BEGIN();
  CheckNotNull(call, "call");
  call->failed = true;
  call->error = message ? message : "";
  WEFT_API_END();
}

WeftStatus weft_ndarray_get_bytes(const WeftNDArray* arr, const void** out_data, size_t* out_size) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out_data, "out_data");
  CheckNotNull(out_size, "out_size");
  if (a->ctx().dev_type != DeviceType::kCPU)
    Fail(StatusCode::kDevice, "the array is on ", a->ctx().ToString(),
         "; only host arrays expose their memory");
  *out_data = a->dptr();
  *out_size = a->Bytes();
  WEFT_API_END();
}
