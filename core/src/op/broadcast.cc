// Broadcasting binary operators with MXNet names and aliases:
// broadcast_add (broadcast_plus), broadcast_sub (broadcast_minus),
// broadcast_mul, broadcast_div and broadcast_maximum/minimum/power/hypot/mod
// on inputs ("lhs", "rhs"); the comparisons are in elemwise_compare.cc.
//
// Shapes follow numpy/MXNet rules: align on the right, pad the shorter with
// leading 1s, and each pair of extents must be equal or contain a 1. As in
// MXNet, inference is forward only: both inputs must be known and the output
// is filled (a conflicting given output is an error). Dtypes must be equal.
// Either input may share memory with the output; this is only valid when
// that input has the output's shape, which memory planners must check.
//
// Gradients reduce the output gradient back to each input's shape with the
// internal op `_broadcast_backward_reduce(ograd, like)` (sum over the axes
// along which `like` was broadcast): add -> (R(dy, lhs), R(dy, rhs));
// sub -> (R(dy, lhs), R(negative(dy), rhs)); mul -> (R(dy*rhs, lhs),
// R(dy*lhs, rhs)) with broadcast_mul; div and the math ops ->
// `_backward_broadcast_<op>(dy, lhs, rhs)` whose two outputs already have
// the inputs' shapes (MXNet's formulas; max/min give ties to lhs).
#include <algorithm>

#include "elemwise_common.h"

namespace weft {
namespace op {

namespace {

// The broadcast of `l` and `r`; throws Error(kShape) naming the op and both.
Shape BroadcastShapes(const NodeAttrs& attrs, const Shape& l, const Shape& r,
                      const char* l_name = "lhs", const char* r_name = "rhs") {
  const int n = std::max(l.ndim(), r.ndim());
  std::vector<int64_t> dims(n);
  for (int i = 0; i < n; ++i) {
    const int li = i - (n - l.ndim()), ri = i - (n - r.ndim());
    const int64_t a = li >= 0 ? l[li] : 1, b = ri >= 0 ? r[ri] : 1;
    if (a == b || b == 1) {
      dims[i] = a;
    } else if (a == 1) {
      dims[i] = b;
    } else {
      Fail(StatusCode::kShape, OpLabel(attrs), ": shapes ", l.ToString(), " (", l_name, ") and ",
           r.ToString(), " (", r_name, ") cannot be broadcast together: axis ", i,
           " of the result has extents ", a, " vs ", b, " (each must be equal or 1)");
    }
  }
  return Shape(std::move(dims));
}

bool BroadcastInferShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& l = (*in)[0];
  const Shape& r = (*in)[1];
  if (!l.is_known() || !r.is_known()) return false;
  AssignShape(attrs, out, 0, BroadcastShapes(attrs, l, r), "output 0");
  return true;
}

// REQUIRES: both known. Throws unless `like` broadcasts to exactly `big`.
void CheckBroadcastsTo(const NodeAttrs& attrs, const Shape& like, const Shape& big,
                       const char* like_name) {
  if (like.ndim() > big.ndim() || BroadcastShapes(attrs, like, big, like_name, "ograd") != big)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input '", like_name, "' of shape ", like.ToString(),
         " does not broadcast to the output gradient's shape ", big.ToString());
}

bool ReduceInferShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output 0");
  AssignShape(attrs, in, 1, (*out)[0], "input 'like'");
  if ((*in)[0].is_known() && (*in)[1].is_known())
    CheckBroadcastsTo(attrs, (*in)[1], (*in)[0], "like");
  return AllKnown(*in) && AllKnown(*out);
}

bool BroadcastBackwardInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output 0 (lhs_grad)");
  AssignShape(attrs, out, 1, (*in)[2], "output 1 (rhs_grad)");
  AssignShape(attrs, in, 1, (*out)[0], "input 'lhs'");
  AssignShape(attrs, in, 2, (*out)[1], "input 'rhs'");
  const Shape &og = (*in)[0], &l = (*in)[1], &r = (*in)[2];
  if (og.is_known() && l.is_known() && r.is_known() && BroadcastShapes(attrs, l, r) != og)
    Fail(StatusCode::kShape, OpLabel(attrs), ": output gradient shape ", og.ToString(),
         " is not the broadcast of lhs ", l.ToString(), " and rhs ", r.ToString());
  return AllKnown(*in) && AllKnown(*out);
}

// Sums `grad` (the output's shape) down to the shape of `like`.
NodeEntry ReduceTo(const OpRegistry& r, const NodePtr& n, const std::string& suffix,
                   const NodeEntry& grad, const NodeEntry& like) {
  return GradOp(r, "_broadcast_backward_reduce", n, suffix, {grad, like});
}

// Broadcasting math ops whose gradient is `_backward_broadcast_<op>(dy,
// lhs, rhs)`, with MXNet's formulas.
struct BroadcastMathSpec {
  const char* name;
  const char* doc;
  const char* backward_doc;
};

const BroadcastMathSpec kMathSpecs[] = {
    {"broadcast_maximum", "Elementwise maximum with broadcasting (NaN in either gives NaN).",
     "Gradient of broadcast_maximum: lhs_grad = R(dy * (lhs >= rhs)), "
     "rhs_grad = R(dy * (lhs < rhs))."},
    {"broadcast_minimum", "Elementwise minimum with broadcasting (NaN in either gives NaN).",
     "Gradient of broadcast_minimum: lhs_grad = R(dy * (lhs <= rhs)), "
     "rhs_grad = R(dy * (lhs > rhs))."},
    {"broadcast_power", "Power with broadcasting: out = lhs ^ rhs.",
     "Gradient of broadcast_power: lhs_grad = R(dy * rhs * lhs^(rhs - 1)), "
     "rhs_grad = R(dy * lhs^rhs * ln(lhs))."},
    {"broadcast_hypot", "Hypotenuse with broadcasting: out = sqrt(lhs^2 + rhs^2).",
     "Gradient of broadcast_hypot: lhs_grad = R(dy * lhs / out), rhs_grad = R(dy * rhs / out)."},
    {"broadcast_mod",
     "Modulo with broadcasting and the sign of the divisor (Python's %); 0 where rhs is 0.",
     "Gradient of broadcast_mod: lhs_grad = R(dy), rhs_grad = R(-dy * floor(lhs / rhs))."},
};

// A `_backward_broadcast_<op>` OpDef: inputs (ograd, lhs, rhs), outputs
// with the shapes of lhs and rhs.
OpDef BroadcastBackwardDef(std::string name, std::string doc) {
  OpDef d = BackwardBinaryDef(std::move(name), std::move(doc));
  d.infer_shape = BroadcastBackwardInferShape;
  d.inplace = nullptr;  // the gradients are reductions to smaller shapes
  return d;
}

}  // namespace

OpDef BroadcastDef(std::string name, std::vector<std::string> aliases, std::string doc) {
  OpDef d;
  d.name = std::move(name);
  d.aliases = std::move(aliases);
  d.doc = std::move(doc);
  d.num_inputs = 2;
  d.input_names = FixedNames({"lhs", "rhs"});
  d.infer_shape = BroadcastInferShape;
  // A run's array without elements broadcasts as numpy's: 0 pairs with 0 or 1.
  d.infer_empty_shape = [](const NodeAttrs& attrs, const std::vector<Shape>& in) {
    return std::vector<Shape>{BroadcastShapes(attrs, in[0], in[1])};
  };
  d.infer_type = ElemwiseType;
  d.inplace = InplaceEither;
  return d;
}

void RegisterBroadcast(OpRegistry* reg) {
  OpDef add = BroadcastDef("broadcast_add", {"broadcast_plus"},
                           "Adds two arrays with broadcasting: out = lhs + rhs.");
  add.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{ReduceTo(r, n, "lhs_grad", og[0], n->inputs[0]),
                                  ReduceTo(r, n, "rhs_grad", og[0], n->inputs[1])};
  };
  reg->Add(std::move(add));

  OpDef sub = BroadcastDef("broadcast_sub", {"broadcast_minus"},
                           "Subtracts two arrays with broadcasting: out = lhs - rhs.");
  sub.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    NodeEntry neg = GradOp(r, "negative", n, "rhs_grad_neg", {og[0]});
    return std::vector<NodeEntry>{ReduceTo(r, n, "lhs_grad", og[0], n->inputs[0]),
                                  ReduceTo(r, n, "rhs_grad", neg, n->inputs[1])};
  };
  reg->Add(std::move(sub));

  OpDef mul = BroadcastDef("broadcast_mul", {},
                           "Multiplies two arrays with broadcasting: out = lhs * rhs.");
  mul.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    NodeEntry l = GradOp(r, "broadcast_mul", n, "lhs_grad_mul", {og[0], n->inputs[1]});
    NodeEntry rr = GradOp(r, "broadcast_mul", n, "rhs_grad_mul", {og[0], n->inputs[0]});
    return std::vector<NodeEntry>{ReduceTo(r, n, "lhs_grad", l, n->inputs[0]),
                                  ReduceTo(r, n, "rhs_grad", rr, n->inputs[1])};
  };
  reg->Add(std::move(mul));

  OpDef div =
      BroadcastDef("broadcast_div", {}, "Divides two arrays with broadcasting: out = lhs / rhs.");
  div.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_broadcast_div", n, {og[0], n->inputs[0], n->inputs[1]}, 2);
  };
  reg->Add(std::move(div));

  OpDef red;
  red.name = "_broadcast_backward_reduce";
  red.doc =
      "Sums ograd over the axes along which `like` broadcasts to it; the output has like's shape.";
  red.num_inputs = 2;
  red.input_names = FixedNames({"ograd", "like"});
  red.infer_shape = ReduceInferShape;
  red.infer_type = ElemwiseType;
  reg->Add(std::move(red));

  reg->Add(BroadcastBackwardDef(
      "_backward_broadcast_div",
      "Gradient of broadcast_div: lhs_grad = R(dy / rhs), rhs_grad = R(-dy * lhs / rhs^2), "
      "R summing to each input's shape."));

  for (const BroadcastMathSpec& m : kMathSpecs) {
    OpDef d = BroadcastDef(m.name, {}, m.doc);
    const std::string backward = std::string("_backward_") + m.name;
    d.gradient = [backward](const OpRegistry& r, const NodePtr& n,
                            const std::vector<NodeEntry>& og) {
      return BackwardNode(r, backward, n, {og[0], n->inputs[0], n->inputs[1]}, 2);
    };
    reg->Add(std::move(d));
    reg->Add(BroadcastBackwardDef(backward, m.backward_doc));
  }
}

}  // namespace op
}  // namespace weft
