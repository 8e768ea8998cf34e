// Optimizer update operators with MXNet's names, parameters and formulas
// (src/operator/optimizer_op-inl.h), for dense float32/float64 arrays:
//
//   sgd_update(weight, grad; lr, wd=0, rescale_grad=1, clip_gradient=-1):
//     g = clip(rescale_grad * grad)       (clip to [-c, c] when c >= 0)
//     weight = (1 - lr * wd) * weight - lr * g
//   sgd_mom_update(weight, grad, mom; + momentum=0):
//     mom = momentum * mom - lr * wd * weight - lr * g;  weight += mom
//   adam_update(weight, grad, mean, var; lr, beta1=0.9, beta2=0.999,
//               epsilon=1e-8, wd=0, rescale_grad=1, clip_gradient=-1):
//     g = clip(rescale_grad * grad + wd * weight)
//     mean = beta1 * mean + (1 - beta1) * g
//     var = beta2 * var + (1 - beta2) * g^2
//     weight -= lr * mean / (sqrt(var) + epsilon)
//
// The output is the new weight; callers pass the weight itself as the
// output (in place, inplace pair (0, 0)). The states mom/mean/var are
// mutated inputs (OpDef::mutate_inputs), which Invoke/PushKernel push as
// engine writes. Adam's bias correction is not here: as in MXNet the
// Optimizer scales lr. `lazy_update` is accepted and ignored (dense only).
// Not differentiable.
#include <cfloat>

#include "op_common.h"

namespace weft {
namespace op {

namespace {

// Restricts a float parameter to the finite floats (which also rejects NaN).
ParamDecl Finite(ParamDecl d) { return Ranged(std::move(d), -FLT_MAX, FLT_MAX); }

std::vector<ParamDecl> CommonParams() {
  return {
      Finite(RequiredParam("lr", ParamType::kFloat, "Learning rate.")),
      Finite(FloatParam("wd", "0", "Weight decay (L2 penalty coefficient).")),
      Finite(FloatParam("rescale_grad", "1", "Gradient scale: grad = rescale_grad * grad.")),
      Finite(FloatParam(
          "clip_gradient", "-1",
          "Clip the (rescaled) gradient to [-clip_gradient, clip_gradient]; negative disables.")),
      BoolParam("lazy_update", "True",
                "Accepted for MXNet compatibility; dense updates ignore it.")};
}

// Elementwise dtypes, restricted to float32/float64.
bool UpdateType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const bool known = ElemwiseType(attrs, in, out);
  const DType t = (*in)[0];
  if (t != DType::kUnknown && t != DType::kFloat32 && t != DType::kFloat64)
    Fail(StatusCode::kDType, "operator ", attrs.op ? attrs.op->name : attrs.name,
         ": weight has dtype ", DTypeName(t), "; expected float32 or float64");
  return known;
}

OpDef UpdateOp(const std::string& name, const std::string& doc, std::vector<std::string> inputs,
               std::vector<int> mutated) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.params = CommonParams();
  d.num_inputs = static_cast<int>(inputs.size());
  d.input_names = FixedNames(std::move(inputs));
  d.infer_shape = ElemwiseShape;
  d.infer_type = UpdateType;
  d.inplace = InplaceFirst;
  d.mutate_inputs = [mutated](const ParamValues&) { return mutated; };
  return d;
}

}  // namespace

void RegisterOptimizerOps(OpRegistry* reg) {
  reg->Add(UpdateOp(
      "sgd_update",
      "SGD step: weight = (1 - lr*wd)*weight - lr*clip(rescale_grad*grad). Output: the new weight.",
      {"weight", "grad"}, {}));
  OpDef mom =
      UpdateOp("sgd_mom_update",
               "SGD with momentum: mom = momentum*mom - lr*wd*weight - lr*clip(rescale_grad*grad); "
               "weight += mom. Mutates mom; output: the new weight.",
               {"weight", "grad", "mom"}, {2});
  mom.params.push_back(Ranged(FloatParam("momentum", "0", "Decay rate of the momentum."), 0, 1));
  reg->Add(std::move(mom));
  OpDef adam = UpdateOp(
      "adam_update",
      "Adam step (no bias correction): g = clip(rescale_grad*grad + wd*weight); "
      "mean = beta1*mean + (1-beta1)*g; var = beta2*var + (1-beta2)*g^2; "
      "weight -= lr*mean/(sqrt(var) + epsilon). Mutates mean and var; output: the new weight.",
      {"weight", "grad", "mean", "var"}, {2, 3});
  adam.params.push_back(
      Ranged(FloatParam("beta1", "0.9", "Decay rate of the first moment."), 0, 1));
  adam.params.push_back(
      Ranged(FloatParam("beta2", "0.999", "Decay rate of the second moment."), 0, 1));
  adam.params.push_back(
      Ranged(FloatParam("epsilon", "1e-08", "Added to sqrt(var) for stability."), 0, FLT_MAX));
  reg->Add(std::move(adam));
}

}  // namespace op
}  // namespace weft
