#include "optimizer_op_common.h"

#include <cfloat>
#include <utility>

namespace weft {
namespace op {

ParamDecl Finite(ParamDecl d) { return Ranged(std::move(d), -FLT_MAX, FLT_MAX); }

std::vector<ParamDecl> LrWdRescaleClip() {
  return {
      Finite(RequiredParam("lr", ParamType::kFloat, "Learning rate.")),
      Finite(FloatParam("wd", "0", "Weight decay (L2 penalty coefficient).")),
      Finite(FloatParam("rescale_grad", "1", "Gradient scale: grad = rescale_grad * grad.")),
      Finite(FloatParam(
          "clip_gradient", "-1",
          "Clip the (rescaled) gradient to [-clip_gradient, clip_gradient]; negative disables."))};
}

std::vector<ParamDecl> CommonUpdateParams() {
  std::vector<ParamDecl> p = LrWdRescaleClip();
  p.push_back(BoolParam("lazy_update", "True",
                        "Accepted for MXNet compatibility; dense updates ignore it."));
  return p;
}

ParamDecl MomentumParam() {
  return Ranged(FloatParam("momentum", "0", "Decay rate of the momentum."), 0, FLT_MAX);
}

bool UpdateType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const bool known = ElemwiseType(attrs, in, out);
  const DType t = (*in)[0];
  if (t != DType::kUnknown && t != DType::kFloat32 && t != DType::kFloat64)
    Fail(StatusCode::kDType, "operator ", attrs.op ? attrs.op->name : attrs.name,
         ": weight has dtype ", DTypeName(t), "; expected float32 or float64");
  return known;
}

bool MPUpdateType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  std::vector<DType> wg = {(*in)[0], (*in)[1]};
  const bool known = ElemwiseType(attrs, &wg, out);
  (*in)[0] = wg[0];
  (*in)[1] = wg[1];
  const DType t = (*in)[0];
  if (t != DType::kUnknown && t != DType::kFloat16 && t != DType::kFloat32 && t != DType::kFloat64)
    Fail(StatusCode::kDType, "operator ", attrs.op ? attrs.op->name : attrs.name,
         ": weight has dtype ", DTypeName(t), "; expected float16, float32 or float64");
  const std::vector<std::string> names = attrs.op->InputNames(attrs.params);
  for (size_t i = 2; i < in->size(); ++i)
    AssignType(attrs, in, i, DType::kFloat32, "input '" + names[i] + "'");
  return known && AllKnown(*in);
}

OpDef UpdateOp(const std::string& name, const std::string& doc, std::vector<std::string> inputs,
               std::vector<int> mutated, std::vector<ParamDecl> params) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.params = std::move(params);
  d.num_inputs = static_cast<int>(inputs.size());
  d.input_names = FixedNames(std::move(inputs));
  d.infer_shape = ElemwiseShape;
  d.infer_type = UpdateType;
  d.inplace = InplaceFirst;
  d.mutate_inputs = [mutated](const ParamValues&) { return mutated; };
  return d;
}

}  // namespace op
}  // namespace weft
