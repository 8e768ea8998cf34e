// Unary math operators with MXNet 1.9 names: rounding (floor, ceil, round,
// rint, fix, trunc), sign, powers (rsqrt, reciprocal, cbrt), logs and
// exponentials (log1p, expm1, log2, log10), trigonometric and hyperbolic
// functions and their inverses, special functions (erf, erfinv, gamma,
// gammaln), logical_not, softsign, hard_sigmoid and _contrib_div_sqrt_dim.
//
// Gradients follow MXNet: rounding ops, sign and logical_not give
// zeros_like(x) (MXNet's _backward_sign is dy * 0, the same for finite dy);
// the others use `_backward_<op>(dy, v)` with v the forward input, except
// cbrt, tan and erfinv, whose backward ops read the forward output;
// _contrib_div_sqrt_dim's gradient is _contrib_div_sqrt_dim(dy).
#include "elemwise_common.h"

namespace weft {
namespace op {

namespace {

const char* const kZeroGradOps[][2] = {
    {"floor", "Floor y = the largest integer <= x, elementwise."},
    {"ceil", "Ceiling y = the smallest integer >= x, elementwise."},
    {"round", "Rounds to the nearest integer, halves away from zero, elementwise."},
    {"rint", "Rounds to the nearest integer, halves down (rint(1.5) = 1, rint(-1.5) = -2)."},
    {"fix", "Rounds towards zero, elementwise."},
    {"trunc", "Truncates towards zero, elementwise."},
    {"sign", "Sign y = -1, 0 or 1 (0 for NaN), elementwise."},
    {"logical_not", "Logical NOT y = (x == 0), as 0/1 in the input's dtype."},
};

const UnarySpec kSpecs[] = {
    {"rsqrt", "Reciprocal square root y = 1 / sqrt(x), elementwise.", "_backward_rsqrt", false,
     "Gradient of rsqrt: dx = dy * -0.5 / (sqrt(x) * x)."},
    {"reciprocal", "Reciprocal y = 1 / x, elementwise.", "_backward_reciprocal", false,
     "Gradient of reciprocal: dx = dy * -1 / x^2."},
    {"cbrt", "Cube root y = x^(1/3), elementwise.", "_backward_cbrt", true,
     "Gradient of cbrt from its output: dx = dy / (3 y^2)."},
    {"log1p", "y = ln(1 + x), elementwise.", "_backward_log1p", false,
     "Gradient of log1p: dx = dy / (1 + x)."},
    {"expm1", "y = e^x - 1, elementwise.", "_backward_expm1", false,
     "Gradient of expm1: dx = dy * e^x."},
    {"log2", "Base-2 logarithm, elementwise.", "_backward_log2", false,
     "Gradient of log2: dx = dy / (x ln 2)."},
    {"log10", "Base-10 logarithm, elementwise.", "_backward_log10", false,
     "Gradient of log10: dx = dy / (x ln 10)."},
    {"sin", "Sine, elementwise.", "_backward_sin", false, "Gradient of sin: dx = dy * cos(x)."},
    {"cos", "Cosine, elementwise.", "_backward_cos", false, "Gradient of cos: dx = -dy * sin(x)."},
    {"tan", "Tangent, elementwise.", "_backward_tan", true,
     "Gradient of tan from its output: dx = dy * (1 + y^2)."},
    {"arcsin", "Inverse sine, elementwise.", "_backward_arcsin", false,
     "Gradient of arcsin: dx = dy / sqrt(1 - x^2)."},
    {"arccos", "Inverse cosine, elementwise.", "_backward_arccos", false,
     "Gradient of arccos: dx = -dy / sqrt(1 - x^2)."},
    {"arctan", "Inverse tangent, elementwise.", "_backward_arctan", false,
     "Gradient of arctan: dx = dy / (1 + x^2)."},
    {"sinh", "Hyperbolic sine, elementwise.", "_backward_sinh", false,
     "Gradient of sinh: dx = dy * cosh(x)."},
    {"cosh", "Hyperbolic cosine, elementwise.", "_backward_cosh", false,
     "Gradient of cosh: dx = dy * sinh(x)."},
    {"arcsinh", "Inverse hyperbolic sine, elementwise.", "_backward_arcsinh", false,
     "Gradient of arcsinh: dx = dy / sqrt(x^2 + 1)."},
    {"arccosh", "Inverse hyperbolic cosine, elementwise.", "_backward_arccosh", false,
     "Gradient of arccosh: dx = dy / sqrt(x^2 - 1)."},
    {"arctanh", "Inverse hyperbolic tangent, elementwise.", "_backward_arctanh", false,
     "Gradient of arctanh: dx = dy / (1 - x^2)."},
    {"softsign", "Softsign y = x / (1 + |x|), elementwise.", "_backward_softsign", false,
     "Gradient of softsign: dx = dy / (1 + |x|)^2."},
};

// Special functions, which MXNet also registers under `_npx_` names.
const UnarySpec kSpecialSpecs[] = {
    {"erf", "Gauss error function, elementwise.", "_backward_erf", false,
     "Gradient of erf: dx = dy * 2 / sqrt(pi) * exp(-x^2)."},
    {"erfinv", "Inverse Gauss error function, elementwise (erfinv(+-1) = +-inf).",
     "_backward_erfinv", true,
     "Gradient of erfinv from its output: dx = dy * sqrt(pi) / 2 * exp(y^2)."},
    {"gamma", "Gamma function, elementwise.", "_backward_gamma", false,
     "Gradient of gamma: dx = dy * gamma(x) * digamma(x)."},
    {"gammaln", "Log of the absolute value of the gamma function, elementwise.",
     "_backward_gammaln", false, "Gradient of gammaln: dx = dy * digamma(x)."},
};

// Elementwise shapes, with at least one axis (the last one scales).
bool DivSqrtDimShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const bool known = ElemwiseShape(attrs, in, out);
  if ((*in)[0].ndim() == 0)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must have at least one axis, got ",
         (*in)[0].ToString());
  return known;
}

}  // namespace

void RegisterElemwiseUnaryMath(OpRegistry* reg) {
  for (const auto& z : kZeroGradOps) {
    OpDef d = UnaryDef(z[0], z[1]);
    d.gradient = ZeroGrads;
    reg->Add(std::move(d));
  }
  for (const UnarySpec& s : kSpecs) AddUnaryWithBackward(reg, s);
  for (const UnarySpec& s : kSpecialSpecs)
    AddUnaryWithBackward(reg, s, {}, {std::string("_npx_") + s.name});

  AddUnaryWithBackward(
      reg,
      {"hard_sigmoid", "Hard sigmoid y = max(0, min(1, alpha * x + beta)), elementwise.",
       "_backward_hard_sigmoid", false,
       "Gradient of hard_sigmoid: dx = dy * alpha where 0 < alpha * x + beta < 1, else 0."},
      {FloatParam("alpha", "0.2", "Slope of hard sigmoid."),
       FloatParam("beta", "0.5", "Bias of hard sigmoid.")});

  OpDef dsd = UnaryDef("_contrib_div_sqrt_dim",
                       "Rescales the input by the square root of its last dimension: "
                       "out = data / sqrt(data.shape[-1]).");
  dsd.infer_shape = DivSqrtDimShape;
  dsd.pointwise = false;  // reads the shape's last extent
  dsd.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{GradOp(r, "_contrib_div_sqrt_dim", n, "backward", {og[0]})};
  };
  reg->Add(std::move(dsd));
}

}  // namespace op
}  // namespace weft
