// CPU kernels of the same-shape binary elementwise ops (elemwise_add/sub/
// mul/div) and `_backward_div`, for float32 and float64. Every kernel
// honours kNull/kWrite/kInplace/kAdd and tolerates outputs aliasing inputs
// (each element's inputs are read before its outputs are written).
// elemwise_add is also what imperative req=add accumulation calls with the
// output aliasing lhs.
#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// Kernel computing out = f(lhs, rhs) with `f` a generic lambda (T, T) -> T.
template <typename F>
Kernel BinaryKernel(const char* name, F f) {
  KernelFn fn = [name, f](const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    DispatchFloat(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      Map(req[0], in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), out[0].Size(), f);
    });
  };
  return {"cpu", 0, fn, true};
}

// lhs_grad = g / r, rhs_grad = -g * l / r^2.
void BackwardDiv(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  DispatchFloat(in[0].dtype, "_backward_div", [&](auto t) {
    using T = decltype(t);
    const T* g = in[0].data<T>();
    const T* l = in[1].data<T>();
    const T* r = in[2].data<T>();
    T* dl = out[0].data<T>();
    T* dr = out[1].data<T>();
    const OpReq ql = req[0], qr = req[1];
    ParallelFor(out[0].Size(), [&](int64_t i) {
      const T gi = g[i], li = l[i], ri = r[i];
      const T q = gi / ri;
      Store(ql, &dl[i], q);
      Store(qr, &dr[i], -q * li / ri);
    });
  });
}

}  // namespace

void RegisterElemwiseBinaryCpu(KernelRegistry* reg) {
  reg->Add("elemwise_add", DeviceType::kCPU,
           BinaryKernel("elemwise_add", [](auto a, auto b) { return a + b; }));
  reg->Add("elemwise_sub", DeviceType::kCPU,
           BinaryKernel("elemwise_sub", [](auto a, auto b) { return a - b; }));
  reg->Add("elemwise_mul", DeviceType::kCPU,
           BinaryKernel("elemwise_mul", [](auto a, auto b) { return a * b; }));
  reg->Add("elemwise_div", DeviceType::kCPU,
           BinaryKernel("elemwise_div", [](auto a, auto b) { return a / b; }));
  reg->Add("_backward_div", DeviceType::kCPU, {"cpu", 0, BackwardDiv, true});
}

}  // namespace cpu
}  // namespace weft
