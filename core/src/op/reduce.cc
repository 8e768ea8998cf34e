// Axis reductions with MXNet names and semantics: sum (alias sum_axis) and
// mean, plus `_backward_sum` / `_backward_mean`.
//
// Parameters: axis (optional shape: an int or a tuple, negative allowed;
// None or () reduces every axis), keepdims (keep reduced axes as 1) and
// exclude (reduce every axis except the given ones). As in MXNet 1.x,
// reducing everything without keepdims yields shape (1,). Inference is
// forward only (the output cannot determine the input), dtypes are equal.
//
// Gradients: sum -> `_backward_sum(ograd, data)`, which broadcasts ograd back
// to data's shape; mean -> `_backward_mean(ograd, data)`, which also divides
// by the number of reduced elements. Both take the forward node's parameters.
#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> ReduceParams() {
  ParamDecl axis;
  axis.name = "axis";
  axis.type = ParamType::kShape;
  axis.default_value = "None";
  axis.optional = true;
  axis.doc = "Axis or axes to reduce (negative counts from the end); None reduces all axes.";
  return {axis, BoolParam("keepdims", "False", "Keep reduced axes in the output with extent 1."),
          BoolParam("exclude", "False", "Reduce over every axis except those in `axis`.")};
}

// Per-axis flags of `data` (rank `ndim`): true where the axis is reduced.
// Throws Error(kInvalidArgument) naming the op for out-of-range or repeated axes.
std::vector<bool> ReducedAxes(const NodeAttrs& attrs, int ndim) {
  const ParamValues& p = attrs.params;
  if (p.IsNone("axis") || p.GetShape("axis").ndim() == 0) return std::vector<bool>(ndim, true);
  const Shape& axis = p.GetShape("axis");
  std::vector<bool> flags(ndim, false);
  for (int i = 0; i < axis.ndim(); ++i) {
    int64_t a = axis[i];
    if (a < -ndim || a >= ndim)
      Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name, ": axis ", a,
           " is out of range for an input with ndim ", ndim, " (expected -", ndim, " <= axis < ",
           ndim, ")");
    if (a < 0) a += ndim;
    if (flags[a])
      Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name, ": axis ", axis.ToString(),
           " names axis ", a, " twice");
    flags[a] = true;
  }
  if (p.GetBool("exclude")) flags.flip();
  return flags;
}

// The output shape of reducing `in` (rank known; extents may be 0 = unknown).
Shape ReducedShape(const NodeAttrs& attrs, const Shape& in) {
  const int ndim = in.ndim();
  std::vector<bool> flags = ReducedAxes(attrs, ndim);
  const bool keepdims = attrs.params.GetBool("keepdims");
  std::vector<int64_t> dims;
  for (int i = 0; i < ndim; ++i) {
    if (!flags[i])
      dims.push_back(in[i]);
    else if (keepdims)
      dims.push_back(1);
  }
  if (dims.empty() && !keepdims) dims.push_back(1);  // MXNet legacy: never rank 0
  return Shape(dims);
}

bool ReduceShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!(*in)[0].ndim_known()) return false;
  AssignShape(attrs, out, 0, ReducedShape(attrs, (*in)[0]), "output 0");
  return AllKnown(*in) && AllKnown(*out);
}

// _backward_*(ograd, data) -> data's shape; ograd must be the reduced shape.
bool ReduceBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output 0");
  AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  if ((*in)[1].ndim_known())
    AssignShape(attrs, in, 0, ReducedShape(attrs, (*in)[1]), "input 'ograd'");
  return AllKnown(*in) && AllKnown(*out);
}

void AddReduction(OpRegistry* reg, const std::string& name, std::vector<std::string> aliases,
                  const std::string& doc, const std::string& backward_doc) {
  const std::string backward = "_backward_" + name;
  OpDef f;
  f.name = name;
  f.aliases = std::move(aliases);
  f.doc = doc;
  f.params = ReduceParams();
  f.infer_shape = ReduceShape;
  f.infer_type = ElemwiseType;
  f.gradient = [backward](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, backward, n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = backward;
  b.doc = backward_doc;
  b.params = ReduceParams();
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "data"});
  b.infer_shape = ReduceBackwardShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace

void RegisterReduce(OpRegistry* reg) {
  AddReduction(reg, "sum", {"sum_axis"}, "Sum of array elements over the given axes.",
               "Gradient of sum: broadcasts ograd back to data's shape.");
  AddReduction(reg, "mean", {}, "Mean of array elements over the given axes.",
               "Gradient of mean: broadcasts ograd / count back to data's shape.");
}

}  // namespace op
}  // namespace weft
