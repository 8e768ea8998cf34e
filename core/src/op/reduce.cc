// Axis reductions with MXNet names and semantics: sum (alias sum_axis),
// mean, max (alias max_axis), min (alias min_axis), prod, nansum, nanprod
// and norm, plus their `_backward_<op>` ops.
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
// max/min/prod/nansum/nanprod/norm -> `_backward_<op>(ograd, data, out)`:
// ograd broadcast back and multiplied by d out / d data (max/min: 1 at every
// element equal to the extreme, as MXNet; prod: out / data; nansum: 1, 0 at
// NaN; nanprod: out / data, 0 at NaN; norm ord 1: sign(data); ord 2:
// data / out, and 0 where out is 0 instead of MXNet's NaN). NaN propagates
// through max/min/prod/norm; nansum/nanprod treat NaN as 0/1.
//
// norm(data; ord=2, axis=None, out_dtype=None, keepdims=False) has no
// `exclude`; ord must be 1 or 2; out_dtype (float32/float64) sets the
// output dtype (None: data's).
#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> ReduceParams() {
  return {Optional(ShapeParam(
              "axis", "None",
              "Axis or axes to reduce (negative counts from the end); None reduces all axes.")),
          BoolParam("keepdims", "False", "Keep reduced axes in the output with extent 1."),
          BoolParam("exclude", "False", "Reduce over every axis except those in `axis`.")};
}

std::vector<ParamDecl> NormParams() {
  ParamDecl ord = IntParam("ord", "2", "Order of the norm: 1 or 2.");
  std::vector<ParamDecl> p = ReduceParams();
  p.pop_back();  // no `exclude`
  return {ord, p[0], Optional(DTypeParam("out_dtype", "None", "Output dtype (None: the input's).")),
          p[1]};
}

bool HasExclude(const NodeAttrs& attrs) { return attrs.op->name.find("norm") == std::string::npos; }

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
  if (HasExclude(attrs) && p.GetBool("exclude")) flags.flip();
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
  if (attrs.op->name == "norm") {
    const int64_t ord = attrs.params.GetInt("ord");
    if (ord != 1 && ord != 2)
      Fail(StatusCode::kInvalidArgument, "operator norm: parameter 'ord' is ", ord,
           " (expected 1 or 2)");
  }
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

// _backward_*(ograd, data, out): out has ograd's shape.
bool ReduceBackwardOutShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  std::vector<Shape> two = {(*in)[0], (*in)[1]};
  ReduceBackwardShape(attrs, &two, out);
  (*in)[0] = two[0];
  (*in)[1] = two[1];
  AssignShape(attrs, in, 2, (*in)[0], "input 'out'");
  AssignShape(attrs, in, 0, (*in)[2], "input 'ograd'");
  return AllKnown(*in) && AllKnown(*out);
}

// norm's output dtype: out_dtype, or data's.
bool NormType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  if (attrs.params.IsNone("out_dtype")) return ElemwiseType(attrs, in, out);
  AssignType(attrs, out, 0, attrs.params.GetDType("out_dtype"), "output 0");
  return AllKnown(*in) && AllKnown(*out);
}

// _backward_norm(ograd, data, out) -> data's dtype; ograd and out in out_dtype.
bool NormBackwardType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  if (attrs.params.IsNone("out_dtype")) return ElemwiseType(attrs, in, out);
  const DType t = attrs.params.GetDType("out_dtype");
  AssignType(attrs, in, 0, t, "input 'ograd'");
  AssignType(attrs, in, 2, t, "input 'out'");
  AssignType(attrs, out, 0, (*in)[1], "output 0");
  AssignType(attrs, in, 1, (*out)[0], "input 'data'");
  return AllKnown(*in) && AllKnown(*out);
}

// Adds `name` whose gradient is `_backward_<name>(ograd, data, out)`.
void AddOutReduction(OpRegistry* reg, const std::string& name, std::vector<std::string> aliases,
                     const std::string& doc, bool norm) {
  const std::string backward = "_backward_" + name;
  OpDef f;
  f.name = name;
  f.aliases = std::move(aliases);
  f.doc = doc;
  f.params = norm ? NormParams() : ReduceParams();
  f.infer_shape = ReduceShape;
  f.infer_type = norm ? NormType : ElemwiseType;
  f.gradient = [backward](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, backward, n, {og[0], n->inputs[0], OutEntry(n)}, 1);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = backward;
  b.doc = "Gradient of " + name + ": ograd broadcast back times d out / d data.";
  b.params = norm ? NormParams() : ReduceParams();
  b.num_inputs = 3;
  b.input_names = FixedNames({"ograd", "data", "out"});
  b.infer_shape = ReduceBackwardOutShape;
  b.infer_type = norm ? NormBackwardType : ElemwiseType;
  reg->Add(std::move(b));
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
  AddOutReduction(reg, "max", {"max_axis"}, "Maximum over the given axes.", false);
  AddOutReduction(reg, "min", {"min_axis"}, "Minimum over the given axes.", false);
  AddOutReduction(reg, "prod", {}, "Product over the given axes.", false);
  AddOutReduction(reg, "nansum", {}, "Sum over the given axes, NaN counted as 0.", false);
  AddOutReduction(reg, "nanprod", {}, "Product over the given axes, NaN counted as 1.", false);
  AddOutReduction(reg, "norm", {}, "L1 or L2 norm over the given axes.", true);
}

}  // namespace op
}  // namespace weft
