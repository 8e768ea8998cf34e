// Passes: typed functions over an IndexedGraph. No pass runs by name.
//
// Each pass reads an IndexedGraph (graph.h) and returns a result struct of
// dense vectors indexed by entry id. Passes are pure: they never edit the
// graph, hold no state, and may run concurrently on the same graph.
//
// Pipeline (namespace weft::pass), as the executor runs it:
//   Graph full = pass::Gradient(reg, forward, {xs, head_grads});  // training
//   IndexedGraph g(full);
//   pass::ShapeResult s = pass::InferShape(g, {{"data", Shape{32, 784}}});
//   pass::TypeResult t = pass::InferType(g, {{"data", DType::kFloat32}});
//   pass::MemoryPlan m = pass::PlanMemory(g, s, t, {});
// With device groups, pass::PlaceDevice(reg, full, {...}) rewrites `full`
// first (cross-device copies) and the other passes index its result.
#ifndef WEFT_PASS_H_
#define WEFT_PASS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "weft/device.h"
#include "weft/dtype.h"
#include "weft/graph.h"
#include "weft/op.h"
#include "weft/shape.h"

namespace weft {
namespace pass {

using ShapeMap = std::map<std::string, Shape>;
using DTypeMap = std::map<std::string, DType>;

// Result of shape inference. `shapes` holds every entry (unknown rank or 0
// extents where inference could not tell); `unknown` lists the entries that
// are not fully known, ascending, with their names (IndexedGraph::
// entry_name) in `unknown_names`. The arg/aux/out vectors repeat the shapes
// of g.argument_nodes(), g.aux_nodes() and g.outputs() in that order.
struct ShapeResult {
  std::vector<Shape> shapes;
  std::vector<uint32_t> unknown;
  std::vector<std::string> unknown_names;
  std::vector<Shape> arg_shapes, aux_shapes, out_shapes;
  bool complete() const { return unknown.empty(); }
};

struct TypeResult {
  std::vector<DType> dtypes;  // DType::kUnknown (-1) where not inferred
  std::vector<uint32_t> unknown;
  std::vector<std::string> unknown_names;
  std::vector<DType> arg_types, aux_types, out_types;
  bool complete() const { return unknown.empty(); }
};

// Infers every entry's shape. `inputs` gives shapes of variables by name
// (all variables with that name); a variable's __shape__ hint is used when
// it is not given. 0 extents and unknown rank mean "unknown". Alternates
// forward (topological) and backward (reverse) sweeps over the ops'
// infer_shape functions until a sweep fills nothing more (the number of
// unknown dims stops decreasing). Never fails for missing information:
// check complete(). Throws Error(kInvalidArgument) for a name that is no
// variable of `g` (listing the variables) or a malformed __shape__ hint, and
// Error(kShape) for a conflict, naming the node, its op, the input and both
// the provided and the inferred shapes.
ShapeResult InferShape(const IndexedGraph& g, const ShapeMap& inputs = {});

// Same structure for element types; hints come from __dtype__ (a dtype name
// or MXNet code). Conflicts throw Error(kDType) naming node, op, input and
// both dtypes.
TypeResult InferType(const IndexedGraph& g, const DTypeMap& inputs = {});

// ------------------------------------------------------------ autodiff

struct GradientSpec {
  // Entries to differentiate with respect to (variables of the graph).
  std::vector<NodeEntry> xs;
  // One gradient entry per forward output (see HeadGradients).
  std::vector<NodeEntry> head_grads;
  // Up to this many gradients flowing into one entry are summed by one
  // ElementWiseSum node; more are summed by a chain of elemwise_add nodes.
  size_t sum_cap = 8;
};

// Symbolic reverse-mode differentiation (the seed's Gradient pass). Walks
// the forward graph in reverse topological order from the head gradients,
// sums the gradients flowing into each entry, and calls each op's
// OpDef::gradient; outputs without a gradient get zeros_like. Only nodes
// that depend on some x are differentiated. Returns a new graph whose
// outputs are the forward outputs followed by one gradient per x (zeros_like
// when no path joins x to the outputs); the forward nodes are shared, not
// copied. Every node the pass creates records the forward node it
// differentiates as control_deps[0] (MXNet's backward-node convention): the
// nodes OpDef::gradient returns for node F and the sums/zeros of F's output
// gradients get {F}; the sum or zeros_like giving x's gradient gets {x}. A
// gradient function may set control deps itself (they are kept); forward
// nodes are never edited. PlaceDevice places such a node with its forward
// node. Throws Error(kNotImplemented) naming the op and node when an op
// on a path that needs a gradient has none, and Error(kInvalidArgument) for
// an x not in the graph or a head_grads count that differs from the outputs.
Graph Gradient(const OpRegistry& reg, const Graph& forward, const GradientSpec& spec);

// MXNet's head gradients: for an output produced by a loss op (OpDef::
// is_loss) a ones_like node (the op ignores it), otherwise a new variable
// named "_head_grad_<i>". `*is_variable` (optional) tells which is which.
std::vector<NodeEntry> HeadGradients(const OpRegistry& reg, const Graph& forward,
                                     std::vector<bool>* is_variable = nullptr);

// ------------------------------------------------------- memory planning

struct MemoryPlanOptions {
  // Reuse a free block whose size is within [size / match_range, size *
  // match_range]; 1 reuses only equal sizes. 0 tries 1, 2, 4, 8 and 16 and
  // keeps the smallest plan.
  int match_range = 16;
  // Nodes are coloured into this many groups (the longest paths first);
  // storage is reused only within a group, so that groups may run
  // concurrently. 1 = no colouring.
  int num_groups = 1;
  // Per entry (may be empty): true when the caller supplies the memory (a
  // bound gradient array). Variables are always external.
  std::vector<bool> external;
  // Nodes [0, plan_nodes) are planned; 0 = all. Entries of later nodes are
  // not allocated (e.g. plan only the forward part of a training graph).
  uint32_t plan_nodes = 0;
  // Per node (may be empty = all 0): a dense device index (>= 0). A node's
  // outputs are planned on its device; a block is never shared (reused or
  // taken in place) across devices.
  std::vector<int> node_device;
  // Per entry (may be empty): a block of its own, never reused by a later
  // entry nor taken in place by a reader (the executor's constant steps,
  // whose outputs must survive between runs).
  std::vector<bool> dedicated;
};

struct MemoryPlan {
  static constexpr int kExternal = -1;  // lives in a caller-supplied array
  static constexpr int kNone = -2;      // not planned (node beyond plan_nodes)
  // Per entry: the storage id (>= 0), kExternal or kNone.
  std::vector<int> storage_id;
  // Per entry: for kExternal entries the entry whose caller-supplied array
  // holds the value (itself for variables; lhs for assign outputs and for
  // an rhs computed directly into lhs).
  std::vector<uint32_t> alias;
  // Per entry: shares its input's storage (the op's in-place option).
  std::vector<bool> inplace;
  // Per entry: an op output nobody reads (its request is null).
  std::vector<bool> unread;
  // Per node: an assign whose rhs was computed into lhs (nothing to run).
  std::vector<bool> noop;
  // Per node: its colour group.
  std::vector<int> group;
  // Bytes of each storage id.
  std::vector<size_t> storage_bytes;
  // The device index (MemoryPlanOptions::node_device) of each storage id.
  std::vector<int> storage_device;
  int match_range = 16;      // the range used (the best one when searched)
  size_t naive_bytes = 0;    // one buffer per planned op output
  size_t planned_bytes = 0;  // sum of storage_bytes
  size_t num_inplace = 0;    // outputs sharing their input's storage
  size_t num_reused = 0;     // outputs served from the free list
};

// The seed's PlanMemory: reference counts per entry (readers, +1 for graph
// outputs), in-place sharing when the op allows it and this node is the
// input's last reader (same bytes and dtype), size-matched reuse from a free
// list, release at refcount zero, and the assign cases. Throws
// Error(kShape)/(kDType) naming the entry when a planned entry's shape or
// dtype is unknown.
MemoryPlan PlanMemory(const IndexedGraph& g, const ShapeResult& shapes, const TypeResult& types,
                      const MemoryPlanOptions& options = {});

// ------------------------------------------------------- device placement

struct PlaceDeviceOptions {
  // Device of every node nothing else places.
  Context default_ctx;
  // Group name -> device. A node's group is its "__ctx_group__" attribute
  // (what AttrScope({{"ctx_group", g}}) stores) or, failing that, "ctx_group".
  std::map<std::string, Context> group2ctx;
  // Variables whose arrays are already bound: name -> device. Wins over the
  // variable's group.
  std::map<std::string, Context> fixed;
  // Fallback (the executor's CPU fallback): when set, an op node whose op
  // has no kernel on the device the rules below give it, but has one on
  // `fallback_ctx`, runs on `fallback_ctx` instead, with copies at its edges
  // like any other device change; its neighbours keep the devices the rules
  // gave them.
  std::function<bool(const OpDef& op, const Context& ctx)> has_kernel;
  Context fallback_ctx = Context::CPU(0);
};

// A node's device group: its "__ctx_group__" attribute, else "ctx_group";
// null when it has none.
const std::string* DeviceGroupOf(const Node& node);

struct Placement {
  // The rewritten graph; the input graph itself when one device suffices.
  Graph graph;
  // Per node of IndexedGraph(graph): its device.
  std::vector<Context> devices;
  // The number of _CrossDeviceCopy nodes inserted.
  size_t num_copies = 0;
  // Names of the nodes moved to fallback_ctx, in graph order.
  std::vector<std::string> fallback_nodes;
};

// The seed's PlaceDevice. Devices: fixed variables, then grouped nodes; a
// forward sweep gives a node without one its forward node's device when it
// is a backward node (control_deps[0], see Gradient), else its first placed
// input's; a reverse sweep gives unplaced inputs (not backward nodes) their
// consumer's device; a last forward sweep applies the first rule again with
// what is placed by then and puts the rest (a node with no placed neighbour)
// on default_ctx. Existing _CrossDeviceCopy nodes are boundaries: never
// placed from their input nor passing their device to it.
// Then every edge between devices gets a _CrossDeviceCopy node on the
// consumer's device, one per (source entry, device), shared by all consumers
// there and named "<source node>_<output index>_copy" (as MXNet; a source
// copied to two devices gives two copies of one name). The rewrite is
// persistent: a node is rebuilt only when an input or control dep changed,
// the others and the input graph are shared untouched. The intended order is
// Gradient, then PlaceDevice. Throws Error(kDevice) for a group missing from
// group2ctx (naming the node and the group) and for an op that mutates an
// input placed on another device (naming the node, the input and both
// devices); Error(kInvalidArgument) for a fixed name that is no variable.
// With has_kernel set, fallback (see PlaceDeviceOptions) is applied last,
// before the copies are inserted.
Placement PlaceDevice(const OpRegistry& reg, const Graph& graph, const PlaceDeviceOptions& options);

// PlaceDevice over a training graph `train` that Gradient built from
// `forward` with the head gradients `heads` (HeadGradients): every head
// gradient variable `train` uses and `options.fixed` does not name is fixed
// on the device of its forward output, where an executor allocates it (and
// Backward copies the caller's head gradient). Fixed names that are not
// variables of `forward` are ignored when placing the forward graph.
Placement PlaceTrainingGraph(const OpRegistry& reg, const Graph& forward, const Graph& train,
                             const std::vector<NodeEntry>& heads, PlaceDeviceOptions options);

// ------------------------------------------------------ inference passes
//
// Rewrites of a forward graph for inference only (the seed's GraphCompile
// optimisations; the executor runs them at bind when no gradient is
// requested, see ExecutorOptions::optimize_inference). Like PlaceDevice
// they are persistent: nodes are rebuilt only when an input changed, and
// variables are never replaced, so arrays bound to the original graph's
// variables bind to the result. The result computes what the input graph
// computes in inference mode (is_train = false); in training mode it may
// not.

struct RewriteResult {
  Graph graph;         // the input graph itself when nothing changed
  size_t changes = 0;  // nodes removed, folded or fused
};

// Inlines every subgraph operator's node (OpDef::check_subgraphs, e.g.
// MXNet's _sg_mkldnn_conv) as copies of its nested graph's op nodes, the
// nested graph's variables (IndexedGraph order) replaced by the node's inputs
// in order, nested subgraphs inlined too; the graph's variables are kept.
// The executor runs it before anything else, so the inference passes fuse
// the inlined Convolution/BatchNorm/relu again. Throws Error(kInvalidArgument)
// for a node whose subgraph does not fit its inputs or outputs, or whose op
// takes no subgraphs.
RewriteResult ExpandSubgraphs(const OpRegistry& reg, const Graph& graph);

// Removes what inference does not need: Dropout in mode "training" (whose
// mask nobody reads) and the identity-like ops identity/_copy and BlockGrad/
// stop_gradient; their readers read the input instead. A node whose output
// is a graph output is kept (the output stays an array of its own). Flatten
// and Reshape are left alone: PlanMemory already lets them take their input's
// block in place when they are its last reader, and their kernel skips the
// copy then, so they are views already. A softmax or log_softmax reading a
// _div_scalar / _mul_scalar by a positive finite scalar c that nothing else
// reads (attention's scores / sqrt(d)) reads its input instead, with its
// temperature multiplied by c (divided, for the product).
RewriteResult SimplifyInference(const OpRegistry& reg, const Graph& graph);

// Folds BatchNorm (output_mean_var false, moving statistics are variables)
// into the Convolution (NCHW, BatchNorm axis 1) or FullyConnected (flatten,
// axis 1) producing its data when BatchNorm is that output's only reader
// (and it is no graph output): the layer gets weight' and bias' computed by a
// `_bn_fold` node from the weight, the bias (if any), gamma, beta and the
// moving statistics: s = gamma / sqrt(moving_var + eps) (gamma = 1 with
// fix_gamma), weight' = weight * s per output channel, bias' = (bias or 0 -
// moving_mean) * s + beta. The fold reads the bound arrays, so new weights
// or statistics are picked up by the next run.
RewriteResult FoldBatchNorm(const OpRegistry& reg, const Graph& graph);

// Fuses a Convolution with what follows it into one `_fused_Convolution`
// (the Convolution's parameters plus act_type "", "relu" or "clip" with
// a_min / a_max, and with_sum; inputs data, weight, [bias], [sum]):
// out = act(conv + sum). Patterns, each intermediate output read only by the
// next node and no graph output: Convolution -> act (Activation
// act_type=relu, relu, or clip: MobileNet's ReLU6), Convolution ->
// elemwise_add (either side; the other operand becomes `sum`), and
// Convolution -> elemwise_add -> act.
RewriteResult FuseConvActivation(const OpRegistry& reg, const Graph& graph);

// Fuses a FullyConnected with the activation after it into one
// `_fused_FullyConnected` (FullyConnected's parameters plus act_type "relu"
// or "gelu"): Activation act_type=relu or relu, and LeakyReLU act_type=gelu
// (the erf form), when the FullyConnected's output is read by the activation
// alone and is no graph output.
RewriteResult FuseDenseActivation(const OpRegistry& reg, const Graph& graph);

// Keeps the data between 2-D convolutions in a channel-blocked layout
// (weft/channel_block.h) with `block` channels per block, so that a chain of
// oneDNN convolutions and poolings pays no layout reorders between its
// members. A Convolution or _fused_Convolution writes blocked data
// (out_block) when every reader of its output may read it blocked (a
// convolution's data or sum, a pooling's data) and the output is no graph
// output (a filter count that is no multiple of `block` pads the last
// block; readers get data_channels), unless its filter count, or its data's
// channel count, fills less than 3/4 of the blocks it takes (20 of 32:
// oneDNN's plain-layout kernel is faster than the padded blocks); a Pooling does
// the same when its own data is blocked (it becomes a _blocked_Pooling,
// which also reads blocked data into a plain output). A convolution
// reading blocked data gets data_block (a plain Convolution becomes an
// unactivated _fused_Convolution). The sum of a convolution writing
// blocked data is blocked too: where no blocked node writes it, a
// `_layout_block` node converts it once for every convolution reading it.
// Graph outputs and every other reader see plain data. Run after
// FuseConvActivation.
RewriteResult BlockConvLayouts(const OpRegistry& reg, const Graph& graph, int block);

// int8 activations passed from one quantized _sg_mkldnn_conv only to others
// (their data or residual input) stored channels-last (NHWC bytes under the
// logical NCHW shape), as oneDNN's VNNI convolutions read and write them:
// hidden attributes __out_layout__ / __data_layout__ / __sum_layout__ =
// "nhwc" on those nodes, which the int8 convolution kernels honour. With
// `pooling`, 2-D _contrib_quantized_pooling nodes take part like the
// convolutions (their data in, their output out), for a backend whose
// pooling reads NHWC (oneDNN's int8 pooling). `changes` counts the nodes
// marked.
RewriteResult Int8ChannelsLast(const OpRegistry& reg, const Graph& graph, bool pooling = false);

// Runs in float32 every op node whose kernel on `dev` does not compute a
// float16/bfloat16 dtype the node reads or writes (Kernel::Computes; a
// node of an op without a kernel on `dev` is left to placement): each such
// input is Cast to float32 before it, each output it wrote in a reduced
// float is Cast back after it, and a `dtype` parameter naming a reduced
// float (a source op's) becomes float32. The computing node is renamed
// `<name>_fp32` and the Cast of its first output takes its name. Entry
// dtypes come from InferType with `types`; a graph that reads and makes no
// reduced float is returned as it is, without inference. `nodes` names the
// nodes moved to float32 (original names, graph order). Throws Error(kDType)
// for a node that updates a reduced-float input in place (BatchNorm's
// moving statistics): such inputs must stay float32.
struct Float32Fallback {
  Graph graph;
  std::vector<std::string> nodes;
};
Float32Fallback RunInFloat32(const OpRegistry& reg, const KernelRegistry& kernels, DeviceType dev,
                             const Graph& graph, const DTypeMap& types);

// Replaces each chain of pointwise ops (OpDef::pointwise: unary math, the
// scalar and same-shape binary ops, comparisons, Activation), where every
// intermediate output is read only by the next op and is no graph output,
// by one `_fused_elemwise` node (weft/fused_elemwise.h) that runs the chain
// over one cache-sized tile of the elements after another: one pass over
// memory instead of one per op. The node keeps the last op's name; the
// other operands of binary ops become its inputs. Run after
// FuseConvActivation (a relu after a convolution is fused there).
RewriteResult FuseElemwiseChains(const OpRegistry& reg, const Graph& graph);

}  // namespace pass
}  // namespace weft

#endif  // WEFT_PASS_H_
