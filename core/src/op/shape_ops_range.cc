// Ranges and shape queries with MXNet 1.9 names and semantics:
//   _arange(start, stop=None, step=1, repeat=1, infer_range=False, ctx,
//     dtype=float32): a source op; stop=None means the range [0, start)
//     (unless infer_range, where the output's length comes from the graph);
//     ceil((stop - start) / step) values, each repeated `repeat` times:
//     out[i] = start + (i / repeat) * step, computed in the output dtype.
//   _contrib_arange_like(data; start=0, step=1, repeat=1, ctx="", axis=None):
//     the same sequence with data's shape, or with data's extent on `axis`
//     as a 1-D array; dtype of data.
//   shape_array(data) / size_array(data): data's shape / size as int64.
// The last three have zero gradients (zeros_like(data)); _arange has none.
#include <cmath>

#include "op_common.h"
#include "shape_view.h"

namespace weft {
namespace op {

void ArangeStartStep(const ParamValues& p, double* start, double* step) {
  const bool from_zero = p.IsNone("stop") && !p.GetBool("infer_range");
  *start = from_zero ? 0.0 : p.GetFloat("start");
  *step = p.GetFloat("step");
}

namespace {

bool ArangeShape(const NodeAttrs& attrs, std::vector<Shape>*, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  const double step = p.GetFloat("step");
  if (step == 0) Fail(StatusCode::kInvalidArgument, "operator _arange: step cannot be 0");
  if (p.GetInt("repeat") < 1)
    Fail(StatusCode::kInvalidArgument, "operator _arange: repeat must be positive, given ",
         p.GetInt("repeat"));
  if (p.IsNone("stop") && p.GetBool("infer_range")) {
    if ((*out)[0].ndim_known() && (*out)[0].ndim() != 1)
      Fail(StatusCode::kShape, "operator _arange: output must be 1-D, given ",
           (*out)[0].ToString());
    AssignShape(attrs, out, 0, Shape::Unknown(1), "output");
    return AllKnown(*out);
  }
  double start, unused;
  ArangeStartStep(p, &start, &unused);
  const double stop = p.IsNone("stop") ? p.GetFloat("start") : p.GetFloat("stop");
  if (step > 0 ? !(start < stop) : !(start > stop))
    Fail(StatusCode::kInvalidArgument, "operator _arange: invalid range (start, stop, step) = (",
         start, ", ", stop, ", ", step, ")");
  const double n = std::ceil((stop - start) / step) * static_cast<double>(p.GetInt("repeat"));
  AssignShape(attrs, out, 0, Shape({static_cast<int64_t>(n)}), "output");
  return true;
}

bool ArangeType(const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
  AssignType(attrs, out, 0, attrs.params.GetDType("dtype"), "output");
  return AllKnown(*out);
}

bool ArangeLikeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  if (p.GetInt("repeat") < 1)
    Fail(StatusCode::kInvalidArgument,
         "operator _contrib_arange_like: repeat must be positive, given ", p.GetInt("repeat"));
  if (p.IsNone("axis")) return ElemwiseShape(attrs, in, out);
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  const int a = CheckAxis("_contrib_arange_like", "axis", p.GetInt("axis"), d.ndim());
  AssignShape(attrs, out, 0, Shape({d[a]}), "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool ShapeArrayShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (attrs.op->name == "size_array") {
    AssignShape(attrs, out, 0, Shape({1}), "output");
  } else if (d.ndim_known()) {
    if (d.ndim() == 0) Fail(StatusCode::kShape, "operator shape_array: data must have rank >= 1");
    AssignShape(attrs, out, 0, Shape({d.ndim()}), "output");
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool Int64Type(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, out, 0, DType::kInt64, "output");
  return AllKnown(*in);
}

std::vector<NodeEntry> ZeroGrad(const OpRegistry& r, const NodePtr& n,
                                const std::vector<NodeEntry>&) {
  return {MakeOpEntry(r, "zeros_like", GradName(n, "backward"), {n->inputs[0]})};
}

}  // namespace

void RegisterShapeOpsRange(OpRegistry* reg) {
  OpDef a;
  a.name = "_arange";
  a.doc = "Evenly spaced values in [start, stop), each repeated `repeat` times.";
  a.params = {
      RequiredParam("start", ParamType::kFloat, "Start of the interval."),
      Optional(FloatParam("stop", "None", "End of the interval (exclusive); None: [0, start).")),
      FloatParam("step", "1.0", "Spacing between values."),
      IntParam("repeat", "1", "Times each value is repeated."),
      BoolParam("infer_range", "False", "With stop=None, take the length from the graph."),
      ContextParam("ctx", "cpu(0)", "Context of the output."),
      DTypeParam("dtype", "float32", "Element type of the output.")};
  a.num_inputs = 0;
  a.is_source = true;
  a.infer_shape = ArangeShape;
  a.infer_type = ArangeType;
  reg->Add(std::move(a));

  OpDef al;
  al.name = "_contrib_arange_like";
  al.doc = "An arange with the shape of data (or of data's extent on `axis`).";
  al.params = {FloatParam("start", "0", "Start of the interval."),
               FloatParam("step", "1", "Spacing between values."),
               IntParam("repeat", "1", "Times each value is repeated."),
               StringParam("ctx", "", "Context (ignored: the output lives with data)."),
               Optional(IntParam("axis", "None",
                                 "Axis whose extent sets the length; None: data's whole shape."))};
  al.infer_shape = ArangeLikeShape;
  al.infer_type = ElemwiseType;
  al.gradient = ZeroGrad;
  reg->Add(std::move(al));

  for (const char* name : {"shape_array", "size_array"}) {
    OpDef s;
    s.name = name;
    s.doc =
        std::string("The ") + (name[1] == 'h' ? "shape" : "size") + " of data as an int64 array.";
    s.infer_shape = ShapeArrayShape;
    s.infer_type = Int64Type;
    s.gradient = ZeroGrad;
    reg->Add(std::move(s));
  }
}

}  // namespace op
}  // namespace weft
