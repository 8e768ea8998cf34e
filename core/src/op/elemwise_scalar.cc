// Array-with-scalar elementwise operators with MXNet names and aliases:
// _plus_scalar, _minus_scalar, _rminus_scalar (scalar - x), _mul_scalar,
// _div_scalar, _rdiv_scalar (scalar / x), _power_scalar (x ^ scalar),
// _rpower_scalar, _maximum_scalar, _minimum_scalar, _hypot_scalar,
// _mod_scalar and _rmod_scalar (comparisons: elemwise_compare.cc).
// One input "data", parameters `scalar` (float, default 1, cast to the
// array's dtype by the kernels) and `is_int` (MXNet 1.9), output in place
// of the input.
// Gradients: plus/minus -> dy; rminus -> negative(dy); mul/div ->
// _mul_scalar/_div_scalar(dy, scalar); the others -> their
// `_backward_*_scalar(dy, v)` ops (v = x, or y for rpower), which copy the
// forward node's parameters. max/min give ties to the data.
#include "elemwise_common.h"

namespace weft {
namespace op {

std::vector<ParamDecl> ScalarParams() {
  return {FloatParam("scalar", "1", "The scalar operand."),
          BoolParam("is_int", "True",
                    "Whether the scalar is an integer (MXNet 1.9; float inputs ignore it).")};
}

OpDef ScalarDef(std::string name, std::vector<std::string> aliases, std::string doc) {
  OpDef d = UnaryDef(std::move(name), std::move(doc), ScalarParams());
  d.aliases = std::move(aliases);
  return d;
}

namespace {

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
  OpDef d = ScalarDef(name, {alias}, doc);
  d.gradient = std::move(grad);
  reg->Add(std::move(d));
}

// dx = `_backward_<op>(dy, x or y)` with the forward node's parameters.
struct ScalarMathSpec {
  const char* name;
  const char* alias;
  const char* doc;
  bool use_output;  // the backward op reads y (else x)
  const char* backward_doc;
};

const ScalarMathSpec kMathSpecs[] = {
    {"_maximum_scalar", "_MaximumScalar", "Maximum with a scalar (NaN data gives NaN).", false,
     "Gradient of _maximum_scalar: dx = dy * (data >= scalar)."},
    {"_minimum_scalar", "_MinimumScalar", "Minimum with a scalar (NaN data gives NaN).", false,
     "Gradient of _minimum_scalar: dx = dy * (data <= scalar)."},
    {"_rpower_scalar", "_RPowerScalar", "Raises a scalar to the data: out = scalar ^ data.", true,
     "Gradient of _rpower_scalar from its output: dx = dy * out * ln(scalar)."},
    {"_hypot_scalar", "_HypotScalar", "Hypotenuse with a scalar: out = sqrt(data^2 + scalar^2).",
     false, "Gradient of _hypot_scalar: dx = dy * data / sqrt(data^2 + scalar^2)."},
    {"_mod_scalar", "_ModScalar",
     "Modulo by a scalar with the sign of the divisor (Python's %); 0 when scalar is 0.", false,
     "Gradient of _mod_scalar: dx = dy."},
    {"_rmod_scalar", "_RModScalar",
     "Scalar modulo the data, with the sign of the divisor (Python's %); 0 where data is 0.", false,
     "Gradient of _rmod_scalar: dx = -dy * floor(scalar / data)."},
};

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

  for (const ScalarMathSpec& m : kMathSpecs) {
    const std::string backward = std::string("_backward_") + (m.name + 1);
    AddScalarOp(reg, m.name, m.alias, m.doc, GradVia(backward, m.use_output));
    reg->Add(
        BackwardDef(backward, m.use_output ? "output" : "data", m.backward_doc, ScalarParams()));
  }

  reg->Add(BackwardDef("_backward_rdiv_scalar", "data",
                       "Gradient of _rdiv_scalar: dx = -dy * scalar / data^2.", ScalarParams()));
  reg->Add(BackwardDef("_backward_power_scalar", "data",
                       "Gradient of _power_scalar: dx = dy * scalar * data^(scalar - 1).",
                       ScalarParams()));
}

}  // namespace op
}  // namespace weft
