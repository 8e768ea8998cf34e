// Executor::Init: from the bound arrays to a runnable executor, in named
// steps (each an Executor::Impl method; BindState carries what one step
// hands the next):
//   BuildGraph           the training graph, the inference passes, placement
//   CheckDevices         every device exists; gradients and aux states sit
//                        where their variables are placed
//   InferShapesAndTypes  shapes and dtypes from the bound arrays
//   RouteGradients       which gradients go straight into the bound arrays
//   PlanAndAllocate      the memory plan, its storage, every entry's array
//   PrepareSteps         one kernel call per op node
//   SegmentSteps         the steps grouped into engine operations
#include <algorithm>

#include "executor/executor_impl.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

namespace {

constexpr const char* kCopyOp = "_CrossDeviceCopy";

// Fails with Error(kDevice) unless `ctx` can hold memory (gpu(i) without a
// device, or a build without CUDA, cannot).
void CheckDevice(Runtime* rt, Context ctx) {
  try {
    rt->storage(ctx);
  } catch (const Error& e) {
    Fail(StatusCode::kDevice, "bind: cannot run on ", ctx.ToString(), ": ", e.what());
  }
}

}  // namespace

struct Executor::Impl::BindState {
  Graph forward;     // the forward graph (rewritten when inference passes ran)
  size_t n_out = 0;  // its outputs
  // Differentiated arguments (indices, in gradient-output order) and MXNet's
  // head gradients (a variable or a ones_like per output).
  std::vector<size_t> x_args;
  std::vector<NodeEntry> heads;
  std::vector<bool> head_is_var;
  // The bound variables by node (the passes keep variables but may reorder them).
  std::vector<const Node*> arg_var, aux_var;
  std::unique_ptr<IndexedGraph> fidx;  // the (placed) forward graph: a prefix of the bound one
  std::vector<Context> device_list;    // every device used, the executor's first
  // Per entry: a gradient written straight into a bound array (`external`
  // to the plan), and which argument's gradient array it is (-1 otherwise).
  std::vector<bool> external;
  std::vector<int64_t> direct_arg;

  // `v`'s node id in `g`, or -1 when the bound graph dropped it.
  static int64_t VarNid(const IndexedGraph& g, const Node* v) {
    return g.contains(v) ? static_cast<int64_t>(g.node_id(v)) : -1;
  }
};

void Executor::Init(const ExecutorOptions& options, Runtime* rt) {
  Impl& m = *impl_;
  WEFT_CHECK(rt) << "bind: no runtime given";
  m.rt = rt;
  m.group2ctx = options.group2ctx;
  out_names_ = symbol_.ListOutputs();
  Impl::BindState s;
  m.BuildGraph(*this, options, &s);
  m.CheckDevices(*this, &s);
  m.InferShapesAndTypes(*this, &s);
  m.RouteGradients(*this, &s);
  m.PlanAndAllocate(*this, options, s);
  m.PrepareSteps(*this, s);
  outputs_.clear();
  for (size_t i = 0; i < s.n_out; ++i)
    outputs_.push_back(m.entries[m.idx->entry_id(m.idx->outputs()[i])]);
  m.SegmentSteps(options);
}

// The training graph: gradients of every argument whose request is not
// null; for inference only, the graph passes; with device groups or nodes
// falling back to the CPU, placed and rewritten with copies. Sets graph, idx, devices, has_grads,
// optimize, passes and num_forward_nodes.
void Executor::Impl::BuildGraph(const Executor& ex, const ExecutorOptions& options, BindState* s) {
  const OpRegistry& reg = rt->ops();
  s->forward = Graph{ex.symbol_.outputs};
  s->n_out = s->forward.outputs.size();
  Graph train = TrainingGraph(reg, s->forward, ex.reqs_, &s->x_args, &s->heads, &s->head_is_var);
  has_grads = !s->x_args.empty();
  // Inference only: the graph passes, then constant steps (PlanAndAllocate).
  optimize = !has_grads && options.group2ctx.empty() &&
             ResolveOptimizeInference(options.optimize_inference);
  {
    IndexedGraph orig(s->forward);
    for (uint32_t nid : orig.argument_nodes()) s->arg_var.push_back(&orig.node(nid));
    for (uint32_t nid : orig.aux_nodes()) s->aux_var.push_back(&orig.node(nid));
  }
  if (optimize) {
    train = OptimizeInference(reg, rt->kernels(), ex.ctx_.dev_type, train, &passes);
    if (!passes.empty()) s->forward = train;
  }
  const KernelRegistry* fallback = options.allow_fallback ? &rt->kernels() : nullptr;
  if (options.group2ctx.empty() && !(fallback && NeedsFallback(*fallback, train, ex.ctx_))) {
    graph = std::move(train);
  } else {
    std::map<std::string, Context> fixed;
    for (size_t i = 0; i < ex.args_.size(); ++i) fixed[ex.arg_names_[i]] = ex.args_[i].ctx();
    pass::Placement placed = PlaceTrainingGraph(reg, s->forward, train, s->heads, ex.ctx_,
                                                options.group2ctx, fixed, fallback);
    graph = std::move(placed.graph);
    devices = std::move(placed.devices);
    fallback_nodes = std::move(placed.fallback_nodes);
  }
  idx = std::make_unique<IndexedGraph>(graph);
  if (devices.empty()) devices.assign(idx->num_nodes(), ex.ctx_);
  const Graph placed_forward{
      std::vector<NodeEntry>(graph.outputs.begin(), graph.outputs.begin() + s->n_out)};
  s->fidx = std::make_unique<IndexedGraph>(placed_forward);
  num_forward_nodes = static_cast<uint32_t>(s->fidx->num_nodes());
  for (uint32_t nid = 0; nid < num_forward_nodes; ++nid)
    WEFT_CHECK(&idx->node(nid) == &s->fidx->node(nid))
        << "forward nodes must come first in the training graph";
}

// Every device must exist; gradient and aux arrays must sit where their
// variables are placed. Sets s->device_list.
void Executor::Impl::CheckDevices(const Executor& ex, BindState* s) const {
  s->device_list = {ex.ctx_};
  for (const Context& c : devices)
    if (std::find(s->device_list.begin(), s->device_list.end(), c) == s->device_list.end())
      s->device_list.push_back(c);
  for (const Context& c : s->device_list) CheckDevice(rt, c);
  // A group the CPU fallback moved off its device still names a device that
  // must exist: the caller asked for it.
  for (const auto& kv : group2ctx) CheckDevice(rt, kv.second);
  for (size_t i = 0; i < ex.args_.size(); ++i)
    if (!ex.grads_[i].is_none() && ex.grads_[i].ctx() != ex.args_[i].ctx())
      Fail(StatusCode::kDevice, "bind: the gradient array of '", ex.arg_names_[i], "' is on ",
           ex.grads_[i].ctx().ToString(), ", but argument '", ex.arg_names_[i], "' is placed on ",
           ex.args_[i].ctx().ToString());
  for (size_t i = 0; i < ex.aux_.size(); ++i) {
    const int64_t nid = BindState::VarNid(*idx, s->aux_var[i]);
    if (nid < 0) continue;
    const Context want = devices[static_cast<size_t>(nid)];
    if (ex.aux_[i].ctx() != want)
      Fail(StatusCode::kDevice, "bind: auxiliary state '", ex.aux_names_[i], "' is on ",
           ex.aux_[i].ctx().ToString(), ", but its variable is placed on ", want.ToString());
  }
}

// Shapes and dtypes from the bound arrays (the forward graph first; head
// gradients then take the outputs'). Errors of a rewritten graph are
// reported from the graph as written. Sets shapes, types, head_grad_nid.
void Executor::Impl::InferShapesAndTypes(const Executor& ex, BindState* s) {
  const IndexedGraph& g = *idx;
  pass::ShapeMap shape_in;
  pass::DTypeMap type_in;
  for (size_t i = 0; i < ex.args_.size(); ++i) {
    shape_in[ex.arg_names_[i]] = ex.args_[i].shape();
    type_in[ex.arg_names_[i]] = ex.args_[i].dtype();
  }
  for (size_t i = 0; i < ex.aux_.size(); ++i) {
    shape_in[ex.aux_names_[i]] = ex.aux_[i].shape();
    type_in[ex.aux_names_[i]] = ex.aux_[i].dtype();
  }
  const pass::ShapeMap user_shapes = shape_in;
  const pass::DTypeMap user_types = type_in;
  if (!passes.empty()) {  // only the variables the optimised graph still has
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
    if (!passes.empty()) {
      const IndexedGraph user(Graph{ex.symbol_.outputs});
      pass::InferShape(user, user_shapes);
      pass::InferType(user, user_types);
    }
    throw;
  }
  if (!fshapes.complete())
    Fail(StatusCode::kShape, "bind: cannot infer the shapes of ", JoinNames(fshapes.unknown_names));
  if (!ftypes.complete())
    Fail(StatusCode::kDType, "bind: cannot infer the dtypes of ", JoinNames(ftypes.unknown_names));
  head_grad_nid.assign(ex.out_names_.size(), -1);
  for (size_t i = 0; i < s->heads.size(); ++i) {
    if (!s->head_is_var[i]) continue;
    const std::string& name = s->heads[i].node->attrs.name;
    shape_in[name] = fshapes.out_shapes[i];
    type_in[name] = ftypes.out_types[i];
    head_grad_nid[i] = g.node_id(s->heads[i].node.get());
  }
  shapes = pass::InferShape(g, shape_in);
  types = pass::InferType(g, type_in);
  if (!shapes.complete())
    Fail(StatusCode::kShape, "bind: cannot infer the shapes of ", JoinNames(shapes.unknown_names));
  if (!types.complete())
    Fail(StatusCode::kDType, "bind: cannot infer the dtypes of ", JoinNames(types.unknown_names));
}

// Gradients go straight into the bound arrays when their producer is a
// gradient node on the array's device whose output nobody else reads;
// otherwise they are copied (grad_copies). Sets s->external, s->direct_arg.
void Executor::Impl::RouteGradients(const Executor& ex, BindState* s) {
  const IndexedGraph& g = *idx;
  const size_t n_entries = g.num_node_entries();
  std::vector<int> readers(n_entries, 0), as_output(n_entries, 0);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    for (const auto& in : g[nid].inputs) ++readers[g.entry_id(in)];
  for (const auto& out : g.outputs()) ++as_output[g.entry_id(out)];
  s->external.assign(n_entries, false);
  s->direct_arg.assign(n_entries, -1);
  for (size_t k = 0; k < s->x_args.size(); ++k) {
    const uint32_t ge = g.entry_id(g.outputs()[s->n_out + k]);
    const uint32_t producer = g.entry(ge).node_id;
    if (producer >= num_forward_nodes && !g.node(producer).is_variable() && as_output[ge] == 1 &&
        readers[ge] == 0 && devices[producer] == ex.grads_[s->x_args[k]].ctx()) {
      s->external[ge] = true;
      s->direct_arg[ge] = static_cast<int64_t>(s->x_args[k]);
    } else {
      grad_copies.push_back({ge, s->x_args[k], NDArray()});
    }
  }
}

// The memory plan (constant steps' outputs get blocks of their own and
// content counters), its storage, and the array of every entry: bound
// arguments, aux states and gradient arrays, head gradients, planned
// blocks and aliases. Sets constant, content, plan, storage, entries and
// the grad_copies' staging arrays.
void Executor::Impl::PlanAndAllocate(const Executor& ex, const ExecutorOptions& options,
                                     const BindState& s) {
  const IndexedGraph& g = *idx;
  const size_t n_entries = g.num_node_entries();
  pass::MemoryPlanOptions popt;
  popt.match_range = options.match_range;
  popt.num_groups = options.num_groups;
  popt.external = s.external;
  if (s.device_list.size() > 1) {
    popt.node_device.resize(g.num_nodes());
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
      popt.node_device[nid] =
          static_cast<int>(std::find(s.device_list.begin(), s.device_list.end(), devices[nid]) -
                           s.device_list.begin());
  }
  content.assign(n_entries, nullptr);
  if (optimize) {
    std::vector<bool> is_aux(g.num_nodes(), false);
    for (const Node* v : s.aux_var)
      if (BindState::VarNid(g, v) >= 0) is_aux[static_cast<size_t>(BindState::VarNid(g, v))] = true;
    constant = ConstantNodes(g, is_aux);
    popt.dedicated.assign(n_entries, false);
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
      if (!constant[nid] || g.node(nid).is_variable()) continue;
      for (uint32_t o = 0; o < g.node(nid).num_outputs(); ++o) {
        popt.dedicated[g.entry_id(nid, o)] = true;
        content[g.entry_id(nid, o)] = std::make_shared<std::atomic<uint64_t>>(0);
      }
    }
  } else {
    constant.assign(g.num_nodes(), false);
  }
  plan = pass::PlanMemory(g, shapes, types, popt);

  storage.clear();
  for (size_t sid = 0; sid < plan.storage_bytes.size(); ++sid)
    storage.emplace_back(Shape{static_cast<int64_t>(std::max<size_t>(plan.storage_bytes[sid], 1))},
                         s.device_list.at(static_cast<size_t>(plan.storage_device[sid])),
                         DType::kUint8, rt);
  entries.assign(n_entries, NDArray());
  auto bind_var = [&](const Node* v, const NDArray& a) {
    const int64_t nid = BindState::VarNid(g, v);
    if (nid >= 0) entries[g.entry_id(static_cast<uint32_t>(nid), 0)] = a;
  };
  for (size_t i = 0; i < ex.args_.size(); ++i) bind_var(s.arg_var[i], ex.args_[i]);
  for (size_t i = 0; i < ex.aux_.size(); ++i) bind_var(s.aux_var[i], ex.aux_[i]);
  for (size_t i = 0; i < head_grad_nid.size(); ++i)
    if (head_grad_nid[i] >= 0) {
      const uint32_t nid = static_cast<uint32_t>(head_grad_nid[i]);
      const uint32_t e = g.entry_id(nid, 0);
      entries[e] = NDArray(shapes.shapes[e], devices[nid], types.dtypes[e], rt);
    }
  for (uint32_t e = 0; e < n_entries; ++e) {
    if (s.direct_arg[e] >= 0) entries[e] = ex.grads_[s.direct_arg[e]];
    const int sid = plan.storage_id[e];
    if (sid >= 0) entries[e] = storage[sid].AsType(shapes.shapes[e], types.dtypes[e]);
  }
  for (uint32_t e = 0; e < n_entries; ++e)
    if (plan.storage_id[e] == pass::MemoryPlan::kExternal && plan.alias[e] != e)
      entries[e] = entries[plan.alias[e]];
  for (auto& c : grad_copies) {
    const NDArray& src = entries[c.entry];
    const NDArray& dst = ex.grads_[c.arg];
    if (ex.reqs_[c.arg] == GradReq::kAdd && src.ctx() != dst.ctx())
      c.staging = NDArray(dst.shape(), dst.ctx(), dst.dtype(), rt);
  }
}

// One step per op node (not a no-op assign): its kernel for the node's
// device (none for a copy between device types), the output requests, and
// the kernel call bound to the entries. Sets forward_steps, backward_steps.
void Executor::Impl::PrepareSteps(const Executor& ex, const BindState& s) {
  const IndexedGraph& g = *idx;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable() || plan.noop[nid]) continue;
    Step step;
    step.nid = nid;
    step.name = node.op()->name + ":" + node.attrs.name;
    step.ctx = devices[nid];
    const bool cross_type = node.op()->name == kCopyOp &&
                            devices[g[nid].inputs.at(0).node_id].dev_type != step.ctx.dev_type;
    if (!cross_type) {
      step.kernel = rt->kernels().Find(node.op()->name, step.ctx.dev_type);
      if (!step.kernel)
        Fail(StatusCode::kNotImplemented, "bind: operator ", node.op()->name, " (node '",
             node.attrs.name, "') has no kernel for device ", DeviceTypeName(step.ctx.dev_type),
             rt->kernels().Find(node.op()->name, DeviceType::kCPU)
                 ? " (ExecutorOptions::allow_fallback would run it on cpu(0))"
                 : "");
    }
    std::vector<NDArray> in, out;
    CallVersions versions;
    versions.skip_unchanged = constant[nid];
    for (const auto& e : g[nid].inputs) {
      in.push_back(entries[g.entry_id(e)]);
      versions.inputs.push_back(content[g.entry_id(e)]);
    }
    for (uint32_t o = 0; o < node.num_outputs(); ++o)
      versions.outputs.push_back(content[g.entry_id(nid, o)]);
    for (uint32_t o = 0; o < node.num_outputs(); ++o) {
      const uint32_t e = g.entry_id(nid, o);
      OpReq r = plan.unread[e] ? OpReq::kNull : OpReq::kWrite;
      if (s.direct_arg[e] >= 0 && ex.reqs_[s.direct_arg[e]] == GradReq::kAdd) r = OpReq::kAdd;
      step.reqs.push_back(r);
      out.push_back(entries[e]);
    }
    if (step.kernel)
      step.call = PrepareKernel(rt, *step.kernel, node.attrs, step.ctx, in, out, step.reqs,
                                step.name, &versions);
    (nid < num_forward_nodes ? forward_steps : backward_steps).push_back(std::move(step));
  }
}

// Bulk execution: the forward outputs and the gradient arrays are what a
// caller reads, so segments end where they are produced.
void Executor::Impl::SegmentSteps(const ExecutorOptions& options) {
  const IndexedGraph& g = *idx;
  std::vector<bool> visible(g.num_node_entries(), false);
  for (const auto& o : g.outputs()) visible[g.entry_id(o)] = true;
  bulk_max_nodes = ResolveBulkMaxNodes(options.bulk_max_nodes);
  forward_segments = BulkSegments(forward_steps, g, visible, bulk_max_nodes);
  backward_segments = BulkSegments(backward_steps, g, visible, bulk_max_nodes);
}

}  // namespace weft
