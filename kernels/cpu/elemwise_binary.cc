// CPU kernels of the same-shape binary elementwise ops (elemwise_add/sub/
// mul/div, _maximum/_minimum/_power/_hypot/_mod) and their `_backward_*`
// ops, for float32 and float64 (the forward ops also for int32, int64, int8
// and uint8, as MXNet: _power/_hypot in float32, ViaFloat; integer division
// truncates and gives 0 for a zero divisor, see Div). Every kernel
// honours kNull/kWrite/kInplace/kAdd and tolerates outputs aliasing inputs
// (each element's inputs are read before its outputs are written).
// elemwise_add is also what imperative req=add accumulation calls with the
// output aliasing lhs.
#include <cmath>

#include "cpu/elemwise_kernels.h"
#include "cpu/elemwise_math.h"

namespace weft {
namespace cpu {

void RegisterElemwiseBinaryCpu(KernelRegistry* reg) {
  reg->Add("elemwise_add", DeviceType::kCPU,
           BinaryKernel<true>("elemwise_add", [](auto a, auto b) { return decltype(a)(a + b); }));
  reg->Add("elemwise_sub", DeviceType::kCPU,
           BinaryKernel<true>("elemwise_sub", [](auto a, auto b) { return decltype(a)(a - b); }));
  reg->Add("elemwise_mul", DeviceType::kCPU,
           BinaryKernel<true>("elemwise_mul", [](auto a, auto b) { return decltype(a)(a * b); }));
  reg->Add("elemwise_div", DeviceType::kCPU,
           BinaryKernel<true>("elemwise_div", [](auto a, auto b) { return Div(a, b); }));
  reg->Add("_backward_div", DeviceType::kCPU,
           BinaryBackwardKernel(
               "_backward_div", [](auto g, auto, auto r) { return g / r; },
               [](auto g, auto l, auto r) { return -(g / r) * l / r; }));

  auto add = [reg](const char* name, Kernel k) { reg->Add(name, DeviceType::kCPU, std::move(k)); };
  add("_maximum", BinaryKernel<true>("_maximum", [](auto a, auto b) { return Maximum(a, b); }));
  add("_minimum", BinaryKernel<true>("_minimum", [](auto a, auto b) { return Minimum(a, b); }));
  add("_power",
      BinaryKernel<true>("_power", ViaFloat([](auto a, auto b) { return std::pow(a, b); })));
  add("_hypot",
      BinaryKernel<true>("_hypot", ViaFloat([](auto a, auto b) { return std::hypot(a, b); })));
  add("_mod", BinaryKernel<true>("_mod", [](auto a, auto b) { return Mod(a, b); }));
  add("_backward_maximum",
      BinaryBackwardKernel(
          "_backward_maximum", [](auto g, auto l, auto r) { return l >= r ? g : decltype(g)(0); },
          [](auto g, auto l, auto r) { return l < r ? g : decltype(g)(0); }));
  add("_backward_minimum",
      BinaryBackwardKernel(
          "_backward_minimum", [](auto g, auto l, auto r) { return l <= r ? g : decltype(g)(0); },
          [](auto g, auto l, auto r) { return l > r ? g : decltype(g)(0); }));
  add("_backward_power",
      BinaryBackwardKernel(
          "_backward_power",
          [](auto g, auto l, auto r) { return g * std::pow(l, r - decltype(g)(1)) * r; },
          [](auto g, auto l, auto r) { return g * std::pow(l, r) * std::log(l); }));
  add("_backward_hypot",
      BinaryBackwardKernel(
          "_backward_hypot", [](auto g, auto l, auto r) { return g * l / std::hypot(l, r); },
          [](auto g, auto l, auto r) { return g * r / std::hypot(l, r); }));
  add("_backward_mod", BinaryBackwardKernel(
                           "_backward_mod", [](auto g, auto, auto) { return g; },
                           [](auto g, auto l, auto r) { return g * ModRhsGrad(l, r); }));
}

}  // namespace cpu
}  // namespace weft
