// ExecutorPlan::Compile: from a symbol and a bind signature to the plan
// executors bind to, in named steps (CompileState carries what one hands
// the next):
//   BuildGraph           the training graph, the inference passes, placement
//   CheckDevices         every device exists; aux states sit where their
//                        variables are placed
//   InferShapesAndTypes  shapes and dtypes from the signature
//   RouteGradients       which gradients go straight into the bound arrays
//   PlanMemoryBlocks     constant steps, the memory plan
//   PlanSteps            one step (kernel, requests) per op node
#include <algorithm>

#include "executor/executor_impl.h"
#include "weft/dynamic_shape.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

namespace {

constexpr const char* kCopyOp = "_CrossDeviceCopy";

using PlanImpl = ExecutorPlan::Impl;

// Fails with Error(kDevice) unless `ctx` can hold memory (gpu(i) without a
// device, or a build without CUDA, cannot).
void CheckDevice(Runtime* rt, Context ctx) {
  try {
    rt->storage(ctx);
  } catch (const Error& e) {
    Fail(StatusCode::kDevice, "bind: cannot run on ", ctx.ToString(), ": ", e.what());
  }
}

struct CompileState {
  Graph forward;  // the forward graph (rewritten when inference passes ran)
  // Differentiated arguments (indices, in gradient-output order) and MXNet's
  // head gradients (a variable or a ones_like per output).
  std::vector<size_t> x_args;
  std::vector<NodeEntry> heads;
  std::vector<bool> head_is_var;
  // The bound variables by node (the passes keep variables but may reorder them).
  std::vector<const Node*> arg_var, aux_var;
  std::unique_ptr<IndexedGraph> fidx;  // the (placed) forward graph: a prefix of the bound one
  std::vector<bool> external;          // per entry: a gradient written into a bound array
};

// `v`'s node id in `g`, or -1 when the bound graph dropped it.
int64_t VarNid(const IndexedGraph& g, const Node* v) {
  return g.contains(v) ? static_cast<int64_t>(g.node_id(v)) : -1;
}

// Nodes without a float16/bfloat16 kernel for the dtypes they meet compute
// in float32 between Casts (pass::RunInFloat32); `s->forward` follows.
void RunReducedInFloat32(Runtime* rt, PlanImpl* p, CompileState* s, Graph* train) {
  pass::DTypeMap types;
  for (size_t i = 0; i < p->sig.args.size(); ++i) types[p->arg_names[i]] = p->sig.args[i].dtype;
  for (size_t i = 0; i < p->sig.aux.size(); ++i) types[p->aux_names[i]] = p->sig.aux[i].dtype;
  pass::Float32Fallback f =
      pass::RunInFloat32(rt->ops(), rt->kernels(), p->sig.ctx.dev_type, *train, types);
  if (f.nodes.empty()) return;
  *train = std::move(f.graph);
  p->float32_nodes = std::move(f.nodes);
  s->forward =
      Graph{std::vector<NodeEntry>(train->outputs.begin(), train->outputs.begin() + p->n_out)};
}

// The training graph: gradients of every argument whose request is not
// null; for inference only, the graph passes; with device groups or nodes
// falling back to the CPU, placed and rewritten with copies.
void BuildGraph(Runtime* rt, PlanImpl* p, CompileState* s) {
  const OpRegistry& reg = rt->ops();
  const BindSignature& sig = p->sig;
  s->forward = Graph{p->symbol.outputs};
  p->n_out = s->forward.outputs.size();
  {
    IndexedGraph orig(s->forward);
    for (uint32_t nid : orig.argument_nodes()) s->arg_var.push_back(&orig.node(nid));
    for (uint32_t nid : orig.aux_nodes()) s->aux_var.push_back(&orig.node(nid));
  }
  // Subgraph operators (MXNet's _sg_mkldnn_*) run as their inlined subgraphs.
  s->forward = pass::ExpandSubgraphs(reg, s->forward).graph;
  Graph train = TrainingGraph(reg, s->forward, sig.reqs, &s->x_args, &s->heads, &s->head_is_var);
  p->has_grads = !s->x_args.empty();
  // Inference only: the graph passes, then constant steps (PlanMemoryBlocks).
  p->optimize = !p->has_grads && sig.options.group2ctx.empty() &&
                ResolveOptimizeInference(sig.options.optimize_inference);
  if (p->optimize) {
    train = OptimizeInference(reg, rt->kernels(), sig.ctx.dev_type, train, &p->passes);
    if (!p->passes.empty()) s->forward = train;
  }
  RunReducedInFloat32(rt, p, s, &train);
  const KernelRegistry* fallback = sig.options.allow_fallback ? &rt->kernels() : nullptr;
  if (sig.options.group2ctx.empty() && !(fallback && NeedsFallback(*fallback, train, sig.ctx))) {
    p->graph = std::move(train);
  } else {
    std::map<std::string, Context> fixed;
    for (size_t i = 0; i < sig.args.size(); ++i) fixed[p->arg_names[i]] = sig.args[i].ctx;
    pass::Placement placed = PlaceTrainingGraph(reg, s->forward, train, s->heads, sig.ctx,
                                                sig.options.group2ctx, fixed, fallback);
    p->graph = std::move(placed.graph);
    p->devices = std::move(placed.devices);
    p->fallback_nodes = std::move(placed.fallback_nodes);
  }
  p->idx = std::make_unique<IndexedGraph>(p->graph);
  const IndexedGraph& g = *p->idx;
  if (p->devices.empty()) p->devices.assign(g.num_nodes(), sig.ctx);
  const Graph placed_forward{
      std::vector<NodeEntry>(p->graph.outputs.begin(), p->graph.outputs.begin() + p->n_out)};
  s->fidx = std::make_unique<IndexedGraph>(placed_forward);
  p->num_forward_nodes = static_cast<uint32_t>(s->fidx->num_nodes());
  for (uint32_t nid = 0; nid < p->num_forward_nodes; ++nid)
    WEFT_CHECK(&g.node(nid) == &s->fidx->node(nid))
        << "forward nodes must come first in the training graph";
  for (const Node* v : s->arg_var) p->arg_nid.push_back(VarNid(g, v));
  for (const Node* v : s->aux_var) p->aux_nid.push_back(VarNid(g, v));
}

// Every device must exist; aux arrays must sit where their variables are
// placed. Sets device_list.
void CheckDevices(Runtime* rt, PlanImpl* p) {
  p->device_list = {p->sig.ctx};
  for (const Context& c : p->devices)
    if (std::find(p->device_list.begin(), p->device_list.end(), c) == p->device_list.end())
      p->device_list.push_back(c);
  for (const Context& c : p->device_list) CheckDevice(rt, c);
  // A group the CPU fallback moved off its device still names a device that
  // must exist: the caller asked for it.
  for (const auto& kv : p->sig.options.group2ctx) CheckDevice(rt, kv.second);
  for (size_t i = 0; i < p->sig.aux.size(); ++i) {
    if (p->aux_nid[i] < 0) continue;
    const Context want = p->devices[static_cast<size_t>(p->aux_nid[i])];
    if (p->sig.aux[i].ctx != want)
      Fail(StatusCode::kDevice, "bind: auxiliary state '", p->aux_names[i], "' is on ",
           p->sig.aux[i].ctx.ToString(), ", but its variable is placed on ", want.ToString());
  }
}

// Shapes and dtypes from the signature (the forward graph first; head
// gradients then take the outputs'). Errors of a rewritten graph are
// reported from the graph as written.
// An operator of data-dependent output shape (weft/dynamic_shape.h) cannot
// be planned before it runs.
void RefuseDynamicShapes(const PlanImpl& p) {
  const IndexedGraph& g = *p.idx;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    if (!n.is_variable() && FindDynamicShapeOp(n.op()->name))
      Fail(StatusCode::kInvalidArgument, "bind: node '", n.attrs.name, "' (", n.op()->name,
           ") has output shapes that depend on the input values, which an executor cannot plan "
           "before it runs; run the model through a CachedOp (weft_cached_op_create) or a "
           "Predictor, which run it node by node");
  }
}

void InferShapesAndTypes(PlanImpl* p, CompileState* s) {
  const IndexedGraph& g = *p->idx;
  const BindSignature& sig = p->sig;
  pass::ShapeMap shape_in;
  pass::DTypeMap type_in;
  for (size_t i = 0; i < sig.args.size(); ++i) {
    shape_in[p->arg_names[i]] = sig.args[i].shape;
    type_in[p->arg_names[i]] = sig.args[i].dtype;
  }
  for (size_t i = 0; i < sig.aux.size(); ++i) {
    shape_in[p->aux_names[i]] = sig.aux[i].shape;
    type_in[p->aux_names[i]] = sig.aux[i].dtype;
  }
  const pass::ShapeMap user_shapes = shape_in;
  const pass::DTypeMap user_types = type_in;
  if (!p->passes.empty()) {  // only the variables the optimised graph still has
    std::map<std::string, bool> present;
    for (uint32_t nid : g.input_nodes()) present[g.node(nid).attrs.name] = true;
    auto keep_present = [&](auto* map) {
      for (auto it = map->begin(); it != map->end();)
        it = present.count(it->first) ? std::next(it) : map->erase(it);
    };
    keep_present(&shape_in);
    keep_present(&type_in);
  }
  pass::ShapeResult fshapes;
  pass::TypeResult ftypes;
  try {
    fshapes = pass::InferShape(*s->fidx, shape_in);
    ftypes = pass::InferType(*s->fidx, type_in);
  } catch (const Error&) {
    // Errors name the nodes the caller wrote: the graph as written gives
    // the message (a rewritten graph may have fused the failing node).
    if (!p->passes.empty()) {
      const IndexedGraph user(Graph{p->symbol.outputs});
      pass::InferShape(user, user_shapes);
      pass::InferType(user, user_types);
    }
    throw;
  }
  if (!fshapes.complete())
    Fail(StatusCode::kShape, "bind: cannot infer the shapes of ", JoinNames(fshapes.unknown_names));
  if (!ftypes.complete())
    Fail(StatusCode::kDType, "bind: cannot infer the dtypes of ", JoinNames(ftypes.unknown_names));
  p->out_shapes = fshapes.out_shapes;
  p->head_grad_nid.assign(p->n_out, -1);
  for (size_t i = 0; i < s->heads.size(); ++i) {
    if (!s->head_is_var[i]) continue;
    const std::string& name = s->heads[i].node->attrs.name;
    shape_in[name] = fshapes.out_shapes[i];
    type_in[name] = ftypes.out_types[i];
    p->head_grad_nid[i] = g.node_id(s->heads[i].node.get());
  }
  p->shapes = pass::InferShape(g, shape_in);
  p->types = pass::InferType(g, type_in);
  if (!p->shapes.complete())
    Fail(StatusCode::kShape, "bind: cannot infer the shapes of ",
         JoinNames(p->shapes.unknown_names));
  if (!p->types.complete())
    Fail(StatusCode::kDType, "bind: cannot infer the dtypes of ",
         JoinNames(p->types.unknown_names));
}

// Gradients go straight into the bound arrays when their producer is a
// gradient node on the array's device whose output nobody else reads;
// otherwise they are copied (grad_copies).
void RouteGradients(PlanImpl* p, CompileState* s) {
  const IndexedGraph& g = *p->idx;
  const size_t n_entries = g.num_node_entries();
  std::vector<int> readers(n_entries, 0), as_output(n_entries, 0);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    for (const auto& in : g[nid].inputs) ++readers[g.entry_id(in)];
  for (const auto& out : g.outputs()) ++as_output[g.entry_id(out)];
  s->external.assign(n_entries, false);
  p->direct_arg.assign(n_entries, -1);
  for (size_t k = 0; k < s->x_args.size(); ++k) {
    const size_t arg = s->x_args[k];
    const uint32_t ge = g.entry_id(g.outputs()[p->n_out + k]);
    const uint32_t producer = g.entry(ge).node_id;
    if (producer >= p->num_forward_nodes && !g.node(producer).is_variable() && as_output[ge] == 1 &&
        readers[ge] == 0 && p->devices[producer] == p->sig.grad_ctx[arg]) {
      s->external[ge] = true;
      p->direct_arg[ge] = static_cast<int64_t>(arg);
    } else {
      p->grad_copies.push_back({ge, arg});
    }
  }
}

// The memory plan; with the inference passes on, constant steps' outputs
// get blocks of their own and content counters (versioned).
void PlanMemoryBlocks(PlanImpl* p, const CompileState& s) {
  const IndexedGraph& g = *p->idx;
  const size_t n_entries = g.num_node_entries();
  pass::MemoryPlanOptions popt;
  popt.match_range = p->sig.options.match_range;
  popt.num_groups = p->sig.options.num_groups;
  popt.external = s.external;
  if (p->device_list.size() > 1) {
    popt.node_device.resize(g.num_nodes());
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
      popt.node_device[nid] = static_cast<int>(
          std::find(p->device_list.begin(), p->device_list.end(), p->devices[nid]) -
          p->device_list.begin());
  }
  p->versioned.assign(n_entries, false);
  if (p->optimize) {
    std::vector<bool> is_aux(g.num_nodes(), false);
    for (int64_t nid : p->aux_nid)
      if (nid >= 0) is_aux[static_cast<size_t>(nid)] = true;
    p->constant = ConstantNodes(g, is_aux);
    popt.dedicated.assign(n_entries, false);
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
      if (!p->constant[nid] || g.node(nid).is_variable()) continue;
      for (uint32_t o = 0; o < g.node(nid).num_outputs(); ++o) {
        popt.dedicated[g.entry_id(nid, o)] = true;
        p->versioned[g.entry_id(nid, o)] = true;
      }
    }
  } else {
    p->constant.assign(g.num_nodes(), false);
  }
  p->mem = pass::PlanMemory(g, p->shapes, p->types, popt);
}

// One step per op node (not a no-op assign): its kernel for the node's
// device (none for a copy between device types) and the output requests.
void PlanSteps(Runtime* rt, PlanImpl* p) {
  const IndexedGraph& g = *p->idx;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable() || p->mem.noop[nid]) continue;
    PlanStep step;
    step.nid = nid;
    step.name = node.op()->name + ":" + node.attrs.name;
    step.ctx = p->devices[nid];
    const bool cross_type = node.op()->name == kCopyOp &&
                            p->devices[g[nid].inputs.at(0).node_id].dev_type != step.ctx.dev_type;
    if (!cross_type) {
      step.kernel = rt->kernels().Find(node.op()->name, step.ctx.dev_type);
      if (!step.kernel)
        Fail(StatusCode::kNotImplemented, "bind: operator ", node.op()->name, " (node '",
             node.attrs.name, "') has no kernel for device ", DeviceTypeName(step.ctx.dev_type),
             rt->kernels().Find(node.op()->name, DeviceType::kCPU)
                 ? " (ExecutorOptions::allow_fallback would run it on cpu(0))"
                 : "");
    }
    for (uint32_t o = 0; o < node.num_outputs(); ++o) {
      const uint32_t e = g.entry_id(nid, o);
      OpReq r = p->mem.unread[e] ? OpReq::kNull : OpReq::kWrite;
      const int64_t arg = p->direct_arg[e];
      if (arg >= 0 && p->sig.reqs[static_cast<size_t>(arg)] == GradReq::kAdd) r = OpReq::kAdd;
      step.reqs.push_back(r);
    }
    (nid < p->num_forward_nodes ? p->forward_steps : p->backward_steps).push_back(std::move(step));
  }
}

}  // namespace

BindSignature BindSignature::Of(Context ctx, const std::vector<NDArray>& args,
                                const std::vector<NDArray>& grads, const std::vector<GradReq>& reqs,
                                const std::vector<NDArray>& aux, const ExecutorOptions& options) {
  BindSignature sig;
  sig.ctx = ctx;
  for (const NDArray& a : args) sig.args.push_back({a.shape(), a.dtype(), a.ctx()});
  for (const NDArray& a : aux) sig.aux.push_back({a.shape(), a.dtype(), a.ctx()});
  sig.reqs = reqs;
  for (size_t i = 0; i < args.size(); ++i)
    sig.grad_ctx.push_back(i < grads.size() && !grads[i].is_none() ? grads[i].ctx() : ctx);
  sig.options = options;
  return sig;
}

ExecutorPlan::ExecutorPlan(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ExecutorPlan::~ExecutorPlan() = default;

std::shared_ptr<const ExecutorPlan> ExecutorPlan::Compile(Runtime* rt, const Symbol& symbol,
                                                          const BindSignature& sig) {
  WEFT_CHECK(rt) << "bind: no runtime given";
  auto p = std::make_unique<Impl>();
  p->symbol = symbol;
  p->sig = sig;
  p->arg_names = symbol.ListArguments();
  p->aux_names = symbol.ListAuxiliaryStates();
  p->out_names = symbol.ListOutputs();
  const size_t n = p->arg_names.size();
  if (sig.args.size() != n || sig.reqs.size() != n || sig.grad_ctx.size() != n ||
      sig.aux.size() != p->aux_names.size())
    Fail(StatusCode::kInvalidArgument, "bind: the signature has ", sig.args.size(),
         " argument(s), ", sig.reqs.size(), " request(s), ", sig.grad_ctx.size(),
         " gradient device(s) and ", sig.aux.size(), " aux state(s); the symbol has ", n,
         " argument(s) and ", p->aux_names.size(), " aux state(s)");
  CompileState s;
  BuildGraph(rt, p.get(), &s);
  CheckDevices(rt, p.get());
  RefuseDynamicShapes(*p);
  InferShapesAndTypes(p.get(), &s);
  RouteGradients(p.get(), &s);
  PlanMemoryBlocks(p.get(), s);
  PlanSteps(rt, p.get());
  p->bulk_max_nodes = ResolveBulkMaxNodes(sig.options.bulk_max_nodes);
  return std::shared_ptr<const ExecutorPlan>(new ExecutorPlan(std::move(p)));
}

const Symbol& ExecutorPlan::symbol() const { return impl_->symbol; }
const BindSignature& ExecutorPlan::signature() const { return impl_->sig; }
const std::vector<Shape>& ExecutorPlan::output_shapes() const { return impl_->out_shapes; }
const Graph& ExecutorPlan::graph() const { return impl_->graph; }
const std::vector<Context>& ExecutorPlan::node_devices() const { return impl_->devices; }

ExecutorMemory ExecutorPlan::memory() const {
  const pass::MemoryPlan& p = impl_->mem;
  ExecutorMemory r;
  r.naive_bytes = p.naive_bytes;
  r.planned_bytes = p.planned_bytes;
  r.num_storage = p.storage_bytes.size();
  r.num_inplace = p.num_inplace;
  r.num_reused = p.num_reused;
  r.match_range = p.match_range;
  return r;
}

ExecutorPlacement ExecutorPlan::placement() const {
  const Impl& m = *impl_;
  const IndexedGraph& g = *m.idx;
  ExecutorPlacement r;
  r.fallback_nodes = m.fallback_nodes;
  r.float32_nodes = m.float32_nodes;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable() || node.op()->name != kCopyOp) continue;
    ++r.num_copies;
    const uint32_t e = g.entry_id(nid, 0);
    if (nid < m.num_forward_nodes)
      r.forward_copy_bytes +=
          static_cast<size_t>(m.shapes.shapes[e].Size()) * DTypeSize(m.types.dtypes[e]);
  }
  return r;
}

}  // namespace weft
