// Invoke's float32 fallback: a call meeting a float16/bfloat16 dtype its
// kernel does not compute runs on float32 copies of its reduced-float
// inputs, and its outputs are Cast back (the imperative counterpart of
// pass::RunInFloat32). The Casts and the call are ordinary Invokes, so
// autograd records them and gradients flow through the Casts.
#include "imperative/invoke_float32.h"

#include "weft/status.h"

namespace weft {

namespace {

// The reduced float named by a `dtype` parameter, or kUnknown.
DType ReducedParam(const StringMap& params) {
  auto it = params.find("dtype");
  if (it == params.end()) return DType::kUnknown;
  try {
    const DType t = ParseDType(it->second);
    return IsReducedFloat(t) ? t : DType::kUnknown;
  } catch (const Error&) {
    return DType::kUnknown;  // the op's own parsing reports it
  }
}

// The output dtypes `op` infers from the call's own dtypes (a BatchNorm on
// float16 data keeps float32 statistics and parameter gradients); kUnknown
// where it does not say, or refuses (the float32 run reports that).
std::vector<DType> InferredOutputTypes(const OpDef& op, const StringMap& params,
                                       const std::vector<NDArray>& inputs) {
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.name = op.name;
  attrs.dict = params;
  std::vector<DType> in, out;
  try {
    attrs.params = ParseParams(op.name, &op.params, params);
    for (const auto& a : inputs) in.push_back(a.dtype());
    out.assign(static_cast<size_t>(op.NumOutputs(attrs.params)), DType::kUnknown);
    op.infer_type(attrs, &in, &out);
  } catch (const Error&) {
    out.assign(out.size(), DType::kUnknown);
  }
  return out;
}

}  // namespace

bool NeedsFloat32(const Kernel& kernel, const std::vector<NDArray>& inputs,
                  const std::vector<NDArray>& outputs, const StringMap& params) {
  for (const auto& a : inputs)
    if (!kernel.Computes(a.dtype())) return true;
  for (const auto& a : outputs)
    if (!a.is_none() && !kernel.Computes(a.dtype())) return true;
  const DType p = ReducedParam(params);
  return p != DType::kUnknown && !kernel.Computes(p);
}

void InvokeInFloat32(Runtime* rt, const OpDef& op, const Kernel& kernel,
                     const std::vector<NDArray>& inputs, const StringMap& params,
                     std::vector<NDArray>* outputs, const InvokeOptions& opts) {
  // An input the op updates in place cannot be a float32 copy.
  if (op.mutate_inputs) {
    const std::vector<int> mutated = op.mutate_inputs(ParseParams(op.name, &op.params, params));
    for (int i : mutated)
      if (i >= 0 && static_cast<size_t>(i) < inputs.size() && !kernel.Computes(inputs[i].dtype()))
        Fail(StatusCode::kDType, "operator ", op.name, ": input ", i, " is ",
             DTypeName(inputs[i].dtype()), " and updated in place, but the operator has no ",
             DTypeName(inputs[i].dtype()), " kernel (expected float32 or float64 there)");
  }
  DType reduced = ReducedParam(params);
  std::vector<NDArray> in32;
  for (const auto& a : inputs) {
    if (kernel.Computes(a.dtype())) {
      in32.push_back(a);
      continue;
    }
    reduced = a.dtype();
    in32.push_back(Invoke(rt, "Cast", {a}, {{"dtype", "float32"}})[0]);
  }
  for (const auto& a : *outputs)
    if (reduced == DType::kUnknown && !a.is_none() && IsReducedFloat(a.dtype()))
      reduced = a.dtype();
  StringMap params32 = params;
  if (ReducedParam(params) != DType::kUnknown) params32["dtype"] = "float32";
  InvokeOptions opts32;
  opts32.is_train = opts.is_train;
  std::vector<NDArray> out32;
  Invoke(rt, op.name, in32, params32, &out32, opts32);
  const std::vector<DType> inferred = InferredOutputTypes(op, params, inputs);
  outputs->resize(out32.size());
  for (size_t i = 0; i < out32.size(); ++i) {
    NDArray& dst = (*outputs)[i];
    const OpReq req = opts.reqs.empty() ? OpReq::kWrite : opts.reqs[i];
    const DType got = out32[i].dtype();
    const DType guess = i < inferred.size() ? inferred[i] : DType::kUnknown;
    const DType want = !dst.is_none()                                         ? dst.dtype()
                       : guess != DType::kUnknown                             ? guess
                       : got == DType::kFloat32 && reduced != DType::kUnknown ? reduced
                                                                              : got;
    if (dst.is_none() && want == got) {
      dst = out32[i];
      continue;
    }
    if (req == OpReq::kNull) continue;
    std::vector<NDArray> cast_out = {dst};
    InvokeOptions cast_opts;
    cast_opts.reqs = {req};
    Invoke(rt, "Cast", {out32[i]}, {{"dtype", DTypeName(want)}}, &cast_out, cast_opts);
    dst = cast_out[0];
  }
}

}  // namespace weft
