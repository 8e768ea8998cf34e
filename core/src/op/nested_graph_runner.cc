// See nested_graph_runner.h.
#include "op/nested_graph_runner.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "weft/pass.h"
#include "weft/status.h"

namespace weft {
namespace op {

namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<void, FreeDeleter>;

Buffer Allocate(size_t bytes) {
  if (bytes == 0) return Buffer();
  const size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p)
    Fail(StatusCode::kOutOfMemory, "cannot allocate ", bytes, " bytes for a nested graph's array");
  return Buffer(p);
}

std::string NodeText(const Node& n) {
  return StrCat("node '", n.attrs.name, "' (", n.op() ? n.op()->name : std::string("variable"),
                ")");
}

}  // namespace

struct NestedGraphRunner::Plan {
  std::vector<Shape> in_shapes;
  std::vector<DType> in_types;
  std::vector<TBlob> entries;  // per entry: its array (variables: the inputs')
  std::vector<Buffer> buffers;
  std::vector<const Kernel*> kernels;  // per node; null for variables
  std::vector<std::shared_ptr<void>> states;
  std::vector<uint64_t> versions;  // input versions handed to every kernel
};

NestedGraphRunner::NestedGraphRunner(const OpRegistry& ops, const KernelRegistry& kernels,
                                     const Graph& graph, std::string label)
    : kernels_(kernels), label_(std::move(label)) {
  g_ = std::make_unique<IndexedGraph>(pass::ExpandSubgraphs(ops, graph).graph);
  const IndexedGraph& g = *g_;
  // What no plan changes: every node has a CPU kernel and draws nothing random.
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    if (n.is_variable()) continue;
    if (n.op()->uses_rng)
      Fail(StatusCode::kNotImplemented, label_, ": ", NodeText(n),
           " draws random numbers, which a control-flow subgraph cannot do");
    if (!kernels_.Find(n.op()->name, DeviceType::kCPU))
      Fail(StatusCode::kNotImplemented, label_, ": ", NodeText(n), " has no CPU kernel");
  }
}

NestedGraphRunner::~NestedGraphRunner() = default;

void NestedGraphRunner::MakePlan(const std::vector<TBlob>& in) {
  const IndexedGraph& g = *g_;
  const auto& vars = g.input_nodes();
  if (in.size() != vars.size())
    Fail(StatusCode::kInvalidArgument, label_, ": given ", in.size(), " inputs for ", vars.size(),
         " variables");
  auto plan = std::make_unique<Plan>();
  pass::ShapeMap shapes;
  pass::DTypeMap types;
  for (size_t i = 0; i < in.size(); ++i) {
    plan->in_shapes.push_back(in[i].shape);
    plan->in_types.push_back(in[i].dtype);
    shapes[g.node(vars[i]).attrs.name] = in[i].shape;
    types[g.node(vars[i]).attrs.name] = in[i].dtype;
  }
  pass::ShapeResult s;
  pass::TypeResult t;
  try {
    s = pass::InferShape(g, shapes);
    t = pass::InferType(g, types);
  } catch (const Error& e) {
    Fail(e.code(), label_, ": ", e.what());
  }
  if (!s.complete())
    Fail(StatusCode::kShape, label_, ": cannot infer the shape of '", s.unknown_names[0], "'");
  if (!t.complete())
    Fail(StatusCode::kDType, label_, ": cannot infer the dtype of '", t.unknown_names[0], "'");
  plan->entries.resize(g.num_node_entries());
  plan->buffers.resize(g.num_node_entries());
  plan->kernels.assign(g.num_nodes(), nullptr);
  plan->states.resize(g.num_nodes());
  size_t max_inputs = 0;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    if (n.is_variable()) continue;
    const Kernel* k = kernels_.Find(n.op()->name, DeviceType::kCPU);
    plan->kernels[nid] = k;
    max_inputs = std::max(max_inputs, g[nid].inputs.size());
    for (uint32_t o = 0; o < n.num_outputs(); ++o) {
      const uint32_t eid = g.entry_id(nid, o);
      TBlob& b = plan->entries[eid];
      b.shape = s.shapes[eid];
      b.dtype = t.dtypes[eid];
      b.ctx = Context::CPU();
      if (!k->Computes(b.dtype))
        Fail(StatusCode::kNotImplemented, label_, ": ", NodeText(n), " has no CPU kernel for ",
             DTypeName(b.dtype));
      plan->buffers[eid] = Allocate(b.Bytes());
      b.dptr = plan->buffers[eid].get();
    }
  }
  plan->versions.assign(max_inputs, 0);
  plan_ = std::move(plan);
}

const std::vector<TBlob>& NestedGraphRunner::Run(const OpContext& ctx,
                                                 const std::vector<TBlob>& in) {
  bool same = plan_ && plan_->in_shapes.size() == in.size();
  for (size_t i = 0; same && i < in.size(); ++i)
    same = plan_->in_shapes[i] == in[i].shape && plan_->in_types[i] == in[i].dtype;
  if (!same) MakePlan(in);
  Plan& p = *plan_;
  const IndexedGraph& g = *g_;
  const auto& vars = g.input_nodes();
  for (size_t i = 0; i < vars.size(); ++i) p.entries[g.entry_id(vars[i], 0)] = in[i];
  // Every input counts as rewritten since the last run.
  ++runs_;
  std::fill(p.versions.begin(), p.versions.end(), runs_);
  std::vector<TBlob> args, outs;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    if (n.is_variable()) continue;
    args.clear();
    outs.clear();
    for (const auto& e : g[nid].inputs) args.push_back(p.entries[g.entry_id(e)]);
    for (uint32_t o = 0; o < n.num_outputs(); ++o) outs.push_back(p.entries[g.entry_id(nid, o)]);
    OpContext o = ctx;
    o.rng = nullptr;
    o.state = &p.states[nid];
    o.input_versions = p.versions.data();
    try {
      p.kernels[nid]->fn(o, n.attrs, args, std::vector<OpReq>(outs.size(), OpReq::kWrite), outs);
    } catch (const Error& e) {
      Fail(e.code(), label_, ": ", NodeText(n), ": ", e.what());
    }
  }
  heads_.clear();
  for (const auto& e : g.outputs()) heads_.push_back(p.entries[g.entry_id(e)]);
  return heads_;
}

void NestedGraphRunner::RunInto(const OpContext& ctx, const std::vector<TBlob>& in,
                                const std::vector<TBlob>& out) {
  const std::vector<TBlob>& heads = Run(ctx, in);
  WEFT_CHECK(heads.size() == out.size())
      << label_ << ": " << heads.size() << " heads for " << out.size() << " outputs";
  for (size_t k = 0; k < out.size(); ++k) {
    if (heads[k].shape != out[k].shape)
      Fail(StatusCode::kShape, label_, ": output ", k, " has shape ", heads[k].shape.ToString(),
           ", expected ", out[k].shape.ToString());
    if (heads[k].dtype != out[k].dtype)
      Fail(StatusCode::kDType, label_, ": output ", k, " is ", DTypeName(heads[k].dtype),
           ", expected ", DTypeName(out[k].dtype));
    if (heads[k].dptr != out[k].dptr && out[k].Bytes() > 0)
      std::memcpy(out[k].dptr, heads[k].dptr, out[k].Bytes());
  }
}

}  // namespace op
}  // namespace weft
