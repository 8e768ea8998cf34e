// Matrix products with MXNet names and semantics: dot and batch_dot, plus
// `_backward_dot` / `_backward_batch_dot`.
//
// dot(lhs, rhs; transpose_a, transpose_b):
//   1-D . 1-D is the inner product with shape (1,) (transposes are ignored);
//   otherwise, as MXNet's DotForward_, lhs is viewed as a matrix
//   (prod(shape[:-1]), shape[-1]), or (shape[0], prod(shape[1:])) transposed
//   when transpose_a; rhs as (shape[0], prod(shape[1:])), or
//   (prod(shape[:-1]), shape[-1]) transposed when transpose_b. The
//   contracted extent is lhs's last (first when transposed) axis and rhs's
//   first (last when transposed) axis; the output shape is lhs's remaining
//   axes followed by rhs's remaining axes (a 1-D operand contributes none).
// batch_dot(lhs, rhs; transpose_a, transpose_b): both of equal rank >= 3
//   with equal leading (batch) axes; the last two axes are multiplied as
//   matrices: (..., M, K) . (..., K, N) -> (..., M, N), and the transposes
//   swap the last two axes of an operand.
// Inference is bidirectional once both input ranks are known: every extent
// is a named variable shared between lhs, rhs and output, filled from
// whichever knows it. Dtypes are equal.
//
// Gradients: `_backward_dot(ograd, lhs, rhs)` and
// `_backward_batch_dot(ograd, lhs, rhs)`, two outputs each (lhs_grad,
// rhs_grad) with the inputs' shapes, computed by GEMM calls in the kernels.
#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> DotParams() {
  return {BoolParam("transpose_a", "False", "Use the transpose of lhs."),
          BoolParam("transpose_b", "False", "Use the transpose of rhs."),
          Optional(EnumParam(
              "forward_stype", "None", {"default", "row_sparse", "csr"},
              "MXNet storage type of the output; only dense ('default' or None) is supported."))};
}

// A position of one extent: tensor (0 lhs, 1 rhs, 2 output) and axis.
struct DimRef {
  int tensor;
  int axis;
};
// Each variable lists every position that must hold the same extent.
using DimVars = std::vector<std::vector<DimRef>>;

const char* const kTensorNames[] = {"lhs", "rhs", "output"};

const char* BoolText(bool b) { return b ? "True" : "False"; }

// Unifies the extents of each variable across `shapes` (lhs, rhs, out; all
// of known rank), filling unknown (0) extents. Throws Error(kShape) naming
// the op, both shapes and the transposes on a conflict.
void UnifyDims(const NodeAttrs& attrs, const DimVars& vars, Shape* shapes[3]) {
  for (const auto& refs : vars) {
    int64_t v = 0;
    const DimRef* first = nullptr;
    for (const DimRef& r : refs) {
      const int64_t x = (*shapes[r.tensor])[r.axis];
      if (x == 0) continue;
      if (v != 0 && x != v)
        Fail(StatusCode::kShape, "operator ", attrs.op->name, ": shapes do not match: lhs ",
             shapes[0]->ToString(), ", rhs ", shapes[1]->ToString(), ", output ",
             shapes[2]->ToString(), " (transpose_a=", BoolText(attrs.params.GetBool("transpose_a")),
             ", transpose_b=", BoolText(attrs.params.GetBool("transpose_b")),
             "): ", kTensorNames[first->tensor], " axis ", first->axis, " has extent ", v, " but ",
             kTensorNames[r.tensor], " axis ", r.axis, " has extent ", x);
      if (v == 0) {
        v = x;
        first = &r;
      }
    }
    for (const DimRef& r : refs) (*shapes[r.tensor])[r.axis] = v;
  }
}

void CheckDense(const NodeAttrs& attrs) {
  const ParamValues& p = attrs.params;
  if (!p.IsNone("forward_stype") && p.GetString("forward_stype") != "default")
    Fail(StatusCode::kNotImplemented, "operator ", attrs.op->name, ": forward_stype '",
         p.GetString("forward_stype"), "' is not supported (only dense 'default')");
}

// Sets the output's rank (checking a given one) and unifies the extents.
bool Unify(const NodeAttrs& attrs, const DimVars& vars, int out_rank, std::vector<Shape>* in,
           std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, Shape::Unknown(out_rank), "output 0");
  Shape* shapes[3] = {&(*in)[0], &(*in)[1], &(*out)[0]};
  UnifyDims(attrs, vars, shapes);
  return AllKnown(*in) && AllKnown(*out);
}

// dot shape inference on in = (lhs, rhs), out = (output).
bool DotShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  CheckDense(attrs);
  const Shape& l = (*in)[0];
  const Shape& r = (*in)[1];
  if (!l.ndim_known() || !r.ndim_known()) return false;
  if (l.ndim() == 0 || r.ndim() == 0)
    Fail(StatusCode::kShape, "operator ", attrs.op->name, ": lhs ", l.ToString(), " and rhs ",
         r.ToString(), " must both have rank >= 1");
  if (l.ndim() == 1 && r.ndim() == 1) {
    AssignShape(attrs, out, 0, Shape({1}), "output 0");
    return Unify(attrs, {{{0, 0}, {1, 0}}}, 1, in, out);
  }
  const bool ta = attrs.params.GetBool("transpose_a");
  const bool tb = attrs.params.GetBool("transpose_b");
  const int lk = ta ? 0 : l.ndim() - 1;  // contracted axis of lhs
  const int rk = tb ? r.ndim() - 1 : 0;  // contracted axis of rhs
  DimVars vars = {{{0, lk}, {1, rk}}};
  int o = 0;
  if (l.ndim() > 1)
    for (int i = 0; i < l.ndim(); ++i)
      if (i != lk) vars.push_back({{0, i}, {2, o++}});
  if (r.ndim() > 1)
    for (int i = 0; i < r.ndim(); ++i)
      if (i != rk) vars.push_back({{1, i}, {2, o++}});
  return Unify(attrs, vars, o, in, out);
}

// batch_dot shape inference on in = (lhs, rhs), out = (output).
bool BatchDotShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  CheckDense(attrs);
  const Shape& l = (*in)[0];
  const Shape& r = (*in)[1];
  if (!l.ndim_known() || !r.ndim_known()) return false;
  if (l.ndim() < 3 || l.ndim() != r.ndim())
    Fail(StatusCode::kShape, "operator ", attrs.op->name, ": lhs ", l.ToString(), " and rhs ",
         r.ToString(), " must have the same rank >= 3 (batch axes first, then a matrix)");
  const bool ta = attrs.params.GetBool("transpose_a");
  const bool tb = attrs.params.GetBool("transpose_b");
  const int n = l.ndim();
  DimVars vars;
  for (int i = 0; i < n - 2; ++i) vars.push_back({{0, i}, {1, i}, {2, i}});
  vars.push_back({{0, ta ? n - 1 : n - 2}, {2, n - 2}});               // M
  vars.push_back({{1, tb ? n - 2 : n - 1}, {2, n - 1}});               // N
  vars.push_back({{0, ta ? n - 2 : n - 1}, {1, tb ? n - 1 : n - 2}});  // K
  return Unify(attrs, vars, n, in, out);
}

// Shape inference of a backward op (ograd, lhs, rhs) -> (lhs_grad, rhs_grad):
// the gradients have the inputs' shapes, and ograd has the forward output's.
InferShapeFn BackwardShape(InferShapeFn forward) {
  return [forward](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
    AssignShape(attrs, out, 0, (*in)[1], "output 'lhs_grad'");
    AssignShape(attrs, out, 1, (*in)[2], "output 'rhs_grad'");
    AssignShape(attrs, in, 1, (*out)[0], "input 'lhs'");
    AssignShape(attrs, in, 2, (*out)[1], "input 'rhs'");
    std::vector<Shape> fin = {(*in)[1], (*in)[2]}, fout = {(*in)[0]};
    forward(attrs, &fin, &fout);
    (*in)[0] = fout[0];
    for (int i = 0; i < 2; ++i) {
      (*in)[i + 1] = fin[i];
      (*out)[i] = fin[i];
    }
    return AllKnown(*in) && AllKnown(*out);
  };
}

void AddProduct(OpRegistry* reg, const std::string& name, const std::string& doc,
                InferShapeFn shape) {
  const std::string backward = "_backward_" + name;
  OpDef f;
  f.name = name;
  f.doc = doc;
  f.params = DotParams();
  f.num_inputs = 2;
  f.input_names = FixedNames({"lhs", "rhs"});
  f.infer_shape = shape;
  f.infer_type = ElemwiseType;
  f.gradient = [backward](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, backward, n, {og[0], n->inputs[0], n->inputs[1]}, 2);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = backward;
  b.doc = "Gradient of " + name + ": (lhs_grad, rhs_grad) from (ograd, lhs, rhs).";
  b.params = DotParams();
  b.num_inputs = 3;
  b.num_outputs = 2;
  b.input_names = FixedNames({"ograd", "lhs", "rhs"});
  b.output_names = FixedNames({"lhs_grad", "rhs_grad"});
  b.infer_shape = BackwardShape(shape);
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace

void RegisterDot(OpRegistry* reg) {
  AddProduct(reg, "dot",
             "Dot product: inner product of vectors, matrix product, or the N-D product "
             "contracting lhs's last axis with rhs's first (MXNet semantics).",
             DotShape);
  AddProduct(reg, "batch_dot",
             "Batched matrix product over equal leading axes: (..., M, K) . (..., K, N).",
             BatchDotShape);
}

}  // namespace op
}  // namespace weft
