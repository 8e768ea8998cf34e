// CPU kernels of the unary elementwise ops and their `_backward_*` ops, for
// float32 and float64; the forward ops also for int32, int64, int8 and
// uint8, as MXNet (the math ones computed in float32, ViaFloat; negative
// wraps on uint8 as there). Every kernel honours
// kNull/kWrite/kInplace/kAdd and tolerates its output aliasing an input (each element is read
// before it is written).
#include <cmath>
#include <cstdlib>

#include "cpu/elemwise_kernels.h"

namespace weft {
namespace cpu {

void RegisterElemwiseUnaryCpu(KernelRegistry* reg) {
  auto add = [reg](const char* name, Kernel k) { reg->Add(name, DeviceType::kCPU, std::move(k)); };

  // relu keeps NaN, and its gradient is NaN there, as MXNet's relu/relu_grad.
  add("relu", UnaryKernel<true>("relu", [](auto x) {
        using T = decltype(x);
        return x > T(0) || x != x ? x : T(0);
      }));
  add("sigmoid", UnaryKernel<true>("sigmoid", ViaFloat([](auto x) {
                                     using T = decltype(x);
                                     return T(1) / (T(1) + std::exp(-x));
                                   })));
  add("tanh", UnaryKernel<true>("tanh", ViaFloat([](auto x) { return std::tanh(x); })));
  add("exp", UnaryKernel<true>("exp", ViaFloat([](auto x) { return std::exp(x); })));
  add("log", UnaryKernel<true>("log", ViaFloat([](auto x) { return std::log(x); })));
  add("sqrt", UnaryKernel<true>("sqrt", ViaFloat([](auto x) { return std::sqrt(x); })));
  add("square", UnaryKernel<true>("square", [](auto x) { return decltype(x)(x * x); }));
  add("abs", UnaryKernel<true>("abs", [](auto x) {
        using T = decltype(x);
        if constexpr (std::is_unsigned<T>::value)
          return x;
        else
          return T(x < T(0) ? -x : x);
      }));
  add("negative", UnaryKernel<true>("negative", [](auto x) { return decltype(x)(-x); }));

  // Backward ops: (g, y) for relu/sigmoid/tanh/sqrt; (g, x) for log/square/abs.
  add("_backward_relu", BinaryKernel("_backward_relu", [](auto g, auto y) {
        using T = decltype(g);
        return y > T(0) ? g : (y != y ? y : T(0));
      }));
  add("_backward_sigmoid", BinaryKernel("_backward_sigmoid", [](auto g, auto y) {
        using T = decltype(g);
        return g * y * (T(1) - y);
      }));
  add("_backward_tanh", BinaryKernel("_backward_tanh", [](auto g, auto y) {
        using T = decltype(g);
        return g * (T(1) - y * y);
      }));
  add("_backward_sqrt", BinaryKernel("_backward_sqrt", [](auto g, auto y) {
        using T = decltype(g);
        return T(0.5) * g / y;
      }));
  add("_backward_log", BinaryKernel("_backward_log", [](auto g, auto x) { return g / x; }));
  add("_backward_square", BinaryKernel("_backward_square", [](auto g, auto x) {
        using T = decltype(g);
        return T(2) * g * x;
      }));
  add("_backward_abs", BinaryKernel("_backward_abs", [](auto g, auto x) {
        using T = decltype(g);
        return x > T(0) ? g : (x < T(0) ? -g : T(0));
      }));
}

}  // namespace cpu
}  // namespace weft
