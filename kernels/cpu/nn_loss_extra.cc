// CPU kernels of softmax_cross_entropy, smooth_l1 and their gradients
// (semantics in core/src/op/nn_loss_extra.cc).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/label_util.h"
#include "cpu/nn_softmax.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

void SoftmaxCECpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const int64_t N = in[0].shape[0], K = in[0].shape[1];
  DispatchFloat(in[0].dtype, "softmax_cross_entropy", [&](auto t) {
    using T = decltype(t);
    const T *x = in[0].data<T>(), *label = in[1].data<T>();
    std::vector<T> logp(N * K);
    SoftmaxView v;
    v.outer = N;
    v.n = K;
    SoftmaxLines<true, T>(v, T(1), x, OpReq::kWrite, logp.data());
    double loss = 0;
    for (int64_t n = 0; n < N; ++n) {
      const int64_t k = ClassIndex("softmax_cross_entropy", label, n, K);
      const double p = std::exp(static_cast<double>(logp[n * K + k]));
      loss -= std::log(std::max(p, 1e-8));
    }
    Store(req[0], out[0].data<T>(), static_cast<T>(loss));
  });
}

// in: ograd (1,), data, label; out: data_grad, label_grad (zeros).
void SoftmaxCEBackwardCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const int64_t N = in[1].shape[0], K = in[1].shape[1];
  DispatchFloat(in[1].dtype, "_backward_softmax_cross_entropy", [&](auto t) {
    using T = decltype(t);
    const T *og = in[0].data<T>(), *x = in[1].data<T>(), *label = in[2].data<T>();
    if (req[1] == OpReq::kWrite || req[1] == OpReq::kInplace)
      std::memset(out[1].dptr, 0, out[1].Bytes());
    if (req[0] == OpReq::kNull) return;
    std::vector<T> p(N * K);
    SoftmaxView v;
    v.outer = N;
    v.n = K;
    SoftmaxLines<false, T>(v, T(1), x, OpReq::kWrite, p.data());
    for (int64_t n = 0; n < N; ++n)
      p[n * K + ClassIndex("softmax_cross_entropy", label, n, K)] -= T(1);
    const T g = og[0];
    T* dx = out[0].data<T>();
    Map(req[0], p.data(), p.data(), dx, N * K, [g](T a, T) { return a * g; });
  });
}

// smooth_l1's sigma (its `scalar`), decoded once per node (ParamValues::Decoded).
struct SmoothL1Params {
  double sigma = 1;
  static SmoothL1Params Decode(const ParamValues& p) { return {p.GetFloat("scalar")}; }
};

void SmoothL1Cpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const double sigma = attrs.params.Decoded<SmoothL1Params>().sigma;
  DispatchFloat(in[0].dtype, "smooth_l1", [&](auto t) {
    using T = decltype(t);
    const T s2 = static_cast<T>(sigma * sigma), inv = static_cast<T>(1.0 / (sigma * sigma));
    const T* x = in[0].data<T>();
    Map(req[0], x, x, out[0].data<T>(), in[0].Size(), [s2, inv](T a, T) {
      if (a > inv) return a - T(0.5) * inv;
      if (a < -inv) return -a - T(0.5) * inv;
      return T(0.5) * a * a * s2;
    });
  });
}

// in: ograd, data; out: data_grad.
void SmoothL1BackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                         const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const double sigma = attrs.params.Decoded<SmoothL1Params>().sigma;
  DispatchFloat(in[0].dtype, "_backward_smooth_l1", [&](auto t) {
    using T = decltype(t);
    const T s2 = static_cast<T>(sigma * sigma), inv = static_cast<T>(1.0 / (sigma * sigma));
    Map(req[0], in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), in[0].Size(),
        [s2, inv](T dy, T a) {
          if (a > inv) return dy;
          if (a < -inv) return -dy;
          return dy * s2 * a;
        });
  });
}

}  // namespace

void RegisterNNLossExtraCpu(KernelRegistry* reg) {
  reg->Add("softmax_cross_entropy", DeviceType::kCPU, {"cpu", 0, SoftmaxCECpu, true});
  reg->Add("_backward_softmax_cross_entropy", DeviceType::kCPU,
           {"cpu", 0, SoftmaxCEBackwardCpu, true});
  reg->Add("smooth_l1", DeviceType::kCPU, {"cpu", 0, SmoothL1Cpu, true});
  reg->Add("_backward_smooth_l1", DeviceType::kCPU, {"cpu", 0, SmoothL1BackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
