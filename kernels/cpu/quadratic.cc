// CPU kernels of quadratic and its gradient.
#include "cpu/cpu_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

static void QuadraticForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const QuadraticParams& q = attrs.params.Decoded<QuadraticParams>();
  const double a = q.a, b = q.b, c = q.c;
  DispatchFloat(in[0].dtype, "quadratic", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    ParallelFor(out[0].Size(), [&](int64_t i) {
      Store(req[0], &y[i], static_cast<T>(a * x[i] * x[i] + b * x[i] + c));
    });
  });
}

static void QuadraticBackward(const OpContext&, const NodeAttrs& attrs,
                              const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                              const std::vector<TBlob>& out) {
  const QuadraticParams& q = attrs.params.Decoded<QuadraticParams>();
  const double a = q.a, b = q.b;
  DispatchFloat(in[0].dtype, "_backward_quadratic", [&](auto t) {
    using T = decltype(t);
    const T* dy = in[0].data<T>();
    const T* x = in[1].data<T>();
    T* dx = out[0].data<T>();
    ParallelFor(out[0].Size(), [&](int64_t i) {
      Store(req[0], &dx[i], static_cast<T>(dy[i] * (2 * a * x[i] + b)));
    });
  });
}

void RegisterQuadraticCpu(KernelRegistry* reg) {
  reg->Add("quadratic", DeviceType::kCPU, {"cpu", 0, QuadraticForward, true});
  reg->Add("_backward_quadratic", DeviceType::kCPU, {"cpu", 0, QuadraticBackward, true});
}

}  // namespace cpu
}  // namespace weft
