// weft_load_library, weft_loaded_ops: operator libraries (weft/op_plugin.h)
// opened with dlopen, their operators added to the global runtime's
// registries (OpRegistry::AddLoaded, KernelRegistry::AddLoaded).
//
// Each library operator becomes an OpDef taking its string parameters
// through a ParamDecl::rest declaration, a CPU kernel calling forward, and,
// with a backward, `_backward_<name>` taking (out_grads, inputs, outputs).
// Libraries are never closed: their operators may be in use until exit.
#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <set>

#include "c_api_internal.h"
#include "c_api_symbol_internal.h"
#include "weft/mutex.h"
#include "weft/op.h"
#include "weft/op_plugin.h"
#include "weft/runtime.h"

using namespace weft;        // NOLINT: the C ABI's implementation
using namespace weft::capi;  // NOLINT

namespace {

// The parameters of one node as the callbacks take them.
struct PluginParams {
  std::vector<std::string> keys, vals;
  std::vector<const char*> kp, vp;
  static PluginParams Decode(const ParamValues& p) {
    PluginParams r;
    for (const auto& kv : p.Get("attrs").rest) {
      r.keys.push_back(kv.first);
      r.vals.push_back(kv.second);
    }
    for (size_t i = 0; i < r.keys.size(); ++i) {
      r.kp.push_back(r.keys[i].c_str());
      r.vp.push_back(r.vals[i].c_str());
    }
    return r;
  }
  int size() const { return static_cast<int>(keys.size()); }
};

const PluginParams& Params(const NodeAttrs& a) { return a.params.Decoded<PluginParams>(); }

void CheckCallback(const char* err, const NodeAttrs& a, const char* what) {
  if (err)
    Fail(StatusCode::kInvalidArgument, "operator ", a.op->name, " (node '", a.name, "'): ", what,
         " failed: ", err);
}

std::vector<WeftOpPluginTensor> Tensors(const std::vector<TBlob>& blobs, size_t begin, size_t end) {
  std::vector<WeftOpPluginTensor> t;
  for (size_t i = begin; i < end; ++i) {
    const TBlob& b = blobs[i];
    t.push_back({b.dptr, b.shape.dims().data(), b.shape.ndim(), static_cast<int>(b.dtype)});
  }
  return t;
}

std::vector<int> Reqs(const std::vector<OpReq>& req) {
  std::vector<int> r;
  for (OpReq q : req) r.push_back(q == OpReq::kInplace ? WEFT_REQ_WRITE : static_cast<int>(q));
  return r;
}

template <typename T>
void Merge(const NodeAttrs& a, std::vector<T>* v, size_t i, const T& got, bool (*known)(const T&),
           const char* what) {
  if (known((*v)[i]) && (*v)[i] != got)
    Fail(StatusCode::kShape, "operator ", a.op->name, " (node '", a.name, "'): ", what, " ", i,
         " conflicts with what the library inferred");
  (*v)[i] = got;
}

bool ShapeKnown(const Shape& s) { return s.is_known(); }
bool TypeKnown(const DType& t) { return t != DType::kUnknown; }

bool InferShape(const WeftOpPluginOp& op, const NodeAttrs& a, std::vector<Shape>* in,
                std::vector<Shape>* out) {
  std::vector<int> in_nd, out_nd(out->size(), -1);
  std::vector<const int64_t*> in_dims;
  for (const Shape& s : *in) {
    if (!s.is_known()) return false;
    in_nd.push_back(s.ndim());
    in_dims.push_back(s.dims().data());
  }
  std::vector<int64_t> buf(out->size() * kMaxNdim, 0);
  std::vector<int64_t*> out_dims;
  for (size_t i = 0; i < out->size(); ++i) out_dims.push_back(buf.data() + i * kMaxNdim);
  const PluginParams& p = Params(a);
  CheckCallback(op.infer_shape(p.kp.data(), p.vp.data(), p.size(), in_nd.data(), in_dims.data(),
                               out_nd.data(), out_dims.data(), kMaxNdim),
                a, "infer_shape");
  for (size_t i = 0; i < out->size(); ++i) {
    if (out_nd[i] < 0 || out_nd[i] > kMaxNdim)
      Fail(StatusCode::kShape, "operator ", a.op->name, ": infer_shape gave output ", i, " rank ",
           out_nd[i]);
    Merge(a, out, i, Shape(std::vector<int64_t>(out_dims[i], out_dims[i] + out_nd[i])), ShapeKnown,
          "output");
  }
  return true;
}

bool InferType(const WeftOpPluginOp& op, const NodeAttrs& a, std::vector<DType>* in,
               std::vector<DType>* out) {
  std::vector<int> in_t, out_t(out->size(), -1);
  for (DType t : *in) {
    if (t == DType::kUnknown) return false;
    in_t.push_back(static_cast<int>(t));
  }
  if (op.infer_type) {
    const PluginParams& p = Params(a);
    CheckCallback(op.infer_type(p.kp.data(), p.vp.data(), p.size(), in_t.data(), out_t.data()), a,
                  "infer_type");
  } else {
    for (int& t : out_t) t = in_t.empty() ? static_cast<int>(DType::kFloat32) : in_t[0];
  }
  for (size_t i = 0; i < out->size(); ++i) {
    if (out_t[i] < 0 || DTypeSize(static_cast<DType>(out_t[i])) == 0)
      Fail(StatusCode::kDType, "operator ", a.op->name, ": infer_type gave output ", i,
           " the dtype code ", out_t[i]);
    Merge(a, out, i, static_cast<DType>(out_t[i]), TypeKnown, "output");
  }
  return true;
}

ParamDecl AttrsDecl() {
  ParamDecl d;
  d.name = "attrs";
  d.type = ParamType::kString;
  d.rest = true;
  d.doc = "every parameter, passed as strings to the library's callbacks";
  return d;
}

// The forward OpDef and kernel of `op` (copied: the library outlives it).
void AddForward(Runtime* rt, const WeftOpPluginOp& op) {
  OpDef d;
  d.name = op.name;
  d.doc = op.doc ? op.doc : "";
  d.params = {AttrsDecl()};
  d.num_inputs = op.num_inputs;
  d.num_outputs = op.num_outputs;
  d.infer_shape = [op](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    return InferShape(op, a, in, out);
  };
  d.infer_type = [op](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    return InferType(op, a, in, out);
  };
  if (op.backward) {
    const std::string bwd = std::string("_backward_") + op.name;
    d.gradient = [bwd, op](const OpRegistry& reg, const NodePtr& n,
                           const std::vector<NodeEntry>& og) {
      std::vector<NodeEntry> inputs = og;
      inputs.insert(inputs.end(), n->inputs.begin(), n->inputs.end());
      for (int i = 0; i < op.num_outputs; ++i)
        inputs.push_back(NodeEntry{n, static_cast<uint32_t>(i), 0});
      NodePtr b = MakeOpNode(reg, bwd, n->attrs.name + "_backward", inputs, n->attrs.dict);
      std::vector<NodeEntry> g;
      for (int i = 0; i < op.num_inputs; ++i)
        g.push_back(NodeEntry{b, static_cast<uint32_t>(i), 0});
      return g;
    };
  }
  rt->mutable_ops()->AddLoaded(std::move(d));
  Kernel k;
  k.backend = "library";
  k.supports_add = true;
  k.fn = [op](const OpContext&, const NodeAttrs& a, const std::vector<TBlob>& in,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    const PluginParams& p = Params(a);
    const auto ti = Tensors(in, 0, in.size()), to = Tensors(out, 0, out.size());
    const std::vector<int> r = Reqs(req);
    CheckCallback(op.forward(p.kp.data(), p.vp.data(), p.size(), ti.data(), to.data(), r.data()), a,
                  "forward");
  };
  rt->mutable_kernels()->AddLoaded(op.name, DeviceType::kCPU, std::move(k));
}

// `_backward_<name>`: inputs (out_grads, inputs, outputs), outputs the input gradients.
void AddBackward(Runtime* rt, const WeftOpPluginOp& op) {
  const size_t ni = static_cast<size_t>(op.num_inputs), no = static_cast<size_t>(op.num_outputs);
  OpDef d;
  d.name = std::string("_backward_") + op.name;
  d.doc = std::string("Gradient of ") + op.name + " (its library's backward).";
  d.params = {AttrsDecl()};
  d.num_inputs = static_cast<int>(2 * no + ni);
  d.num_outputs = op.num_inputs;
  d.infer_shape = [ni, no](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    for (size_t i = 0; i < ni; ++i) Merge(a, out, i, (*in)[no + i], ShapeKnown, "input gradient");
    for (const Shape& s : *out)
      if (!s.is_known()) return false;
    return true;
  };
  d.infer_type = [ni, no](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    for (size_t i = 0; i < ni; ++i) Merge(a, out, i, (*in)[no + i], TypeKnown, "input gradient");
    for (DType t : *out)
      if (t == DType::kUnknown) return false;
    return true;
  };
  rt->mutable_ops()->AddLoaded(std::move(d));
  Kernel k;
  k.backend = "library";
  k.supports_add = true;
  k.fn = [op, ni, no](const OpContext&, const NodeAttrs& a, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    const PluginParams& p = Params(a);
    const auto og = Tensors(in, 0, no), x = Tensors(in, no, no + ni);
    const auto y = Tensors(in, no + ni, 2 * no + ni), gx = Tensors(out, 0, out.size());
    const std::vector<int> r = Reqs(req);
    CheckCallback(op.backward(p.kp.data(), p.vp.data(), p.size(), og.data(), x.data(), y.data(),
                              gx.data(), r.data()),
                  a, "backward");
  };
  rt->mutable_kernels()->AddLoaded(std::string("_backward_") + op.name, DeviceType::kCPU,
                                   std::move(k));
}

// Checks every operator of `lib` before anything is added.
void CheckLibrary(const std::string& path, const WeftOpPluginLibrary& lib, const OpRegistry& reg) {
  if (lib.num_ops < 0 || (lib.num_ops > 0 && !lib.ops))
    Fail(StatusCode::kInvalidArgument, "operator library '", path, "' lists ", lib.num_ops,
         " operators without an array");
  std::set<std::string> names;
  for (int i = 0; i < lib.num_ops; ++i) {
    const WeftOpPluginOp& op = lib.ops[i];
    const std::string name = op.name ? op.name : "";
    if (name.empty() || op.num_inputs < 0 || op.num_outputs < 1 || !op.infer_shape || !op.forward)
      Fail(StatusCode::kInvalidArgument, "operator library '", path, "': operator ", i, " ('", name,
           "') needs a name, num_inputs >= 0, num_outputs >= 1, infer_shape and forward");
    for (const std::string& n : {name, "_backward_" + name})
      if (reg.Find(n) || !names.insert(n).second)
        Fail(StatusCode::kInvalidArgument, "operator library '", path, "': the operator name '", n,
             "' is taken");
  }
}

struct Loaded {
  Mutex mu;
  std::set<std::string> paths WEFT_GUARDED_BY(mu);
};

Loaded& LoadedLibraries() {
  static Loaded* l = new Loaded;  // never destroyed: libraries stay loaded
  return *l;
}

}  // namespace

WeftStatus weft_load_library(const char* path) {
  WEFT_API_BEGIN();
  CheckNotNull(path, "path");
  // dlopen("") would open the program itself.
  if (!*path) Fail(StatusCode::kInvalidArgument, "argument 'path' is empty");
  char resolved[PATH_MAX];
  const std::string key = realpath(path, resolved) ? resolved : path;
  Loaded& loaded = LoadedLibraries();
  MutexLock lock(&loaded.mu);
  if (loaded.paths.count(key)) return WEFT_OK;
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) Fail(StatusCode::kIO, "cannot load operator library '", path, "': ", dlerror());
  auto entry = reinterpret_cast<WeftOpPluginEntry>(dlsym(handle, "weft_op_plugin"));
  if (!entry) {
    dlclose(handle);
    Fail(StatusCode::kInvalidArgument, "'", path,
         "' is not an operator library: it does not export weft_op_plugin (weft/op_plugin.h)");
  }
  const WeftOpPluginLibrary* lib = entry();
  if (!lib || lib->version != WEFT_OP_PLUGIN_VERSION) {
    const int v = lib ? lib->version : -1;
    dlclose(handle);
    Fail(StatusCode::kInvalidArgument, "operator library '", path,
         "' was built against weft/op_plugin.h version ", v, "; this Weft supports version ",
         WEFT_OP_PLUGIN_VERSION, " (rebuild the library against this Weft's header)");
  }
  Runtime* rt = &Runtime::Global();
  CheckLibrary(path, *lib, rt->ops());
  for (int i = 0; i < lib->num_ops; ++i) {
    AddForward(rt, lib->ops[i]);
    if (lib->ops[i].backward) AddBackward(rt, lib->ops[i]);
  }
  loaded.paths.insert(key);
  WEFT_API_END();
}

WeftStatus weft_loaded_ops(WeftStringList** out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  *out = NewStringList(Runtime::Global().ops().ListLoaded());
  WEFT_API_END();
}
