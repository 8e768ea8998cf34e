// The seed's tutorial operator: y = a*x^2 + b*x + c, elementwise.
#include "op_common.h"

namespace weft {
namespace op {

static std::vector<ParamDecl> QuadraticParams() {
  return {FloatParam("a", "0", "Coefficient of the quadratic term."),
          FloatParam("b", "0", "Coefficient of the linear term."),
          FloatParam("c", "0", "Constant term.")};
}

void RegisterQuadratic(OpRegistry* reg) {
  OpDef f;
  f.name = "quadratic";
  f.aliases = {"_contrib_quadratic"};
  f.doc = "Elementwise quadratic y = a*x^2 + b*x + c.";
  f.params = QuadraticParams();
  f.infer_shape = ElemwiseShape;
  f.infer_type = ElemwiseType;
  f.inplace = InplaceFirst;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_quadratic", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_quadratic";
  b.doc = "Gradient of quadratic: dx = dy * (2*a*x + b).";
  b.params = QuadraticParams();
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "data"});
  b.infer_shape = ElemwiseShape;
  b.infer_type = ElemwiseType;
  b.inplace = InplaceFirst;
  reg->Add(std::move(b));
}

}  // namespace op
}  // namespace weft
