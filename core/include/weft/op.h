// Operators: the typed OpDef, the op registry and the kernel registry.
//
// An OpDef is a plain struct of named fields (no string-keyed attributes):
// parameters, arity, input/output names, bidirectional shape and type
// inference, in-place pairs, mutated inputs and a symbolic gradient. Kernels
// are registered separately per (op, device type, backend); the highest
// priority backend wins, and others stay reachable for consistency tests.
// Registries are filled once by plain calls (RegisterAllOps,
// RegisterAllKernels) and then only read, which is thread-safe.
#ifndef WEFT_OP_H_
#define WEFT_OP_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weft/blob.h"
#include "weft/node.h"
#include "weft/param.h"

namespace weft {

// How a kernel writes an output (MXNet's OpReqType).
enum class OpReq : int { kNull = 0, kWrite = 1, kInplace = 2, kAdd = 3 };

// Shape inference: may read and fill both inputs and outputs. Returns true
// when every shape is known afterwards; throws Error(kShape) on a conflict.
using InferShapeFn =
    std::function<bool(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out)>;
// Type inference, same contract with DType::kUnknown as "unknown".
using InferTypeFn =
    std::function<bool(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out)>;
// Symbolic gradient: given the node and the gradients of its outputs, returns
// one gradient entry per input (built with MakeOpEntry on `reg`).
using GradientFn = std::function<std::vector<NodeEntry>(const OpRegistry& reg, const NodePtr& node,
                                                        const std::vector<NodeEntry>& out_grads)>;
// The output shapes of a call on inputs of these concrete shapes
// (OpDef::infer_empty_shape).
using EmptyShapeFn =
    std::function<std::vector<Shape>(const NodeAttrs&, const std::vector<Shape>& in)>;
using CountFn = std::function<int(const ParamValues&)>;
using NamesFn = std::function<std::vector<std::string>(const ParamValues&)>;
using InplaceFn = std::function<std::vector<std::pair<int, int>>(const ParamValues&)>;

struct OpDef {
  std::string name;
  std::vector<std::string> aliases;
  std::string doc;
  std::vector<ParamDecl> params;

  // Fixed arity; when the count fn is set it wins (e.g. from num_args).
  int num_inputs = 1;
  int num_outputs = 1;
  CountFn num_inputs_fn;
  CountFn num_outputs_fn;
  // Parameter holding the variadic input count (e.g. "num_args"), or empty.
  std::string key_var_num_args;

  // Input/output names; default "data"/"output" (indexed when several).
  NamesFn input_names;
  NamesFn output_names;

  InferShapeFn infer_shape;
  InferTypeFn infer_type;
  // The output shapes of an imperative call (Invoke) one of whose inputs
  // has a zero extent: an array with no elements, which only a run makes
  // (weft/shape.h), so here 0 is a real extent, not infer_shape's
  // "unknown". Throws Error(kShape) naming the op for inputs that do not
  // fit. Null: a pointwise op's outputs take the inputs' (equal) shape,
  // any other op refuses empty inputs. Invoke runs the kernel only when an
  // output has elements; it must then read no element of an empty input.
  EmptyShapeFn infer_empty_shape;
  // (input, output) pairs that may share memory.
  InplaceFn inplace;
  // Inputs the op writes to (e.g. optimizer state); empty for pure ops.
  std::function<std::vector<int>(const ParamValues&)> mutate_inputs;
  // Null when the op has no gradient (an error on a path that needs one).
  GradientFn gradient;
  // Ops that create values without inputs take their context from a "ctx" param.
  bool is_source = false;
  // Loss ops (SoftmaxOutput, MakeLoss, ...) compute their own gradient and
  // ignore the head gradient: autodiff needs no `_head_grad_<i>` for them.
  bool is_loss = false;
  // Ops that draw from the context's RandomState; the engine serialises
  // them on the state's variable, so results are reproducible.
  bool uses_rng = false;
  // Pointwise ops: one output of the inputs' shape whose element i depends
  // only on element i of each input, so the kernel may run on any
  // contiguous range of the elements (pass::FuseElemwiseChains runs chains
  // of them tile by tile in one _fused_elemwise).
  bool pointwise = false;
  // Subgraph operators (MXNet's _sg_mkldnn_conv, ...): a node computes its
  // nested graph (NodeAttrs::subgraphs), which pass::ExpandSubgraphs inlines
  // before a graph runs. Checks a loaded node's subgraphs against its
  // parameters, throwing Error naming what is wrong; null for ops that take
  // no subgraphs (a node of such an op with subgraphs is an error).
  std::function<void(const Node&)> check_subgraphs;
  // Nodes only autograd records (_CachedOp and its backward,
  // autograd::RecordFunction): never bound nor invoked, so no kernel and no
  // shape or type inference.
  bool tape_only = false;

  int NumInputs(const ParamValues& p) const {
    return num_inputs_fn ? num_inputs_fn(p) : num_inputs;
  }
  int NumOutputs(const ParamValues& p) const {
    return num_outputs_fn ? num_outputs_fn(p) : num_outputs;
  }
  std::vector<std::string> InputNames(const ParamValues& p) const;
  std::vector<std::string> OutputNames(const ParamValues& p) const;
  // OutputNames(p)[index] ("output<index>" past the list) without building
  // the default list, so naming every output of a node is linear.
  std::string OutputName(const ParamValues& p, uint32_t index) const;
};

// The gradient op of a function op autograd records as one node
// (_CachedOp -> _backward_CachedOp, MXNet's names): "_backward_" and the
// name without its leading underscore.
std::string FunctionBackwardOpName(const std::string& op_name);

class OpRegistry {
 public:
  OpRegistry();
  ~OpRegistry();
  OpRegistry(OpRegistry&&) noexcept;
  OpRegistry& operator=(OpRegistry&&) noexcept;
  // Adds `def` under its name and aliases; a duplicate name is a bug.
  // Only while the registry is being filled (not thread-safe).
  void Add(OpDef def);
  // Adds `def` while the registry is in use (an operator library,
  // weft_load_library): thread-safe against every other call. Throws
  // Error(kInvalidArgument) when a name is taken.
  void AddLoaded(OpDef def);
  // Canonical names of the operators AddLoaded added, sorted.
  std::vector<std::string> ListLoaded() const;
  // The op named `name` (or an alias), or null.
  const OpDef* Find(const std::string& name) const;
  // Like Find, but throws Error(kNotFound) naming `name`.
  const OpDef& Get(const std::string& name) const;
  // Canonical names, sorted.
  std::vector<std::string> ListNames() const;
  size_t size() const;

 private:
  struct Loaded;  // the AddLoaded operators behind their lock (op_registry.cc)
  std::vector<std::unique_ptr<OpDef>> ops_;
  std::map<std::string, const OpDef*> by_name_;
  std::unique_ptr<Loaded> loaded_;
};

// Per-call context handed to kernels.
struct RandomState;
struct OpContext {
  Context ctx;
  bool is_train = false;
  RandomState* rng = nullptr;  // set for ops that draw random numbers
  void* stream = nullptr;      // device stream (CUDA), null on CPU
  // A bound call's state, kept between its runs (the executor binds each
  // node's call once; one-off imperative calls get a fresh one): a kernel
  // may cache data derived from its inputs there, e.g. weights reordered
  // into a backend's layout. Runs of one call are ordered (they write the
  // same outputs), so no lock is needed. `input_versions[i]` is input i's
  // completed-write count (Engine::VarVersion) when the kernel runs: cached
  // data derived from an input is stale once its version differs.
  std::shared_ptr<void>* state = nullptr;
  const uint64_t* input_versions = nullptr;
};

using KernelFn =
    std::function<void(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out)>;

struct Kernel {
  std::string backend;  // "cpu", "blas", "cuda"
  int priority = 0;     // higher wins
  KernelFn fn;
  // Whether `fn` honours OpReq::kAdd itself (otherwise the caller adds).
  bool supports_add = false;
  // > 0: `fn` works fastest on channel-blocked data with this many channels
  // per block (weft/channel_block.h); pass::BlockConvLayouts reads it from
  // the _fused_Convolution kernel.
  int channel_block = 0;
  // The reduced-precision floats `fn` computes itself (kHalfBit,
  // kBFloat16Bit): a call reading or writing float16 or bfloat16 outside
  // this set computes in float32 between Casts (pass::RunInFloat32 in a
  // bound graph, Invoke for one call).
  uint32_t reduced_dtypes = 0;
  static constexpr uint32_t kHalfBit = 1, kBFloat16Bit = 2, kReducedFloats = 3;
  // Whether `fn` computes dtype `t` itself (every dtype but the reduced
  // floats it does not list; the kernel itself may still refuse a dtype).
  bool Computes(DType t) const {
    if (t == DType::kFloat16) return reduced_dtypes & kHalfBit;
    if (t == DType::kBFloat16) return reduced_dtypes & kBFloat16Bit;
    return true;
  }
};

// `k` marked as computing the reduced floats of `mask` (Kernel::reduced_dtypes).
inline Kernel WithReducedFloats(Kernel k, uint32_t mask = Kernel::kReducedFloats) {
  k.reduced_dtypes = mask;
  return k;
}

class KernelRegistry {
 public:
  KernelRegistry();
  ~KernelRegistry();
  KernelRegistry(KernelRegistry&&) noexcept;
  KernelRegistry& operator=(KernelRegistry&&) noexcept;
  // While the registry is being filled (not thread-safe).
  void Add(const std::string& op, DeviceType dev, Kernel k);
  // The only kernel of an operator added by OpRegistry::AddLoaded, while the
  // registry is in use: thread-safe; a second kernel for (op, dev) throws
  // Error(kInvalidArgument). Find and FindBackend see it.
  void AddLoaded(const std::string& op, DeviceType dev, Kernel k);
  // Highest-priority kernel for (op, dev), or null.
  const Kernel* Find(const std::string& op, DeviceType dev) const;
  // A specific backend's kernel, or null.
  const Kernel* FindBackend(const std::string& op, DeviceType dev,
                            const std::string& backend) const;
  // Backends registered for (op, dev), highest priority first.
  std::vector<std::string> Backends(const std::string& op, DeviceType dev) const;

 private:
  struct Loaded;  // the AddLoaded kernels behind their lock (op_registry.cc)
  std::map<std::pair<std::string, DeviceType>, std::vector<Kernel>> kernels_;
  std::unique_ptr<Loaded> loaded_;
};

// Fills `reg` with every operator (core/src/op/register_ops.cc). Kernels
// are registered by the kernels layer (kernels/register_kernels.h).
void RegisterAllOps(OpRegistry* reg);

}  // namespace weft

#endif  // WEFT_OP_H_
