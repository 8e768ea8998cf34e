// CPU kernels of the array-with-scalar ops (_plus_scalar ... _power_scalar,
// _rpower/_maximum/_minimum/_hypot/_mod/_rmod_scalar) and their
// `_backward_*_scalar` ops, for float32 and float64 (the forward ops also for
// integer data with is_int=True; the powers and _hypot_scalar in float32). The `scalar`
// parameter is cast to the array's dtype first, as MXNet does. Every kernel
// honours kNull/kWrite/kInplace/kAdd and tolerates its output aliasing an
// input.
#include <cmath>

#include "cpu/elemwise_kernels.h"
#include "cpu/elemwise_math.h"

namespace weft {
namespace cpu {

void RegisterElemwiseScalarCpu(KernelRegistry* reg) {
  auto add = [reg](const char* name, Kernel k) { reg->Add(name, DeviceType::kCPU, std::move(k)); };
  add("_plus_scalar",
      ScalarKernel<true>("_plus_scalar", [](auto x, auto s) { return decltype(x)(x + s); }));
  add("_minus_scalar",
      ScalarKernel<true>("_minus_scalar", [](auto x, auto s) { return decltype(x)(x - s); }));
  add("_rminus_scalar",
      ScalarKernel<true>("_rminus_scalar", [](auto x, auto s) { return decltype(x)(s - x); }));
  add("_mul_scalar",
      ScalarKernel<true>("_mul_scalar", [](auto x, auto s) { return decltype(x)(x * s); }));
  add("_div_scalar", ScalarKernel<true>("_div_scalar", [](auto x, auto s) { return Div(x, s); }));
  add("_rdiv_scalar", ScalarKernel<true>("_rdiv_scalar", [](auto x, auto s) { return Div(s, x); }));
  add("_power_scalar",
      ScalarKernel<true>("_power_scalar", ViaFloat([](auto x, auto s) { return std::pow(x, s); })));

  add("_rpower_scalar", ScalarKernel<true>("_rpower_scalar", ViaFloat([](auto x, auto s) {
                                             return std::pow(s, x);
                                           })));
  add("_maximum_scalar",
      ScalarKernel<true>("_maximum_scalar", [](auto x, auto s) { return Maximum(x, s); }));
  add("_minimum_scalar",
      ScalarKernel<true>("_minimum_scalar", [](auto x, auto s) { return Minimum(x, s); }));
  add("_hypot_scalar", ScalarKernel<true>("_hypot_scalar", ViaFloat([](auto x, auto s) {
                                            return std::hypot(x, s);
                                          })));
  add("_mod_scalar", ScalarKernel<true>("_mod_scalar", [](auto x, auto s) { return Mod(x, s); }));
  add("_rmod_scalar", ScalarKernel<true>("_rmod_scalar", [](auto x, auto s) { return Mod(s, x); }));

  add("_backward_rpower_scalar",  // (dy, y): dx = dy * y * ln(s)
      ScalarBackwardKernel("_backward_rpower_scalar",
                           [](auto g, auto y, auto s) { return g * y * std::log(s); }));
  add("_backward_maximum_scalar",
      ScalarBackwardKernel("_backward_maximum_scalar",
                           [](auto g, auto x, auto s) { return x >= s ? g : decltype(g)(0); }));
  add("_backward_minimum_scalar",
      ScalarBackwardKernel("_backward_minimum_scalar",
                           [](auto g, auto x, auto s) { return x <= s ? g : decltype(g)(0); }));
  add("_backward_hypot_scalar",
      ScalarBackwardKernel("_backward_hypot_scalar",
                           [](auto g, auto x, auto s) { return g * x / std::hypot(x, s); }));
  add("_backward_mod_scalar",
      ScalarBackwardKernel("_backward_mod_scalar", [](auto g, auto, auto) { return g; }));
  add("_backward_rmod_scalar",
      ScalarBackwardKernel("_backward_rmod_scalar",
                           [](auto g, auto x, auto s) { return g * ModRhsGrad(s, x); }));

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
