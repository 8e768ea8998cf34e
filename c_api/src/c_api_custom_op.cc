// weft_custom_op_*: custom operator types implemented by C callback tables
// (weft/c_api_custom_op.h), adapted to core's CustomOpProp and
// CustomOperator (weft/custom_op.h); weft_ndarray_get_data.
//
// Arrays reach the callbacks as NDArray handles borrowing the call's memory
// (NDArray::Borrow), registered for the callback and freed when it returns,
// so a handle kept past the callback is reported as freed, not used.
#include <cstring>
#include <deque>

#include "c_api_internal.h"
#include "c_api_symbol_internal.h"
#include "weft/custom_op.h"
#include "weft/runtime.h"

using namespace weft;        // NOLINT: the C ABI's implementation
using namespace weft::capi;  // NOLINT

namespace {

// Throws the error a callback returned, naming the callback.
void CheckCallback(const char* err, const char* callback) {
  if (err) Fail(StatusCode::kInvalidArgument, callback, " returned an error: ", err);
}

// Handles for a callback's arrays, freed when it returns. A blob without
// memory (an undeclared backward dependency) is a NULL handle.
class Views {
 public:
  const std::vector<WeftNDArray*>& Make(const std::vector<TBlob>& blobs) {
    lists_.emplace_back();
    for (const TBlob& b : blobs) {
      WeftNDArray* h = nullptr;
      if (b.dptr) {
        h = NewHandle<WeftNDArray>(
            std::make_shared<NDArray>(NDArray::Borrow(b, &Runtime::Global())));
        made_.push_back(h);
      }
      lists_.back().push_back(h);
    }
    return lists_.back();
  }
  ~Views() {
    for (WeftNDArray* h : made_) {
      try {
        TakeHandle(h, "view");
      } catch (...) {  // the callback freed its view: nothing left to release
      }
    }
  }

 private:
  std::vector<WeftNDArray*> made_;
  std::deque<std::vector<WeftNDArray*>> lists_;  // a deque: Make's references stay valid
};

std::vector<int> Reqs(const std::vector<OpReq>& req) {
  std::vector<int> r;
  for (OpReq q : req) r.push_back(static_cast<int>(q == OpReq::kInplace ? OpReq::kWrite : q));
  return r;
}

class CApiOperator : public CustomOperator {
 public:
  explicit CApiOperator(const WeftCustomOp& t) : t_(t) {}
  ~CApiOperator() override {
    if (t_.del) t_.del(t_.state);
  }
  void Forward(bool is_train, const std::vector<OpReq>& req, const std::vector<TBlob>& in_data,
               const std::vector<TBlob>& out_data, const std::vector<TBlob>& aux) override {
    if (!t_.forward) Fail(StatusCode::kNotImplemented, "the operator has no forward");
    Views v;
    const std::vector<int> r = Reqs(req);
    const auto &in = v.Make(in_data), &out = v.Make(out_data), &ax = v.Make(aux);
    CheckCallback(t_.forward(t_.state, is_train ? 1 : 0, r.data(), in.data(), Int(in), out.data(),
                             Int(out), ax.data(), Int(ax)),
                  "forward");
  }
  void Backward(const std::vector<OpReq>& req, const std::vector<TBlob>& out_grad,
                const std::vector<TBlob>& in_data, const std::vector<TBlob>& out_data,
                const std::vector<TBlob>& in_grad, const std::vector<TBlob>& aux) override {
    if (!t_.backward) Fail(StatusCode::kNotImplemented, "the operator has no backward");
    Views v;
    const std::vector<int> r = Reqs(req);
    const auto &og = v.Make(out_grad), &in = v.Make(in_data), &od = v.Make(out_data);
    const auto &ig = v.Make(in_grad), &ax = v.Make(aux);
    CheckCallback(t_.backward(t_.state, r.data(), og.data(), in.data(), od.data(), ig.data(),
                              ax.data(), Int(in), Int(od), Int(ax)),
                  "backward");
  }

 private:
  static int Int(const std::vector<WeftNDArray*>& v) { return static_cast<int>(v.size()); }
  WeftCustomOp t_;
};

class CApiProp : public CustomOpProp {
 public:
  explicit CApiProp(const WeftCustomOpProp& t) : t_(t) {
    if (!t_.list_arguments || !t_.list_outputs || !t_.infer_shape || !t_.create_operator)
      Fail(StatusCode::kInvalidArgument,
           "the prop lacks a required callback (list_arguments, list_outputs, infer_shape and "
           "create_operator are required)");
  }
  ~CApiProp() override {
    if (t_.del) t_.del(t_.state);
  }
  std::vector<std::string> ListArguments() override {
    return List(t_.list_arguments, "list_arguments");
  }
  std::vector<std::string> ListOutputs() override { return List(t_.list_outputs, "list_outputs"); }
  std::vector<std::string> ListAuxiliaryStates() override {
    if (!t_.list_auxiliary_states) return {};
    return List(t_.list_auxiliary_states, "list_auxiliary_states");
  }
  void InferShape(std::vector<Shape>* in, std::vector<Shape>* out,
                  std::vector<Shape>* aux) override;
  void InferType(std::vector<DType>* in, std::vector<DType>* out, std::vector<DType>* aux) override;
  std::vector<int> DeclareBackwardDependency(const std::vector<int>& out_grad,
                                             const std::vector<int>& in_data,
                                             const std::vector<int>& out_data) override {
    std::vector<int> all = out_grad;
    all.insert(all.end(), in_data.begin(), in_data.end());
    all.insert(all.end(), out_data.begin(), out_data.end());
    if (!t_.declare_backward_dependency) return all;
    std::vector<int> deps(all.size(), -1);
    int n = -1;
    CheckCallback(t_.declare_backward_dependency(t_.state, out_grad.data(), in_data.data(),
                                                 out_data.data(), deps.data(), &n),
                  "declare_backward_dependency");
    if (n < 0 || static_cast<size_t>(n) > deps.size())
      Fail(StatusCode::kInvalidArgument, "declare_backward_dependency gave ", n,
           " dependencies, expected 0 to ", deps.size());
    deps.resize(static_cast<size_t>(n));
    return deps;
  }
  std::unique_ptr<CustomOperator> CreateOperator(Context ctx, const std::vector<Shape>& in_shapes,
                                                 const std::vector<DType>& in_types) override;

 private:
  using ListFn = const char* (*)(void*, const char* const**);
  std::vector<std::string> List(ListFn fn, const char* what) {
    const char* const* names = nullptr;
    CheckCallback(fn(t_.state, &names), what);
    if (!names) Fail(StatusCode::kInvalidArgument, what, " returned no list");
    std::vector<std::string> out;
    for (size_t i = 0; names[i]; ++i) out.emplace_back(names[i]);
    return out;
  }
  WeftCustomOpProp t_;
};

void CApiProp::InferShape(std::vector<Shape>* in, std::vector<Shape>* out,
                          std::vector<Shape>* aux) {
  std::vector<std::vector<Shape>*> groups{in, out, aux};
  size_t num = in->size() + out->size() + aux->size();
  std::vector<int> ndims;
  std::vector<int64_t> dims(num * kMaxNdim, 0);
  std::vector<int64_t*> ptrs;
  for (auto* g : groups)
    for (const Shape& s : *g) {
      int64_t* p = dims.data() + ptrs.size() * kMaxNdim;
      ndims.push_back(s.ndim_known() ? s.ndim() : -1);
      for (int d = 0; d < s.ndim() && d < kMaxNdim; ++d) p[d] = s[d];
      ptrs.push_back(p);
    }
  CheckCallback(
      t_.infer_shape(t_.state, static_cast<int>(num), ndims.data(), ptrs.data(), kMaxNdim),
      "infer_shape");
  size_t k = 0;
  for (auto* g : groups)
    for (Shape& s : *g) {
      const int nd = ndims[k];
      if (nd > kMaxNdim)
        Fail(StatusCode::kShape, "infer_shape gave entry ", k, " rank ", nd, ", at most ",
             kMaxNdim);
      if (nd >= 0) s = Shape(std::vector<int64_t>(ptrs[k], ptrs[k] + nd));
      ++k;
    }
}

void CApiProp::InferType(std::vector<DType>* in, std::vector<DType>* out, std::vector<DType>* aux) {
  std::vector<std::vector<DType>*> groups{in, out, aux};
  if (!t_.infer_type) {
    for (DType& t : *out) t = (*in)[0];
    for (DType& t : *aux) t = (*in)[0];
    return;
  }
  std::vector<int> codes;
  for (auto* g : groups)
    for (DType t : *g) codes.push_back(t == DType::kUnknown ? -1 : static_cast<int>(t));
  CheckCallback(t_.infer_type(t_.state, static_cast<int>(codes.size()), codes.data()),
                "infer_type");
  size_t k = 0;
  for (auto* g : groups)
    for (DType& t : *g) {
      const int c = codes[k++];
      if (c >= 0 && DTypeSize(static_cast<DType>(c)) == 0)
        Fail(StatusCode::kDType, "infer_type gave entry ", k - 1, " the unknown dtype code ", c);
      t = c < 0 ? DType::kUnknown : static_cast<DType>(c);
    }
}

std::unique_ptr<CustomOperator> CApiProp::CreateOperator(Context ctx,
                                                         const std::vector<Shape>& in_shapes,
                                                         const std::vector<DType>& in_types) {
  std::vector<int> ndims, codes;
  std::vector<const int64_t*> shapes;
  for (size_t i = 0; i < in_shapes.size(); ++i) {
    ndims.push_back(in_shapes[i].ndim());
    shapes.push_back(in_shapes[i].dims().data());
    codes.push_back(static_cast<int>(in_types[i]));
  }
  WeftCustomOp op;
  std::memset(&op, 0, sizeof(op));
  const std::string ctx_text = ctx.ToString();
  CheckCallback(t_.create_operator(t_.state, ctx_text.c_str(), static_cast<int>(ndims.size()),
                                   ndims.data(), shapes.data(), codes.data(), &op),
                "create_operator");
  return std::make_unique<CApiOperator>(op);
}

// The registration's user data, released with the type.
struct HostType {
  WeftCustomOpCreator creator = nullptr;
  void* user_data = nullptr;
  WeftCustomOpDeleter deleter = nullptr;
  ~HostType() {
    if (deleter) deleter(user_data);
  }
};

}  // namespace

namespace weft {
namespace capi {

void RegisterCustomOpTable(const char* op_type, WeftCustomOpCreator creator, void* user_data,
                           WeftCustomOpDeleter deleter) {
  auto host = std::make_shared<HostType>();
  host->user_data = user_data;
  host->deleter = deleter;  // from here on, a failure releases user_data
  CheckNotNull(op_type, "op_type");
  if (!creator) Fail(StatusCode::kInvalidArgument, "argument 'creator' is NULL");
  host->creator = creator;
  RegisterCustomOp(op_type, [host](const std::string& type, const StringMap& attrs) {
    std::vector<const char*> keys, values;
    for (const auto& kv : attrs) {
      keys.push_back(kv.first.c_str());
      values.push_back(kv.second.c_str());
    }
    WeftCustomOpProp t;
    std::memset(&t, 0, sizeof(t));
    const char* err = host->creator(host->user_data, type.c_str(), keys.data(), values.data(),
                                    static_cast<int>(keys.size()), &t);
    if (err) {
      if (t.del) t.del(t.state);
      CheckCallback(err, "the creator");
    }
    try {
      return std::unique_ptr<CustomOpProp>(new CApiProp(t));
    } catch (...) {
      if (t.del) t.del(t.state);
      throw;
    }
  });
}

}  // namespace capi
}  // namespace weft

WeftStatus weft_custom_op_register(const char* op_type, WeftCustomOpCreator creator,
                                   void* user_data, WeftCustomOpDeleter deleter) {
  WEFT_API_BEGIN();
  RegisterCustomOpTable(op_type, creator, user_data, deleter);
  WEFT_API_END();
}

WeftStatus weft_custom_op_unregister(const char* op_type) {
  WEFT_API_BEGIN();
  CheckNotNull(op_type, "op_type");
  UnregisterCustomOp(op_type);
  WEFT_API_END();
}

WeftStatus weft_custom_op_list(WeftStringList** out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  *out = NewStringList(ListCustomOps());
  WEFT_API_END();
}

WeftStatus weft_ndarray_get_data(const WeftNDArray* arr, void** out) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out, "out");
  if (a->ctx().dev_type != DeviceType::kCPU)
    Fail(StatusCode::kDevice, "the array is on ", a->ctx().ToString(),
         "; only host arrays expose their memory");
  *out = a->dptr();
  WEFT_API_END();
}
