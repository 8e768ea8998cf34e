// Einstein summation with MXNet 1.9's name and parameters: `_npi_einsum`
// (numpy.einsum in MXNet's numpy interface) and its gradient
// `_backward_npi_einsum`.
//
// _npi_einsum(arg0, ..., arg{num_args-1}; subscripts, num_args, optimize):
//   the subscripts' grammar and broadcasting in weft/einsum.h; inputs of
//   one dtype, the output of that dtype. `optimize` (MXNet's einsum_path
//   switch) is accepted and changes nothing: the kernels contract the
//   operands pairwise from the left whatever its value (the result is the
//   same up to rounding).
// _backward_npi_einsum(ograd, arg0, ...) -> (arg0_grad, ...): the gradient
//   of each operand, the sum over every other label of ograd times the
//   other operands, scattered onto the operand's axes (a repeated letter's
//   diagonal, an axis of extent 1 broadcast in the forward summed into).
//   Every subscripts string the forward takes has a gradient.
//
// Shape inference is forward: it needs every operand's rank, fills the
// output's extents from the operands', and leaves an extent unknown (0)
// where no operand knows it.
#include "op_common.h"
#include "weft/einsum.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> EinsumParams() {
  return {Ranged(RequiredParam("num_args", ParamType::kInt, "Number of operands."), 1, 1e6),
          StringParam("subscripts", "",
                      "The summation: comma-separated operand terms, optionally '->' and the "
                      "output term (NumPy's einsum subscripts)."),
          IntParam("optimize", "0",
                   "MXNet's contraction-order search switch; accepted, the order is always "
                   "pairwise from the left.")};
}

// "operator _npi_einsum (node 'e')": the start of every error.
std::string Who(const NodeAttrs& attrs) {
  std::string s = "operator " + attrs.op->name;
  if (!attrs.name.empty() && attrs.name != attrs.op->name) s += " (node '" + attrs.name + "')";
  return s;
}

// Binds the subscripts to `in` into `*l`; false (nothing bound) while a
// rank is unknown.
bool Layout(const NodeAttrs& attrs, const std::vector<Shape>& in, EinsumLayout* l) {
  for (const Shape& s : in)
    if (!s.ndim_known()) return false;
  const std::string who = Who(attrs);
  *l =
      EinsumLayout::Bind(EinsumEquation::Parse(attrs.params.GetString("subscripts"), who), in, who);
  return true;
}

bool EinsumShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  EinsumLayout l;
  if (!Layout(attrs, *in, &l)) return false;
  AssignShape(attrs, out, 0, l.OutputShape(), "output 0");
  return AllKnown(*in) && AllKnown(*out);
}

// in = (ograd, operands...), out = (operand grads...).
bool EinsumBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const size_t n = out->size();
  for (size_t i = 0; i < n; ++i) {
    AssignShape(attrs, out, i, (*in)[i + 1], "output " + std::to_string(i));
    AssignShape(attrs, in, i + 1, (*out)[i], "input 'arg" + std::to_string(i) + "'");
  }
  EinsumLayout l;
  if (Layout(attrs, std::vector<Shape>(in->begin() + 1, in->end()), &l))
    AssignShape(attrs, in, 0, l.OutputShape(), "input 'ograd'");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<std::string> ArgNames(const ParamValues& p, bool with_ograd) {
  std::vector<std::string> names;
  if (with_ograd) names.push_back("ograd");
  for (int64_t i = 0; i < p.GetInt("num_args"); ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

}  // namespace

void RegisterEinsum(OpRegistry* reg) {
  OpDef f;
  f.name = "_npi_einsum";
  f.doc =
      "Einstein summation over the operands as `subscripts` says (numpy.einsum): products, "
      "transposes, diagonals, sums and broadcasting over '...'.";
  f.params = EinsumParams();
  f.key_var_num_args = "num_args";
  f.num_inputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_args")); };
  f.input_names = [](const ParamValues& p) { return ArgNames(p, false); };
  f.infer_shape = EinsumShape;
  f.infer_type = ElemwiseType;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> ins = {og[0]};
    for (const auto& e : n->inputs) ins.push_back(e);
    return BackwardNode(r, "_backward_npi_einsum", n, ins, static_cast<int>(n->inputs.size()));
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_npi_einsum";
  b.doc = "Gradient of _npi_einsum: each operand's gradient from (ograd, operands...).";
  b.params = EinsumParams();
  b.num_inputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_args")) + 1; };
  b.num_outputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_args")); };
  b.input_names = [](const ParamValues& p) { return ArgNames(p, true); };
  b.infer_shape = EinsumBackwardShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace op
}  // namespace weft
