// CPU kernels of the array-with-scalar ops (_plus_scalar ... _power_scalar)
// and their `_backward_*_scalar` ops, for float32 and float64. The `scalar`
// parameter is cast to the array's dtype first, as MXNet does. Every kernel
// honours kNull/kWrite/kInplace/kAdd and tolerates its output aliasing an
// input.
#include <cmath>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// Kernel computing out = f(data, s) with s the `scalar` parameter as T.
template <typename F>
Kernel ScalarKernel(const char* name, F f) {
  KernelFn fn = [name, f](const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    const double scalar = attrs.params.GetFloat("scalar");
    DispatchFloat(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      const T s = static_cast<T>(scalar);
      const T* x = in[0].data<T>();
      Map(req[0], x, x, out[0].data<T>(), out[0].Size(), [f, s](T v, T) { return f(v, s); });
    });
  };
  return {"cpu", 0, fn, true};
}

// Kernel computing dx = f(ograd, data, s).
template <typename F>
Kernel ScalarBackwardKernel(const char* name, F f) {
  KernelFn fn = [name, f](const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    const double scalar = attrs.params.GetFloat("scalar");
    DispatchFloat(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      const T s = static_cast<T>(scalar);
      Map(req[0], in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), out[0].Size(),
          [f, s](T g, T x) { return f(g, x, s); });
    });
  };
  return {"cpu", 0, fn, true};
}

}  // namespace

void RegisterElemwiseScalarCpu(KernelRegistry* reg) {
  auto add = [reg](const char* name, Kernel k) { reg->Add(name, DeviceType::kCPU, std::move(k)); };
  add("_plus_scalar", ScalarKernel("_plus_scalar", [](auto x, auto s) { return x + s; }));
  add("_minus_scalar", ScalarKernel("_minus_scalar", [](auto x, auto s) { return x - s; }));
  add("_rminus_scalar", ScalarKernel("_rminus_scalar", [](auto x, auto s) { return s - x; }));
  add("_mul_scalar", ScalarKernel("_mul_scalar", [](auto x, auto s) { return x * s; }));
  add("_div_scalar", ScalarKernel("_div_scalar", [](auto x, auto s) { return x / s; }));
  add("_rdiv_scalar", ScalarKernel("_rdiv_scalar", [](auto x, auto s) { return s / x; }));
  add("_power_scalar",
      ScalarKernel("_power_scalar", [](auto x, auto s) { return std::pow(x, s); }));

  add("_backward_rdiv_scalar",
      ScalarBackwardKernel("_backward_rdiv_scalar",
                           [](auto g, auto x, auto s) { return -g * s / (x * x); }));
  add("_backward_power_scalar",
      ScalarBackwardKernel("_backward_power_scalar", [](auto g, auto x, auto s) {
        using T = decltype(g);
        return g * s * std::pow(x, s - T(1));
      }));
}

}  // namespace cpu
}  // namespace weft
