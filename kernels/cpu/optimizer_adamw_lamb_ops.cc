// CPU kernels of _adamw_update, lamb_update_phase1 and lamb_update_phase2
// (formulas in core/src/op/optimizer_ops_adamw_lamb.cc; MXNet's expression
// order), float32 and float64, the float parameters read as float and cast
// to the array's dtype. _adamw_update reads its one-element rescale_grad
// array when it runs and writes nothing when that is NaN, infinite or 0.
// The moments are updated in place, also under a kNull request.
#include <cmath>

#include "cpu/cpu_util.h"
#include "cpu/optimizer_util.h"

namespace weft {
namespace cpu {

namespace {

using Ins = std::vector<TBlob>;
using Reqs = std::vector<OpReq>;

void AdamWUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                 const Ins& out) {
  const float scale = in[4].data<float>()[0];
  if (!std::isfinite(scale) || scale == 0.0f) return;  // MXNet skips the step
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchFloat(in[0].dtype, "_adamw_update", [&](auto t) {
    using T = decltype(t);
    const T lr = p.lr, wd = p.wd, clip = p.clip, eta = p.eta, eps = p.epsilon, rescale = scale;
    const T b1 = p.beta1, b2 = p.beta2, c1 = 1.f - p.beta1, c2 = 1.f - p.beta2;
    const T* w = in[0].data<T>();
    const T* grad = in[1].data<T>();
    T* mean = in[2].data<T>();
    T* var = in[3].data<T>();
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const T g = ClipIf(rescale * grad[i], clip);
      mean[i] = b1 * mean[i] + c1 * g;
      var[i] = b2 * var[i] + c2 * g * g;
      if (y) y[i] = w[i] - eta * (lr * mean[i] / (std::sqrt(var[i]) + eps) + wd * w[i]);
    });
  });
}

void LambPhase1(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                const Ins& out) {
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchFloat(in[0].dtype, "lamb_update_phase1", [&](auto t) {
    using T = decltype(t);
    const T wd = p.wd, rescale = p.rescale, clip = p.clip, eps = p.epsilon;
    const T b1 = p.beta1, b2 = p.beta2, c1 = 1.f - b1, c2 = 1.f - b2;
    const T b1t = static_cast<T>(std::pow(p.beta1, p.t));
    const T b2t = static_cast<T>(std::pow(p.beta2, p.t));
    const bool correct = p.bias_correction;
    const T* w = in[0].data<T>();
    const T* grad = in[1].data<T>();
    T* mean = in[2].data<T>();
    T* var = in[3].data<T>();
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const T g = ClipIf(grad[i] * rescale, clip);
      mean[i] = b1 * mean[i] + c1 * g;
      var[i] = b2 * var[i] + c2 * g * g;
      const T m = correct ? mean[i] / (1 - b1t) : mean[i];
      const T v = correct ? var[i] / (1 - b2t) : var[i];
      if (y) y[i] = m / (std::sqrt(v) + eps) + wd * w[i];
    });
  });
}

void LambPhase2(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                const Ins& out) {
  if (req[0] == OpReq::kNull) return;
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchFloat(in[0].dtype, "lamb_update_phase2", [&](auto t) {
    using T = decltype(t);
    const T lower = p.lower_bound, upper = p.upper_bound, r2 = in[3].data<T>()[0];
    T r1 = in[2].data<T>()[0], lr = p.lr;
    if (lower >= 0) r1 = std::max(r1, lower);
    if (upper >= 0) r1 = std::min(r1, upper);
    if (r1 != 0 && r2 != 0) lr = lr * r1 / r2;
    const T* w = in[0].data<T>();
    const T* g = in[1].data<T>();
    T* y = out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) { y[i] = w[i] - lr * g[i]; });
  });
}

}  // namespace

void RegisterOptimizerAdamWLambCpu(KernelRegistry* reg) {
  reg->Add("_adamw_update", DeviceType::kCPU, {"cpu", 0, AdamWUpdate, false});
  reg->Add("lamb_update_phase1", DeviceType::kCPU, {"cpu", 0, LambPhase1, false});
  reg->Add("lamb_update_phase2", DeviceType::kCPU, {"cpu", 0, LambPhase2, false});
}

}  // namespace cpu
}  // namespace weft
