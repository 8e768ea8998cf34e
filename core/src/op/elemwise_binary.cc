// Same-shape binary elementwise operators with MXNet names and aliases:
// elemwise_add/sub/mul/div on inputs ("lhs", "rhs") of equal shape and
// dtype (bidirectional inference), output in place of either input.
// Gradients: add -> (dy, dy); sub -> (dy, -dy); mul -> (dy*rhs, dy*lhs)
// with elemwise_mul; div -> `_backward_div(dy, lhs, rhs)` with two outputs.
// elemwise_add also serves imperative req=add accumulation (invoke.cc).
#include "elemwise_common.h"

namespace weft {
namespace op {

namespace {

OpDef BinaryDef(std::string name, std::vector<std::string> aliases, std::string doc) {
  OpDef d;
  d.name = std::move(name);
  d.aliases = std::move(aliases);
  d.doc = std::move(doc);
  d.num_inputs = 2;
  d.input_names = FixedNames({"lhs", "rhs"});
  d.infer_shape = ElemwiseShape;
  d.infer_type = ElemwiseType;
  d.inplace = InplaceEither;
  return d;
}

}  // namespace

void RegisterElemwiseBinary(OpRegistry* reg) {
  OpDef add = BinaryDef("elemwise_add", {"_plus", "_Plus", "_add"},
                        "Adds two arrays of the same shape elementwise: out = lhs + rhs.");
  add.gradient = [](const OpRegistry&, const NodePtr&, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{og[0], og[0]};
  };
  reg->Add(std::move(add));

  OpDef sub = BinaryDef("elemwise_sub", {"_minus", "_Minus", "_sub"},
                        "Subtracts two arrays of the same shape elementwise: out = lhs - rhs.");
  sub.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{og[0], GradOp(r, "negative", n, "rhs_grad", {og[0]})};
  };
  reg->Add(std::move(sub));

  OpDef mul = BinaryDef("elemwise_mul", {"_mul", "_Mul"},
                        "Multiplies two arrays of the same shape elementwise: out = lhs * rhs.");
  mul.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{GradOp(r, "elemwise_mul", n, "lhs_grad", {og[0], n->inputs[1]}),
                                  GradOp(r, "elemwise_mul", n, "rhs_grad", {og[0], n->inputs[0]})};
  };
  reg->Add(std::move(mul));

  OpDef div = BinaryDef("elemwise_div", {"_div", "_Div"},
                        "Divides two arrays of the same shape elementwise: out = lhs / rhs.");
  div.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_div", n, {og[0], n->inputs[0], n->inputs[1]}, 2);
  };
  reg->Add(std::move(div));

  OpDef bdiv;
  bdiv.name = "_backward_div";
  bdiv.doc = "Gradient of elemwise_div: lhs_grad = dy / rhs, rhs_grad = -dy * lhs / rhs^2.";
  bdiv.num_inputs = 3;
  bdiv.num_outputs = 2;
  bdiv.input_names = FixedNames({"ograd", "lhs", "rhs"});
  bdiv.output_names = FixedNames({"lhs_grad", "rhs_grad"});
  bdiv.infer_shape = ElemwiseShape;
  bdiv.infer_type = ElemwiseType;
  // The kernel reads all three inputs of an element before writing it.
  bdiv.inplace = [](const ParamValues&) {
    return std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {2, 1}};
  };
  reg->Add(std::move(bdiv));
}

}  // namespace op
}  // namespace weft
