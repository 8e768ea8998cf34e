// Array-with-scalar elementwise operators with MXNet names and aliases:
// _plus_scalar, _minus_scalar, _rminus_scalar (scalar - x), _mul_scalar,
// _div_scalar, _rdiv_scalar (scalar / x) and _power_scalar (x ^ scalar).
// One input "data", parameter `scalar` (float, default 0, cast to the
// array's dtype by the kernels), output in place of the input.
// Gradients: plus/minus -> dy; rminus -> negative(dy); mul/div ->
// _mul_scalar/_div_scalar(dy, scalar); rdiv and power -> their
// `_backward_*_scalar(dy, x)` ops, which copy the forward node's parameters.
#include "elemwise_common.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> ScalarParams() { return {FloatParam("scalar", "0", "The scalar operand.")}; }

// dx = `op_name`(dy) with the forward node's own parameters.
GradientFn GradWithScalar(const std::string& op_name) {
  return [op_name](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{GradOp(r, op_name, n, "backward", {og[0]}, n->attrs.dict)};
  };
}

std::vector<NodeEntry> IdentityGrad(const OpRegistry&, const NodePtr&,
                                    const std::vector<NodeEntry>& og) {
  return {og[0]};
}

void AddScalarOp(OpRegistry* reg, const char* name, const char* alias, const char* doc,
                 GradientFn grad) {
  OpDef d = UnaryDef(name, doc, ScalarParams());
  d.aliases = {alias};
  d.gradient = std::move(grad);
  reg->Add(std::move(d));
}

}  // namespace

void RegisterElemwiseScalar(OpRegistry* reg) {
  AddScalarOp(reg, "_plus_scalar", "_PlusScalar", "Adds a scalar: out = data + scalar.",
              IdentityGrad);
  AddScalarOp(reg, "_minus_scalar", "_MinusScalar", "Subtracts a scalar: out = data - scalar.",
              IdentityGrad);
  AddScalarOp(reg, "_rminus_scalar", "_RMinusScalar",
              "Subtracts from a scalar: out = scalar - data.",
              [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
                return std::vector<NodeEntry>{GradOp(r, "negative", n, "backward", {og[0]})};
              });
  AddScalarOp(reg, "_mul_scalar", "_MulScalar", "Multiplies by a scalar: out = data * scalar.",
              GradWithScalar("_mul_scalar"));
  AddScalarOp(reg, "_div_scalar", "_DivScalar", "Divides by a scalar: out = data / scalar.",
              GradWithScalar("_div_scalar"));
  AddScalarOp(reg, "_rdiv_scalar", "_RDivScalar", "Divides a scalar: out = scalar / data.",
              [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
                return BackwardNode(r, "_backward_rdiv_scalar", n, {og[0], n->inputs[0]}, 1);
              });
  AddScalarOp(reg, "_power_scalar", "_PowerScalar",
              "Raises to a scalar power: out = data ^ scalar.",
              [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
                return BackwardNode(r, "_backward_power_scalar", n, {og[0], n->inputs[0]}, 1);
              });

  reg->Add(BackwardDef("_backward_rdiv_scalar", "data",
                       "Gradient of _rdiv_scalar: dx = -dy * scalar / data^2.", ScalarParams()));
  reg->Add(BackwardDef("_backward_power_scalar", "data",
                       "Gradient of _power_scalar: dx = dy * scalar * data^(scalar - 1).",
                       ScalarParams()));
}

}  // namespace op
}  // namespace weft
