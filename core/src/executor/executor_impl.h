// Executor internals shared by executor_plan.cc (compiling the plan),
// executor_init.cc (binding an executor's memory and calls to it),
// executor.cc (running it) and executor_bind.cc (the bind entry points).
// Not a public header.
#ifndef WEFT_CORE_SRC_EXECUTOR_EXECUTOR_IMPL_H_
#define WEFT_CORE_SRC_EXECUTOR_EXECUTOR_IMPL_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "executor/segment_graph.h"
#include "weft/executor.h"
#include "weft/executor_plan.h"
#include "weft/imperative.h"
#include "weft/mutex.h"
#include "weft/op.h"
#include "weft/pass.h"

namespace weft {

// "a, b, c": entry names for error messages (e.g. what inference left unknown).
std::string JoinNames(const std::vector<std::string>& names);

// A step of the plan: one op node to run, with its kernel and output
// requests (executors bind its kernel call to their own arrays).
struct PlanStep {
  uint32_t nid = 0;
  std::string name;                // "<op>:<node>", the engine operation's name
  const Kernel* kernel = nullptr;  // null for a copy between device types
  std::vector<OpReq> reqs;
  Context ctx;  // the node's device
};

struct ExecutorPlan::Impl {
  Symbol symbol;
  BindSignature sig;
  std::vector<std::string> arg_names, aux_names, out_names;
  Graph graph;  // forward outputs, then one gradient per differentiated argument
  std::unique_ptr<IndexedGraph> idx;
  uint32_t num_forward_nodes = 0;
  size_t n_out = 0;
  std::vector<Context> devices;             // per node of *idx
  std::vector<Context> device_list;         // every device used, the bind device first
  std::vector<std::string> fallback_nodes;  // pass::Placement::fallback_nodes
  std::vector<std::string> float32_nodes;   // pass::Float32Fallback::nodes
  pass::ShapeResult shapes;
  pass::TypeResult types;
  pass::MemoryPlan mem;
  std::vector<Shape> out_shapes;
  // The bound variables' node ids (per argument, per aux state); -1 when
  // the bound graph dropped the variable.
  std::vector<int64_t> arg_nid, aux_nid;
  std::vector<int64_t> head_grad_nid;  // per output: its _head_grad variable, or -1
  // Per entry: the argument whose gradient array it is written into
  // directly, or -1.
  std::vector<int64_t> direct_arg;
  // A gradient that cannot be written directly into its bound array: it
  // is copied (or added) after the backward steps.
  struct GradCopy {
    uint32_t entry = 0;
    size_t arg = 0;
  };
  std::vector<GradCopy> grad_copies;
  std::vector<PlanStep> forward_steps, backward_steps;
  bool has_grads = false;
  bool optimize = false;            // ExecutorOptions::optimize_inference resolved
  std::vector<std::string> passes;  // the inference passes that changed the graph
  std::vector<bool> constant;       // per node: a constant step (or a constant variable)
  std::vector<bool> versioned;      // per entry: a constant step's output (content counter)
  int bulk_max_nodes = 0;           // ExecutorOptions::bulk_max_nodes resolved
};

struct Executor::Impl {
  // Serialises the calls that push work or read the executor's run state
  // (Forward, Backward, Reshape): one executor used by two threads at once
  // runs their calls one after the other.
  mutable Mutex call_mu;
  // Consecutive steps pushed as one engine operation (bulk execution): it
  // reads what its steps read from outside it and writes what they write.
  struct Segment {
    std::vector<std::shared_ptr<const KernelCall>> calls;  // empty for a copy step
    int64_t copy_nid = -1;                                 // the copy step's node, or -1
    std::vector<VarHandle> reads, writes;
    std::string name;  // "<first step>..<last step>" (or the step's name)
    Context ctx;
    bool constant = false;  // constant steps, pushed first (hoisted)
    // Its recorded device work (WEFT_CUDA_GRAPHS), for a forward segment
    // that may be recorded (MayRecord); set once at Init.
    std::shared_ptr<SegmentGraph> graph;
  };
  // Whether `seg` may be recorded as a graph: a GPU segment of kernel calls,
  // not constant, none of whose ops draws random numbers or mutates inputs.
  static bool MayRecord(const Segment& seg);
  // `segs` shared and immutable from here on; with `graphs`, each one that
  // MayRecord gets its SegmentGraph.
  static std::vector<std::shared_ptr<const Segment>> Seal(std::vector<Segment> segs,
                                                          DeviceAPI* graphs);

  Runtime* rt = nullptr;
  std::shared_ptr<const ExecutorPlan> plan_ptr;
  const ExecutorPlan::Impl* plan = nullptr;  // *plan_ptr's data
  std::vector<NDArray> storage;              // one block per storage id
  std::vector<NDArray> entries;              // the array of every planned entry
  // Per entry of a constant step: its content version (CallVersions).
  std::vector<std::shared_ptr<std::atomic<uint64_t>>> content;
  // Per step of the plan: its kernel call bound to the entries (null for a copy).
  std::vector<std::shared_ptr<const KernelCall>> forward_calls, backward_calls;
  // Shared with the engine operations in flight, so freeing the executor
  // while they run is safe.
  std::vector<std::shared_ptr<const Segment>> forward_segments, backward_segments;
  std::vector<NDArray> grad_staging;  // per plan grad copy: its staging array, or none
  bool forward_done WEFT_GUARDED_BY(call_mu) = false;
  // Per argument index: the caller's buffer its kernels read instead of the
  // bound array (Executor::BorrowArgument).
  std::map<size_t, char*> borrowed WEFT_GUARDED_BY(call_mu);
  // Per argument index: whether its memory may be lent (LendableArguments).
  std::vector<bool> lendable;
  bool last_is_train WEFT_GUARDED_BY(call_mu) = false;
  // The monitor (executor_monitor.cc): its callback and one segment per step.
  Executor::MonitorCallback monitor WEFT_GUARDED_BY(call_mu);
  bool monitor_all WEFT_GUARDED_BY(call_mu) = false;
  std::vector<std::shared_ptr<const Segment>> monitor_forward, monitor_backward;

  // Pushes `steps` one per engine operation (`segs`), reporting the
  // monitored entries around each.
  void PushMonitored(const std::vector<PlanStep>& steps,
                     const std::vector<std::shared_ptr<const Segment>>& segs, bool is_train)
      WEFT_REQUIRES(call_mu);

  // Executor::Init's steps (executor_init.cc).
  void Allocate(const Executor& ex);
  std::vector<std::shared_ptr<const KernelCall>> BindCalls(
      const std::vector<PlanStep>& steps) const;
  // Per argument: whether a caller's buffer may stand in for its memory
  // (executor_borrow.cc): on the CPU, not an output's, gradient's or aux
  // state's memory, written by no kernel and read by no cross-device copy.
  std::vector<bool> LendableArguments(const Executor& ex) const;

  // Pushes `seg` to the engine as one operation running its steps in order
  // (a cross-device copy step goes to the engine's copy pools by itself);
  // returns before it runs.
  void Push(const std::shared_ptr<const Segment>& seg, bool is_train) const;

  // Groups `steps` (in push order; `calls` their bound calls) into segments
  // of at most `max_nodes` steps: a segment continues while the next step
  // is on the same device,
  // uses a variable the segment writes, depends on no other segment the
  // segment does not already wait for (so independent branches stay in
  // separate operations and can overlap, and a join node does not chain
  // them), and the segment has not produced an entry in `visible` (an array
  // the caller may read: it is finished as early as before). A copy between device types is a
  // segment of its own. max_nodes <= 1: one segment per step.
  // With `constant` (per node, ExecutorPlan::Impl::constant), the constant
  // steps (a BatchNorm fold, a weight's layout: each reads parameters only)
  // are pushed first, chained in segments of their own, unless a later
  // step writes what they read: each would otherwise start an operation of
  // its own and split the chain of the steps that read it (a folded
  // MobileNet-v2 was 104 engine operations per forward instead of 3).
  // With `graphs` (the GPU's DeviceAPI), every segment that MayRecord gets
  // a SegmentGraph.
  static std::vector<std::shared_ptr<const Segment>> BulkSegments(
      const std::vector<PlanStep>& steps,
      const std::vector<std::shared_ptr<const KernelCall>>& calls, const IndexedGraph& g,
      const std::vector<bool>& visible, int max_nodes, const std::vector<bool>* constant = nullptr,
      DeviceAPI* graphs = nullptr);
};

// The training graph of `symbol` for these gradient requests (one per
// argument): the forward graph when every request is null, else Gradient
// with MXNet's head gradients (`heads`, `head_is_var`). `xs` receives the
// differentiated arguments' indices.
Graph TrainingGraph(const OpRegistry& reg, const Graph& forward, const std::vector<GradReq>& reqs,
                    std::vector<size_t>* x_args, std::vector<NodeEntry>* heads,
                    std::vector<bool>* head_is_var);

// Whether `name` is one MXNet gives learned parameters (ends in _weight,
// _bias, _gamma, _beta, _parameters, _moving_mean or _moving_var).
bool IsParameterName(const std::string& name);

// ExecutorOptions::optimize_inference resolved: false when the option is
// off or WEFT_EXEC_OPTIMIZE is "0" (throws Error(kInvalidArgument) for a
// value other than 0 or 1).
bool ResolveOptimizeInference(bool option);
// Whether WEFT_CUDA_GRAPHS asks for recorded GPU segments (SegmentGraph):
// "1"; unset, empty or "0": no; another value is Error(kInvalidArgument).
bool ResolveCudaGraphs();

// The inference passes over `forward`, whose subgraph operators are inlined
// first (pass::ExpandSubgraphs), in order (SimplifyInference,
// FoldBatchNorm, FuseConvActivation, FuseDenseActivation, FuseElemwiseChains,
// Int8ChannelsLast, BlockConvLayouts;
// a pass whose new op has no kernel for `dev` is skipped, and so is one
// named in WEFT_EXEC_SKIP_PASSES, a comma-separated list); `applied`
// receives "<pass> (<n> nodes)" for each that changed the graph.
Graph OptimizeInference(const OpRegistry& reg, const KernelRegistry& kernels, DeviceType dev,
                        const Graph& forward, std::vector<std::string>* applied);

// Per node of `g`: whether it is constant. A variable is constant when it
// is an aux state (`is_aux`) or a parameter: an argument named as MXNet
// names parameters (ending in _weight, _bias, _gamma, _beta, _parameters,
// _moving_mean or _moving_var), or one no op reads at a data-like input
// (named data*, arg*, lhs, rhs or label) whose own name does not end in
// "data" or "label" (MXNet's convention for data inputs). Constness only
// decides which steps keep their outputs and skip reruns while their
// inputs' versions are unchanged, so a misjudged name costs memory, not
// correctness.
// An op node is constant when it has inputs, all constant, and neither
// draws random numbers nor mutates an input.
std::vector<bool> ConstantNodes(const IndexedGraph& g, const std::vector<bool>& is_aux);
// The op-node part of ConstantNodes: `constant` gives each variable's
// constness (op nodes' values are ignored); an op node becomes constant as
// described above.
std::vector<bool> PropagateConstants(const IndexedGraph& g, std::vector<bool> constant);

// ExecutorOptions::bulk_max_nodes resolved: a negative value takes
// WEFT_EXEC_BULK_MAX_NODES from the environment (0 or 1: no bulking), else
// kDefaultBulkMaxNodes. Throws Error(kInvalidArgument) for a malformed value.
int ResolveBulkMaxNodes(int option);

// PlaceDevice over `train` (built from `forward` by TrainingGraph):
// default device `ctx`, `fixed` variables (argument arrays), and every head
// gradient variable fixed on its forward output's device.
// With `kernels`, nodes without a kernel on their device fall back to
// cpu(0) (pass::PlaceDeviceOptions::has_kernel).
pass::Placement PlaceTrainingGraph(const OpRegistry& reg, const Graph& forward, const Graph& train,
                                   const std::vector<NodeEntry>& heads, Context ctx,
                                   const std::map<std::string, Context>& group2ctx,
                                   const std::map<std::string, Context>& fixed,
                                   const KernelRegistry* kernels = nullptr);

// Whether some op node of `g` has no kernel on `ctx` but one on cpu(0).
bool NeedsFallback(const KernelRegistry& kernels, const Graph& g, Context ctx);

}  // namespace weft

#endif  // WEFT_CORE_SRC_EXECUTOR_EXECUTOR_IMPL_H_
