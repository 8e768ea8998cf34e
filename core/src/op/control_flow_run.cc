// The CPU kernels of _foreach, _while_loop and _cond (weft/control_flow.h):
// each runs its node's nested graphs with NestedGraphRunner, as MXNet's
// ForeachComputeExCPU, WhileLoopComputeExCPU and CondComputeExCPU do with
// CachedOps.
#include "weft/control_flow.h"

#include <cstring>

#include "op/control_flow.h"
#include "op/nested_graph_runner.h"
#include "weft/status.h"

namespace weft {
namespace op {

namespace {

// One bound call's runners, one per nested graph (kept in OpContext::state).
struct Runners {
  std::vector<std::unique_ptr<NestedGraphRunner>> graphs;
};

Runners& GetRunners(const OpContext& ctx, const NodeAttrs& attrs, const OpRegistry& ops,
                    const KernelRegistry& kernels, std::shared_ptr<void>* local) {
  std::shared_ptr<void>* slot = ctx.state ? ctx.state : local;
  if (!*slot) {
    auto r = std::make_shared<Runners>();
    for (size_t k = 0; k < attrs.subgraphs.size(); ++k)
      r->graphs.push_back(std::make_unique<NestedGraphRunner>(
          ops, kernels, *attrs.subgraphs[k], StrCat(ControlFlowLabel(attrs), " subgraph ", k)));
    *slot = r;
  }
  return *static_cast<Runners*>(slot->get());
}

// Row `i` of `b` along axis 0 ((1,) for a 1-D array, as MXNet slices).
TBlob Row(const TBlob& b, int64_t i) {
  TBlob r = b;
  const int64_t rows = b.shape[0];
  const size_t row_bytes = rows > 0 ? b.Bytes() / static_cast<size_t>(rows) : 0;
  r.dptr = static_cast<char*>(b.dptr) + static_cast<size_t>(i) * row_bytes;
  r.shape = b.shape.ndim() == 1
                ? Shape{1}
                : Shape(std::vector<int64_t>(b.shape.dims().begin() + 1, b.shape.dims().end()));
  return r;
}

// Host arrays of the shapes and dtypes of `like`, two sets (the loop's
// values ping-pong between them so that a step never overwrites what it
// reads).
struct LoopBuffers {
  std::vector<std::vector<char>> data[2];
  TBlob At(int set, size_t j, const TBlob& like) {
    std::vector<char>& v = data[set][j];
    v.resize(like.Bytes());
    TBlob b = like;
    b.dptr = v.data();
    return b;
  }
  explicit LoopBuffers(size_t n) {
    data[0].resize(n);
    data[1].resize(n);
  }
};

void Copy(const TBlob& from, const TBlob& to) {
  if (from.dptr != to.dptr && to.Bytes() > 0) std::memcpy(to.dptr, from.dptr, to.Bytes());
}

// The condition's one element as a truth value (MXNet's as_bool_scalar).
bool Truth(const NodeAttrs& attrs, const TBlob& b) {
  if (b.Size() != 1)
    Fail(StatusCode::kInvalidArgument, ControlFlowLabel(attrs), ": its condition has shape ",
         b.shape.ToString(), ", expected one element");
  return DispatchDType(b.dtype, [&](auto t) {
    using T = decltype(t);
    return ToDouble(*b.data<T>()) != 0.0;
  });
}

void Foreach(const OpContext& ctx, const NodeAttrs& attrs, Runners& r, const std::vector<TBlob>& in,
             const std::vector<TBlob>& out) {
  const auto& p = attrs.params.Decoded<ControlFlowParams>();
  const size_t nd = p.in_data_locs.size(), ns = p.in_state_locs.size();
  const size_t nod = static_cast<size_t>(p.num_out_data);
  const int64_t len = in[0].shape[0];
  for (size_t i = 1; i < nd; ++i)
    if (in[i].shape[0] != len)
      Fail(StatusCode::kShape, ControlFlowLabel(attrs), ": data input ", i, " has ", in[i].shape[0],
           " rows, data input 0 has ", len);
  std::vector<TBlob> sub(in.size()), sub_out(out.size());
  for (size_t j = 0; j < p.remain_locs.size(); ++j) sub[p.remain_locs[j]] = in[nd + ns + j];
  std::vector<TBlob> states(in.begin() + nd, in.begin() + nd + ns);
  LoopBuffers buf(ns);
  for (int64_t i = 0; i < len; ++i) {
    for (size_t j = 0; j < nd; ++j) sub[p.in_data_locs[j]] = Row(in[j], i);
    for (size_t j = 0; j < ns; ++j) sub[p.in_state_locs[j]] = states[j];
    for (size_t k = 0; k < nod; ++k) sub_out[k] = Row(out[k], i);
    for (size_t j = 0; j < ns; ++j) sub_out[nod + j] = buf.At(i % 2, j, out[nod + j]);
    r.graphs[0]->RunInto(ctx, sub, sub_out);
    for (size_t j = 0; j < ns; ++j) states[j] = sub_out[nod + j];
  }
  for (size_t j = 0; j < ns; ++j) Copy(states[j], out[nod + j]);
}

void WhileLoop(const OpContext& ctx, const NodeAttrs& attrs, Runners& r,
               const std::vector<TBlob>& in, const std::vector<TBlob>& out) {
  const auto& p = attrs.params.Decoded<ControlFlowParams>();
  const size_t nod = static_cast<size_t>(p.num_out_data), nv = p.func_var_locs.size();
  std::vector<TBlob> cond_in, func_in;
  for (int64_t l : p.cond_input_locs) cond_in.push_back(in[l]);
  for (int64_t l : p.func_input_locs) func_in.push_back(in[l]);
  // Where loop variable j sits among cond's inputs (-1: cond does not read it).
  std::vector<int> in_cond(nv, -1);
  for (size_t j = 0; j < nv; ++j)
    for (size_t k = 0; k < p.cond_input_locs.size(); ++k)
      if (p.cond_input_locs[k] == p.func_input_locs[p.func_var_locs[j]])
        in_cond[j] = static_cast<int>(k);
  LoopBuffers buf(nv);
  std::vector<TBlob> func_out(out.size());
  int64_t step = 0;
  for (; step < p.max_iterations; ++step) {
    if (!Truth(attrs, r.graphs[0]->Run(ctx, cond_in)[0])) break;
    for (size_t k = 0; k < nod; ++k) func_out[k] = Row(out[k], step);
    for (size_t j = 0; j < nv; ++j) func_out[nod + j] = buf.At(step % 2, j, out[nod + j]);
    r.graphs[1]->RunInto(ctx, func_in, func_out);
    for (size_t j = 0; j < nv; ++j) {
      func_in[p.func_var_locs[j]] = func_out[nod + j];
      if (in_cond[j] >= 0) cond_in[in_cond[j]] = func_out[nod + j];
    }
  }
  // The steps not taken: zeros (MXNet leaves them unset).
  for (size_t k = 0; k < nod; ++k)
    for (int64_t i = step; i < p.max_iterations; ++i) {
      const TBlob row = Row(out[k], i);
      if (row.Bytes() > 0) std::memset(row.dptr, 0, row.Bytes());
    }
  for (size_t j = 0; j < nv; ++j) Copy(func_in[p.func_var_locs[j]], out[nod + j]);
}

void Cond(const OpContext& ctx, const NodeAttrs& attrs, Runners& r, const std::vector<TBlob>& in,
          const std::vector<TBlob>& out) {
  const auto& p = attrs.params.Decoded<ControlFlowParams>();
  std::vector<TBlob> cond_in, branch_in;
  for (int64_t l : p.cond_input_locs) cond_in.push_back(in[l]);
  const bool then = Truth(attrs, r.graphs[0]->Run(ctx, cond_in)[0]);
  for (int64_t l : then ? p.then_input_locs : p.else_input_locs) branch_in.push_back(in[l]);
  r.graphs[then ? 1 : 2]->RunInto(ctx, branch_in, out);
}

}  // namespace

}  // namespace op

KernelFn ControlFlowKernel(const std::string& op_name, const OpRegistry& ops,
                           const KernelRegistry& kernels) {
  using Body = void (*)(const OpContext&, const NodeAttrs&, op::Runners&, const std::vector<TBlob>&,
                        const std::vector<TBlob>&);
  Body body = op_name == "_foreach"      ? op::Foreach
              : op_name == "_while_loop" ? op::WhileLoop
              : op_name == "_cond"       ? op::Cond
                                         : nullptr;
  WEFT_CHECK(body) << "ControlFlowKernel: " << op_name << " is no control-flow operator";
  const OpRegistry* o = &ops;
  const KernelRegistry* k = &kernels;
  return [body, o, k](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>&, const std::vector<TBlob>& out) {
    if (ctx.ctx.dev_type != DeviceType::kCPU)
      Fail(StatusCode::kNotImplemented, op::ControlFlowLabel(attrs), " runs on the CPU only");
    std::shared_ptr<void> local;
    body(ctx, attrs, op::GetRunners(ctx, attrs, *o, *k, &local), in, out);
  };
}

}  // namespace weft
