// Update operators of the adaptive-rate optimizers. With g the rescaled
// gradient, clipped to [-clip_gradient, clip_gradient] when clip_gradient
// >= 0:
//
// MXNet 1.9.1's operators (src/operator/optimizer_op-inl.h):
//   rmsprop_update(weight, grad, n; lr, gamma1=0.95, epsilon=1e-8, wd=0,
//                  rescale_grad=1, clip_gradient=-1, clip_weights=-1):
//     g = clip(rescale_grad * grad + wd * weight)
//     n = (1 - gamma1) * g^2 + gamma1 * n
//     weight = clip_w(weight - lr * g / sqrt(n + epsilon))
//   rmspropalex_update(weight, grad, n, g_avg, delta; + gamma2=0.9):
//     g = clip(rescale_grad * grad + wd * weight)
//     n = (1 - gamma1) * g^2 + gamma1 * n
//     g_avg = (1 - gamma1) * g + gamma1 * g_avg
//     delta = gamma2 * delta - lr * g / sqrt(n - g_avg^2 + epsilon)
//     weight = clip_w(weight + delta)
//   (clip_w clips to [-clip_weights, clip_weights] when clip_weights >= 0)
//   ftrl_update(weight, grad, z, n; lr, lamda1=0.01, beta=1, wd=0,
//               rescale_grad=1, clip_gradient=-1):
//     g = clip(rescale_grad * grad)
//     z += g - (sqrt(n + g^2) - sqrt(n)) * weight / lr;  n += g^2
//     weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd)
//              where |z| > lamda1, else 0
//
// Weft's fused forms of the dense steps MXNet 1.9.1's Python AdaGrad and
// AdaDelta compute with NDArray arithmetic (MXNet's _sparse_adagrad_update
// is row-sparse only and has no weight decay):
//   adagrad_update(weight, grad, history; lr, epsilon=1e-7, wd=0,
//                  rescale_grad=1, clip_gradient=-1):
//     g = clip(rescale_grad * grad);  history += g^2
//     weight -= lr * (g / sqrt(history + epsilon) + wd * weight)
//   adadelta_update(weight, grad, acc_g, acc_delta; rho=0.9, epsilon=1e-5,
//                   wd=0, rescale_grad=1, clip_gradient=-1)  (no lr):
//     g = clip(rescale_grad * grad)
//     acc_g = rho * acc_g + (1 - rho) * g^2
//     delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g
//     acc_delta = rho * acc_delta + (1 - rho) * delta^2
//     weight -= delta + wd * weight
//
// Outputs: the new weight (in place, inplace pair (0, 0)); the states are
// mutated inputs. float32/float64; CPU kernels only
// (kernels/cpu/optimizer_adaptive_ops.cc). Not differentiable.
#include "optimizer_op_common.h"

namespace weft {
namespace op {

namespace {

ParamDecl FiniteFloat(const std::string& name, const std::string& def, const std::string& doc) {
  return Finite(FloatParam(name, def, doc));
}

std::vector<ParamDecl> RMSPropParams(bool centered) {
  std::vector<ParamDecl> p = LrWdRescaleClip();
  p.push_back(FiniteFloat("gamma1", "0.95", "Decay rate of the squared-gradient average."));
  if (centered) p.push_back(FiniteFloat("gamma2", "0.9", "Momentum of the step (delta)."));
  p.push_back(FiniteFloat("epsilon", "1e-08", "Added under the square root."));
  p.push_back(FiniteFloat("clip_weights", "-1",
                          "Clip the new weight to [-clip_weights, clip_weights]; negative "
                          "disables."));
  return p;
}

std::vector<ParamDecl> AdaDeltaParams() {
  std::vector<ParamDecl> p = LrWdRescaleClip();
  p.erase(p.begin());  // AdaDelta has no learning rate
  p.push_back(FiniteFloat("rho", "0.9", "Decay rate of both accumulators."));
  p.push_back(FiniteFloat("epsilon", "1e-05", "Added under both square roots."));
  return p;
}

}  // namespace

void RegisterOptimizerOpsAdaptive(OpRegistry* reg) {
  reg->Add(UpdateOp("rmsprop_update",
                    "RMSProp (Tieleman & Hinton): g = clip(rescale_grad*grad + wd*weight); n = "
                    "(1-gamma1)*g^2 + gamma1*n; weight -= lr*g/sqrt(n + epsilon) (then clipped "
                    "by clip_weights). Mutates n.",
                    {"weight", "grad", "n"}, {2}, RMSPropParams(false)));
  reg->Add(UpdateOp("rmspropalex_update",
                    "Centered RMSProp (Graves): n and g averaged with gamma1; delta = "
                    "gamma2*delta - lr*g/sqrt(n - g_avg^2 + epsilon); weight += delta (then "
                    "clipped by clip_weights). Mutates n, g, delta.",
                    {"weight", "grad", "n", "g", "delta"}, {2, 3, 4}, RMSPropParams(true)));
  std::vector<ParamDecl> ftrl = LrWdRescaleClip();
  ftrl.push_back(FiniteFloat("lamda1", "0.01", "L1 regularisation coefficient."));
  ftrl.push_back(FiniteFloat("beta", "1", "Per-coordinate learning-rate parameter."));
  reg->Add(UpdateOp("ftrl_update",
                    "FTRL-proximal: z += g - (sqrt(n + g^2) - sqrt(n))*weight/lr; n += g^2; "
                    "weight = (sign(z)*lamda1 - z)/((beta + sqrt(n))/lr + wd) where |z| > lamda1, "
                    "else 0. Mutates z and n.",
                    {"weight", "grad", "z", "n"}, {2, 3}, ftrl));
  std::vector<ParamDecl> adagrad = LrWdRescaleClip();
  adagrad.push_back(FiniteFloat("epsilon", "1e-07", "Added to the history under the root."));
  reg->Add(UpdateOp("adagrad_update",
                    "Dense AdaGrad (MXNet's Python step, fused): g = clip(rescale_grad*grad); "
                    "history += g^2; weight -= lr*(g/sqrt(history + epsilon) + wd*weight). "
                    "Mutates history.",
                    {"weight", "grad", "history"}, {2}, adagrad));
  reg->Add(UpdateOp("adadelta_update",
                    "AdaDelta (MXNet's Python step, fused; no learning rate): acc_g = "
                    "rho*acc_g + (1-rho)*g^2; delta = sqrt(acc_delta + epsilon)/sqrt(acc_g + "
                    "epsilon)*g; acc_delta = rho*acc_delta + (1-rho)*delta^2; weight -= delta + "
                    "wd*weight. Mutates acc_g and acc_delta.",
                    {"weight", "grad", "acc_g", "acc_delta"}, {2, 3}, AdaDeltaParams()));
}

}  // namespace op
}  // namespace weft
