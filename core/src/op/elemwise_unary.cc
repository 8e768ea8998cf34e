// Unary elementwise operators with MXNet names (relu, sigmoid, tanh, exp,
// log, sqrt, square, abs, negative) and the `_backward_*` ops their
// gradients use. Gradients follow MXNet: relu, sigmoid, tanh, sqrt and exp
// read the forward output (OutEntry of the node itself); log, square and abs
// read the forward input; negative's gradient is negative(ograd).
#include "elemwise_common.h"

namespace weft {
namespace op {

namespace {

const UnarySpec kSpecs[] = {
    {"relu", "Rectified linear unit y = max(x, 0), elementwise.", "_backward_relu", true,
     "Gradient of relu from its output: dx = dy * (y > 0)."},
    {"sigmoid", "Logistic sigmoid y = 1 / (1 + exp(-x)), elementwise.", "_backward_sigmoid", true,
     "Gradient of sigmoid from its output: dx = dy * y * (1 - y)."},
    {"tanh", "Hyperbolic tangent y = tanh(x), elementwise.", "_backward_tanh", true,
     "Gradient of tanh from its output: dx = dy * (1 - y^2)."},
    {"log", "Natural logarithm y = ln(x), elementwise.", "_backward_log", false,
     "Gradient of log from its input: dx = dy / x."},
    {"sqrt", "Square root y = sqrt(x), elementwise.", "_backward_sqrt", true,
     "Gradient of sqrt from its output: dx = dy * 0.5 / y."},
    {"square", "Square y = x^2, elementwise.", "_backward_square", false,
     "Gradient of square from its input: dx = dy * 2 * x."},
    {"abs", "Absolute value y = |x|, elementwise.", "_backward_abs", false,
     "Gradient of abs from its input: dx = dy * sign(x)."},
};

}  // namespace

void RegisterElemwiseUnary(OpRegistry* reg) {
  for (const UnarySpec& s : kSpecs) AddUnaryWithBackward(reg, s);

  // exp: dx = dy * y, as MXNet's ElemwiseGradUseOut{"_mul"}.
  OpDef e = UnaryDef("exp", "Exponential y = e^x, elementwise.");
  e.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{GradOp(r, "elemwise_mul", n, "backward", {og[0], OutEntry(n)})};
  };
  reg->Add(std::move(e));

  OpDef neg = UnaryDef("negative", "Numerical negative y = -x, elementwise.");
  neg.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{GradOp(r, "negative", n, "backward", {og[0]})};
  };
  reg->Add(std::move(neg));
}

}  // namespace op
}  // namespace weft
