// AdamW's and LAMB's update operators with MXNet 1.9.1's names, parameters
// and formulas (src/operator/contrib/adamw-inl.h, optimizer_op-inl.h):
//
//   _adamw_update (alias adamw_update)(weight, grad, mean, var, rescale_grad;
//                  lr, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0, eta,
//                  clip_gradient=-1):
//     rescale_grad is a one-element float32 array read when the kernel runs;
//     when it is NaN, infinite or 0 nothing is written (MXNet skips the step).
//     g = clip(rescale_grad * grad)
//     mean = beta1 * mean + (1 - beta1) * g
//     var = beta2 * var + (1 - beta2) * g^2
//     weight -= eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight)
//   lamb_update_phase1(weight, grad, mean, var; beta1=0.9, beta2=0.999,
//                      epsilon=1e-6, t, bias_correction=True, wd,
//                      rescale_grad=1, clip_gradient=-1) -> g:
//     gr = clip(rescale_grad * grad)
//     mean = beta1 * mean + (1 - beta1) * gr
//     var = beta2 * var + (1 - beta2) * gr^2
//     with bias_correction: mean /= 1 - beta1^t, var /= 1 - beta2^t (for g only)
//     g = mean / (sqrt(var) + epsilon) + wd * weight
//   lamb_update_phase2(weight, g, r1, r2; lr, lower_bound=-1,
//                      upper_bound=-1):
//     r1 (the weight's norm, shape (1,)) is raised to lower_bound and cut to
//     upper_bound when those are >= 0; ratio = r1 / r2, or 1 when r1 or r2
//     (g's norm) is 0; weight -= lr * ratio * g
//
// _adamw_update and lamb_update_phase2 write the weight in place (inplace
// (0, 0)); phase 1 returns g as a new array. The moments are mutated inputs.
// float32/float64; CPU kernels only (kernels/cpu/optimizer_adamw_lamb_ops.cc).
// Not differentiable.
#include <algorithm>

#include "optimizer_op_common.h"

namespace weft {
namespace op {

namespace {

ParamDecl FiniteFloat(const std::string& name, const std::string& def, const std::string& doc) {
  return Finite(FloatParam(name, def, doc));
}

std::vector<ParamDecl> Betas(const std::string& epsilon) {
  return {FiniteFloat("beta1", "0.9", "Decay rate of the first moment."),
          FiniteFloat("beta2", "0.999", "Decay rate of the second moment."),
          FiniteFloat("epsilon", epsilon, "Added to sqrt(var) for stability.")};
}

// The first `n` inputs and the output elementwise (one dtype, float32 or
// float64); the others, one element each, of `tail` (kUnknown: the same).
bool HeadType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out, size_t n,
              DType tail) {
  std::vector<DType> head(in->begin(), in->begin() + n);
  const bool known = UpdateType(attrs, &head, out);
  std::copy(head.begin(), head.end(), in->begin());
  const std::vector<std::string> names = attrs.op->InputNames(attrs.params);
  for (size_t i = n; i < in->size(); ++i)
    AssignType(attrs, in, i, tail == DType::kUnknown ? head[0] : tail, "input '" + names[i] + "'");
  return known && AllKnown(*in);
}

// The first `n` inputs and the output share a shape; the others are (1,).
bool HeadShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out, size_t n) {
  std::vector<Shape> head(in->begin(), in->begin() + n);
  const bool known = ElemwiseShape(attrs, &head, out);
  std::copy(head.begin(), head.end(), in->begin());
  const std::vector<std::string> names = attrs.op->InputNames(attrs.params);
  for (size_t i = n; i < in->size(); ++i)
    AssignShape(attrs, in, i, Shape({1}), "input '" + names[i] + "'");
  return known && AllKnown(*in);
}

OpDef AdamW() {
  std::vector<ParamDecl> p = {Finite(RequiredParam("lr", ParamType::kFloat, "Learning rate."))};
  for (ParamDecl& d : Betas("1e-08")) p.push_back(d);
  p.push_back(FiniteFloat("wd", "0", "Decoupled weight decay."));
  p.push_back(
      Finite(RequiredParam("eta", ParamType::kFloat, "Schedule multiplier of the whole step.")));
  p.push_back(FiniteFloat("clip_gradient", "-1",
                          "Clip the rescaled gradient to [-clip_gradient, clip_gradient]; "
                          "negative disables."));
  OpDef d = UpdateOp("_adamw_update",
                     "AdamW step: g = clip(rescale_grad*grad); mean, var as Adam; weight -= "
                     "eta*(lr*mean/(sqrt(var) + epsilon) + wd*weight). rescale_grad is a "
                     "one-element float32 array; NaN, inf or 0 skips the step. Mutates mean, var.",
                     {"weight", "grad", "mean", "var", "rescale_grad"}, {2, 3}, p);
  d.aliases = {"adamw_update"};
  d.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    return HeadShape(a, in, out, 4);
  };
  d.infer_type = [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    return HeadType(a, in, out, 4, DType::kFloat32);
  };
  return d;
}

OpDef LambPhase1() {
  std::vector<ParamDecl> p = Betas("1e-06");
  p.push_back(
      IntRangeParam("t", "", 1, 9e15, "This index's update count (1 at the first update)."));
  p.back().required = true;
  p.push_back(BoolParam("bias_correction", "True", "Divide the moments by 1 - beta^t."));
  p.push_back(Finite(RequiredParam("wd", ParamType::kFloat, "Weight decay.")));
  p.push_back(FiniteFloat("rescale_grad", "1", "Gradient scale."));
  p.push_back(FiniteFloat("clip_gradient", "-1",
                          "Clip the rescaled gradient to [-clip_gradient, clip_gradient]; "
                          "negative disables."));
  OpDef d = UpdateOp("lamb_update_phase1",
                     "LAMB phase 1: the moments as Adam's; output g = mean_hat/(sqrt(var_hat) + "
                     "epsilon) + wd*weight (bias-corrected moments when bias_correction). "
                     "Mutates mean and var.",
                     {"weight", "grad", "mean", "var"}, {2, 3}, p);
  d.inplace = nullptr;  // g is a new array; the weight is only read
  return d;
}

OpDef LambPhase2() {
  std::vector<ParamDecl> p = {
      Finite(RequiredParam("lr", ParamType::kFloat, "Learning rate.")),
      FiniteFloat("lower_bound", "-1", "Lower limit of r1 (the weight's norm); negative: none."),
      FiniteFloat("upper_bound", "-1", "Upper limit of r1; negative: none.")};
  OpDef d = UpdateOp("lamb_update_phase2",
                     "LAMB phase 2: weight -= lr*(r1/r2)*g with r1 (the weight's norm, bounded) "
                     "and r2 (g's norm) of shape (1,); ratio 1 when either is 0.",
                     {"weight", "g", "r1", "r2"}, {}, p);
  d.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    return HeadShape(a, in, out, 2);
  };
  d.infer_type = [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    return HeadType(a, in, out, 2, DType::kUnknown);
  };
  return d;
}

}  // namespace

void RegisterOptimizerOpsAdamWLamb(OpRegistry* reg) {
  reg->Add(AdamW());
  reg->Add(LambPhase1());
  reg->Add(LambPhase2());
}

}  // namespace op
}  // namespace weft
