// CPU kernels of the unary elementwise ops and their `_backward_*` ops, for
// float32 and float64. Every kernel honours kNull/kWrite/kInplace/kAdd and
// tolerates its output aliasing an input (each element is read before it is
// written).
#include <cmath>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// Kernel computing out = f(data) with `f` a generic lambda T -> T.
template <typename F>
Kernel UnaryKernel(const char* name, F f) {
  KernelFn fn = [name, f](const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    DispatchFloat(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      const T* x = in[0].data<T>();
      Map(req[0], x, x, out[0].data<T>(), out[0].Size(), [f](T v, T) { return f(v); });
    });
  };
  return {"cpu", 0, fn, true};
}

// Kernel computing dx = f(ograd, v) with v the forward input or output.
template <typename F>
Kernel BackwardKernel(const char* name, F f) {
  KernelFn fn = [name, f](const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    DispatchFloat(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      Map(req[0], in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), out[0].Size(), f);
    });
  };
  return {"cpu", 0, fn, true};
}

}  // namespace

void RegisterElemwiseUnaryCpu(KernelRegistry* reg) {
  auto add = [reg](const char* name, Kernel k) { reg->Add(name, DeviceType::kCPU, std::move(k)); };

  add("relu", UnaryKernel("relu", [](auto x) {
        using T = decltype(x);
        return x > T(0) ? x : T(0);
      }));
  add("sigmoid", UnaryKernel("sigmoid", [](auto x) {
        using T = decltype(x);
        return T(1) / (T(1) + std::exp(-x));
      }));
  add("tanh", UnaryKernel("tanh", [](auto x) { return std::tanh(x); }));
  add("exp", UnaryKernel("exp", [](auto x) { return std::exp(x); }));
  add("log", UnaryKernel("log", [](auto x) { return std::log(x); }));
  add("sqrt", UnaryKernel("sqrt", [](auto x) { return std::sqrt(x); }));
  add("square", UnaryKernel("square", [](auto x) { return x * x; }));
  add("abs", UnaryKernel("abs", [](auto x) { return std::abs(x); }));
  add("negative", UnaryKernel("negative", [](auto x) { return -x; }));

  // Backward ops: (g, y) for relu/sigmoid/tanh/sqrt; (g, x) for log/square/abs.
  add("_backward_relu", BackwardKernel("_backward_relu", [](auto g, auto y) {
        using T = decltype(g);
        return y > T(0) ? g : T(0);
      }));
  add("_backward_sigmoid", BackwardKernel("_backward_sigmoid", [](auto g, auto y) {
        using T = decltype(g);
        return g * y * (T(1) - y);
      }));
  add("_backward_tanh", BackwardKernel("_backward_tanh", [](auto g, auto y) {
        using T = decltype(g);
        return g * (T(1) - y * y);
      }));
  add("_backward_sqrt", BackwardKernel("_backward_sqrt", [](auto g, auto y) {
        using T = decltype(g);
        return T(0.5) * g / y;
      }));
  add("_backward_log", BackwardKernel("_backward_log", [](auto g, auto x) { return g / x; }));
  add("_backward_square", BackwardKernel("_backward_square", [](auto g, auto x) {
        using T = decltype(g);
        return T(2) * g * x;
      }));
  add("_backward_abs", BackwardKernel("_backward_abs", [](auto g, auto x) {
        using T = decltype(g);
        return x > T(0) ? g : (x < T(0) ? -g : T(0));
      }));
}

}  // namespace cpu
}  // namespace weft
