// CPU kernels of the unary math ops (core/src/op/elemwise_unary_math.cc)
// and their `_backward_*` ops, for float32 and float64, with MXNet's
// formulas (mshadow_op.h). Special functions (erfinv, digamma) are computed
// in double and cast. Every kernel honours kNull/kWrite/kInplace/kAdd and
// tolerates its output aliasing an input.
#include <cmath>

#include "cpu/elemwise_kernels.h"
#include "cpu/elemwise_math.h"

namespace weft {
namespace cpu {

namespace {

// hard_sigmoid: y = clip(alpha * x + beta, 0, 1), alpha and beta rounded to
// float32 first (MXNet's real_t parameters; HardSigmoidParams).
void HardSigmoid(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const HardSigmoidParams& hp = attrs.params.Decoded<HardSigmoidParams>();
  const float alpha = hp.alpha, beta = hp.beta;
  DispatchFloat(in[0].dtype, "hard_sigmoid", [&](auto t) {
    using T = decltype(t);
    const T a = alpha, b = beta;
    const T* x = in[0].data<T>();
    Map(req[0], x, x, out[0].data<T>(), out[0].Size(), [a, b](T v, T) {
      const T y = a * v + b;
      return y > T(1) ? T(1) : (y < T(0) ? T(0) : y);
    });
  });
}

// dx = dy * alpha where 0 < alpha * x + beta < 1, else 0.
void HardSigmoidBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                         const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const HardSigmoidParams& hp = attrs.params.Decoded<HardSigmoidParams>();
  const float alpha = hp.alpha, beta = hp.beta;
  DispatchFloat(in[0].dtype, "_backward_hard_sigmoid", [&](auto t) {
    using T = decltype(t);
    const T a = alpha, b = beta;
    Map(req[0], in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), out[0].Size(),
        [a, b](T g, T x) {
          const T y = a * x + b;
          return y > T(0) && y < T(1) ? g * a : T(0);
        });
  });
}

// out = data / sqrt(last dim), the divisor rounded to the dtype first.
void DivSqrtDim(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const Shape& s = in[0].shape;
  const double d = std::sqrt(static_cast<double>(s[s.ndim() - 1]));
  DispatchFloat(in[0].dtype, "_contrib_div_sqrt_dim", [&](auto t) {
    using T = decltype(t);
    const T q = static_cast<T>(d);
    const T* x = in[0].data<T>();
    Map(req[0], x, x, out[0].data<T>(), out[0].Size(), [q](T v, T) { return v / q; });
  });
}

}  // namespace

void RegisterElemwiseUnaryMathCpu(KernelRegistry* reg) {
  auto add = [reg](const char* name, Kernel k) { reg->Add(name, DeviceType::kCPU, std::move(k)); };
  // Forward maps. In the lambdas T is the element type.
  // Every map also runs on integers, as MXNet's: the math ones in float32
  // (ViaFloat), rounding, sign and logical_not in the integer type.
  auto unary = [&add](const char* name, auto f) {
    add(name, UnaryKernel<true>(name, ViaFloat(f)));
  };
  auto int_unary = [&add](const char* name, auto f) { add(name, UnaryKernel<true>(name, f)); };
  int_unary("floor", [](auto x) { return RoundOp(x, [](auto v) { return std::floor(v); }); });
  int_unary("ceil", [](auto x) { return RoundOp(x, [](auto v) { return std::ceil(v); }); });
  int_unary("round", [](auto x) { return RoundOp(x, [](auto v) { return std::round(v); }); });
  int_unary("rint", [](auto x) { return RoundOp(x, [](auto v) { return Rint(v); }); });
  int_unary("fix", [](auto x) { return RoundOp(x, [](auto v) { return Fix(v); }); });
  int_unary("trunc", [](auto x) { return RoundOp(x, [](auto v) { return std::trunc(v); }); });
  int_unary("sign", [](auto x) { return Sign(x); });
  int_unary("logical_not", [](auto x) { return decltype(x)(x == decltype(x)(0)); });
  unary("rsqrt", [](auto x) { return decltype(x)(1) / std::sqrt(x); });
  unary("reciprocal", [](auto x) { return decltype(x)(1) / x; });
  unary("cbrt", [](auto x) { return std::cbrt(x); });
  unary("log1p", [](auto x) { return std::log1p(x); });
  unary("expm1", [](auto x) { return std::expm1(x); });
  unary("log2", [](auto x) { return std::log2(x); });
  unary("log10", [](auto x) { return std::log10(x); });
  unary("sin", [](auto x) { return std::sin(x); });
  unary("cos", [](auto x) { return std::cos(x); });
  unary("tan", [](auto x) { return std::tan(x); });
  unary("arcsin", [](auto x) { return std::asin(x); });
  unary("arccos", [](auto x) { return std::acos(x); });
  unary("arctan", [](auto x) { return std::atan(x); });
  unary("sinh", [](auto x) { return std::sinh(x); });
  unary("cosh", [](auto x) { return std::cosh(x); });
  unary("arcsinh", [](auto x) { return std::asinh(x); });
  unary("arccosh", [](auto x) { return std::acosh(x); });
  unary("arctanh", [](auto x) { return std::atanh(x); });
  unary("softsign", [](auto x) { return x / (decltype(x)(1) + std::abs(x)); });
  unary("erf", [](auto x) { return std::erf(x); });
  unary("erfinv", [](auto x) { return decltype(x)(Erfinv(x)); });
  unary("gamma", [](auto x) { return std::tgamma(x); });
  unary("gammaln", [](auto x) { return decltype(x)(LogGamma(x)); });

  // Backward maps dx = f(dy, v), v the forward input x or output y.
  auto grad = [&add](const char* name, auto f) { add(name, BinaryKernel(name, f)); };
  grad("_backward_rsqrt",
       [](auto g, auto x) { return g * (decltype(g)(-0.5) / (std::sqrt(x) * x)); });
  grad("_backward_reciprocal", [](auto g, auto x) { return g * (decltype(g)(-1) / (x * x)); });
  grad("_backward_cbrt", [](auto g, auto y) { return g / (decltype(g)(3) * y * y); });
  grad("_backward_log1p", [](auto g, auto x) { return g / (decltype(g)(1) + x); });
  grad("_backward_expm1", [](auto g, auto x) { return g * std::exp(x); });
  grad("_backward_log2", [](auto g, auto x) { return g / (x * decltype(g)(M_LN2)); });
  grad("_backward_log10", [](auto g, auto x) { return g / (x * decltype(g)(M_LN10)); });
  grad("_backward_sin", [](auto g, auto x) { return g * std::cos(x); });
  grad("_backward_cos", [](auto g, auto x) { return -g * std::sin(x); });
  grad("_backward_tan", [](auto g, auto y) { return g * (y * y + decltype(g)(1)); });
  grad("_backward_arcsin", [](auto g, auto x) { return g / std::sqrt(decltype(g)(1) - x * x); });
  grad("_backward_arccos", [](auto g, auto x) { return -g / std::sqrt(decltype(g)(1) - x * x); });
  grad("_backward_arctan", [](auto g, auto x) { return g / (x * x + decltype(g)(1)); });
  grad("_backward_sinh", [](auto g, auto x) { return g * std::cosh(x); });
  grad("_backward_cosh", [](auto g, auto x) { return g * std::sinh(x); });
  grad("_backward_arcsinh", [](auto g, auto x) { return g / std::hypot(x, decltype(g)(1)); });
  grad("_backward_arccosh", [](auto g, auto x) { return g / std::sqrt(x * x - decltype(g)(1)); });
  grad("_backward_arctanh", [](auto g, auto x) { return g / (decltype(g)(1) - x * x); });
  grad("_backward_softsign", [](auto g, auto x) {
    const auto d = decltype(g)(1) + std::abs(x);
    return g / (d * d);
  });
  grad("_backward_erf", [](auto g, auto x) {
    return g * decltype(g)(2 / std::sqrt(M_PI) * std::exp(-static_cast<double>(x) * x));
  });
  grad("_backward_erfinv", [](auto g, auto y) {
    return g * decltype(g)(0.5 * std::sqrt(M_PI) * std::exp(static_cast<double>(y) * y));
  });
  grad("_backward_gamma", [](auto g, auto x) {
    return g * decltype(g)(std::tgamma(static_cast<double>(x)) * Digamma(x));
  });
  grad("_backward_gammaln", [](auto g, auto x) { return g * decltype(g)(Digamma(x)); });

  add("hard_sigmoid", {"cpu", 0, HardSigmoid, true});
  add("_backward_hard_sigmoid", {"cpu", 0, HardSigmoidBackward, true});
  add("_contrib_div_sqrt_dim", {"cpu", 0, DivSqrtDim, true});
}

}  // namespace cpu
}  // namespace weft
