// Executor: building the bound graph and its memory, and running it.
#include <algorithm>
#include <sstream>

#include "executor/executor_impl.h"
#include "weft/engine.h"
#include "weft/imperative.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

Executor::Executor() : impl_(new Impl) {}
Executor::~Executor() = default;

void Executor::Impl::Push(const std::shared_ptr<const Segment>& seg, bool is_train) const {
  if (seg->copy_nid >= 0) {  // a _CrossDeviceCopy between device types: the engine's copy pools
    const IndexedGraph& g = *idx;
    const uint32_t nid = static_cast<uint32_t>(seg->copy_nid);
    NDArray out = entries[g.entry_id(nid, 0)];
    entries[g.entry_id(g[nid].inputs.at(0))].CopyTo(&out);
    return;
  }
  if (seg->calls.size() == 1) {  // the engine names the node itself
    std::shared_ptr<const KernelCall> call = seg->calls[0];
    Engine::Get()->PushSync([call, is_train](RunContext rc) { call->Run(rc, is_train); }, seg->ctx,
                            seg->reads, seg->writes, 0, seg->name);
    return;
  }
  Engine::Get()->PushSync(
      [seg, is_train](RunContext rc) {
        for (const auto& call : seg->calls) {
          try {
            call->Run(rc, is_train);
          } catch (const Error& e) {
            throw OpPartError(e.code(), e.what(), call->name());
          } catch (const std::exception& e) {
            throw OpPartError(StatusCode::kInternal, e.what(), call->name());
          }
        }
      },
      seg->ctx, seg->reads, seg->writes, 0, seg->name);
}

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

void Executor::Init(const ExecutorOptions& options, Runtime* rt) {
  Impl& m = *impl_;
  m.rt = rt ? rt : &Runtime::Global();
  m.group2ctx = options.group2ctx;
  const OpRegistry& reg = m.rt->ops();
  Graph forward{symbol_.outputs};
  out_names_ = symbol_.ListOutputs();
  const size_t n_out = forward.outputs.size();

  // The training graph: gradients of every argument whose request is not
  // null; then, with device groups, placed and rewritten with copies.
  std::vector<size_t> x_args;
  std::vector<bool> head_is_var;
  std::vector<NodeEntry> heads;
  Graph train = TrainingGraph(reg, forward, reqs_, &x_args, &heads, &head_is_var);
  m.has_grads = !x_args.empty();
  // Inference only: the graph passes, then constant steps (below).
  m.optimize = !m.has_grads && options.group2ctx.empty() && ResolveOptimizeInference(options.optimize_inference);
  // The bound variables by node: the passes keep variables but may reorder them.
  std::vector<const Node*> arg_var, aux_var;
  {
    IndexedGraph orig(forward);
    for (uint32_t nid : orig.argument_nodes()) arg_var.push_back(&orig.node(nid));
    for (uint32_t nid : orig.aux_nodes()) aux_var.push_back(&orig.node(nid));
  }
  if (m.optimize) {
    train = OptimizeInference(reg, m.rt->kernels(), ctx_.dev_type, train, &m.passes);
    if (!m.passes.empty()) forward = train;
  }
  if (options.group2ctx.empty()) {
    m.graph = std::move(train);
  } else {
    std::map<std::string, Context> fixed;
    for (size_t i = 0; i < args_.size(); ++i) fixed[arg_names_[i]] = args_[i].ctx();
    pass::Placement placed = PlaceTrainingGraph(reg, forward, train, heads, ctx_, options.group2ctx, fixed);
    m.graph = std::move(placed.graph);
    m.devices = std::move(placed.devices);
  }
  m.idx = std::make_unique<IndexedGraph>(m.graph);
  const IndexedGraph& g = *m.idx;
  if (m.devices.empty()) m.devices.assign(g.num_nodes(), ctx_);
  auto var_nid = [&](const Node* v) { return g.contains(v) ? static_cast<int64_t>(g.node_id(v)) : -1; };
  // The (placed) forward graph is a prefix of the training graph.
  Graph placed_forward{std::vector<NodeEntry>(m.graph.outputs.begin(), m.graph.outputs.begin() + n_out)};
  IndexedGraph fidx(placed_forward);
  m.num_forward_nodes = static_cast<uint32_t>(fidx.num_nodes());
  for (uint32_t nid = 0; nid < m.num_forward_nodes; ++nid)
    WEFT_CHECK(&g.node(nid) == &fidx.node(nid)) << "forward nodes must come first in the training graph";

  // Devices: every one must exist; gradient and aux arrays must sit where
  // their variables are placed.
  std::vector<Context> device_list{ctx_};
  for (const Context& c : m.devices)
    if (std::find(device_list.begin(), device_list.end(), c) == device_list.end()) device_list.push_back(c);
  for (const Context& c : device_list) CheckDevice(m.rt, c);
  for (size_t i = 0; i < args_.size(); ++i)
    if (!grads_[i].is_none() && grads_[i].ctx() != args_[i].ctx())
      Fail(StatusCode::kDevice, "bind: the gradient array of '", arg_names_[i], "' is on ",
           grads_[i].ctx().ToString(), ", but argument '", arg_names_[i], "' is placed on ",
           args_[i].ctx().ToString());
  for (size_t i = 0; i < aux_.size(); ++i) {
    if (var_nid(aux_var[i]) < 0) continue;
    const Context want = m.devices[static_cast<size_t>(var_nid(aux_var[i]))];
    if (aux_[i].ctx() != want)
      Fail(StatusCode::kDevice, "bind: auxiliary state '", aux_names_[i], "' is on ", aux_[i].ctx().ToString(),
           ", but its variable is placed on ", want.ToString());
  }

  // Shapes and dtypes from the bound arrays; head gradients take the outputs'.
  pass::ShapeMap shape_in;
  pass::DTypeMap type_in;
  for (size_t i = 0; i < args_.size(); ++i) {
    shape_in[arg_names_[i]] = args_[i].shape();
    type_in[arg_names_[i]] = args_[i].dtype();
  }
  for (size_t i = 0; i < aux_.size(); ++i) {
    shape_in[aux_names_[i]] = aux_[i].shape();
    type_in[aux_names_[i]] = aux_[i].dtype();
  }
  const pass::ShapeMap user_shapes = shape_in;
  const pass::DTypeMap user_types = type_in;
  if (!m.passes.empty()) {  // only the variables the optimised graph still has
    std::map<std::string, bool> present;
    for (uint32_t nid : g.input_nodes()) present[g.node(nid).attrs.name] = true;
    auto keep_present = [&](auto* map) {
      for (auto it = map->begin(); it != map->end();) it = present.count(it->first) ? std::next(it) : map->erase(it);
    };
    keep_present(&shape_in);
    keep_present(&type_in);
  }
  pass::ShapeResult fshapes;
  pass::TypeResult ftypes;
  try {
    fshapes = pass::InferShape(fidx, shape_in);
    ftypes = pass::InferType(fidx, type_in);
  } catch (const Error&) {
    // Errors name the nodes the caller wrote: the graph as written gives
    // the message (a rewritten graph may have fused the failing node).
    if (!m.passes.empty()) {
      const IndexedGraph user(Graph{symbol_.outputs});
      pass::InferShape(user, user_shapes);
      pass::InferType(user, user_types);
    }
    throw;
  }
  if (!fshapes.complete())
    Fail(StatusCode::kShape, "bind: cannot infer the shapes of ", JoinNames(fshapes.unknown_names));
  if (!ftypes.complete())
    Fail(StatusCode::kDType, "bind: cannot infer the dtypes of ", JoinNames(ftypes.unknown_names));
  m.head_grad_nid.assign(out_names_.size(), -1);
  for (size_t i = 0; i < heads.size(); ++i) {
    if (!head_is_var[i]) continue;
    const std::string& name = heads[i].node->attrs.name;
    shape_in[name] = fshapes.out_shapes[i];
    type_in[name] = ftypes.out_types[i];
    m.head_grad_nid[i] = g.node_id(heads[i].node.get());
  }
  m.shapes = pass::InferShape(g, shape_in);
  m.types = pass::InferType(g, type_in);
  if (!m.shapes.complete())
    Fail(StatusCode::kShape, "bind: cannot infer the shapes of ", JoinNames(m.shapes.unknown_names));
  if (!m.types.complete())
    Fail(StatusCode::kDType, "bind: cannot infer the dtypes of ", JoinNames(m.types.unknown_names));

  // Gradients go straight into the bound arrays when their producer is a
  // gradient node on the array's device whose output nobody else reads;
  // otherwise they are copied.
  const size_t n_entries = g.num_node_entries();
  std::vector<int> readers(n_entries, 0), as_output(n_entries, 0);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    for (const auto& in : g[nid].inputs) ++readers[g.entry_id(in)];
  for (const auto& out : g.outputs()) ++as_output[g.entry_id(out)];
  std::vector<bool> external(n_entries, false);
  std::vector<int64_t> direct_arg(n_entries, -1);
  for (size_t k = 0; k < x_args.size(); ++k) {
    const uint32_t ge = g.entry_id(g.outputs()[n_out + k]);
    const uint32_t producer = g.entry(ge).node_id;
    if (producer >= m.num_forward_nodes && !g.node(producer).is_variable() && as_output[ge] == 1 &&
        readers[ge] == 0 && m.devices[producer] == grads_[x_args[k]].ctx()) {
      external[ge] = true;
      direct_arg[ge] = static_cast<int64_t>(x_args[k]);
    } else {
      m.grad_copies.push_back({ge, x_args[k], NDArray()});
    }
  }

  pass::MemoryPlanOptions popt;
  popt.match_range = options.match_range;
  popt.num_groups = options.num_groups;
  popt.external = external;
  if (device_list.size() > 1) {
    popt.node_device.resize(g.num_nodes());
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
      popt.node_device[nid] = static_cast<int>(
          std::find(device_list.begin(), device_list.end(), m.devices[nid]) - device_list.begin());
  }
  // Constant steps: their outputs get blocks of their own, and content
  // counters that their readers see as input versions.
  m.content.assign(n_entries, nullptr);
  if (m.optimize) {
    std::vector<bool> is_aux(g.num_nodes(), false);
    for (const Node* v : aux_var)
      if (var_nid(v) >= 0) is_aux[static_cast<size_t>(var_nid(v))] = true;
    m.constant = ConstantNodes(g, is_aux);
    popt.dedicated.assign(n_entries, false);
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
      if (!m.constant[nid] || g.node(nid).is_variable()) continue;
      for (uint32_t o = 0; o < g.node(nid).num_outputs(); ++o) {
        popt.dedicated[g.entry_id(nid, o)] = true;
        m.content[g.entry_id(nid, o)] = std::make_shared<std::atomic<uint64_t>>(0);
      }
    }
  } else {
    m.constant.assign(g.num_nodes(), false);
  }
  m.plan = pass::PlanMemory(g, m.shapes, m.types, popt);

  m.storage.clear();
  for (size_t sid = 0; sid < m.plan.storage_bytes.size(); ++sid)
    m.storage.emplace_back(Shape{static_cast<int64_t>(std::max<size_t>(m.plan.storage_bytes[sid], 1))},
                           device_list.at(static_cast<size_t>(m.plan.storage_device[sid])), DType::kUint8,
                           m.rt);
  m.entries.assign(n_entries, NDArray());
  for (size_t i = 0; i < args_.size(); ++i)
    if (var_nid(arg_var[i]) >= 0) m.entries[g.entry_id(static_cast<uint32_t>(var_nid(arg_var[i])), 0)] = args_[i];
  for (size_t i = 0; i < aux_.size(); ++i)
    if (var_nid(aux_var[i]) >= 0) m.entries[g.entry_id(static_cast<uint32_t>(var_nid(aux_var[i])), 0)] = aux_[i];
  for (size_t i = 0; i < m.head_grad_nid.size(); ++i)
    if (m.head_grad_nid[i] >= 0) {
      const uint32_t nid = static_cast<uint32_t>(m.head_grad_nid[i]);
      const uint32_t e = g.entry_id(nid, 0);
      m.entries[e] = NDArray(m.shapes.shapes[e], m.devices[nid], m.types.dtypes[e], m.rt);
    }
  for (uint32_t e = 0; e < n_entries; ++e) {
    if (direct_arg[e] >= 0) m.entries[e] = grads_[direct_arg[e]];
    const int sid = m.plan.storage_id[e];
    if (sid >= 0) m.entries[e] = m.storage[sid].AsType(m.shapes.shapes[e], m.types.dtypes[e]);
  }
  for (uint32_t e = 0; e < n_entries; ++e)
    if (m.plan.storage_id[e] == pass::MemoryPlan::kExternal && m.plan.alias[e] != e)
      m.entries[e] = m.entries[m.plan.alias[e]];
  for (auto& c : m.grad_copies) {
    const NDArray& src = m.entries[c.entry];
    const NDArray& dst = grads_[c.arg];
    if (reqs_[c.arg] == GradReq::kAdd && src.ctx() != dst.ctx())
      c.staging = NDArray(dst.shape(), dst.ctx(), dst.dtype(), m.rt);
  }

  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable() || m.plan.noop[nid]) continue;
    Impl::Step step;
    step.nid = nid;
    step.name = node.op()->name + ":" + node.attrs.name;
    step.ctx = m.devices[nid];
    const bool cross_type = node.op()->name == kCopyOp &&
                            m.devices[g[nid].inputs.at(0).node_id].dev_type != step.ctx.dev_type;
    if (!cross_type) {
      step.kernel = m.rt->kernels().Find(node.op()->name, step.ctx.dev_type);
      if (!step.kernel)
        Fail(StatusCode::kNotImplemented, "bind: operator ", node.op()->name, " (node '", node.attrs.name,
             "') has no kernel for device ", DeviceTypeName(step.ctx.dev_type));
    }
    std::vector<NDArray> in, out;
    CallVersions versions;
    versions.skip_unchanged = m.constant[nid];
    for (const auto& e : g[nid].inputs) {
      in.push_back(m.entries[g.entry_id(e)]);
      versions.inputs.push_back(m.content[g.entry_id(e)]);
    }
    for (uint32_t o = 0; o < node.num_outputs(); ++o) versions.outputs.push_back(m.content[g.entry_id(nid, o)]);
    for (uint32_t o = 0; o < node.num_outputs(); ++o) {
      const uint32_t e = g.entry_id(nid, o);
      OpReq r = m.plan.unread[e] ? OpReq::kNull : OpReq::kWrite;
      if (direct_arg[e] >= 0 && reqs_[direct_arg[e]] == GradReq::kAdd) r = OpReq::kAdd;
      step.reqs.push_back(r);
      out.push_back(m.entries[e]);
    }
    if (step.kernel)
      step.call = PrepareKernel(m.rt, *step.kernel, node.attrs, step.ctx, in, out, step.reqs, step.name, &versions);
    (nid < m.num_forward_nodes ? m.forward_steps : m.backward_steps).push_back(std::move(step));
  }
  outputs_.clear();
  for (size_t i = 0; i < n_out; ++i) outputs_.push_back(m.entries[g.entry_id(g.outputs()[i])]);

  // Bulk execution: the forward outputs and the gradient arrays are what
  // a caller reads, so segments end where they are produced.
  std::vector<bool> visible(n_entries, false);
  for (const auto& o : g.outputs()) visible[g.entry_id(o)] = true;
  m.bulk_max_nodes = ResolveBulkMaxNodes(options.bulk_max_nodes);
  m.forward_segments = Impl::BulkSegments(m.forward_steps, g, visible, m.bulk_max_nodes);
  m.backward_segments = Impl::BulkSegments(m.backward_steps, g, visible, m.bulk_max_nodes);
}

// Forward and Backward push one engine operation per segment of nodes
// (BulkSegments; each node's kernel call was bound at Init): it reads the
// entries its nodes read from outside it and writes their outputs. Every
// entry planned into one storage block is a view of that block's NDArray,
// so they all share the block's engine variable, and the engine orders
// every use of a block in push order, which is the order the memory plan
// assumed: a node reusing a freed block waits for the last reader of the
// block's previous entry. Bound arrays carry their own variables, so work
// the caller pushed on them before Forward (copies, updates) is ordered
// too, and nothing here waits.
void Executor::Forward(bool is_train) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.call_mu);
  if (is_train && !m.passes.empty())
    Fail(StatusCode::kInvalidArgument, "Forward(is_train=true): the graph was optimised for inference (",
         JoinNames(m.passes), "); bind with optimize_inference=false to run a training-mode forward");
  for (const auto& seg : m.forward_segments) m.Push(seg, is_train);
  m.forward_done = true;
  m.last_is_train = is_train;
}

void Executor::Backward(const std::vector<NDArray>& head_grads) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.call_mu);
  if (!m.has_grads)
    Fail(StatusCode::kInvalidArgument, "Backward: the executor has no gradients (every grad_req is null)");
  if (!m.forward_done) Fail(StatusCode::kInvalidArgument, "Backward: Forward must run first");
  if (!head_grads.empty() && head_grads.size() != outputs_.size())
    Fail(StatusCode::kInvalidArgument, "Backward: expected ", outputs_.size(), " head gradient(s), given ",
         head_grads.size());
  const IndexedGraph& g = *m.idx;
  // Check every head gradient before pushing anything.
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (m.head_grad_nid[i] < 0) continue;
    if (head_grads.empty())
      Fail(StatusCode::kInvalidArgument, "Backward: output '", out_names_[i],
           "' is not a loss, so a head gradient is required (none given)");
    const NDArray& dst = m.entries[g.entry_id(static_cast<uint32_t>(m.head_grad_nid[i]), 0)];
    const NDArray& src = head_grads[i];
    if (src.is_none() || src.shape() != dst.shape() || src.dtype() != dst.dtype())
      Fail(StatusCode::kShape, "Backward: head gradient ", i, " (output '", out_names_[i], "') is ",
           src.is_none() ? std::string("empty") : src.shape().ToString() + " " + DTypeName(src.dtype()),
           ", expected ", dst.shape().ToString(), " ", DTypeName(dst.dtype()));
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (m.head_grad_nid[i] < 0) continue;
    NDArray& dst = m.entries[g.entry_id(static_cast<uint32_t>(m.head_grad_nid[i]), 0)];
    head_grads[i].CopyTo(&dst);
  }
  for (const auto& seg : m.backward_segments) m.Push(seg, m.last_is_train);
  for (const auto& c : m.grad_copies) {
    NDArray& grad = grads_[c.arg];
    if (reqs_[c.arg] == GradReq::kAdd) {
      NDArray src = m.entries[c.entry];
      if (!c.staging.is_none()) {  // from another device: copied here first
        NDArray staging = c.staging;
        src.CopyTo(&staging);
        src = staging;
      }
      std::vector<NDArray> outs{grad};
      Invoke(m.rt, "elemwise_add", {grad, src}, {}, &outs);
    } else {
      m.entries[c.entry].CopyTo(&grad);
    }
  }
}

const Graph& Executor::graph() const { return impl_->graph; }
const std::vector<Context>& Executor::node_devices() const { return impl_->devices; }

ExecutorMemory Executor::memory() const {
  const pass::MemoryPlan& p = impl_->plan;
  ExecutorMemory r;
  r.naive_bytes = p.naive_bytes;
  r.planned_bytes = p.planned_bytes;
  r.num_storage = p.storage_bytes.size();
  r.num_inplace = p.num_inplace;
  r.num_reused = p.num_reused;
  r.match_range = p.match_range;
  return r;
}

std::string Executor::DebugString() const {
  const Impl& m = *impl_;
  const IndexedGraph& g = *m.idx;
  bool several = false;
  for (const Context& c : m.devices) several = several || c != ctx_;
  std::ostringstream os;
  os << "Executor on " << ctx_.ToString() << ": " << g.num_nodes() << " nodes (" << m.num_forward_nodes
     << " forward), " << args_.size() << " arguments, " << aux_.size() << " aux states\n";
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    os << (nid < m.num_forward_nodes ? "  F " : "  B ") << nid << " ";
    if (several) os << "[" << m.devices[nid].ToString() << "] ";
    if (node.is_variable()) {
      os << "Variable:" << node.attrs.name << "\n";
      continue;
    }
    os << "Op:" << node.op()->name << ", Name=" << node.attrs.name << (m.plan.noop[nid] ? " (no-op)" : "")
       << (m.constant[nid] ? " (constant)" : "") << "\n";
    for (const auto& in : g[nid].inputs) os << "      arg[" << g.entry_name(g.entry_id(in)) << "]\n";
    for (uint32_t o = 0; o < node.num_outputs(); ++o) {
      const uint32_t e = g.entry_id(nid, o);
      const int sid = m.plan.storage_id[e];
      os << "      out " << g.entry_name(e) << " " << m.shapes.shapes[e].ToString() << " ";
      if (sid >= 0)
        os << "storage " << sid << (m.plan.inplace[e] ? " (in place)" : "") << (m.plan.unread[e] ? " (unread)" : "");
      else
        os << "in bound array of '" << g.entry_name(m.plan.alias[e]) << "'";
      os << "\n";
    }
  }
  os << "Inference passes: " << (m.optimize ? m.passes.empty() ? "none changed the graph" : JoinNames(m.passes)
                                             : "off") << "\n";
  const ExecutorMemory mem = memory();
  os << "Memory: planned " << mem.planned_bytes << " bytes in " << mem.num_storage << " blocks, naive "
     << mem.naive_bytes << " bytes; " << mem.num_inplace << " in place, " << mem.num_reused
     << " reused; match_range " << mem.match_range << "\n";
  os << "Engine operations: " << m.forward_segments.size() << " forward, " << m.backward_segments.size()
     << " backward (bulk_max_nodes " << m.bulk_max_nodes << ")\n";
  return os.str();
}

}  // namespace weft
