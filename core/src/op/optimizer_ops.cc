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

#include "optimizer_op_common.h"

namespace weft {
namespace op {

// The other families (optimizer_ops_sgd.cc, optimizer_ops_adaptive.cc,
// optimizer_ops_adamw_lamb.cc), registered from here so that the list in
// register_ops.cc names one optimizer entry.
void RegisterOptimizerOpsSgd(OpRegistry* reg);
void RegisterOptimizerOpsAdaptive(OpRegistry* reg);
void RegisterOptimizerOpsAdamWLamb(OpRegistry* reg);

void RegisterOptimizerOps(OpRegistry* reg) {
  reg->Add(UpdateOp(
      "sgd_update",
      "SGD step: weight = (1 - lr*wd)*weight - lr*clip(rescale_grad*grad). Output: the new weight.",
      {"weight", "grad"}, {}, CommonUpdateParams()));
  OpDef mom =
      UpdateOp("sgd_mom_update",
               "SGD with momentum: mom = momentum*mom - lr*wd*weight - lr*clip(rescale_grad*grad); "
               "weight += mom. Mutates mom; output: the new weight.",
               {"weight", "grad", "mom"}, {2}, CommonUpdateParams());
  mom.params.push_back(MomentumParam());
  reg->Add(std::move(mom));
  OpDef adam = UpdateOp(
      "adam_update",
      "Adam step (no bias correction): g = clip(rescale_grad*grad + wd*weight); "
      "mean = beta1*mean + (1-beta1)*g; var = beta2*var + (1-beta2)*g^2; "
      "weight -= lr*mean/(sqrt(var) + epsilon). Mutates mean and var; output: the new weight.",
      {"weight", "grad", "mean", "var"}, {2, 3}, CommonUpdateParams());
  adam.params.push_back(
      Ranged(FloatParam("beta1", "0.9", "Decay rate of the first moment."), 0, 1));
  adam.params.push_back(
      Ranged(FloatParam("beta2", "0.999", "Decay rate of the second moment."), 0, 1));
  adam.params.push_back(
      Ranged(FloatParam("epsilon", "1e-08", "Added to sqrt(var) for stability."), 0, FLT_MAX));
  reg->Add(std::move(adam));
  RegisterOptimizerOpsSgd(reg);
  RegisterOptimizerOpsAdaptive(reg);
  RegisterOptimizerOpsAdamWLamb(reg);
}

}  // namespace op
}  // namespace weft
