#include "weft/imperative.h"

#include "weft/engine.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

namespace {

// Adds `src` into `dst` elementwise with the elemwise_add kernel `add`.
void AccumulateInto(const KernelFn& add, const NodeAttrs& add_attrs, const OpContext& octx, const TBlob& src,
                    const TBlob& dst) {
  add(octx, add_attrs, {dst, src}, {OpReq::kWrite}, {dst});
}

bool Contains(const std::vector<VarHandle>& v, VarHandle x) {
  for (VarHandle y : v)
    if (y == x) return true;
  return false;
}

}  // namespace

void PushKernel(Runtime* rt, const Kernel& kernel, const NodeAttrs& attrs, Context ctx,
                const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                const std::vector<OpReq>& reqs, bool is_train, const std::string& name) {
  if (!rt) rt = &Runtime::Global();
  const std::string op_name = !name.empty() ? name : attrs.op ? attrs.op->name : attrs.name;
  WEFT_CHECK(reqs.size() == outputs.size()) << "PushKernel " << op_name << ": " << reqs.size()
                                            << " requests for " << outputs.size() << " outputs";
  OpContext octx;
  octx.ctx = ctx;
  octx.is_train = is_train;
  std::vector<VarHandle> reads, writes;
  if (attrs.op && attrs.op->uses_rng) {
    octx.rng = rt->rng(ctx);
    writes.push_back(octx.rng->var);
  }
  // Everything the closure touches is captured by value: blobs, requests,
  // and the arrays themselves so their storage outlives the operation.
  struct Call {
    KernelFn fn;
    NodeAttrs attrs;
    OpContext octx;
    std::vector<TBlob> in, out;
    std::vector<OpReq> reqs;
    std::vector<std::pair<TBlob, TBlob>> add_later;  // (temporary, output)
    KernelFn add_fn;
    NodeAttrs add_attrs;
    std::vector<NDArray> keep;
  };
  auto call = std::make_shared<Call>();
  call->fn = kernel.fn;
  call->attrs = attrs;
  call->octx = octx;
  call->reqs = reqs;
  for (const auto& a : inputs) call->in.push_back(a.blob());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NDArray& out = outputs[i];
    WEFT_CHECK(!out.is_none()) << "PushKernel " << op_name << ": output " << i << " is not allocated";
    if (reqs[i] == OpReq::kAdd && !kernel.supports_add) {
      if (!call->add_fn) {
        const OpDef& add = rt->ops().Get("elemwise_add");
        const Kernel* k = rt->kernels().Find(add.name, ctx.dev_type);
        if (!k) Fail(StatusCode::kNotImplemented, "operator ", op_name, ": req=add needs elemwise_add on ", ctx.ToString());
        call->add_fn = k->fn;
        call->add_attrs.op = &add;
        call->add_attrs.name = add.name;
        call->add_attrs.params = ParseParams(add.name, &add.params, {});
      }
      NDArray tmp(out.shape(), ctx, out.dtype(), rt);
      call->keep.push_back(tmp);
      call->out.push_back(tmp.blob());
      call->add_later.emplace_back(tmp.blob(), out.blob());
      call->reqs[i] = OpReq::kWrite;
    } else {
      call->out.push_back(out.blob());
    }
    // A kNull output is declared written too: kernels may still use it
    // (as scratch, or by ignoring the request), and an executor's planned
    // block behind it may be reused by a later node.
    writes.push_back(out.var());
    call->keep.push_back(out);
  }
  // Inputs the op mutates (BatchNorm's moving statistics, assign's lhs)
  // are written, so waits on them see the update.
  if (attrs.op && attrs.op->mutate_inputs) {
    for (int i : attrs.op->mutate_inputs(attrs.params)) {
      WEFT_CHECK(i >= 0 && static_cast<size_t>(i) < inputs.size())
          << "PushKernel " << op_name << ": mutated input " << i << " of " << inputs.size();
      if (!inputs[i].is_none() && !Contains(writes, inputs[i].var())) writes.push_back(inputs[i].var());
    }
  }
  for (const auto& a : inputs) {
    if (!Contains(writes, a.var()) && !Contains(reads, a.var())) reads.push_back(a.var());
    call->keep.push_back(a);
  }
  Engine::Get()->PushSync(
      [call](RunContext rc) {
        OpContext o = call->octx;
        o.stream = rc.stream;
        call->fn(o, call->attrs, call->in, call->reqs, call->out);
        for (const auto& p : call->add_later) AccumulateInto(call->add_fn, call->add_attrs, o, p.first, p.second);
      },
      ctx, reads, writes, 0, op_name);
}

void Invoke(Runtime* rt, const std::string& op_name, const std::vector<NDArray>& inputs,
            const StringMap& params, std::vector<NDArray>* outputs, const InvokeOptions& opts) {
  if (!rt) rt = &Runtime::Global();
  const OpDef& op = rt->ops().Get(op_name);
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.name = op.name;
  attrs.dict = params;
  attrs.params = ParseParams(op.name, &op.params, params);

  const int n_in = op.NumInputs(attrs.params);
  const int n_out = op.NumOutputs(attrs.params);
  if (static_cast<int>(inputs.size()) != n_in)
    Fail(StatusCode::kInvalidArgument, "operator ", op.name, ": expected ", n_in, " input(s), given ",
         inputs.size());
  if (!outputs->empty() && static_cast<int>(outputs->size()) != n_out)
    Fail(StatusCode::kInvalidArgument, "operator ", op.name, ": expected ", n_out, " output(s), given ",
         outputs->size());
  if (!opts.reqs.empty() && static_cast<int>(opts.reqs.size()) != n_out)
    Fail(StatusCode::kInvalidArgument, "operator ", op.name, ": expected ", n_out, " request(s), given ",
         opts.reqs.size());
  outputs->resize(n_out);

  // Context: the inputs' (all equal), else the ctx parameter, else cpu(0).
  Context ctx = Context::CPU(0);
  bool have_ctx = false;
  std::vector<std::string> in_names = op.InputNames(attrs.params);
  for (int i = 0; i < n_in; ++i) {
    if (inputs[i].is_none())
      Fail(StatusCode::kInvalidArgument, "operator ", op.name, ": input ", i, " ('", in_names[i],
           "') is an empty array");
    if (!have_ctx) {
      ctx = inputs[i].ctx();
      have_ctx = true;
    } else if (inputs[i].ctx() != ctx) {
      Fail(StatusCode::kDevice, "operator ", op.name, ": input ", i, " ('", in_names[i], "') is on ",
           inputs[i].ctx().ToString(), " but input 0 is on ", ctx.ToString());
    }
  }
  if (!have_ctx) {
    for (const auto& o : *outputs)
      if (!o.is_none()) {
        ctx = o.ctx();
        have_ctx = true;
        break;
      }
  }
  if (!have_ctx && op.is_source) {
    for (const auto& d : op.params)
      if (d.name == "ctx" && !attrs.params.IsNone("ctx")) ctx = attrs.params.GetContext("ctx");
  }

  std::vector<Shape> in_shapes(n_in), out_shapes(n_out);
  std::vector<DType> in_types(n_in), out_types(n_out, DType::kUnknown);
  for (int i = 0; i < n_in; ++i) {
    in_shapes[i] = inputs[i].shape();
    in_types[i] = inputs[i].dtype();
  }
  for (int i = 0; i < n_out; ++i) {
    if (!(*outputs)[i].is_none()) {
      out_shapes[i] = (*outputs)[i].shape();
      out_types[i] = (*outputs)[i].dtype();
    }
  }
  std::vector<Shape> given_out = out_shapes;
  std::vector<DType> given_types = out_types;
  if (!op.infer_shape(attrs, &in_shapes, &out_shapes))
    Fail(StatusCode::kShape, "operator ", op.name, ": cannot infer output shapes from inputs");
  if (!op.infer_type(attrs, &in_types, &out_types))
    Fail(StatusCode::kDType, "operator ", op.name, ": cannot infer output dtypes from inputs");
  for (int i = 0; i < n_in; ++i) {
    if (in_shapes[i] != inputs[i].shape())
      Fail(StatusCode::kShape, "operator ", op.name, ": input '", in_names[i], "' has shape ",
           inputs[i].shape().ToString(), ", expected ", in_shapes[i].ToString());
    if (in_types[i] != inputs[i].dtype())
      Fail(StatusCode::kDType, "operator ", op.name, ": input '", in_names[i], "' has dtype ",
           DTypeName(inputs[i].dtype()), ", expected ", DTypeName(in_types[i]));
  }

  const Kernel* kernel = rt->kernels().Find(op.name, ctx.dev_type);
  if (!kernel)
    Fail(StatusCode::kNotImplemented, "operator ", op.name, " has no kernel for device ",
         DeviceTypeName(ctx.dev_type));

  std::vector<OpReq> reqs(n_out, OpReq::kWrite);
  for (int i = 0; i < n_out; ++i) {
    NDArray& out = (*outputs)[i];
    if (!opts.reqs.empty()) reqs[i] = opts.reqs[i];
    if (out.is_none()) {
      if (reqs[i] == OpReq::kAdd)
        Fail(StatusCode::kInvalidArgument, "operator ", op.name, ": req=add needs an existing output ", i);
      out = NDArray(out_shapes[i], ctx, out_types[i], rt);
    } else {
      if (given_out[i] != out_shapes[i])
        Fail(StatusCode::kShape, "operator ", op.name, ": output ", i, " has shape ",
             given_out[i].ToString(), ", expected ", out_shapes[i].ToString());
      if (given_types[i] != out_types[i])
        Fail(StatusCode::kDType, "operator ", op.name, ": output ", i, " has dtype ",
             DTypeName(given_types[i]), ", expected ", DTypeName(out_types[i]));
      if (out.ctx() != ctx)
        Fail(StatusCode::kDevice, "operator ", op.name, ": output ", i, " is on ", out.ctx().ToString(),
             ", expected ", ctx.ToString());
    }
  }
  PushKernel(rt, *kernel, attrs, ctx, inputs, *outputs, reqs, opts.is_train, op.name);
}

std::vector<NDArray> Invoke(const std::string& op_name, const std::vector<NDArray>& inputs,
                            const StringMap& params) {
  std::vector<NDArray> outputs;
  Invoke(nullptr, op_name, inputs, params, &outputs);
  return outputs;
}

}  // namespace weft
