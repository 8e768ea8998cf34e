// CPU kernels of nag_mom_update, signsgd_update, signum_update and the
// multi-precision mp_sgd_update, mp_sgd_mom_update, mp_nag_mom_update
// (formulas in core/src/op/optimizer_ops_sgd.cc, MXNet's expression order).
// The float parameters are read as float and, in the plain updates, cast to
// the array's dtype; the multi-precision updates compute in float on the
// float32 master copy and round the output to the weight's dtype (float16
// to nearest even). The output may alias the weight; states are updated in
// place, also under a kNull request.
#include "cpu/cpu_util.h"
#include "cpu/optimizer_util.h"

namespace weft {
namespace cpu {

namespace {

using Ins = std::vector<TBlob>;
using Reqs = std::vector<OpReq>;

void NagMomUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                  const Ins& out) {
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchFloat(in[0].dtype, "nag_mom_update", [&](auto t) {
    using T = decltype(t);
    const T lr = p.lr, wd = p.wd, rescale = p.rescale, clip = p.clip, mu = p.momentum;
    const T* w = in[0].data<T>();
    const T* g = in[1].data<T>();
    T* m = in[2].data<T>();
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const T d = ClipIf(rescale * g[i], clip) + wd * w[i];
      const T mi = mu * m[i];
      const T wi = w[i] - mi + (mu + 1) * (mi - lr * d);
      m[i] = mi - lr * d;
      if (y) y[i] = wi;
    });
  });
}

void SignSGDUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                   const Ins& out) {
  if (req[0] == OpReq::kNull) return;
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchFloat(in[0].dtype, "signsgd_update", [&](auto t) {
    using T = decltype(t);
    const T lr = p.lr, decay = static_cast<T>(1) - lr * static_cast<T>(p.wd);
    const T* w = in[0].data<T>();
    const T* g = in[1].data<T>();
    T* y = out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) { y[i] = decay * w[i] - lr * Sign(g[i]); });
  });
}

void SignumUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                  const Ins& out) {
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchFloat(in[0].dtype, "signum_update", [&](auto t) {
    using T = decltype(t);
    const T lr = p.lr, wd = p.wd, rescale = p.rescale, clip = p.clip, mu = p.momentum;
    const T keep = static_cast<T>(1) - lr * static_cast<T>(p.wd_lh), one_mu = 1 - mu;
    const T* w = in[0].data<T>();
    const T* g = in[1].data<T>();
    T* m = in[2].data<T>();
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const T mi = mu * m[i] - one_mu * wd * w[i] - one_mu * ClipIf(rescale * g[i], clip);
      m[i] = mi;
      if (y) y[i] = keep * w[i] + lr * Sign(mi);
    });
  });
}

// mp_sgd_update and mp_sgd_mom_update (with momentum when `mom`).
void MPSGD(const NodeAttrs& attrs, const Ins& in, const Reqs& req, const Ins& out, bool mom,
           const char* op) {
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchMP(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    const float lr = p.lr, wd = p.wd, rescale = p.rescale, clip = p.clip, mu = p.momentum;
    const T* g = in[1].data<T>();
    float* m = mom ? in[2].data<float>() : nullptr;
    float* w32 = in[mom ? 3 : 2].data<float>();
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const float gi = ClipIf(rescale * Widen(g[i]), clip);
      float w = w32[i];
      if (mom) {
        m[i] = mu * m[i] - lr * wd * w - lr * gi;
        w += m[i];
      } else {
        w = (1.f - lr * wd) * w - lr * gi;
      }
      w32[i] = w;
      if (y) y[i] = Narrow<T>(w);
    });
  });
}

void MPSGDUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                 const Ins& out) {
  MPSGD(attrs, in, req, out, false, "mp_sgd_update");
}

void MPSGDMomUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                    const Ins& out) {
  MPSGD(attrs, in, req, out, true, "mp_sgd_mom_update");
}

void MPNagMomUpdate(const OpContext&, const NodeAttrs& attrs, const Ins& in, const Reqs& req,
                    const Ins& out) {
  const UpdateParams& p = attrs.params.Decoded<UpdateParams>();
  DispatchMP(in[0].dtype, "mp_nag_mom_update", [&](auto t) {
    using T = decltype(t);
    const float lr = p.lr, wd = p.wd, rescale = p.rescale, clip = p.clip, mu = p.momentum;
    const T* g = in[1].data<T>();
    float* m = in[2].data<float>();
    float* w32 = in[3].data<float>();
    T* y = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const float d = ClipIf(rescale * Widen(g[i]), clip) + wd * w32[i];
      const float mi = mu * m[i];
      const float w = w32[i] - mi + (mu + 1) * (mi - lr * d);
      m[i] = mi - lr * d;
      w32[i] = w;
      if (y) y[i] = Narrow<T>(w);
    });
  });
}

}  // namespace

void RegisterOptimizerSgdCpu(KernelRegistry* reg) {
  reg->Add("nag_mom_update", DeviceType::kCPU, {"cpu", 0, NagMomUpdate, false});
  reg->Add("signsgd_update", DeviceType::kCPU, {"cpu", 0, SignSGDUpdate, false});
  reg->Add("signum_update", DeviceType::kCPU, {"cpu", 0, SignumUpdate, false});
  reg->Add("mp_sgd_update", DeviceType::kCPU,
           WithReducedFloats({"cpu", 0, MPSGDUpdate, false}, Kernel::kHalfBit));
  reg->Add("mp_sgd_mom_update", DeviceType::kCPU,
           WithReducedFloats({"cpu", 0, MPSGDMomUpdate, false}, Kernel::kHalfBit));
  reg->Add("mp_nag_mom_update", DeviceType::kCPU,
           WithReducedFloats({"cpu", 0, MPNagMomUpdate, false}, Kernel::kHalfBit));
}

}  // namespace cpu
}  // namespace weft
