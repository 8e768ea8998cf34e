// Executor: a symbol bound to arrays, run forward and backward.
//
// Binding builds the training graph (forward outputs, then the gradients of
// every argument whose request is not null, by pass::Gradient), infers
// shapes and dtypes from the bound arrays, plans memory (pass::PlanMemory)
// and allocates the planned blocks once. Forward runs the forward nodes,
// Backward the gradient nodes; gradients are written (or added) into the
// bound gradient arrays, directly by the node that computes them when that
// is safe. The executor holds shared references to every bound array.
// Everything decided before allocation (graph, shapes, memory plan, steps)
// is an ExecutorPlan (executor_plan.h) that executors of one signature
// share; Bind(symbol, ...) compiles one, Bind(plan, ...) reuses it.
//
// Asynchrony: Forward and Backward push dependency-engine operations and
// return before the nodes run. Each node's kernel call (imperative.h
// KernelCall; reads: its input arrays, writes: its outputs and mutated
// inputs such as BatchNorm's moving statistics) is bound once at bind;
// consecutive dependent nodes are pushed as one operation (bulk execution,
// ExecutorOptions::bulk_max_nodes), ending where an output or gradient
// the caller reads is produced. Entries sharing a planned block share its
// engine variable, so memory reuse is ordered; independent branches run in
// parallel on the threaded engine (give ExecutorOptions::num_groups >= 2
// so that the plan does not reuse one branch's blocks in another, which
// orders them). Read results with WaitToRead / CopyToHost on outputs() or
// the gradient arrays; a kernel failure surfaces there, naming the node as
// "<op>:<node name>". Argument errors (bad head gradients, Backward before
// Forward) are still thrown by the call itself. Arrays the caller changes
// through NDArray operations before a Forward are ordered by the engine.
//
// Devices: by default everything runs on the bind context. With
// ExecutorOptions::group2ctx the training graph is placed by
// pass::PlaceDevice (nodes grouped by their ctx_group attribute) and
// rewritten with _CrossDeviceCopy nodes; each node then runs on its device
// (cpu(1), cpu(2), ... have engine workers of their own, engine.h) and
// reads planned memory on that device; graph() and node_devices() show it.
//
// Inference optimisation (ExecutorOptions::optimize_inference, on by
// default): when no gradient is requested (every grad_req null) and no
// device groups are given, bind rewrites the graph for inference with
// pass::SimplifyInference, pass::FoldBatchNorm and the fusions (pass::FuseConvActivation, ...:
// pass.h; a pass whose new op has no kernel on the bind device is skipped;
// DebugString lists the passes that changed the graph). Such an executor computes what the
// symbol computes with is_train=false; Forward(true) on it throws
// Error(kInvalidArgument) (bind with optimize_inference=false for a
// training-mode forward). It also has constant steps: op nodes whose inputs
// are all constant: aux states and parameters (arguments that no op reads
// at a data-like input, named data*, arg*, lhs, rhs or label, and whose
// names do not end in "data" or "label"); ops drawing random numbers or
// mutating inputs are never constant. E.g. the _bn_fold nodes computing
// folded weights from the bound weights and statistics. Their
// outputs get blocks of their own in the memory plan (never reused), and
// each constant step skips its kernel when every input's version
// (OpContext::input_versions: a variable's engine version, or the content
// version of another constant step's output) and is_train equal those of
// its last run. So folded weights are computed by the first Forward only,
// and again after the caller writes a weight or statistic (any NDArray
// write to a bound array bumps its version); their readers (the oneDNN
// convolution's cached weight layout) see them change only then.
//
// Thread-safety: distinct executors may be created, reshaped, run and freed
// concurrently from different threads, also when they share bound arrays
// (weights) that they only read. One executor used by two threads at once
// is safe and serialised: Forward and Backward take the executor's lock, so
// each call pushes all its nodes before the other call pushes any; the
// results are those of the calls in the order they took the lock (the
// outputs hold the last one's; reading them while the other thread pushes
// again sees whichever the engine ordered first). Reshape, the accessors
// and DebugString read state fixed at bind and need no lock. Freeing an
// executor while another thread calls it is undefined. The arrays it
// exposes follow NDArray's rules.
#ifndef WEFT_EXECUTOR_H_
#define WEFT_EXECUTOR_H_

#include <map>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weft/graph.h"
#include "weft/ndarray.h"
#include "weft/pass.h"
#include "weft/symbol.h"

namespace weft {

class Runtime;
class ExecutorPlan;  // executor_plan.h

// How a gradient array is written (MXNet's grad_req).
enum class GradReq : int { kNull = 0, kWrite = 1, kAdd = 3 };
// "null", "write", "add" ("inplace" is taken as "write"); throws
// Error(kInvalidArgument) listing the valid names.
GradReq ParseGradReq(const std::string& text);
const char* GradReqName(GradReq req);

struct ExecutorOptions {
  int match_range = 16;  // see pass::MemoryPlanOptions (0 = search)
  int num_groups = 1;    // colouring groups of the memory plan
  // Bulk execution: Forward/Backward push runs of consecutive dependent
  // nodes on one device as one engine operation of at most this many nodes
  // (a serial chain then costs one engine hand-off, not one per node).
  // 0 or 1: one operation per node; negative: WEFT_EXEC_BULK_MAX_NODES from
  // the environment, else 64.
  int bulk_max_nodes = -1;
  // Device groups (a node's "__ctx_group__" / "ctx_group" attribute) ->
  // device. Empty: everything runs on the bind context and the graph is not
  // rewritten. Otherwise the training graph goes through pass::PlaceDevice
  // (default device: the bind context; Bind's argument arrays fix their
  // variables' devices; head gradients sit on their output's device):
  // every node runs on its device, planned blocks live on the device of the
  // entries using them (never shared across devices) and _CrossDeviceCopy
  // nodes copy between devices.
  std::map<std::string, Context> group2ctx;
  // Inference passes and constant steps (see above) when the executor has
  // no gradients and no group2ctx. WEFT_EXEC_OPTIMIZE=0 in the environment
  // turns them off too (for comparisons); WEFT_EXEC_SKIP_PASSES=A,B skips
  // the passes named (e.g. BlockConvLayouts,FuseElemwiseChains).
  bool optimize_inference = true;
  // CPU fallback: a node whose op has no kernel on its device (a shape op
  // on gpu(0), say) runs on cpu(0), with _CrossDeviceCopy nodes at its edges
  // (pass::PlaceDeviceOptions::has_kernel); fallback() names those nodes.
  // False: such a node fails the bind naming the node, the op and the device.
  bool allow_fallback = true;
};

// Where a bound graph runs when it spans devices (ExecutorOptions:
// group2ctx, allow_fallback).
struct ExecutorPlacement {
  std::vector<std::string> fallback_nodes;  // moved to cpu(0) for want of a kernel
  // Nodes computing in float32 between Casts for want of a float16/bfloat16
  // kernel (pass::RunInFloat32), in graph order.
  std::vector<std::string> float32_nodes;
  size_t num_copies = 0;          // _CrossDeviceCopy nodes in the graph
  size_t forward_copy_bytes = 0;  // bytes those copies move per forward
};

// Gradient requests for SimpleBind: one value for every argument (then
// arguments whose names end in "data" or "label" get null, as MXNet's
// Module does), one per argument in ListArguments order, or by name
// (missing names get null).
struct GradReqSpec {
  GradReq all = GradReq::kWrite;
  std::vector<GradReq> per_argument;
  std::map<std::string, GradReq> by_name;
  static GradReqSpec All(GradReq r) {
    GradReqSpec s;
    s.all = r;
    return s;
  }
};

// The memory plan's figures (MemoryPlan of the bound graph).
struct ExecutorMemory {
  size_t naive_bytes = 0;    // one buffer per op output
  size_t planned_bytes = 0;  // the planned blocks
  size_t num_storage = 0;
  size_t num_inplace = 0;
  size_t num_reused = 0;
  int match_range = 0;
};

class Executor {
 public:
  // Binds arrays in ListArguments / ListAuxiliaryStates order. `arg_grads`
  // and `grad_reqs` are empty (no gradients), or one per argument (a none
  // gradient array requires kNull); `grad_reqs` may also hold one value for
  // all. Throws Error naming the argument for a missing or mis-shaped array.
  // Without group2ctx every array must be on `ctx`; with it, arguments may
  // be anywhere (they fix their variables' devices), and a gradient array
  // on another device than its argument, or an aux array on another device
  // than its placed variable, throws Error(kDevice) naming it and both
  // devices. An unavailable device (gpu(i) without one) throws kDevice.
  // `rt` (not null) gives the operators' kernels, the device hooks and the
  // pools of the executor's memory; it must outlive the executor.
  static std::unique_ptr<Executor> Bind(Runtime* rt, const Symbol& symbol, Context ctx,
                                        std::vector<NDArray> args, std::vector<NDArray> arg_grads,
                                        std::vector<GradReq> grad_reqs,
                                        std::vector<NDArray> aux_states,
                                        const ExecutorOptions& options = {});
  // Binds arrays to a compiled plan (executor_plan.h): every array must
  // have the shape, dtype and device of the plan's signature, and a
  // gradient array is given exactly for the arguments whose request is not
  // null (throws Error naming the first that differs). Allocates the
  // executor's own planned blocks; compiles nothing.
  static std::unique_ptr<Executor> Bind(Runtime* rt, std::shared_ptr<const ExecutorPlan> plan,
                                        std::vector<NDArray> args, std::vector<NDArray> arg_grads,
                                        std::vector<NDArray> aux_states);
  // Bind with arrays by name; every argument and aux state must be given.
  static std::unique_ptr<Executor> BindByName(Runtime* rt, const Symbol& symbol, Context ctx,
                                              const std::map<std::string, NDArray>& args,
                                              const std::map<std::string, NDArray>& arg_grads,
                                              const std::map<std::string, GradReq>& grad_reqs,
                                              const std::map<std::string, NDArray>& aux_states,
                                              const ExecutorOptions& options = {});
  // Infers every shape/dtype from the given ones (dtypes default to
  // float32) and allocates arguments, gradients and aux states (zeroed) from
  // `rt`, on their placed devices when options.group2ctx is given.
  static std::unique_ptr<Executor> SimpleBind(Runtime* rt, const Symbol& symbol, Context ctx,
                                              const pass::ShapeMap& shapes,
                                              const pass::DTypeMap& dtypes = {},
                                              const GradReqSpec& grad_req = {},
                                              const ExecutorOptions& options = {});
  ~Executor();

  // Pushes the forward nodes to the engine and returns; is_train selects
  // training behaviour (BatchNorm batch statistics and moving-average
  // updates, Dropout masks). Throws Error(kInvalidArgument) for is_train on
  // an executor whose graph the inference passes changed.
  void Forward(bool is_train);
  // Serving without an input copy (the predictor): the kernels read
  // argument `index` from `data` (the argument's shape and dtype, on the
  // CPU) instead of its bound array, until it is called again; null gives
  // them the array back. The caller keeps `data` valid and unchanged until
  // every forward reading it has finished (the array's WaitToWrite), and
  // calls this only while no forward is in flight. Returns false, changing
  // nothing, when the argument cannot be lent: not on the CPU, a gradient
  // or an output is that memory, a kernel writes into it, or a step copies
  // it to another device.
  bool BorrowArgument(size_t index, const void* data);
  // Pushes the gradient nodes after a Forward. `head_grads` holds one array
  // per output, or may be empty when every output is a loss op (their head
  // gradients are implicit). Throws Error(kInvalidArgument) when the
  // executor has no gradients or Forward has not run, Error(kShape) for a
  // mis-shaped head gradient; the head gradients are copied by the engine.
  void Backward(const std::vector<NDArray>& head_grads = {});

  // A monitor (MXNet's MXExecutorSetMonitorCallbackEX): while set, Forward
  // and Backward push one engine operation per node and, on the calling
  // thread, call `callback` right after pushing a node with each output's
  // name (as GetInternals names it, e.g. "fc1_output") and a copy of its
  // value taken by the engine before anything overwrites it (reading the
  // array waits for it); with `monitor_all`, also each input before the
  // node. An executor the inference passes optimised reports the nodes it
  // runs (fused ones under their new names). The callback must not call
  // into this executor. An empty callback removes the monitor.
  using MonitorCallback = std::function<void(const std::string& name, const NDArray& value)>;
  void SetMonitorCallback(MonitorCallback callback, bool monitor_all = false);

  // A new executor for new input shapes that shares this one's arrays:
  // arguments whose shape is unchanged are shared; changed ones (named in
  // `shapes`, or any with partial_shaping) become views of the old memory
  // when they fit, or new arrays when allow_up_sizing (else Error(kShape)).
  std::unique_ptr<Executor> Reshape(const pass::ShapeMap& shapes, bool partial_shaping = false,
                                    bool allow_up_sizing = false) const;

  const std::vector<NDArray>& outputs() const { return outputs_; }
  const std::vector<NDArray>& arg_arrays() const { return args_; }
  // One per argument; none where the request is null.
  const std::vector<NDArray>& grad_arrays() const { return grads_; }
  const std::vector<NDArray>& aux_arrays() const { return aux_; }
  const std::vector<GradReq>& grad_reqs() const { return reqs_; }
  const std::vector<std::string>& arg_names() const { return arg_names_; }
  const std::vector<std::string>& aux_names() const { return aux_names_; }
  const std::vector<std::string>& output_names() const { return out_names_; }
  const Symbol& symbol() const { return symbol_; }
  Context ctx() const { return ctx_; }
  ExecutorMemory memory() const;
  ExecutorPlacement placement() const;
  // The bound graph (forward outputs, then one gradient per differentiated
  // argument), after placement, and the device of each of its nodes
  // (IndexedGraph(graph()) order).
  const Graph& graph() const;
  const std::vector<Context>& node_devices() const;
  // Nodes in execution order with their storage (and devices when there
  // are several; "(constant)" marks constant steps), the inference passes
  // that changed the graph, and the memory figures.
  std::string DebugString() const;
  // Forward engine operations that may be recorded as device graphs
  // (WEFT_CUDA_GRAPHS=1 on a GPU: inference-mode runs replay one recording
  // per operation), and how many are recorded now. Call with no run in
  // flight (after WaitForAll).
  size_t RecordableSegments() const;
  size_t RecordedSegments() const;
  // The compiled plan this executor is bound to (shared with every
  // executor bound to it).
  const std::shared_ptr<const ExecutorPlan>& plan() const;

 private:
  struct Impl;
  Executor();
  // Allocates the plan's blocks and binds its steps once the bound arrays
  // are set (executor_init.cc).
  void Init(Runtime* rt, std::shared_ptr<const ExecutorPlan> plan);
  std::unique_ptr<Impl> impl_;
  Symbol symbol_;
  Context ctx_;
  std::vector<std::string> arg_names_, aux_names_, out_names_;
  std::vector<NDArray> args_, grads_, aux_, outputs_;
  std::vector<GradReq> reqs_;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_H_
