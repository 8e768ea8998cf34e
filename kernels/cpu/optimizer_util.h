// Helpers of the CPU optimizer update kernels added after sgd/adam
// (optimizer_sgd_ops.cc, optimizer_adaptive_ops.cc,
// optimizer_adamw_lamb_ops.cc): their parameters decoded once per node,
// clipping, sign, and the float16/float32/float64 dispatch of the
// multi-precision updates. Stateless.
#ifndef WEFT_KERNELS_CPU_OPTIMIZER_UTIL_H_
#define WEFT_KERNELS_CPU_OPTIMIZER_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "weft/dtype.h"
#include "weft/param.h"

namespace weft {
namespace cpu {

// Every parameter an update op may declare, read as float (MXNet's) where
// the op declares it; the others keep these defaults.
struct UpdateParams {
  float lr = 0, wd = 0, rescale = 1, clip = -1;  // rescale_grad, clip_gradient
  float momentum = 0, wd_lh = 0;
  float gamma1 = 0, gamma2 = 0, epsilon = 0, clip_weights = -1;
  float lamda1 = 0, beta = 0, rho = 0;
  float beta1 = 0, beta2 = 0, eta = 0, lower_bound = -1, upper_bound = -1;
  int64_t t = 1;
  bool bias_correction = true;

  static UpdateParams Decode(const ParamValues& p) {
    UpdateParams u;
    auto f = [&p](const char* name, float* field) {
      if (p.Has(name)) *field = static_cast<float>(p.GetFloat(name));
    };
    f("lr", &u.lr);
    f("wd", &u.wd);
    f("rescale_grad", &u.rescale);
    f("clip_gradient", &u.clip);
    f("momentum", &u.momentum);
    f("wd_lh", &u.wd_lh);
    f("gamma1", &u.gamma1);
    f("gamma2", &u.gamma2);
    f("epsilon", &u.epsilon);
    f("clip_weights", &u.clip_weights);
    f("lamda1", &u.lamda1);
    f("beta", &u.beta);
    f("rho", &u.rho);
    f("beta1", &u.beta1);
    f("beta2", &u.beta2);
    f("eta", &u.eta);
    f("lower_bound", &u.lower_bound);
    f("upper_bound", &u.upper_bound);
    if (p.Has("t")) u.t = p.GetInt("t");
    if (p.Has("bias_correction")) u.bias_correction = p.GetBool("bias_correction");
    return u;
  }
};

// x clipped to [-c, c] (MXNet's clip::Map); c < 0 leaves x.
template <typename T>
inline T ClipIf(T x, T c) {
  return c >= 0 ? std::min(std::max(x, -c), c) : x;
}

// -1, 0 or 1 (MXNet's (x > 0) - (x < 0)).
template <typename T>
inline T Sign(T x) {
  return static_cast<T>((x > 0) - (x < 0));
}

// A weight or gradient element as float, and a float rounded to the
// weight's dtype (float16 or bfloat16 to nearest even).
template <typename T>
inline float Widen(T v) {
  if constexpr (kIsReducedFloat<T>) {
    return ToFloat(v);
  } else {
    return static_cast<float>(v);
  }
}
template <typename T>
inline T Narrow(float v) {
  if constexpr (kIsReducedFloat<T>) {
    return FromDouble<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

// Calls f(T{}) for float16 (Half), float32 and float64; other dtypes fail
// naming `op`.
template <typename F>
auto DispatchMP(DType t, const char* op, F&& f) {
  if (t == DType::kFloat16) return f(Half{});
  return DispatchFloat(t, op, std::forward<F>(f));
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_OPTIMIZER_UTIL_H_
