// Joining and splitting operators with MXNet's names and semantics:
//   Concat (alias concat)(arg0, ..., arg{n-1}; num_args, dim=1): joins
//     along `dim`; every other extent must agree. Inference is
//     bidirectional: the other extents are shared by all inputs and the
//     output, and one input's unknown `dim` extent is recovered from the
//     output's.
//   SliceChannel (alias split)(data; num_outputs, axis=1,
//     squeeze_axis=False): `num_outputs` equal parts along `axis` (which
//     must divide evenly); squeeze_axis drops the axis when parts are 1 wide.
//   slice_axis(data; axis, begin, end): elements [begin, end) of `axis`
//     (negative indices count from the end; end=None means the extent).
// Gradients: Concat -> `_backward_Concat(ograd, arg0, ...)` splitting the
// head gradient; SliceChannel -> Concat of the head gradients (through
// expand_dims when squeeze_axis); slice_axis -> `_backward_slice_axis(ograd,
// data)` writing the head gradient into zeros.
#include "op_common.h"

namespace weft {
namespace op {

namespace {

int64_t NormAxis(const std::string& op, int64_t axis, int nd) {
  if (axis < -nd || axis >= nd)
    Fail(StatusCode::kInvalidArgument, "operator ", op, ": axis ", axis,
         " is out of range for rank ", nd);
  return axis < 0 ? axis + nd : axis;
}

// Shapes of Concat's inputs (`in`) and output (`*o`), bidirectional.
bool ConcatInfer(const NodeAttrs& attrs, std::vector<Shape>* in, Shape* o_out,
                 const std::string& what_out) {
  int nd = o_out->ndim_known() ? o_out->ndim() : -1;
  for (const auto& s : *in)
    if (s.ndim_known()) nd = s.ndim();
  if (nd < 0) return false;
  if (nd == 0) Fail(StatusCode::kShape, "operator Concat: inputs must have rank >= 1");
  const int axis = static_cast<int>(NormAxis("Concat", attrs.params.GetInt("dim"), nd));
  Shape common = Shape::Unknown(nd);
  auto merge = [&](const Shape& s, const std::string& what) {
    if (!s.ndim_known()) return;
    Shape t = s;
    if (t.ndim() != nd)
      Fail(StatusCode::kShape, "operator Concat: ", what, " has rank ", s.ndim(), ", expected ",
           nd);
    t[axis] = 0;
    if (!ShapeAssign(&common, t))
      Fail(StatusCode::kShape, "operator Concat: ", what, " ", s.ToString(),
           " disagrees with the other inputs outside dim ", axis, " (", common.ToString(), ")");
  };
  for (size_t i = 0; i < in->size(); ++i) merge((*in)[i], StrCat("input 'arg", i, "'"));
  merge(*o_out, what_out);
  int64_t sum = 0;
  int unknown = 0, idx = -1;
  for (size_t i = 0; i < in->size(); ++i) {
    const Shape& s = (*in)[i];
    if (!s.ndim_known() || s[axis] == 0) {
      ++unknown;
      idx = static_cast<int>(i);
    } else {
      sum += s[axis];
    }
  }
  if (unknown == 1 && o_out->ndim_known() && (*o_out)[axis] > 0) {
    Shape s = common;
    s[axis] = (*o_out)[axis] - sum;
    if (s[axis] <= 0)
      Fail(StatusCode::kShape, "operator Concat: output ", o_out->ToString(),
           " is too small for the inputs");
    AssignShape(attrs, in, idx, s, StrCat("input 'arg", idx, "'"));
    sum = (*o_out)[axis];
    unknown = 0;
  }
  for (size_t i = 0; i < in->size(); ++i) {
    Shape s = common;
    s[axis] = (*in)[i].ndim_known() ? (*in)[i][axis] : 0;
    AssignShape(attrs, in, i, s, StrCat("input 'arg", i, "'"));
  }
  Shape o = common;
  o[axis] = unknown == 0 ? sum : 0;
  std::vector<Shape> tmp = {*o_out};
  AssignShape(attrs, &tmp, 0, o, what_out);
  *o_out = tmp[0];
  return AllKnown(*in) && o_out->is_known();
}

bool ConcatShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return ConcatInfer(attrs, in, &(*out)[0], "output");
}

bool ConcatBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  // in: ograd, arg0..; out: grads of arg0..
  std::vector<Shape> args(in->begin() + 1, in->end());
  for (size_t i = 0; i < args.size(); ++i) ShapeAssign(&args[i], (*out)[i]);
  bool known = ConcatInfer(attrs, &args, &(*in)[0], "input 'ograd'");
  for (size_t i = 0; i < args.size(); ++i) {
    (*in)[i + 1] = args[i];
    AssignShape(attrs, out, i, args[i], StrCat("output ", i));
  }
  return known && AllKnown(*out);
}

std::vector<ParamDecl> SplitParams() {
  return {Ranged(RequiredParam("num_outputs", ParamType::kInt, "Number of equal parts."), 1, 1e6),
          IntParam("axis", "1", "The axis to split."),
          BoolParam("squeeze_axis", "False", "Drop the split axis (parts must then be 1 wide).")};
}

bool SplitShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  const int64_t n = p.GetInt("num_outputs");
  const bool squeeze = p.GetBool("squeeze_axis");
  Shape& d = (*in)[0];
  int nd = d.ndim();
  if (!d.ndim_known())
    for (const auto& o : *out)
      if (o.ndim_known()) nd = o.ndim() + (squeeze ? 1 : 0);
  if (nd < 0) return false;
  const int axis = static_cast<int>(NormAxis("SliceChannel", p.GetInt("axis"), nd));
  // Data from a known output.
  for (size_t j = 0; j < out->size() && !d.is_known(); ++j) {
    const Shape& o = (*out)[j];
    if (!o.ndim_known()) continue;
    std::vector<int64_t> dims = o.dims();
    if (squeeze) dims.insert(dims.begin() + axis, 1);
    dims[axis] *= n;
    AssignShape(attrs, in, 0, Shape(dims), "input 'data'");
  }
  if (!d.ndim_known()) return false;
  if (d[axis] > 0 && d[axis] % n != 0)
    Fail(StatusCode::kShape, "operator SliceChannel: axis ", axis, " of data ", d.ToString(),
         " does not split into num_outputs=", n, " equal parts");
  std::vector<int64_t> dims = d.dims();
  dims[axis] /= n;
  if (squeeze) {
    if (d[axis] > 0 && dims[axis] != 1)
      Fail(StatusCode::kShape,
           "operator SliceChannel: squeeze_axis=True needs parts of extent 1, data ", d.ToString(),
           " split into num_outputs=", n, " gives ", dims[axis]);
    dims.erase(dims.begin() + axis);
  }
  for (size_t j = 0; j < out->size(); ++j)
    AssignShape(attrs, out, j, Shape(dims), StrCat("output ", j));
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<ParamDecl> SliceAxisParams() {
  return {RequiredParam("axis", ParamType::kInt, "The axis to slice."),
          RequiredParam("begin", ParamType::kInt, "Begin index (negative counts from the end)."),
          Optional(RequiredParam("end", ParamType::kInt,
                                 "End index (exclusive); None means the extent."))};
}

}  // namespace

// The [begin, end) range slice_axis takes from an extent `len`; throws.
void SliceAxisRange(const ParamValues& p, int64_t len, int64_t* begin, int64_t* end) {
  int64_t b = p.GetInt("begin");
  int64_t e = p.IsNone("end") ? len : p.GetInt("end");
  if (b < 0) b += len;
  if (e < 0) e += len;
  if (b < 0 || e > len || b >= e)
    Fail(StatusCode::kInvalidArgument, "operator slice_axis: range [", p.GetInt("begin"), ", ",
         p.IsNone("end") ? std::string("None") : std::to_string(p.GetInt("end")),
         ") is empty or out of bounds for extent ", len);
  *begin = b;
  *end = e;
}

namespace {

bool SliceAxisShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  const int axis = static_cast<int>(NormAxis("slice_axis", attrs.params.GetInt("axis"), d.ndim()));
  Shape o = d;
  if (d[axis] > 0) {
    int64_t b, e;
    SliceAxisRange(attrs.params, d[axis], &b, &e);
    o[axis] = e - b;
  }
  AssignShape(attrs, out, 0, o, "output");
  return AllKnown(*in) && AllKnown(*out);
}

// slice_axis of a run's array without elements: an axis of extent 0
// stays 0, another is sliced as SliceAxisShape slices it.
std::vector<Shape> SliceAxisEmptyShape(const NodeAttrs& attrs, const std::vector<Shape>& in) {
  std::vector<Shape> d = in, out(1);
  SliceAxisShape(attrs, &d, &out);
  return out;
}

bool SliceAxisBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output");
  return AllKnown(*in) && AllKnown(*out);
}

}  // namespace

namespace {

// Concat of a run's arrays, some without elements (OpDef::infer_empty_shape):
// equal ranks and extents outside `dim`, the extents along it summed (0 a
// real extent, where ConcatInfer reads it as unknown).
std::vector<Shape> ConcatEmptyShape(const NodeAttrs& attrs, const std::vector<Shape>& in) {
  const int nd = in[0].ndim();
  if (nd == 0) Fail(StatusCode::kShape, "operator Concat: inputs must have rank >= 1");
  const int axis = static_cast<int>(NormAxis("Concat", attrs.params.GetInt("dim"), nd));
  Shape out = in[0];
  out[axis] = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    bool fits = in[i].ndim() == nd;
    for (int k = 0; k < nd && fits; ++k) fits = k == axis || in[i][k] == in[0][k];
    if (!fits)
      Fail(StatusCode::kShape, "operator Concat: input 'arg", i, "' ", in[i].ToString(),
           " disagrees with input 'arg0' ", in[0].ToString(), " outside dim ", axis);
    out[axis] += in[i][axis];
  }
  return {out};
}

}  // namespace

std::vector<ParamDecl> ConcatParams() {
  return {Ranged(RequiredParam("num_args", ParamType::kInt, "Number of inputs to join."), 1, 1e6),
          IntParam("dim", "1", "The axis to join along.")};
}

OpDef ConcatLikeDef(std::string name, std::string doc, std::vector<ParamDecl> params,
                    InferShapeFn shape) {
  OpDef c;
  c.name = std::move(name);
  c.doc = std::move(doc);
  c.params = std::move(params);
  c.key_var_num_args = "num_args";
  c.num_inputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_args")); };
  c.input_names = [](const ParamValues& p) {
    std::vector<std::string> names;
    for (int64_t i = 0; i < p.GetInt("num_args"); ++i) names.push_back("arg" + std::to_string(i));
    return names;
  };
  c.infer_shape = std::move(shape);
  c.infer_type = ElemwiseType;
  c.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> ins = {og[0]};
    for (const auto& e : n->inputs) ins.push_back(e);
    return BackwardNode(r, "_backward_Concat", n, ins, static_cast<int>(n->inputs.size()));
  };
  return c;
}

void RegisterShapeOpsJoin(OpRegistry* reg) {
  OpDef c = ConcatLikeDef("Concat", "Joins arrays along `dim`.", ConcatParams(), ConcatShape);
  c.aliases = {"concat"};
  c.infer_empty_shape = ConcatEmptyShape;
  reg->Add(std::move(c));

  OpDef cb;
  cb.name = "_backward_Concat";
  cb.doc = "Gradient of Concat: the head gradient split into the inputs' shapes.";
  cb.params = ConcatParams();
  cb.num_inputs_fn = [](const ParamValues& p) {
    return static_cast<int>(p.GetInt("num_args")) + 1;
  };
  cb.num_outputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_args")); };
  cb.input_names = [](const ParamValues& p) {
    std::vector<std::string> names = {"ograd"};
    for (int64_t i = 0; i < p.GetInt("num_args"); ++i) names.push_back("arg" + std::to_string(i));
    return names;
  };
  cb.infer_shape = ConcatBackwardShape;
  cb.infer_type = ElemwiseType;
  reg->Add(std::move(cb));

  OpDef s;
  s.name = "SliceChannel";
  s.aliases = {"split"};
  s.doc = "Splits an array into equal parts along `axis`.";
  s.params = SplitParams();
  s.num_outputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_outputs")); };
  s.infer_shape = SplitShape;
  s.infer_type = ElemwiseType;
  s.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    const ParamValues& p = n->attrs.params;
    const std::string axis = std::to_string(p.GetInt("axis"));
    std::vector<NodeEntry> parts;
    for (size_t j = 0; j < og.size(); ++j) {
      if (p.GetBool("squeeze_axis"))
        parts.push_back(MakeOpEntry(r, "expand_dims", GradName(n, "unsqueeze" + std::to_string(j)),
                                    {og[j]}, {{"axis", axis}}));
      else
        parts.push_back(og[j]);
    }
    return std::vector<NodeEntry>{
        MakeOpEntry(r, "Concat", GradName(n, "backward"), parts,
                    {{"num_args", std::to_string(og.size())}, {"dim", axis}})};
  };
  reg->Add(std::move(s));

  OpDef sa;
  sa.name = "slice_axis";
  sa.doc = "Elements [begin, end) along one axis.";
  sa.params = SliceAxisParams();
  sa.infer_shape = SliceAxisShape;
  sa.infer_empty_shape = SliceAxisEmptyShape;
  sa.infer_type = ElemwiseType;
  sa.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_slice_axis", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(sa));

  OpDef sb;
  sb.name = "_backward_slice_axis";
  sb.doc = "Gradient of slice_axis: the head gradient placed into zeros of data's shape.";
  sb.params = SliceAxisParams();
  sb.num_inputs = 2;
  sb.input_names = FixedNames({"ograd", "data"});
  sb.infer_shape = SliceAxisBackwardShape;
  sb.infer_type = ElemwiseType;
  reg->Add(std::move(sb));
}

}  // namespace op
}  // namespace weft
