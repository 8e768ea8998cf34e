// CPU kernels of rmsprop_update, rmspropalex_update, ftrl_update and Weft's
// fused adagrad_update and adadelta_update (formulas in
// core/src/op/optimizer_ops_adaptive.cc; MXNet's expression order), float32
// and float64, the float parameters read as float and cast to the array's
// dtype. The output may alias the weight; the states are updated in place,
// also under a kNull request.
#include <cmath>

#include "cpu/cpu_util.h"
#include "cpu/optimizer_util.h"

namespace weft {
namespace cpu {

namespace {

using Ins = std::vector<TBlob>;
using Reqs = std::vector<OpReq>;

// rmsprop_update, and rmspropalex_update when `centered` (inputs n, g, delta).
void RMSProp(const NodeAttrs& attrs, const Ins& in, const Reqs& req, const Ins& out, bool centered,
             const char* op) {
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    const T lr = p.lr, wd = p.wd, rescale = p.rescale, clip = p.clip, g1 = p.gamma1;
    const T g2 = p.gamma2, eps = p.epsilon, clip_w = p.clip_weights, one_g1 = 1 - g1;
    const T* w = in[0].data<T>();
    const T* grad = in[1].data<T>();
    T* n = in[2].data<T>();
    T* gavg = centered ? in[3].data<T>() : nullptr;
    T* delta = centered ? in[4].data<T>() : nullptr;
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const T g = ClipIf(rescale * grad[i] + wd * w[i], clip);
      n[i] = one_g1 * g * g + g1 * n[i];
      T wi;
      if (centered) {
        gavg[i] = one_g1 * g + g1 * gavg[i];
        delta[i] = g2 * delta[i] - lr * g / std::sqrt(n[i] - gavg[i] * gavg[i] + eps);
        wi = w[i] + delta[i];
      } else {
        wi = w[i] - lr * (g / std::sqrt(n[i] + eps));
      }
      if (y) y[i] = ClipIf(wi, clip_w);
    });
  });
}

void RMSPropUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                   const Ins& out) {
  RMSProp(attrs, in, req, out, false, "rmsprop_update");
}

void RMSPropAlexUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                       const Ins& out) {
  RMSProp(attrs, in, req, out, true, "rmspropalex_update");
}

void FtrlUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                const Ins& out) {
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchFloat(in[0].dtype, "ftrl_update", [&](auto t) {
    using T = decltype(t);
    const T lr = p.lr, wd = p.wd, rescale = p.rescale, clip = p.clip, l1 = p.lamda1, beta = p.beta;
    const T* w = in[0].data<T>();
    const T* grad = in[1].data<T>();
    T* z = in[2].data<T>();
    T* n = in[3].data<T>();
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const T g = ClipIf(grad[i] * rescale, clip);
      z[i] += g - (std::sqrt(n[i] + g * g) - std::sqrt(n[i])) * w[i] / lr;
      n[i] += g * g;
      const T keep = std::fabs(z[i]) > l1 ? 1 : 0;
      if (y) y[i] = (Sign(z[i]) * l1 - z[i]) / ((beta + std::sqrt(n[i])) / lr + wd) * keep;
    });
  });
}

void AdaGradUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                   const Ins& out) {
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchFloat(in[0].dtype, "adagrad_update", [&](auto t) {
    using T = decltype(t);
    const T lr = p.lr, wd = p.wd, rescale = p.rescale, clip = p.clip, eps = p.epsilon;
    const T* w = in[0].data<T>();
    const T* grad = in[1].data<T>();
    T* h = in[2].data<T>();
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const T g = ClipIf(grad[i] * rescale, clip);
      h[i] += g * g;
      const T div = g / std::sqrt(h[i] + eps);
      if (y) y[i] = w[i] + (div + w[i] * wd) * -lr;
    });
  });
}

void AdaDeltaUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                    const Ins& out) {
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchFloat(in[0].dtype, "adadelta_update", [&](auto t) {
    using T = decltype(t);
    const T wd = p.wd, rescale = p.rescale, clip = p.clip, eps = p.epsilon, rho = p.rho;
    const T one_rho = static_cast<T>(1.0 - static_cast<double>(p.rho));
    const T* w = in[0].data<T>();
    const T* grad = in[1].data<T>();
    T* acc_g = in[2].data<T>();
    T* acc_d = in[3].data<T>();
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const T g = ClipIf(grad[i] * rescale, clip);
      acc_g[i] = rho * acc_g[i] + one_rho * g * g;
      const T d = std::sqrt(acc_d[i] + eps) / std::sqrt(acc_g[i] + eps) * g;
      acc_d[i] = rho * acc_d[i] + one_rho * d * d;
      if (y) y[i] = w[i] - (d + wd * w[i]);
    });
  });
}

}  // namespace

void RegisterOptimizerAdaptiveCpu(KernelRegistry* reg) {
  reg->Add("rmsprop_update", DeviceType::kCPU, {"cpu", 0, RMSPropUpdate, false});
  reg->Add("rmspropalex_update", DeviceType::kCPU, {"cpu", 0, RMSPropAlexUpdate, false});
  reg->Add("ftrl_update", DeviceType::kCPU, {"cpu", 0, FtrlUpdate, false});
  reg->Add("adagrad_update", DeviceType::kCPU, {"cpu", 0, AdaGradUpdate, false});
  reg->Add("adadelta_update", DeviceType::kCPU, {"cpu", 0, AdaDeltaUpdate, false});
}

}  // namespace cpu
}  // namespace weft
