// The SGD family's other update operators, with MXNet 1.9.1's names,
// parameters and formulas (src/operator/optimizer_op-inl.h). With
// g = clip(rescale_grad * grad) (no clipping when clip_gradient < 0):
//
//   nag_mom_update(weight, grad, mom; lr, momentum=0, wd=0, rescale_grad=1,
//                  clip_gradient=-1):
//     d = g + wd * weight;  mom = momentum * mom - lr * d
//     weight = weight + momentum * mom - lr * d
//   signsgd_update(weight, grad; lr, wd, rescale_grad, clip_gradient):
//     weight = (1 - lr * wd) * weight - lr * sign(grad)
//     (rescale_grad and clip_gradient have no effect, as in MXNet)
//   signum_update(weight, grad, mom; + momentum=0, wd_lh=0):
//     mom = momentum * mom - (1 - momentum) * (wd * weight + g)
//     weight = (1 - lr * wd_lh) * weight + lr * sign(mom)
//
// and the multi-precision forms, whose weight and grad may be float16 (or
// float32/float64) while weight32 (the float32 master copy) and mom are
// float32; the step runs on weight32 in float and the output is weight32
// rounded to the weight's dtype:
//
//   mp_sgd_update(weight, grad, weight32; lr, wd, rescale_grad,
//                 clip_gradient, lazy_update)
//   mp_sgd_mom_update(weight, grad, mom, weight32; + momentum)
//   mp_nag_mom_update(weight, grad, mom, weight32; lr, momentum, wd,
//                     rescale_grad, clip_gradient)
//
// Outputs: the new weight (in place, inplace pair (0, 0)); mom and weight32
// are mutated inputs. CPU kernels only (kernels/cpu/optimizer_sgd_ops.cc).
// Not differentiable.
#include "optimizer_op_common.h"

namespace weft {
namespace op {

namespace {

// lr, momentum, wd, rescale_grad, clip_gradient (MXNet's NAGMomParam).
std::vector<ParamDecl> NagParams() {
  std::vector<ParamDecl> p = LrWdRescaleClip();
  p.push_back(MomentumParam());
  return p;
}

OpDef MP(OpDef d) {
  d.infer_type = MPUpdateType;
  return d;
}

}  // namespace

void RegisterOptimizerOpsSgd(OpRegistry* reg) {
  reg->Add(UpdateOp("nag_mom_update",
                    "Nesterov momentum step: d = clip(rescale_grad*grad) + wd*weight; "
                    "mom = momentum*mom - lr*d; weight += momentum*mom - lr*d. Mutates mom.",
                    {"weight", "grad", "mom"}, {2}, NagParams()));
  reg->Add(UpdateOp("signsgd_update",
                    "SignSGD step: weight = (1 - lr*wd)*weight - lr*sign(grad) "
                    "(rescale_grad and clip_gradient have no effect).",
                    {"weight", "grad"}, {}, LrWdRescaleClip()));
  std::vector<ParamDecl> signum = NagParams();
  signum.push_back(Finite(FloatParam(
      "wd_lh", "0", "Decoupled weight decay: weight is scaled by 1 - lr*wd_lh before the step.")));
  reg->Add(UpdateOp("signum_update",
                    "Signum step: mom = momentum*mom - (1-momentum)*(wd*weight + "
                    "clip(rescale_grad*grad)); weight = (1 - lr*wd_lh)*weight + lr*sign(mom). "
                    "Mutates mom.",
                    {"weight", "grad", "mom"}, {2}, signum));

  reg->Add(MP(UpdateOp("mp_sgd_update",
                       "Multi-precision SGD: weight32 = (1 - lr*wd)*weight32 - "
                       "lr*clip(rescale_grad*grad) in float; weight = weight32 in weight's dtype. "
                       "Mutates weight32 (float32).",
                       {"weight", "grad", "weight32"}, {2}, CommonUpdateParams())));
  std::vector<ParamDecl> mom = CommonUpdateParams();
  mom.push_back(MomentumParam());
  reg->Add(MP(UpdateOp("mp_sgd_mom_update",
                       "Multi-precision SGD with momentum: mom = momentum*mom - lr*wd*weight32 - "
                       "lr*clip(rescale_grad*grad); weight32 += mom; weight = weight32. Mutates "
                       "mom and weight32 (float32).",
                       {"weight", "grad", "mom", "weight32"}, {2, 3}, mom)));
  reg->Add(MP(UpdateOp("mp_nag_mom_update",
                       "Multi-precision Nesterov momentum: nag_mom_update on weight32 in float; "
                       "weight = weight32. Mutates mom and weight32 (float32).",
                       {"weight", "grad", "mom", "weight32"}, {2, 3}, NagParams())));
}

}  // namespace op
}  // namespace weft
