// CUDA kernels of the optimizer updates sgd_update, sgd_mom_update and
// adam_update (formulas in core/src/op/optimizer_ops.cc, semantics as
// kernels/cpu/optimizer_ops.cc): float32/float64, the float parameters read
// as float and cast to the array's dtype, one pass per element; the output
// may alias the weight, the states are updated in place, and a kNull
// request still updates the states. No clip_gradient clips at +inf.
#include <cmath>

#include "cuda/cuda_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// The parameters every update shares, in the array's type (OptParams,
// decoded once per node).
template <typename T>
struct Common {
  T lr, wd, rescale, clip;  // clip: +inf when clip_gradient < 0
  explicit Common(const OptParams& o)
      : lr(static_cast<T>(o.lr)),
        wd(static_cast<T>(o.wd)),
        rescale(static_cast<T>(o.rescale)),
        clip(static_cast<T>(o.clip)) {
    if (clip < 0) clip = static_cast<T>(INFINITY);
  }
};

template <typename T>
__device__ T Clip(T x, T c) {
  return x < -c ? -c : (x > c ? c : x);
}

#define WEFT_GRID_LOOP(i, n)                                                             \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

template <typename T>
__global__ void SGDKernel(Common<T> p, const T* w, const T* g, T* y, int64_t n) {
  const T decay = static_cast<T>(1) - p.lr * p.wd;
  WEFT_GRID_LOOP(i, n) y[i] = decay * w[i] - p.lr * Clip(p.rescale * g[i], p.clip);
}

// y may be null (kNull): only the momentum is written.
template <typename T>
__global__ void SGDMomKernel(Common<T> p, T momentum, const T* w, const T* g, T* m, T* y,
                             int64_t n) {
  const T lr_wd = p.lr * p.wd;
  WEFT_GRID_LOOP(i, n) {
    const T wi = w[i];
    const T mi = momentum * m[i] - lr_wd * wi - p.lr * Clip(p.rescale * g[i], p.clip);
    m[i] = mi;
    if (y) y[i] = wi + mi;
  }
}

template <typename T>
__global__ void AdamKernel(Common<T> p, T b1, T b2, T c1, T c2, T eps, const T* w, const T* g,
                           T* mean, T* var, T* y, int64_t n) {
  WEFT_GRID_LOOP(i, n) {
    const T wi = w[i];
    const T gi = Clip(p.rescale * g[i] + p.wd * wi, p.clip);
    const T mi = b1 * mean[i] + c1 * gi;
    const T vi = b2 * var[i] + c2 * gi * gi;
    mean[i] = mi;
    var[i] = vi;
    if (y) y[i] = wi - p.lr * mi / (sqrt(vi) + eps);
  }
}

#undef WEFT_GRID_LOOP

void SGDUpdate(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "sgd_update";
  UseDevice(ctx, op);
  const int64_t n = in[0].Size();
  if (req[0] == OpReq::kNull || n == 0) return;
  const OptParams& o = attrs.params.Decoded<OptParams>();
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    SGDKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(Common<T>(o), in[0].data<T>(),
                                                           in[1].data<T>(), out[0].data<T>(), n);
  });
  Finish(ctx, op);
}

void SGDMomUpdate(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "sgd_mom_update";
  UseDevice(ctx, op);
  const int64_t n = in[0].Size();
  if (n == 0) return;
  const OptParams& o = attrs.params.Decoded<OptParams>();
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    SGDMomKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        Common<T>(o), static_cast<T>(o.momentum), in[0].data<T>(), in[1].data<T>(), in[2].data<T>(),
        y, n);
  });
  Finish(ctx, op);
}

void AdamUpdate(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "adam_update";
  UseDevice(ctx, op);
  const int64_t n = in[0].Size();
  if (n == 0) return;
  const OptParams& o = attrs.params.Decoded<OptParams>();
  // 1 - beta computed in float, as the CPU kernel.
  const float b1f = o.beta1, b2f = o.beta2;
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    AdamKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        Common<T>(o), static_cast<T>(b1f), static_cast<T>(b2f), static_cast<T>(1.f - b1f),
        static_cast<T>(1.f - b2f), static_cast<T>(o.epsilon), in[0].data<T>(), in[1].data<T>(),
        in[2].data<T>(), in[3].data<T>(), y, n);
  });
  Finish(ctx, op);
}

}  // namespace

void RegisterOptimizerCuda(KernelRegistry* reg) {
  reg->Add("sgd_update", DeviceType::kGPU, {"cuda", 0, SGDUpdate, false});
  reg->Add("sgd_mom_update", DeviceType::kGPU, {"cuda", 0, SGDMomUpdate, false});
  reg->Add("adam_update", DeviceType::kGPU, {"cuda", 0, AdamUpdate, false});
}

}  // namespace cuda
}  // namespace weft
