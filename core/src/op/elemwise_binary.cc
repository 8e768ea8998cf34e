// Same-shape binary elementwise operators with MXNet names and aliases:
// elemwise_add/sub/mul/div and _maximum/_minimum/_power/_hypot/_mod on
// inputs ("lhs", "rhs") of equal shape and dtype (bidirectional inference),
// output in place of either input. Comparisons: elemwise_compare.cc.
// Gradients: add -> (dy, dy); sub -> (dy, -dy); mul -> (dy*rhs, dy*lhs)
// with elemwise_mul; div and the math ops -> `_backward_<op>(dy, lhs, rhs)`
// with two outputs (MXNet's formulas; max/min give ties to lhs).
// elemwise_add also serves imperative req=add accumulation (invoke.cc).
#include "elemwise_common.h"

namespace weft {
namespace op {

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
  d.pointwise = true;
  return d;
}

namespace {

// Binary math ops whose gradient is `_backward_<op>(dy, lhs, rhs)` with two
// outputs, as MXNet's ElemwiseGradUseIn.
struct BinaryMathSpec {
  const char* name;
  const char* alias;
  const char* doc;
  const char* backward;
  const char* backward_doc;
};

const BinaryMathSpec kMathSpecs[] = {
    {"_maximum", "_Maximum", "Elementwise maximum (NaN in either input gives NaN).",
     "_backward_maximum",
     "Gradient of _maximum: lhs_grad = dy * (lhs >= rhs), rhs_grad = dy * (lhs < rhs)."},
    {"_minimum", "_Minimum", "Elementwise minimum (NaN in either input gives NaN).",
     "_backward_minimum",
     "Gradient of _minimum: lhs_grad = dy * (lhs <= rhs), rhs_grad = dy * (lhs > rhs)."},
    {"_power", "_Power", "Elementwise power: out = lhs ^ rhs.", "_backward_power",
     "Gradient of _power: lhs_grad = dy * rhs * lhs^(rhs - 1), rhs_grad = dy * lhs^rhs * ln(lhs)."},
    {"_hypot", "_Hypot", "Hypotenuse: out = sqrt(lhs^2 + rhs^2), elementwise.", "_backward_hypot",
     "Gradient of _hypot: lhs_grad = dy * lhs / out, rhs_grad = dy * rhs / out."},
    {"_mod", "_Mod",
     "Modulo with the sign of the divisor (Python's %): out = lhs - floor(lhs / rhs) * rhs; "
     "0 where rhs is 0.",
     "_backward_mod", "Gradient of _mod: lhs_grad = dy, rhs_grad = -dy * floor(lhs / rhs)."},
};

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

  for (const BinaryMathSpec& m : kMathSpecs) {
    OpDef d = BinaryDef(m.name, {m.alias}, m.doc);
    const std::string backward = m.backward;
    d.gradient = [backward](const OpRegistry& r, const NodePtr& n,
                            const std::vector<NodeEntry>& og) {
      return BackwardNode(r, backward, n, {og[0], n->inputs[0], n->inputs[1]}, 2);
    };
    reg->Add(std::move(d));
    reg->Add(BackwardBinaryDef(m.backward, m.backward_doc));
  }

  reg->Add(BackwardBinaryDef(
      "_backward_div",
      "Gradient of elemwise_div: lhs_grad = dy / rhs, rhs_grad = -dy * lhs / rhs^2."));
}

}  // namespace op
}  // namespace weft
