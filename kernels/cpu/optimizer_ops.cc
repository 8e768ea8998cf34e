// CPU kernels of the optimizer updates (sgd_update, sgd_mom_update,
// adam_update; formulas in core/src/op/optimizer_ops.cc), float32 and
// float64. As in MXNet the float parameters are read as float and cast to
// the array's dtype. The output may alias the weight (the usual in-place
// call); the states are updated in place. Each loop is branch-free inside
// (no clip_gradient clips at +inf) so it vectorises (this file is built
// with -fno-math-errno for Adam's sqrt), makes one pass over the arrays, and
// runs on OpenMP threads when long. A kNull request still updates the states.
#include <algorithm>
#include <cmath>

#include "cpu/cpu_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

template <typename T>
inline T Clip(T x, T c) {
  return std::min(std::max(x, -c), c);
}

void SGDUpdate(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const OptParams& o = attrs.params.Decoded<OptParams>();
  DispatchFloat(in[0].dtype, "sgd_update", [&](auto t) {
    using T = decltype(t);
    const T lr = static_cast<T>(o.lr), wd = static_cast<T>(o.wd);
    const T rescale = static_cast<T>(o.rescale), clip = static_cast<T>(o.clip);
    const T decay = static_cast<T>(1) - lr * wd, lr_rescale = lr * rescale;
    const T* w = in[0].data<T>();
    const T* g = in[1].data<T>();
    T* y = out[0].data<T>();
    const int64_t n = out[0].Size();
    if (clip >= 0) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelGrain)
      for (int64_t i = 0; i < n; ++i) y[i] = decay * w[i] - lr * Clip(rescale * g[i], clip);
    } else {
#pragma omp parallel for simd schedule(static) if (n >= kParallelGrain)
      for (int64_t i = 0; i < n; ++i) y[i] = decay * w[i] - lr_rescale * g[i];
    }
  });
}

void SGDMomUpdate(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const OptParams& o = attrs.params.Decoded<OptParams>();
  DispatchFloat(in[0].dtype, "sgd_mom_update", [&](auto t) {
    using T = decltype(t);
    const T lr = static_cast<T>(o.lr), wd = static_cast<T>(o.wd);
    const T rescale = static_cast<T>(o.rescale), clip = static_cast<T>(o.clip);
    const T momentum = static_cast<T>(o.momentum);
    const T lr_wd = lr * wd;
    const T* w = in[0].data<T>();
    const T* g = in[1].data<T>();
    T* m = in[2].data<T>();
    // With no output (kNull) only the state is written.
    const bool write = req[0] != OpReq::kNull;
    T* y = write ? out[0].data<T>() : nullptr;
    const int64_t n = in[0].Size();
    const T c = clip >= 0 ? clip : static_cast<T>(INFINITY);
    // One pass over the arrays: mom, then the weight from it. Clipping by
    // +inf (no clip_gradient) leaves values unchanged.
    if (write) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelGrain)
      for (int64_t i = 0; i < n; ++i) {
        const T mi = momentum * m[i] - lr_wd * w[i] - lr * Clip(rescale * g[i], c);
        m[i] = mi;
        y[i] = w[i] + mi;
      }
    } else {
#pragma omp parallel for simd schedule(static) if (n >= kParallelGrain)
      for (int64_t i = 0; i < n; ++i)
        m[i] = momentum * m[i] - lr_wd * w[i] - lr * Clip(rescale * g[i], c);
    }
  });
}

void AdamUpdate(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const OptParams& o = attrs.params.Decoded<OptParams>();
  DispatchFloat(in[0].dtype, "adam_update", [&](auto t) {
    using T = decltype(t);
    const T lr = static_cast<T>(o.lr), wd = static_cast<T>(o.wd);
    const T rescale = static_cast<T>(o.rescale), clip = static_cast<T>(o.clip);
    const float b1f = o.beta1, b2f = o.beta2;
    const T b1 = static_cast<T>(b1f), b2 = static_cast<T>(b2f);
    const T c1 = static_cast<T>(1.f - b1f), c2 = static_cast<T>(1.f - b2f);
    const T eps = static_cast<T>(o.epsilon);
    // With clip < 0 the clip bound is +inf, which leaves every value as is.
    const T bound = clip >= 0 ? clip : static_cast<T>(INFINITY);
    const T* w = in[0].data<T>();
    const T* g = in[1].data<T>();
    T* mean = in[2].data<T>();
    T* var = in[3].data<T>();
    const bool write = req[0] != OpReq::kNull;
    T* y = write ? out[0].data<T>() : nullptr;
    const int64_t n = in[0].Size();
    // One pass: the moments, then the weight from them (when written).
    if (write) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelGrain)
      for (int64_t i = 0; i < n; ++i) {
        const T gi = Clip(rescale * g[i] + wd * w[i], bound);
        const T mi = b1 * mean[i] + c1 * gi;
        const T vi = b2 * var[i] + c2 * gi * gi;
        mean[i] = mi;
        var[i] = vi;
        y[i] = w[i] - lr * mi / (std::sqrt(vi) + eps);
      }
    } else {
#pragma omp parallel for simd schedule(static) if (n >= kParallelGrain)
      for (int64_t i = 0; i < n; ++i) {
        const T gi = Clip(rescale * g[i] + wd * w[i], bound);
        mean[i] = b1 * mean[i] + c1 * gi;
        var[i] = b2 * var[i] + c2 * gi * gi;
      }
    }
  });
}

}  // namespace

// The other families' kernels (optimizer_sgd_ops.cc,
// optimizer_adaptive_ops.cc, optimizer_adamw_lamb_ops.cc; CPU only),
// registered from here so that kernels/register_kernels.cc names one entry.
void RegisterOptimizerSgdCpu(KernelRegistry* reg);
void RegisterOptimizerAdaptiveCpu(KernelRegistry* reg);
void RegisterOptimizerAdamWLambCpu(KernelRegistry* reg);

void RegisterOptimizerOpsCpu(KernelRegistry* reg) {
  reg->Add("sgd_update", DeviceType::kCPU, {"cpu", 0, SGDUpdate, false});
  reg->Add("sgd_mom_update", DeviceType::kCPU, {"cpu", 0, SGDMomUpdate, false});
  reg->Add("adam_update", DeviceType::kCPU, {"cpu", 0, AdamUpdate, false});
  RegisterOptimizerSgdCpu(reg);
  RegisterOptimizerAdaptiveCpu(reg);
  RegisterOptimizerAdamWLambCpu(reg);
}

}  // namespace cpu
}  // namespace weft
