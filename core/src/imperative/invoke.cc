#include "weft/imperative.h"

#include "imperative/invoke_float32.h"
#include "weft/autograd.h"
#include "weft/dynamic_shape.h"
#include "weft/engine.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

namespace {

// The device of a call: the inputs' (all equal), else a given output's, else
// a source op's ctx parameter, else cpu(0). Throws naming an empty input or
// one on another device.
Context InvokeContext(const OpDef& op, const NodeAttrs& attrs,
                      const std::vector<std::string>& in_names, const std::vector<NDArray>& inputs,
                      const std::vector<NDArray>& outputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_none())
      Fail(StatusCode::kInvalidArgument, "operator ", op.name, ": input ", i, " ('", in_names[i],
           "') is an empty array");
    if (inputs[i].ctx() != inputs[0].ctx())
      Fail(StatusCode::kDevice, "operator ", op.name, ": input ", i, " ('", in_names[i],
           "') is on ", inputs[i].ctx().ToString(), " but input 0 is on ",
           inputs[0].ctx().ToString());
  }
  if (!inputs.empty()) return inputs[0].ctx();
  for (const auto& o : outputs)
    if (!o.is_none()) return o.ctx();
  if (op.is_source)
    for (const auto& d : op.params)
      if (d.name == "ctx" && !attrs.params.IsNone("ctx")) return attrs.params.GetContext("ctx");
  return Context::CPU(0);
}

// The op named `name`; a tape-only op (autograd's _CachedOp) fails.
const OpDef& InvokableOp(const Runtime& rt, const std::string& name) {
  const OpDef& op = rt.ops().Get(name);
  if (op.tape_only)
    Fail(StatusCode::kInvalidArgument, "operator ", op.name,
         " is a node autograd records (a CachedOp call on the tape); it cannot be invoked");
  return op;
}

// The kernel of `op` on `ctx`'s device; throws naming the device when none.
const Kernel* KernelFor(const Runtime& rt, const OpDef& op, Context ctx) {
  const Kernel* kernel = rt.kernels().Find(op.name, ctx.dev_type);
  if (!kernel)
    Fail(StatusCode::kNotImplemented, "operator ", op.name, " has no kernel for device ",
         DeviceTypeName(ctx.dev_type));
  return kernel;
}

// Throws unless the given output `i` has the shape, dtype and device the
// call infers.
void CheckGivenOutput(const OpDef& op, int i, const NDArray& out, const Shape& given_shape,
                      DType given_type, const Shape& shape, DType type, Context ctx) {
  if (given_shape != shape)
    Fail(StatusCode::kShape, "operator ", op.name, ": output ", i, " has shape ",
         given_shape.ToString(), ", expected ", shape.ToString());
  if (given_type != type)
    Fail(StatusCode::kDType, "operator ", op.name, ": output ", i, " has dtype ",
         DTypeName(given_type), ", expected ", DTypeName(type));
  if (out.ctx() != ctx)
    Fail(StatusCode::kDevice, "operator ", op.name, ": output ", i, " is on ", out.ctx().ToString(),
         ", expected ", ctx.ToString());
}

// The upper-bound output shapes of a dynamic operator's call (outputs
// cannot be given: their shapes depend on the input values).
std::vector<Shape> DynamicBound(const DynamicShapeOp& dynamic, const NodeAttrs& attrs,
                                const std::vector<Shape>& in_shapes,
                                const std::vector<NDArray>& outputs) {
  for (const NDArray& o : outputs)
    if (!o.is_none())
      Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name,
           ": its output shapes depend on the input values, so outputs cannot be given");
  return dynamic.bound(attrs, in_shapes);
}

// Cuts each upper-bound output to the rows the kernel wrote (waits for it);
// no row is an output of zero rows (weft/shape.h).
void TakeWrittenRows(const DynamicShapeOp& dynamic, const NodeAttrs& attrs,
                     std::vector<NDArray>* outputs) {
  const std::vector<int64_t> rows = dynamic.rows(attrs, *outputs);
  for (size_t i = 0; i < outputs->size(); ++i) (*outputs)[i] = (*outputs)[i].Slice(0, rows[i]);
}

// The index of the first input with no elements (a zero extent), or -1.
int FirstEmptyInput(const std::vector<NDArray>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].shape().has_zero_extent()) return static_cast<int>(i);
  return -1;
}

// The output shapes of a call whose input `empty` has no elements, where 0
// is a real extent (OpDef::infer_empty_shape; a pointwise op's outputs take
// the inputs' shape). Throws naming the op and the input when the op takes
// no empty input or the shapes do not fit.
std::vector<Shape> EmptyCallShapes(const OpDef& op, const NodeAttrs& attrs,
                                   const std::vector<std::string>& in_names,
                                   const std::vector<Shape>& in, int empty, int n_out) {
  if (op.infer_empty_shape) {
    std::vector<Shape> out = op.infer_empty_shape(attrs, in);
    WEFT_CHECK(static_cast<int>(out.size()) == n_out)
        << "operator " << op.name << ": infer_empty_shape gave " << out.size() << " shapes for "
        << n_out << " outputs";
    return out;
  }
  if (!op.pointwise)
    Fail(StatusCode::kNotImplemented, "operator ", op.name, ": input ", empty, " ('",
         in_names[empty], "') has shape ", in[empty].ToString(),
         ", no elements, and this operator does not take empty arrays");
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != in[empty])
      Fail(StatusCode::kShape, "operator ", op.name, ": input ", i, " ('", in_names[i],
           "') has shape ", in[i].ToString(), ", expected ", in[empty].ToString(), " as input ",
           empty, " ('", in_names[empty], "')");
  return std::vector<Shape>(static_cast<size_t>(n_out), in[empty]);
}

// The call's output shapes from OpDef::infer_shape, which may fill and check
// `in`; an input without elements (a run's rows of data-dependent count)
// makes 0 a real extent, which infer_shape reads as unknown: EmptyCallShapes.
void InferCallShapes(const OpDef& op, const NodeAttrs& attrs,
                     const std::vector<std::string>& in_names, const std::vector<NDArray>& inputs,
                     std::vector<Shape>* in, std::vector<Shape>* out) {
  const int empty = FirstEmptyInput(inputs);
  if (empty >= 0) {
    *out = EmptyCallShapes(op, attrs, in_names, *in, empty, static_cast<int>(out->size()));
  } else if (!op.infer_shape(attrs, in, out)) {
    Fail(StatusCode::kShape, "operator ", op.name, ": cannot infer output shapes from inputs");
  }
}

// Whether the call has outputs and none has elements: its kernel has
// nothing to write and is not run.
bool AllEmpty(const std::vector<NDArray>& outputs) {
  if (outputs.empty()) return false;
  for (const NDArray& o : outputs)
    if (o.Size() != 0) return false;
  return true;
}

}  // namespace

void Invoke(Runtime* rt, const std::string& op_name, const std::vector<NDArray>& inputs,
            const StringMap& params, std::vector<NDArray>* outputs, const InvokeOptions& opts) {
  WEFT_CHECK(rt) << "operator " << op_name << ": no runtime given";
  const OpDef& op = InvokableOp(*rt, op_name);
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.name = op.name;
  attrs.dict = params;
  attrs.params = ParseParams(op.name, &op.params, params);

  const int n_in = op.NumInputs(attrs.params);
  const int n_out = op.NumOutputs(attrs.params);
  if (static_cast<int>(inputs.size()) != n_in)
    Fail(StatusCode::kInvalidArgument, "operator ", op.name, ": expected ", n_in,
         " input(s), given ", inputs.size());
  if (!outputs->empty() && static_cast<int>(outputs->size()) != n_out)
    Fail(StatusCode::kInvalidArgument, "operator ", op.name, ": expected ", n_out,
         " output(s), given ", outputs->size());
  if (!opts.reqs.empty() && static_cast<int>(opts.reqs.size()) != n_out)
    Fail(StatusCode::kInvalidArgument, "operator ", op.name, ": expected ", n_out,
         " request(s), given ", opts.reqs.size());
  outputs->resize(n_out);

  const std::vector<std::string> in_names = op.InputNames(attrs.params);
  const Context ctx = InvokeContext(op, attrs, in_names, inputs, *outputs);
  const Kernel* kernel = KernelFor(*rt, op, ctx);
  if (NeedsFloat32(*kernel, inputs, *outputs, params)) {
    InvokeInFloat32(rt, op, *kernel, inputs, params, outputs, opts);
    return;
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
  InferCallShapes(op, attrs, in_names, inputs, &in_shapes, &out_shapes);
  if (!op.infer_type(attrs, &in_types, &out_types))
    Fail(StatusCode::kDType, "operator ", op.name, ": cannot infer output dtypes from inputs");
  const DynamicShapeOp* dynamic = FindDynamicShapeOp(op.name);
  if (dynamic) out_shapes = DynamicBound(*dynamic, attrs, in_shapes, *outputs);
  for (int i = 0; i < n_in; ++i) {
    if (in_shapes[i] != inputs[i].shape())
      Fail(StatusCode::kShape, "operator ", op.name, ": input '", in_names[i], "' has shape ",
           inputs[i].shape().ToString(), ", expected ", in_shapes[i].ToString());
    if (in_types[i] != inputs[i].dtype())
      Fail(StatusCode::kDType, "operator ", op.name, ": input '", in_names[i], "' has dtype ",
           DTypeName(inputs[i].dtype()), ", expected ", DTypeName(in_types[i]));
  }

  std::vector<OpReq> reqs(n_out, OpReq::kWrite);
  for (int i = 0; i < n_out; ++i) {
    NDArray& out = (*outputs)[i];
    if (!opts.reqs.empty()) reqs[i] = opts.reqs[i];
    if (out.is_none()) {
      if (reqs[i] == OpReq::kAdd)
        Fail(StatusCode::kInvalidArgument, "operator ", op.name,
             ": req=add needs an existing output ", i);
      out = NDArray(out_shapes[i], ctx, out_types[i], rt);
    } else {
      CheckGivenOutput(op, i, out, given_out[i], given_types[i], out_shapes[i], out_types[i], ctx);
    }
  }
  // A given output that overlaps an input's bytes (an op written into its
  // own input, `transpose(a)` into `a`) would read what it already
  // overwrote: the kernel writes a temporary, copied into the output after,
  // unless OpDef::inplace declares that input/output pair and the two are
  // the same bytes (elementwise ops run in place).
  std::vector<NDArray> run_outputs = *outputs;
  std::vector<std::pair<NDArray, NDArray>> copy_back;  // (temporary, output)
  const std::vector<std::pair<int, int>> inplace =
      op.inplace ? op.inplace(attrs.params) : std::vector<std::pair<int, int>>{};
  for (int i = 0; i < n_out; ++i) {
    const NDArray& out = (*outputs)[i];
    if (reqs[i] == OpReq::kNull || out.Bytes() == 0) continue;
    bool unsafe = false;
    for (int j = 0; j < n_in && !unsafe; ++j) {
      const NDArray& in = inputs[j];
      if (in.chunk() != out.chunk() || in.Bytes() == 0) continue;
      const size_t in_lo = in.byte_offset(), in_hi = in_lo + in.Bytes();
      const size_t out_lo = out.byte_offset(), out_hi = out_lo + out.Bytes();
      if (in_hi <= out_lo || out_hi <= in_lo) continue;  // disjoint bytes of one chunk
      bool declared = false;
      for (const auto& p : inplace) declared |= p.first == j && p.second == i;
      unsafe = !(declared && in_lo == out_lo && in_hi == out_hi);
    }
    if (!unsafe) continue;
    NDArray tmp(out_shapes[i], ctx, out_types[i], rt);
    if (reqs[i] == OpReq::kAdd) out.CopyTo(&tmp);  // accumulate onto the output's current values
    run_outputs[i] = tmp;
    copy_back.emplace_back(tmp, out);
  }
  // Recorded before it runs, so that a refused record (an in-place update
  // of a recorded array) computes nothing.
  if (autograd::IsRecording() && !dynamic) autograd::RecordOp(attrs, inputs, outputs);
  const bool is_train = opts.is_train || autograd::IsTraining();
  if (!AllEmpty(run_outputs))
    PushKernel(rt, *kernel, attrs, ctx, inputs, run_outputs, reqs, is_train, op.name);
  for (auto& tc : copy_back) tc.first.CopyTo(&tc.second);
  if (dynamic) {
    TakeWrittenRows(*dynamic, attrs, outputs);
    if (autograd::IsRecording()) autograd::RecordOp(attrs, inputs, outputs);
  }
}

std::vector<NDArray> Invoke(Runtime* rt, const std::string& op_name,
                            const std::vector<NDArray>& inputs, const StringMap& params) {
  std::vector<NDArray> outputs;
  Invoke(rt, op_name, inputs, params, &outputs);
  return outputs;
}

}  // namespace weft
